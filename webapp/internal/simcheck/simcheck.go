// Package simcheck is the service of the staff's similarity check: it
// loads the sources of a problem or a contest from the store, runs
// package similarity's ranking on them through a per-node slot, and
// compares two submissions for the side-by-side view. The algorithm, and
// why it runs here rather than as a CLI over the export, is in package
// similarity's documentation.
package simcheck

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/similarity"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Errors of Rank and Compare.
var (
	// ErrBusy: every slot stayed taken until the context ended.
	ErrBusy = errors.New("simcheck: another similarity check is running on this node")
	// ErrTooMany: the scope holds more sources than MaxSources.
	ErrTooMany = errors.New("simcheck: too many sources")
)

// Defaults of Config.
const (
	DefaultSlots      = 1
	DefaultMaxSources = 20000
	// DefaultWait is how long a run waits for a slot.
	DefaultWait = 30 * time.Second
)

// Config configures New; zero values take the defaults.
type Config struct {
	Store  *store.Store // required
	Logger *slog.Logger
	// Slots is how many runs a node does at a time (each uses every core
	// for its fingerprinting).
	Slots int
	// Wait bounds the wait for a slot.
	Wait time.Duration
	// MaxSources caps the sources of one run.
	MaxSources int
	// Options tune the algorithm.
	Options similarity.Options
}

// Service runs similarity checks.
type Service struct {
	cfg   Config
	log   *slog.Logger
	slots chan struct{}
}

// New checks cfg.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil {
		return nil, errors.New("simcheck: Store is required")
	}
	if cfg.Slots <= 0 {
		cfg.Slots = DefaultSlots
	}
	if cfg.Wait <= 0 {
		cfg.Wait = DefaultWait
	}
	if cfg.MaxSources <= 0 {
		cfg.MaxSources = DefaultMaxSources
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg, log: log, slots: make(chan struct{}, cfg.Slots)}, nil
}

// Scope is what Rank checks: a contest's or a problem's submissions (one
// of the ids set), each user's final one per problem unless All.
type Scope struct {
	ContestID, ProblemID int64
	All                  bool
}

// Ref names a submission in a report.
type Ref struct {
	SubmissionID int64     `json:"submission_id"`
	UserID       int64     `json:"-"`
	Username     string    `json:"username"`
	Problem      string    `json:"problem"`
	Language     string    `json:"language"`
	Verdict      string    `json:"verdict"`
	CreatedAt    time.Time `json:"created_at"`
}

func refOf(sub *store.Submission) Ref {
	return Ref{SubmissionID: sub.ID, UserID: sub.UserID, Username: sub.Username, Problem: sub.ProblemSlug,
		Language: sub.Language, Verdict: sub.Verdict, CreatedAt: sub.CreatedAt}
}

// Pair is a ranked pair of a Report.
type Pair struct {
	A      Ref     `json:"a"`
	B      Ref     `json:"b"`
	Shared int     `json:"shared"`
	Score  float64 `json:"score"`
	CoverA float64 `json:"cover_a"`
	CoverB float64 `json:"cover_b"`
}

// Report is the result of Rank.
type Report struct {
	// Sources loaded, Checked (in a language with a tokenizer), Skipped.
	Sources, Checked, Skipped int
	// Candidates pairs shared enough; Pairs are the best Limit of them.
	Candidates  int
	Boilerplate int
	Pairs       []Pair
	Elapsed     time.Duration
}

func (s *Service) acquire(ctx context.Context) (func(), error) {
	t := time.NewTimer(s.cfg.Wait)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrBusy, ctx.Err())
	case <-t.C:
		return nil, ErrBusy
	}
}

// Rank ranks the pairs of sc's sources, best first, at most limit
// (0: the algorithm's default). Pairs are only formed within a problem
// and a language family, never of one user.
func (s *Service) Rank(ctx context.Context, sc Scope, limit int) (Report, error) {
	if (sc.ContestID > 0) == (sc.ProblemID > 0) {
		return Report{}, errors.New("simcheck: give a contest or a problem")
	}
	release, err := s.acquire(ctx)
	if err != nil {
		return Report{}, err
	}
	defer release()
	start := time.Now()
	var refs []Ref
	var srcs []similarity.Source
	for sub, err := range s.cfg.Store.ExportSubmissions(ctx, sc.ContestID, sc.ProblemID, !sc.All) {
		if err != nil {
			return Report{}, fmt.Errorf("simcheck: load sources: %w", err)
		}
		if len(srcs) == s.cfg.MaxSources {
			return Report{}, fmt.Errorf("%w: more than %d; check a problem, or final submissions only", ErrTooMany, s.cfg.MaxSources)
		}
		refs = append(refs, refOf(sub))
		srcs = append(srcs, similarity.Source{Group: strconv.FormatInt(sub.ProblemID, 10), Owner: sub.UserID,
			Language: sub.Language, Text: sub.Source})
	}
	loaded := time.Since(start)
	opt := s.cfg.Options
	opt.MaxPairs = limit
	res := similarity.Rank(srcs, opt)
	rep := Report{Sources: len(srcs), Checked: res.Checked, Skipped: len(res.Skipped), Candidates: res.Candidates,
		Boilerplate: res.Boilerplate, Pairs: make([]Pair, 0, len(res.Pairs)), Elapsed: time.Since(start)}
	for _, p := range res.Pairs {
		rep.Pairs = append(rep.Pairs, Pair{A: refs[p.A], B: refs[p.B], Shared: p.Shared, Score: p.Score, CoverA: p.CoverA, CoverB: p.CoverB})
	}
	s.log.Info("similarity check", "contest_id", sc.ContestID, "problem_id", sc.ProblemID, "all", sc.All,
		"sources", rep.Sources, "candidates", rep.Candidates, "load_ms", loaded.Milliseconds(), "elapsed_ms", rep.Elapsed.Milliseconds())
	return rep, nil
}

// Side is one source of a Comparison.
type Side struct {
	Ref
	Source  string `json:"source"`
	Tokens  int    `json:"tokens"`
	Matched int    `json:"matched"`
}

// Region is a matching region: its ranges in A and B.
type Region struct {
	A      similarity.Span `json:"a"`
	B      similarity.Span `json:"b"`
	Tokens int             `json:"tokens"`
}

// Comparison is the side-by-side view of two submissions.
type Comparison struct {
	A       Side     `json:"a"`
	B       Side     `json:"b"`
	Regions []Region `json:"regions"`
}

// Compare loads submissions a and b and finds their matching regions. A
// missing one is store.ErrNotFound.
func (s *Service) Compare(ctx context.Context, a, b int64) (Comparison, error) {
	sa, err := s.cfg.Store.SubmissionByID(ctx, a)
	if err != nil {
		return Comparison{}, fmt.Errorf("simcheck: submission %d: %w", a, err)
	}
	sb, err := s.cfg.Store.SubmissionByID(ctx, b)
	if err != nil {
		return Comparison{}, fmt.Errorf("simcheck: submission %d: %w", b, err)
	}
	c := similarity.Compare(similarity.Source{Language: sa.Language, Text: sa.Source},
		similarity.Source{Language: sb.Language, Text: sb.Source}, s.cfg.Options)
	out := Comparison{
		A:       Side{Ref: refOf(&sa), Source: sa.Source, Tokens: c.TokensA, Matched: c.MatchedA},
		B:       Side{Ref: refOf(&sb), Source: sb.Source, Tokens: c.TokensB, Matched: c.MatchedB},
		Regions: make([]Region, 0, len(c.Regions)),
	}
	for _, r := range c.Regions {
		out.Regions = append(out.Regions, Region{A: r.A, B: r.B, Tokens: r.Tokens})
	}
	return out, nil
}

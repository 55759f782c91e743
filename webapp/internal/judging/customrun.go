package judging

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Custom runs ("run on my input"): one run of a user's source on an input
// they typed, and on the problem's sample cases when they ask, judged by
// the judges like a submission but never one. They are not stored in
// MySQL and never reach the scoreboard: the queue keeps them in Redis,
// expiring an hour after their last change (queue.DefaultCustomRunTTL),
// and their states go live to the owner's user channel. The task the judge
// gets carries no test data, only the sample cases it was asked to run
// (internal/protocol/customrun.go).

// Custom run refusals (the server maps them to HTTP errors).
var (
	// ErrCustomRunsOff: the contest turned custom runs off.
	ErrCustomRunsOff = errors.New("judging: custom runs are turned off in this contest")
	// ErrCustomRunRefused wraps a refusal the message of which the user
	// may read (the problem is not theirs to run, the contest is not
	// running, the language is not allowed, ...). See CustomRunError.
	ErrCustomRunRefused = errors.New("judging: custom run refused")
	// ErrNoCustomRun: no such custom run for this user (or it expired).
	ErrNoCustomRun = errors.New("judging: no such custom run")
)

// CustomRunError is a refused custom run: the field at fault, a message
// for the user, and whether it is a missing thing (404) or a rule (403/400).
type CustomRunError struct {
	Field    string
	Message  string
	NotFound bool
	// Forbidden: a rule of the contest (not started, over, not
	// registered); else a bad request.
	Forbidden bool
}

func (e *CustomRunError) Error() string { return "judging: custom run: " + e.Field + ": " + e.Message }

// Unwrap makes it an ErrCustomRunRefused.
func (e *CustomRunError) Unwrap() error { return ErrCustomRunRefused }

// CustomRunRequest is one custom run to make.
type CustomRunRequest struct {
	User                    *store.User
	Problem                 string // slug
	Contest                 string // slug, "" outside a contest
	Language, Source, Input string
	// Samples: also run the problem's sample cases, compared with their
	// answers.
	Samples bool
}

// CustomRun checks a custom run against the rules (who may see the
// problem, the contest's window and its custom-run setting, the
// languages) and puts it in the judge queue at PriorityCustom. The rate
// limit is the caller's (per user, server.Limits.CustomRunPerMinute).
func (s *Service) CustomRun(ctx context.Context, blobs blob.Store, req CustomRunRequest) (protocol.CustomRunState, error) {
	var st protocol.CustomRunState
	if len(req.Input) > protocol.MaxCustomInput {
		return st, &CustomRunError{Field: "input", Message: fmt.Sprintf("input is %d bytes, the limit is %d", len(req.Input), protocol.MaxCustomInput)}
	}
	p, c, err := s.customRunScope(ctx, req)
	if err != nil {
		return st, err
	}
	if !p.TestdataHash.Valid {
		return st, &CustomRunError{Field: "problem", Message: "the problem has no test data yet"}
	}
	interactive, err := s.st.TestdataInteractive(ctx, p.ID, p.TestdataHash.String)
	if err != nil {
		return st, fmt.Errorf("judging: custom run: %w", err)
	}
	if interactive {
		// The interactor is in the test data, which a custom run never gets.
		return st, &CustomRunError{Field: "problem", Message: "custom runs are not available for interactive problems"}
	}
	if p.OutputOnly {
		// There is no program to run (problemio.go).
		return st, &CustomRunError{Field: "problem", Message: "custom runs are not available for output-only problems"}
	}
	if len(p.Languages) > 0 && !slices.Contains(p.Languages, req.Language) {
		return st, &CustomRunError{Field: "language", Message: fmt.Sprintf("language %q is not allowed for this problem (allowed: %s)",
			req.Language, strings.Join(p.Languages, ", "))}
	}
	var samples []protocol.SampleCase
	if req.Samples {
		if samples, err = s.sampleCases(ctx, blobs, &p); err != nil {
			return st, err
		}
	}
	id, err := s.q.NewCustomRunID(ctx)
	if err != nil {
		return st, fmt.Errorf("judging: custom run: %w", err)
	}
	t := s.Task(&store.Submission{ID: id, Attempt: 1, UserID: req.User.ID, Language: req.Language, Source: req.Source}, &p, protocol.PriorityCustom)
	t.TestData = protocol.TestData{} // never the package: samples only, inline
	if t.Checker.Kind == protocol.CheckerSpecial {
		// The special judge lives in the package; samples are compared
		// token by token instead (docs/api.md).
		t.Checker = protocol.Checker{Kind: protocol.CheckerDefault}
	}
	t.Custom = &protocol.CustomRun{Input: req.Input, Samples: samples}
	t.SubmittedAt = s.cfg.Now()
	if c != nil {
		t.ContestID = c.ID
	}
	if err := s.q.Enqueue(ctx, t); err != nil {
		return st, fmt.Errorf("judging: custom run: %w", err)
	}
	s.log.Info("custom run queued", "run_id", id, "user_id", req.User.ID, "problem_id", p.ID, "samples", len(samples))
	return protocol.CustomRunState{RunID: id, ProblemID: p.ID, Status: protocol.VerdictQueued}, nil
}

// customRunScope resolves the problem and contest and applies who may run
// what: a problem the user may see (outside a contest: a public one; a
// contest-only problem only inside its running contest), a running
// contest they take part in (staff always), whose custom runs are on.
// Unlike a submission, a custom run never registers anybody.
func (s *Service) customRunScope(ctx context.Context, req CustomRunRequest) (store.Problem, *store.Contest, error) {
	now := s.cfg.Now()
	u := req.User
	staff := u.IsStaff()
	p, err := s.st.ProblemBySlug(ctx, req.Problem)
	if errors.Is(err, store.ErrNotFound) {
		return p, nil, &CustomRunError{Field: "problem", Message: "no such problem", NotFound: true}
	}
	if err != nil {
		return p, nil, fmt.Errorf("judging: custom run: %w", err)
	}
	if req.Contest == "" {
		if staff || p.Visibility == store.VisibilityPublic {
			return p, nil, nil
		}
		if p.Visibility == store.VisibilityContestOnly {
			in, err := s.st.InStartedContestOf(ctx, u.ID, p.ID, now)
			if err != nil {
				return p, nil, fmt.Errorf("judging: custom run: %w", err)
			}
			if in {
				return p, nil, &CustomRunError{Field: "contest", Message: "this problem is only run inside its contest: give the contest"}
			}
		}
		return p, nil, &CustomRunError{Field: "problem", Message: "no such problem", NotFound: true}
	}
	c, err := s.st.ContestBySlug(ctx, req.Contest)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !c.Visible && !staff) {
		return p, nil, &CustomRunError{Field: "contest", Message: "no such contest", NotFound: true}
	}
	if err != nil {
		return p, nil, fmt.Errorf("judging: custom run: %w", err)
	}
	if _, err := s.st.ContestHasProblem(ctx, c.ID, p.ID); errors.Is(err, store.ErrNotFound) {
		return p, nil, &CustomRunError{Field: "problem", Message: "the problem is not in this contest"}
	} else if err != nil {
		return p, nil, fmt.Errorf("judging: custom run: %w", err)
	}
	if !staff {
		switch c.Phase(now) {
		case "upcoming":
			return p, nil, &CustomRunError{Field: "contest", Message: "the contest has not started", Forbidden: true}
		case "ended":
			return p, nil, &CustomRunError{Field: "contest", Message: "the contest is over: run without a contest to practise", Forbidden: true}
		}
		reg, err := s.st.IsParticipant(ctx, c.ID, u.ID)
		if err != nil {
			return p, nil, fmt.Errorf("judging: custom run: %w", err)
		}
		if !reg && c.Registration != store.RegistrationOpen {
			return p, nil, &CustomRunError{Field: "contest", Message: "you are not registered in this contest", Forbidden: true}
		}
	}
	on, err := s.st.ContestCustomRuns(ctx, c.ID)
	if err != nil {
		return p, nil, fmt.Errorf("judging: custom run: %w", err)
	}
	if !on && !staff {
		return p, nil, ErrCustomRunsOff
	}
	return p, &c, nil
}

// sampleCases returns the sample cases of the problem's current test data
// (cached per version): only the cases the manifest marks "sample", the
// first MaxCustomSamples of them.
func (s *Service) sampleCases(ctx context.Context, blobs blob.Store, p *store.Problem) ([]protocol.SampleCase, error) {
	key := fmt.Sprintf("custom/%d/%s", p.ID, p.TestdataHash.String)
	if v, ok := s.samples.Load(key); ok {
		return v.([]protocol.SampleCase), nil
	}
	if blobs == nil {
		return nil, fmt.Errorf("judging: custom run samples: no blob store")
	}
	obj, err := blobs.Open(ctx, p.TestdataHash.String)
	if err != nil {
		return nil, fmt.Errorf("judging: custom run samples of problem %d: %w", p.ID, err)
	}
	b, err := io.ReadAll(obj)
	obj.Close()
	if err != nil {
		return nil, fmt.Errorf("judging: custom run samples of problem %d: %w", p.ID, err)
	}
	files, err := testpkg.ReadSamples(b, protocol.MaxCustomSampleBytes)
	if err != nil {
		return nil, fmt.Errorf("judging: custom run samples of problem %d: %w", p.ID, err)
	}
	out := []protocol.SampleCase{}
	for _, f := range files {
		if len(out) == protocol.MaxCustomSamples {
			break
		}
		out = append(out, protocol.SampleCase{Case: f.Case, Input: string(f.In), Answer: string(f.Ans), Flags: f.Flags})
	}
	s.samples.Store(key, out)
	return out, nil
}

// CustomRunOf returns a custom run's state for u: their own runs only
// (staff may read anyone's).
func (s *Service) CustomRunOf(ctx context.Context, u *store.User, id int64) (protocol.CustomRunState, error) {
	if !protocol.IsCustomRun(id) {
		return protocol.CustomRunState{}, ErrNoCustomRun
	}
	rec, err := s.q.CustomRun(ctx, id)
	if errors.Is(err, queue.ErrNoCustomRun) {
		return protocol.CustomRunState{}, ErrNoCustomRun
	}
	if err != nil {
		return protocol.CustomRunState{}, fmt.Errorf("judging: custom run %d: %w", id, err)
	}
	if rec.Owner != u.ID && !u.IsStaff() {
		return protocol.CustomRunState{}, ErrNoCustomRun
	}
	return rec.State, nil
}

// SetCustomRuns turns a contest's custom runs on or off.
func (s *Service) SetCustomRuns(ctx context.Context, contestID int64, on bool) error {
	if err := s.st.SetContestCustomRuns(ctx, contestID, on); err != nil {
		return fmt.Errorf("judging: %w", err)
	}
	return nil
}

// CustomRunsOn reports whether a contest allows custom runs.
func (s *Service) CustomRunsOn(ctx context.Context, contestID int64) (bool, error) {
	on, err := s.st.ContestCustomRuns(ctx, contestID)
	if err != nil {
		return false, fmt.Errorf("judging: %w", err)
	}
	return on, nil
}

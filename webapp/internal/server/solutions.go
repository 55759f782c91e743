package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/icpcpkg"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Reference solutions (docs/problems.md): a package's solutions with the
// verdict each must get, stored at import (problem_solutions). Staff run
// them all from the problem's admin page, and an import runs them at once
// (after its input validation passed, runImportedSolutions): each becomes
// a practice submission of the staff member, judged like any other, and
// the page shows whether each got its expected verdict.

// Solution run states in SolutionJSON.State.
const (
	SolutionNotRun   = "not_run"
	SolutionRunning  = "running"
	SolutionOK       = "ok"       // got its expected verdict
	SolutionMismatch = "mismatch" // got another final verdict
)

// SolutionJSON is a reference solution and its latest run.
type SolutionJSON struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Language string `json:"language"`
	Expected string `json:"expected"`
	State    string `json:"state"`
	// From the latest run, when there is one.
	SubmissionID int64  `json:"submission_id,omitempty"`
	Verdict      string `json:"verdict,omitempty"`
	Score        int64  `json:"score,omitempty"`
	TimeMs       int64  `json:"time_ms,omitempty"`
	// Stale: the run judged older test data than the problem's current.
	Stale bool `json:"stale,omitempty"`
	// Error says why a run did not start (no judge offers its language).
	Error string `json:"error,omitempty"`
}

// SolutionsJSON answers GET and POST .../solutions.
type SolutionsJSON struct {
	Solutions []SolutionJSON `json:"solutions"`
	// OK is true when every solution has run on the current test data
	// and got its expected verdict.
	OK bool `json:"ok"`
}

// solutionsFromICPC are an ICPC package's reference solutions as stored.
func solutionsFromICPC(sols []icpcpkg.Solution) []store.ProblemSolution {
	out := make([]store.ProblemSolution, 0, len(sols))
	for _, s := range sols {
		out = append(out, store.ProblemSolution{Name: s.Name, Language: s.Language, Source: s.Source, Expected: s.Expected})
	}
	return out
}

func solutionJSON(p *store.Problem, ps store.ProblemSolution) SolutionJSON {
	out := SolutionJSON{ID: ps.ID, Name: ps.Name, Language: ps.Language, Expected: ps.Expected, State: SolutionNotRun}
	if !ps.LastSubmissionID.Valid || ps.Verdict == "" {
		return out
	}
	out.SubmissionID, out.Verdict, out.Score, out.TimeMs = ps.LastSubmissionID.Int64, ps.Verdict, ps.Score.Int64, ps.TimeMs.Int64
	out.Stale = ps.Hash.Valid && p.TestdataHash.Valid && ps.Hash.String != p.TestdataHash.String
	v := protocol.Verdict(ps.Verdict)
	switch {
	case !v.Final():
		out.State = SolutionRunning
	case ps.Verdict == ps.Expected:
		out.State = SolutionOK
	default:
		out.State = SolutionMismatch
	}
	return out
}

func solutionsJSON(p *store.Problem, sols []store.ProblemSolution, errs map[int64]string) SolutionsJSON {
	out := SolutionsJSON{Solutions: []SolutionJSON{}, OK: len(sols) > 0}
	for _, ps := range sols {
		j := solutionJSON(p, ps)
		j.Error = errs[ps.ID]
		out.OK = out.OK && j.State == SolutionOK && !j.Stale
		out.Solutions = append(out.Solutions, j)
	}
	return out
}

// slugProblem is the {slug} problem (the routes are staff only).
func (s *Server) slugProblem(r *http.Request) (store.Problem, error) {
	return s.cfg.Store.ProblemBySlug(r.Context(), chi.URLParam(r, "slug"))
}

// handleSolutions lists a problem's reference solutions with their latest
// runs (onlyStaff).
func (s *Server) handleSolutions(w http.ResponseWriter, r *http.Request) error {
	p, err := s.slugProblem(r)
	if err != nil {
		return err
	}
	sols, err := s.cfg.Store.ProblemSolutions(r.Context(), p.ID)
	if err != nil {
		return unavailableErr(err)
	}
	writeJSON(w, http.StatusOK, solutionsJSON(&p, sols, nil))
	return nil
}

// handleRunSolutions runs every reference solution of a problem against
// its current test data (onlyStaff): one practice submission each, by the
// staff member; a solution in a language no live judge offers is not run
// and says so. 202 with the list (their runs then show as running).
func (s *Server) handleRunSolutions(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	p, err := s.slugProblem(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if !p.TestdataHash.Valid {
		return fieldErr(http.StatusConflict, CodeConflict, "problem", "the problem has no test data yet")
	}
	sols, err := s.cfg.Store.ProblemSolutions(ctx, p.ID)
	if err != nil {
		return unavailableErr(err)
	}
	if len(sols) == 0 {
		return fieldErr(http.StatusConflict, CodeConflict, "problem", "the problem has no reference solutions (import a package with submissions/)")
	}
	if err := s.bucketErr(r, s.submitRule, strconv.FormatInt(u.ID, 10),
		fmt.Sprintf("at most %d submissions at once and %d a minute", s.submitRule.Burst, s.submitRule.Rate)); err != nil {
		return err
	}
	errs, live, err := s.startSolutionRuns(ctx, &p, u, sols)
	if err != nil {
		return unavailableErr(err)
	}
	if live == 0 {
		e := apiErr(http.StatusServiceUnavailable, CodeUnavailable, "no judge is connected right now: run them when one is")
		e.RetryAfter = 5 * time.Second
		return e
	}
	s.log.Info("reference solutions run", "slug", p.Slug, "solutions", len(sols), "user_id", u.ID, "request_id", requestIDOf(r))
	sols, err = s.cfg.Store.ProblemSolutions(ctx, p.ID)
	if err != nil {
		return unavailableErr(err)
	}
	writeJSON(w, http.StatusAccepted, solutionsJSON(&p, sols, errs))
	return nil
}

// startSolutionRuns queues one practice submission by u for each
// reference solution of p, on its current test data; a solution in a
// language no live judge offers is not run, and errs says so. live is
// the number of live judges: with none, nothing is queued.
func (s *Server) startSolutionRuns(ctx context.Context, p *store.Problem, u *store.User, sols []store.ProblemSolution) (errs map[int64]string, live int, err error) {
	langs, live, err := s.judging.Languages(ctx)
	if err != nil || live == 0 {
		return nil, live, err
	}
	errs = map[int64]string{}
	stamp := strconv.FormatInt(s.cfg.Now().UnixNano(), 36)
	for _, sol := range sols {
		if !slices.ContainsFunc(langs, func(l judging.Language) bool { return l.ID == sol.Language }) {
			errs[sol.ID] = fmt.Sprintf("no connected judge offers language %q", sol.Language)
			continue
		}
		ns := store.NewSubmission{UserID: u.ID, ProblemID: p.ID, Language: sol.Language, Source: sol.Source,
			TestdataHash: p.TestdataHash.String, IdemKey: "solution-" + strconv.FormatInt(sol.ID, 36) + "-" + stamp}
		sub, _, err := s.cfg.Store.CreateSubmission(ctx, ns)
		if err != nil {
			return errs, live, err
		}
		if err := s.cfg.Store.SetSolutionRun(ctx, sol.ID, sub.ID); err != nil {
			return errs, live, err
		}
		if err := s.judging.Enqueue(ctx, &sub, p, protocol.PriorityPractice); err != nil {
			s.log.Warn("enqueue of a reference solution failed; the reconciler will retry", "submission_id", sub.ID, "err", err)
		}
	}
	return errs, live, nil
}

// runImportedSolutions runs an imported problem's reference solutions at
// once (after its input validation passed), as staff would from the
// admin page: the answer's list, their runs queued; nil without any. A
// failure to start them does not undo the import: it is noted.
func (s *Server) runImportedSolutions(ctx context.Context, p *store.Problem, u *store.User) (*SolutionsJSON, []string) {
	sols, err := s.cfg.Store.ProblemSolutions(ctx, p.ID)
	if err != nil || len(sols) == 0 || !p.TestdataHash.Valid {
		if err != nil {
			s.log.Error("reading the imported reference solutions failed", "problem_id", p.ID, "err", err)
		}
		return nil, nil
	}
	errs, live, err := s.startSolutionRuns(ctx, p, u, sols)
	var notes []string
	switch {
	case err != nil:
		s.log.Error("running the imported reference solutions failed", "problem_id", p.ID, "err", err)
		notes = append(notes, "the reference solutions could not all be run: run them from the problem's admin page")
	case live == 0:
		notes = append(notes, "the reference solutions were not run: no judge is connected; run them from the problem's admin page")
	default:
		s.log.Info("reference solutions run after import", "slug", p.Slug, "solutions", len(sols), "user_id", u.ID)
	}
	if sols, err = s.cfg.Store.ProblemSolutions(ctx, p.ID); err != nil {
		return nil, notes
	}
	out := solutionsJSON(p, sols, errs)
	return &out, notes
}

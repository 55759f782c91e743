package server

import (
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
// them all from the problem's admin page: each becomes a practice
// submission of the staff member, judged like any other, and the page
// shows whether each got its expected verdict.

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

// staffProblem resolves {slug} for a staff request, answering itself on
// failure.
func (s *Server) staffProblem(w http.ResponseWriter, r *http.Request, what string) (store.Problem, *store.User, bool) {
	u, ok := requireStaff(w, r, what)
	if !ok {
		return store.Problem{}, nil, false
	}
	p, err := s.cfg.Store.ProblemBySlug(r.Context(), chi.URLParam(r, "slug"))
	if !s.found(w, r, err) {
		return store.Problem{}, nil, false
	}
	return p, u, true
}

// handleSolutions lists a problem's reference solutions with their latest
// runs (staff).
func (s *Server) handleSolutions(w http.ResponseWriter, r *http.Request) {
	p, _, ok := s.staffProblem(w, r, "see reference solutions")
	if !ok {
		return
	}
	sols, err := s.cfg.Store.ProblemSolutions(r.Context(), p.ID)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, http.StatusOK, solutionsJSON(&p, sols, nil))
}

// handleRunSolutions runs every reference solution of a problem against
// its current test data (staff): one practice submission each, by the
// staff member; a solution in a language no live judge offers is not run
// and says so. 202 with the list (their runs then show as running).
func (s *Server) handleRunSolutions(w http.ResponseWriter, r *http.Request) {
	p, u, ok := s.staffProblem(w, r, "run reference solutions")
	if !ok {
		return
	}
	ctx := r.Context()
	if !p.TestdataHash.Valid {
		writeAPIError(w, fieldErr(http.StatusConflict, CodeConflict, "problem", "the problem has no test data yet"))
		return
	}
	sols, err := s.cfg.Store.ProblemSolutions(ctx, p.ID)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	if len(sols) == 0 {
		writeAPIError(w, fieldErr(http.StatusConflict, CodeConflict, "problem", "the problem has no reference solutions (import a package with submissions/)"))
		return
	}
	if !s.takeBucket(w, r, s.submitRule, strconv.FormatInt(u.ID, 10),
		fmt.Sprintf("at most %d submissions at once and %d a minute", s.submitRule.Burst, s.submitRule.Rate)) {
		return
	}
	langs, live, err := s.judging.Languages(ctx)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	if live == 0 {
		e := apiErr(http.StatusServiceUnavailable, CodeUnavailable, "no judge is connected right now: run them when one is")
		e.RetryAfter = 5 * time.Second
		writeAPIError(w, e)
		return
	}
	errs := map[int64]string{}
	stamp := strconv.FormatInt(s.cfg.Now().UnixNano(), 36)
	for _, sol := range sols {
		if !slices.ContainsFunc(langs, func(l judging.Language) bool { return l.ID == sol.Language }) {
			errs[sol.ID] = fmt.Sprintf("no connected judge offers language %q", sol.Language)
			continue
		}
		ns := store.NewSubmission{UserID: u.ID, ProblemID: p.ID, Language: sol.Language, Source: sol.Source,
			TestdataHash: p.TestdataHash.String, IdemKey: "solution-" + strconv.FormatInt(sol.ID, 36) + "-" + stamp}
		id, _, err := s.cfg.Store.CreateSubmission(ctx, ns)
		if err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
		if err := s.cfg.Store.SetSolutionRun(ctx, sol.ID, id); err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
		sub, err := s.cfg.Store.SubmissionByID(ctx, id)
		if err != nil {
			continue // the reconciler enqueues it
		}
		if err := s.judging.Enqueue(ctx, &sub, &p, protocol.PriorityPractice); err != nil {
			s.log.Warn("enqueue of a reference solution failed; the reconciler will retry", "submission_id", id, "err", err)
		}
	}
	s.log.Info("reference solutions run", "slug", p.Slug, "solutions", len(sols), "user_id", u.ID, "request_id", requestIDOf(r))
	sols, err = s.cfg.Store.ProblemSolutions(ctx, p.ID)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, http.StatusAccepted, solutionsJSON(&p, sols, errs))
}

package server

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// The problem pages: the list and one problem with its statement (the
// staff's writes are problems_admin.go, test data problems_testdata.go).

// ProblemSummaryJSON is a problem in a list.
type ProblemSummaryJSON struct {
	Slug          string `json:"slug"`
	Title         string `json:"title"`
	TimeLimitMs   int    `json:"time_limit_ms"`
	MemoryLimitKB int    `json:"memory_limit_kb"`
	Mode          string `json:"mode"`
	Visibility    string `json:"visibility,omitempty"` // staff only
}

func (s *Server) handleProblems(w http.ResponseWriter, r *http.Request) error {
	a := authOf(r)
	var list []store.ProblemSummary
	var err error
	staff := a.user != nil && a.user.IsStaff()
	if staff {
		list, err = s.cfg.Store.ListProblems(r.Context())
	} else {
		list, _, err = s.catalog.PublicProblems(r.Context())
	}
	if err != nil {
		return unavailableErr(err)
	}
	out := make([]ProblemSummaryJSON, 0, len(list))
	for _, p := range list {
		j := ProblemSummaryJSON{Slug: p.Slug, Title: p.Title, TimeLimitMs: p.TimeLimitMs, MemoryLimitKB: p.MemoryLimitKB, Mode: p.Mode}
		if staff {
			j.Visibility = p.Visibility
		}
		out = append(out, j)
	}
	writeJSON(w, http.StatusOK, map[string]any{"problems": out})
	return nil
}

// ProblemJSON is one problem with its statement.
type ProblemJSON struct {
	Slug           string    `json:"slug"`
	Title          string    `json:"title"`
	Statement      string    `json:"statement"` // Markdown with $…$ math
	TimeLimitMs    int       `json:"time_limit_ms"`
	MemoryLimitKB  int       `json:"memory_limit_kb"`
	Checker        string    `json:"checker"`
	FloatTolerance float64   `json:"float_tolerance,omitempty"`
	Mode           string    `json:"mode"`
	Visibility     string    `json:"visibility"`
	Feedback       string    `json:"feedback"`                // what practice submissions show (protocol.FeedbackPolicy)
	Languages      []string  `json:"languages"`               // empty: every language a judge offers
	TestdataHash   string    `json:"testdata_hash,omitempty"` // staff only
	UpdatedAt      time.Time `json:"updated_at"`
	// InputFile and OutputFile: the files the program reads and writes
	// instead of stdin and stdout ("": the standard stream); OutputOnly:
	// contestants upload one output per case (docs/problems.md).
	InputFile  string `json:"input_file"`
	OutputFile string `json:"output_file"`
	OutputOnly bool   `json:"output_only"`
}

func (s *Server) handleProblem(w http.ResponseWriter, r *http.Request) error {
	p, err := s.cfg.Store.ProblemBySlug(r.Context(), chi.URLParam(r, "slug"))
	if err != nil {
		return err
	}
	a := authOf(r)
	staff := a.user != nil && a.user.IsStaff()
	visible := staff || p.Visibility == store.VisibilityPublic
	if !visible && p.Visibility == store.VisibilityContestOnly && a.user != nil {
		visible, err = s.cfg.Store.InStartedContestOf(r.Context(), a.user.ID, p.ID, s.cfg.Now())
		if err != nil {
			return unavailableErr(err)
		}
	}
	if !visible {
		// 404, not 403: do not reveal that a hidden problem exists.
		return errNotFound
	}
	out := ProblemJSON{Slug: p.Slug, Title: p.Title, Statement: statementForView(p.Slug, p.Statement), TimeLimitMs: p.TimeLimitMs,
		MemoryLimitKB: p.MemoryLimitKB, Checker: p.Checker, Mode: p.Mode, Visibility: p.Visibility,
		Feedback: p.Feedback, Languages: p.Languages, UpdatedAt: p.UpdatedAt,
		InputFile: p.InputFile, OutputFile: p.OutputFile, OutputOnly: p.OutputOnly}
	if p.Checker == store.CheckerFloat {
		out.FloatTolerance = p.FloatTolerance
	}
	if staff && p.TestdataHash.Valid {
		out.TestdataHash = p.TestdataHash.String
	}
	writeJSON(w, http.StatusOK, map[string]any{"problem": out})
	return nil
}

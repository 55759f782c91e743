package server

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
)

// Custom runs ("run on my input"): the rules are in judging/customrun.go;
// these handlers do HTTP.

func (s *Server) customRunRoutes(r chi.Router) {
	r.Post("/custom-runs", s.handleCustomRun)
	r.Get("/custom-runs/{id}", s.handleGetCustomRun)
	r.Get("/contests/{slug}/custom-runs", s.handleContestCustomRuns)
	r.Put("/contests/{slug}/custom-runs", s.handleSetContestCustomRuns)
}

// CodeCustomRunsOff: the contest turned custom runs off.
const CodeCustomRunsOff = "custom_runs_disabled"

type customRunRequest struct {
	Problem  string `json:"problem"`
	Contest  string `json:"contest"`
	Language string `json:"language"`
	Source   string `json:"source"`
	Input    string `json:"input"`
	Samples  bool   `json:"samples"`
}

// POST /api/custom-runs: 202 with the run's state (queued); its progress
// and outcome come on the user's live channel (EventCustomRun) and from
// GET /api/custom-runs/{id}.
func (s *Server) handleCustomRun(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	if a.user == nil {
		writeAPIError(w, errUnauthorized)
		return
	}
	var req customRunRequest
	if e := decodeJSON(r, &req); e != nil {
		writeAPIError(w, e)
		return
	}
	switch {
	case req.Problem == "":
		writeAPIError(w, badField("problem", "is required"))
		return
	case req.Language == "":
		writeAPIError(w, badField("language", "is required"))
		return
	case !validLanguageID(req.Language):
		writeAPIError(w, badField("language", "is not a language id"))
		return
	case strings.TrimSpace(req.Source) == "":
		writeAPIError(w, badField("source", "is required"))
		return
	case len(req.Source) > s.cfg.MaxSourceBytes:
		writeAPIError(w, fieldErr(http.StatusRequestEntityTooLarge, CodeTooLarge, "source",
			fmt.Sprintf("source is %d bytes, the limit is %d", len(req.Source), s.cfg.MaxSourceBytes)))
		return
	case len(req.Input) > protocol.MaxCustomInput:
		writeAPIError(w, fieldErr(http.StatusRequestEntityTooLarge, CodeTooLarge, "input",
			fmt.Sprintf("input is %d bytes, the limit is %d", len(req.Input), protocol.MaxCustomInput)))
		return
	}
	ctx := r.Context()
	langs, live, err := s.judging.Languages(ctx)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	if live == 0 {
		e := apiErr(http.StatusServiceUnavailable, CodeUnavailable, "no judge is connected right now; try again in a moment")
		e.RetryAfter = 5 * time.Second
		writeAPIError(w, e)
		return
	}
	offered := false
	for _, l := range langs {
		offered = offered || l.ID == req.Language
	}
	if !offered {
		writeAPIError(w, badField("language", fmt.Sprintf("%q: no connected judge offers it right now (see GET /api/languages)", req.Language)))
		return
	}
	// Per user, its own bucket (custom runs never use up submissions).
	rule := s.cfg.Limits.customRunBucket()
	if !s.takeBucket(w, r, rule, strconv.FormatInt(a.user.ID, 10),
		fmt.Sprintf("at most %d custom runs at once and %d a minute", rule.Burst, rule.Rate)) {
		return
	}
	st, err := s.judging.CustomRun(ctx, s.cfg.Blobs, judging.CustomRunRequest{User: a.user, Problem: req.Problem, Contest: req.Contest,
		Language: req.Language, Source: req.Source, Input: req.Input, Samples: req.Samples})
	if s.customRunErr(w, r, err) {
		return
	}
	writeJSON(w, http.StatusAccepted, st)
}

// customRunErr answers a refused or failed custom run request; false when
// err is nil.
func (s *Server) customRunErr(w http.ResponseWriter, r *http.Request, err error) bool {
	var ce *judging.CustomRunError
	switch {
	case err == nil:
		return false
	case errors.Is(err, judging.ErrCustomRunsOff):
		writeAPIError(w, fieldErr(http.StatusForbidden, CodeCustomRunsOff, "contest", "custom runs are turned off in this contest"))
	case errors.Is(err, judging.ErrNoCustomRun):
		writeAPIError(w, apiErr(http.StatusNotFound, CodeNotFound, "no such custom run (they are kept for an hour)"))
	case errors.As(err, &ce) && ce.NotFound:
		writeAPIError(w, fieldErr(http.StatusNotFound, CodeNotFound, ce.Field, ce.Message))
	case errors.As(err, &ce) && ce.Forbidden:
		writeAPIError(w, fieldErr(http.StatusForbidden, CodeForbidden, ce.Field, ce.Message))
	case errors.As(err, &ce):
		writeAPIError(w, fieldErr(http.StatusBadRequest, CodeValidation, ce.Field, ce.Message))
	default:
		s.internal(w, r, err, http.StatusServiceUnavailable)
	}
	return true
}

// GET /api/custom-runs/{id}: the owner's (or staff's) view of a run.
func (s *Server) handleGetCustomRun(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	if a.user == nil {
		writeAPIError(w, errUnauthorized)
		return
	}
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		writeAPIError(w, errNotFound)
		return
	}
	st, err := s.judging.CustomRunOf(r.Context(), a.user, id)
	if s.customRunErr(w, r, err) {
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// CustomRunsJSON is a contest's custom run setting.
type CustomRunsJSON struct {
	Enabled bool `json:"enabled"`
}

// GET /api/contests/{slug}/custom-runs: whether custom runs are on.
func (s *Server) handleContestCustomRuns(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	if a.user == nil {
		writeAPIError(w, errUnauthorized)
		return
	}
	c, err := s.cfg.Store.ContestBySlug(r.Context(), chi.URLParam(r, "slug"))
	if !s.found(w, r, err) {
		return
	}
	if !c.Visible && !a.user.IsStaff() {
		writeAPIError(w, errNotFound)
		return
	}
	on, err := s.judging.CustomRunsOn(r.Context(), c.ID)
	if !s.found(w, r, err) {
		return
	}
	writeJSON(w, http.StatusOK, CustomRunsJSON{Enabled: on})
}

// PUT /api/contests/{slug}/custom-runs (staff): turn custom runs on or off.
func (s *Server) handleSetContestCustomRuns(w http.ResponseWriter, r *http.Request) {
	u, ok := requireStaff(w, r, "change contests")
	if !ok {
		return
	}
	var req struct {
		Enabled *bool `json:"enabled"`
	}
	if e := decodeJSON(r, &req); e != nil {
		writeAPIError(w, e)
		return
	}
	if req.Enabled == nil {
		writeAPIError(w, badField("enabled", "is required"))
		return
	}
	c, err := s.cfg.Store.ContestBySlug(r.Context(), chi.URLParam(r, "slug"))
	if !s.found(w, r, err) {
		return
	}
	if err := s.judging.SetCustomRuns(r.Context(), c.ID, *req.Enabled); !s.found(w, r, err) {
		return
	}
	s.log.Info("contest custom runs set", "contest_id", c.ID, "enabled", *req.Enabled, "by", u.ID)
	writeJSON(w, http.StatusOK, CustomRunsJSON{Enabled: *req.Enabled})
}

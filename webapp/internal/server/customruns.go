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
	r.With(requireUser).Post("/custom-runs", s.h(s.handleCustomRun))
	r.With(requireUser).Get("/custom-runs/{id}", s.h(s.handleGetCustomRun))
	r.With(requireUser).Get("/contests/{slug}/custom-runs", s.h(s.handleContestCustomRuns))
	r.With(onlyStaff("change contests")).Put("/contests/{slug}/custom-runs", s.h(s.handleSetContestCustomRuns))
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

// POST /api/custom-runs (requireUser): 202 with the run's state
// (queued); its progress and outcome come on the user's live channel
// (EventCustomRun) and from GET /api/custom-runs/{id}.
func (s *Server) handleCustomRun(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	var req customRunRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	switch {
	case req.Problem == "":
		return badField("problem", "is required")
	case req.Language == "":
		return badField("language", "is required")
	case !validLanguageID(req.Language):
		return badField("language", "is not a language id")
	case strings.TrimSpace(req.Source) == "":
		return badField("source", "is required")
	case len(req.Source) > s.cfg.MaxSourceBytes:
		return fieldErr(http.StatusRequestEntityTooLarge, CodeTooLarge, "source",
			fmt.Sprintf("source is %d bytes, the limit is %d", len(req.Source), s.cfg.MaxSourceBytes))
	case len(req.Input) > protocol.MaxCustomInput:
		return fieldErr(http.StatusRequestEntityTooLarge, CodeTooLarge, "input",
			fmt.Sprintf("input is %d bytes, the limit is %d", len(req.Input), protocol.MaxCustomInput))
	}
	ctx := r.Context()
	langs, live, err := s.judging.Languages(ctx)
	if err != nil {
		return unavailableErr(err)
	}
	if live == 0 {
		e := apiErr(http.StatusServiceUnavailable, CodeUnavailable, "no judge is connected right now; try again in a moment")
		e.RetryAfter = 5 * time.Second
		return e
	}
	offered := false
	for _, l := range langs {
		offered = offered || l.ID == req.Language
	}
	if !offered {
		return badField("language", fmt.Sprintf("%q: no connected judge offers it right now (see GET /api/languages)", req.Language))
	}
	// Per user, its own bucket (custom runs never use up submissions).
	rule := s.cfg.Limits.customRunBucket()
	if err := s.bucketErr(r, rule, strconv.FormatInt(u.ID, 10),
		fmt.Sprintf("at most %d custom runs at once and %d a minute", rule.Burst, rule.Rate)); err != nil {
		return err
	}
	st, err := s.judging.CustomRun(ctx, s.cfg.Blobs, judging.CustomRunRequest{User: u, Problem: req.Problem, Contest: req.Contest,
		Language: req.Language, Source: req.Source, Input: req.Input, Samples: req.Samples})
	if err != nil {
		return customRunErr(err)
	}
	writeJSON(w, http.StatusAccepted, st)
	return nil
}

// customRunErr is the answer to a refused or failed custom run request
// (err not nil).
func customRunErr(err error) error {
	var ce *judging.CustomRunError
	switch {
	case errors.Is(err, judging.ErrCustomRunsOff):
		return fieldErr(http.StatusForbidden, CodeCustomRunsOff, "contest", "custom runs are turned off in this contest")
	case errors.Is(err, judging.ErrNoCustomRun):
		return apiErr(http.StatusNotFound, CodeNotFound, "no such custom run (they are kept for an hour)")
	case errors.As(err, &ce) && ce.NotFound:
		return fieldErr(http.StatusNotFound, CodeNotFound, ce.Field, ce.Message)
	case errors.As(err, &ce) && ce.Forbidden:
		return fieldErr(http.StatusForbidden, CodeForbidden, ce.Field, ce.Message)
	case errors.As(err, &ce):
		return fieldErr(http.StatusBadRequest, CodeValidation, ce.Field, ce.Message)
	}
	return unavailableErr(err)
}

// GET /api/custom-runs/{id} (requireUser): the owner's (or staff's) view
// of a run.
func (s *Server) handleGetCustomRun(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		return errNotFound
	}
	st, err := s.judging.CustomRunOf(r.Context(), userOf(r), id)
	if err != nil {
		return customRunErr(err)
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// CustomRunsJSON is a contest's custom run setting.
type CustomRunsJSON struct {
	Enabled bool `json:"enabled"`
}

// GET /api/contests/{slug}/custom-runs (requireUser): whether custom
// runs are on.
func (s *Server) handleContestCustomRuns(w http.ResponseWriter, r *http.Request) error {
	c, err := s.cfg.Store.ContestBySlug(r.Context(), chi.URLParam(r, "slug"))
	if err != nil {
		return err
	}
	if !c.Visible && !userOf(r).IsStaff() {
		return errNotFound
	}
	on, err := s.judging.CustomRunsOn(r.Context(), c.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, CustomRunsJSON{Enabled: on})
	return nil
}

// PUT /api/contests/{slug}/custom-runs (onlyStaff): turn custom runs on
// or off.
func (s *Server) handleSetContestCustomRuns(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	var req struct {
		Enabled *bool `json:"enabled"`
	}
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	if req.Enabled == nil {
		return badField("enabled", "is required")
	}
	c, err := s.cfg.Store.ContestBySlug(r.Context(), chi.URLParam(r, "slug"))
	if err != nil {
		return err
	}
	if err := s.judging.SetCustomRuns(r.Context(), c.ID, *req.Enabled); err != nil {
		return err
	}
	s.log.Info("contest custom runs set", "contest_id", c.ID, "enabled", *req.Enabled, "by", u.ID)
	writeJSON(w, http.StatusOK, CustomRunsJSON{Enabled: *req.Enabled})
	return nil
}

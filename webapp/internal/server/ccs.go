package server

import (
	"archive/zip"
	"bytes"
	"errors"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/webapp/internal/ccs"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// CCSBase is the base URL of the ICPC Contest API (docs/icpc.md).
const CCSBase = "/api/ccs"

// ccsRoutes registers the Contest API (read only: GET, no CSRF; API
// tokens or the session) and the writes that go with it (the caller's
// tokens, a contest's penalty; session + CSRF). r is the /api router.
func (s *Server) ccsRoutes(r chi.Router) {
	r.Route("/ccs", func(r chi.Router) {
		r.Get("/", s.h(s.handleCCSInfo))
		r.Get("/contests", s.h(s.handleCCSContests))
		r.Get("/contests/{id}", s.h(s.handleCCSContest))
		r.Get("/contests/{id}/state", s.h(s.handleCCSState))
		r.Get("/contests/{id}/scoreboard", s.h(s.handleCCSScoreboard))
		r.Get("/contests/{id}/event-feed", s.h(s.handleCCSEventFeed)) // a stream: errors only before it starts
		r.Get("/contests/{id}/submissions/{oid}/files", s.h(s.handleCCSFiles))
		r.Get("/contests/{id}/{collection}", s.h(s.handleCCSCollection))
		r.Get("/contests/{id}/{collection}/{oid}", s.h(s.handleCCSCollection))
	})
	r.Group(func(r chi.Router) {
		r.Use(s.csrf)
		r.With(requireUser).Get("/me/tokens", s.h(s.handleAPITokens))
		r.With(requireUser).Post("/me/tokens", s.h(s.handleCreateAPIToken))
		r.With(requireUser).Delete("/me/tokens/{id}", s.h(s.handleRevokeAPIToken))
		r.Get("/contests/{slug}/penalty", s.h(s.handleContestPenalty))
		r.With(onlyStaff("set a contest's penalty")).Put("/contests/{slug}/penalty", s.h(s.handleSetContestPenalty))
	})
}

func (s *Server) ccsService() *ccs.Service {
	return &ccs.Service{St: s.cfg.Store, Boards: s.judging, Feed: ccs.NewFeed(s.cfg.Redis, s.cfg.Names),
		LanguageNames: judging.LanguageNames}
}

func (s *Server) handleCCSInfo(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.apiTokenAuth(w, r); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ccs.Info{Version: ccs.Version, VersionURL: ccs.VersionURL, Name: "Verdict",
		Provider: ccs.Provider{Name: "Verdict"}})
	return nil
}

func (s *Server) handleCCSContests(w http.ResponseWriter, r *http.Request) error {
	p, err := s.apiTokenAuth(w, r)
	if err != nil {
		return err
	}
	out, err := s.ccsService().Contests(r.Context(), ccs.Viewer{Staff: p.staff})
	if err != nil {
		return unavailableErr(err)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// ccsContest authenticates and resolves the {id} contest for the caller.
func (s *Server) ccsContest(w http.ResponseWriter, r *http.Request) (*store.Contest, ccs.Viewer, error) {
	p, err := s.apiTokenAuth(w, r)
	if err != nil {
		return nil, ccs.Viewer{}, err
	}
	v := ccs.Viewer{Staff: p.staff}
	c, err := s.ccsService().Contest(r.Context(), chi.URLParam(r, "id"), v)
	if errors.Is(err, ccs.ErrNotFound) {
		return nil, v, errNotFound
	}
	if err != nil {
		return nil, v, unavailableErr(err)
	}
	return &c, v, nil
}

func (s *Server) handleCCSContest(w http.ResponseWriter, r *http.Request) error {
	c, _, err := s.ccsContest(w, r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ccs.ContestObject(c))
	return nil
}

func (s *Server) handleCCSState(w http.ResponseWriter, r *http.Request) error {
	c, _, err := s.ccsContest(w, r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ccs.StateObject(c, s.cfg.Now()))
	return nil
}

func (s *Server) handleCCSScoreboard(w http.ResponseWriter, r *http.Request) error {
	c, v, err := s.ccsContest(w, r)
	if err != nil {
		return err
	}
	var sb ccs.Scoreboard
	if q := r.URL.Query(); q.Has("group_id") {
		sb, err = s.ccsService().GroupScoreboard(r.Context(), c, v, s.cfg.Now(), q.Get("group_id"))
		if errors.Is(err, ccs.ErrNotFound) {
			return fieldErr(http.StatusNotFound, CodeNotFound, "group_id", "no such group in this contest")
		}
	} else {
		sb, err = s.ccsService().Scoreboard(r.Context(), c, v, s.cfg.Now())
	}
	if err != nil {
		return unavailableErr(err)
	}
	writeJSON(w, http.StatusOK, sb)
	return nil
}

// handleCCSFiles serves a submission's source as a zip (staff).
func (s *Server) handleCCSFiles(w http.ResponseWriter, r *http.Request) error {
	c, v, err := s.ccsContest(w, r)
	if err != nil {
		return err
	}
	if !v.Staff {
		return apiErr(http.StatusForbidden, CodeForbidden, "only staff (a staff token) download sources")
	}
	lang, src, err := s.ccsService().Source(r.Context(), c, chi.URLParam(r, "oid"))
	if errors.Is(err, ccs.ErrNotFound) {
		return errNotFound
	}
	if err != nil {
		return unavailableErr(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	f, err := zw.Create(ccs.SourceFilename(lang))
	if err == nil {
		_, err = f.Write([]byte(src))
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return internalErr(err)
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", `attachment; filename="files.zip"`)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// identified is an object of a collection with its id.
type identified struct {
	id string
	v  any
}

func collect[T any](xs []T, id func(*T) string) []identified {
	out := make([]identified, 0, len(xs))
	for i := range xs {
		out = append(out, identified{id: id(&xs[i]), v: xs[i]})
	}
	return out
}

// handleCCSCollection serves /contests/{id}/{collection} (a JSON array)
// and /contests/{id}/{collection}/{oid} (one object).
func (s *Server) handleCCSCollection(w http.ResponseWriter, r *http.Request) error {
	c, v, err := s.ccsContest(w, r)
	if err != nil {
		return err
	}
	svc, ctx, now := s.ccsService(), r.Context(), s.cfg.Now()
	var objs []identified
	switch chi.URLParam(r, "collection") {
	case ccs.TypeJudgementTypes:
		objs = collect(ccs.JudgementTypes(c), func(t *ccs.JudgementType) string { return t.ID })
	case ccs.TypeLanguages:
		objs = collect(svc.Languages(), func(l *ccs.Language) string { return l.ID })
	case ccs.TypeProblems:
		var ps []ccs.Problem
		ps, err = svc.Problems(ctx, c, v, now)
		objs = collect(ps, func(p *ccs.Problem) string { return p.ID })
	case ccs.TypeGroups:
		var gs []ccs.TeamGroup
		gs, err = svc.Groups(ctx, c, v)
		objs = collect(gs, func(g *ccs.TeamGroup) string { return g.ID })
	case ccs.TypeOrganizations:
		var os []ccs.Organization
		os, err = svc.Organizations(ctx, c)
		objs = collect(os, func(o *ccs.Organization) string { return o.ID })
	case ccs.TypeTeams:
		var ts []ccs.Team
		ts, err = svc.TeamsFor(ctx, c, v)
		objs = collect(ts, func(t *ccs.Team) string { return t.ID })
	case ccs.TypeTeamMembers:
		if !v.Staff {
			return apiErr(http.StatusForbidden, CodeForbidden, "only staff (a staff token) read team members")
		}
		var ms []ccs.TeamMember
		ms, err = svc.TeamMembers(ctx, c)
		objs = collect(ms, func(m *ccs.TeamMember) string { return m.ID })
	case ccs.TypeSubmissions:
		var ss []ccs.Submission
		ss, err = svc.Submissions(ctx, c, v, now)
		objs = collect(ss, func(x *ccs.Submission) string { return x.ID })
	case ccs.TypeJudgements, ccs.TypeRuns:
		js, runs, jerr := svc.Judgements(ctx, c, v, now)
		err = jerr
		if chi.URLParam(r, "collection") == ccs.TypeJudgements {
			objs = collect(js, func(j *ccs.Judgement) string { return j.ID })
		} else {
			objs = collect(runs, func(x *ccs.Run) string { return x.ID })
		}
	case ccs.TypeClarifications:
		var cls []ccs.Clarification
		cls, err = svc.Clarifications(ctx, c, v, now)
		objs = collect(cls, func(x *ccs.Clarification) string { return x.ID })
	case ccs.TypeAwards:
		var as []ccs.Award
		as, err = svc.Awards(ctx, c, v, now)
		objs = collect(as, func(x *ccs.Award) string { return x.ID })
	default:
		return errNotFound
	}
	if err != nil {
		return unavailableErr(err)
	}
	if oid := chi.URLParam(r, "oid"); oid != "" {
		for _, o := range objs {
			if o.id == oid {
				writeJSON(w, http.StatusOK, o.v)
				return nil
			}
		}
		return errNotFound
	}
	out := make([]any, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.v)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// PenaltyJSON is a contest's ICPC penalty rule.
type PenaltyJSON struct {
	// PenaltyMinutes per counted rejected try before the accepted one.
	PenaltyMinutes int `json:"penalty_minutes"`
	// PenaltyVerdicts count as tries (the effective list: the default
	// when the contest sets none).
	PenaltyVerdicts []string `json:"penalty_verdicts"`
}

func penaltyJSON(c *store.Contest) PenaltyJSON {
	p := scoreboard.PenaltyOf(c.PenaltyMinutes, c.PenaltyVerdicts)
	vs := p.Verdicts
	if len(vs) == 0 {
		vs = scoreboard.DefaultPenaltyVerdicts
	}
	return PenaltyJSON{PenaltyMinutes: p.PerTry(), PenaltyVerdicts: vs}
}

func (s *Server) handleContestPenalty(w http.ResponseWriter, r *http.Request) error {
	c, err := s.contestParam(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, penaltyJSON(c))
	return nil
}

type setPenaltyRequest struct {
	PenaltyMinutes  *int      `json:"penalty_minutes"`
	PenaltyVerdicts *[]string `json:"penalty_verdicts"`
}

// handleSetContestPenalty sets a contest's penalty rule (staff) and
// rebuilds its board under it (onlyStaff).
func (s *Server) handleSetContestPenalty(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	c, err := s.contestParam(r)
	if err != nil {
		return err
	}
	var req setPenaltyRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	minutes, verdicts := c.PenaltyMinutes, c.PenaltyVerdicts
	if req.PenaltyMinutes != nil {
		if *req.PenaltyMinutes < 0 || *req.PenaltyMinutes > scoreboard.MaxPenaltyMinutes {
			return badField("penalty_minutes", "must be 0 to 1000")
		}
		minutes = *req.PenaltyMinutes
	}
	if req.PenaltyVerdicts != nil {
		vs, err := scoreboard.ParsePenaltyVerdicts(strings.Join(*req.PenaltyVerdicts, ","))
		if err != nil || (len(vs) == 0 && len(*req.PenaltyVerdicts) > 0) {
			return badField("penalty_verdicts", "must list rejected verdicts: "+strings.Join(scoreboard.RejectedVerdicts, ", ")+" ([] for the default)")
		}
		verdicts = strings.Join(vs, ",")
	}
	ctx := r.Context()
	if err := s.cfg.Store.SetContestPenalty(ctx, c.ID, minutes, verdicts); err != nil {
		return unavailableErr(err)
	}
	c.PenaltyMinutes, c.PenaltyVerdicts = minutes, verdicts
	s.judging.ForgetContest(c.ID)
	if err := s.judging.RebuildBoard(ctx, c); err != nil {
		s.log.Warn("scoreboard rebuild after a penalty change failed", "contest_id", c.ID, obs.Err(err))
	}
	s.judging.MarkDirty(c.ID)
	s.log.Info("contest penalty set", "contest_id", c.ID, "minutes", minutes, "verdicts", verdicts, "user_id", u.ID,
		"request_id", requestIDOf(r))
	writeJSON(w, http.StatusOK, penaltyJSON(c))
	return nil
}

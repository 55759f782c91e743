package server

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/webapp/internal/ccs"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Awards on the site API and finalising a contest (docs/icpc.md,
// "Awards and medals" and "Finalizing"): the awards are computed from the
// board (ccs.ComputeAwards); staff edit single awards on top of them
// until an admin finalises the contest, which publishes them (the CLICS
// state's finalized). Session + CSRF routes; r is the /api router's CSRF
// group.
func (s *Server) ccsAwardRoutes(r chi.Router) {
	r.Get("/contests/{slug}/awards", s.h(s.handleContestAwards))
	r.With(onlyStaff("edit awards")).Put("/contests/{slug}/awards/{award}", s.h(s.handleEditAward))
	r.With(onlyStaff("edit awards")).Delete("/contests/{slug}/awards/{award}", s.h(s.handleEditAward))
	r.With(onlyStaff("see a contest's finalization")).Get("/contests/{slug}/finalize", s.h(s.handleFinalizeStatus))
	r.With(onlyAdmins("finalize a contest")).Post("/contests/{slug}/finalize", s.h(s.handleFinalize))
}

// Limits of one award edit.
const (
	MaxAwardTeams    = 1000
	MaxAwardCitation = 255
)

// AwardsJSON answers GET /api/contests/{slug}/awards. The public get the
// awards once the contest is over and its scoreboard is no longer frozen
// (before: none); staff always, with the computed awards, their edits,
// whether they may still be edited and the team names.
type AwardsJSON struct {
	Awards []ccs.Award `json:"awards"`
	// Final: the contest is finalised (the awards are published).
	Final       bool         `json:"final"`
	FinalizedAt *string      `json:"finalized_at"`
	Teams       []AwardTeam  `json:"teams"`
	Computed    []ccs.Award  `json:"computed,omitempty"`
	Edits       []AwardEdit  `json:"edits,omitempty"`
	Editable    *bool        `json:"editable,omitempty"`
	Settings    *AwardsLinks `json:"settings,omitempty"`
}

// AwardTeam names a team of the awards (its CLICS id).
type AwardTeam struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// AwardEdit is staff's edit of one award.
type AwardEdit struct {
	AwardID   string   `json:"award_id"`
	Citation  *string  `json:"citation"`
	Add       []string `json:"add"`
	Remove    []string `json:"remove"`
	UpdatedAt string   `json:"updated_at"`
}

// AwardsLinks points staff at the related endpoints.
type AwardsLinks struct {
	AwardSettings string `json:"award_settings"`
	Finalize      string `json:"finalize"`
	ResultsTSV    string `json:"results_tsv"`
}

func (s *Server) handleContestAwards(w http.ResponseWriter, r *http.Request) error {
	c, err := s.contestParam(r)
	if err != nil {
		return err
	}
	if e := paramsErr(r); e != nil {
		return e
	}
	ctx, now := r.Context(), s.cfg.Now()
	u := userOf(r)
	staff := u != nil && u.IsStaff()
	out := AwardsJSON{Awards: []ccs.Award{}, Teams: []AwardTeam{}, Final: c.FinalizedAt.Valid}
	if c.FinalizedAt.Valid {
		out.FinalizedAt = ccs.AbsTimePtr(c.FinalizedAt.Time)
	}
	svc := s.ccsService()
	v := ccs.Viewer{Staff: staff}
	if staff || (!now.Before(c.EndAt) && !ccs.PublicFrozen(c, now)) {
		awards, computed, err := svc.AwardsAndComputed(ctx, c, v, now)
		if err != nil {
			return unavailableErr(err)
		}
		out.Awards = awards
		if staff {
			out.Computed = computed
		}
		doc, err := s.judging.Scoreboard(ctx, c, !staff)
		if err != nil {
			return unavailableErr(err)
		}
		for i := range doc.Rows {
			out.Teams = append(out.Teams, AwardTeam{ID: ccs.RowTeamID(&doc.Rows[i]), Name: doc.Rows[i].DisplayName})
		}
	}
	if staff {
		edits, err := s.cfg.Store.ContestAwardEdits(ctx, c.ID)
		if err != nil {
			return unavailableErr(err)
		}
		out.Edits = []AwardEdit{}
		for _, e := range edits {
			out.Edits = append(out.Edits, awardEditJSON(e))
		}
		editable := !c.FinalizedAt.Valid
		out.Editable = &editable
		base := "/api/contests/" + c.Slug
		out.Settings = &AwardsLinks{AwardSettings: base + "/award-settings", Finalize: base + "/finalize", ResultsTSV: base + "/results.tsv"}
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, out)
	return nil
}

func awardEditJSON(e store.AwardEdit) AwardEdit {
	out := AwardEdit{AwardID: e.AwardID, Add: e.Add, Remove: e.Remove, UpdatedAt: ccs.AbsTime(e.UpdatedAt)}
	if e.Citation.Valid {
		out.Citation = &e.Citation.String
	}
	return out
}

// handleEditAward sets (PUT) or drops (DELETE) staff's edit of one award:
// {"citation": "…" ("" or absent: the computed one), "add": [team ids],
// "remove": [team ids]}. The award is one Verdict computes or one of
// staff's own (any CLICS id); the teams are the contest's. 409 once the
// contest is finalised (onlyStaff).
func (s *Server) handleEditAward(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	c, err := s.contestParam(r)
	if err != nil {
		return err
	}
	ctx, id := r.Context(), chi.URLParam(r, "award")
	if !ccs.AwardIDOK(id) {
		return badField("award", "must be an award id: 1 to 36 of A-Z a-z 0-9 _ - . (not starting with - or ., not ending with .)")
	}
	if c.FinalizedAt.Valid {
		return errAwardsFinal
	}
	if r.Method == http.MethodDelete {
		if err := awardStored(s.cfg.Store.DeleteContestAwardEdit(ctx, c.ID, id)); err != nil {
			return err
		}
		s.log.Info("award edit dropped", "contest_id", c.ID, "award", id, "by", u.ID, "request_id", requestIDOf(r))
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	var req struct {
		Citation *string  `json:"citation"`
		Add      []string `json:"add"`
		Remove   []string `json:"remove"`
	}
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	e := store.AwardEdit{AwardID: id, Add: req.Add, Remove: req.Remove, UpdatedBy: sql.NullInt64{Int64: u.ID, Valid: true}}
	if req.Citation != nil && strings.TrimSpace(*req.Citation) != "" {
		cit := strings.TrimSpace(*req.Citation)
		if utf8.RuneCountInString(cit) > MaxAwardCitation || strings.ContainsAny(cit, "\r\n\t") {
			return badField("citation", fmt.Sprintf("must be one line of at most %d characters", MaxAwardCitation))
		}
		e.Citation.String, e.Citation.Valid = cit, true
	}
	teams, err := s.contestTeamIDs(r, c)
	if err != nil {
		return unavailableErr(err)
	}
	for _, f := range []struct {
		name string
		ids  []string
	}{{"add", e.Add}, {"remove", e.Remove}} {
		if len(f.ids) > MaxAwardTeams {
			return badField(f.name, fmt.Sprintf("at most %d teams", MaxAwardTeams))
		}
		seen := map[string]bool{}
		for _, t := range f.ids {
			if !teams[t] {
				return badField(f.name, fmt.Sprintf("%q is no team of this contest", t))
			}
			if seen[t] {
				return badField(f.name, fmt.Sprintf("%q is listed twice", t))
			}
			seen[t] = true
		}
	}
	for _, t := range e.Add {
		for _, x := range e.Remove {
			if t == x {
				return badField("remove", fmt.Sprintf("%q is both added and removed", t))
			}
		}
	}
	if err := awardStored(s.cfg.Store.SetContestAwardEdit(ctx, c.ID, e)); err != nil {
		return err
	}
	s.log.Info("award edited", "contest_id", c.ID, "award", id, "added", len(e.Add), "removed", len(e.Remove),
		"citation", e.Citation.Valid, "by", u.ID, "request_id", requestIDOf(r))
	edits, err := s.cfg.Store.ContestAwardEdits(ctx, c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	for _, x := range edits {
		if x.AwardID == id {
			writeJSON(w, http.StatusOK, awardEditJSON(x))
			return nil
		}
	}
	writeJSON(w, http.StatusOK, awardEditJSON(e))
	return nil
}

// errAwardsFinal refuses an award edit of a finalised contest.
var errAwardsFinal = fieldErr(http.StatusConflict, CodeConflict, "award", "the contest is finalized: its awards are published")

// awardStored is the answer to an award edit write's err (nil: stored).
func awardStored(err error) error {
	if errors.Is(err, store.ErrFinalized) {
		return errAwardsFinal
	}
	return err
}

// contestTeamIDs are the CLICS ids of a contest's teams: a team
// contest's teams, else its registered users (teams of one).
func (s *Server) contestTeamIDs(r *http.Request, c *store.Contest) (map[string]bool, error) {
	out := map[string]bool{}
	if c.TeamMode {
		ts, err := s.cfg.Store.ContestTeams(r.Context(), c.ID)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			out[t.ExtID] = true
		}
		return out, nil
	}
	ps, err := s.cfg.Store.ContestParticipants(r.Context(), c.ID)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		out[ccs.ID(p.UserID)] = true
	}
	return out, nil
}

// FinalizeJSON answers GET and POST /api/contests/{slug}/finalize.
type FinalizeJSON struct {
	Finalized   bool    `json:"finalized"`
	FinalizedAt *string `json:"finalized_at"`
	FinalizedBy string  `json:"finalized_by,omitempty"`
	Comment     string  `json:"comment,omitempty"`
	// CanFinalize: nothing stands in the way (Blockers is empty and the
	// contest is not finalised yet).
	CanFinalize bool     `json:"can_finalize"`
	Blockers    []string `json:"blockers"`
}

// finalizeStatus says whether c may be finalised now, and why not: the
// CCS requirements' conditions (the contest is over; no submission is
// unjudged or judged as a judging error; no clarification request is
// unanswered).
func (s *Server) finalizeStatus(r *http.Request, c *store.Contest, now time.Time) (FinalizeJSON, error) {
	ctx := r.Context()
	out := FinalizeJSON{Blockers: []string{}}
	f, err := s.cfg.Store.ContestFinalization(ctx, c.ID)
	if err != nil {
		return out, err
	}
	if f.At.Valid {
		out.Finalized, out.FinalizedAt, out.FinalizedBy, out.Comment = true, ccs.AbsTimePtr(f.At.Time), f.ByName.String, f.Comment
		return out, nil
	}
	if now.Before(c.EndAt) {
		out.Blockers = append(out.Blockers, "the contest is not over (it ends at "+ccs.AbsTime(c.EndAt)+")")
	}
	un, err := s.cfg.Store.ContestUnjudged(ctx, c.ID)
	if err != nil {
		return out, err
	}
	pending, se := 0, 0
	for _, x := range un {
		if x.Verdict == "SE" {
			se++
		} else {
			pending++
		}
	}
	if pending > 0 {
		out.Blockers = append(out.Blockers, fmt.Sprintf("%d submission(s) pending judgement", pending))
	}
	if se > 0 {
		out.Blockers = append(out.Blockers, fmt.Sprintf("%d submission(s) judged as a system error (judging error): rejudge or override them", se))
	}
	q, err := s.cfg.Store.UnansweredClarifications(ctx, c.ID)
	if err != nil {
		return out, err
	}
	if q > 0 {
		out.Blockers = append(out.Blockers, fmt.Sprintf("%d clarification request(s) unanswered", q))
	}
	out.CanFinalize = len(out.Blockers) == 0
	return out, nil
}

// handleFinalizeStatus says whether the contest may be finalised
// (onlyStaff).
func (s *Server) handleFinalizeStatus(w http.ResponseWriter, r *http.Request) error {
	c, err := s.contestParam(r)
	if err != nil {
		return err
	}
	st, err := s.finalizeStatus(r, c, s.cfg.Now())
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, st)
	return nil
}

// handleFinalize finalises a contest's results (admins): {"comment":
// "Finalized by …"} (optional). 409 with the blockers while the contest
// may not be finalised, or once it is. The CLICS state gets finalized
// (and end_of_updates, once the freeze is lifted); the awards are
// published: no longer editable (onlyAdmins).
func (s *Server) handleFinalize(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	c, err := s.contestParam(r)
	if err != nil {
		return err
	}
	var req struct {
		Comment string `json:"comment"`
	}
	if r.ContentLength != 0 {
		if e := decodeJSON(r, &req); e != nil {
			return e
		}
	}
	comment := strings.TrimSpace(req.Comment)
	if comment == "" {
		comment = "Finalized by " + u.Username
	}
	if utf8.RuneCountInString(comment) > 255 || strings.ContainsAny(comment, "\r\n\t") {
		return badField("comment", "must be one line of at most 255 characters")
	}
	ctx, now := r.Context(), s.cfg.Now()
	st, err := s.finalizeStatus(r, c, now)
	if err != nil {
		return err
	}
	if st.Finalized {
		return errFinalAlready
	}
	if !st.CanFinalize {
		e := fieldErr(http.StatusConflict, CodeConflict, "contest", "the contest cannot be finalized yet: "+strings.Join(st.Blockers, "; "))
		return withBody(e, struct {
			Error    *APIError `json:"error"`
			Blockers []string  `json:"blockers"`
		}{e, st.Blockers})
	}
	err = s.cfg.Store.FinalizeContest(ctx, c.ID, u.ID, comment, now)
	if errors.Is(err, store.ErrFinalized) {
		return errFinalAlready
	}
	if err != nil {
		return err
	}
	s.log.Info("contest finalized", "contest_id", c.ID, "by", u.ID, "request_id", requestIDOf(r))
	// Open event feeds: the state with finalized, at once.
	if _, err := s.ccsService().Feed.Append(ctx, c.ID, ccs.Fact{Kind: ccs.FactState, Event: now.UnixMilli()}); err != nil {
		s.log.Warn("contest API feed not told of the finalization", "contest_id", c.ID, "err", err)
	}
	st, err = s.finalizeStatus(r, c, now)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// errFinalAlready refuses to finalise a contest twice.
var errFinalAlready = fieldErr(http.StatusConflict, CodeConflict, "contest", "the contest is finalized already")

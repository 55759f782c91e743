package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// The contest pages: the list and one contest with its problems (the
// staff's writes are contests_admin.go, participants
// contests_participants.go, the board scoreboard.go).

// ContestJSON is a contest as the API shows it.
type ContestJSON struct {
	ID            int64     `json:"id"` // the live scoreboard channel's id
	Slug          string    `json:"slug"`
	Title         string    `json:"title"`
	Description   string    `json:"description,omitempty"`
	Rule          string    `json:"rule"`
	StartAt       time.Time `json:"start_at"`
	EndAt         time.Time `json:"end_at"`
	FreezeMinutes int       `json:"freeze_minutes"`
	Registration  string    `json:"registration"`
	// TimeZone is the IANA zone the contest's times are shown in;
	// StartAt and EndAt carry its offset.
	TimeZone string `json:"time_zone"`
	// Feedback is what contestants see of their results; FeedbackAfter
	// what they see once a closed contest ended.
	Feedback      string `json:"feedback"`
	FeedbackAfter string `json:"feedback_after"`
	// StatusVisibility: what contestants list of others' submissions on
	// the status page, "own" (nothing) or "all" (verdicts, never source).
	StatusVisibility string `json:"status_visibility"`
	Phase            string `json:"phase"`                // upcoming, running, ended
	Visible          *bool  `json:"visible,omitempty"`    // staff only
	Registered       *bool  `json:"registered,omitempty"` // logged-in users, one contest
}

// ContestProblemJSON is a problem of a contest.
type ContestProblemJSON struct {
	Label  string `json:"label"`
	Slug   string `json:"slug"`
	Title  string `json:"title"`
	Points int    `json:"points"`
}

func (s *Server) contestJSON(c *store.Contest, staff, withDescription bool) ContestJSON {
	out := ContestJSON{ID: c.ID, Slug: c.Slug, Title: c.Title, Rule: c.Rule, StartAt: c.StartAt, EndAt: c.EndAt,
		FreezeMinutes: c.FreezeMinutes, Registration: c.Registration, Feedback: c.Feedback,
		FeedbackAfter: c.FeedbackAfter, StatusVisibility: c.StatusVisibility, Phase: c.Phase(s.cfg.Now())}
	var loc *time.Location
	out.TimeZone, loc = contestZone(c.TimeZone)
	out.StartAt, out.EndAt = c.StartAt.In(loc), c.EndAt.In(loc)
	if withDescription {
		out.Description = c.Description
	}
	if staff {
		v := c.Visible
		out.Visible = &v
	}
	return out
}

func (s *Server) handleContests(w http.ResponseWriter, r *http.Request) error {
	a := authOf(r)
	staff := a.user != nil && a.user.IsStaff()
	list, err := s.cfg.Store.ListContests(r.Context(), staff)
	if err != nil {
		return unavailableErr(err)
	}
	out := make([]ContestJSON, 0, len(list))
	for i := range list {
		out = append(out, s.contestJSON(&list[i], staff, false))
	}
	writeJSON(w, http.StatusOK, map[string]any{"contests": out})
	return nil
}

func (s *Server) handleContest(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	c, err := s.cfg.Store.ContestBySlug(ctx, chi.URLParam(r, "slug"))
	a := authOf(r)
	staff := a.user != nil && a.user.IsStaff()
	if errors.Is(err, store.ErrNotFound) || (err == nil && !c.Visible && !staff) {
		return errNotFound
	}
	if err != nil {
		return unavailableErr(err)
	}
	out := s.contestJSON(&c, staff, true)
	if a.user != nil {
		reg, err := s.cfg.Store.IsParticipant(ctx, c.ID, a.user.ID)
		if err != nil {
			return unavailableErr(err)
		}
		out.Registered = &reg
	}
	// The problem set is secret until the contest starts.
	problems := []ContestProblemJSON{}
	if staff || out.Phase != "upcoming" {
		cps, err := s.cfg.Store.ContestProblems(ctx, c.ID)
		if err != nil {
			return unavailableErr(err)
		}
		for _, p := range cps {
			problems = append(problems, ContestProblemJSON{Label: p.Label, Slug: p.Slug, Title: p.Title, Points: p.Points})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"contest": out, "problems": problems})
	return nil
}

package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Limits of contest fields.
const (
	MaxContestProblems    = 52
	MaxContestPoints      = 100000
	MaxContestDescription = 256 << 10
	MaxContestLength      = 366 * 24 * time.Hour
	MaxContestLabelLength = 8
)

type contestProblemRequest struct {
	Label  string `json:"label"`
	Slug   string `json:"slug"`
	Points *int   `json:"points"`
}

// contestRequest is the body of POST /api/contests and PUT
// /api/contests/{slug}. On PUT an absent field keeps its value (problems:
// the set is replaced only when given).
type contestRequest struct {
	Slug          *string `json:"slug"`
	Title         *string `json:"title"`
	Description   *string `json:"description"`
	Rule          *string `json:"rule"`
	StartAt       *string `json:"start_at"`
	EndAt         *string `json:"end_at"`
	FreezeMinutes *int    `json:"freeze_minutes"`
	Registration  *string `json:"registration"`
	Feedback      *string `json:"feedback"`
	FeedbackAfter *string `json:"feedback_after"`
	TimeZone      *string `json:"time_zone"`
	// StatusVisibility: store.StatusOwn or store.StatusAll.
	StatusVisibility *string                  `json:"status_visibility"`
	Visible          *bool                    `json:"visible"`
	Problems         *[]contestProblemRequest `json:"problems"`
}

func parseTime(field, v string) (time.Time, *APIError) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v))
	if err != nil {
		return time.Time{}, badField(field, "must be an RFC 3339 time like 2026-03-01T10:00:00Z")
	}
	return t.UTC().Truncate(time.Millisecond), nil
}

func validLabel(s string) bool {
	if s == "" || len(s) > MaxContestLabelLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// applyContest merges req into c, validates it, and resolves the problems
// (nil when the request does not set them). A refusal is an *APIError;
// the store failing is an unavailableErr.
func (s *Server) applyContest(ctx context.Context, req *contestRequest, c *store.Contest) ([]store.ContestProblemRef, error) {
	if req.Slug != nil {
		c.Slug = strings.TrimSpace(*req.Slug)
	}
	if req.Title != nil {
		c.Title = strings.TrimSpace(*req.Title)
	}
	if req.Description != nil {
		c.Description = *req.Description
	}
	if req.Rule != nil {
		c.Rule = *req.Rule
	}
	if req.StartAt != nil {
		t, e := parseTime("start_at", *req.StartAt)
		if e != nil {
			return nil, e
		}
		c.StartAt = t
	}
	if req.EndAt != nil {
		t, e := parseTime("end_at", *req.EndAt)
		if e != nil {
			return nil, e
		}
		c.EndAt = t
	}
	if req.FreezeMinutes != nil {
		c.FreezeMinutes = *req.FreezeMinutes
	}
	if req.Registration != nil {
		c.Registration = *req.Registration
	}
	if req.Visible != nil {
		c.Visible = *req.Visible
	}
	if req.Feedback != nil {
		c.Feedback = *req.Feedback
	}
	if req.FeedbackAfter != nil {
		c.FeedbackAfter = *req.FeedbackAfter
	}
	if c.Feedback == "" {
		c.Feedback = string(protocol.FeedbackFull)
	}
	if c.FeedbackAfter == "" {
		c.FeedbackAfter = string(protocol.FeedbackFull)
	}
	if req.StatusVisibility != nil {
		c.StatusVisibility = *req.StatusVisibility
	}
	if c.StatusVisibility == "" {
		c.StatusVisibility = store.StatusOwn
	}
	switch {
	case !validSlug(c.Slug):
		return nil, badField("slug", "must be 1 to 64 of a-z 0-9 -, starting with a letter or digit")
	case c.Title == "" || utf8.RuneCountInString(c.Title) > MaxTitleChars || !utf8.ValidString(c.Title) || hasControl(c.Title):
		return nil, badField("title", fmt.Sprintf("must be 1 to %d characters without control characters", MaxTitleChars))
	case len(c.Description) > MaxContestDescription || !utf8.ValidString(c.Description):
		return nil, badField("description", fmt.Sprintf("must be valid UTF-8 of at most %d bytes", MaxContestDescription))
	case c.Rule != store.ModeICPC && c.Rule != store.ModeIOI:
		return nil, badField("rule", "must be icpc or ioi")
	case c.StartAt.IsZero():
		return nil, badField("start_at", "is required")
	case c.EndAt.IsZero():
		return nil, badField("end_at", "is required")
	case !c.EndAt.After(c.StartAt):
		return nil, badField("end_at", "must be after start_at")
	case c.EndAt.Sub(c.StartAt) > MaxContestLength:
		return nil, badField("end_at", "the contest may last at most 366 days")
	case c.FreezeMinutes < 0 || time.Duration(c.FreezeMinutes)*time.Minute > c.EndAt.Sub(c.StartAt):
		return nil, badField("freeze_minutes", "must be 0 to the contest's length in minutes")
	case c.Registration != store.RegistrationOpen && c.Registration != store.RegistrationList:
		return nil, badField("registration", "must be open or list")
	case !protocol.FeedbackPolicy(c.Feedback).Valid():
		return nil, badField("feedback", "must be full, first_failure, score_only or closed")
	case !protocol.FeedbackPolicy(c.FeedbackAfter).Valid() || c.FeedbackAfter == string(protocol.FeedbackClosed):
		return nil, badField("feedback_after", "must be full, first_failure or score_only")
	case c.StatusVisibility != store.StatusOwn && c.StatusVisibility != store.StatusAll:
		return nil, badField("status_visibility", "must be own or all")
	}
	if req.TimeZone != nil {
		c.TimeZone = strings.TrimSpace(*req.TimeZone)
	}
	if e := checkTimeZone(c.TimeZone); e != nil {
		return nil, e
	}
	if req.Problems == nil {
		return nil, nil
	}
	ps := *req.Problems
	if len(ps) > MaxContestProblems {
		return nil, badField("problems", fmt.Sprintf("at most %d problems", MaxContestProblems))
	}
	slugs := make([]string, 0, len(ps))
	labels, seen := map[string]bool{}, map[string]bool{}
	for i, p := range ps {
		at := fmt.Sprintf("problem %d: ", i+1)
		switch {
		case !validLabel(p.Label):
			return nil, badField("problems", at+"label must be 1 to 8 of A-Z a-z 0-9")
		case labels[strings.ToUpper(p.Label)]:
			return nil, badField("problems", at+"label "+p.Label+" is used twice")
		case p.Slug == "":
			return nil, badField("problems", at+"slug is required")
		case seen[p.Slug]:
			return nil, badField("problems", at+"problem "+p.Slug+" is in the contest twice")
		case p.Points != nil && (*p.Points < 0 || *p.Points > MaxContestPoints):
			return nil, badField("problems", fmt.Sprintf("%spoints must be 0 to %d", at, MaxContestPoints))
		}
		labels[strings.ToUpper(p.Label)], seen[p.Slug] = true, true
		slugs = append(slugs, p.Slug)
	}
	ids, err := s.cfg.Store.ProblemIDsBySlug(ctx, slugs)
	if err != nil {
		return nil, unavailableErr(err)
	}
	refs := make([]store.ContestProblemRef, 0, len(ps))
	for _, p := range ps {
		id, ok := ids[p.Slug]
		if !ok {
			return nil, badField("problems", "no problem has the slug "+p.Slug)
		}
		points := 100
		if p.Points != nil {
			points = *p.Points
		}
		refs = append(refs, store.ContestProblemRef{ProblemID: id, Label: p.Label, Points: points})
	}
	return refs, nil
}

// writeContestDoc answers with the contest as GET /api/contests/{slug}
// shows it to staff.
func (s *Server) writeContestDoc(w http.ResponseWriter, r *http.Request, status int, id int64) error {
	ctx := r.Context()
	c, err := s.cfg.Store.ContestByID(ctx, id)
	if err != nil {
		return unavailableErr(err)
	}
	cps, err := s.cfg.Store.ContestProblems(ctx, c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	problems := make([]ContestProblemJSON, 0, len(cps))
	for _, p := range cps {
		problems = append(problems, ContestProblemJSON{Label: p.Label, Slug: p.Slug, Title: p.Title, Points: p.Points})
	}
	writeJSON(w, status, map[string]any{"contest": s.contestJSON(&c, true, true), "problems": problems})
	return nil
}

// contestConflict is err as the API answers a contest write: a 409 for a
// duplicate slug, label or problem, else a backing service failing.
func contestConflict(err error) error {
	var dup *store.DuplicateError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &dup):
		return unavailableErr(err)
	case dup.Key == "uk_contests_slug":
		return fieldErr(http.StatusConflict, CodeConflict, "slug", "slug is already taken")
	}
	return fieldErr(http.StatusConflict, CodeConflict, "problems", "a label or a problem is used twice")
}

// handleCreateContest creates a contest with its problems (onlyStaff).
func (s *Server) handleCreateContest(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	var req contestRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	for _, f := range []struct {
		name    string
		missing bool
	}{{"slug", req.Slug == nil}, {"title", req.Title == nil}, {"start_at", req.StartAt == nil}, {"end_at", req.EndAt == nil}} {
		if f.missing { // in form order, so the same body always names the same field
			return badField(f.name, "is required")
		}
	}
	c := store.Contest{Rule: store.ModeICPC, Registration: store.RegistrationOpen, Visible: true}
	ctx := r.Context()
	refs, err := s.applyContest(ctx, &req, &c)
	if err != nil {
		return err
	}
	c.CreatedBy.Int64, c.CreatedBy.Valid = u.ID, true
	id, err := s.cfg.Store.CreateContestWithProblems(ctx, c, refs)
	if err != nil {
		return contestConflict(err)
	}
	s.judging.WarmPlanChanged()
	s.log.Info("contest created", "slug", c.Slug, "contest_id", id, "user_id", u.ID, "request_id", requestIDOf(r))
	return s.writeContestDoc(w, r, http.StatusCreated, id)
}

// handleUpdateContest changes a contest (onlyStaff). A change of the
// window, the freeze, the rule or the problems rebuilds its scoreboard.
func (s *Server) handleUpdateContest(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	var req contestRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	ctx := r.Context()
	c, err := s.cfg.Store.ContestBySlug(ctx, chi.URLParam(r, "slug"))
	if err != nil {
		return err
	}
	before := c
	refs, err := s.applyContest(ctx, &req, &c)
	if err != nil {
		return err
	}
	if err := s.cfg.Store.UpdateContest(ctx, c, refs); err != nil {
		return contestConflict(err)
	}
	s.judging.ForgetContest(c.ID)
	s.judging.WarmPlanChanged()
	if before.Feedback != c.Feedback || before.FeedbackAfter != c.FeedbackAfter || !before.EndAt.Equal(c.EndAt) ||
		before.StatusVisibility != c.StatusVisibility || before.Visible != c.Visible {
		// The REST answers follow at once; the hub's live channels once
		// the rules kept with the live states are rewritten.
		if err := s.judging.RefreshFeedback(ctx, c.ID); err != nil {
			s.log.Warn("feedback rules of the live states not refreshed", "contest_id", c.ID, obs.Err(err))
		}
	}
	if refs != nil || !before.StartAt.Equal(c.StartAt) || !before.EndAt.Equal(c.EndAt) ||
		before.FreezeMinutes != c.FreezeMinutes || before.Rule != c.Rule || before.Feedback != c.Feedback {
		if err := s.judging.RebuildBoard(ctx, &c); err != nil {
			s.log.Warn("scoreboard rebuild after a contest change failed", "contest_id", c.ID, obs.Err(err))
		}
		s.judging.MarkDirty(c.ID)
	} else if before.Registration != c.Registration {
		// Who is on the board changed (a list contest shows only its list).
		s.judging.MarkDirty(c.ID)
	}
	s.log.Info("contest updated", "slug", c.Slug, "contest_id", c.ID, "user_id", u.ID, "request_id", requestIDOf(r))
	return s.writeContestDoc(w, r, http.StatusOK, c.ID)
}

// handleRegisterContest registers the caller in an open contest before
// its end (requireUser; idempotent).
func (s *Server) handleRegisterContest(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	c, err := s.contestParam(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if c.Phase(s.cfg.Now()) == "ended" {
		return fieldErr(http.StatusForbidden, CodeForbidden, "contest", "the contest has ended")
	}
	if c.Registration != store.RegistrationOpen {
		reg, err := s.cfg.Store.IsParticipant(ctx, c.ID, u.ID)
		if err != nil {
			return unavailableErr(err)
		}
		if !reg {
			return fieldErr(http.StatusForbidden, CodeForbidden, "contest", "registration is by list: ask the organisers")
		}
	} else {
		if err := s.cfg.Store.AddParticipant(ctx, c.ID, u.ID); err != nil {
			return unavailableErr(err)
		}
		// A staff member who submitted before registering joins the board.
		s.participantsChanged(c)
	}
	writeJSON(w, http.StatusOK, map[string]any{"contest": c.Slug, "registered": true})
	return nil
}

package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Limits of clarifications.
const (
	MaxQuestionChars = 2000
	MaxAnswerChars   = 4000
)

// ClarificationJSON is a clarification or an announcement.
type ClarificationJSON struct {
	ID int64 `json:"id"`
	// Problem is the problem's label in the contest; null for a general
	// question.
	Problem *string `json:"problem"`
	// Question is null for an announcement (whose text is in Answer).
	Question     *string    `json:"question"`
	Answer       *string    `json:"answer"`
	Public       bool       `json:"public"`
	Announcement bool       `json:"announcement"`
	User         string     `json:"user,omitempty"` // the asker: to staff and to the asker only
	CreatedAt    time.Time  `json:"created_at"`
	AnsweredAt   *time.Time `json:"answered_at"`
}

func clarJSON(c *store.Clarification, viewer *store.User) ClarificationJSON {
	out := ClarificationJSON{ID: c.ID, Public: c.Public, Announcement: c.IsAnnouncement(), CreatedAt: c.CreatedAt}
	str := func(v sql.NullString) *string {
		if !v.Valid {
			return nil
		}
		s := v.String
		return &s
	}
	out.Problem, out.Question, out.Answer = str(c.Label), str(c.Question), str(c.Answer)
	if c.AnsweredAt.Valid {
		t := c.AnsweredAt.Time
		out.AnsweredAt = &t
	}
	if viewer != nil && (viewer.IsStaff() || (c.UserID.Valid && c.UserID.Int64 == viewer.ID)) && !c.IsAnnouncement() {
		out.User = c.Username.String
	}
	return out
}

// handleClarifications lists a contest's clarifications, newest first:
// staff see all, others the public ones and their own.
func (s *Server) handleClarifications(w http.ResponseWriter, r *http.Request) error {
	c, err := s.contestParam(r)
	if err != nil {
		return err
	}
	a := authOf(r)
	staff := a.user != nil && a.user.IsStaff()
	var viewer int64
	if a.user != nil {
		viewer = a.user.ID
	}
	list, err := s.cfg.Store.Clarifications(r.Context(), c.ID, staff, viewer)
	if err != nil {
		return unavailableErr(err)
	}
	out := make([]ClarificationJSON, 0, len(list))
	for i := range list {
		out = append(out, clarJSON(&list[i], a.user))
	}
	writeJSON(w, http.StatusOK, map[string]any{"clarifications": out})
	return nil
}

type askRequest struct {
	Problem      string `json:"problem"`
	Question     string `json:"question"`
	Announcement string `json:"announcement"`
}

func validText(s string, max int) bool {
	if strings.TrimSpace(s) == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > max {
		return false
	}
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\r' && r != '\t') || r == 0x7f {
			return false
		}
	}
	return true
}

// handleAsk records a participant's question, or (staff) an announcement
// (requireUser). An Idempotency-Key (optional) makes the request safe to
// send again when its answer was lost (no answer, a 502, 503 or 504): a
// retry with the same key posts nothing again and answers 200 with the
// first, "repeated": true (201 for a new one).
func (s *Server) handleAsk(w http.ResponseWriter, r *http.Request) error {
	a := authOf(r)
	key := r.Header.Get(IdempotencyHeader)
	if key != "" && !validIdemKey(key) {
		return fieldErr(http.StatusBadRequest, CodeValidation, IdempotencyHeader,
			"the Idempotency-Key header, when given, is 1 to 64 of A-Z a-z 0-9 - _ . : (a new random one per send click)")
	}
	c, err := s.contestParam(r)
	if err != nil {
		return err
	}
	var req askRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	staff := a.user.IsStaff()
	switch {
	case req.Announcement != "" && !staff:
		return fieldErr(http.StatusForbidden, CodeForbidden, "announcement", "only staff make announcements")
	case req.Announcement != "" && req.Question != "":
		return badField("question", "give a question or an announcement, not both")
	case req.Announcement != "" && !validText(req.Announcement, MaxAnswerChars):
		return badField("announcement", fmt.Sprintf("must be 1 to %d characters", MaxAnswerChars))
	case req.Announcement == "" && !validText(req.Question, MaxQuestionChars):
		return badField("question", fmt.Sprintf("must be 1 to %d characters", MaxQuestionChars))
	}
	ctx := r.Context()
	cl := store.Clarification{ContestID: c.ID}
	cl.UserID.Int64, cl.UserID.Valid = a.user.ID, true
	if req.Problem != "" {
		// The label ("A") or the problem's slug (what the contest page sends).
		cps, err := s.cfg.Store.ContestProblems(ctx, c.ID)
		if err != nil {
			return unavailableErr(err)
		}
		for _, p := range cps {
			if strings.EqualFold(p.Label, req.Problem) || p.Slug == req.Problem {
				cl.ProblemID.Int64, cl.ProblemID.Valid = p.ProblemID, true
				break
			}
		}
		if !cl.ProblemID.Valid {
			return badField("problem", "is not a problem of this contest (give its label or slug)")
		}
	}
	if req.Announcement != "" {
		cl.Answer.String, cl.Answer.Valid = req.Announcement, true
		cl.Public = true
		cl.AnsweredBy = cl.UserID
	} else {
		if !staff {
			if refused := s.mayAsk(ctx, c, a.user); refused != nil {
				// The retry of a question posted before the refusal held
				// (the contest ended while its answer was lost) gets that
				// question, as any retry does.
				if key == "" {
					return refused
				}
				first, err := s.cfg.Store.ClarificationByKey(ctx, a.user.ID, key)
				if errors.Is(err, store.ErrNotFound) || (err == nil && first.ContestID != c.ID) {
					return refused
				} else if err != nil {
					return unavailableErr(err)
				}
				return s.askAnswered(w, r, &first, true)
			}
		}
		cl.Question.String, cl.Question.Valid = req.Question, true
	}
	stored, repeated, err := s.cfg.Store.AddClarificationOnce(ctx, cl, key)
	if errors.Is(err, store.ErrKeyInUse) {
		return fieldErr(http.StatusConflict, CodeConflict, IdempotencyHeader,
			"the Idempotency-Key was already used for a clarification of another contest (a new random one per send click)")
	} else if err != nil {
		return unavailableErr(err)
	}
	return s.askAnswered(w, r, &stored, repeated)
}

// mayAsk refuses a participant's question in a contest that has ended, or
// from a user not on a registration list; nil lets it through.
func (s *Server) mayAsk(ctx context.Context, c *store.Contest, u *store.User) error {
	if c.Phase(s.cfg.Now()) == "ended" {
		return fieldErr(http.StatusForbidden, CodeForbidden, "contest", "the contest has ended")
	}
	if c.Registration == store.RegistrationList {
		reg, err := s.cfg.Store.IsParticipant(ctx, c.ID, u.ID)
		if err != nil {
			return unavailableErr(err)
		}
		if !reg {
			return fieldErr(http.StatusForbidden, CodeForbidden, "contest", "you are not registered in this contest")
		}
	}
	return nil
}

// askAnswered publishes a posted clarification and answers its post: 201,
// or 200 with "repeated": true for a retry that found it posted.
func (s *Server) askAnswered(w http.ResponseWriter, r *http.Request, stored *store.Clarification, repeated bool) error {
	ctx := r.Context()
	a := authOf(r)
	s.log.Info("clarification posted", "contest_id", stored.ContestID, "clarification_id", stored.ID,
		"announcement", stored.IsAnnouncement(), "repeated", repeated, "user_id", a.user.ID, "request_id", requestIDOf(r))
	what := "question"
	if stored.IsAnnouncement() {
		what = "announcement"
	}
	// Published again for a retry: the first try may have failed before
	// its push, and a second push of the same clarification is harmless.
	s.publishClarification(ctx, stored, what)
	if repeated {
		writeJSON(w, http.StatusOK, map[string]any{"clarification": clarJSON(stored, a.user), "repeated": true})
		return nil
	}
	writeJSON(w, http.StatusCreated, map[string]any{"clarification": clarJSON(stored, a.user)})
	return nil
}

type answerRequest struct {
	Answer string `json:"answer"`
	Public *bool  `json:"public"`
}

// handleAnswer answers (or re-answers) a clarification (onlyStaff).
func (s *Server) handleAnswer(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	c, err := s.contestParam(r)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id < 1 {
		return errNotFound
	}
	var req answerRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	if !validText(req.Answer, MaxAnswerChars) {
		return badField("answer", fmt.Sprintf("must be 1 to %d characters", MaxAnswerChars))
	}
	if req.Public == nil {
		return badField("public", "is required (true: everyone sees it; false: the asker only)")
	}
	ctx := r.Context()
	cur, err := s.cfg.Store.ClarificationByID(ctx, c.ID, id)
	if err != nil {
		return err
	}
	if cur.IsAnnouncement() && !*req.Public {
		return badField("public", "an announcement is always public")
	}
	stored, err := s.cfg.Store.AnswerClarification(ctx, c.ID, id, req.Answer, *req.Public, u.ID, s.cfg.Now())
	if err != nil {
		return unavailableErr(err)
	}
	s.log.Info("clarification answered", "contest_id", c.ID, "clarification_id", id, "public", *req.Public,
		"user_id", u.ID, "request_id", requestIDOf(r))
	what := "answer"
	if stored.IsAnnouncement() {
		what = "announcement"
	}
	s.publishClarification(ctx, &stored, what)
	writeJSON(w, http.StatusOK, map[string]any{"clarification": clarJSON(&stored, u)})
	return nil
}

// publishClarification tells browsers that a clarification changed: on the
// contest's clarifications channel (ids only; each browser re-reads the
// list through the API, which decides who sees what) and, for a private
// answer, on the asker's user channel. Best effort: the change is stored;
// a browser that misses it sees it on its next subscribe or slow poll.
func (s *Server) publishClarification(ctx context.Context, cl *store.Clarification, what string) {
	if err := s.judging.FeedClarification(ctx, cl); err != nil { // the Contest API feed (ccs_feed.go)
		s.log.Warn("clarification not in the contest's event feed", "contest_id", cl.ContestID, "clarification_id", cl.ID, obs.Err(err))
	}
	change := protocol.ClarificationChange{ContestID: cl.ContestID, ID: cl.ID, What: what,
		Public: cl.IsAnnouncement() || (cl.Public && cl.Answer.Valid)}
	body, err := json.Marshal(change)
	if err != nil {
		return
	}
	state, _ := json.Marshal(map[string]int64{"last_id": cl.ID, "changed_ms": s.cfg.Now().UnixMilli()})
	q := s.judging.Queue()
	ch := protocol.Channel{Kind: protocol.ChannelClarifications, ID: cl.ContestID}
	if _, err := q.PublishDoc(ctx, ch, protocol.EventClarification, body, state); err != nil {
		s.log.Warn("clarification change not published", "contest_id", cl.ContestID, "clarification_id", cl.ID, obs.Err(err))
	}
	if what == "answer" && !change.Public && cl.UserID.Valid {
		user := protocol.Channel{Kind: protocol.ChannelUser, ID: cl.UserID.Int64}
		if _, err := q.PublishDoc(ctx, user, protocol.EventClarification, body, nil); err != nil {
			s.log.Warn("private answer not published", "contest_id", cl.ContestID, "clarification_id", cl.ID, obs.Err(err))
		}
	}
}

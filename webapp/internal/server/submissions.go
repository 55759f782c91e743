package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/feedback"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// IdempotencyHeader carries the client's idempotency key of a submit.
const IdempotencyHeader = "Idempotency-Key"

func validIdemKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.:", c) >= 0) {
			return false
		}
	}
	return true
}

func validLanguageID(id string) bool {
	if id == "" || len(id) > 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '+') {
			return false
		}
	}
	return true
}

// LanguagesJSON answers GET /api/languages.
type LanguagesJSON struct {
	Languages  []judging.Language `json:"languages"`
	LiveJudges int                `json:"live_judges"`
	Notice     string             `json:"notice,omitempty"`
}

func (s *Server) handleLanguages(w http.ResponseWriter, r *http.Request) {
	langs, live, err := s.judging.Languages(r.Context())
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	out := LanguagesJSON{Languages: langs, LiveJudges: live}
	if live == 0 {
		out.Notice = "no judge is connected right now: submissions cannot be accepted until one is"
	}
	writeJSON(w, http.StatusOK, out)
}

type submitRequest struct {
	Problem  string `json:"problem"`
	Contest  string `json:"contest"`
	Language string `json:"language"`
	Source   string `json:"source"`
}

// SubmitJSON answers POST /api/submissions.
type SubmitJSON struct {
	ID         int64                 `json:"id"`
	Status     string                `json:"status"`
	Submission SubmissionJSON        `json:"submission"`
	Queue      *protocol.QueueNotice `json:"queue,omitempty"`
}

func badField(field, msg string) *APIError {
	return fieldErr(http.StatusBadRequest, CodeValidation, field, field+" "+msg)
}

func (s *Server) handleSubmit(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	if a.user == nil {
		writeAPIError(w, errUnauthorized)
		return
	}
	ctx := r.Context()
	key := r.Header.Get(IdempotencyHeader)
	if !validIdemKey(key) {
		writeAPIError(w, fieldErr(http.StatusBadRequest, CodeValidation, IdempotencyHeader,
			"the Idempotency-Key header is required: 1 to 64 of A-Z a-z 0-9 - _ . : (a new random one per submit click)"))
		return
	}
	var req submitRequest
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
	}
	// A retried POST returns what the first one made.
	if id, err := s.cfg.Store.SubmissionByKey(ctx, a.user.ID, key); err == nil {
		s.answerSubmit(w, r, id, http.StatusOK)
		return
	} else if !errors.Is(err, store.ErrNotFound) {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	// Per user, never per address (a lab shares one): bursts of
	// SubmitBurst, SubmitPerMinute sustained.
	if !s.takeBucket(w, r, s.submitRule, strconv.FormatInt(a.user.ID, 10),
		fmt.Sprintf("at most %d submissions at once and %d a minute", s.submitRule.Burst, s.submitRule.Rate)) {
		return
	}
	p, c, apiE, err := s.checkSubmit(ctx, a.user, &req)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	if apiE != nil {
		writeAPIError(w, apiE)
		return
	}
	ns := store.NewSubmission{UserID: a.user.ID, ProblemID: p.ID, Language: req.Language, Source: req.Source,
		TestdataHash: p.TestdataHash.String, IdemKey: key}
	if c != nil {
		ns.ContestID = c.ID
		if c.TeamMode { // the submission is the team's (staff on no team: nobody's)
			if t, err := s.cfg.Store.TeamOfUser(ctx, c.ID, a.user.ID); err == nil {
				ns.TeamID = t.ID
			} else if !errors.Is(err, store.ErrNotFound) {
				s.internal(w, r, err, http.StatusServiceUnavailable)
				return
			}
		}
	}
	s.createAndEnqueue(w, r, ns, &p, "submission created", "language", ns.Language, "bytes", len(ns.Source))
}

// checkSubmit resolves the problem and contest of a submit and applies the
// rules: visibility, contest window and registration, test data, language.
func (s *Server) checkSubmit(ctx context.Context, u *store.User, req *submitRequest) (store.Problem, *store.Contest, *APIError, error) {
	now := s.cfg.Now()
	p, err := s.cfg.Store.ProblemBySlug(ctx, req.Problem)
	if errors.Is(err, store.ErrNotFound) {
		return p, nil, fieldErr(http.StatusNotFound, CodeNotFound, "problem", "no such problem"), nil
	}
	if err != nil {
		return p, nil, nil, err
	}
	staff := u.IsStaff()
	var c *store.Contest
	if req.Contest != "" {
		ct, err := s.cfg.Store.ContestBySlug(ctx, req.Contest)
		if errors.Is(err, store.ErrNotFound) || (err == nil && !ct.Visible && !staff) {
			return p, nil, fieldErr(http.StatusNotFound, CodeNotFound, "contest", "no such contest"), nil
		}
		if err != nil {
			return p, nil, nil, err
		}
		c = &ct
		if _, err := s.cfg.Store.ContestHasProblem(ctx, c.ID, p.ID); errors.Is(err, store.ErrNotFound) {
			return p, nil, fieldErr(http.StatusBadRequest, CodeValidation, "problem", "the problem is not in this contest"), nil
		} else if err != nil {
			return p, nil, nil, err
		}
		switch c.Phase(now) {
		case "upcoming":
			return p, nil, fieldErr(http.StatusForbidden, CodeForbidden, "contest", "the contest has not started"), nil
		case "ended":
			return p, nil, fieldErr(http.StatusForbidden, CodeForbidden, "contest",
				"the contest is over: submit without a contest to practise"), nil
		}
		if c.TeamMode && !staff {
			// A team contest: members submit for their team (teams.go).
			if _, err := s.cfg.Store.TeamOfUser(ctx, c.ID, u.ID); errors.Is(err, store.ErrNotFound) {
				return p, nil, fieldErr(http.StatusForbidden, CodeForbidden, "contest", "this is a team contest and you are on no team of it"), nil
			} else if err != nil {
				return p, nil, nil, err
			}
		}
		reg, err := s.cfg.Store.IsParticipant(ctx, c.ID, u.ID)
		if err != nil {
			return p, nil, nil, err
		}
		if !reg {
			if c.Registration != store.RegistrationOpen && !staff {
				return p, nil, fieldErr(http.StatusForbidden, CodeForbidden, "contest", "you are not registered in this contest"), nil
			}
			// Open contests register a student on the first submission.
			// Staff testing a problem in a contest are not registered, so
			// they never appear on its board (the board shows registered
			// users only); a staff member who competes registers first.
			if !staff {
				if err := s.cfg.Store.AddParticipant(ctx, c.ID, u.ID); err != nil {
					return p, nil, nil, err
				}
			}
		}
	} else if !staff {
		switch p.Visibility {
		case store.VisibilityPublic:
		case store.VisibilityContestOnly:
			in, err := s.cfg.Store.InStartedContestOf(ctx, u.ID, p.ID, now)
			if err != nil {
				return p, nil, nil, err
			}
			if !in {
				return p, nil, fieldErr(http.StatusNotFound, CodeNotFound, "problem", "no such problem"), nil
			}
			return p, nil, fieldErr(http.StatusBadRequest, CodeValidation, "contest",
				"this problem is only judged inside its contest: give the contest"), nil
		default:
			return p, nil, fieldErr(http.StatusNotFound, CodeNotFound, "problem", "no such problem"), nil
		}
	}
	if !p.TestdataHash.Valid {
		return p, nil, fieldErr(http.StatusConflict, CodeConflict, "problem", "the problem has no test data yet"), nil
	}
	if e := outputsRule(&p, req.Language); e != nil {
		return p, nil, e, nil
	}
	if len(p.Languages) > 0 && !p.OutputOnly && !slices.Contains(p.Languages, req.Language) {
		return p, nil, fieldErr(http.StatusBadRequest, CodeValidation, "language",
			fmt.Sprintf("language %q is not allowed for this problem (allowed: %s)", req.Language, strings.Join(p.Languages, ", "))), nil
	}
	langs, live, err := s.judging.Languages(ctx)
	if err != nil {
		return p, nil, nil, err
	}
	if live == 0 {
		// Nothing wrong with the request: the judges are away (a hub
		// restart, a network cut). The browser retries with its key.
		e := apiErr(http.StatusServiceUnavailable, CodeUnavailable, "no judge is connected right now; your submission will be taken when one is: retrying")
		e.RetryAfter = 5 * time.Second
		return p, nil, e, nil
	}
	if !p.OutputOnly && !slices.ContainsFunc(langs, func(l judging.Language) bool { return l.ID == req.Language }) {
		return p, nil, fieldErr(http.StatusBadRequest, CodeValidation, "language",
			fmt.Sprintf("no connected judge offers language %q right now (see GET /api/languages)", req.Language)), nil
	}
	return p, c, nil, nil
}

func (s *Server) answerSubmit(w http.ResponseWriter, r *http.Request, id int64, status int) {
	sub, err := s.cfg.Store.SubmissionByID(r.Context(), id)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	s.writeSubmit(w, r, &sub, status)
}

func (s *Server) writeSubmit(w http.ResponseWriter, r *http.Request, sub *store.Submission, status int) {
	sj := s.submissionJSON(authOf(r).user, sub)
	out := SubmitJSON{ID: sub.ID, Status: sj.Verdict, Submission: sj}
	if n := s.queueNotice(r.Context(), sub.ID); n != nil {
		out.Queue = n
	}
	writeJSON(w, status, out)
}

// queueNotice returns the hub's overload notice with the submission's
// position, or nil when there is none (or Redis cannot say).
func (s *Server) queueNotice(ctx context.Context, id int64) *protocol.QueueNotice {
	b, err := s.cfg.Redis.Get(ctx, s.cfg.Names.QueueNotice()).Bytes()
	if err != nil {
		if !errors.Is(err, redis.Nil) {
			s.log.Debug("queue notice unreadable", obs.Err(err))
		}
		return nil
	}
	var n protocol.QueueNotice
	if json.Unmarshal(b, &n) != nil {
		return nil
	}
	if pos, err := s.judging.Queue().Position(ctx, id); err == nil {
		n.Position = pos
	}
	return &n
}

// SubmissionJSON is a submission in a list.
type SubmissionJSON struct {
	ID           int64     `json:"id"`
	Problem      string    `json:"problem"`
	ProblemTitle string    `json:"problem_title"`
	Contest      *string   `json:"contest"`
	User         string    `json:"user"`
	UserDisplay  string    `json:"user_display_name"`
	Language     string    `json:"language"`
	Verdict      string    `json:"verdict"`
	Score        float64   `json:"score"`
	TimeMs       *int64    `json:"time_ms"`
	MemoryKB     *int64    `json:"memory_kb"`
	Attempt      int       `json:"attempt"`
	CreatedAt    time.Time `json:"created_at"`
	// Feedback is the feedback policy applied for this viewer (absent for
	// staff: nothing held back); "closed": the results are hidden until
	// the contest ends (verdict pending, no score, time or memory).
	Feedback string `json:"feedback,omitempty"`
}

// submissionJSON is a list row of sub as u (nil: anonymous) may see it.
func (s *Server) submissionJSON(u *store.User, sub *store.Submission) SubmissionJSON {
	sh := judging.Visible(judging.RuleOf(sub), judging.ViewerOf(u, sub), s.cfg.Now(), sub, nil)
	return submissionView(sub, sh)
}

// submissionView is a list row of sub showing sh, what judging.Visible
// let the viewer see of it.
func submissionView(sub *store.Submission, sh feedback.Shown) SubmissionJSON {
	out := SubmissionJSON{ID: sub.ID, Problem: sub.ProblemSlug, ProblemTitle: sub.ProblemTitle, User: sub.Username,
		UserDisplay: sub.DisplayName, Language: sub.Language, Verdict: string(sh.Status), Score: sh.Score,
		Attempt: sub.Attempt, CreatedAt: sub.CreatedAt, Feedback: string(sh.Policy)}
	if sub.ContestSlug.Valid {
		c := sub.ContestSlug.String
		out.Contest = &c
	}
	if sub.TimeMs.Valid && !sh.Hidden {
		v := sh.TimeMs
		out.TimeMs = &v
	}
	if sub.MemoryKB.Valid && !sh.Hidden {
		v := sh.MemoryKiB
		out.MemoryKB = &v
	}
	return out
}

// CaseJSON is one case result.
type CaseJSON struct {
	Index    int     `json:"index"`
	Verdict  string  `json:"verdict"`
	TimeMs   int64   `json:"time_ms"`
	MemoryKB int64   `json:"memory_kb"`
	Score    float64 `json:"score"`
	Message  string  `json:"message,omitempty"`
}

// SubmissionDetailJSON is one submission.
type SubmissionDetailJSON struct {
	SubmissionJSON
	Status         string     `json:"status"`
	Final          bool       `json:"final"`
	CompileMessage *string    `json:"compile_message"`
	CaseCount      int        `json:"case_count"`
	Cases          []CaseJSON `json:"cases"`
	Source         *string    `json:"source,omitempty"`
	JudgedAt       *time.Time `json:"judged_at"`
	// FirstFailure is the first failing case under the first_failure
	// policy (absent when none failed, or under another policy).
	FirstFailure int `json:"first_failure,omitempty"`
	// Subtasks are the subtasks' scores of an IOI-mode problem under the
	// policies that show scores (full, score_only; always for staff).
	Subtasks []protocol.SubtaskScore `json:"subtasks,omitempty"`
	// Overrides are the jury's hand-set verdicts, oldest first (staff
	// only; absent for everyone else).
	Overrides []OverrideJSON `json:"overrides,omitempty"`
}

func (s *Server) handleSubmission(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, ok := submissionIDParam(r)
	if !ok {
		writeAPIError(w, errNotFound)
		return
	}
	sub, err := s.cfg.Store.SubmissionByID(ctx, id)
	a := authOf(r)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !judging.CanSee(a.user, &sub)) {
		writeAPIError(w, errNotFound)
		return
	}
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	cases, err := s.cfg.Store.SubmissionCases(ctx, id)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	n := 0
	if sub.TestdataHash.Valid {
		if n, err = s.cfg.Store.CaseCount(ctx, sub.ProblemID, sub.TestdataHash.String); err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
	}
	fb, err := s.judging.FeedbackOf(ctx, &sub)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	// What the viewer may see: the feedback policy, for every field below.
	sh := judging.Visible(fb, judging.ViewerOf(a.user, &sub), s.cfg.Now(), &sub, cases)
	out := SubmissionDetailJSON{SubmissionJSON: submissionView(&sub, sh), Status: string(sh.Status), Final: sub.Final(),
		CaseCount: n, Cases: make([]CaseJSON, 0, len(sh.Cases)), FirstFailure: sh.FirstFailure, Subtasks: sh.Subtasks}
	for _, c := range sh.Cases {
		out.Cases = append(out.Cases, CaseJSON{Index: c.Case, Verdict: string(c.Verdict), TimeMs: c.CPUMs,
			MemoryKB: c.MemoryKiB, Score: c.Score, Message: c.Message})
	}
	if sub.JudgedAt.Valid {
		t := sub.JudgedAt.Time
		out.JudgedAt = &t
	}
	if judging.CanReadCode(a.user, &sub) {
		src := sub.Source
		out.Source = &src
	}
	if a.user != nil && a.user.IsStaff() {
		// The jury's hand-set verdicts, who and why: staff only.
		os, err := s.cfg.Store.Overrides(ctx, id)
		if err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
		out.Overrides = overridesJSON(os)
	}
	if sh.CompileMessage != "" {
		m := sh.CompileMessage
		out.CompileMessage = &m
	}
	writeJSON(w, http.StatusOK, map[string]any{"submission": out})
}

// submissionIDParam is the {id} of a submission route.
func submissionIDParam(r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	return id, err == nil && id >= 1
}

package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

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

func (s *Server) handleLanguages(w http.ResponseWriter, r *http.Request) error {
	langs, live, err := s.judging.Languages(r.Context())
	if err != nil {
		return err
	}
	out := LanguagesJSON{Languages: langs, LiveJudges: live}
	if live == 0 {
		out.Notice = "no judge is connected right now: submissions cannot be accepted until one is"
	}
	writeJSON(w, http.StatusOK, out)
	return nil
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

// handleSubmit takes a program (requireUser); judging.Submit applies the
// rules.
func (s *Server) handleSubmit(w http.ResponseWriter, r *http.Request) error {
	key, err := idemKey(r)
	if err != nil {
		return err
	}
	var req submitRequest
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
	}
	return s.submit(w, r, judging.SubmitRequest{Problem: req.Problem, Contest: req.Contest, Language: req.Language,
		Source: req.Source, Key: key}, nil, "submission created", "language", req.Language, "bytes", len(req.Source))
}

// idemKey is the request's Idempotency-Key, which a submit requires.
func idemKey(r *http.Request) (string, error) {
	key := r.Header.Get(IdempotencyHeader)
	if !validIdemKey(key) {
		return "", fieldErr(http.StatusBadRequest, CodeValidation, IdempotencyHeader,
			"the Idempotency-Key header is required: 1 to 64 of A-Z a-z 0-9 - _ . : (a new random one per submit click)")
	}
	return key, nil
}

// submit makes a submission through judging.Submit and answers as a
// submit does: 201 with the new submission, 200 with the one the key
// already made. Per user, never per address (a lab shares one), a new
// submission takes a token of the submit bucket (SubmitBurst at once,
// SubmitPerMinute sustained). caseField names the request field of an
// output-only submission's case (for a *judging.CaseError).
func (s *Server) submit(w http.ResponseWriter, r *http.Request, req judging.SubmitRequest, caseField func(c int) (field, from string),
	msg string, args ...any) error {
	u := userOf(r)
	var admitErr error
	req.Admit = func(context.Context) error {
		admitErr = s.bucketErr(r, s.submitRule, strconv.FormatInt(u.ID, 10),
			fmt.Sprintf("at most %d submissions at once and %d a minute", s.submitRule.Burst, s.submitRule.Rate))
		return admitErr
	}
	res, err := s.judging.Submit(r.Context(), u, req)
	if admitErr != nil {
		return admitErr
	}
	if err != nil {
		return submitErr(err, caseField)
	}
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
		s.log.Info(msg, append([]any{obs.SubmissionID(res.Submission.ID), "user_id", u.ID, "problem_id", res.Submission.ProblemID,
			"request_id", requestIDOf(r)}, args...)...)
	}
	s.writeSubmit(w, r, &res.Submission, status)
	return nil
}

// submitErr maps judging.Submit's refusals to the API's answers; any other
// error is a backing service failing (503).
func submitErr(err error, caseField func(c int) (field, from string)) error {
	var ref *judging.Refusal
	var ce *judging.CaseError
	switch {
	case errors.As(err, &ref):
		e := fieldErr(refusalStatus[ref.Reason], refusalCode[ref.Reason], ref.Field, ref.Message)
		e.RetryAfter = ref.RetryAfter
		return e
	case errors.As(err, &ce) && caseField != nil:
		field, from := caseField(ce.Case)
		return badField(field, fmt.Sprintf("%s: case %d, the problem has cases 1 to %d", from, ce.Case, ce.Cases))
	}
	return unavailableErr(err)
}

var (
	refusalStatus = map[judging.Reason]int{
		judging.RefusedNotFound: http.StatusNotFound, judging.RefusedInvalid: http.StatusBadRequest,
		judging.RefusedForbidden: http.StatusForbidden, judging.RefusedConflict: http.StatusConflict,
		judging.RefusedNoJudge: http.StatusServiceUnavailable,
	}
	refusalCode = map[judging.Reason]string{
		judging.RefusedNotFound: CodeNotFound, judging.RefusedInvalid: CodeValidation,
		judging.RefusedForbidden: CodeForbidden, judging.RefusedConflict: CodeConflict,
		judging.RefusedNoJudge: CodeUnavailable,
	}
)

func (s *Server) writeSubmit(w http.ResponseWriter, r *http.Request, sub *store.Submission, status int) {
	sj := s.submissionJSON(userOf(r), sub)
	out := SubmitJSON{ID: sub.ID, Status: sj.Verdict, Submission: sj}
	if n := s.judging.QueueNotice(r.Context(), sub.ID); n != nil {
		out.Queue = n
	}
	writeJSON(w, status, out)
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

func (s *Server) handleSubmission(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id, ok := submissionIDParam(r)
	if !ok {
		return errNotFound
	}
	sub, err := s.cfg.Store.SubmissionByID(ctx, id)
	a := authOf(r)
	if err == nil && !judging.CanSee(a.user, &sub) {
		return errNotFound
	}
	if err != nil {
		return err
	}
	cases, err := s.cfg.Store.SubmissionCases(ctx, id)
	if err != nil {
		return unavailableErr(err)
	}
	n := 0
	if sub.TestdataHash.Valid {
		if n, err = s.cfg.Store.CaseCount(ctx, sub.ProblemID, sub.TestdataHash.String); err != nil {
			return unavailableErr(err)
		}
	}
	fb, err := s.judging.FeedbackOf(ctx, &sub)
	if err != nil {
		return unavailableErr(err)
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
			return unavailableErr(err)
		}
		out.Overrides = overridesJSON(os)
	}
	if sh.CompileMessage != "" {
		m := sh.CompileMessage
		out.CompileMessage = &m
	}
	writeJSON(w, http.StatusOK, map[string]any{"submission": out})
	return nil
}

// submissionIDParam is the {id} of a submission route.
func submissionIDParam(r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	return id, err == nil && id >= 1
}

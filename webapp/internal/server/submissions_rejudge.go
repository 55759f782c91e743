package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// POST /api/rejudge (onlyStaff): judging.Rejudge and RejudgeAll; GET
// /api/rejudge/{job}: judging.RejudgeJob.

type rejudgeRequest struct {
	SubmissionID *int64 `json:"submission_id"`
	Submission   *int64 `json:"submission"` // the frontend's name for submission_id
	// A selection, as the status page filters: any of them, together.
	Problem  string `json:"problem"`
	Contest  string `json:"contest"`
	User     string `json:"user"`
	Verdict  string `json:"verdict"`
	Language string `json:"language"`
}

// MaxRejudge bounds the submissions one rejudge request touches.
const MaxRejudge = 20000

// handleRejudge enqueues the next attempt of one submission, or of every
// submission a selection names (the status page's filters: problem,
// contest, user, verdict, language, together), at rejudge priority
// (onlyStaff). A selection runs in the background and answers 202.
//
// An Idempotency-Key (optional) makes the request safe to retry when its
// answer was lost (no answer, a 502 or 504 from nginx): a retry with the
// same key rejudges nothing again and answers what the first did, with
// "repeated": true.
func (s *Server) handleRejudge(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	u := userOf(r)
	key := r.Header.Get(IdempotencyHeader)
	if key != "" && !validIdemKey(key) {
		return fieldErr(http.StatusBadRequest, CodeValidation, IdempotencyHeader,
			"the Idempotency-Key header, when given, is 1 to 64 of A-Z a-z 0-9 - _ . : (a new random one per rejudge click)")
	}
	var req rejudgeRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	if req.SubmissionID == nil {
		req.SubmissionID = req.Submission
	} else if req.Submission != nil {
		return badField("submission", "and submission_id are the same field: give one")
	}
	sel := selection{User: req.User, Problem: req.Problem, Contest: req.Contest, Verdict: req.Verdict, Language: req.Language}
	switch {
	case req.SubmissionID == nil && sel.empty():
		return badField("submission_id", "give submission_id, or a selection: problem, contest, user, verdict, language")
	case req.SubmissionID != nil && !sel.empty():
		return badField("submission_id", "give submission_id or a selection (problem, contest, user, verdict, language), not both")
	}
	if req.SubmissionID != nil {
		if *req.SubmissionID < 1 {
			return badField("submission_id", "must be a submission id")
		}
		repeated, err := s.judging.RejudgeOnce(ctx, *req.SubmissionID, u.ID, key)
		if errors.Is(err, judging.ErrNoSubmission) {
			return fieldErr(http.StatusNotFound, CodeNotFound, "submission_id", "no such submission")
		} else if err != nil {
			return unavailableErr(err)
		}
		s.log.Info("rejudge", "user_id", u.ID, "submissions", 1, "repeated", repeated, "request_id", requestIDOf(r))
		out := map[string]any{"queued": 1}
		if repeated {
			out["repeated"] = true
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	}
	f, _, err := s.resolve(ctx, sel)
	var un *unknownName
	if errors.As(err, &un) {
		return fieldErr(http.StatusNotFound, CodeNotFound, un.field, "no such "+un.field)
	} else if err != nil {
		return unavailableErr(err)
	}
	ids, err := s.cfg.Store.FilteredSubmissionIDs(ctx, store.SubmissionFilter{UserID: f.UserID, ProblemID: f.ProblemID,
		ContestID: f.ContestID, Verdict: f.Verdict, Language: f.Language}, MaxRejudge)
	if err != nil {
		return unavailableErr(err)
	}
	if len(ids) > MaxRejudge {
		return apiErr(http.StatusRequestEntityTooLarge, CodeTooLarge,
			fmt.Sprintf("more than %d submissions; rejudge at most %d at once (narrow the selection)", MaxRejudge, MaxRejudge))
	}
	// In the background, at once; GET /api/rejudge/{job} says how far.
	st, err := s.judging.RejudgeAll(ctx, ids, u.ID, key)
	if err != nil {
		return unavailableErr(err)
	}
	if st.Repeated {
		s.log.Info("rejudge repeated", "user_id", u.ID, "job", st.Job, "request_id", requestIDOf(r))
		writeJSON(w, http.StatusAccepted, map[string]any{"queued": st.Total, "background": true, "job": st.Job, "repeated": true})
		return nil
	}
	s.log.Info("rejudge started", "user_id", u.ID, "submissions", st.Total, "job", st.Job, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusAccepted, map[string]any{"queued": st.Total, "background": true, "job": st.Job})
	return nil
}

// handleRejudgeJob answers how far a background rejudge got (staff):
// total, done, failed, and whether it finished or was interrupted by its
// node stopping. Any node answers: the progress is in Redis.
func (s *Server) handleRejudgeJob(w http.ResponseWriter, r *http.Request) error {
	st, err := s.judging.RejudgeJob(r.Context(), chi.URLParam(r, "job"))
	if errors.Is(err, judging.ErrNoRejudgeJob) {
		return fieldErr(http.StatusNotFound, CodeNotFound, "job", "no such rejudge job (or it expired)")
	} else if err != nil {
		return unavailableErr(err)
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/tokens"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// judgeName returns the judge whose token the request bears
// (Authorization: Bearer <token>), checking it against rkeys.JudgeTokens
// (internal/tokens) and, when Redis does not have it, the judges table. "" means no valid token.
func (s *Server) judgeName(ctx context.Context, r *http.Request) (string, error) {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	tok = strings.TrimSpace(tok)
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" || len(tok) > 512 {
		return "", nil
	}
	name, err := tokens.Lookup(ctx, s.cfg.Redis, s.cfg.Names, tok)
	if err == nil {
		return name, nil
	}
	if !errors.Is(err, tokens.ErrUnknown) && !errors.Is(err, tokens.ErrNotLoaded) {
		s.log.Warn("judge token lookup in Redis failed; asking MySQL", obs.Err(err))
	}
	j, err := s.cfg.Store.JudgeByTokenHash(ctx, tokens.Hash(tok))
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return j.Name, nil
}

// handleJudgeTestdata serves a test data package to a judge. Only a judge
// token opens it: a browser session does not.
func (s *Server) handleJudgeTestdata(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	name, err := s.judgeName(ctx, r)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	if name == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="verdict-judge"`)
		writeAPIError(w, apiErr(http.StatusUnauthorized, CodeUnauthorized,
			"this endpoint needs a judge token: Authorization: Bearer <token>"))
		return
	}
	hash := chi.URLParam(r, "hash")
	if !blob.ValidHash(hash) {
		writeAPIError(w, errNotFound)
		return
	}
	known, err := s.cfg.Store.TestdataExists(ctx, hash)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	if !known {
		writeAPIError(w, errNotFound)
		return
	}
	f, err := s.cfg.Blobs.Open(ctx, hash)
	if errors.Is(err, blob.ErrNotFound) {
		s.log.Error("test data version has no blob", "hash", hash)
		writeAPIError(w, errNotFound)
		return
	}
	if err != nil {
		// The blob store (S3, say) did not answer.
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	defer f.Close()
	// A package takes longer to send than an API answer: the upload
	// timeout bounds it (the context, set by deadline, and the write
	// deadline of the connection).
	if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.cfg.UploadTimeout)); err != nil {
		s.log.Debug("cannot extend the write deadline of a download", obs.Err(err))
	}
	s.log.Debug("test data download", "judge_id", name, "hash", hash, "bytes", f.Size)
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("ETag", `"`+hash+`"`)
	w.Header().Set("Cache-Control", "private, max-age=31536000, immutable")
	// Streams from the store (a Range asks the store for that range only).
	http.ServeContent(w, r, hash+".zip", f.ModTime, f)
}

func (s *Server) visibleContest(w http.ResponseWriter, r *http.Request) (*store.Contest, bool) {
	c, err := s.cfg.Store.ContestBySlug(r.Context(), chi.URLParam(r, "slug"))
	a := authOf(r)
	staff := a.user != nil && a.user.IsStaff()
	if errors.Is(err, store.ErrNotFound) || (err == nil && !c.Visible && !staff) {
		writeAPIError(w, errNotFound)
		return nil, false
	}
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return nil, false
	}
	return &c, true
}

// handleScoreboard serves a contest's scoreboard: the public one (frozen
// during the freeze) to everyone, the live one to staff (?view=public
// shows staff the public one).
func (s *Server) handleScoreboard(w http.ResponseWriter, r *http.Request) {
	c, ok := s.visibleContest(w, r)
	if !ok {
		return
	}
	a := authOf(r)
	staff := a.user != nil && a.user.IsStaff()
	view := r.URL.Query().Get("view")
	if view != "" && view != "public" && view != "live" {
		writeAPIError(w, badField("view", "must be public or live"))
		return
	}
	if view == "live" && !staff {
		writeAPIError(w, fieldErr(http.StatusForbidden, CodeForbidden, "view", "only staff see the live board"))
		return
	}
	public := !staff || view == "public"
	if c.Phase(s.cfg.Now()) == "upcoming" && !staff {
		writeJSON(w, http.StatusOK, map[string]any{"rule": c.Rule, "frozen": false, "full": true, "rows": []any{}})
		return
	}
	if q := r.URL.Query(); q.Has("group") {
		s.groupBoard(w, r, c, public, q.Get("group")) // one group's board (teams.go)
		return
	}
	if public {
		raw, err := s.judging.PublicBoard(r.Context(), c)
		if err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
		writeRawJSON(w, http.StatusOK, raw)
		return
	}
	doc, err := s.judging.Scoreboard(r.Context(), c, false)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

// handleUnfreeze reveals a contest's frozen scoreboard (admins).
func (s *Server) handleUnfreeze(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	if a.user == nil {
		writeAPIError(w, errUnauthorized)
		return
	}
	if a.user.Role != store.RoleAdmin {
		writeAPIError(w, apiErr(http.StatusForbidden, CodeForbidden, "only admins unfreeze a scoreboard"))
		return
	}
	c, ok := s.visibleContest(w, r)
	if !ok {
		return
	}
	if !c.UnfrozenAt.Valid {
		if err := s.cfg.Store.SetUnfrozen(r.Context(), c.ID, s.cfg.Now()); err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
	}
	s.judging.ForgetContest(c.ID)
	if err := s.judging.FeedThaw(r.Context(), c.ID); err != nil { // the Contest API feed (ccs_feed.go)
		s.log.Warn("the thaw did not reach the contest's event feed", obs.Err(err))
	}
	if err := s.judging.PublishScoreboard(r.Context(), c.ID); err != nil {
		s.log.Warn("publishing the revealed scoreboard failed", obs.Err(err))
		s.judging.MarkDirty(c.ID)
	}
	writeJSON(w, http.StatusOK, map[string]any{"contest": c.Slug, "unfrozen": true})
}

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
// (staff). A selection runs in the background and answers 202.
func (s *Server) handleRejudge(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	a := authOf(r)
	if a.user == nil {
		writeAPIError(w, errUnauthorized)
		return
	}
	if !a.user.IsStaff() {
		writeAPIError(w, apiErr(http.StatusForbidden, CodeForbidden, "only admins and problem setters rejudge"))
		return
	}
	var req rejudgeRequest
	if e := decodeJSON(r, &req); e != nil {
		writeAPIError(w, e)
		return
	}
	if req.SubmissionID == nil {
		req.SubmissionID = req.Submission
	} else if req.Submission != nil {
		writeAPIError(w, badField("submission", "and submission_id are the same field: give one"))
		return
	}
	sel := selection{User: req.User, Problem: req.Problem, Contest: req.Contest, Verdict: req.Verdict, Language: req.Language}
	switch {
	case req.SubmissionID == nil && sel.empty():
		writeAPIError(w, badField("submission_id", "give submission_id, or a selection: problem, contest, user, verdict, language"))
		return
	case req.SubmissionID != nil && !sel.empty():
		writeAPIError(w, badField("submission_id", "give submission_id or a selection (problem, contest, user, verdict, language), not both"))
		return
	}
	if req.SubmissionID != nil {
		if *req.SubmissionID < 1 {
			writeAPIError(w, badField("submission_id", "must be a submission id"))
			return
		}
		if _, err := s.cfg.Store.SubmissionByID(ctx, *req.SubmissionID); errors.Is(err, store.ErrNotFound) {
			writeAPIError(w, fieldErr(http.StatusNotFound, CodeNotFound, "submission_id", "no such submission"))
			return
		} else if err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
		if err := s.judging.Rejudge(ctx, *req.SubmissionID); err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
		s.log.Info("rejudge", "user_id", a.user.ID, "submissions", 1, "request_id", requestIDOf(r))
		writeJSON(w, http.StatusOK, map[string]any{"queued": 1})
		return
	}
	f, _, notFound, apiE, err := s.resolve(ctx, sel)
	switch {
	case err != nil:
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	case apiE != nil:
		writeAPIError(w, apiE)
		return
	case notFound != "":
		writeAPIError(w, fieldErr(http.StatusNotFound, CodeNotFound, notFound, "no such "+notFound))
		return
	}
	ids, err := s.cfg.Store.FilteredSubmissionIDs(ctx, store.SubmissionFilter{UserID: f.UserID, ProblemID: f.ProblemID,
		ContestID: f.ContestID, Verdict: f.Verdict, Language: f.Language}, MaxRejudge)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	if len(ids) > MaxRejudge {
		writeAPIError(w, apiErr(http.StatusRequestEntityTooLarge, CodeTooLarge,
			fmt.Sprintf("more than %d submissions; rejudge at most %d at once (narrow the selection)", MaxRejudge, MaxRejudge)))
		return
	}
	// In the background, at once.
	s.judging.RejudgeAll(ids, a.user.ID)
	s.log.Info("rejudge started", "user_id", a.user.ID, "submissions", len(ids), "request_id", requestIDOf(r))
	writeJSON(w, http.StatusAccepted, map[string]any{"queued": len(ids), "background": true})
}

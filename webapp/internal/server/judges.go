package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/judgestate"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/tokens"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/judgetokens"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// JudgeJSON is a judge as GET /api/judges shows it: the MySQL row and,
// while the hub has state for it, its live load.
type JudgeJSON struct {
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"created_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
	LastSeenAt *time.Time `json:"last_seen_at"`
	// Connected: the hub saw a heartbeat within the live window (15 s).
	Connected bool `json:"connected"`
	// The rest is the hub's last heartbeat record (rkeys.Judge(name));
	// absent when the hub holds none (never connected, or silent for a
	// few heartbeats).
	Hub          string   `json:"hub,omitempty"`
	Cores        *int     `json:"cores,omitempty"`
	Running      *int     `json:"running,omitempty"`
	Queued       *int     `json:"queued,omitempty"`
	MaxParallel  *int     `json:"max_parallel,omitempty"`
	Load1        *float64 `json:"load1,omitempty"`
	MemUsedRatio *float64 `json:"mem_used_ratio,omitempty"`
	AgentVersion string   `json:"agent_version,omitempty"`
	Languages    []string `json:"languages,omitempty"`
}

// WarmJSON is one upcoming or running contest as GET /api/judges shows it:
// how many connected judges are warm (hold every problem's current test
// data), as the hubs report it (rkeys.WarmStatus, internal/warmplan).
type WarmJSON struct {
	Contest   string    `json:"contest"` // slug
	ContestID int64     `json:"contest_id"`
	StartsAt  time.Time `json:"starts_at"`
	EndsAt    time.Time `json:"ends_at"`
	// Warming: within the hubs' --warm-before window (or running): judges
	// are being made to prefetch its data.
	Warming bool `json:"warming"`
	Warm    int  `json:"warm"`
	Judges  int  `json:"judges"`
}

// warmJSON is the warm status for the judges page; empty when Redis
// cannot say (the page still shows the judges).
func (s *Server) warmJSON(r *http.Request, now time.Time) []WarmJSON {
	sts, err := s.judging.WarmStatus(r.Context(), now)
	if err != nil {
		s.log.Warn("cannot read the judges' warm status", obs.Err(err))
	}
	out := make([]WarmJSON, 0, len(sts))
	for _, c := range sts {
		out = append(out, WarmJSON{Contest: c.Slug, ContestID: c.ID, StartsAt: c.Start.UTC(), EndsAt: c.End.UTC(),
			Warming: c.Warming, Warm: c.Warm, Judges: c.Judges})
	}
	return out
}

// validJudgeName: 1–64 of A-Z a-z 0-9 . _ -, starting with a letter or a
// digit. The name is part of Redis keys, so no ':'.
func validJudgeName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || (c != '.' && c != '_' && c != '-')) {
			return false
		}
	}
	return true
}

// handleJudges lists the judges (onlyStaff): MySQL's rows with the hub's
// state of each (judging.JudgeStates).
func (s *Server) handleJudges(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	js, err := s.cfg.Store.ListJudges(ctx)
	if err != nil {
		return unavailableErr(err)
	}
	names := make([]string, len(js))
	for i := range js {
		names[i] = js[i].Name
	}
	states, errs, err := s.judging.JudgeStates(ctx, names)
	if err != nil {
		return unavailableErr(err)
	}
	live := s.judging.LiveWindow()
	now := s.cfg.Now()
	out := make([]JudgeJSON, 0, len(js))
	for i, j := range js {
		o := JudgeJSON{Name: j.Name, CreatedAt: j.CreatedAt}
		if j.RevokedAt.Valid {
			t := j.RevokedAt.Time
			o.RevokedAt = &t
		}
		if j.LastSeenAt.Valid {
			t := j.LastSeenAt.Time
			o.LastSeenAt = &t
		}
		st, err := states[i], errs[i]
		if err != nil && !errors.Is(err, judgestate.ErrNoState) {
			s.log.Warn("judge state partly unreadable", "judge_id", j.Name, obs.Err(err))
		}
		if !errors.Is(err, judgestate.ErrNoState) {
			seen := st.SeenAt
			o.Connected = now.Sub(seen) < live
			if o.LastSeenAt == nil || seen.After(*o.LastSeenAt) {
				// The hub's state expires a few heartbeats after the judge
				// goes silent: keep the time in MySQL, at most once a minute.
				if o.LastSeenAt == nil || seen.Sub(*o.LastSeenAt) > time.Minute {
					if err := s.cfg.Store.TouchJudgeSeen(ctx, j.Name, seen); err != nil {
						s.log.Warn("cannot record when a judge was last seen", "judge_id", j.Name, obs.Err(err))
					}
				}
				o.LastSeenAt = &seen
			}
			o.Hub, o.AgentVersion = st.Hub, st.AgentVersion
			o.Cores, o.Running, o.Queued, o.MaxParallel = &st.Cores, &st.Running, &st.Queued, &st.MaxParallel
			o.Load1, o.MemUsedRatio = &st.Load1, &st.MemUsedRatio
			if st.LanguagesKnown {
				o.Languages = make([]string, 0, len(st.Languages))
				for _, l := range st.Languages {
					o.Languages = append(o.Languages, l.ID)
				}
			}
		}
		out = append(out, o)
	}
	writeJSON(w, http.StatusOK, map[string]any{"judges": out, "warm": s.warmJSON(r, now)})
	return nil
}

type issueJudgeRequest struct {
	Name string `json:"name"`
}

// handleIssueJudge makes a new token for a judge (onlyAdmins): a new
// judge, or a new token replacing the old one. The token is in this
// answer only; MySQL keeps its SHA-256.
func (s *Server) handleIssueJudge(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	var req issueJudgeRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	if !validJudgeName(req.Name) {
		return badField("name", "must be 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit")
	}
	ctx := r.Context()
	token := tokens.New()
	_, existed := s.cfg.Store.JudgeByName(ctx, req.Name)
	if err := s.cfg.Store.SetJudgeToken(ctx, req.Name, tokens.Hash(token)); err != nil {
		return unavailableErr(err)
	}
	if err := s.syncJudgeTokens(ctx); err != nil {
		return err
	}
	j, err := s.cfg.Store.JudgeByName(ctx, req.Name)
	if err != nil {
		return unavailableErr(err)
	}
	status := http.StatusCreated
	if existed == nil {
		status = http.StatusOK // a reissue: the old token no longer works
	}
	s.log.Info("judge token issued", "judge_id", req.Name, "user_id", u.ID, "reissued", existed == nil, "request_id", requestIDOf(r))
	writeJSON(w, status, map[string]any{"name": j.Name, "token": token, "created_at": j.CreatedAt, "reissued": existed == nil})
	return nil
}

// handleRevokeJudge revokes a judge's token (onlyAdmins; idempotent).
func (s *Server) handleRevokeJudge(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	name := chi.URLParam(r, "name")
	err := s.cfg.Store.RevokeJudge(r.Context(), name, s.cfg.Now())
	if errors.Is(err, store.ErrNotFound) {
		return fieldErr(http.StatusNotFound, CodeNotFound, "name", "no judge has that name")
	}
	if err != nil {
		return unavailableErr(err)
	}
	if err := s.syncJudgeTokens(r.Context()); err != nil {
		return err
	}
	s.log.Info("judge token revoked", "judge_id", name, "user_id", u.ID, "request_id", requestIDOf(r))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// syncJudgeTokens rewrites the hub's token hash from MySQL. When Redis
// fails the change is in MySQL but the hub does not know it yet: 503 so
// the admin retries (both writes are idempotent); the periodic sync would
// catch up too.
func (s *Server) syncJudgeTokens(ctx context.Context) error {
	if _, err := judgetokens.Sync(ctx, s.cfg.Store, s.cfg.Redis, s.cfg.Names); err != nil {
		return unavailableErr(err)
	}
	return nil
}

// judgeName returns the judge whose token the request bears
// (Authorization: Bearer <token>; judgetokens.Lookup). "" means no valid
// token.
func (s *Server) judgeName(r *http.Request) (string, error) {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	tok = strings.TrimSpace(tok)
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" || len(tok) > 512 {
		return "", nil
	}
	name, err := judgetokens.Lookup(r.Context(), s.cfg.Store, s.cfg.Redis, s.cfg.Names, tok, s.log)
	if errors.Is(err, judgetokens.ErrUnknown) {
		return "", nil
	}
	return name, err
}

// handleJudgeTestdata serves a test data package to a judge. Only a judge
// token opens it: a browser session does not.
func (s *Server) handleJudgeTestdata(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	name, err := s.judgeName(r)
	if err != nil {
		return unavailableErr(err)
	}
	if name == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="verdict-judge"`)
		return apiErr(http.StatusUnauthorized, CodeUnauthorized, "this endpoint needs a judge token: Authorization: Bearer <token>")
	}
	hash := chi.URLParam(r, "hash")
	if !blob.ValidHash(hash) {
		return errNotFound
	}
	known, err := s.cfg.Store.TestdataExists(ctx, hash)
	if err != nil {
		return unavailableErr(err)
	}
	if !known {
		return errNotFound
	}
	f, err := s.cfg.Blobs.Open(ctx, hash)
	if errors.Is(err, blob.ErrNotFound) {
		s.log.Error("test data version has no blob", "hash", hash)
		return errNotFound
	}
	if err != nil {
		// The blob store (S3, say) did not answer.
		return unavailableErr(err)
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
	return nil
}

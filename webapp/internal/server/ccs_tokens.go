package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// APITokenPrefix starts every API token, so a leaked one is recognisable.
const APITokenPrefix = "vdt_"

// MaxAPITokens bounds a user's live tokens.
const MaxAPITokens = 20

// APITokenJSON is a token as its owner lists it (never the secret).
type APITokenJSON struct {
	ID        int64      `json:"id"`
	Name      string     `json:"name"`
	Scope     string     `json:"scope"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at"`
	// Token is the secret, in the answer to its creation only.
	Token string `json:"token,omitempty"`
}

func apiTokenJSON(t *store.APIToken) APITokenJSON {
	out := APITokenJSON{ID: t.ID, Name: t.Name, Scope: t.Scope, CreatedAt: t.CreatedAt.UTC()}
	if t.RevokedAt.Valid {
		r := t.RevokedAt.Time.UTC()
		out.RevokedAt = &r
	}
	return out
}

func hashAPIToken(tok string) []byte {
	sum := sha256.Sum256([]byte(tok))
	return sum[:]
}

// handleAPITokens lists the caller's API tokens (requireUser).
func (s *Server) handleAPITokens(w http.ResponseWriter, r *http.Request) error {
	ts, err := s.cfg.Store.APITokens(r.Context(), userOf(r).ID)
	if err != nil {
		return unavailableErr(err)
	}
	out := make([]APITokenJSON, 0, len(ts))
	for i := range ts {
		out = append(out, apiTokenJSON(&ts[i]))
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": out})
	return nil
}

type createTokenRequest struct {
	Name  string `json:"name"`
	Scope string `json:"scope"`
}

// handleCreateAPIToken issues a personal API token: scope "read" (what
// the public sees: default) or "staff" (staff only). The secret is in
// this answer only; MySQL keeps its SHA-256 (requireUser).
func (s *Server) handleCreateAPIToken(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	var req createTokenRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	if req.Scope == "" {
		req.Scope = store.ScopeRead
	}
	switch {
	case !validText(req.Name, 64) || strings.TrimSpace(req.Name) == "":
		return badField("name", "is required: 1 to 64 characters")
	case req.Scope != store.ScopeRead && req.Scope != store.ScopeStaff:
		return badField("scope", "must be read or staff")
	case req.Scope == store.ScopeStaff && !u.IsStaff():
		return fieldErr(http.StatusForbidden, CodeForbidden, "scope", "only staff issue staff tokens")
	}
	ctx := r.Context()
	ts, err := s.cfg.Store.APITokens(ctx, u.ID)
	if err != nil {
		return unavailableErr(err)
	}
	live := 0
	for _, t := range ts {
		if !t.RevokedAt.Valid {
			live++
		}
	}
	if live >= MaxAPITokens {
		return apiErr(http.StatusConflict, CodeConflict, "too many live tokens: revoke one first")
	}
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return internalErr(err)
	}
	secret := APITokenPrefix + hex.EncodeToString(b[:])
	t, err := s.cfg.Store.CreateAPIToken(ctx, u.ID, strings.TrimSpace(req.Name), req.Scope, hashAPIToken(secret))
	if err != nil {
		return unavailableErr(err)
	}
	s.log.Info("api token issued", "user_id", u.ID, "token_id", t.ID, "scope", t.Scope, "request_id", requestIDOf(r))
	out := apiTokenJSON(&t)
	out.Token = secret
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// handleRevokeAPIToken revokes one of the caller's tokens (idempotent;
// requireUser).
func (s *Server) handleRevokeAPIToken(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		return errNotFound
	}
	if err := s.cfg.Store.RevokeAPIToken(r.Context(), u.ID, id, s.cfg.Now()); errors.Is(err, store.ErrNotFound) {
		return errNotFound
	} else if err != nil {
		return unavailableErr(err)
	}
	s.log.Info("api token revoked", "user_id", u.ID, "token_id", id, "request_id", requestIDOf(r))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ccsPrincipal is who reads the Contest API: an API token's owner (staff
// only with a staff token of a staff user), else the session's user,
// else anonymous.
type ccsPrincipal struct {
	user  *store.User
	staff bool
}

var errBadToken = apiErr(http.StatusUnauthorized, CodeUnauthorized,
	"invalid, revoked or unknown API token (HTTP Basic with your username and a token as the password, or Authorization: Bearer <token>)")

// apiTokenAuth resolves the Authorization header of a Contest API
// request: Bearer <token>, or Basic with the token as the password (the
// username, if given, must be the token's owner). No header: the session,
// or anonymous. A bad token is a 401 (with WWW-Authenticate, set on w),
// never anonymous.
func (s *Server) apiTokenAuth(w http.ResponseWriter, r *http.Request) (ccsPrincipal, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		a := authOf(r)
		return ccsPrincipal{user: a.user, staff: a.user != nil && a.user.IsStaff()}, nil
	}
	scheme, cred, _ := strings.Cut(h, " ")
	cred = strings.TrimSpace(cred)
	var username, secret string
	switch strings.ToLower(scheme) {
	case "bearer":
		secret = cred
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(cred)
		if err != nil {
			break
		}
		username, secret, _ = strings.Cut(string(raw), ":")
	}
	fail := func() (ccsPrincipal, error) {
		w.Header().Set("WWW-Authenticate", `Basic realm="verdict", charset="UTF-8"`)
		return ccsPrincipal{}, errBadToken
	}
	if !strings.HasPrefix(secret, APITokenPrefix) {
		return fail()
	}
	ctx, cancel := s.quick(r.Context())
	defer cancel()
	t, u, err := s.cfg.Store.APITokenByHash(ctx, hashAPIToken(secret))
	if errors.Is(err, store.ErrNotFound) {
		return fail()
	}
	if err != nil {
		return ccsPrincipal{}, unavailableErr(err)
	}
	if u.Disabled || (username != "" && subtle.ConstantTimeCompare([]byte(username), []byte(u.Username)) != 1) {
		return fail()
	}
	return ccsPrincipal{user: &u, staff: t.Scope == store.ScopeStaff && u.IsStaff()}, nil
}

package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/ratelimit"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Sessions and accounts: login, logout, who am I, registration (the
// password change and the admin user pages are users.go).

// UserJSON is a user as the API shows it.
type UserJSON struct {
	ID          int64     `json:"id"`
	Username    string    `json:"username"`
	DisplayName string    `json:"display_name"`
	Role        string    `json:"role"`
	Email       string    `json:"email,omitempty"` // only to the user themself
	CreatedAt   time.Time `json:"created_at"`
}

func userJSON(u *store.User, self bool) UserJSON {
	out := UserJSON{ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, Role: u.Role, CreatedAt: u.CreatedAt}
	if self && u.Email.Valid {
		out.Email = u.Email.String
	}
	return out
}

// SessionJSON answers POST /api/session and GET /api/me.
type SessionJSON struct {
	User      UserJSON `json:"user"`
	CSRFToken string   `json:"csrf_token"`
}

// loginFinishTimeout bounds what a login does once the password is
// checked: the throttle's success, the session, the epoch for the hub.
const loginFinishTimeout = 2 * time.Second

type loginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) error {
	var req loginRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	if req.Username == "" {
		return fieldErr(http.StatusBadRequest, CodeValidation, "username", "is required")
	}
	if len(req.Username) > 64 {
		return fieldErr(http.StatusBadRequest, CodeValidation, "username", "is too long")
	}
	if req.Password == "" {
		return fieldErr(http.StatusBadRequest, CodeValidation, "password", "is required")
	}
	ctx := r.Context()
	ip := s.clientIP(r)
	// Usernames are lower-case [a-z0-9_.-]. Anything else is looked up
	// nowhere: MySQL's case- and accent-insensitive collation would match
	// "ALICE", "alice   " or a full-width "ａlice" to alice, each with a
	// throttle of its own; such names count against the address only.
	name := strings.ToLower(strings.TrimSpace(req.Username))
	key := ratelimit.LoginKey{Addr: ip, Trusted: s.inTrustedNetwork(ip)}
	if account.ValidateUsername(name) == nil {
		key.Username, key.Device = name, deviceHash(r)
	}
	// The attempt is counted as a failure now, before the (slow) check:
	// concurrent guesses cannot all pass a check made before any failed,
	// and a client that hangs up during the check is counted all the
	// same. A success or an unchecked password takes it back.
	qctx, cancel := s.quick(ctx)
	defer cancel()
	ticket, err := s.logins.Attempt(qctx, key)
	if b, ok := errors.AsType[*ratelimit.BlockedError](err); ok {
		s.log.Info("login throttled", "username", name, "client", ip, "limit", b.Limit, "wait", b.Wait,
			"request_id", requestIDOf(r))
		return throttled(b)
	}
	if err != nil {
		return unavailableErr(err)
	}
	u, err := store.User{}, store.ErrNotFound
	if key.Username != "" {
		u, err = s.cfg.Store.UserByUsername(qctx, name)
	}
	ok := false
	switch {
	case errors.Is(err, store.ErrNotFound):
		err = s.hasher.Spend(ctx, req.Password) // same latency, same queue, as a wrong password
	case err != nil:
	default:
		ok, err = s.hasher.Check(ctx, u.PasswordHash, req.Password)
		ok = ok && !u.Disabled
	}
	if err != nil {
		// The password was not checked: not a failure.
		s.settle(ctx, "refund", func(ctx context.Context) error { return s.logins.Refund(ctx, ticket) })
		return s.hashErr(r, err)
	}
	if !ok {
		s.log.Info("login failed", "username", req.Username, "client", ip, "request_id", requestIDOf(r))
		return apiErr(http.StatusUnauthorized, CodeInvalidCredentials, "wrong username or password")
	}
	// The password is right. What is left (a few Redis writes) has a
	// deadline of its own: in a login storm the check waits its turn for
	// the hasher and may take most of the request's deadline, and a 503
	// now would throw the hashing away and send the browser back to do it
	// again (14 logins of the 3,000-contestant rehearsal, 10:37 run).
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loginFinishTimeout)
	defer cancel()
	// A known device keeps its cookie; any other browser gets a new one.
	dev, devCookie := key.Device, (*http.Cookie)(nil)
	if !ticket.KnownDevice {
		devCookie, dev = s.newDevice(r)
	}
	s.settle(fctx, "success", func(ctx context.Context) error { return s.logins.Succeed(ctx, ticket, true, dev) })
	// A new session on every login: a session id planted before login
	// (session fixation) is never promoted.
	if c, err := r.Cookie(SessionCookie); err == nil {
		_ = s.sessions.Delete(fctx, c.Value)
	}
	// The epoch read with the password hash just checked: a reset that
	// lands from now on voids this session too.
	sess, err := s.sessions.Create(fctx, u.ID, u.Role, u.SessionEpoch)
	if err != nil {
		return unavailableErr(err)
	}
	s.publishEpoch(fctx, u.ID) // for the hub
	s.setSessionCookie(w, r, sess.ID)
	if devCookie != nil {
		http.SetCookie(w, devCookie)
	}
	s.log.Info("login", "user_id", u.ID, "client", ip, "known_device", ticket.KnownDevice,
		"usual_address", ticket.UsualAddress, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusOK, SessionJSON{User: userJSON(&u, true), CSRFToken: sess.CSRF})
	return nil
}

// setSessionCookie hands the browser its session id.
func (s *Server) setSessionCookie(w http.ResponseWriter, r *http.Request, id string) {
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: id, Path: "/",
		MaxAge:   int(s.sessions.TTL() / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secure(r),
	})
}

func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) error {
	if a := authOf(r); a.sess != nil {
		if err := s.sessions.Delete(r.Context(), a.sess.ID); err != nil {
			return unavailableErr(err)
		}
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secure(r)})
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleMe is the signed-in user and their CSRF token (requireUser).
func (s *Server) handleMe(w http.ResponseWriter, r *http.Request) error {
	a := authOf(r)
	writeJSON(w, http.StatusOK, SessionJSON{User: userJSON(a.user, true), CSRFToken: a.sess.CSRF})
	return nil
}

type registerRequest struct {
	Username    string `json:"username"`
	Password    string `json:"password"`
	DisplayName string `json:"display_name"`
	Email       string `json:"email"`
}

// handleRegister creates a student account. The role is never taken from
// the request.
func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) error {
	var req registerRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	req.DisplayName = account.StripBidi(req.DisplayName)
	for _, err := range []error{
		account.ValidateUsername(req.Username),
		account.ValidatePassword(req.Password),
		account.ValidateDisplayName(req.DisplayName),
		account.ValidateEmail(req.Email),
	} {
		if fe, ok := errors.AsType[*account.FieldError](err); ok {
			return invalid(fe.Field, err)
		}
	}
	// An admin creates accounts in every mode, unthrottled; anyone else
	// meets the registration mode (settings) first, then the flood guard
	// per client address (trusted networks exempt): every registration
	// costs a bcrypt hash and an account. A refusal is not counted.
	byAdmin := adminCreates(r)
	if !byAdmin {
		if err := s.registrationErr(r, req.Email); err != nil {
			return err
		}
		if ip := s.clientIP(r); !s.inTrustedNetwork(ip) {
			if err := s.bucketErr(r, s.registerRule, ip, "too many registrations from your address"); err != nil {
				return err
			}
		}
	}
	hash, err := s.hasher.Hash(r.Context(), req.Password)
	if err != nil {
		return s.hashErr(r, err)
	}
	nu := store.User{Username: req.Username, DisplayName: req.DisplayName, Role: store.RoleStudent, PasswordHash: hash}
	if req.DisplayName == "" {
		nu.DisplayName = req.Username
	}
	if req.Email != "" {
		nu.Email.String, nu.Email.Valid = req.Email, true
	}
	qctx, cancel := s.quick(r.Context())
	defer cancel()
	u, err := s.cfg.Store.CreateUser(qctx, nu)
	var dup *store.DuplicateError
	if errors.As(err, &dup) {
		field := "username"
		if dup.Key == "uk_users_email" {
			field = "email"
		}
		return fieldErr(http.StatusConflict, CodeConflict, field, field+" is already taken")
	}
	if err != nil {
		return internalErr(err)
	}
	s.log.Info("registered", "user_id", u.ID, "client", s.clientIP(r), "by_admin", byAdmin, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusCreated, map[string]any{"user": userJSON(&u, true)})
	return nil
}

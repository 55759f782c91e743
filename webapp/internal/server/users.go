package server

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/ratelimit"
	"github.com/verdict-oj/verdict/webapp/internal/readcache"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// AdminUserJSON is a user as the admins' user list shows it.
type AdminUserJSON struct {
	ID          int64     `json:"id"`
	Username    string    `json:"username"`
	DisplayName string    `json:"display_name"`
	Email       string    `json:"email"` // "" when none
	Role        string    `json:"role"`
	Disabled    bool      `json:"disabled"`
	CreatedAt   time.Time `json:"created_at"`
}

func adminUserJSON(u *store.User) AdminUserJSON {
	return AdminUserJSON{ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, Email: u.Email.String,
		Role: u.Role, Disabled: u.Disabled, CreatedAt: u.CreatedAt}
}

// invalid is a 400 for field from an account.Validate* error (its message,
// without the validator's own field name: the request's may differ, as
// new_password for a password).
func invalid(field string, err error) *APIError {
	if fe, ok := errors.AsType[*account.FieldError](err); ok {
		return badField(field, fe.Message)
	}
	return badField(field, err.Error())
}

// Limits of GET /api/users.
const (
	DefaultUserPage = 50
	MaxUserPage     = 200
)

// endSessions ends userID's sessions but keep ("" for none) for the hub's
// sake (the web nodes already refuse them through the session epoch): it
// publishes the user's new epoch in Redis, which the hub checks every
// session against, and deletes the indexed sessions. A failure is logged:
// the web nodes' check stands.
func (s *Server) endSessions(ctx context.Context, userID int64, keep string) {
	s.publishEpoch(ctx, userID)
	if n, err := s.sessions.EndUser(ctx, userID, keep); err != nil {
		s.log.Warn("cannot end the user's sessions in Redis (the web nodes refuse them anyway)", "user_id", userID, "err", err)
	} else if n > 0 {
		s.log.Info("sessions ended", "user_id", userID, "count", n)
	}
}

// publishEpoch copies userID's session epoch from MySQL to Redis, where
// the hub checks sessions against it (internal/session). A failure is
// logged: the copy catches up at the user's next login or change, and
// the web node deletes every old session it meets (authenticate).
func (s *Server) publishEpoch(ctx context.Context, userID int64) {
	err := s.sessions.PublishEpoch(ctx, userID, func(ctx context.Context) (uint32, error) {
		// From MySQL itself, never the read cache: a stale epoch copied
		// to the hub would let it accept old sessions and refuse new ones.
		u, err := s.cfg.Store.UserByID(readcache.Bypass(ctx), userID)
		return u.SessionEpoch, err
	})
	if err != nil {
		s.log.Warn("cannot publish the user's session epoch to Redis (the hub may accept their old sessions until it is)", "user_id", userID, "err", err)
	}
}

type changePasswordRequest struct {
	CurrentPassword string `json:"current_password"`
	NewPassword     string `json:"new_password"`
}

// handleChangePassword changes the logged-in user's own password. The
// current password is checked like a login (and wrong ones count against
// the account's login limit). Every other session of the user ends; this
// one is replaced by a new session (new cookie, new CSRF token).
func (s *Server) handleChangePassword(w http.ResponseWriter, r *http.Request) error {
	a := authOf(r) // requireUser
	var req changePasswordRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	if req.CurrentPassword == "" {
		return badField("current_password", "is required")
	}
	if err := account.ValidatePassword(req.NewPassword); err != nil {
		return invalid("new_password", err)
	}
	if req.NewPassword == req.CurrentPassword {
		return badField("new_password", "must differ from the current password")
	}
	ctx := r.Context()
	u := a.user
	// Wrong current passwords are throttled per (user, device): this
	// browser's device cookie, or else its session. Nobody else's
	// failures, elsewhere, stop this change.
	dev := deviceHash(r)
	if dev == "" {
		dev = hashToken(a.sess.ID)
	}
	ticket, err := s.logins.Attempt(ctx, ratelimit.LoginKey{Username: u.Username, Addr: s.clientIP(r), Device: dev, DeviceOnly: true})
	if b, ok := errors.AsType[*ratelimit.BlockedError](err); ok {
		return throttled(b)
	}
	if err != nil {
		return unavailableErr(err)
	}
	ok, err := s.hasher.Check(ctx, u.PasswordHash, req.CurrentPassword)
	if err != nil {
		s.settle(ctx, "refund", func(ctx context.Context) error { return s.logins.Refund(ctx, ticket) })
		return s.hashErr(r, err)
	}
	if !ok {
		return badField("current_password", "is wrong")
	}
	s.settle(ctx, "success", func(ctx context.Context) error { return s.logins.Succeed(ctx, ticket, false, "") })
	hash, err := s.hasher.Hash(ctx, req.NewPassword)
	if err != nil {
		return s.hashErr(r, err)
	}
	// Only if nothing changed the account since this request read it (a
	// reset by an admin, another change): the password just checked is
	// then still the one being replaced.
	epoch, err := s.cfg.Store.ChangePasswordHash(ctx, u.ID, u.SessionEpoch, hash)
	if errors.Is(err, store.ErrStale) {
		return apiErr(http.StatusConflict, CodeConflict, "the account changed meanwhile (a password reset?); log in again")
	}
	if err != nil {
		return unavailableErr(err)
	}
	// The new epoch: the only session that survives.
	sess, err := s.sessions.Create(ctx, u.ID, u.Role, epoch)
	if err != nil {
		return unavailableErr(err)
	}
	s.endSessions(ctx, u.ID, sess.ID)
	s.setSessionCookie(w, r, sess.ID)
	s.log.Info("password changed", "user_id", u.ID, "client", s.clientIP(r), "request_id", requestIDOf(r))
	writeJSON(w, http.StatusOK, SessionJSON{User: userJSON(u, true), CSRFToken: sess.CSRF})
	return nil
}

// handleListUsers lists users for admins (onlyAdmins), filtered, by id,
// with a cursor.
func (s *Server) handleListUsers(w http.ResponseWriter, r *http.Request) error {
	var f store.UserFilter
	var after int64
	limit := DefaultUserPage
	q := r.URL.Query()
	for _, k := range slices.Sorted(maps.Keys(q)) { // the same request always names the same parameter
		v := q[k]
		if len(v) != 1 {
			return badField(k, "may be given once")
		}
		switch val := v[0]; k {
		case "q":
			if len(val) > 64 {
				return badField(k, "is at most 64 bytes")
			}
			f.Query = val
		case "role":
			if val != store.RoleAdmin && val != store.RoleSetter && val != store.RoleStudent {
				return badField(k, "must be admin, setter or student")
			}
			f.Role = val
		case "disabled":
			b, err := strconv.ParseBool(val)
			if err != nil {
				return badField(k, "must be true or false")
			}
			f.Disabled = &b
		case "cursor":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n < 0 {
				return badField(k, "is not one this server gave out")
			}
			after = n
		case "limit":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > MaxUserPage {
				return badField(k, "must be 1 to "+strconv.Itoa(MaxUserPage))
			}
			limit = n
		default:
			return badField(k, "is not a parameter of the user list")
		}
	}
	users, err := s.cfg.Store.ListUsers(r.Context(), f, after, limit+1)
	if err != nil {
		return unavailableErr(err)
	}
	var next *string
	if len(users) > limit {
		users = users[:limit]
		c := strconv.FormatInt(users[len(users)-1].ID, 10)
		next = &c
	}
	out := make([]AdminUserJSON, len(users))
	for i := range users {
		out[i] = adminUserJSON(&users[i])
	}
	writeJSON(w, http.StatusOK, map[string]any{"users": out, "next_cursor": next})
	return nil
}

// userParam loads the {username} of the route: 404 naming the field when
// there is no such user.
func (s *Server) userParam(r *http.Request) (store.User, error) {
	name := chi.URLParam(r, "username")
	u, err := s.cfg.Store.UserByUsername(r.Context(), name)
	if errors.Is(err, store.ErrNotFound) {
		return store.User{}, fieldErr(http.StatusNotFound, CodeNotFound, "username", "no user "+strconv.Quote(name))
	}
	if err != nil {
		return store.User{}, unavailableErr(err)
	}
	return u, nil
}

type updateUserRequest struct {
	DisplayName *string `json:"display_name"`
	Email       *string `json:"email"`
	Role        *string `json:"role"`
	Disabled    *bool   `json:"disabled"`
}

// handleUpdateUser changes a user's display name, e-mail, role or
// disabled state (onlyAdmins). An admin cannot change their own role or
// disable themselves (the last admin could lock everyone out).
func (s *Server) handleUpdateUser(w http.ResponseWriter, r *http.Request) error {
	admin := userOf(r)
	var req updateUserRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	u, err := s.userParam(r)
	if err != nil {
		return err
	}
	var up store.UserUpdate
	if req.DisplayName != nil {
		*req.DisplayName = account.StripBidi(*req.DisplayName)
		if err := account.ValidateDisplayName(*req.DisplayName); err != nil {
			return invalid("display_name", err)
		}
		dn := *req.DisplayName
		if dn == "" {
			dn = u.Username
		}
		up.DisplayName = &dn
	}
	if req.Email != nil {
		if *req.Email != "" {
			if err := account.ValidateEmail(*req.Email); err != nil {
				return invalid("email", err)
			}
		}
		em := sql.NullString{String: *req.Email, Valid: *req.Email != ""}
		up.Email = &em
	}
	if req.Role != nil {
		switch *req.Role {
		case store.RoleAdmin, store.RoleSetter, store.RoleStudent:
		default:
			return badField("role", "must be admin, setter or student")
		}
		if u.ID == admin.ID && *req.Role != u.Role {
			return fieldErr(http.StatusBadRequest, CodeValidation, "role", "you cannot change your own role (ask another admin)")
		}
		up.Role = req.Role
	}
	if req.Disabled != nil {
		if u.ID == admin.ID && *req.Disabled {
			return fieldErr(http.StatusBadRequest, CodeValidation, "disabled", "you cannot disable yourself")
		}
		up.Disabled = req.Disabled
	}
	ctx := r.Context()
	nu, err := s.cfg.Store.UpdateUser(ctx, u.ID, up)
	var dup *store.DuplicateError
	switch {
	case errors.As(err, &dup):
		return fieldErr(http.StatusConflict, CodeConflict, "email", "email is already taken")
	case errors.Is(err, store.ErrLastAdmin):
		field := "role"
		if req.Disabled != nil && *req.Disabled {
			field = "disabled"
		}
		return fieldErr(http.StatusConflict, CodeConflict, field, "this is the last enabled admin: make another admin first")
	case err != nil:
		return unavailableErr(err)
	}
	if nu.SessionEpoch != u.SessionEpoch {
		// Disabled, or a new role (the hub reads the role from the session).
		s.endSessions(ctx, u.ID, "")
	}
	s.log.Info("user updated", "user_id", u.ID, "by", admin.ID, "role", nu.Role, "disabled", nu.Disabled, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusOK, map[string]any{"user": adminUserJSON(&nu)})
	return nil
}

type resetPasswordRequest struct {
	Password *string `json:"password"`
}

// handleResetPassword sets a user's password (admins): the given one, or
// a generated one, returned once (onlyAdmins). The user is logged out
// everywhere.
func (s *Server) handleResetPassword(w http.ResponseWriter, r *http.Request) error {
	admin := userOf(r)
	var req resetPasswordRequest
	if r.ContentLength != 0 {
		if e := decodeJSON(r, &req); e != nil {
			return e
		}
	}
	pw := account.RandomPassword()
	if req.Password != nil {
		if err := account.ValidatePassword(*req.Password); err != nil {
			return invalid("password", err)
		}
		pw = *req.Password
	}
	u, err := s.userParam(r)
	if err != nil {
		return err
	}
	if u.ID == admin.ID {
		// A stolen admin session must not set a password of its choice
		// without knowing the current one.
		return fieldErr(http.StatusBadRequest, CodeValidation, "username",
			"change your own password on your account page (POST /api/me/password), which asks for the current one")
	}
	ctx := r.Context()
	hash, err := s.hasher.Hash(ctx, pw)
	if err != nil {
		return s.hashErr(r, err)
	}
	if err := s.cfg.Store.SetPasswordHash(ctx, u.ID, hash); err != nil {
		return unavailableErr(err)
	}
	s.endSessions(ctx, u.ID, "")
	// A reset also lifts the backoff from wrong passwords.
	if err := s.logins.Forget(ctx, u.Username); err != nil {
		s.log.Warn("cannot reset the login limit", "err", err)
	}
	s.log.Info("password reset", "user_id", u.ID, "by", admin.ID, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusOK, map[string]string{"username": u.Username, "password": pw})
	return nil
}

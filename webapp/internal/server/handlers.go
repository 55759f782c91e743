package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/ratelimit"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

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

type loginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	var req loginRequest
	if e := decodeJSON(r, &req); e != nil {
		writeAPIError(w, e)
		return
	}
	if req.Username == "" {
		writeAPIError(w, fieldErr(http.StatusBadRequest, CodeValidation, "username", "is required"))
		return
	}
	if len(req.Username) > 64 {
		writeAPIError(w, fieldErr(http.StatusBadRequest, CodeValidation, "username", "is too long"))
		return
	}
	if req.Password == "" {
		writeAPIError(w, fieldErr(http.StatusBadRequest, CodeValidation, "password", "is required"))
		return
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
		refuseThrottled(w, b)
		return
	}
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
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
		s.hashFailed(w, r, err)
		return
	}
	if !ok {
		s.log.Info("login failed", "username", req.Username, "client", ip, "request_id", requestIDOf(r))
		writeAPIError(w, apiErr(http.StatusUnauthorized, CodeInvalidCredentials, "wrong username or password"))
		return
	}
	// A known device keeps its cookie; any other browser gets a new one.
	dev, devCookie := key.Device, (*http.Cookie)(nil)
	if !ticket.KnownDevice {
		devCookie, dev = s.newDevice(r)
	}
	s.settle(ctx, "success", func(ctx context.Context) error { return s.logins.Succeed(ctx, ticket, true, dev) })
	// A new session on every login: a session id planted before login
	// (session fixation) is never promoted.
	if c, err := r.Cookie(SessionCookie); err == nil {
		_ = s.sessions.Delete(ctx, c.Value)
	}
	// The epoch read with the password hash just checked: a reset that
	// lands from now on voids this session too.
	sess, err := s.sessions.Create(ctx, u.ID, u.Role, u.SessionEpoch)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	s.publishEpoch(ctx, u.ID) // for the hub
	s.setSessionCookie(w, r, sess.ID)
	if devCookie != nil {
		http.SetCookie(w, devCookie)
	}
	s.log.Info("login", "user_id", u.ID, "client", ip, "known_device", ticket.KnownDevice,
		"usual_address", ticket.UsualAddress, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusOK, SessionJSON{User: userJSON(&u, true), CSRFToken: sess.CSRF})
}

// setSessionCookie hands the browser its session id.
func (s *Server) setSessionCookie(w http.ResponseWriter, r *http.Request, id string) {
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: id, Path: "/",
		MaxAge:   int(s.sessions.TTL() / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secure(r),
	})
}

func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) {
	if a := authOf(r); a.sess != nil {
		if err := s.sessions.Delete(r.Context(), a.sess.ID); err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secure(r)})
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleMe(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	if a.user == nil {
		writeAPIError(w, errUnauthorized)
		return
	}
	writeJSON(w, http.StatusOK, SessionJSON{User: userJSON(a.user, true), CSRFToken: a.sess.CSRF})
}

type registerRequest struct {
	Username    string `json:"username"`
	Password    string `json:"password"`
	DisplayName string `json:"display_name"`
	Email       string `json:"email"`
}

// handleRegister creates a student account. The role is never taken from
// the request.
func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) {
	var req registerRequest
	if e := decodeJSON(r, &req); e != nil {
		writeAPIError(w, e)
		return
	}
	req.DisplayName = account.StripBidi(req.DisplayName)
	for _, err := range []error{
		account.ValidateUsername(req.Username),
		account.ValidatePassword(req.Password),
		account.ValidateDisplayName(req.DisplayName),
		account.ValidateEmail(req.Email),
	} {
		if fe, ok := errors.AsType[*account.FieldError](err); ok {
			writeAPIError(w, invalid(fe.Field, err))
			return
		}
	}
	// An admin creates accounts in every mode, unthrottled; anyone else
	// meets the registration mode (settings) first, then the flood guard
	// per client address (trusted networks exempt): every registration
	// costs a bcrypt hash and an account. A refusal is not counted.
	byAdmin := adminCreates(r)
	if !byAdmin && !s.registrationAdmits(w, r, req.Email) {
		return
	}
	if ip := s.clientIP(r); !byAdmin && !s.inTrustedNetwork(ip) &&
		!s.takeBucket(w, r, s.registerRule, ip, "too many registrations from your address") {
		return
	}
	hash, err := s.hasher.Hash(r.Context(), req.Password)
	if err != nil {
		s.hashFailed(w, r, err)
		return
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
		writeAPIError(w, fieldErr(http.StatusConflict, CodeConflict, field, field+" is already taken"))
		return
	}
	if err != nil {
		s.internal(w, r, err, http.StatusInternalServerError)
		return
	}
	s.log.Info("registered", "user_id", u.ID, "client", s.clientIP(r), "by_admin", byAdmin, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusCreated, map[string]any{"user": userJSON(&u, true)})
}

// ProblemSummaryJSON is a problem in a list.
type ProblemSummaryJSON struct {
	Slug          string `json:"slug"`
	Title         string `json:"title"`
	TimeLimitMs   int    `json:"time_limit_ms"`
	MemoryLimitKB int    `json:"memory_limit_kb"`
	Mode          string `json:"mode"`
	Visibility    string `json:"visibility,omitempty"` // staff only
}

func (s *Server) handleProblems(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	var list []store.ProblemSummary
	var err error
	staff := a.user != nil && a.user.IsStaff()
	if staff {
		list, err = s.cfg.Store.ListProblems(r.Context())
	} else {
		list, _, err = s.catalog.PublicProblems(r.Context())
	}
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	out := make([]ProblemSummaryJSON, 0, len(list))
	for _, p := range list {
		j := ProblemSummaryJSON{Slug: p.Slug, Title: p.Title, TimeLimitMs: p.TimeLimitMs, MemoryLimitKB: p.MemoryLimitKB, Mode: p.Mode}
		if staff {
			j.Visibility = p.Visibility
		}
		out = append(out, j)
	}
	writeJSON(w, http.StatusOK, map[string]any{"problems": out})
}

// ProblemJSON is one problem with its statement.
type ProblemJSON struct {
	Slug           string    `json:"slug"`
	Title          string    `json:"title"`
	Statement      string    `json:"statement"` // Markdown with $…$ math
	TimeLimitMs    int       `json:"time_limit_ms"`
	MemoryLimitKB  int       `json:"memory_limit_kb"`
	Checker        string    `json:"checker"`
	FloatTolerance float64   `json:"float_tolerance,omitempty"`
	Mode           string    `json:"mode"`
	Visibility     string    `json:"visibility"`
	Feedback       string    `json:"feedback"`                // what practice submissions show (protocol.FeedbackPolicy)
	Languages      []string  `json:"languages"`               // empty: every language a judge offers
	TestdataHash   string    `json:"testdata_hash,omitempty"` // staff only
	UpdatedAt      time.Time `json:"updated_at"`
	// InputFile and OutputFile: the files the program reads and writes
	// instead of stdin and stdout ("": the standard stream); OutputOnly:
	// contestants upload one output per case (docs/problems.md).
	InputFile  string `json:"input_file"`
	OutputFile string `json:"output_file"`
	OutputOnly bool   `json:"output_only"`
}

func (s *Server) handleProblem(w http.ResponseWriter, r *http.Request) {
	p, err := s.cfg.Store.ProblemBySlug(r.Context(), chi.URLParam(r, "slug"))
	if !s.found(w, r, err) {
		return
	}
	a := authOf(r)
	staff := a.user != nil && a.user.IsStaff()
	visible := staff || p.Visibility == store.VisibilityPublic
	if !visible && p.Visibility == store.VisibilityContestOnly && a.user != nil {
		visible, err = s.cfg.Store.InStartedContestOf(r.Context(), a.user.ID, p.ID, s.cfg.Now())
		if err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
	}
	if !visible {
		// 404, not 403: do not reveal that a hidden problem exists.
		writeAPIError(w, errNotFound)
		return
	}
	out := ProblemJSON{Slug: p.Slug, Title: p.Title, Statement: statementForView(p.Slug, p.Statement), TimeLimitMs: p.TimeLimitMs,
		MemoryLimitKB: p.MemoryLimitKB, Checker: p.Checker, Mode: p.Mode, Visibility: p.Visibility,
		Feedback: p.Feedback, Languages: p.Languages, UpdatedAt: p.UpdatedAt,
		InputFile: p.InputFile, OutputFile: p.OutputFile, OutputOnly: p.OutputOnly}
	if p.Checker == store.CheckerFloat {
		out.FloatTolerance = p.FloatTolerance
	}
	if staff && p.TestdataHash.Valid {
		out.TestdataHash = p.TestdataHash.String
	}
	writeJSON(w, http.StatusOK, map[string]any{"problem": out})
}

// ContestJSON is a contest as the API shows it.
type ContestJSON struct {
	ID            int64     `json:"id"` // the live scoreboard channel's id
	Slug          string    `json:"slug"`
	Title         string    `json:"title"`
	Description   string    `json:"description,omitempty"`
	Rule          string    `json:"rule"`
	StartAt       time.Time `json:"start_at"`
	EndAt         time.Time `json:"end_at"`
	FreezeMinutes int       `json:"freeze_minutes"`
	Registration  string    `json:"registration"`
	// TimeZone is the IANA zone the contest's times are shown in;
	// StartAt and EndAt carry its offset.
	TimeZone string `json:"time_zone"`
	// Feedback is what contestants see of their results; FeedbackAfter
	// what they see once a closed contest ended.
	Feedback      string `json:"feedback"`
	FeedbackAfter string `json:"feedback_after"`
	// StatusVisibility: what contestants list of others' submissions on
	// the status page, "own" (nothing) or "all" (verdicts, never source).
	StatusVisibility string `json:"status_visibility"`
	Phase            string `json:"phase"`                // upcoming, running, ended
	Visible          *bool  `json:"visible,omitempty"`    // staff only
	Registered       *bool  `json:"registered,omitempty"` // logged-in users, one contest
}

// ContestProblemJSON is a problem of a contest.
type ContestProblemJSON struct {
	Label  string `json:"label"`
	Slug   string `json:"slug"`
	Title  string `json:"title"`
	Points int    `json:"points"`
}

func (s *Server) contestJSON(c *store.Contest, staff, withDescription bool) ContestJSON {
	out := ContestJSON{ID: c.ID, Slug: c.Slug, Title: c.Title, Rule: c.Rule, StartAt: c.StartAt, EndAt: c.EndAt,
		FreezeMinutes: c.FreezeMinutes, Registration: c.Registration, Feedback: c.Feedback,
		FeedbackAfter: c.FeedbackAfter, StatusVisibility: c.StatusVisibility, Phase: c.Phase(s.cfg.Now())}
	var loc *time.Location
	out.TimeZone, loc = contestZone(c.TimeZone)
	out.StartAt, out.EndAt = c.StartAt.In(loc), c.EndAt.In(loc)
	if withDescription {
		out.Description = c.Description
	}
	if staff {
		v := c.Visible
		out.Visible = &v
	}
	return out
}

func (s *Server) handleContests(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	staff := a.user != nil && a.user.IsStaff()
	list, err := s.cfg.Store.ListContests(r.Context(), staff)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	out := make([]ContestJSON, 0, len(list))
	for i := range list {
		out = append(out, s.contestJSON(&list[i], staff, false))
	}
	writeJSON(w, http.StatusOK, map[string]any{"contests": out})
}

func (s *Server) handleContest(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	c, err := s.cfg.Store.ContestBySlug(ctx, chi.URLParam(r, "slug"))
	a := authOf(r)
	staff := a.user != nil && a.user.IsStaff()
	if errors.Is(err, store.ErrNotFound) || (err == nil && !c.Visible && !staff) {
		writeAPIError(w, errNotFound)
		return
	}
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	out := s.contestJSON(&c, staff, true)
	if a.user != nil {
		reg, err := s.cfg.Store.IsParticipant(ctx, c.ID, a.user.ID)
		if err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
		out.Registered = &reg
	}
	// The problem set is secret until the contest starts.
	problems := []ContestProblemJSON{}
	if staff || out.Phase != "upcoming" {
		cps, err := s.cfg.Store.ContestProblems(ctx, c.ID)
		if err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
		for _, p := range cps {
			problems = append(problems, ContestProblemJSON{Label: p.Label, Slug: p.Slug, Title: p.Title, Points: p.Points})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"contest": out, "problems": problems})
}

package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-sql-driver/mysql"

	"github.com/verdict-oj/verdict/internal/httpsec"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/webapp/internal/readcache"
	"github.com/verdict-oj/verdict/webapp/internal/session"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

type ctxKey int

const (
	keyRequestID ctxKey = iota
	keyAuth
	keySession // the session read by readSession, before authenticate
)

// auth is who made the request, from the session cookie only.
type auth struct {
	user *store.User
	sess *session.Session
}

func authOf(r *http.Request) auth {
	a, _ := r.Context().Value(keyAuth).(auth)
	return a
}

func requestIDOf(r *http.Request) string {
	id, _ := r.Context().Value(keyRequestID).(string)
	return id
}

func validRequestID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// requestID takes X-Request-Id from a trusted proxy or makes one, and
// echoes it in the response.
func (s *Server) requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !s.fromTrustedProxy(r) || !validRequestID(id) {
			var b [8]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keyRequestID, id)))
	})
}

// securityHeaders puts the site's security headers (internal/httpsec:
// CSP, frame-ancestors and X-Frame-Options, nosniff, Referrer-Policy) on
// every answer of the node, and Strict-Transport-Security when the
// browser came over HTTPS (secure: TLS here, or X-Forwarded-Proto: https
// from a trusted proxy, the edge's nginx). nginx sets the same values on
// what it serves and replaces these on what it proxies; the node sets
// them too so that no answer lacks them, wherever it is reached from.
func (s *Server) securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpsec.Set(w.Header(), s.secure(r))
		next.ServeHTTP(w, r)
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// accessLog logs each request and records its metrics by route pattern
// (never the raw path, which would explode label cardinality).
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		route := "unmatched"
		if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
			route = rc.RoutePattern()
		}
		d := time.Since(start)
		s.requests.WithLabelValues(route, r.Method, strconv.Itoa(sw.status)).Inc()
		s.latency.WithLabelValues(route, r.Method).Observe(d.Seconds())
		level := slogLevelFor(route, sw.status)
		attrs := []any{"method", r.Method, "path", r.URL.Path, "route", route, "status", sw.status,
			"bytes", sw.bytes, "duration_ms", float64(d.Microseconds()) / 1000,
			"request_id", requestIDOf(r), "client", s.clientIP(r)}
		if a := authOf(r); a.user != nil {
			attrs = append(attrs, "user_id", a.user.ID)
		}
		s.log.Log(r.Context(), level, "request", attrs...)
	})
}

// recoverer turns a panic into a JSON 500 and logs the stack.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("panic in handler", "panic", p, "request_id", requestIDOf(r), "stack", string(debug.Stack()))
			writeAPIError(w, apiErr(http.StatusInternalServerError, CodeInternal, "internal error (request "+requestIDOf(r)+")"))
		}()
		next.ServeHTTP(w, r)
	})
}

// deadline bounds the request's context by Config.RequestTimeout (the
// requests that hash a password by PasswordTimeout; uploads,
// whose body transfer counts too, and test data downloads, streamed from
// the blob store with this context, by UploadTimeout): every query, Redis
// call and blob read made with it gives up in time.
func (s *Server) deadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if streamingRoute(r) { // the event feed (ccs_feed.go): no deadline
			next.ServeHTTP(w, r)
			return
		}
		d := s.cfg.RequestTimeout
		if passwordRoute(r) {
			// Room to wait in the hashing queue (account.Hasher).
			d = s.cfg.PasswordTimeout
		}
		if upload(r) != uploadNone || (r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/judge/testdata/")) {
			d = s.cfg.UploadTimeout
			// The connection's own timeouts (ConnTimeout) would cut a
			// long upload or a 500-user import (a minute of bcrypt on
			// two cores) before its answer: extend them too.
			rc := http.NewResponseController(w)
			_ = rc.SetReadDeadline(time.Now().Add(d))
			_ = rc.SetWriteDeadline(time.Now().Add(d))
		}
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// unavailable reports whether err means a backing service did not answer
// (a deadline, a refused or broken connection) rather than a bug.
func unavailable(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, mysql.ErrInvalidConn) || errors.As(err, &ne)
}

func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, s.bodyLimit(r))
		}
		next.ServeHTTP(w, r)
	})
}

// multipartSlack is room for the multipart framing around an uploaded file.
const multipartSlack = 64 << 10

// bodyLimit is MaxBodyBytes, except for the uploads: a test data zip or
// an ICPC problem package (MaxTestdataBytes) and a user CSV
// (MaxImportBytes).
func (s *Server) bodyLimit(r *http.Request) int64 {
	switch upload(r) {
	case uploadTestdata:
		return s.cfg.MaxTestdataBytes + multipartSlack
	case uploadUsers:
		return max(s.cfg.MaxBodyBytes, MaxImportBytes+multipartSlack)
	}
	return s.cfg.MaxBodyBytes
}

// The routes that take a file: their bodies are large and slow to arrive.
const (
	uploadNone = iota
	uploadTestdata
	uploadUsers
)

func upload(r *http.Request) int {
	if r.Method != http.MethodPost {
		return uploadNone
	}
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/api/problems/") && strings.HasSuffix(p, "/testdata"),
		p == "/api/problems/import": // an ICPC package: test data and more
		return uploadTestdata
	case p == "/api/users/import":
		return uploadUsers
	}
	return uploadNone
}

// readSession reads the session the cookie names from Redis, for admit
// (the session's role lets staff past the gate) and authenticate. It
// touches no MySQL: a request the gate sheds costs one Redis round trip,
// not the user's row as well (each shed request read it, in a rehearsal
// whose requests queued for MySQL connections). A missing, expired or
// unknown session is anonymous; Redis failing is a 503 (the request
// cannot be judged either way).
func (s *Server) readSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(SessionCookie)
		if err != nil || c.Value == "" {
			next.ServeHTTP(w, r)
			return
		}
		// Bounded by RequestTimeout even where the request may take
		// longer (uploads, password routes).
		ctx, cancel := s.quick(r.Context())
		defer cancel()
		sess, err := s.sessions.Get(ctx, c.Value)
		if errors.Is(err, session.ErrNotFound) {
			next.ServeHTTP(w, r)
			return
		}
		if err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keySession, &sess)))
	})
}

// sessionOf is the session readSession read (nil: none).
func sessionOf(r *http.Request) *session.Session {
	s, _ := r.Context().Value(keySession).(*session.Session)
	return s
}

// authenticate resolves the session readSession read to a user. A
// disabled or deleted user, or a session from before the user's last
// password, role or status change (store.User.SessionValid: the session
// epoch) is anonymous; MySQL failing is a 503.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sp := sessionOf(r)
		if sp == nil {
			next.ServeHTTP(w, r)
			return
		}
		sess := *sp
		ctx, cancel := s.quick(r.Context())
		defer cancel()
		u, err := s.cfg.Store.UserByID(ctx, sess.UserID)
		if err == nil && !u.SessionValid(sess.Epoch) {
			// The read cache may hold the user from before a password
			// change on another node whose purge has not arrived: only
			// MySQL may end a session.
			u, err = s.cfg.Store.UserByID(readcache.Bypass(ctx), sess.UserID)
		}
		if errors.Is(err, store.ErrNotFound) || (err == nil && !u.SessionValid(sess.Epoch)) {
			_ = s.sessions.Delete(ctx, sess.ID)
			if err == nil { // the hub's copy of the epoch may lag: bring it up
				s.publishEpoch(ctx, u.ID)
			}
			next.ServeHTTP(w, r)
			return
		}
		if err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keyAuth, auth{user: &u, sess: &sess})))
	})
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// csrf requires, on unsafe methods of a cookie-authenticated request, the
// header X-CSRF-Token equal to the session's token.
func (s *Server) csrf(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := authOf(r)
		if a.sess != nil && !safeMethod(r.Method) {
			got := r.Header.Get("X-CSRF-Token")
			if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(a.sess.CSRF)) != 1 {
				writeAPIError(w, apiErr(http.StatusForbidden, CodeCSRF,
					"missing or wrong X-CSRF-Token header (take it from POST /api/session or GET /api/me)"))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) peer(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func (s *Server) fromTrustedProxy(r *http.Request) bool {
	a, ok := s.peer(r)
	return ok && s.trusted(a)
}

// clientIP is the peer address, or, when the peer is a trusted proxy, the
// right-most X-Forwarded-For address that is not a trusted proxy.
func (s *Server) clientIP(r *http.Request) string {
	a, ok := s.peer(r)
	if !ok {
		return r.RemoteAddr
	}
	if !s.trusted(a) {
		return a.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		h, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		h = h.Unmap()
		if !s.trusted(h) {
			return h.String()
		}
	}
	return a.String()
}

// secure reports whether the browser reached us over TLS.
func (s *Server) secure(r *http.Request) bool {
	return r.TLS != nil || (s.fromTrustedProxy(r) && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https"))
}

// internal logs err and answers with a generic error: status 500 (503
// when err is a backing service not answering) or 503, which carries
// Retry-After and retry_after_seconds like every 503.
func (s *Server) internal(w http.ResponseWriter, r *http.Request, err error, status int) {
	s.log.Error("request failed", obs.Err(err), "request_id", requestIDOf(r), "path", r.URL.Path)
	if status == http.StatusInternalServerError && unavailable(err) {
		status = http.StatusServiceUnavailable
	}
	if status == http.StatusServiceUnavailable {
		// Retry-After on every 503, as on the shed: the admission gate's
		// advice (a backing service out of time under load is the
		// overload it sheds), 1 s on a node without the gate.
		wait := time.Second
		if s.gate != nil {
			wait = s.gate.Advise()
		}
		writeRetry(w, apiErr(status, CodeUnavailable, "a backing service is unavailable; try again shortly (request "+requestIDOf(r)+")"), wait)
		return
	}
	writeAPIError(w, apiErr(status, CodeInternal, "internal error (request "+requestIDOf(r)+")"))
}

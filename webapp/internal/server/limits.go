package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/ratelimit"
)

// Defaults of Limits (docs/limits.md, "Web node limits").
const (
	// DefaultLoginFreeFailures: failed logins of one username from one
	// address (or one known device) before the backoff starts.
	DefaultLoginFreeFailures = 5
	// DefaultLoginAccountFreeFailures: of one username from addresses that
	// are not its usual ones, before the backoff starts.
	DefaultLoginAccountFreeFailures = 20
	// DefaultLoginAddressFreeFailures: of one client address across all
	// usernames (a coarse flood guard: a lab of 300 behind one NAT
	// address makes typos too).
	DefaultLoginAddressFreeFailures = 2000
	DefaultLoginBackoffBase         = time.Second
	DefaultLoginBackoffMax          = 5 * time.Minute
	// DefaultLoginWindow: a throttle is forgotten this long after its last
	// failure.
	DefaultLoginWindow = 15 * time.Minute
	// DefaultDeviceTTL is the life of the device cookie and of its record.
	DefaultDeviceTTL = 365 * 24 * time.Hour
	// DefaultMaxDevices bounds the known devices of one user (the oldest
	// are forgotten).
	DefaultMaxDevices = 20
	// DefaultUsualAddrTTL, DefaultMaxUsualAddrs: a user's usual addresses
	// are those of its last successful logins within 30 days, at most 10.
	DefaultUsualAddrTTL  = 30 * 24 * time.Hour
	DefaultMaxUsualAddrs = 10
	// DefaultSubmitPerMinute and DefaultSubmitBurst: each user submits
	// up to 10 at once after a quiet spell, then one every 10 s.
	DefaultSubmitPerMinute = 6
	DefaultSubmitBurst     = 10
	// DefaultCustomRunPerMinute and DefaultCustomRunBurst: each user makes
	// up to 10 custom runs at once, then one every 6 s (their own bucket:
	// custom runs never use up submissions).
	DefaultCustomRunPerMinute = 10
	DefaultCustomRunBurst     = 10
	// DefaultRegisterPerHour: self-registrations per client address per
	// hour (also the burst).
	DefaultRegisterPerHour = 30
	// DefaultPasswordTimeout is the deadline of requests that hash a
	// password (login, registration, password change and reset): the
	// time they may wait in the hashing queue. In a storm the queue that
	// fits in it is admitted and the rest is told to retry at once.
	DefaultPasswordTimeout = 10 * time.Second
)

// DeviceCookie names the long-lived cookie of a browser that logged in.
const DeviceCookie = "verdict_device"

// CodeBusy: the node has more password checks queued than it can do in
// time; retry after Retry-After.
const CodeBusy = "busy"

// Limits are the web node's limits. Zero values take the defaults above.
type Limits struct {
	// LoginFreeFailures: of (username, address) and (username, known
	// device); LoginAccountFreeFailures: of a username from unusual
	// addresses; LoginAddressFreeFailures: of an address.
	LoginFreeFailures, LoginAccountFreeFailures, LoginAddressFreeFailures int
	// The wait after the first failure beyond the free ones, doubling
	// after each further one up to LoginBackoffMax.
	LoginBackoffBase, LoginBackoffMax time.Duration
	// LoginWindow: a throttle is forgotten this long after its last
	// failure.
	LoginWindow time.Duration
	// TrustedNetworks are exempt from the per-address guards (the login
	// flood guard and the registration rate): a lab's or a school's NAT.
	TrustedNetworks []netip.Prefix
	// SubmitPerMinute is each user's sustained submission rate, with
	// bursts of SubmitBurst (default: max(DefaultSubmitBurst,
	// SubmitPerMinute)).
	SubmitPerMinute, SubmitBurst int
	// CustomRunPerMinute is each user's sustained custom run rate, with
	// bursts of CustomRunBurst (default: max(DefaultCustomRunBurst,
	// CustomRunPerMinute)).
	CustomRunPerMinute, CustomRunBurst int
	// RegisterPerHour limits POST /api/users per client address.
	RegisterPerHour int
	// HashSlots: bcrypt hashes at once (default GOMAXPROCS).
	HashSlots int
	// PasswordTimeout replaces RequestTimeout for the requests that hash
	// a password. Default DefaultPasswordTimeout.
	PasswordTimeout time.Duration
}

func (l *Limits) defaults() {
	setInt := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	setDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	setInt(&l.LoginFreeFailures, DefaultLoginFreeFailures)
	setInt(&l.LoginAccountFreeFailures, DefaultLoginAccountFreeFailures)
	setInt(&l.LoginAddressFreeFailures, DefaultLoginAddressFreeFailures)
	setDur(&l.LoginBackoffBase, DefaultLoginBackoffBase)
	setDur(&l.LoginBackoffMax, DefaultLoginBackoffMax)
	l.LoginBackoffMax = max(l.LoginBackoffMax, l.LoginBackoffBase)
	setDur(&l.LoginWindow, DefaultLoginWindow)
	setInt(&l.SubmitPerMinute, DefaultSubmitPerMinute)
	setInt(&l.SubmitBurst, max(DefaultSubmitBurst, l.SubmitPerMinute))
	setInt(&l.CustomRunPerMinute, DefaultCustomRunPerMinute)
	setInt(&l.CustomRunBurst, max(DefaultCustomRunBurst, l.CustomRunPerMinute))
	setInt(&l.RegisterPerHour, DefaultRegisterPerHour)
	setDur(&l.PasswordTimeout, DefaultPasswordTimeout)
}

func (l *Limits) loginPolicy() ratelimit.LoginPolicy {
	p := func(free int) ratelimit.Policy {
		return ratelimit.Policy{Free: free, Base: l.LoginBackoffBase, Max: l.LoginBackoffMax, Window: l.LoginWindow}
	}
	return ratelimit.LoginPolicy{
		AccountAddress: p(l.LoginFreeFailures), Account: p(l.LoginAccountFreeFailures), Address: p(l.LoginAddressFreeFailures),
		DeviceTTL: DefaultDeviceTTL, MaxDevices: DefaultMaxDevices, AddrTTL: DefaultUsualAddrTTL, MaxAddrs: DefaultMaxUsualAddrs,
	}
}

func (l *Limits) submitBucket() ratelimit.Bucket {
	return ratelimit.Bucket{Kind: "submit", Rate: l.SubmitPerMinute, Per: time.Minute, Burst: l.SubmitBurst}
}

func (l *Limits) customRunBucket() ratelimit.Bucket {
	return ratelimit.Bucket{Kind: "custom-run", Rate: l.CustomRunPerMinute, Per: time.Minute, Burst: l.CustomRunBurst}
}

func (l *Limits) registerBucket() ratelimit.Bucket {
	return ratelimit.Bucket{Kind: "register", Rate: l.RegisterPerHour, Per: time.Hour, Burst: l.RegisterPerHour}
}

// passwordRoute reports whether r hashes a password: its deadline is
// PasswordTimeout.
func passwordRoute(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	switch p := r.URL.Path; {
	case p == "/api/session", p == "/api/users", p == "/api/me/password":
		return true
	case len(p) > len("/api/users//password") && p[:len("/api/users/")] == "/api/users/" && p[len(p)-len("/password"):] == "/password":
		return true
	}
	return false
}

// quick bounds the backing-service calls of a password route by
// RequestTimeout: its own deadline (PasswordTimeout) is room to queue for
// a hashing slot, not for a database that stopped answering.
func (s *Server) quick(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.cfg.RequestTimeout)
}

// inTrustedNetwork reports whether the client address is exempt from the
// per-address guards.
func (s *Server) inTrustedNetwork(addr string) bool {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	for _, p := range s.cfg.TrustedNetworks {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// deviceHash is the hex SHA-256 of r's device cookie, or "" without one.
// Redis keeps only the hash: a dump of it lets nobody pose as a device.
func deviceHash(r *http.Request) string {
	c, err := r.Cookie(DeviceCookie)
	if err != nil || c.Value == "" || len(c.Value) > 128 {
		return ""
	}
	return hashToken(c.Value)
}

func hashToken(v string) string {
	h := sha256.Sum256([]byte(v))
	return hex.EncodeToString(h[:])
}

// newDevice makes a device cookie and returns it with its hash.
func (s *Server) newDevice(r *http.Request) (*http.Cookie, string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	v := base64.RawURLEncoding.EncodeToString(b)
	return &http.Cookie{
		Name: DeviceCookie, Value: v, Path: "/api",
		MaxAge:   int(DefaultDeviceTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secure(r),
	}, hashToken(v)
}

// retryJSON is the error body of a 429 or 503 busy: the error with the
// wait in seconds beside Retry-After.
type retryJSON struct {
	*APIError
	RetryAfterSeconds int `json:"retry_after_seconds"`
}

// writeRetry answers e with Retry-After (whole seconds, at least 1) in the
// header and in the error object.
func writeRetry(w http.ResponseWriter, e *APIError, wait time.Duration) {
	secs := max(1, int((wait+time.Second-1)/time.Second))
	e.RetryAfter = time.Duration(secs) * time.Second
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeJSON(w, e.Status, map[string]any{"error": retryJSON{APIError: e, RetryAfterSeconds: secs}})
}

// retryError is a refusal answered with writeRetry: Retry-After in the
// header and retry_after_seconds in the error (a 429, or a 503 busy).
type retryError struct {
	e    *APIError
	wait time.Duration
}

func (e *retryError) Error() string { return e.e.Error() }

// throttled is a login throttle's refusal: 429 with Retry-After.
func throttled(b *ratelimit.BlockedError) error {
	what := map[ratelimit.Limit]string{
		ratelimit.LimitAccountAddress: "failed logins to this account from your address",
		ratelimit.LimitAccount:        "failed logins to this account from unfamiliar addresses",
		ratelimit.LimitAddress:        "failed logins from your address",
		ratelimit.LimitDevice:         "wrong passwords for this account from this browser",
	}[b.Limit]
	if what == "" {
		what = "failed logins"
	}
	secs := max(1, int((b.Wait+time.Second-1)/time.Second))
	return &retryError{e: apiErr(http.StatusTooManyRequests, CodeRateLimited,
		fmt.Sprintf("too many %s; try again in %d s", what, secs)), wait: b.Wait}
}

// hasherMetrics are the password hasher's refusals (at once, on its
// estimate; after waiting, the estimate too kind) and the slowdown it
// has learned its queue estimates need.
func hasherMetrics(h *account.Hasher) []prometheus.Collector {
	refused := func(when string, n func(account.Refusals) int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "verdict_webapp_password_refused_total",
			Help:        "Password checks and hashes answered 503 busy, by when: at_once (the estimate said the deadline could not be met) or after_waiting (admitted, then the deadline came first).",
			ConstLabels: prometheus.Labels{"when": when},
		}, func() float64 { return float64(n(h.Refusals())) })
	}
	return []prometheus.Collector{
		refused("at_once", func(r account.Refusals) int64 { return r.AtOnce }),
		refused("after_waiting", func(r account.Refusals) int64 { return r.AfterWaiting }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "verdict_webapp_password_queue_slowdown",
			Help: "The factor the password hasher applies to its queue estimates, learned from how long admitted requests took (1: as estimated).",
		}, h.Slow),
	}
}

// hashErr is how an error of the Hasher is answered: 503 busy with
// Retry-After when the node cannot do the hash in time, nothing
// (errNoAnswer) when the client left (it reads no answer), else 503
// unavailable.
func (s *Server) hashErr(r *http.Request, err error) error {
	if be, ok := errors.AsType[*account.BusyError](err); ok {
		s.log.Info("password work refused: busy", "retry_after", be.RetryAfter, "request_id", requestIDOf(r),
			"path", r.URL.Path, "client", s.clientIP(r))
		return &retryError{e: apiErr(http.StatusServiceUnavailable, CodeBusy, "many people are logging in; retrying shortly"),
			wait: be.RetryAfter}
	}
	if errors.Is(err, context.Canceled) {
		return errNoAnswer
	}
	return unavailableErr(err)
}

// settle runs a throttle state move after the answer is decided: it must
// happen even if the client has gone (a success must not stay counted as
// a failure; a refund must not be lost).
func (s *Server) settle(ctx context.Context, what string, fn func(context.Context) error) {
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := fn(hctx); err != nil {
		s.log.Warn("cannot update a login throttle", "move", what, "err", err)
	}
}

// bucketErr applies b to subject: nil when it has a token, else a 429
// with Retry-After, or a 503 when Redis did not answer.
func (s *Server) bucketErr(r *http.Request, b ratelimit.Bucket, subject, msg string) error {
	ok, wait, err := s.limiter.Take(r.Context(), b, subject)
	if err != nil {
		return unavailableErr(err)
	}
	if !ok {
		secs := max(1, int((wait+time.Second-1)/time.Second))
		return &retryError{e: apiErr(http.StatusTooManyRequests, CodeRateLimited, fmt.Sprintf("%s; try again in %d s", msg, secs)), wait: wait}
	}
	return nil
}

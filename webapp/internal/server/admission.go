package server

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verdict-oj/verdict/internal/reqstart"
	"github.com/verdict-oj/verdict/webapp/internal/admission"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// admit lets an API request in through the node's admission gate
// (webapp/internal/admission): at most Admission.Slots requests are worked
// on at once; one more waits in line for at most Admission.MaxWait, less
// what it waited before it got here (upstreamWait), and what cannot start
// in time — or finds the line full — is answered at once
// with 503 busy and Retry-After, which the browser honours: the gate's
// estimate of when a slot will be free for it (whole seconds, 1 to 10 by
// default, the same in the header and in retry_after_seconds). Let in without
// waiting: staff (an admin must be able to act during a storm of
// contestants), submissions (submitting), logins (their own admission: the password hashing slots,
// limits.go) and judges' test data downloads (a judge is not a browser
// and its tasks wait for them) and the Contest API event feed (a stream
// that lasts the contest would hold a slot as long).
func (s *Server) admit(next http.Handler) http.Handler {
	if s.gate == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if exemptFromGate(r) {
			next.ServeHTTP(w, r)
			return
		}
		// Before authenticate: the session's role (the user's at login;
		// a role change ends the session, see store.User.SessionValid)
		// tells staff, without reading the user from MySQL.
		if sess := sessionOf(r); sess != nil && (store.IsStaffRole(sess.Role) || submitting(r)) {
			release := s.gate.Bypass()
			defer release()
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		release, err := s.gate.EnterQueued(r.Context(), s.upstreamWait(r, start))
		s.admitWait.Observe(time.Since(start).Seconds())
		if err != nil {
			if se, ok := errors.AsType[*admission.ShedError](err); ok {
				s.shed.WithLabelValues(string(se.Reason)).Inc()
				s.shedRetry.Observe(se.RetryAfter.Seconds())
				s.fail(w, r, &retryError{e: apiErr(http.StatusServiceUnavailable, CodeBusy,
					"the server is busy; retrying shortly"), wait: se.RetryAfter})
				return
			}
			s.fail(w, r, errNoAnswer) // the client left while in line
			return
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}

// upstreamWait is how long a request waited between the edge's nginx and
// this handler, as the stamp nginx put on it says (internal/reqstart),
// when a trusted proxy sent it and the stamp is believable; else 0. An
// overloaded node can fall behind before its gate (in nginx's connection,
// in its backlog of requests not yet read), which the gate does not see
// otherwise. (In the 40× contest rehearsal of 2026-12-07 it averaged
// 80 ms: the 12 s nginx timed there were the access log's blocked pipe.)
func (s *Server) upstreamWait(r *http.Request, now time.Time) time.Duration {
	v := r.Header.Get(reqstart.Header)
	if v == "" || !s.fromTrustedProxy(r) {
		return 0
	}
	d, ok := reqstart.Waited(v, now)
	if !ok {
		return 0
	}
	s.upWait.Observe(d.Seconds())
	return d
}

// submitting: a submission is what a contest is about, and the per-user
// submit limit already bounds how many come: it goes in without waiting,
// taking a slot if one is free, so a storm of page loads never sheds it.
// (Shed submits came back together — every two seconds when that was the
// fixed Retry-After; a lab of hundreds behind one address then ran into
// nginx's per-address submit limit, docs/limits.md.)
func submitting(r *http.Request) bool {
	return r.Method == http.MethodPost && r.URL.Path == "/api/submissions"
}

// exemptFromGate: the requests with an admission of their own or that are
// no browser's (admit).
func exemptFromGate(r *http.Request) bool {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/session":
		return true
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/judge/testdata/"):
		return true
	case streamingRoute(r):
		return true
	}
	return false
}

// admissionMetrics: what the gate holds, sheds, makes wait and tells the
// shed.
func (s *Server) admissionMetrics() []prometheus.Collector {
	s.shed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "verdict_webapp_admission_shed_total",
		Help: "API requests answered 503 busy with Retry-After by the admission gate, by reason (line_full, waited, queued: waited as long before the gate, stale: waited the request's deadline before it).",
	}, []string{"reason"})
	s.upWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "verdict_webapp_upstream_wait_seconds",
		Help:    "How long API requests that reached the admission gate had waited between the edge's nginx and the handler (its X-Request-Start stamp; the clocks of both machines count).",
		Buckets: prometheus.ExponentialBuckets(0.0005, 3, 11),
	})
	s.admitWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "verdict_webapp_admission_wait_seconds",
		Help:    "How long API requests waited in line for a slot (those let in and those shed).",
		Buckets: prometheus.ExponentialBuckets(0.0005, 3, 9),
	})
	s.shedRetry = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "verdict_webapp_admission_retry_after_seconds",
		Help:    "The Retry-After told the API requests the admission gate shed (whole seconds: its estimate of when a slot is free for them, spread at random).",
		Buckets: prometheus.LinearBuckets(1, 1, 10),
	})
	if s.gate == nil {
		return nil
	}
	g := s.gate
	return []prometheus.Collector{s.shed, s.admitWait, s.shedRetry, s.upWait,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "verdict_webapp_admission_in_flight",
			Help: "API requests being worked on (slots taken).",
		}, func() float64 { return float64(g.InFlight()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "verdict_webapp_admission_waiting",
			Help: "API requests waiting in line for a slot.",
		}, func() float64 { return float64(g.Waiting()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "verdict_webapp_admission_retry_advice_seconds",
			Help: "The longest Retry-After an API request shed now would be told: 1 s when the gate keeps up, up to 10 s as the line and the clients shed recently grow.",
		}, func() float64 { return g.RetryAdvice().Seconds() }),
	}
}

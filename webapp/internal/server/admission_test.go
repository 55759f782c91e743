package server

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/verdict-oj/verdict/internal/reqstart"
	"github.com/verdict-oj/verdict/webapp/internal/admission"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestAdmissionShedsWithRetryAfter: with every slot taken, a contestant's
// request waits its MaxWait in line and is answered 503 busy with
// Retry-After (JSON, retry_after_seconds, the same whole seconds: the
// gate's floor, nothing being known yet of how fast slots come free),
// which the browser honours; staff and logins go in; once a slot is free
// the contestant is served.
func TestAdmissionShedsWithRetryAfter(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.Admission = admission.Config{Slots: 1, MaxWait: 30 * time.Millisecond, RetryAfter: 3 * time.Second}
	})
	e.user("alice", store.RoleStudent, "alice-password")
	e.user("root", store.RoleAdmin, "root-password")
	alice, admin := e.client(), e.client()
	if r := alice.login("alice", "alice-password"); r.status != http.StatusOK {
		t.Fatalf("login: %d %s", r.status, r.raw)
	}
	if r := admin.login("root", "root-password"); r.status != http.StatusOK {
		t.Fatalf("login: %d %s", r.status, r.raw)
	}

	release, err := e.srv.gate.Enter(context.Background()) // a request being worked on
	if err != nil {
		t.Fatal(err)
	}
	r := alice.do("GET", "/api/problems", nil)
	code, _ := errCode(r)
	if r.status != http.StatusServiceUnavailable || code != CodeBusy || r.header.Get("Retry-After") != "3" ||
		!strings.Contains(r.raw, `"retry_after_seconds":3`) {
		t.Fatalf("full gate: %d %v %s, want 503 busy with Retry-After 3", r.status, r.header, r.raw)
	}
	var m dto.Metric
	if err := e.srv.shed.WithLabelValues(string(admission.Waited)).Write(&m); err != nil || m.GetCounter().GetValue() != 1 {
		got := m.GetCounter().GetValue()
		t.Fatalf("shed counter %v, want 1", got)
	}
	m.Reset()
	if err := e.srv.shedRetry.Write(&m); err != nil || m.GetHistogram().GetSampleCount() != 1 || m.GetHistogram().GetSampleSum() != 3 {
		t.Fatalf("retry-after histogram %v, want one shed told 3 s", m.GetHistogram())
	}
	if r := admin.do("GET", "/api/problems", nil); r.status != http.StatusOK {
		t.Fatalf("staff behind a full gate: %d %s", r.status, r.raw)
	}
	// A contestant's submit goes in past the full gate (it is refused
	// further on here: the problem does not exist, which is not a 503).
	if r := alice.do("POST", "/api/submissions", map[string]any{"problem": "nope", "language": "py3", "source": "x"},
		"X-CSRF-Token", alice.csrf, "Idempotency-Key", "k-1"); r.status == http.StatusServiceUnavailable {
		t.Fatalf("a submit behind a full gate: %d %s", r.status, r.raw)
	}
	bob := e.client()
	e.user("bob", store.RoleStudent, "bob-password")
	if r := bob.login("bob", "bob-password"); r.status != http.StatusOK {
		t.Fatalf("login behind a full gate: %d %s", r.status, r.raw)
	}
	release()
	if r := alice.do("GET", "/api/problems", nil); r.status != http.StatusOK {
		t.Fatalf("after the slot came free: %d %s", r.status, r.raw)
	}
	if e.srv.gate.InFlight() != 0 {
		t.Fatalf("%d slots still taken", e.srv.gate.InFlight())
	}
}

// TestAdmissionOff lets every request in.
func TestAdmissionOff(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.AdmissionOff = true })
	if e.srv.gate != nil {
		t.Fatal("a gate with admission off")
	}
	if r := e.client().do("GET", "/api/problems", nil); r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.raw)
	}
}

// A request the gate sheds has read the session (Redis) and not the
// user's row (MySQL): in the rehearsal, shed requests by the hundred
// thousand each read the user from MySQL first, while requests queued for
// MySQL connections. Here every MySQL connection is held: a contestant's
// request behind a full gate is answered busy at once, not unavailable
// after its deadline; staff still pass the gate (and then wait for MySQL).
func TestShedRequestReadsNoMySQL(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.Admission = admission.Config{Slots: 1, MaxWait: 30 * time.Millisecond, RetryAfter: 2 * time.Second}
		c.RequestTimeout = 2 * time.Second
	})
	e.user("alice", store.RoleStudent, "alice-password")
	alice := e.client()
	if r := alice.login("alice", "alice-password"); r.status != http.StatusOK {
		t.Fatalf("login: %d %s", r.status, r.raw)
	}
	release, err := e.srv.gate.Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	db := e.srv.cfg.Store.DB
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(context.Background(), nil) // holds the only connection
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = tx.Rollback()
		db.SetMaxOpenConns(0)
	}()
	start := time.Now()
	r := alice.do("GET", "/api/problems", nil)
	code, _ := errCode(r)
	if r.status != http.StatusServiceUnavailable || code != CodeBusy {
		t.Fatalf("behind a full gate with MySQL held: %d %s after %v, want 503 busy (the gate, before any MySQL read)",
			r.status, r.raw, time.Since(start).Round(time.Millisecond))
	}
}

// A request the edge stamped (X-Request-Start) as passed on MaxWait ago or
// more is shed at once when no slot is free (reason queued), not after
// waiting MaxWait more in line, and one stamped as passed on its whole
// deadline ago even with a slot free (reason stale); a stamp from a peer
// that is no trusted proxy counts for nothing.
func TestAdmissionShedsQueuedUpstream(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted bool
		want    admission.Reason
	}{
		{"from the edge", true, admission.Queued},
		{"from an untrusted peer", false, admission.Waited},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, func(c *Config) {
				c.Admission = admission.Config{Slots: 1, MaxWait: 50 * time.Millisecond, RetryAfter: 2 * time.Second}
				if !tc.trusted {
					c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
				}
			})
			e.user("alice", store.RoleStudent, "alice-password")
			alice := e.client()
			if r := alice.login("alice", "alice-password"); r.status != http.StatusOK {
				t.Fatalf("login: %d %s", r.status, r.raw)
			}
			stamp := reqstart.Format(time.Now().Add(-2 * time.Second))
			if r := alice.do("GET", "/api/problems", nil, reqstart.Header, stamp); r.status != http.StatusOK {
				t.Fatalf("a free slot, an old stamp: %d %s, want 200 (the node has room now)", r.status, r.raw)
			}
			// Stamped before the request's whole deadline: shed even
			// with a slot free (from the edge only).
			stale := reqstart.Format(time.Now().Add(-e.srv.cfg.RequestTimeout - time.Second))
			r := alice.do("GET", "/api/problems", nil, reqstart.Header, stale)
			if code, _ := errCode(r); tc.trusted && (r.status != http.StatusServiceUnavailable || code != CodeBusy) ||
				!tc.trusted && r.status != http.StatusOK {
				t.Fatalf("a free slot, a stamp older than the deadline: %d %s (trusted %v)", r.status, r.raw, tc.trusted)
			}
			release, err := e.srv.gate.Enter(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			r = alice.do("GET", "/api/problems", nil, reqstart.Header, reqstart.Format(time.Now().Add(-2*time.Second)))
			code, _ := errCode(r)
			if r.status != http.StatusServiceUnavailable || code != CodeBusy || r.header.Get("Retry-After") != "2" {
				t.Fatalf("full gate, an old stamp: %d %v %s, want 503 busy with Retry-After 2", r.status, r.header, r.raw)
			}
			for _, reason := range []admission.Reason{admission.Queued, admission.Waited, admission.Stale} {
				var m dto.Metric
				want := 0.0
				if reason == tc.want || reason == admission.Stale && tc.trusted {
					want = 1
				}
				if err := e.srv.shed.WithLabelValues(string(reason)).Write(&m); err != nil || m.GetCounter().GetValue() != want {
					t.Errorf("shed %s: %v, want %v", reason, m.GetCounter().GetValue(), want)
				}
			}
		})
	}
}

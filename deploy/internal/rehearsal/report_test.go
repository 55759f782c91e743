package rehearsal

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/harness"
)

func TestRunDelay(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"123456 7890 42\n", 7890},
		{"1 2000000000 3", 2 * time.Second},
		{"", 0},
		{"123", 0},
		{"1 x 3", 0},
		{"1 -5 3", 0},
	} {
		if got := runDelay([]byte(tc.in)); got != tc.want {
			t.Errorf("runDelay(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestStaffRetries(t *testing.T) {
	ra := 2 * time.Second
	for _, tc := range []struct {
		method string
		keyed  bool
		a      harness.Answer
		want   bool
	}{
		{http.MethodPost, false, harness.Answer{Status: 503, Code: "busy", RetryAfter: ra}, true},
		{http.MethodPost, false, harness.Answer{Status: 429, Code: "rate_limited", RetryAfter: ra}, true},
		// A backing service failed mid-request: the work may be done.
		{http.MethodPost, false, harness.Answer{Status: 503, Code: "unavailable", RetryAfter: ra}, false},
		{http.MethodPost, false, harness.Answer{Status: 0, Message: "timeout"}, false},
		{http.MethodPost, false, harness.Answer{Status: 502}, false},
		{http.MethodPost, false, harness.Answer{Status: 503, Code: "busy"}, false}, // no Retry-After
		{http.MethodPost, false, harness.Answer{Status: 400, Code: "validation", RetryAfter: ra}, false},
		// With an Idempotency-Key the server does it once: retried.
		{http.MethodPost, true, harness.Answer{Status: 503, Code: "unavailable", RetryAfter: ra}, true},
		{http.MethodPost, true, harness.Answer{Status: 0, Message: "timeout"}, true},
		{http.MethodPost, true, harness.Answer{Status: 504, Code: "gateway_timeout"}, true},
		{http.MethodPost, true, harness.Answer{Status: 400, Code: "validation"}, false},
		{http.MethodPost, true, harness.Answer{Status: 500, Code: "internal"}, false},
		{http.MethodGet, false, harness.Answer{Status: 503, Code: "unavailable", RetryAfter: ra}, true},
		{http.MethodGet, false, harness.Answer{Status: 504, Code: "gateway_timeout", RetryAfter: ra}, true},
		{http.MethodGet, false, harness.Answer{Status: 0, Message: "connection reset"}, true},
		{http.MethodGet, false, harness.Answer{Status: 404, Code: "not_found", RetryAfter: ra}, false},
	} {
		if got := staffRetries(tc.method, tc.keyed, tc.a); got != tc.want {
			t.Errorf("staffRetries(%s, keyed %v, %+v) = %v, want %v", tc.method, tc.keyed, tc.a, got, tc.want)
		}
	}
}

func TestStaffPath(t *testing.T) {
	for in, want := range map[string]string{
		"/api/contests/rehearsal/clarifications/17/answer": "/api/contests/rehearsal/clarifications/N/answer",
		"/api/rejudge": "/api/rejudge",
	} {
		if got := staffPath(in); got != want {
			t.Errorf("staffPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// The freeze as played: the contest's freeze is whole minutes of real
// time, so at 40× the shape's hour became 2 minutes, 80 minutes of
// contest time, and the report said "the last 1h0m0s".
func TestFrozenFor(t *testing.T) {
	end := time.Date(2026, 12, 5, 7, 14, 4, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		freeze   time.Duration
		compress float64
		realLen  time.Duration // zero: no freeze recorded
		want     string
	}{
		{"rounded up", time.Hour, 40, 2 * time.Minute, "1h0m0s, as played 1h20m0s: 2m0s of real time at 40×"},
		{"as planned", time.Hour, 30, 2 * time.Minute, "1h0m0s"},
		{"not recorded", time.Hour, 40, 0, "1h0m0s"},
		{"none", 0, 40, 0, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &Report{Config: Config{Compress: tc.compress, Shape: Shape{FreezeLast: tc.freeze}}, EndAt: end}
			if tc.realLen > 0 {
				rep.FreezeAt = end.Add(-tc.realLen)
			}
			if got := rep.FrozenFor(); got != tc.want {
				t.Errorf("FrozenFor() = %q, want %q", got, tc.want)
			}
		})
	}
}

// What the report counts as shed (apart) and as failed.
func TestShedAnswer(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    harness.Answer
		want bool
	}{
		{"busy", harness.Answer{Status: 503, Code: "busy", RetryAfter: 2 * time.Second}, true},
		{"rate limited", harness.Answer{Status: 429, Code: "rate_limited", RetryAfter: time.Second}, true},
		{"nginx's 429", harness.Answer{Status: 429, RetryAfter: time.Second}, true},
		{"unavailable with Retry-After", harness.Answer{Status: 503, Code: "unavailable", RetryAfter: time.Second}, false},
		{"busy without Retry-After", harness.Answer{Status: 503, Code: "busy"}, false},
		{"gateway timeout", harness.Answer{Status: 504, Code: "gateway_timeout", RetryAfter: time.Second}, false},
		{"no answer", harness.Answer{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := shedAnswer(tc.a); got != tc.want {
				t.Errorf("shedAnswer(%+v) = %v, want %v", tc.a, got, tc.want)
			}
		})
	}
}

func TestWriteProfiles(t *testing.T) {
	var b strings.Builder
	writeProfiles(&b, "Heaps", nil)
	if b.Len() != 0 {
		t.Errorf("no profiles wrote %q", b.String())
	}
	writeProfiles(&b, "Heaps", []Profile{{Process: "hub", File: "/tmp/h.pprof", Top: []string{"a", "b"}}, {Process: "web-1", Err: "refused"}})
	want := "\n## Heaps\n\nhub (`/tmp/h.pprof`):\n\n```\na\nb\n```\n\nweb-1: no profile (refused)\n\n"
	if b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

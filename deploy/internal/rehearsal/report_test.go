package rehearsal

import (
	"net/http"
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

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
		a      harness.Answer
		want   bool
	}{
		{http.MethodPost, harness.Answer{Status: 503, Code: "busy", RetryAfter: ra}, true},
		{http.MethodPost, harness.Answer{Status: 429, Code: "rate_limited", RetryAfter: ra}, true},
		// A backing service failed mid-request: the work may be done.
		{http.MethodPost, harness.Answer{Status: 503, Code: "unavailable", RetryAfter: ra}, false},
		{http.MethodPost, harness.Answer{Status: 0, Message: "timeout"}, false},
		{http.MethodPost, harness.Answer{Status: 503, Code: "busy"}, false}, // no Retry-After
		{http.MethodPost, harness.Answer{Status: 400, Code: "validation", RetryAfter: ra}, false},
		{http.MethodGet, harness.Answer{Status: 503, Code: "unavailable", RetryAfter: ra}, true},
		{http.MethodGet, harness.Answer{Status: 504, Code: "gateway_timeout", RetryAfter: ra}, true},
		{http.MethodGet, harness.Answer{Status: 404, Code: "not_found", RetryAfter: ra}, false},
	} {
		if got := staffRetries(tc.method, tc.a); got != tc.want {
			t.Errorf("staffRetries(%s, %+v) = %v, want %v", tc.method, tc.a, got, tc.want)
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

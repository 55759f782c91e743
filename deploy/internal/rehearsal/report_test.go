package rehearsal

import (
	"net/http"
	"slices"
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

// A process a fault ended counts both its lives: before the fault (its
// part before the contest taken off) and after its restart; a summed
// entry (the simulated judges) adds a killed member's life whole, its
// part before the contest being in Before's sum.
func TestProcUseCountsTheLivesAFaultEnded(t *testing.T) {
	s := time.Second
	before := []Proc{
		{Name: "web-1", Pid: 10, CPU: 5 * s, Waited: 2 * s, PeakRSS: 100},
		{Name: "web-2", Pid: 11, CPU: 5 * s, Waited: 2 * s, PeakRSS: 100},
		{Name: "redis", Pid: 12, CPU: 1 * s, PeakRSS: 50},
		{Name: simJudges, CPU: 22 * s, Waited: 10 * s, PeakRSS: 2200},
	}
	gone := []Proc{
		{Name: "web-2", Pid: 11, CPU: 100 * s, Waited: 40 * s, PeakRSS: 300},
		{Name: "redis", Pid: 12, CPU: 4 * s, Waited: 1 * s, PeakRSS: 250},
		{Name: simJudges, Pid: 30, CPU: 3 * s, Waited: 2 * s, PeakRSS: 100},
	}
	after := []Proc{
		{Name: "web-1", Pid: 10, CPU: 205 * s, Waited: 82 * s, PeakRSS: 400},
		{Name: "web-2", Pid: 21, CPU: 10 * s, Waited: 3 * s, PeakRSS: 120},
		{Name: "redis", Pid: 22, CPU: 2 * s, PeakRSS: 300},
		{Name: simJudges, CPU: 90 * s, Waited: 50 * s, PeakRSS: 2300},
		{Name: "hub", Pid: 40, CPU: 7 * s, Waited: 1 * s, PeakRSS: 10}, // not read before: whole
	}
	want := []Proc{
		{Name: "web-1", Pid: 10, CPU: 200 * s, Waited: 80 * s, PeakRSS: 400},
		{Name: "web-2", Pid: 21, CPU: 105 * s, Waited: 41 * s, PeakRSS: 300},
		{Name: "redis", Pid: 22, CPU: 5 * s, Waited: 1 * s, PeakRSS: 300},
		{Name: simJudges, CPU: 71 * s, Waited: 42 * s, PeakRSS: 2300},
		{Name: "hub", Pid: 40, CPU: 7 * s, Waited: 1 * s, PeakRSS: 10},
	}
	if got := procUse(before, gone, after); !slices.Equal(got, want) {
		t.Errorf("procUse =\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseCPUTimes(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     CPUTimes
		err      bool
	}{
		{"a kernel's line", "cpu  4692757 301210 1005553 4138794 14381 0 203192 7824 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n",
			CPUTimes{User: 49939670 * time.Millisecond, System: 10055530 * time.Millisecond, Idle: 41531750 * time.Millisecond,
				IRQ: 2031920 * time.Millisecond, Steal: 78240 * time.Millisecond}, false},
		{"no steal column", "cpu  1 2 3 4 5 6 7\n", CPUTimes{}, true},
		{"not the cpu line", "cpu0 1 2 3 4 5 6 7 8 0 0\n", CPUTimes{}, true},
		{"a counter not a number", "cpu  1 2 x 4 5 6 7 8 0 0\n", CPUTimes{}, true},
		{"empty", "", CPUTimes{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseCPUTimes([]byte(tc.in))
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("parseCPUTimes = %+v, %v; want %+v, error %v", got, err, tc.want, tc.err)
			}
		})
	}
	if m := (CPUTimes{User: 5 * time.Second, Idle: 3 * time.Second, Steal: time.Second}).Sub(CPUTimes{User: 2 * time.Second}); m.Total() != 7*time.Second || m.User != 3*time.Second {
		t.Errorf("Sub = %+v", m)
	}
}

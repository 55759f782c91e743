package rehearsal

import (
	"strings"
	"testing"
	"time"
)

func TestParseAccessLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
		want AccessLine
	}{
		{`127.0.0.5 [2026-12-01T19:43:58+00:00] "GET /api/problems/r-sum?contest=rehearsal HTTP/1.1" 200 912 rt=0.012 upstream=127.0.0.1:8081 ust=200 urt=0.011 "Go-http-client/1.1"`,
			true, AccessLine{Method: "GET", Path: "/api/problems/r-sum?contest=rehearsal", Status: 200, Request: 12 * time.Millisecond, Upstream: 11 * time.Millisecond}},
		{`127.0.0.5 [2026-12-01T19:43:58+00:00] "POST /api/submissions HTTP/1.1" 201 40 rt=0.250 upstream=127.0.0.1:8081, 127.0.0.1:8082 ust=502, 201 urt=0.004, 0.240 "x"`,
			true, AccessLine{Method: "POST", Path: "/api/submissions", Status: 201, Request: 250 * time.Millisecond, Upstream: 240 * time.Millisecond}},
		// nginx answered itself (a 429 from limit_req): no upstream time.
		{`127.1.0.1 [2026-12-01T19:43:58+00:00] "POST /api/session HTTP/1.1" 429 60 rt=0.000 upstream=- ust=- urt=- "x"`,
			true, AccessLine{Method: "POST", Path: "/api/session", Status: 429, Request: 0, Upstream: -1}},
		{`garbage`, false, AccessLine{}},
		{`127.0.0.1 [t] "GET / HTTP/1.1" 200 1 "no timings"`, false, AccessLine{}},
		{`127.0.0.1 [t] "GET / HTTP/1.1" abc 1 rt=0.1`, false, AccessLine{}},
	} {
		got, ok := ParseAccessLine(tc.line)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("ParseAccessLine(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

func TestAccessClass(t *testing.T) {
	for _, tc := range []struct{ method, path, want string }{
		{"POST", "/api/session", ClassLogin},
		{"GET", "/api/contests/rehearsal", ClassContest},
		{"GET", "/api/contests/rehearsal/scoreboard", ClassScoreboard},
		{"GET", "/api/contests/other/scoreboard", ""},
		{"GET", "/api/problems/r-sum?contest=rehearsal", ClassProblem},
		{"GET", "/api/problems/r-sum/assets/x.png", ""},
		{"POST", "/api/submissions", ClassSubmit},
		{"GET", "/api/submissions/123", ClassSubmission},
		{"GET", "/api/submissions", ""},
		{"GET", "/ws", ""},
		{"DELETE", "/api/session", ""},
	} {
		if got := AccessClass(tc.method, tc.path, "rehearsal"); got != tc.want {
			t.Errorf("AccessClass(%s %s) = %q, want %q", tc.method, tc.path, got, tc.want)
		}
	}
}

func TestReadAccessLog(t *testing.T) {
	log := strings.Join([]string{
		`a [t] "GET /api/contests/rehearsal/scoreboard HTTP/1.1" 200 9 rt=0.010 upstream=u ust=200 urt=0.009 "x"`,
		`a [t] "GET /api/contests/rehearsal/scoreboard HTTP/1.1" 200 9 rt=0.030 upstream=u ust=200 urt=0.020 "x"`,
		`a [t] "GET /api/contests/rehearsal/scoreboard HTTP/1.1" 503 9 rt=5.000 upstream=u ust=503 urt=5.000 "x"`,
		`a [t] "GET /ws HTTP/1.1" 101 9 rt=300.000 upstream=u ust=101 urt=300.000 "x"`,
		`a [t] "POST /api/session HTTP/1.1" 200 9 rt=0.100 upstream=u ust=200 urt=0.090 "x"`,
	}, "\n")
	got, err := readAccessLog(strings.NewReader(log), "rehearsal")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Class != ClassLogin || got[1].Class != ClassScoreboard {
		t.Fatalf("classes = %+v, want login then scoreboard", got)
	}
	sb := got[1]
	if sb.Request.N != 2 || sb.Request.Max != 30*time.Millisecond || sb.Upstream.Max != 20*time.Millisecond {
		t.Errorf("scoreboard = %+v: want the two 200s only (max 30 ms, upstream 20 ms)", sb)
	}
}

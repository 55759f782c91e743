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

func TestParseErrorLine(t *testing.T) {
	at := time.Date(2026, 12, 8, 1, 37, 1, 0, time.Local)
	for _, tc := range []struct {
		line             string
		ok               bool
		level, msg, path string
	}{
		{`2026/12/08 01:37:01 [error] 123#123: *4567 recv() failed (104: Connection reset by peer) while proxying upgraded connection, client: 127.2.5.48, server: _, request: "GET /ws HTTP/1.1", upstream: "http://127.0.0.1:4001/ws", host: "127.0.0.1:8080"`,
			true, "error", "recv() failed (104: Connection reset by peer) while proxying upgraded connection", "/ws"},
		{`2026/12/08 01:37:01 [error] 123#123: *12 upstream timed out (110: Connection timed out) while reading response header from upstream, client: 127.1.0.1, server: _, request: "GET /api/problems/r-sum?contest=rehearsal HTTP/1.1", upstream: "http://127.0.0.1:4002/api/problems/r-sum?contest=rehearsal"`,
			true, "error", "upstream timed out (110: Connection timed out) while reading response header from upstream", "/api/problems/r-sum"},
		{`2026/12/08 01:37:01 [warn] 123#123: 4096 worker_connections are not enough`, true, "warn", "4096 worker_connections are not enough", ""},
		{`2026/12/08 01:37:01 [notice] 99#99: signal process started`, true, "notice", "signal process started", ""},
		{`continued line`, false, "", "", ""},
		{`2026/12/08 01:37:01 no level`, false, "", "", ""},
		{`2026-12-08T01:37:01 [error] 1#1: other format`, false, "", "", ""},
	} {
		gotAt, level, msg, path, ok := ParseErrorLine(tc.line)
		if ok != tc.ok || level != tc.level || msg != tc.msg || path != tc.path || (ok && !gotAt.Equal(at)) {
			t.Errorf("ParseErrorLine(%q) = %v %q %q %q %v; want %q %q %q %v", tc.line, gotAt, level, msg, path, ok, tc.level, tc.msg, tc.path, tc.ok)
		}
	}
}

// readErrorLog counts one cause once, whatever its connection, client and
// submission id, the most frequent first; the report's table shows them
// in contest time.
func TestReadErrorLog(t *testing.T) {
	log := strings.Join([]string{
		`2026/12/08 01:37:01 [error] 1#1: *10 recv() failed (104: Connection reset by peer) while proxying upgraded connection, client: 127.2.5.48, server: _, request: "GET /ws HTTP/1.1"`,
		`2026/12/08 01:37:02 [error] 1#1: *11 upstream timed out (110: Connection timed out) while reading response header from upstream, client: 127.2.5.49, server: _, request: "GET /api/submissions/17 HTTP/1.1"`,
		`2026/12/08 01:37:03 [error] 2#2: *99 recv() failed (104: Connection reset by peer) while proxying upgraded connection, client: 127.2.9.1, server: _, request: "GET /ws HTTP/1.1"`,
		`2026/12/08 01:37:04 [error] 1#1: *12 upstream timed out (110: Connection timed out) while reading response header from upstream, client: 127.2.5.50, server: _, request: "GET /api/submissions/2031 HTTP/1.1"`,
		`2026/12/08 01:37:05 [error] 1#1: *13 recv() failed (104: Connection reset by peer) while proxying upgraded connection, client: 127.2.5.48, server: _, request: "GET /ws HTTP/1.1"`,
		`not a line`,
	}, "\n")
	got, err := readErrorLog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	at := func(s int) time.Time { return time.Date(2026, 12, 8, 1, 37, s, 0, time.Local) }
	want := []NginxError{
		{Level: "error", Message: "recv() failed (N: Connection reset by peer) while proxying upgraded connection", Path: "/ws", N: 3, First: at(1), Last: at(5)},
		{Level: "error", Message: "upstream timed out (N: Connection timed out) while reading response header from upstream", Path: "/api/submissions/N", N: 2, First: at(2), Last: at(4)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Level != want[i].Level || got[i].Message != want[i].Message || got[i].Path != want[i].Path || got[i].N != want[i].N ||
			!got[i].First.Equal(want[i].First) || !got[i].Last.Equal(want[i].Last) {
			t.Errorf("kind %d: %+v, want %+v", i, got[i], want[i])
		}
	}

	rep := &Report{Start: at(0), NginxErrors: got, HubDrops: map[string]float64{"slow_consumer": 2, "write_failed": 1}}
	rep.Config.Compress, rep.Config.ArrivalCompress = 40, 4
	var b strings.Builder
	writeServerCloses(&b, rep)
	for _, s := range []string{
		"the hub closed itself, its send queue full or a write failed (`verdict_hub_dropped_clients_total`, whole run): 3 (slow_consumer 2, write_failed 1)",
		"| error | recv() failed (N: Connection reset by peer) while proxying upgraded connection | /ws | 3 | 40s / 3m20s |",
		"5 lines by kind",
	} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the report lacks %q:\n%s", s, b.String())
		}
	}
	b.Reset()
	writeServerCloses(&b, &Report{NginxErrorsErr: "open x: no such file", HubDropsErr: "refused"})
	if s := b.String(); !strings.Contains(s, "could not be read: refused") || !strings.Contains(s, "nginx's error log could not be read: open x: no such file") {
		t.Errorf("the failed reads: %s", s)
	}
}

func TestDroppedClients(t *testing.T) {
	vals := metricValues(strings.NewReader(`# HELP verdict_hub_dropped_clients_total x
verdict_hub_dropped_clients_total{reason="slow_consumer"} 4
verdict_hub_dropped_clients_total{reason="write_failed"} 1
verdict_hub_dropped_clients_totals{reason="other"} 9
verdict_hub_browsers_connected 3000
`))
	got := droppedClients(vals)
	if len(got) != 2 || got["slow_consumer"] != 4 || got["write_failed"] != 1 {
		t.Fatalf("droppedClients = %v", got)
	}
}

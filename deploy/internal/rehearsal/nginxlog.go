package rehearsal

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/bench"
)

// AccessLine is what the rehearsal reads of one line of nginx's access log
// (the edge's `verdict` log_format: `$remote_addr [$time_iso8601]
// "$request" $status $body_bytes_sent rt=$request_time upstream=…
// ust=… urt=$upstream_response_time "$http_user_agent"`).
type AccessLine struct {
	Method, Path string
	Status       int
	// Request is nginx's $request_time; Upstream the web node's answer
	// time ($upstream_response_time; -1 when nginx answered itself).
	Request, Upstream time.Duration
}

// ParseAccessLine parses one access log line; ok is false for a line
// that is not in the format (it is skipped, not an error: nginx may log
// other things).
func ParseAccessLine(s string) (AccessLine, bool) {
	var l AccessLine
	_, rest, ok := strings.Cut(s, `] "`)
	if !ok {
		return l, false
	}
	req, rest, ok := strings.Cut(rest, `" `)
	if !ok {
		return l, false
	}
	f := strings.Fields(req)
	if len(f) < 2 {
		return l, false
	}
	l.Method, l.Path = f[0], f[1]
	fields := strings.Fields(rest)
	if len(fields) < 2 {
		return l, false
	}
	st, err := strconv.Atoi(fields[0])
	if err != nil {
		return l, false
	}
	l.Status = st
	l.Upstream = -1
	seen := false
	for _, kv := range fields[2:] {
		if v, ok := strings.CutPrefix(kv, "rt="); ok {
			d, ok := seconds(v)
			if !ok {
				return l, false
			}
			l.Request, seen = d, true
		}
	}
	if _, v, ok := strings.Cut(rest, " urt="); ok {
		// Several upstreams tried: "0.004, 0.120"; the last one answered.
		v, _, _ = strings.Cut(v, ` "`)
		if i := strings.LastIndexByte(v, ','); i >= 0 {
			v = v[i+1:]
		}
		if d, ok := seconds(strings.TrimSpace(v)); ok {
			l.Upstream = d
		}
	}
	return l, seen
}

func seconds(v string) (time.Duration, bool) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}

// AccessClass names the rehearsal's endpoint class of a request the
// contestants send ("" for the others: staff, judges, WebSockets, static
// files), so nginx's own timings sit beside the generator's.
func AccessClass(method, path, contest string) string {
	p, _, _ := strings.Cut(path, "?")
	p = pathPattern(p)
	switch {
	case method == http.MethodPost && p == "/api/session":
		return ClassLogin
	case method == http.MethodGet && p == "/api/contests/"+contest:
		return ClassContest
	case method == http.MethodGet && p == "/api/contests/"+contest+"/scoreboard":
		return ClassScoreboard
	case method == http.MethodGet && strings.HasPrefix(p, "/api/problems/") && strings.Count(p, "/") == 3:
		return ClassProblem
	case method == http.MethodPost && p == "/api/submissions":
		return ClassSubmit
	case method == http.MethodGet && p == "/api/submissions/{id}":
		return ClassSubmission
	}
	return ""
}

// StackLatency is one class's timings as nginx logged them.
type StackLatency struct {
	Class             string
	Request, Upstream bench.Summary
}

// readAccessLog summarises nginx's timings per class.
func readAccessLog(r io.Reader, contest string) ([]StackLatency, error) {
	req, up := map[string]*bench.Recorder{}, map[string]*bench.Recorder{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l, ok := ParseAccessLine(sc.Text())
		if !ok || l.Status < 200 || l.Status >= 300 {
			continue
		}
		c := AccessClass(l.Method, l.Path, contest)
		if c == "" {
			continue
		}
		if req[c] == nil {
			req[c], up[c] = &bench.Recorder{}, &bench.Recorder{}
		}
		req[c].Add(l.Request)
		if l.Upstream >= 0 {
			up[c].Add(l.Upstream)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("rehearsal: nginx access log: %w", err)
	}
	var out []StackLatency
	for _, c := range classOrder {
		if req[c] != nil {
			out = append(out, StackLatency{Class: c, Request: req[c].Summary(), Upstream: up[c].Summary()})
		}
	}
	return out, nil
}

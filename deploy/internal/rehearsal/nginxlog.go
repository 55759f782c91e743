package rehearsal

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
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

// NginxError is one kind of line of nginx's error log: its level, its
// message and the request's path, what varies in them (connection numbers,
// ports, ids) folded to N, with how many lines said it and the first and
// last of them.
type NginxError struct {
	Level, Message, Path string
	N                    int
	First, Last          time.Time
}

// ParseErrorLine parses one line of nginx's error log, `2026/12/08
// 01:37:01 [error] 123#123: *456 recv() failed (104: Connection reset by
// peer) while proxying upgraded connection, client: …, server: …,
// request: "GET /ws HTTP/1.1", upstream: …`: its time (nginx writes local
// time), its level, its message (up to ", client:") and its request's path
// ("" when it names none). ok is false for a line not in that form (a
// message's continuation).
func ParseErrorLine(s string) (at time.Time, level, msg, path string, ok bool) {
	if len(s) < 20 {
		return time.Time{}, "", "", "", false
	}
	at, err := time.ParseInLocation("2006/01/02 15:04:05", s[:19], time.Local)
	if err != nil {
		return time.Time{}, "", "", "", false
	}
	rest := s[19:]
	lb, rb := strings.IndexByte(rest, '['), strings.IndexByte(rest, ']')
	if lb != 1 || rb < lb {
		return time.Time{}, "", "", "", false
	}
	level, rest = rest[lb+1:rb], rest[rb+1:]
	// "123#123: " (pid#tid), then "*456 " (the connection) if any.
	if i := strings.Index(rest, ": "); i >= 0 && strings.Contains(rest[:i], "#") {
		rest = rest[i+2:]
	}
	if strings.HasPrefix(rest, "*") {
		if i := strings.IndexByte(rest, ' '); i > 0 {
			rest = rest[i+1:]
		}
	}
	msg = rest
	if i := strings.Index(rest, ", client: "); i >= 0 {
		msg = rest[:i]
		if j := strings.Index(rest, `request: "`); j >= 0 {
			req := rest[j+len(`request: "`):]
			if k := strings.IndexByte(req, '"'); k >= 0 {
				req = req[:k]
			}
			if f := strings.Fields(req); len(f) >= 2 {
				path, _, _ = strings.Cut(f[1], "?")
			}
		}
	}
	return at, level, msg, path, true
}

// foldNumbers writes each run of digits of s as N and cuts it at max
// bytes, so that one cause is one row.
func foldNumbers(s string, max int) string {
	var b strings.Builder
	digits := false
	for _, r := range s {
		if r >= '0' && r <= '9' {
			if !digits {
				b.WriteByte('N')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// readErrorLog groups nginx's error log by kind (level, message, path),
// the most frequent first.
func readErrorLog(r io.Reader) ([]NginxError, error) {
	byKind := map[NginxError]*NginxError{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		at, level, msg, path, ok := ParseErrorLine(sc.Text())
		if !ok {
			continue
		}
		k := NginxError{Level: level, Message: foldNumbers(msg, 120), Path: foldNumbers(path, 60)}
		e := byKind[k]
		if e == nil {
			e = &NginxError{Level: k.Level, Message: k.Message, Path: k.Path, First: at}
			byKind[k] = e
		}
		e.N++
		e.Last = at
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("rehearsal: nginx error log: %w", err)
	}
	out := make([]NginxError, 0, len(byKind))
	for _, e := range byKind {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b NginxError) int {
		return cmp.Or(cmp.Compare(b.N, a.N), a.First.Compare(b.First), strings.Compare(a.Message, b.Message), strings.Compare(a.Path, b.Path))
	})
	return out, nil
}

// maxNginxErrorRows bounds the report's table of nginx's error log.
const maxNginxErrorRows = 12

// writeServerCloses is what the servers said of the connections they
// closed or lost: the browser sockets the hub closed itself, by reason,
// and nginx's error log by kind (where a client's reset socket or timeout
// shows from nginx's side: an upstream that reset or timed out, a
// connection nginx could not make).
func writeServerCloses(b *strings.Builder, rep *Report) {
	switch {
	case rep.HubDropsErr != "":
		fmt.Fprintf(b, "The hub's closes of browser sockets could not be read: %s.\n\n", rep.HubDropsErr)
	case rep.HubDrops != nil:
		reasons := slices.Sorted(maps.Keys(rep.HubDrops))
		var parts []string
		total := 0.0
		for _, k := range reasons {
			parts = append(parts, fmt.Sprintf("%s %.0f", k, rep.HubDrops[k]))
			total += rep.HubDrops[k]
		}
		detail := ""
		if len(parts) > 0 {
			detail = " (" + strings.Join(parts, ", ") + ")"
		}
		fmt.Fprintf(b, "Browser sockets the hub closed itself, its send queue full or a write failed (`verdict_hub_dropped_clients_total`, whole run): %.0f%s.\n\n", total, detail)
	}
	if rep.NginxErrorsErr != "" {
		fmt.Fprintf(b, "nginx's error log could not be read: %s.\n\n", rep.NginxErrorsErr)
		return
	}
	total := 0
	for _, e := range rep.NginxErrors {
		total += e.N
	}
	if total == 0 {
		b.WriteString("nginx's error log (level warn and up, whole run): empty.\n\n")
		return
	}
	fmt.Fprintf(b, "nginx's error log (level warn and up, whole run), %d lines by kind (numbers folded to N; first and last in contest time, to the second):\n\n| level | message | request | lines | first / last |\n|---|---|---|---|---|\n", total)
	for i, e := range rep.NginxErrors {
		if i == maxNginxErrorRows {
			rest := 0
			for _, x := range rep.NginxErrors[i:] {
				rest += x.N
			}
			fmt.Fprintf(b, "| | %d more kinds | | %d | |\n", len(rep.NginxErrors)-i, rest)
			break
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s / %s |\n", e.Level, strings.ReplaceAll(e.Message, "|", "/"), strings.ReplaceAll(e.Path, "|", "/"), e.N,
			contestClock(e.First, rep), contestClock(e.Last, rep))
	}
	b.WriteString("\n")
}

package rehearsal

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/bench"
)

// Endpoint classes the report gives latencies for.
const (
	ClassLogin      = "login"
	ClassRegister   = "register"
	ClassContest    = "contest page"
	ClassProblem    = "problem page"
	ClassSubmit     = "submit"
	ClassScoreboard = "scoreboard"
	ClassSubmission = "submission page"
	ClassClarify    = "clarifications"
	ClassSocket     = "websocket open"
	ClassStaff      = "staff"
)

var classOrder = []string{ClassLogin, ClassRegister, ClassContest, ClassProblem, ClassSubmit, ClassScoreboard,
	ClassSubmission, ClassClarify, ClassSocket, ClassStaff}

// Failure is one failed request or frame: what (a class and the request),
// the status (0: a transport error) and the error code or message.
type Failure struct {
	Class, What string
	Status      int
	Code        string
}

// window is a span of real time in which a fault was provoked.
type window struct {
	from, to time.Time
	kind     FaultKind
}

// Metrics collects latencies by class and failures by endpoint and status
// from every contestant goroutine.
type Metrics struct {
	mu      sync.Mutex
	lat     map[string]*bench.Recorder    // from the due time (open loop)
	own     map[string]*bench.Recorder    // from the last try's send: the request's own time
	split   map[string]*[3]bench.Recorder // own time split (reqTrace.parts)
	dialled map[string]int                // requests that needed a new connection
	slow    map[int64]int                 // requests over SlowRequest open loop, by real second
	// timed are the open-loop latencies of the classes in timedClasses by
	// the timedEvery of real time they were due in (its Unix second).
	timed    map[string]map[int64]*bench.Recorder
	fails    map[Failure]int
	provoked map[Failure]int
	shed     map[Failure]int // answered 429/503 with Retry-After and retried, as a browser does
	// seen: when each failure (unexpected or provoked) was first and last
	// seen, for the report.
	seen    map[Failure][2]time.Time
	windows []window
}

func newMetrics() *Metrics {
	m := &Metrics{lat: map[string]*bench.Recorder{}, own: map[string]*bench.Recorder{}, slow: map[int64]int{},
		split: map[string]*[3]bench.Recorder{}, dialled: map[string]int{},
		fails: map[Failure]int{}, provoked: map[Failure]int{}, shed: map[Failure]int{}, seen: map[Failure][2]time.Time{},
		timed: map[string]map[int64]*bench.Recorder{}}
	for _, c := range timedClasses {
		m.timed[c] = map[int64]*bench.Recorder{}
	}
	for _, c := range classOrder {
		m.lat[c], m.own[c], m.split[c] = &bench.Recorder{}, &bench.Recorder{}, &[3]bench.Recorder{}
	}
	return m
}

// okTraced is ok for a request traced by tr: its own time is split too.
func (m *Metrics) okTraced(class string, due, sent time.Time, tr *reqTrace) {
	m.ok(class, due, sent)
	conn, server, rest, reused, ok := tr.parts(time.Now())
	if !ok {
		return
	}
	sp := m.split[class]
	sp[0].Add(conn)
	sp[1].Add(server)
	sp[2].Add(rest)
	if !reused {
		m.mu.Lock()
		m.dialled[class]++
		m.mu.Unlock()
	}
}

// SplitSummary is one class's own time split: getting a connection, the
// request written → the first byte of the answer, the rest; Dialled of N
// requests needed a new connection.
type SplitSummary struct {
	Class              string
	Conn, Server, Rest bench.Summary
	Dialled            int
}

func (m *Metrics) splits() []SplitSummary {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []SplitSummary
	for _, c := range classOrder {
		sp := m.split[c]
		if s := sp[1].Summary(); s.N > 0 {
			out = append(out, SplitSummary{Class: c, Conn: sp[0].Summary(), Server: s, Rest: sp[2].Summary(), Dialled: m.dialled[c]})
		}
	}
	return out
}

// SlowRequest is the open-loop latency over which a request is counted in
// the report's timeline of slow requests (the page goal).
const SlowRequest = 300 * time.Millisecond

// ok records a request that succeeded: from its due time (open loop: what
// the user waited, the generator's own lateness included) and from sent,
// when the try that succeeded left the client (the request's own time).
func (m *Metrics) ok(class string, due, sent time.Time) {
	now := time.Now()
	m.lat[class].Add(now.Sub(due))
	m.own[class].Add(now.Sub(sent))
	if now.Sub(due) > SlowRequest {
		m.mu.Lock()
		m.slow[due.Unix()]++
		m.mu.Unlock()
	}
	if byWindow, ok := m.timed[class]; ok {
		w := due.Truncate(timedEvery).Unix()
		m.mu.Lock()
		rec := byWindow[w]
		if rec == nil {
			rec = &bench.Recorder{}
			byWindow[w] = rec
		}
		m.mu.Unlock()
		rec.Add(now.Sub(due))
	}
}

// timedClasses are the classes whose latencies the report gives by the
// timedEvery of real time they were due in: the login window's, whose
// tails the run-wide figures do not place.
var timedClasses = []string{ClassLogin, ClassRegister}

// timedEvery is the span of real time of one row of those timelines.
const timedEvery = 30 * time.Second

// TimedSummary is one class's latencies due in one timedEvery of real
// time from At.
type TimedSummary struct {
	Class string
	At    time.Time
	bench.Summary
}

// timeline is the timed classes' latencies by window, in class and time
// order.
func (m *Metrics) timeline() []TimedSummary {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []TimedSummary
	for _, c := range timedClasses {
		var at []int64
		for w := range m.timed[c] {
			at = append(at, w)
		}
		slices.Sort(at)
		for _, w := range at {
			out = append(out, TimedSummary{Class: c, At: time.Unix(w, 0), Summary: m.timed[c][w].Summary()})
		}
	}
	return out
}

// provoke marks [from, from+d) as the aftermath of a fault: failures in it
// are listed as provoked.
func (m *Metrics) provoke(kind FaultKind, from time.Time, d time.Duration) {
	m.mu.Lock()
	m.windows = append(m.windows, window{from: from, to: from.Add(d), kind: kind})
	m.mu.Unlock()
}

// fail records a failure at time at (the time it was seen).
func (m *Metrics) fail(f Failure, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.seen[f]; !ok {
		m.seen[f] = [2]time.Time{at, at}
	} else {
		m.seen[f] = [2]time.Time{minTime(s[0], at), maxTime(s[1], at)}
	}
	for _, w := range m.windows {
		if !at.Before(w.from) && at.Before(w.to) {
			m.provoked[f]++
			return
		}
	}
	m.fails[f]++
}

// retried records a 429/503 the client retried after Retry-After.
func (m *Metrics) retried(f Failure) {
	m.mu.Lock()
	m.shed[f]++
	m.mu.Unlock()
}

// ClassSummary is one row of the latency table.
type ClassSummary struct {
	Class string
	bench.Summary
}

// FailureCount is one row of a failure table.
type FailureCount struct {
	Failure
	N int
	// First and Last are when it was first and last seen (zero for the
	// shed, which are not failures).
	First, Last time.Time
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (m *Metrics) summaries() (open, own []ClassSummary) {
	for _, c := range classOrder {
		if s := m.lat[c].Summary(); s.N > 0 {
			open = append(open, ClassSummary{Class: c, Summary: s})
			own = append(own, ClassSummary{Class: c, Summary: m.own[c].Summary()})
		}
	}
	return open, own
}

// SlowSecond is one second of real time and the requests due in it that
// took over SlowRequest.
type SlowSecond struct {
	At time.Time
	N  int
}

// slowest returns the n seconds with the most slow requests, busiest
// first, and the total of slow requests.
func (m *Metrics) slowest(n int) ([]SlowSecond, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []SlowSecond
	total := 0
	for s, k := range m.slow {
		out = append(out, SlowSecond{At: time.Unix(s, 0), N: k})
		total += k
	}
	slices.SortFunc(out, func(a, b SlowSecond) int { return cmp.Or(-cmp.Compare(a.N, b.N), a.At.Compare(b.At)) })
	return out[:min(n, len(out))], total
}

func counts(m map[Failure]int, seen map[Failure][2]time.Time) []FailureCount {
	var out []FailureCount
	for f, n := range m {
		s := seen[f]
		out = append(out, FailureCount{Failure: f, N: n, First: s[0], Last: s[1]})
	}
	slices.SortFunc(out, func(a, b FailureCount) int {
		return cmp.Or(-cmp.Compare(a.N, b.N), cmp.Compare(a.Class, b.Class), cmp.Compare(a.What, b.What),
			cmp.Compare(a.Status, b.Status), cmp.Compare(a.Code, b.Code))
	})
	return out
}

func (m *Metrics) failures() (unexpected, provoked, shed []FailureCount) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return counts(m.fails, m.seen), counts(m.provoked, m.seen), counts(m.shed, nil)
}

func (f Failure) String() string {
	s := f.Class + " " + f.What
	if f.Status != 0 {
		s += fmt.Sprintf(" → %d", f.Status)
	} else {
		s += " → transport error"
	}
	if f.Code != "" {
		s += " " + f.Code
	}
	return s
}

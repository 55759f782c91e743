package rehearsal

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
)

// hist is a cumulative histogram over bounds 0.01 and 0.1 s.
func hist(within10ms, within100ms, all, sum float64) obs.Histogram {
	return obs.Histogram{Bounds: []float64{0.01, 0.1}, Counts: []float64{within10ms, within100ms, all}, Sum: sum, Count: all}
}

func TestCommandTimes(t *testing.T) {
	a := map[string]obs.Histogram{"get": hist(10, 10, 10, 0.05), "script:queue.complete": hist(5, 5, 5, 0.02), "gone": hist(1, 1, 1, 1)}
	b := map[string]obs.Histogram{
		"get":                   hist(110, 110, 110, 0.25), // 100 calls, 0.2 s
		"script:queue.complete": hist(5, 7, 9, 1.02),       // 4 calls, 1 s, 2 over 100 ms
		"hgetall":               hist(0, 0, 3, 3),          // new: 3 calls, 3 s, all over 100 ms
		"idle":                  hist(2, 2, 2, 0.001),      // none in the span
		"restarted":             {Bounds: []float64{0.01, 0.1}, Counts: []float64{1, 1, 1}, Sum: 0.5, Count: 1},
		"xreadgroup:block":      hist(0, 0, 40, 60), // the most time, all of it a block: listed last
		"xread:block":           hist(0, 0, 1, 0.1),
	}
	a["idle"] = hist(2, 2, 2, 0.001)
	a["restarted"] = hist(9, 9, 9, 9) // went down: counted from zero
	got := commandTimes(a, b, 0)
	want := []CommandTime{
		{Command: "hgetall", Calls: 3, Sec: 3, Over100ms: 3, P99: math.Inf(1), LastBound: 0.1},
		{Command: "script:queue.complete", Calls: 4, Sec: 1, Over100ms: 2, P99: math.Inf(1)},
		{Command: "restarted", Calls: 1, Sec: 0.5, Over100ms: 0, P99: 0.01},
		{Command: "get", Calls: 100, Sec: 0.2, Over100ms: 0, P99: 0.01},
		{Command: "xreadgroup:block", Calls: 40, Sec: 60, Over100ms: 40, P99: math.Inf(1)},
		{Command: "xread:block", Calls: 1, Sec: 0.1, Over100ms: 1, P99: math.Inf(1)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Command != w.Command || g.Calls != w.Calls || math.Abs(g.Sec-w.Sec) > 1e-9 || g.Over100ms != w.Over100ms || g.P99 != w.P99 {
			t.Errorf("%d: %+v, want %+v", i, g, w)
		}
	}
	// The blocking reads take no place among the top 2; they follow them.
	if top := commandTimes(a, b, 2); len(top) != 4 || top[0].Command != "hgetall" || top[1].Command != "script:queue.complete" ||
		top[2].Command != "xreadgroup:block" || top[3].Command != "xread:block" {
		t.Errorf("top 2: %+v", top)
	}
	if all := commandTimes(nil, b, 0); len(all) != 7 || all[0].Calls != 3 {
		t.Errorf("from zero: %+v", all)
	}
}

func TestPoolWindows(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 19, 0, 0, 0, time.UTC)
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * latencyEvery) }
	wake := func(n, sum float64) obs.Histogram { return obs.Histogram{Sum: sum, Count: n} }
	samples := []hubSample{
		{at: at(0), poolWaits: 0, poolWaitSec: 0, wake: wake(10, 0.01)},
		{at: at(1), poolWaits: 2, poolWaitSec: 0.4, wake: wake(20, 0.11), mem: MemReading{Browsers: 3000},
			cmds: map[string]obs.Histogram{"get": hist(0, 2, 2, 0.4)}},
		{at: at(2), poolWaits: 2, poolWaitSec: 0.4, wake: wake(30, 0.12), // no wait
			cmds: map[string]obs.Histogram{"get": hist(0, 2, 2, 0.4)}},
		{at: at(3), poolWaits: 12, poolWaitSec: 3.4, wake: wake(30, 0.12), gateWaits: 40, gateWaitSec: 8, // no wake
			cmds: map[string]obs.Histogram{"get": hist(0, 4, 8, 3.2), "script:queue.complete": hist(0, 0, 1, 0.1)}},
		{at: at(4), poolWaits: 1, poolWaitSec: 0.05, wake: wake(1, 0.002)}, // restarted
	}
	got, read, waited := poolWindows(samples)
	if read != 4 || waited != 3 || len(got) != 3 {
		t.Fatalf("read %d, waited %d, kept %+v; want 4, 3 and 3", read, waited, got)
	}
	if w := got[0]; !w.From.Equal(at(2)) || w.Waits != 10 || math.Abs(w.WaitSec-3) > 1e-9 || w.WakeMs != -1 ||
		len(w.Top) != 2 || w.Top[0].Command != "get" || w.Top[0].Calls != 6 {
		t.Errorf("the longest window: %+v", w)
	}
	if w := got[1]; !w.From.Equal(at(0)) || w.Waits != 2 || math.Abs(w.WakeMs-10) > 1e-9 || w.Browsers != 3000 {
		t.Errorf("the second: %+v", w)
	}
	if w := got[2]; !w.From.Equal(at(3)) || w.Waits != 1 || math.Abs(w.WakeMs-2) > 1e-9 {
		t.Errorf("the restarted hub's window: %+v", w)
	}
	var many []hubSample
	for i := range 20 {
		many = append(many, hubSample{at: at(i), poolWaits: float64(i), poolWaitSec: float64(i * i)})
	}
	if kept, read, waited := poolWindows(many); len(kept) != poolWindowsKept || read != 19 || waited != 19 || !kept[0].From.Equal(at(18)) {
		t.Errorf("20 readings: kept %d from %v, read %d, waited %d", len(kept), kept[0].From, read, waited)
	}
	if kept, read, _ := poolWindows(nil); kept != nil || read != 0 {
		t.Errorf("no readings: %v, %d", kept, read)
	}

	rep := &Report{Start: at(1), Config: Config{Compress: 10, ArrivalCompress: 4}, Submitted: 100,
		PoolWindows: got, PoolWindowsRead: read, PoolWindowsWaited: waited,
		Pools: []Pool{{Process: "hub", Commands: commandTimes(nil, samples[3].cmds, 0)}, {Process: "web-1", CommandsErr: "bad metrics"}}}
	var b strings.Builder
	writePoolWindows(&b, rep)
	writeCommandTimes(&b, rep)
	for _, s := range []string{
		"3 of 4 windows had one",
		"| 50s | 10 | 3.0 | 300 | – | 0 | 40 (8.0) | `get`: 6, 466.7 ms; `script:queue.complete`: 1, 100.0 ms |",
		"| -20s | 2 | 0.4 | 200 | 10 | 3000 | 0 (0.0) | `get`: 2, 200.0 ms |",
		"| hub | `get` | 8 | 0.1 | 3.2 | 400.00 | > 100 | 4 |",
		"| web-1 | bad metrics |",
	} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the report lacks %q:\n%s", s, b.String())
		}
	}
	var none strings.Builder
	writePoolWindows(&none, &Report{})
	writeCommandTimes(&none, &Report{Pools: []Pool{{Process: "hub"}}})
	if none.Len() != 0 {
		t.Errorf("nothing read, yet: %q", none.String())
	}
}

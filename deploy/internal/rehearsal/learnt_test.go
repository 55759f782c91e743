package rehearsal

import (
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// The hub's learnt estimates go into the trace at each reading that had
// them, by time since the start; readings before it collapse to one at 0.
func TestLearntSeries(t *testing.T) {
	start := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	reading := func(sec int, warm, cold, fetch float64) hubSample {
		return hubSample{at: start.Add(time.Duration(sec) * time.Second),
			learnt: learntReading{schedtrace.Learnt{WarmMs: warm, ColdMs: cold, FetchMs: fetch}, true}}
	}
	got := learntSeries([]hubSample{
		reading(-10, 1, 2, 1),
		reading(-5, 3, 4, 1),
		{at: start.Add(2 * time.Second)}, // the hub exported none
		reading(5, 10, 50, 40),
		reading(10, 12, 60, 48),
	}, start)
	want := []schedtrace.Learnt{{AtMs: 0, WarmMs: 3, ColdMs: 4, FetchMs: 1}, {AtMs: 5000, WarmMs: 10, ColdMs: 50, FetchMs: 40},
		{AtMs: 10000, WarmMs: 12, ColdMs: 60, FetchMs: 48}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if got := learntSeries([]hubSample{{at: start}}, start); got != nil {
		t.Fatalf("no readings: %+v", got)
	}
}

// The report's table holds each window's last reading, and the means.
func TestWriteLearnt(t *testing.T) {
	pair := func(at int64, hubFetch, simFetch float64) schedtrace.LearntPair {
		return schedtrace.LearntPair{Hub: schedtrace.Learnt{AtMs: at, WarmMs: 20, ColdMs: 20 + hubFetch, FetchMs: hubFetch},
			Sim: schedtrace.Learnt{AtMs: at, WarmMs: 10, ColdMs: 10 + simFetch, FetchMs: simFetch}}
	}
	var b strings.Builder
	writeLearnt(&b, []schedtrace.LearntPair{pair(0, 0, 0), pair(5000, 90, 30), pair(30000, 120, 60), pair(35000, 150, 90)}, 30000, 40)
	out := b.String()
	for _, want := range []string{
		"| 5s (3m0s) | 20 / 110 / 90 | 10 / 40 / 30 | +60 | – | – |",
		"| 35s (23m0s) | 20 / 170 / 150 | 10 / 100 / 90 | +60 | – | – |",
		"Over all 4 readings the hub's fetch was 90 ms on average, the simulator's 45 ms (the hub's 2.00× the simulator's)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, not := range []string{"| 0s (0s)", "| 30s (20m0s)"} {
		if strings.Contains(out, not) {
			t.Errorf("%q is not its window's last reading:\n%s", not, out)
		}
	}
	// Nothing cold on either side: nothing learnt of downloads, said so.
	b.Reset()
	writeLearnt(&b, []schedtrace.LearntPair{{Hub: schedtrace.Learnt{AtMs: 0}}, {Hub: schedtrace.Learnt{AtMs: 5000, WarmMs: 340, SpeedLo: 0.8, SpeedHi: 1.2},
		Sim: schedtrace.Learnt{AtMs: 5000, WarmMs: 30, SpeedLo: 0.9, SpeedHi: 1.08}}}, 30000, 40)
	out = b.String()
	for _, want := range []string{"| 5s (3m0s) | 340 / – / – | 30 / – / – | +0 | 0.80–1.20 | 0.90–1.08 |", "Neither side placed a task on a judge that lacked its data",
		"The warm overhead, where both had one, was 340 ms on the hub's side and 30 ms on the simulator's on average over 1 readings",
		"spread by 1.500× on the hub's side and 1.200× on the simulator's (highest ÷ lowest, the mean over 1 readings)"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	b.Reset()
	writeLearnt(&b, nil, 30000, 40)
	if b.Len() != 0 {
		t.Fatalf("no readings wrote %q", b.String())
	}
}

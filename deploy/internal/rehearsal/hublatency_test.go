package rehearsal

import (
	"slices"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

func TestLatencyWindows(t *testing.T) {
	start := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	at := secondsAfter(start)
	// passSum/msgSum in s, cumulative, as the hub's histograms count.
	sample := func(s, passSum, passN, msgSum, msgN float64) hubSample {
		return hubSample{at: at(s), pass: obs.Histogram{Sum: passSum, Count: passN}, slot: obs.Histogram{Sum: msgSum, Count: msgN}}
	}
	// The wake histogram's sum (s) and count, cumulative.
	woken := func(h hubSample, sum, n float64) hubSample {
		h.wake = obs.Histogram{Sum: sum, Count: n}
		return h
	}
	// The idle passes' histogram: bounds 1 ms and 10 ms, cumulative.
	idle := func(h hubSample, sum float64, counts ...float64) hubSample {
		h.idle = obs.Histogram{Bounds: []float64{0.001, 0.01}, Counts: counts, Sum: sum, Count: counts[len(counts)-1]}
		return h
	}
	// The notices' histogram: bounds 1 ms and 5 ms, cumulative.
	noticed := func(h hubSample, sum float64, counts ...float64) hubSample {
		h.notice = obs.Histogram{Bounds: []float64{0.001, 0.005}, Counts: counts, Sum: sum, Count: counts[len(counts)-1]}
		return h
	}
	// With buckets: pass bounds 1 ms and 100 ms, message bound 10 ms.
	bucketed := func(s float64, pass, msg []float64) hubSample {
		h := sample(s, 0, 0, 0, 0)
		h.pass.Bounds, h.pass.Counts = []float64{0.001, 0.1}, pass
		h.pass.Count = pass[len(pass)-1]
		h.pass.Sum = 0.0005 * h.pass.Count
		h.slot.Bounds, h.slot.Counts = []float64{0.01}, msg
		h.slot.Count = msg[len(msg)-1]
		h.slot.Sum = 0.002 * h.slot.Count
		return h
	}
	for _, tc := range []struct {
		name    string
		samples []hubSample
		want    []schedtrace.LatencyWindow
	}{
		{"none", nil, nil},
		{"one reading", []hubSample{sample(0, 1, 10, 1, 10)}, nil},
		{"before the start: only the last, from 0", []hubSample{
			sample(-10, 0, 0, 0, 0), sample(-5, 0.1, 10, 0.2, 10), sample(-1, 0.2, 20, 0.4, 20), sample(4, 0.5, 30, 1.4, 30),
		}, []schedtrace.LatencyWindow{{AtMs: 0, PassMs: 30, ResultMs: 100}}},
		{"windows of their own means", []hubSample{
			sample(0, 0, 0, 0, 0), sample(5, 0.05, 10, 0.1, 100), sample(10, 2.05, 20, 30.1, 200),
		}, []schedtrace.LatencyWindow{{AtMs: 0, PassMs: 5, ResultMs: 1}, {AtMs: 5000, PassMs: 200, ResultMs: 300}}},
		{"a quiet window takes the run-wide means", []hubSample{
			sample(0, 1, 10, 1, 10), sample(5, 1, 10, 1, 10),
		}, []schedtrace.LatencyWindow{{AtMs: 0, PassMs: 33, ResultMs: 119}}},
		{"a restarted hub counts from zero", []hubSample{
			sample(0, 5, 100, 5, 100), sample(5, 0.1, 2, 0.3, 3),
		}, []schedtrace.LatencyWindow{{AtMs: 0, PassMs: 50, ResultMs: 100}}},
		{"clamped to the trace's bound", []hubSample{
			sample(0, 0, 0, 0, 0), sample(5, 90, 1, 0, 0),
		}, []schedtrace.LatencyWindow{{AtMs: 0, PassMs: 60000, ResultMs: 119}}},
		{"histograms of each window's own", []hubSample{
			bucketed(0, []float64{1, 1, 1}, []float64{0, 0}), bucketed(5, []float64{4, 6, 9}, []float64{3, 3}),
			bucketed(10, []float64{4, 6, 9}, []float64{3, 5}),
		}, []schedtrace.LatencyWindow{
			{AtMs: 0, PassMs: 0.5, ResultMs: 2,
				PassHist:   &schedtrace.Hist{BoundsMs: []float64{1, 100}, Counts: []int64{3, 2, 3}},
				ResultHist: &schedtrace.Hist{BoundsMs: []float64{10}, Counts: []int64{3, 0}}},
			{AtMs: 5000, PassMs: 33, ResultMs: 2, ResultHist: &schedtrace.Hist{BoundsMs: []float64{10}, Counts: []int64{0, 2}}},
		}},
		{"the dispatcher's wake, 0 when it did not wake", []hubSample{
			woken(sample(0, 0, 0, 0, 0), 0, 0), woken(sample(5, 0.05, 10, 0.1, 100), 0.2, 10), woken(sample(10, 0.1, 20, 0.2, 200), 0.2, 10),
		}, []schedtrace.LatencyWindow{{AtMs: 0, PassMs: 5, ResultMs: 1, WakeMs: 20}, {AtMs: 5000, PassMs: 5, ResultMs: 1}}},
		{"idle passes of each window's own, none when there were none", []hubSample{
			idle(sample(0, 0, 0, 0, 0), 0, 0, 0, 0), idle(sample(5, 0.05, 10, 0.1, 100), 0.04, 2, 5, 8),
			idle(sample(10, 0.1, 20, 0.2, 200), 0.04, 2, 5, 8), idle(sample(15, 0.1, 20, 0.2, 200), 0.14, 2, 6, 10),
		}, []schedtrace.LatencyWindow{
			{AtMs: 0, PassMs: 5, ResultMs: 1, IdleMs: 5, IdleHist: &schedtrace.Hist{BoundsMs: []float64{1, 10}, Counts: []int64{2, 3, 3}}},
			{AtMs: 5000, PassMs: 5, ResultMs: 1},
			{AtMs: 10000, PassMs: 33, ResultMs: 119, IdleMs: 50, IdleHist: &schedtrace.Hist{BoundsMs: []float64{1, 10}, Counts: []int64{0, 1, 1}}},
		}},
		{"a restarted hub's idle passes count from zero", []hubSample{
			idle(sample(0, 0.1, 10, 0.1, 100), 1, 10, 20, 30), idle(sample(5, 0.2, 20, 0.2, 200), 0.003, 1, 1, 1),
		}, []schedtrace.LatencyWindow{{AtMs: 0, PassMs: 10, ResultMs: 1, IdleMs: 3, IdleHist: &schedtrace.Hist{BoundsMs: []float64{1, 10}, Counts: []int64{1, 0, 0}}}}},
		{"enqueues' notices of each window's own, none when there were none", []hubSample{
			noticed(sample(0, 0, 0, 0, 0), 0, 0, 0, 0), noticed(sample(5, 0.05, 10, 0.1, 100), 0.012, 3, 5, 6),
			noticed(sample(10, 0.1, 20, 0.2, 200), 0.012, 3, 5, 6),
		}, []schedtrace.LatencyWindow{
			{AtMs: 0, PassMs: 5, ResultMs: 1, NoticeMs: 2, NoticeHist: &schedtrace.Hist{BoundsMs: []float64{1, 5}, Counts: []int64{3, 2, 1}}},
			{AtMs: 5000, PassMs: 5, ResultMs: 1},
		}},
		{"a restarted hub's notices count from zero", []hubSample{
			noticed(sample(0, 0.1, 10, 0.1, 100), 1, 10, 20, 30), noticed(sample(5, 0.2, 20, 0.2, 200), 0.004, 0, 1, 1),
		}, []schedtrace.LatencyWindow{{AtMs: 0, PassMs: 10, ResultMs: 1, NoticeMs: 4, NoticeHist: &schedtrace.Hist{BoundsMs: []float64{1, 5}, Counts: []int64{0, 1, 0}}}}},
		{"a restarted hub's histograms count from zero", []hubSample{
			bucketed(0, []float64{50, 60, 70}, []float64{5, 5}), bucketed(5, []float64{1, 1, 2}, []float64{0, 1}),
		}, []schedtrace.LatencyWindow{{AtMs: 0, PassMs: 0.5, ResultMs: 2,
			PassHist:   &schedtrace.Hist{BoundsMs: []float64{1, 100}, Counts: []int64{1, 0, 1}},
			ResultHist: &schedtrace.Hist{BoundsMs: []float64{10}, Counts: []int64{0, 1}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := latencyWindows(tc.samples, start, 33, 119)
			if !slices.EqualFunc(got, tc.want, func(a, b schedtrace.LatencyWindow) bool {
				return a.AtMs == b.AtMs && near(a.PassMs, b.PassMs) && near(a.ResultMs, b.ResultMs) && near(a.WakeMs, b.WakeMs) &&
					sameHist(a.PassHist, b.PassHist) && sameHist(a.ResultHist, b.ResultHist) && sameHist(a.WakeHist, b.WakeHist) &&
					near(a.IdleMs, b.IdleMs) && sameHist(a.IdleHist, b.IdleHist) &&
					near(a.NoticeMs, b.NoticeMs) && sameHist(a.NoticeHist, b.NoticeHist)
			}) {
				t.Fatalf("latencyWindows = %+v, want %+v", got, tc.want)
			}
			// What it makes is a valid trace's.
			tr := schedtrace.Trace{Judges: []schedtrace.Judge{{ID: "a", Slots: 1, Speed: 1}}, Latency: got}
			if err := tr.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func sameHist(a, b *schedtrace.Hist) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.Equal(a.BoundsMs, b.BoundsMs) && slices.Equal(a.Counts, b.Counts)
}

func TestHistBetween(t *testing.T) {
	b := obs.Histogram{Bounds: []float64{0.5, 1}, Counts: []float64{2, 5, 6}, Count: 6}
	for _, tc := range []struct {
		name string
		a, b obs.Histogram
		want *schedtrace.Hist
	}{
		{"from nothing", obs.Histogram{}, b, &schedtrace.Hist{BoundsMs: []float64{500, 1000}, Counts: []int64{2, 3, 1}}},
		{"nothing counted", b, b, nil},
		{"no buckets", obs.Histogram{}, obs.Histogram{Count: 3, Sum: 1}, nil},
		{"buckets changed", obs.Histogram{Bounds: []float64{0.5}, Counts: []float64{1, 1}}, b, nil},
		{"a bound past 60 s", obs.Histogram{}, obs.Histogram{Bounds: []float64{61}, Counts: []float64{1, 1}}, nil},
	} {
		if got := histBetween(tc.a, tc.b); !sameHist(got, tc.want) {
			t.Errorf("%s: histBetween = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func near(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 }

// secondsAfter is a test's clock: the time s seconds after start.
func secondsAfter(start time.Time) func(s float64) time.Time {
	return func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
}

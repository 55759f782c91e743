package rehearsal

import (
	"slices"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/schedtrace"
)

func TestLatencyWindows(t *testing.T) {
	start := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	// passSum/msgSum in s, cumulative, as the hub's histograms count.
	sample := func(s, passSum, passN, msgSum, msgN float64) hubSample {
		return hubSample{at: at(s), passSum: passSum, passN: passN, msgSum: msgSum, msgN: msgN}
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := latencyWindows(tc.samples, start, 33, 119)
			if !slices.EqualFunc(got, tc.want, func(a, b schedtrace.LatencyWindow) bool {
				return a.AtMs == b.AtMs && near(a.PassMs, b.PassMs) && near(a.ResultMs, b.ResultMs)
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

func near(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 }

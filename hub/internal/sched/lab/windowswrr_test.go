package lab

import (
	"math"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
)

// feedWindow reports n results of run time run on judge id at now.
func feedWindow(w *WindowSWRR, now time.Time, id string, n int, run time.Duration, failed int) {
	for range n {
		w.Observe(now, sched.Outcome{Judge: id, Run: run})
	}
	for range failed {
		w.Observe(now, sched.Outcome{Judge: id, Failed: true})
	}
}

func TestWindowSWRRWeights(t *testing.T) {
	tests := []struct {
		name  string
		cores []int
		// learn reports results during the first window (judge index →
		// results of run time run, failures).
		learn map[int][3]int // results, run ms, failed
		want  []int          // picks per judge over 90 tasks after the window (±1: SWRR's phase)
	}{
		{"before any result the weights are the slots", []int{4, 2}, nil, []int{60, 30}},
		{"a judge twice as fast gets twice the share", []int{2, 2},
			map[int][3]int{0: {10, 500, 0}, 1: {10, 1000, 0}}, []int{60, 30}},
		{"an unmeasured judge takes the mean rate", []int{2, 2, 2},
			map[int][3]int{0: {10, 500, 0}, 1: {10, 1000, 0}}, []int{40, 20, 30}},
		{"failures lower the weight by the success ratio", []int{2, 2},
			map[int][3]int{0: {10, 1000, 0}, 1: {10, 1000, 10}}, []int{60, 30}},
		{"the slots multiply the rate", []int{4, 2},
			map[int][3]int{0: {10, 1000, 0}, 1: {10, 500, 0}}, []int{45, 45}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := NewWindowSWRR(10 * time.Second)
			js := judgesOf(tc.cores...)
			w.Pick(t0, sched.Task{Language: "cpp"}, js) // opens the first window
			for i, l := range tc.learn {
				feedWindow(w, t0.Add(time.Second), js[i].ID, l[0], time.Duration(l[1])*time.Millisecond, l[2])
			}
			got := make([]int, len(js))
			for k := range 90 {
				d := w.Pick(t0.Add(10*time.Second+time.Duration(k)*time.Millisecond), sched.Task{Language: "cpp"}, js)
				if d.Judge < 0 {
					t.Fatalf("held: %+v", d)
				}
				got[d.Judge]++
			}
			for i := range got {
				if got[i] < tc.want[i]-1 || got[i] > tc.want[i]+1 {
					t.Fatalf("picks %v, want %v (weights %v, %v)", got, tc.want, w.Weight(&js[0]), w.Weight(&js[1]))
				}
			}
		})
	}
}

func TestWindowSWRRStandsStillWithinAWindow(t *testing.T) {
	w := NewWindowSWRR(10 * time.Second)
	js := judgesOf(2, 2)
	w.Pick(t0, sched.Task{Language: "cpp"}, js)
	feedWindow(w, t0.Add(time.Second), "j0", 10, 100*time.Millisecond, 0)
	feedWindow(w, t0.Add(time.Second), "j1", 10, time.Second, 0)
	if a, b := w.Weight(&js[0]), w.Weight(&js[1]); a != b {
		t.Fatalf("weights moved inside the window: %v, %v", a, b)
	}
	w.Pick(t0.Add(11*time.Second), sched.Task{Language: "cpp"}, js)
	if a, b := w.Weight(&js[0]), w.Weight(&js[1]); math.Abs(a-10*b) > 1e-9 {
		t.Fatalf("after the window: %v, %v, want 10:1", a, b)
	}
	// The next window's statistics are averaged in with step 0.5.
	feedWindow(w, t0.Add(12*time.Second), "j0", 10, time.Second, 0)
	w.Pick(t0.Add(21*time.Second), sched.Task{Language: "cpp"}, js)
	if got := w.Weight(&js[0]); math.Abs(got-2*(10+0.5*(1-10))) > 1e-9 {
		t.Fatalf("averaged weight %v", got)
	}
}

func TestWindowSWRROverloadProtection(t *testing.T) {
	tests := []struct {
		name string
		js   func() []sched.Judge
		want int
		hold sched.Hold
	}{
		{"an overloaded judge is skipped", func() []sched.Judge {
			js := judgesOf(8, 2)
			js[0].Load1 = 13
			return js
		}, 1, sched.HoldNone},
		{"a reported local queue over 3 is skipped", func() []sched.Judge {
			js := judgesOf(8, 2)
			js[0].Queued = 4
			return js
		}, 1, sched.HoldNone},
		{"the caller's own count beyond the slots is a local queue", func() []sched.Judge {
			js := judgesOf(8, 2)
			js[0].Assigned = 12
			return js
		}, 1, sched.HoldNone},
		{"every judge skipped: held as busy", func() []sched.Judge {
			js := judgesOf(8, 2)
			js[0].Load1, js[1].Queued = 13, 4
			return js
		}, -1, sched.HoldBusy},
		{"no judge runs the language", func() []sched.Judge {
			js := judgesOf(8)
			js[0].Languages = []string{"py3"}
			return js
		}, -1, sched.HoldNoJudge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := NewWindowSWRR(0)
			js := tc.js()
			for k := range 5 {
				d := w.Pick(t0.Add(time.Duration(k)*time.Millisecond), sched.Task{Language: "cpp"}, js)
				if d.Judge != tc.want || (tc.want < 0 && d.Hold != tc.hold) {
					t.Fatalf("pick %d: %+v, want judge %d hold %v", k, d, tc.want, tc.hold)
				}
			}
		})
	}
}

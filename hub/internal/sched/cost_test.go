package sched

import (
	"math"
	"testing"
	"time"
)

func TestCostModelLearnsWorkAndFetch(t *testing.T) {
	// The policy records whether each placement found the data; the
	// results' overhead (latency − run) when it did not, less the overhead
	// when it did, is the download cost; run × speed is the work.
	tests := []struct {
		name                 string
		warmOver, coldOver   time.Duration // overheads of results
		run                  time.Duration
		wantFetch, wantWork  float64
		otherFetch, noResult float64 // another problem's fetch; a model without results
	}{
		{"a dear download", 300 * time.Millisecond, 5300 * time.Millisecond, 2 * time.Second, 5, 2, 5, 1},
		{"a cheap download", 300 * time.Millisecond, 400 * time.Millisecond, time.Second, 0.1, 1, 0.1, 1},
		{"no download cost (overheads equal)", 200 * time.Millisecond, 200 * time.Millisecond, time.Second, 0, 1, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newCostModel()
			if e := m.estimates(); e != (CostEstimates{}) {
				t.Fatalf("estimates before any result: %+v", e)
			}
			if got := m.fetch(Task{ProblemID: 1}, time.Second); got != tc.noResult {
				t.Fatalf("prior fetch %v, want %v", got, tc.noResult)
			}
			for i := range 40 {
				id := int64(i + 1)
				cold := i%2 == 0
				task := Task{SubmissionID: id, ProblemID: 1}
				m.placed(t0, task, "a", cold)
				over := tc.warmOver
				if cold {
					over = tc.coldOver
				}
				m.observe(Outcome{Judge: "a", Task: task, Run: tc.run, Latency: tc.run + over}, 1)
			}
			if got := m.fetch(Task{ProblemID: 1}, time.Second); math.Abs(got-tc.wantFetch) > 1e-6 {
				t.Fatalf("fetch %v, want %v", got, tc.wantFetch)
			}
			if got := m.fetch(Task{ProblemID: 2}, time.Second); math.Abs(got-tc.otherFetch) > 1e-6 {
				t.Fatalf("an unseen problem's fetch %v, want the mean %v", got, tc.otherFetch)
			}
			if got := m.work(Task{ProblemID: 1}, time.Second); math.Abs(got-tc.wantWork) > 1e-6 {
				t.Fatalf("work %v, want %v", got, tc.wantWork)
			}
			e := m.estimates()
			near := func(d time.Duration, s float64) bool { return math.Abs(d.Seconds()-s) < 1e-6 }
			if !near(e.Warm, tc.warmOver.Seconds()) || !near(e.Cold, tc.coldOver.Seconds()) || !near(e.Fetch, tc.wantFetch) ||
				e.WarmN != 20 || e.ColdN != 20 || e.Problems != 1 {
				t.Fatalf("estimates %+v, want warm %v, cold %v (20 each), fetch %v s over 1 problem", e, tc.warmOver, tc.coldOver, tc.wantFetch)
			}
			if len(m.placements) != 0 {
				t.Fatalf("%d placements kept after their results", len(m.placements))
			}
		})
	}
}

func TestDefaultWeighsTheLearntDownload(t *testing.T) {
	// A slow judge holds the data, a 3× faster one does not. Whether the
	// task waits for a download on the fast judge depends on what
	// downloads have been seen to cost: the policy learns it from results.
	for _, tc := range []struct {
		name     string
		coldOver time.Duration // overhead of a result that fetched the data
		want     int
	}{
		{"downloads dear: the slow judge with the data", 20 * time.Second, 0},
		{"downloads cheap: the fast judge", 100 * time.Millisecond, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewBounded(BoundedConfig{HotMinCount: 1000, SpeedAlpha: -1})
			js := []Judge{{ID: "slow", Cores: 4, Slots: 4, Speed: 0.5, Cached: cachedSet("d1")}, {ID: "fast", Cores: 4, Slots: 4, Speed: 1.5}}
			for i := range 20 { // results of problem 2 on judge "x": half fetched its data
				task := Task{SubmissionID: int64(100 + i), ProblemID: 2, DataHash: "d2"}
				p.cost.placed(t0, task, "x", i%2 == 0)
				over := 100 * time.Millisecond
				if i%2 == 0 {
					over += tc.coldOver
				}
				p.Observe(t0, Outcome{Judge: "x", Task: task, Run: 2 * time.Second, Latency: 2*time.Second + over})
			}
			d := p.Pick(t0, Task{SubmissionID: 1, ProblemID: 1, DataHash: "d1", Language: "cpp"}, js)
			if d.Judge != tc.want {
				t.Fatalf("Pick = %+v, want judge %d", d, tc.want)
			}
		})
	}
}

package lab

import (
	"fmt"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func judgesOf(cores ...int) []sched.Judge {
	js := make([]sched.Judge, len(cores))
	for i, c := range cores {
		js[i] = sched.Judge{ID: fmt.Sprint("j", i), Cores: c, Slots: c}
	}
	return js
}

// sequence picks n tasks of problem p from judges without counting them
// (a pure rotation), or counting them in Assigned when count is set.
func sequence(p sched.Policy, judges []sched.Judge, n int, count bool) []int {
	var out []int
	for i := range n {
		d := p.Pick(t0.Add(time.Duration(i)*time.Millisecond), sched.Task{SubmissionID: int64(i), ProblemID: int64(i % 7), DataHash: "d", Language: "cpp"}, judges)
		out = append(out, d.Judge)
		if count && d.Judge >= 0 {
			judges[d.Judge].Assigned++
		}
	}
	return out
}

func counts(picks []int, n int) []int {
	c := make([]int, n)
	for _, p := range picks {
		if p >= 0 {
			c[p]++
		}
	}
	return c
}

func TestPushBaselinesNeverHoldAndSkipIneligible(t *testing.T) {
	for _, name := range Baselines() {
		if name == NamePull || name == NameWindowSWRR { // these hold when every judge is full
			continue
		}
		t.Run(name, func(t *testing.T) {
			p, err := NewWith(name, Options{Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			js := judgesOf(2, 4, 8)
			for i := range js {
				js[i].Assigned = 50 // far over capacity: push balancers still place
			}
			js[1].Draining = true
			js[2].Languages = []string{"py3"}
			for _, j := range sequence(p, js, 20, false) {
				if j != 0 {
					t.Fatalf("%s picked %d: only judge 0 is eligible", name, j)
				}
			}
			if d := p.Pick(t0, sched.Task{Language: "cpp"}, []sched.Judge{{ID: "x", Cores: 2, Languages: []string{"py3"}}}); d.Judge >= 0 || d.Hold != sched.HoldNoJudge {
				t.Fatalf("%s with no capable judge: %+v", name, d)
			}
		})
	}
}

func TestRotationShares(t *testing.T) {
	tests := []struct {
		name string
		p    sched.Policy
		want []int // picks per judge over 14 tasks on cores 4,2,1
		seq  []int // exact sequence prefix, if deterministic
	}{
		{"wrr interleaves by weight level", &WRR{}, []int{8, 4, 2}, []int{0, 0, 0, 1, 0, 1, 2}},
		{"swrr is smooth", NewSmoothWRR(), []int{8, 4, 2}, []int{0, 1, 0, 2, 0, 1, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			picks := sequence(tc.p, judgesOf(4, 2, 1), 14, false)
			if got := counts(picks, 3); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("shares %v, want %v (picks %v)", got, tc.want, picks)
			}
			if fmt.Sprint(picks[:len(tc.seq)]) != fmt.Sprint(tc.seq) {
				t.Fatalf("sequence %v, want prefix %v", picks, tc.seq)
			}
		})
	}
}

func TestLoadAwareBaselines(t *testing.T) {
	tests := []struct {
		name   string
		p      func() sched.Policy
		judges []sched.Judge
		want   int
	}{
		{"least_conn: fewest per core", func() sched.Policy { return &LeastConn{} }, []sched.Judge{
			{ID: "a", Cores: 4, Assigned: 3}, {ID: "b", Cores: 2, Assigned: 1}, {ID: "c", Cores: 8, Assigned: 7}}, 1},
		{"least_conn: weight matters", func() sched.Policy { return &LeastConn{} }, []sched.Judge{
			{ID: "a", Cores: 1, Assigned: 1}, {ID: "b", Cores: 8, Assigned: 4}}, 1},
		{"p2c: of two, the lower utilisation", func() sched.Policy { return NewP2C(1) }, []sched.Judge{
			{ID: "a", Cores: 4, Slots: 4, Assigned: 4}, {ID: "b", Cores: 4, Slots: 4, Assigned: 1}}, 1},
		{"least_request equal weights: fewer active", func() sched.Policy { return NewLeastRequest(1) }, []sched.Judge{
			{ID: "a", Cores: 4, Assigned: 5}, {ID: "b", Cores: 4, Assigned: 2}}, 1},
		{"adaptive: idle beats loaded", func() sched.Policy { return NewAdaptive(1) }, []sched.Judge{
			{ID: "a", Cores: 4, Load1: 4, Assigned: 4}, {ID: "b", Cores: 4, Load1: 0.5, Assigned: 0}}, 1},
		{"pull: holds without a free slot", func() sched.Policy { return NewPull() }, []sched.Judge{
			{ID: "a", Cores: 2, Slots: 2, Assigned: 2}, {ID: "b", Cores: 1, Slots: 1, Assigned: 1}}, -1},
		{"pull: the free slot", func() sched.Policy { return NewPull() }, []sched.Judge{
			{ID: "a", Cores: 2, Slots: 2, Assigned: 2}, {ID: "b", Cores: 4, Slots: 4, Assigned: 3}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for range 10 { // random policies: two judges means both are drawn
				if d := tc.p().Pick(t0, sched.Task{ProblemID: 1, Language: "cpp"}, tc.judges); d.Judge != tc.want {
					t.Fatalf("Pick = %+v, want %d", d, tc.want)
				}
			}
		})
	}
}

func TestLeastRequestWeightedFollowsEffectiveWeight(t *testing.T) {
	// Unequal weights: EDF on cores/(active+1). A judge with 8 cores and
	// no work gets more than one with 2 cores and no work, and a loaded
	// big judge loses its advantage.
	p := NewLeastRequest(1)
	js := judgesOf(8, 2)
	c := counts(sequence(p, js, 40, false), 2)
	if c[0] <= c[1] {
		t.Fatalf("idle 8-core judge got %d vs %d", c[0], c[1])
	}
	p = NewLeastRequest(1)
	js = judgesOf(8, 2)
	js[0].Assigned = 30
	c = counts(sequence(p, js, 40, false), 2)
	if c[0] >= c[1] {
		t.Fatalf("8-core judge with 30 active got %d vs %d", c[0], c[1])
	}
}

func TestPeakEWMAAvoidsSlowJudge(t *testing.T) {
	p := NewPeakEWMA(1)
	js := judgesOf(4, 4)
	p.Observe(t0, sched.Outcome{Judge: "j0", Latency: 20 * time.Second})
	p.Observe(t0, sched.Outcome{Judge: "j1", Latency: time.Second})
	js[0].Assigned, js[1].Assigned = 1, 1
	for range 10 {
		if d := p.Pick(t0, sched.Task{Language: "cpp"}, js); d.Judge != 1 {
			t.Fatalf("picked the slow judge: %+v", d)
		}
	}
	// The peak decays: 100 s later with a fast sample both look alike.
	p.Observe(t0.Add(100*time.Second), sched.Outcome{Judge: "j0", Latency: time.Second})
	if e := p.stats["j0"].ewma; e > 1.01 {
		t.Fatalf("peak did not decay: ewma %v s", e)
	}
	// A judge with work and no sample costs the penalty.
	fresh := NewPeakEWMA(1)
	if c := fresh.cost(t0, &sched.Judge{ID: "n", Assigned: 1}); c < peakPenalty {
		t.Fatalf("unsampled busy judge cost %v", c)
	}
}

func TestCHBLAffinityWithinBound(t *testing.T) {
	p := NewCHBL(1.25)
	js := judgesOf(4, 4, 4, 4)
	home := p.Pick(t0, sched.Task{ProblemID: 9, Language: "cpp"}, js).Judge
	for range 5 { // stable while within the bound
		if d := p.Pick(t0, sched.Task{ProblemID: 9, Language: "cpp"}, js); d.Judge != home || d.Reason != "ring" {
			t.Fatalf("problem moved: %+v (home %d)", d, home)
		}
	}
	// Load the home past ceil(1.25 × (m+1) / 4): the task walks on.
	js[home].Assigned = 4 // m = 4, bound = ceil(1.25 × 5 / 4) = 2
	if d := p.Pick(t0, sched.Task{ProblemID: 9, Language: "cpp"}, js); d.Judge == home || d.Reason != "ring_next" {
		t.Fatalf("over the bound still home: %+v", d)
	}
	// Many problems spread over every judge.
	c := make([]int, 4)
	for pr := range 200 {
		c[p.Pick(t0, sched.Task{ProblemID: int64(pr), Language: "cpp"}, judgesOf(4, 4, 4, 4)).Judge]++
	}
	for i, n := range c {
		if n < 20 {
			t.Fatalf("judge %d is home to %d of 200 problems: %v", i, n, c)
		}
	}
}

func TestPullServesLongestIdleFirst(t *testing.T) {
	p := NewPull()
	js := judgesOf(1, 1, 1)
	// All idle since t0; picks rotate: each answered ask re-queues behind.
	var got []int
	for i := range 3 {
		d := p.Pick(t0.Add(time.Duration(i)*time.Second), sched.Task{Language: "cpp"}, js)
		got = append(got, d.Judge)
		js[d.Judge].Assigned++
	}
	if fmt.Sprint(got) != "[0 1 2]" {
		t.Fatalf("pull order %v", got)
	}
	if d := p.Pick(t0.Add(5*time.Second), sched.Task{Language: "cpp"}, js); d.Judge != -1 || d.Hold != sched.HoldBusy {
		t.Fatalf("all busy: %+v", d)
	}
}

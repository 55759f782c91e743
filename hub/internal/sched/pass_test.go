package sched

import (
	"slices"
	"testing"
	"time"
)

// script is a policy that answers from a list, recording what it saw.
type script struct {
	answers []Decision
	asked   []int64 // submission ids
	seen    []int   // Assigned of judge 0 at each ask
}

func (*script) Name() string { return "script" }

func (s *script) Pick(_ time.Time, t Task, judges []Judge) Decision {
	s.asked = append(s.asked, t.SubmissionID)
	s.seen = append(s.seen, judges[0].Assigned)
	d := s.answers[0]
	s.answers = s.answers[1:]
	return d
}

func TestPass(t *testing.T) {
	place := func(j int) Decision { return Decision{Judge: j, Reason: "r"} }
	tasks := func(langs ...string) []Task {
		ts := make([]Task, len(langs))
		for i, l := range langs {
			ts[i] = Task{SubmissionID: int64(i + 1), Language: l}
		}
		return ts
	}
	tests := []struct {
		name    string
		tasks   []Task
		answers []Decision
		asked   []int64
		placed  []int // task indexes
		busy    bool
		again   bool   // with window = len(tasks)
		holds   []Hold // per task
	}{
		{"every task placed", tasks("cpp", "cpp"), []Decision{place(0), place(1)}, []int64{1, 2}, []int{0, 1}, false, true,
			[]Hold{HoldNone, HoldNone}},
		{"a busy hold skips the rest of its language, not the others", tasks("cpp", "cpp", "py", "cpp", "py"),
			[]Decision{hold(HoldBusy, "all_busy"), place(0), place(0)}, []int64{1, 3, 5}, []int{2, 4}, true, true,
			[]Hold{HoldBusy, HoldBusy, HoldNone, HoldBusy, HoldNone}},
		{"no judge for a language is not busy", tasks("java", "java", "cpp"),
			[]Decision{hold(HoldNoJudge, "no_judge"), place(0)}, []int64{1, 3}, []int{2}, false, true,
			[]Hold{HoldNoJudge, HoldNoJudge, HoldNone}},
		{"an affinity hold concerns one task", tasks("cpp", "cpp"),
			[]Decision{hold(HoldAffinity, "affinity"), place(1)}, []int64{1, 2}, []int{1}, false, true,
			[]Hold{HoldAffinity, HoldNone}},
		{"nothing placed: no second pass", tasks("cpp"), []Decision{hold(HoldBusy, "all_busy")}, []int64{1}, nil, true, false,
			[]Hold{HoldBusy}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &script{answers: tc.answers}
			js := judgesOf(2, 2)
			r := Pass(t0, p, tc.tasks, js, Reserve{})
			if len(p.asked) != len(tc.asked) {
				t.Fatalf("asked %v, want %v", p.asked, tc.asked)
			}
			for i := range p.asked {
				if p.asked[i] != tc.asked[i] {
					t.Fatalf("asked %v, want %v", p.asked, tc.asked)
				}
			}
			if r.Asked != len(tc.asked) || r.Tasks != len(tc.tasks) || r.Busy != tc.busy || r.Again(len(tc.tasks)) != tc.again {
				t.Fatalf("result %+v (again %v), want asked %d busy %v again %v", r, r.Again(len(tc.tasks)), len(tc.asked), tc.busy, tc.again)
			}
			if len(r.Placed) != len(tc.placed) {
				t.Fatalf("placed %+v, want tasks %v", r.Placed, tc.placed)
			}
			if !slices.Equal(r.Holds, tc.holds) {
				t.Fatalf("holds %v, want %v", r.Holds, tc.holds)
			}
			assigned := make([]int, len(js))
			for i, pl := range r.Placed {
				if pl.Task != tc.placed[i] || pl.Reason != "r" {
					t.Fatalf("placed %+v, want tasks %v", r.Placed, tc.placed)
				}
				assigned[pl.Judge]++
			}
			for i := range js {
				if js[i].Assigned != assigned[i] || js[i].SinceHeartbeat != assigned[i] {
					t.Fatalf("judge %d: assigned %d since %d, want %d", i, js[i].Assigned, js[i].SinceHeartbeat, assigned[i])
				}
			}
		})
	}
}

// TestPassCountsEachPlacement: the policy sees the pass's own earlier
// placements in the view (the hub's exact in-flight accounting).
func TestPassCountsEachPlacement(t *testing.T) {
	p := &script{answers: []Decision{{Judge: 0}, {Judge: 0}, {Judge: 1}, {Judge: 0}}}
	Pass(t0, p, make([]Task, 4), judgesOf(4, 4), Reserve{})
	want := []int{0, 1, 2, 2}
	for i := range want {
		if p.seen[i] != want[i] {
			t.Fatalf("judge 0's Assigned as seen by each ask: %v, want %v", p.seen, want)
		}
	}
}

// TestPassIsTheDefaultsPass: the default policy through Pass fills the
// free slots and no more, then reports the pass busy.
func TestPassIsTheDefaultsPass(t *testing.T) {
	js := judgesOf(2, 1)
	ts := make([]Task, 5)
	for i := range ts {
		ts[i] = Task{SubmissionID: int64(i + 1), ProblemID: int64(i), DataHash: "d", Language: "cpp"}
	}
	r := Pass(t0, NewBounded(BoundedConfig{}), ts, js, Reserve{})
	if len(r.Placed) != 3 || !r.Busy || r.Asked != 4 || js[0].Assigned != 2 || js[1].Assigned != 1 {
		t.Fatalf("result %+v, judges %+v", r, js)
	}
}

func TestReserveSlots(t *testing.T) {
	tests := []struct {
		share float64
		total int
		want  int
	}{
		{0, 48, 0},
		{-0.5, 48, 0},
		{0.125, 48, 6},
		{0.125, 8, 1},
		{0.125, 9, 2}, // 1.125 rounds up
		{0.125, 2, 1},
		{0.5, 2, 1},
		{0.9, 4, 3},   // at most total − 1
		{0.125, 1, 0}, // one slot: background work keeps it
		{0.125, 0, 0},
	}
	for _, tc := range tests {
		if got := (Reserve{Share: tc.share}).Slots(tc.total); got != tc.want {
			t.Errorf("share %v of %d slots: %d, want %d", tc.share, tc.total, got, tc.want)
		}
	}
	for _, bad := range []float64{-0.1, 1, 1.5} {
		if (Reserve{Share: bad}).Validate() == nil {
			t.Errorf("share %v accepted", bad)
		}
	}
	if (Reserve{Share: 0}).Validate() != nil || (Reserve{Share: DefaultReserveShare}).Validate() != nil {
		t.Error("a valid share refused")
	}
}

// TestPassReserve: background work (priority below Reserve.Below) stops at
// the judges' slots less the reserve, urgent work takes the reserve, and
// the policy is never asked about a background task held for it.
func TestPassReserve(t *testing.T) {
	const bg, urgent = 0, 3
	tasks := func(prios ...int) []Task {
		ts := make([]Task, len(prios))
		for i, p := range prios {
			ts[i] = Task{SubmissionID: int64(i + 1), ProblemID: int64(i), Language: "cpp", Priority: p}
		}
		return ts
	}
	rs := Reserve{Below: 1, Share: 0.25} // 2 of 8 slots
	tests := []struct {
		name     string
		rs       Reserve
		assigned [2]int // of two judges of 4 slots
		draining bool   // the second judge
		tasks    []Task
		placed   []int // task indexes
		reserved int
		asked    int
		busy     bool // a hold for the reserve is no overload
	}{
		{"background fills all but the reserve", rs, [2]int{0, 0}, false,
			tasks(bg, bg, bg, bg, bg, bg, bg, bg), []int{0, 1, 2, 3, 4, 5}, 2, 6, false},
		{"urgent work first takes what background would", rs, [2]int{2, 2}, false,
			tasks(urgent, bg, bg), []int{0, 1}, 1, 2, false},
		{"urgent work takes the reserve", rs, [2]int{4, 2}, false,
			tasks(bg, urgent, urgent, bg), []int{1, 2}, 2, 2, false},
		{"at the limit nothing background is asked about", rs, [2]int{3, 3}, false,
			tasks(bg, bg, bg), nil, 3, 0, false},
		{"no reserve: background takes every slot", Reserve{Below: 1}, [2]int{3, 3}, false,
			tasks(bg, bg, bg), []int{0, 1}, 0, 3, true},
		{"a draining judge's slots do not count", rs, [2]int{2, 0}, true, // 4 slots, 1 reserved
			tasks(bg, bg, urgent), []int{0, 2}, 1, 2, false},
		{"practice is not background with Below 1", rs, [2]int{3, 3}, false,
			tasks(1, 1), []int{0, 1}, 0, 2, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			js := judgesOf(4, 4)
			js[0].Assigned, js[1].Assigned = tc.assigned[0], tc.assigned[1]
			js[1].Draining = tc.draining
			p := NewBounded(BoundedConfig{})
			r := Pass(t0, p, tc.tasks, js, tc.rs)
			got := []int{}
			for _, pl := range r.Placed {
				got = append(got, pl.Task)
			}
			if len(got) != len(tc.placed) {
				t.Fatalf("placed tasks %v, want %v (result %+v)", got, tc.placed, r)
			}
			for i := range got {
				if got[i] != tc.placed[i] {
					t.Fatalf("placed tasks %v, want %v", got, tc.placed)
				}
			}
			if r.Reserved != tc.reserved || r.Asked != tc.asked {
				t.Fatalf("reserved %d asked %d, want %d and %d", r.Reserved, r.Asked, tc.reserved, tc.asked)
			}
			if n := countHolds(r.Holds, HoldReserve); n != tc.reserved {
				t.Fatalf("holds %v: %d for the reserve, want %d", r.Holds, n, tc.reserved)
			}
			if r.Busy != tc.busy {
				t.Fatalf("busy %v, want %v: %+v", r.Busy, tc.busy, r)
			}
		})
	}
}

func countHolds(hs []Hold, h Hold) int {
	n := 0
	for _, x := range hs {
		if x == h {
			n++
		}
	}
	return n
}

package sched

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func cachedSet(hashes ...string) func(string) bool {
	m := map[string]bool{}
	for _, h := range hashes {
		m[h] = true
	}
	return func(h string) bool { return m[h] }
}

func TestGuidePick(t *testing.T) {
	task := Task{SubmissionID: 1, ProblemID: 1, DataHash: "d1", Language: "cpp"}
	tests := []struct {
		name   string
		judges []Judge
		want   int
		hold   Hold
	}{
		{"lowest score wins", []Judge{
			{ID: "a", Cores: 4, Running: 2, Load1: 2, MemUsedRatio: 0.5}, // 2.5+1.5+1 = 5
			{ID: "b", Cores: 4, Running: 1, Load1: 1, MemUsedRatio: 0.2}, // 1.25+0.75+0.4 = 2.4
			{ID: "c", Cores: 2, Running: 1, Load1: 1, MemUsedRatio: 0.1}, // 2.5+1.5+0.2
		}, 1, HoldNone},
		{"running weighs most", []Judge{
			{ID: "a", Cores: 2, Running: 2, Load1: 0, MemUsedRatio: 0},   // 5
			{ID: "b", Cores: 2, Running: 0, Load1: 2, MemUsedRatio: 0.4}, // 3+0.8
		}, 1, HoldNone},
		{"overloaded load1 skipped", []Judge{
			{ID: "a", Cores: 2, Load1: 3.1},
			{ID: "b", Cores: 2, Running: 2, Load1: 2},
		}, 1, HoldNone},
		{"long local queue skipped", []Judge{
			{ID: "a", Cores: 8, Queued: 4},
			{ID: "b", Cores: 2, Running: 2, Load1: 2},
		}, 1, HoldNone},
		{"local queue of 3 is still fine", []Judge{
			{ID: "a", Cores: 8, Queued: 3},
		}, 0, HoldNone},
		{"all skipped: hold busy", []Judge{
			{ID: "a", Cores: 2, Load1: 3.5},
			{ID: "b", Cores: 2, Queued: 5},
		}, -1, HoldBusy},
		{"language mismatch: no judge", []Judge{
			{ID: "a", Cores: 2, Languages: []string{"py3"}},
		}, -1, HoldNoJudge},
		{"draining ignored", []Judge{
			{ID: "a", Cores: 2, Draining: true},
			{ID: "b", Cores: 2, Running: 1},
		}, 1, HoldNone},
		{"no judges", nil, -1, HoldNoJudge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Guide{}.Pick(t0, task, tc.judges)
			if d.Judge != tc.want || d.Hold != tc.hold {
				t.Fatalf("Pick = %+v, want judge %d hold %v", d, tc.want, tc.hold)
			}
		})
	}
}

// dispatch runs n tasks through p, counting each placement in Assigned and
// SinceHeartbeat but never refreshing the heartbeat fields: a burst between
// two heartbeats.
func dispatch(p Policy, judges []Judge, tasks []Task) []int {
	var placed []int
	for _, tk := range tasks {
		d := p.Pick(t0, tk, judges)
		placed = append(placed, d.Judge)
		if d.Judge >= 0 {
			judges[d.Judge].Assigned++
			judges[d.Judge].SinceHeartbeat++
		}
	}
	return placed
}

func burst(n int, problem func(i int) int64) []Task {
	var ts []Task
	for i := range n {
		p := problem(i)
		ts = append(ts, Task{SubmissionID: int64(i + 1), ProblemID: p, DataHash: fmt.Sprint("d", p), Language: "cpp"})
	}
	return ts
}

func TestGuideHerdsABurstDefaultDoesNot(t *testing.T) {
	mk := func() []Judge {
		return []Judge{{ID: "a", Cores: 4, Slots: 4}, {ID: "b", Cores: 4, Slots: 4, Load1: 0.4}, {ID: "c", Cores: 4, Slots: 4, Load1: 0.8}}
	}
	tasks := burst(6, func(i int) int64 { return int64(i) })
	guide := dispatch(Guide{}, mk(), tasks)
	for _, j := range guide {
		if j != 0 {
			t.Fatalf("guide placed a burst %v: expected all on the idlest-looking judge (the flaw)", guide)
		}
	}
	js := mk()
	dispatch(NewBounded(BoundedConfig{}), js, tasks)
	for _, j := range js {
		if j.Assigned < 1 || j.Assigned > 3 {
			t.Fatalf("default policy spread %v", []int{js[0].Assigned, js[1].Assigned, js[2].Assigned})
		}
	}
}

func TestBoundedPick(t *testing.T) {
	task := Task{SubmissionID: 1, ProblemID: 42, DataHash: "d42", Language: "cpp"}
	tests := []struct {
		name     string
		cfg      BoundedConfig
		judges   []Judge
		want     int // -1: hold
		hold     Hold
		reason   string
		prefetch bool
	}{
		{"bind late: all slots taken", BoundedConfig{}, []Judge{
			{ID: "a", Cores: 2, Slots: 2, Assigned: 2},
			{ID: "b", Cores: 1, Slots: 1, Assigned: 1},
		}, -1, HoldBusy, "all_busy", false},
		{"local queue allows one more", BoundedConfig{LocalQueue: 1}, []Judge{
			{ID: "a", Cores: 2, Slots: 2, Assigned: 2},
		}, 0, HoldNone, "home", false},
		{"the only free slot", BoundedConfig{}, []Judge{
			{ID: "a", Cores: 2, Slots: 2, Assigned: 2},
			{ID: "b", Cores: 4, Slots: 4, Assigned: 3},
		}, 1, HoldNone, "", false},
		{"cached data preferred within the bound", BoundedConfig{}, []Judge{
			{ID: "a", Cores: 4, Slots: 4, Assigned: 0},
			{ID: "b", Cores: 4, Slots: 4, Assigned: 1, Cached: cachedSet("d42")},
			{ID: "c", Cores: 4, Slots: 4, Assigned: 0},
		}, 1, HoldNone, "cached", false},
		{"a free slot holding the data wins even over the bound (no download)", BoundedConfig{}, []Judge{
			{ID: "a", Cores: 4, Slots: 4, Assigned: 0},
			{ID: "b", Cores: 4, Slots: 4, Assigned: 3, Cached: cachedSet("d42")},
			{ID: "c", Cores: 4, Slots: 4, Assigned: 0},
		}, 1, HoldNone, "", false},
		{"class order: a cached judge over the bound loses", BoundedConfig{ClassOrder: true}, []Judge{
			{ID: "a", Cores: 4, Slots: 4, Assigned: 0},
			{ID: "b", Cores: 4, Slots: 4, Assigned: 3, Cached: cachedSet("d42")},
			{ID: "c", Cores: 4, Slots: 4, Assigned: 0},
		}, -2, HoldNone, "home", false},
		{"a much faster judge without the data beats a slow one with it", BoundedConfig{}, []Judge{
			{ID: "a", Cores: 4, Slots: 4, Speed: 0.25, Cached: cachedSet("d42")},
			{ID: "b", Cores: 4, Slots: 4, Speed: 4},
		}, 1, HoldNone, "", false},
		{"language matched", BoundedConfig{}, []Judge{
			{ID: "a", Cores: 4, Slots: 4, Languages: []string{"py3"}},
			{ID: "b", Cores: 1, Slots: 1, Assigned: 0, Languages: []string{"py3", "cpp"}},
		}, 1, HoldNone, "", false},
		{"no judge speaks it", BoundedConfig{}, []Judge{
			{ID: "a", Cores: 4, Slots: 4, Languages: []string{"py3"}},
		}, -1, HoldNoJudge, "no_judge", false},
		{"foreign load skipped", BoundedConfig{}, []Judge{
			{ID: "a", Cores: 2, Slots: 2, Load1: 3.5, Cached: cachedSet("d42")},
			{ID: "b", Cores: 2, Slots: 2, Assigned: 1},
		}, 1, HoldNone, "", false},
		{"draining skipped", BoundedConfig{}, []Judge{
			{ID: "a", Cores: 2, Slots: 2, Draining: true, Cached: cachedSet("d42")},
			{ID: "b", Cores: 2, Slots: 2, Assigned: 1},
		}, 1, HoldNone, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewBounded(tc.cfg).Pick(t0, task, tc.judges)
			switch {
			case tc.want == -2: // any judge but b
				if d.Judge < 0 || d.Judge == 1 {
					t.Fatalf("Pick = %+v, want a judge other than b", d)
				}
			case d.Judge != tc.want:
				t.Fatalf("Pick = %+v, want judge %d", d, tc.want)
			}
			if d.Hold != tc.hold || (tc.reason != "" && d.Reason != tc.reason) || d.Prefetch != tc.prefetch {
				t.Fatalf("Pick = %+v, want hold %v reason %q prefetch %v", d, tc.hold, tc.reason, tc.prefetch)
			}
		})
	}
}

func TestBoundedAffinityIsStable(t *testing.T) {
	// The same problem keeps going to the same home while loads are equal.
	p := NewBounded(BoundedConfig{HotMinCount: 1000})
	judges := []Judge{{ID: "a", Cores: 4, Slots: 4}, {ID: "b", Cores: 4, Slots: 4}, {ID: "c", Cores: 4, Slots: 4}}
	homes := map[int64]int{}
	for problem := int64(1); problem <= 30; problem++ {
		d := p.Pick(t0, Task{ProblemID: problem, DataHash: "x", Language: "cpp"}, judges)
		homes[problem] = d.Judge
		for range 5 {
			if again := p.Pick(t0, Task{ProblemID: problem, DataHash: "x", Language: "cpp"}, judges); again.Judge != d.Judge {
				t.Fatalf("problem %d moved from %d to %d with nothing assigned", problem, d.Judge, again.Judge)
			}
		}
	}
	count := map[int]int{}
	for _, j := range homes {
		count[j]++
	}
	if len(count) != 3 {
		t.Fatalf("30 problems homed on %d judges: %v", len(count), count)
	}
}

func TestBoundedWorkConservingAndProportional(t *testing.T) {
	// Judges of 1, 2 and 4 slots, one hot-free problem set: every slot
	// fills before anything is held, and never beyond its size.
	judges := []Judge{{ID: "s", Cores: 1, Slots: 1}, {ID: "m", Cores: 2, Slots: 2}, {ID: "l", Cores: 4, Slots: 4}}
	p := NewBounded(BoundedConfig{})
	placed := dispatch(p, judges, burst(9, func(i int) int64 { return 7 }))
	for i, j := range placed[:7] {
		if j < 0 {
			t.Fatalf("task %d held with free slots: %v", i, placed)
		}
	}
	if placed[7] != -1 || placed[8] != -1 {
		t.Fatalf("tasks beyond capacity were placed: %v", placed)
	}
	for _, j := range judges {
		if j.Assigned != j.Slots {
			t.Fatalf("judge %s has %d of %d slots", j.ID, j.Assigned, j.Slots)
		}
	}
}

func TestBoundedHotProblemSpreadsAndPrefetches(t *testing.T) {
	p := NewBounded(BoundedConfig{HotMinCount: 4, HotShare: 0.3})
	judges := []Judge{{ID: "a", Cores: 8, Slots: 8}, {ID: "b", Cores: 8, Slots: 8}, {ID: "c", Cores: 8, Slots: 8}}
	var prefetch bool
	now := t0
	for i := range 12 {
		d := p.Pick(now, Task{ProblemID: 5, DataHash: "d5", Language: "cpp"}, judges)
		if d.Judge < 0 {
			t.Fatalf("held %+v", d)
		}
		if i >= 4 && !d.Prefetch {
			t.Fatalf("dispatch %d of a hot problem without prefetch: %+v", i, d)
		}
		prefetch = prefetch || d.Prefetch
		judges[d.Judge].Assigned++
		now = now.Add(time.Second)
	}
	if !prefetch {
		t.Fatal("no prefetch")
	}
	for _, j := range judges {
		if j.Assigned < 2 {
			t.Fatalf("hot problem pinned: %d/%d/%d", judges[0].Assigned, judges[1].Assigned, judges[2].Assigned)
		}
	}
	if !p.Hot(now, 5) {
		t.Fatal("problem 5 not hot")
	}
	if p.Hot(now.Add(2*time.Minute), 5) {
		t.Fatal("problem 5 still hot after the window passed")
	}
}

func TestHeavyHittersWindow(t *testing.T) {
	h := NewHeavyHitters(6*time.Second, 6, 2)
	h.Add(t0, 1)
	h.Add(t0.Add(time.Second), 1)
	h.Add(t0.Add(time.Second), 2)
	h.Add(t0.Add(time.Second), 3) // over maxKeys in this bucket: total only
	tests := []struct {
		at       time.Duration
		key      int64
		n, total int
	}{
		{time.Second, 1, 2, 4},
		{time.Second, 3, 0, 4},
		{5 * time.Second, 1, 2, 4},
		{6 * time.Second, 1, 1, 3}, // the first bucket left the window
		{8 * time.Second, 1, 0, 0},
	}
	for _, tc := range tests {
		n, total := h.Count(t0.Add(tc.at), tc.key)
		if n != tc.n || total != tc.total {
			t.Errorf("Count(+%v, %d) = %d/%d, want %d/%d", tc.at, tc.key, n, total, tc.n, tc.total)
		}
	}
}

func TestNew(t *testing.T) {
	for _, name := range Names() {
		p, err := New(name)
		if err != nil || p.Name() != name {
			t.Fatalf("New(%q) = %v, %v", name, p, err)
		}
	}
	// The lab's baselines are not the hub's to offer (package lab).
	for _, name := range []string{"round_robin", "pull", "chbl", "random"} {
		_, err := New(name)
		if !errors.Is(err, ErrUnknownPolicy) || !strings.Contains(err.Error(), "default, guide") {
			t.Fatalf("New(%q) = %v, want ErrUnknownPolicy naming default, guide", name, err)
		}
	}
}

// roles names the judges of js for task under p by ring order: "h1", "h2"
// (the problem's two homes, h1 of higher ring weight), then "x", "y", …
// (the others, by ring weight).
func roles(p *Bounded, task Task, js []Judge) map[int]string {
	slots := 0
	for i := range js {
		slots += js[i].SlotCount()
	}
	home := p.homes(t0, task, js, float64(slots))
	var hs, xs []int
	for i := range js {
		if home[i] {
			hs = append(hs, i)
		} else {
			xs = append(xs, i)
		}
	}
	byRing := func(a, b int) int {
		if ringWeight(task.ProblemID, &js[a], float64(js[a].Slots)) > ringWeight(task.ProblemID, &js[b], float64(js[b].Slots)) {
			return -1
		}
		return 1
	}
	slices.SortFunc(hs, byRing)
	slices.SortFunc(xs, byRing)
	r := map[int]string{}
	for k, i := range hs {
		r[i] = fmt.Sprint("h", k+1)
	}
	for k, i := range xs {
		r[i] = string(rune('x' + k))
	}
	return r
}

func TestBoundedDeferral(t *testing.T) {
	// Four judges of 4 slots, described by role (see roles): the two homes
	// h1, h2 and the others x, y. The deferral holds a task for a busy home
	// only when no free judge holds its data: waiting saves a download
	// only if there is one to save.
	type spec struct {
		busy, cached, overloaded, draining bool
		speed                              float64
	}
	busyHome := spec{busy: true, cached: true}
	tests := []struct {
		name         string
		cfg          BoundedConfig
		h1, h2, x, y spec
		at           time.Duration // since the task's first hold
		want         string        // role chosen, "" to hold
		wantHold     Hold
		wantReason   string
	}{
		{"homes busy, a free judge holds the data: no deferral (the bug)", BoundedConfig{},
			busyHome, busyHome, spec{cached: true}, spec{speed: 2}, 0, "x", HoldNone, "cached_away"},
		{"homes busy, the data on a free judge half as fast: waiting for a home is sooner", BoundedConfig{},
			busyHome, busyHome, spec{speed: 3}, spec{cached: true, speed: 0.5}, 0, "", HoldAffinity, "affinity"},
		{"homes busy, the data on a free judge as fast: no deferral", BoundedConfig{},
			busyHome, busyHome, spec{speed: 3}, spec{cached: true}, 0, "y", HoldNone, "cached_away"},
		{"homes busy, no free judge holds the data: defer", BoundedConfig{},
			busyHome, busyHome, spec{}, spec{speed: 2}, 0, "", HoldAffinity, "affinity"},
		{"homes busy, the holder of the data is busy too: defer", BoundedConfig{},
			busyHome, busyHome, spec{busy: true, cached: true}, spec{}, 0, "", HoldAffinity, "affinity"},
		{"homes busy, the holder of the data is draining: defer", BoundedConfig{},
			busyHome, busyHome, spec{draining: true, cached: true}, spec{}, 0, "", HoldAffinity, "affinity"},
		{"homes busy, the deferral over: the fastest free", BoundedConfig{},
			busyHome, busyHome, spec{}, spec{speed: 2}, 2 * time.Second, "y", HoldNone, "fastest"},
		{"homes overloaded by foreign load: no deferral", BoundedConfig{},
			spec{busy: true, overloaded: true}, spec{busy: true, overloaded: true}, spec{speed: 2}, spec{}, 0, "x", HoldNone, "fastest"},
		{"deferral disabled", BoundedConfig{MaxDefer: -1},
			busyHome, busyHome, spec{}, spec{speed: 2}, 0, "y", HoldNone, "fastest"},
		{"a free home with the data wins over an as fast holder elsewhere", BoundedConfig{},
			spec{busy: true, cached: true}, spec{cached: true}, spec{cached: true}, spec{}, 0, "h2", HoldNone, "cached"},
		{"a faster free holder elsewhere wins over a free home with the data", BoundedConfig{},
			spec{busy: true, cached: true}, spec{cached: true}, spec{cached: true, speed: 3}, spec{}, 0, "x", HoldNone, "cached_away"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.HotMinCount = 1000
			p := NewBounded(tc.cfg)
			task := Task{SubmissionID: 1, ProblemID: 42, DataHash: "d42", Language: "cpp"}
			js := judgesOf(4, 4, 4, 4)
			role := roles(p, task, js)
			for i := range js {
				s := map[string]spec{"h1": tc.h1, "h2": tc.h2, "x": tc.x, "y": tc.y}[role[i]]
				js[i].Speed = s.speed
				js[i].Draining = s.draining
				if s.busy {
					js[i].Assigned = js[i].Slots
				}
				if s.cached {
					js[i].Cached = cachedSet("d42")
				}
				if s.overloaded {
					js[i].Load1 = 10
				}
			}
			if tc.at > 0 { // start the task's deferral clock
				if d := p.Pick(t0, task, js); d.Hold != HoldAffinity {
					t.Fatalf("first Pick = %+v, want an affinity hold", d)
				}
			}
			d := p.Pick(t0.Add(tc.at), task, js)
			got := ""
			if d.Judge >= 0 {
				got = role[d.Judge]
			}
			if got != tc.want || d.Hold != tc.wantHold || d.Reason != tc.wantReason {
				t.Fatalf("Pick = %+v (%q), want %q hold %v reason %q", d, got, tc.want, tc.wantHold, tc.wantReason)
			}
		})
	}
}

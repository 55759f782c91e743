package sched

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func judgesOf(cores ...int) []Judge {
	js := make([]Judge, len(cores))
	for i, c := range cores {
		js[i] = Judge{ID: fmt.Sprint("j", i), Cores: c, Slots: c}
	}
	return js
}

func TestRingSpreadsProblems(t *testing.T) {
	// Regression: plain FNV-1a homed every problem on the same judge.
	js := judgesOf(16, 12, 8, 8, 6, 4, 4, 2)
	c := make([]int, len(js))
	for pr := range 400 {
		best, bw := -1, -1.0
		for i := range js {
			if w := ringWeight(int64(pr), &js[i], float64(js[i].Slots)); w > bw {
				best, bw = i, w
			}
		}
		c[best]++
	}
	for i, n := range c {
		want := 400 * float64(js[i].Slots) / 60
		if float64(n) < want/2 || float64(n) > want*1.6 {
			t.Fatalf("judge %d (%d slots) is home to %d of 400 problems, want ≈ %.0f: %v", i, js[i].Slots, n, want, c)
		}
	}
}

func TestBoundedDefersForAffinity(t *testing.T) {
	// Four judges of 4 slots; the problem's two homes are busy. Each case
	// asks for the same submission at the given offsets from t0 and says
	// what each answer must be: "hold" (an affinity hold), "away" (placed
	// on a non-home judge) or "home".
	type ask struct {
		at    time.Duration
		want  string
		homes bool // a home has a free slot at this ask
	}
	tests := []struct {
		name   string
		cfg    BoundedConfig
		waited time.Duration // EnqueuedAt = t0 - waited
		id     int64
		asks   []ask
	}{
		{"bounded by what waiting saves (a cheap download)", BoundedConfig{FetchPrior: 200 * time.Millisecond}, 0, 7,
			// Free: 1 s of work + 0.2 s download × 1.5 (not a home) × 2
			// (half the slots busy) = 1.6 s; a home: a quarter of its 1 s
			// mean run to free a slot, then 1 s: 1.25 s. Waiting saves 0.35 s.
			[]ask{{0, "hold", false}, {300 * time.Millisecond, "hold", false}, {400 * time.Millisecond, "away", false}}},
		{"waits up to MaxDefer from the first hold", BoundedConfig{}, 0, 7,
			[]ask{{0, "hold", false}, {1900 * time.Millisecond, "hold", false}, {2 * time.Second, "away", false}}},
		{"a long queue wait does not use up the deferral", BoundedConfig{}, 100 * time.Second, 7,
			[]ask{{0, "hold", false}, {time.Second, "hold", false}, {2500 * time.Millisecond, "away", false}}},
		{"a home that frees takes it", BoundedConfig{}, 0, 7,
			[]ask{{0, "hold", false}, {500 * time.Millisecond, "home", true}}},
		{"MaxDefer sets the limit", BoundedConfig{MaxDefer: 300 * time.Millisecond}, 0, 7,
			[]ask{{0, "hold", false}, {200 * time.Millisecond, "hold", false}, {300 * time.Millisecond, "away", false}}},
		{"the earlier rule: from enqueue", BoundedConfig{DeferFromEnqueue: true}, 100 * time.Second, 7,
			[]ask{{0, "away", false}}},
		{"the earlier rule, a fresh task", BoundedConfig{DeferFromEnqueue: true}, 100 * time.Millisecond, 7,
			[]ask{{0, "hold", false}, {1900 * time.Millisecond, "away", false}}},
		{"no submission id: the queue's clock", BoundedConfig{}, 1500 * time.Millisecond, 0,
			[]ask{{0, "hold", false}, {time.Second, "away", false}}},
		{"no submission id nor enqueue time: never held", BoundedConfig{}, -1, 0,
			[]ask{{0, "away", false}}},
		{"deferral off", BoundedConfig{MaxDefer: -1}, 0, 7,
			[]ask{{0, "away", false}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.HotMinCount = 1000
			if tc.cfg.FetchPrior == 0 {
				tc.cfg.FetchPrior = 10 * time.Second // a download far dearer than MaxDefer
			}
			p := NewBounded(tc.cfg)
			task := Task{SubmissionID: tc.id, ProblemID: 42, DataHash: "d42", Language: "cpp"}
			if tc.waited >= 0 {
				task.EnqueuedAt = t0.Add(-tc.waited)
			}
			js := judgesOf(4, 4, 4, 4)
			home := p.homes(t0, task, js, 16.0) // no history: the 2 judges of highest weight
			if n := len(slices.DeleteFunc(slices.Clone(home), func(b bool) bool { return !b })); n != 2 {
				t.Fatalf("%d homes, want 2", n)
			}
			for _, a := range tc.asks {
				for i := range js {
					js[i].Assigned = 0
					if home[i] {
						js[i].Cached = cachedSet("d42")
						js[i].Assigned = js[i].Slots // busy
						if a.homes && i == slices.Index(home, true) {
							js[i].Assigned--
						}
					}
				}
				d := p.Pick(t0.Add(a.at), task, js)
				got := "hold"
				switch {
				case d.Judge >= 0 && home[d.Judge]:
					got = "home"
				case d.Judge >= 0:
					got = "away"
				case d.Hold != HoldAffinity:
					got = d.Hold.String()
				}
				if got != a.want {
					t.Fatalf("at +%v: %+v (%s), want %s", a.at, d, got, a.want)
				}
			}
		})
	}
}

func TestBoundedDeferralClocksArePerTask(t *testing.T) {
	p := NewBounded(BoundedConfig{HotMinCount: 1000, FetchPrior: 10 * time.Second})
	js := judgesOf(4, 4, 4, 4, 4, 4, 4, 4)
	a := Task{SubmissionID: 1, ProblemID: 42, DataHash: "d42", Language: "cpp"}
	b := Task{SubmissionID: 2, ProblemID: 43, DataHash: "d43", Language: "cpp"}
	busy := 0
	for _, tk := range []Task{a, b} {
		for i, h := range p.homes(t0, tk, js, 32.0) {
			if h && js[i].Assigned == 0 {
				js[i].Cached = cachedSet("d42", "d43")
				js[i].Assigned = js[i].Slots
				busy++
			}
		}
	}
	if busy == len(js) {
		t.Fatal("no free judge left for the test")
	}
	if d := p.Pick(t0, a, js); d.Hold != HoldAffinity {
		t.Fatalf("a: %+v", d)
	}
	if d := p.Pick(t0.Add(1500*time.Millisecond), b, js); d.Hold != HoldAffinity {
		t.Fatalf("b's clock starts at its own first hold: %+v", d)
	}
	if d := p.Pick(t0.Add(2*time.Second), a, js); d.Judge < 0 {
		t.Fatalf("a past its deferral: %+v", d)
	}
	if d := p.Pick(t0.Add(2*time.Second), b, js); d.Hold != HoldAffinity {
		t.Fatalf("b within its deferral: %+v", d)
	}
	if _, kept := p.held[a.SubmissionID]; kept {
		t.Fatal("a placed task's clock is kept (its next attempt would start late)")
	}
	// Clocks of tasks never seen again are swept.
	p.Pick(t0.Add(time.Minute), Task{SubmissionID: 3, ProblemID: 44, DataHash: "d44", Language: "cpp"}, js)
	if _, kept := p.held[b.SubmissionID]; kept || len(p.held) > 1 {
		t.Fatalf("stale clocks kept: %v", p.held)
	}
}

func TestBoundedUsesSpeed(t *testing.T) {
	// Four judges of 4 slots; which two are the problem's homes depends on
	// the ring, so each case describes judges by role: h1 and h2 (the
	// homes, h1 of higher ring weight), then x and y (not homes, x of
	// higher ring weight).
	type spec struct {
		speed  float64
		busy   bool
		cached bool
	}
	tests := []struct {
		name         string
		cfg          BoundedConfig
		h1, h2, x, y spec
		want         string // role chosen
		wantReason   string
	}{
		{"the faster of two warm homes", BoundedConfig{},
			spec{1, false, true}, spec{1.5, false, true}, spec{3, false, false}, spec{3, false, false}, "h2", "cached"},
		{"a faster warm judge beats a warm home", BoundedConfig{},
			spec{1, false, true}, spec{1.5, false, true}, spec{3, false, true}, spec{3, false, true}, "x", "cached_away"},
		{"class order: a warm home first", BoundedConfig{ClassOrder: true},
			spec{1, false, true}, spec{1.5, false, true}, spec{3, false, true}, spec{3, false, true}, "h2", "cached"},
		{"ring order ignores speed", BoundedConfig{RingOrder: true},
			spec{1, false, true}, spec{1.5, false, true}, spec{3, false, true}, spec{3, false, true}, "h1", "cached"},
		{"a warm home beats a faster cold one", BoundedConfig{},
			spec{1, false, true}, spec{2, false, false}, spec{3, false, false}, spec{3, false, false}, "h1", "cached"},
		{"a much faster cold judge beats a slow warm home", BoundedConfig{},
			spec{0.25, false, true}, spec{2, false, false}, spec{3, false, false}, spec{3, false, false}, "h2", "home"},
		{"homes busy, past the deferral: the fastest free", BoundedConfig{MaxDefer: -1},
			spec{1, true, true}, spec{1, true, true}, spec{0.5, false, false}, spec{2, false, false}, "y", "fastest"},
		{"homes busy, past the deferral, ring order", BoundedConfig{MaxDefer: -1, RingOrder: true},
			spec{1, true, true}, spec{1, true, true}, spec{0.5, false, false}, spec{2, false, false}, "x", "ring"},
		{"homes busy, past the deferral: a judge holding the data", BoundedConfig{MaxDefer: -1},
			spec{1, true, true}, spec{1, true, true}, spec{0.5, false, true}, spec{2, false, false}, "x", "cached_away"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.HotMinCount = 1000
			p := NewBounded(tc.cfg)
			task := Task{SubmissionID: 1, ProblemID: 42, DataHash: "d42", Language: "cpp"}
			js := judgesOf(4, 4, 4, 4)
			home := p.homes(t0, task, js, 16.0)
			var hs, xs []int
			for i := range js {
				if home[i] {
					hs = append(hs, i)
				} else {
					xs = append(xs, i)
				}
			}
			byRing := func(a, b int) int {
				if ringWeight(42, &js[a], float64(js[a].Slots)) > ringWeight(42, &js[b], float64(js[b].Slots)) {
					return -1
				}
				return 1
			}
			slices.SortFunc(hs, byRing)
			slices.SortFunc(xs, byRing)
			role := map[int]string{hs[0]: "h1", hs[1]: "h2", xs[0]: "x", xs[1]: "y"}
			for i := range js {
				s := map[string]spec{"h1": tc.h1, "h2": tc.h2, "x": tc.x, "y": tc.y}[role[i]]
				js[i].Speed = s.speed
				if s.busy {
					js[i].Assigned = js[i].Slots
				}
				if s.cached {
					js[i].Cached = cachedSet("d42")
				}
			}
			d := p.Pick(t0, task, js)
			if d.Judge < 0 || role[d.Judge] != tc.want || d.Reason != tc.wantReason {
				t.Fatalf("Pick = %+v (%s), want %s for %q", d, role[d.Judge], tc.want, tc.wantReason)
			}
		})
	}
}

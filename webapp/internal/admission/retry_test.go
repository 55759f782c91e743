package admission

import (
	"testing"
	"time"
)

// est is an estimate of a gate of 64 slots each held 0.32 s (200 slots
// free a second while all are taken), told between 1 and 10 s, with shed
// clients shed recently.
func est(shed float64) retryEstimate {
	e := newRetryEstimate(64, time.Second, 10*time.Second)
	e.hold, e.shed = 0.32, shed
	return e
}

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func TestRetryWindow(t *testing.T) {
	tests := []struct {
		name    string
		e       retryEstimate
		age     time.Duration // since the backlog was counted
		waiting int
		lo, hi  int
	}{
		{"nothing done yet: no wait known", newRetryEstimate(64, time.Second, 10*time.Second), 0, 256, 1, 1},
		{"idle gate", est(0), 0, 0, 1, 1},
		{"a short line", est(0), 0, 40, 1, 1},
		// 257 ÷ 200 = 1.3 s: the full line alone.
		{"full line, no backlog", est(0), 0, 256, 2, 2},
		// (256 + 400 + 1) ÷ 200 = 3.3 s, told up to half as long again.
		{"full line, 400 shed", est(400), 0, 256, 4, 5},
		{"full line, 1000 shed", est(1000), 0, 256, 7, 10},
		{"turn past the ceiling", est(2000), 0, 256, 8, 10},
		{"far past the ceiling", est(1e6), 0, 256, 8, 10},
		// 1000 × e^(−1) = 368: (368 + 1) ÷ 200 = 1.8 s.
		{"ten seconds after", est(1000), 10 * time.Second, 0, 2, 3},
		// 2000 × e^(−3) = 100: 0.5 s.
		{"recovered", est(2000), 30 * time.Second, 0, 1, 1},
		{"floor 3 s, turn 0.5 s", func() retryEstimate {
			e := newRetryEstimate(64, 3*time.Second, 10*time.Second)
			e.hold, e.shed = 0.32, 100
			return e
		}(), 0, 0, 3, 3},
		{"floor 3 s, turn 2 s", func() retryEstimate {
			e := newRetryEstimate(64, 3*time.Second, 10*time.Second)
			e.hold, e.shed = 0.32, 400
			return e
		}(), 0, 0, 3, 4},
		{"ceiling 6 s", func() retryEstimate {
			e := newRetryEstimate(64, time.Second, 6*time.Second)
			e.hold, e.shed = 0.32, 2000
			return e
		}(), 0, 256, 5, 6},
		{"one slot of 2 s", func() retryEstimate {
			e := newRetryEstimate(1, time.Second, 10*time.Second)
			e.hold = 2
			return e
		}(), 0, 1, 4, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.e.at = t0
			lo, hi := tc.e.window(t0.Add(tc.age), tc.waiting)
			if lo != tc.lo || hi != tc.hi {
				t.Errorf("window [%d, %d] s, want [%d, %d] (turn %.2f s)", lo, hi, tc.lo, tc.hi, tc.e.turn(t0.Add(tc.age), tc.waiting))
			}
		})
	}
}

func TestNewRetryEstimateRounds(t *testing.T) {
	tests := []struct {
		floor, ceiling time.Duration
		f, c           int
	}{
		{time.Second, 10 * time.Second, 1, 10},
		{0, 10 * time.Second, 1, 10},
		{1500 * time.Millisecond, 10900 * time.Millisecond, 2, 10},
		{5 * time.Second, 3 * time.Second, 5, 5},
	}
	for _, tc := range tests {
		if e := newRetryEstimate(0, tc.floor, tc.ceiling); e.floor != tc.f || e.ceiling != tc.c || e.slots != 1 {
			t.Errorf("(%v, %v): [%d, %d] s, %d slots; want [%d, %d] s, 1", tc.floor, tc.ceiling, e.floor, e.ceiling, e.slots, tc.f, tc.c)
		}
	}
}

func TestRetryHold(t *testing.T) {
	e := newRetryEstimate(64, time.Second, 10*time.Second)
	e.done(320 * time.Millisecond)
	if e.rate() != 200 {
		t.Fatalf("rate %v after one request of 0.32 s, want 200", e.rate())
	}
	// A storm makes every request slower: the mean follows within about
	// a hundred requests.
	for range 100 {
		e.done(640 * time.Millisecond)
	}
	if r := e.rate(); r < 100 || r > 110 {
		t.Fatalf("rate %v after 100 requests of 0.64 s, want about 100", r)
	}
}

// TestRetryTell: a storm of sheds, a second at a time, then quiet; what
// the sheds of each moment are told, with u from 0 to 1.
func TestRetryTell(t *testing.T) {
	e := est(0)
	e.at = t0
	window := func(at time.Duration, waiting int) (lo, hi int) {
		return e.window(t0.Add(at), waiting)
	}
	// 300 shed a second against 200 served: the backlog grows by the
	// 300 and the advice with it, never past the ceiling.
	var last int
	for s := range 20 {
		for i := range 300 {
			now := t0.Add(time.Duration(s)*time.Second + time.Duration(i)*time.Second/300)
			lo, hi := e.window(now, 256)
			got := e.tell(now, 256, float64(i)/300)
			if got < time.Duration(lo)*time.Second || got > time.Duration(hi)*time.Second || got > 10*time.Second {
				t.Fatalf("second %d: told %v outside [%d, %d] s", s, got, lo, hi)
			}
		}
		_, hi := window(time.Duration(s+1)*time.Second, 256)
		if hi < last {
			t.Fatalf("second %d of a storm: advice fell from %d s to %d s", s, last, hi)
		}
		last = hi
	}
	if lo, hi := window(20*time.Second, 256); lo != 8 || hi != 10 {
		t.Fatalf("after 20 s of storm: [%d, %d] s, want [8, 10]", lo, hi)
	}
	if e.shed > 2000 {
		t.Fatalf("backlog %v past what the ceiling covers (2000)", e.shed)
	}
	// Quiet: the advice falls back to the floor within 30 s.
	for _, tc := range []struct {
		at     time.Duration
		lo, hi int
	}{{25 * time.Second, 7, 10}, {30 * time.Second, 4, 6}, {40 * time.Second, 2, 3}, {50 * time.Second, 1, 1}} {
		if lo, hi := window(tc.at, 0); lo != tc.lo || hi != tc.hi {
			t.Errorf("%v after the storm began, line empty: [%d, %d] s, want [%d, %d]", tc.at, lo, hi, tc.lo, tc.hi)
		}
	}
}

// TestRetryJitter: the clients shed at the same moment are told every
// whole second of their window, each about as often, never outside it.
func TestRetryJitter(t *testing.T) {
	for _, shed := range []float64{1000, 1e6} {
		e := est(shed)
		e.at = t0
		lo, hi := e.window(t0, 256)
		count := map[time.Duration]int{}
		const n = 1000
		for i := range n {
			e.shed = shed // the same moment for every one
			count[e.tell(t0, 256, float64(i)/n)]++
		}
		for s := lo; s <= hi; s++ {
			if c := count[time.Duration(s)*time.Second]; c < n/(hi-lo+1)-1 || c > n/(hi-lo+1)+1 {
				t.Errorf("backlog %v: %d s told %d times of %d, want %d", shed, s, c, n, n/(hi-lo+1))
			}
			delete(count, time.Duration(s)*time.Second)
		}
		if len(count) != 0 {
			t.Errorf("backlog %v: told outside [%d, %d] s: %v", shed, lo, hi, count)
		}
		// u at its bounds (and a bad one) stays inside.
		for _, u := range []float64{0, 0.999999, 1, -1, 2} {
			if got := e.tell(t0, 256, u); got < time.Duration(lo)*time.Second || got > time.Duration(hi)*time.Second {
				t.Errorf("u %v: told %v outside [%d, %d] s", u, got, lo, hi)
			}
		}
	}
}

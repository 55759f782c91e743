package ratelimit

import (
	"testing"
	"time"
)

var testPolicy = Policy{Free: 5, Base: time.Second, Max: 5 * time.Minute, Window: 15 * time.Minute}

func TestDelay(t *testing.T) {
	tests := []struct {
		count int
		want  time.Duration
	}{
		{0, 0}, {1, 0}, {5, 0},
		{6, time.Second}, {7, 2 * time.Second}, {8, 4 * time.Second},
		{13, 128 * time.Second}, {14, 256 * time.Second},
		{15, 5 * time.Minute}, {16, 5 * time.Minute}, {1000, 5 * time.Minute},
	}
	for _, tc := range tests {
		if got := testPolicy.Delay(tc.count); got != tc.want {
			t.Errorf("Delay(%d) = %v, want %v", tc.count, got, tc.want)
		}
	}
}

func TestDecide(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		count   int
		sinceMs int64 // now - last failure
		blocked bool
		wait    time.Duration
	}{
		{"no failures", 0, 0, false, 0},
		{"free failures", 5, 0, false, 0},
		{"first beyond free, just failed", 6, 0, true, time.Second},
		{"first beyond free, 400 ms later", 6, 400, true, 600 * time.Millisecond},
		{"first beyond free, waited", 6, 1000, false, 0},
		{"third beyond free", 8, 1500, true, 2500 * time.Millisecond},
		{"capped", 40, 60_000, true, 4 * time.Minute},
		{"capped, waited", 40, 300_000, false, 0},
		{"forgotten after the window", 40, 15 * 60_000, false, 0},
		{"just inside the window", 40, 15*60_000 - 1, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := t0.Add(time.Duration(tc.sinceMs) * time.Millisecond)
			blocked, wait := Decide(tc.count, t0, now, testPolicy)
			if blocked != tc.blocked || wait != tc.wait {
				t.Fatalf("Decide(%d, %d ms ago) = %v, %v; want %v, %v", tc.count, tc.sinceMs, blocked, wait, tc.blocked, tc.wait)
			}
		})
	}
}

func TestGCRA(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	const iv = 10 * time.Second // 6 a minute
	tests := []struct {
		name string
		tat  time.Time
		now  time.Time
		ok   bool
		wait time.Duration
	}{
		{"empty bucket", time.Time{}, t0, true, 0},
		{"nine queued", t0.Add(9 * iv), t0, true, 0},
		{"burst used up", t0.Add(10 * iv), t0, false, iv},
		{"burst used up, 4 s later", t0.Add(10 * iv), t0.Add(4 * time.Second), false, 6 * time.Second},
		{"one drained", t0.Add(10 * iv), t0.Add(iv), true, 0},
		{"long quiet", t0, t0.Add(time.Hour), true, 0},
	}
	for _, tc := range tests {
		ok, _, wait := GCRA(tc.tat, tc.now, iv, 10)
		if ok != tc.ok || wait != tc.wait {
			t.Errorf("%s: GCRA = %v, %v; want %v, %v", tc.name, ok, wait, tc.ok, tc.wait)
		}
	}
}

package sched

import (
	"testing"
	"time"
)

func TestQueueTrend(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	for _, tc := range []struct {
		name    string
		lengths []int64 // one sample a second
		want    float64
		ok      bool
	}{
		{"no samples", nil, 0, false},
		{"one sample", []int64{5}, 0, false},
		{"shorter than MinSpan", []int64{0, 10, 20}, 0, false},
		{"steady growth", []int64{0, 2, 4, 6, 8, 10}, 2, true},
		{"flat", []int64{7, 7, 7, 7, 7}, 0, true},
		{"draining", []int64{10, 8, 6, 4, 2}, -2, true},
		{"one spike is not growth", []int64{5, 5, 5, 5, 40, 5, 5, 5, 5}, 0, true},
		{"only the window counts", []int64{100, 90, 80, 70, 60, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := QueueTrend{Window: 8 * time.Second, MinSpan: 3 * time.Second}
			for i, l := range tc.lengths {
				q.Add(QueueSample{At: at(float64(i)), Length: l})
			}
			got, ok := q.Growth()
			if ok != tc.ok || (ok && (got < tc.want-1e-9 || got > tc.want+1e-9)) {
				t.Fatalf("Growth() = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	t.Run("clock going back starts over", func(t *testing.T) {
		q := QueueTrend{Window: time.Minute, MinSpan: time.Second}
		q.Add(QueueSample{At: at(10), Length: 1})
		q.Add(QueueSample{At: at(20), Length: 50})
		q.Add(QueueSample{At: at(5), Length: 3})
		if _, ok := q.Growth(); ok {
			t.Fatal("a trend across a clock jump")
		}
	})
}

func TestOverloaded(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   NoticeInput
		want bool
	}{
		{"growing and saturated", NoticeInput{Saturated: true, Length: 50, Growth: 0.5, TrendOK: true, Drain: 3}, true},
		{"one busy pass: no trend yet", NoticeInput{Saturated: true, Length: 50, Growth: 0, TrendOK: false, Drain: 3}, false},
		{"long but draining", NoticeInput{Saturated: true, Length: 500, Growth: -2, TrendOK: true, Drain: 10}, false},
		{"long and flat: drains as fast as it grows", NoticeInput{Saturated: true, Length: 500, Growth: 0, TrendOK: true, Drain: 10}, false},
		{"growing but a judge is free", NoticeInput{Saturated: false, Length: 50, Growth: 1, TrendOK: true, Drain: 3}, false},
		{"empty queue", NoticeInput{Saturated: true, Length: 0, Growth: 0, TrendOK: true, Drain: 0}, false},
		{"nothing drains, queue holds", NoticeInput{Saturated: true, Length: 2, Growth: 0, TrendOK: true, Drain: 0}, true},
		{"nothing drains, queue shrinking (leases expiring)", NoticeInput{Saturated: true, Length: 2, Growth: -0.1, TrendOK: true, Drain: 0}, false},
		{"nothing drains, no trend yet", NoticeInput{Saturated: true, Length: 2, TrendOK: false, Drain: 0}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Overloaded(tc.in); got != tc.want {
				t.Fatalf("Overloaded(%+v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestPositionETA(t *testing.T) {
	for _, tc := range []struct {
		name     string
		position int
		drain    float64
		want     int
	}{
		{"no position", 0, 2, 0},
		{"no rate", 5, 0, 0},
		{"negative rate", 5, -1, 0},
		{"first in line", 1, 2, 1},
		{"follows the position, not the queue", 10, 2, 5},
		{"rounds up", 11, 2, 6},
		{"slow drain", 3, 0.1, 30},
		{"capped", 1 << 30, 1e-9, 1<<31 - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PositionETA(tc.position, tc.drain); got != tc.want {
				t.Fatalf("PositionETA(%d, %v) = %d, want %d", tc.position, tc.drain, got, tc.want)
			}
		})
	}
}

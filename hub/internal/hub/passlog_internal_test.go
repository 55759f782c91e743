package hub

import (
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/schedtrace"
)

func TestPassLogPages(t *testing.T) {
	t0 := time.UnixMicro(1_000_000)
	fill := func(n int) *passLog {
		l := newPassLog(4)
		for i := range n {
			l.add(t0.Add(time.Duration(i)*time.Millisecond), time.Duration(i)*time.Microsecond, i%2)
		}
		return l
	}
	pass := func(i int) schedtrace.HubPass {
		return schedtrace.HubPass{StartUs: 1_000_000 + int64(i)*1000, TookUs: int64(i), Placed: i % 2}
	}
	for _, tc := range []struct {
		name       string
		added      int
		after      uint64
		limit      int
		want       []int // the passes listed, by sequence number
		next, lost uint64
	}{
		{"empty", 0, 0, 10, nil, 0, 0},
		{"all from the start", 3, 0, 10, []int{0, 1, 2}, 3, 0},
		{"from the middle", 3, 1, 10, []int{1, 2}, 3, 0},
		{"nothing new", 3, 3, 10, nil, 3, 0},
		{"a page", 4, 0, 2, []int{0, 1}, 2, 0},
		{"the ring overran", 7, 0, 10, []int{3, 4, 5, 6}, 7, 3},
		{"the ring overran since the last read", 7, 2, 10, []int{3, 4, 5, 6}, 7, 1},
		{"a page after an overrun", 7, 1, 2, []int{3, 4}, 5, 2},
		{"after beyond the last (a restarted hub)", 2, 9, 10, nil, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fill(tc.added).after(tc.after, tc.limit)
			if got.Next != tc.next || got.Lost != tc.lost || len(got.Passes) != len(tc.want) {
				t.Fatalf("next %d lost %d passes %v, want next %d lost %d passes %v", got.Next, got.Lost, got.Passes, tc.next, tc.lost, tc.want)
			}
			for i, seq := range tc.want {
				if got.Passes[i] != pass(seq) {
					t.Fatalf("passes[%d] = %+v, want %+v", i, got.Passes[i], pass(seq))
				}
			}
		})
	}
	if l := newPassLog(0); l != nil {
		t.Fatal("a log of 0 passes keeps something")
	}
	var none *passLog
	none.add(t0, time.Millisecond, 1) // a hub without a log: no-op
}

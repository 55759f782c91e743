package hub

import (
	"context"
	"testing"
	"time"
)

// TestFanOut: every delivery is made, in order, with a pause before each
// slice but the first, each slice at least fanOutSlice deliveries; a huge
// push takes larger slices so that its pauses stay within fanOutSpread;
// no pauses once the context is done.
func TestFanOut(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	maxPauses := int(fanOutSpread / fanOutPause)
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		n      int
		pauses int
	}{
		{"none", context.Background(), 0, 0},
		{"one slice", context.Background(), fanOutSlice, 0},
		{"one more than a slice", context.Background(), fanOutSlice + 1, 1},
		{"a contest of 3,000", context.Background(), 3000, (3000 - 1) / fanOutSlice},
		{"so many that the slices grow", context.Background(), 4 * maxPauses * fanOutSlice, maxPauses - 1},
		{"the hub stopping", cancelled, 3000, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			pauses, since := 0, 0
			fanOut(tc.ctx, tc.n, func(i int) { got = append(got, i); since++ }, func(d time.Duration) {
				if d != fanOutPause {
					t.Errorf("paused %v, want %v", d, fanOutPause)
				}
				if since < fanOutSlice {
					t.Errorf("paused after %d deliveries, fewer than a slice (%d)", since, fanOutSlice)
				}
				pauses, since = pauses+1, 0
			})
			if len(got) != tc.n {
				t.Fatalf("%d deliveries, want %d", len(got), tc.n)
			}
			for i, x := range got {
				if x != i {
					t.Fatalf("delivery %d went to %d: out of order", i, x)
				}
			}
			if pauses != tc.pauses {
				t.Errorf("%d pauses, want %d", pauses, tc.pauses)
			}
		})
	}
}

package hub

import (
	"testing"
	"time"
)

// Browsers that connect together check their sessions apart: each first
// check falls in the second half of the interval (a session that ends is
// noticed within it), spread over that half rather than all at once.
func TestFirstSessionChecksSpread(t *testing.T) {
	const every = time.Minute
	lo, hi := every, time.Duration(0)
	for range 1000 {
		d := firstSessionCheck(every)
		if d < every/2 || d > every {
			t.Fatalf("first check after %v, want within [%v, %v]", d, every/2, every)
		}
		lo, hi = min(lo, d), max(hi, d)
	}
	if hi-lo < every/4 {
		t.Fatalf("1000 first checks within %v of each other (%v to %v): not spread", hi-lo, lo, hi)
	}
}

package hub

import (
	"context"
	"time"
)

// A board push to every browser of a contest is paced: slices of at least
// fanOutSlice subscribers, fanOutPause apart. Each delivery wakes its
// browser's writer goroutine; thousands woken at once overflow the Go
// scheduler's run queue of the processor that woke them (256 goroutines)
// into the global queue, and the network is polled only once both are
// empty (or by the runtime's monitor every 10 ms, which appends what it
// found to the global queue): every goroutine the network readies
// meanwhile (a judge's result, an enqueue's notice, Redis's answers)
// waits behind the whole burst, while nginx and the browsers take the
// burst of frames at the same moment. A slice fits the local queue;
// during the pause its writers run, and what the network readied with
// them. A push's pauses stay within fanOutSpread: a larger audience takes
// larger slices.
const (
	fanOutSlice  = 128
	fanOutPause  = 2 * time.Millisecond
	fanOutSpread = 50 * time.Millisecond
)

// fanOut calls deliver for 0 … n-1 in order, pausing (sleep) fanOutPause
// before each slice but the first; no pause once ctx is done (every
// delivery is still made: a board pushed to half the browsers would leave
// them apart).
func fanOut(ctx context.Context, n int, deliver func(i int), sleep func(time.Duration)) {
	slice := max(fanOutSlice, (n+int(fanOutSpread/fanOutPause)-1)/int(fanOutSpread/fanOutPause))
	for i := range n {
		if i > 0 && i%slice == 0 && ctx.Err() == nil {
			sleep(fanOutPause)
		}
		deliver(i)
	}
}

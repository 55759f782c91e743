package hub

import (
	"testing"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/protocol"
)

func TestHoldTally(t *testing.T) {
	var h holdTally
	enq := time.UnixMilli(1796223600123)
	pass := func(ms int) time.Time { return enq.Add(time.Duration(ms) * time.Millisecond) }
	if h.take(1, enq) != nil {
		t.Fatal("an empty tally took a count")
	}
	h.add(1, enq, sched.HoldNone, pass(1)) // placed: nothing to count
	if h.take(1, enq) != nil {
		t.Fatal("a placement counted as a hold")
	}
	h.add(1, enq, sched.HoldBusy, pass(2))
	h.add(1, enq, sched.HoldAffinity, pass(5))
	h.add(1, enq, sched.HoldAffinity, pass(9))
	h.add(1, enq, sched.HoldReserve, pass(10))
	h.add(1, enq, sched.HoldNoJudge, pass(11))
	h.add(1, enq.Add(time.Millisecond), sched.HoldBusy, pass(12)) // another enqueue (a rejudge's)
	got := h.take(1, enq)
	want := protocol.Held{Busy: 1, NoJudge: 1, Affinity: 2, Reserve: 1, AffinityMs: pass(5).UnixMilli()}
	if got == nil || *got != want {
		t.Fatalf("take = %+v, want %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
	if h.take(1, enq) != nil {
		t.Fatal("a count was taken twice")
	}
	if got := h.take(1, enq.Add(time.Millisecond)); got == nil || *got != (protocol.Held{Busy: 1}) {
		t.Fatalf("the other enqueue's count = %+v, want busy 1", got)
	}
}

// What no pass of this hub places does not pile up: the old go first,
// and if the young are too many, all of them.
func TestHoldTallyBounded(t *testing.T) {
	start := time.UnixMilli(1796223600000)
	var h holdTally
	for i := range perEnqueueMax {
		h.add(int64(i+1), start, sched.HoldBusy, start)
	}
	later := start.Add(perEnqueueKeep + time.Second)
	h.add(1e9, later, sched.HoldBusy, later)
	if h.m.len() != 1 {
		t.Fatalf("%d counted after the old ones went; want 1", h.m.len())
	}
	for i := range 3 * perEnqueueMax {
		h.add(int64(i+1), later, sched.HoldBusy, later)
		if h.m.len() > perEnqueueMax {
			t.Fatalf("%d counted, more than %d", h.m.len(), perEnqueueMax)
		}
	}
}

package hub

import (
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/protocol"
)

// holdTally counts, per enqueue, the dispatch passes that held it and
// why (sched.PassResult.Holds), until the pass that places the attempt
// takes the count for its push (protocol.Task.Held). Only the
// dispatcher touches it (dispatchOnce): no lock. Bounded as perEnqueue
// says, each entry stamped when a pass first held it.
type holdTally struct {
	m perEnqueue[protocol.Held]
}

// add counts a hold of sub's enqueue at enqueued, by the pass begun at
// pass. HoldNone (placed) counts nothing.
func (h *holdTally) add(sub int64, enqueued time.Time, why sched.Hold, pass time.Time) {
	if why == sched.HoldNone {
		return
	}
	held := &h.m.entry(keyOf(sub, enqueued), pass).v
	switch why {
	case sched.HoldBusy:
		held.Busy++
	case sched.HoldNoJudge:
		held.NoJudge++
	case sched.HoldAffinity:
		if held.Affinity == 0 {
			held.AffinityMs = pass.UnixMilli()
		}
		held.Affinity++
	case sched.HoldReserve:
		held.Reserve++
	}
}

// take returns the count of sub's enqueue at enqueued and forgets it;
// nil when no pass held it.
func (h *holdTally) take(sub int64, enqueued time.Time) *protocol.Held {
	e := h.m.take(keyOf(sub, enqueued))
	if e == nil {
		return nil
	}
	return &e.v
}

package hub

import (
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/protocol"
)

// holdTally counts, per enqueue, the dispatch passes that held it and
// why (sched.PassResult.Holds), until the pass that places the attempt
// takes the count for its push (protocol.Task.Held). Only the
// dispatcher touches it (dispatchOnce): no lock. Bounded like
// noticeTimes: what no pass of this hub places (another hub took it, a
// rejudge replaced it) is dropped once noticedMax enqueues are counted,
// those first held more than noticedKeep ago first; if that leaves more
// than half, all.
type holdTally struct {
	m map[noticeKey]*heldSince
}

// heldSince is one enqueue's count and when a pass first held it.
type heldSince struct {
	held  protocol.Held
	first time.Time
}

// add counts a hold of sub's enqueue at enqueued, by the pass begun at
// pass. HoldNone (placed) counts nothing.
func (h *holdTally) add(sub int64, enqueued time.Time, why sched.Hold, pass time.Time) {
	if why == sched.HoldNone {
		return
	}
	if h.m == nil {
		h.m = make(map[noticeKey]*heldSince)
	}
	k := noticeKey{sub, enqueued.UnixMilli()}
	e := h.m[k]
	if e == nil {
		if len(h.m) >= noticedMax {
			for k, e := range h.m {
				if pass.Sub(e.first) > noticedKeep {
					delete(h.m, k)
				}
			}
			if len(h.m) > noticedMax/2 {
				clear(h.m)
			}
		}
		e = &heldSince{first: pass}
		h.m[k] = e
	}
	switch why {
	case sched.HoldBusy:
		e.held.Busy++
	case sched.HoldNoJudge:
		e.held.NoJudge++
	case sched.HoldAffinity:
		if e.held.Affinity == 0 {
			e.held.AffinityMs = pass.UnixMilli()
		}
		e.held.Affinity++
	case sched.HoldReserve:
		e.held.Reserve++
	}
}

// take returns the count of sub's enqueue at enqueued and forgets it;
// nil when no pass held it.
func (h *holdTally) take(sub int64, enqueued time.Time) *protocol.Held {
	k := noticeKey{sub, enqueued.UnixMilli()}
	e := h.m[k]
	if e == nil {
		return nil
	}
	delete(h.m, k)
	held := e.held
	return &held
}

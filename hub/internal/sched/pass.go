package sched

import (
	"fmt"
	"math"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// Placement is one task a dispatch pass placed.
type Placement struct {
	// Task is the index of the task in the slice passed to Pass.
	Task int
	// Judge is the index of the chosen judge in the judges passed to Pass.
	Judge int
	// Reason and Prefetch are the policy's (Decision).
	Reason   string
	Prefetch bool
}

// PassResult is what one dispatch pass decided.
type PassResult struct {
	// Placed lists the placed tasks in queue order.
	Placed []Placement
	// Busy: at least one task was held because the judges that could run
	// it were all busy (HoldBusy): the overload notice's "saturated".
	Busy bool
	// Asked is how many times the policy was asked (Pick calls): a task of
	// a language already found busy or without a judge in this pass is
	// held without asking.
	Asked int
	// Tasks is how many tasks the pass looked at (len of its input).
	Tasks int
	// Reserved is how many background tasks the pass held to keep the
	// reserve free (Reserve), without asking the policy. Not an overload.
	Reserved int
	// Holds is why each task was held, by its index in the tasks passed to
	// Pass (HoldNone: placed): the policy's Decision.Hold, the hold of its
	// kind for a task held without asking after a busy or no-judge hold,
	// HoldReserve for background work held for the reserve. The hub tells
	// each push how often it was held and why (protocol.Held), which the
	// contest rehearsal sets beside the simulator's holds of the same task.
	Holds []Hold
}

// Reserve keeps part of the judges' slots free for urgent work while
// background work waits in the queue. The queue already puts urgent work
// first, but a staff rejudge of thousands of submissions otherwise takes
// every slot that frees, and a contestant's submission arriving then
// waits for the next slot to free (at the 10x contest rehearsal the
// rejudge at 2h0m raised the contest's dispatch wait p99 from about 40 ms
// to 240-280 ms). Background work still gets every slot beyond the
// reserve, and the whole cluster when the reserve would leave it none.
type Reserve struct {
	// Below: a task whose Priority is below it is background work (the
	// hub: a rejudge, the rank below practice).
	Below int
	// Share of the slots of the judges not draining that background
	// work leaves free: ceil(Share × slots), at most slots − 1. 0: no
	// reserve.
	Share float64
}

// RejudgeReserve is the reserve the hub and the simulator keep: rejudges
// (the rank below practice) are the background work; share ≤ 0: none.
func RejudgeReserve(share float64) Reserve {
	return Reserve{Below: protocol.PriorityPractice.Rank(), Share: max(share, 0)}
}

// DefaultReserveShare is the hub's default Reserve.Share.
const DefaultReserveShare = 0.125

// Slots is how many of total slots r keeps free: ceil(Share × total), at
// most total − 1 (background work keeps one slot), 0 for Share ≤ 0.
func (r Reserve) Slots(total int) int {
	if r.Share <= 0 || total <= 1 {
		return 0
	}
	return min(int(math.Ceil(r.Share*float64(total)-1e-9)), total-1)
}

// Validate reports a share outside [0, 1).
func (r Reserve) Validate() error {
	if !(r.Share >= 0 && r.Share < 1) {
		return fmt.Errorf("reserve share %v: want at least 0 and below 1", r.Share)
	}
	return nil
}

// Again reports whether the caller should run another pass at once: this
// one placed something and looked at a full window of window tasks, so
// more may wait behind it.
func (r PassResult) Again(window int) bool { return len(r.Placed) > 0 && r.Tasks >= window }

// Pass is the hub's dispatch pass over the head of the queue, shared by
// the hub (hub/internal/hub) and the scheduling simulator (package sim) so
// the two cannot diverge. It asks p, at now, for each of tasks in queue
// order, and counts every placement in its judge's Assigned and
// SinceHeartbeat (judges is modified: the caller passes a fresh view per
// pass), so later tasks of the same pass see it.
//
// A busy or no-judge hold depends only on the judges and the task's
// language and needs (Task.Kind, see Hold): once a kind is held so, the
// rest of the pass holds its tasks without asking the policy (nothing in the pass frees a
// slot). Other holds (HoldAffinity) concern one task and the pass goes on.
//
// Background work (Task.Priority below rs.Below) is placed only while the
// judges' assigned tasks (their Assigned, the pass's placements included)
// stay below their slots minus the reserve (Reserve.Slots); a background
// task beyond that is held without asking the policy (PassResult.Reserved).
//
// The caller then takes the leases of the placed tasks and hands each to
// its judge; a task whose lease fails (another hub took it) simply stays
// with whoever has it.
func Pass(now time.Time, p Policy, tasks []Task, judges []Judge, rs Reserve) PassResult {
	r := PassResult{Tasks: len(tasks), Holds: make([]Hold, len(tasks))}
	// The background work's limit: the judges' slots less the reserve.
	slots, assigned := 0, 0
	for i := range judges {
		if !judges[i].Draining {
			slots += judges[i].SlotCount()
			assigned += judges[i].Assigned
		}
	}
	reserve := rs.Slots(slots)
	var stuck map[string]Hold // kinds (Task.Kind) held busy or without a judge
	for i := range tasks {
		t := &tasks[i]
		if reserve > 0 && t.Priority < rs.Below && assigned >= slots-reserve {
			r.Reserved++
			r.Holds[i] = HoldReserve
			continue
		}
		if h, ok := stuck[t.Kind()]; ok {
			r.Holds[i] = h
			continue
		}
		r.Asked++
		d := p.Pick(now, *t, judges)
		if d.Judge < 0 {
			r.Holds[i] = d.Hold
			switch d.Hold {
			case HoldBusy, HoldNoJudge:
				if d.Hold == HoldBusy {
					r.Busy = true
				}
				if stuck == nil {
					stuck = map[string]Hold{}
				}
				stuck[t.Kind()] = d.Hold
			}
			continue
		}
		judges[d.Judge].Assigned++
		judges[d.Judge].SinceHeartbeat++
		if !judges[d.Judge].Draining {
			assigned++
		}
		r.Placed = append(r.Placed, Placement{Task: i, Judge: d.Judge, Reason: d.Reason, Prefetch: d.Prefetch})
	}
	return r
}

// Dispatcher defaults, shared by the hub's configuration and the
// scheduling simulator.
const (
	// DefaultPeekWindow is how many queue head tasks one pass considers.
	DefaultPeekWindow = 64
	// DefaultDispatchTick is how often a pass runs when nothing wakes the
	// dispatcher.
	DefaultDispatchTick = 250 * time.Millisecond
)

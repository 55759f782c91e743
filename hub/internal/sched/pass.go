package sched

import "time"

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
// The caller then takes the leases of the placed tasks and hands each to
// its judge; a task whose lease fails (another hub took it) simply stays
// with whoever has it.
func Pass(now time.Time, p Policy, tasks []Task, judges []Judge) PassResult {
	r := PassResult{Tasks: len(tasks)}
	var stuck map[string]bool // kinds (Task.Kind) held busy or without a judge
	for i := range tasks {
		t := &tasks[i]
		if stuck[t.Kind()] {
			continue
		}
		r.Asked++
		d := p.Pick(now, *t, judges)
		if d.Judge < 0 {
			switch d.Hold {
			case HoldBusy, HoldNoJudge:
				if d.Hold == HoldBusy {
					r.Busy = true
				}
				if stuck == nil {
					stuck = map[string]bool{}
				}
				stuck[t.Kind()] = true
			}
			continue
		}
		judges[d.Judge].Assigned++
		judges[d.Judge].SinceHeartbeat++
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

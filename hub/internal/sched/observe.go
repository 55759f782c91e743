package sched

import "time"

// Outcome is what the caller learns when a task it placed ends.
type Outcome struct {
	// Judge is the ID of the judge the task was placed on.
	Judge string
	Task  Task
	// Latency is the time from dispatch to the result, as the caller saw it
	// (local queue, data download and run time on the judge).
	Latency time.Duration
	// Failed: the placement ended without a result (lease expired).
	Failed bool
	// Run is how long the task ran on the judge, as its result reports it
	// (the sum of its cases' wall times); 0 if unknown.
	Run time.Duration
}

// Observer is implemented by policies that learn from outcomes (the
// default policy's speed estimates; the lab's Peak-EWMA, adaptive and
// window_swrr). A caller that has an Observer reports the end of every
// task it placed, once.
type Observer interface {
	Observe(now time.Time, o Outcome)
}

// utilisation is Assigned per slot.
func utilisation(j *Judge) float64 { return float64(j.Assigned) / float64(j.SlotCount()) }

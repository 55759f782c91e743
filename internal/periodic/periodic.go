package periodic

import (
	"sync"
	"time"
)

// Task is a function run every interval until it returns false or Stop.
type Task struct {
	every time.Duration
	fn    func() bool

	mu      sync.Mutex
	t       *time.Timer
	stopped bool
	running sync.WaitGroup
}

// Every runs fn every d (the first run d from now), each run d after the
// previous one ended, until fn returns false or Stop is called. fn must
// not call Stop (Stop joins it); returning false is its way to stop.
func Every(d time.Duration, fn func() bool) *Task { return EveryFrom(d, d, fn) }

// EveryFrom is Every with the first run first from now: tasks started
// together (a mass reconnect) with first spread run apart from then on.
func EveryFrom(first, d time.Duration, fn func() bool) *Task {
	t := &Task{every: d, fn: fn}
	t.mu.Lock()
	t.t = time.AfterFunc(first, t.run)
	t.mu.Unlock()
	return t
}

func (t *Task) run() {
	t.mu.Lock()
	if t.stopped {
		t.mu.Unlock()
		return
	}
	t.running.Add(1) // under mu, before any Stop: its Wait sees it
	t.mu.Unlock()
	defer t.running.Done()
	again := t.fn()
	t.mu.Lock()
	defer t.mu.Unlock()
	if again && !t.stopped {
		t.t.Reset(t.every)
	}
}

// Stop stops the task and waits for a run under way. It is idempotent and
// safe for concurrent use; a nil Task does nothing.
func (t *Task) Stop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.stopped = true
	t.t.Stop()
	t.mu.Unlock()
	t.running.Wait()
}

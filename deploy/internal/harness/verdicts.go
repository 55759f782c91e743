package harness

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// Final is one final verdict seen on a browser's WebSocket, and when.
type Final struct {
	At      time.Time
	Verdict protocol.Verdict
}

// Verdicts matches submission ids to the first final verdict the users'
// live WebSockets deliver, in whichever order the POST's answer and the
// verdict arrive. Safe for concurrent use.
type Verdicts struct {
	mu    sync.Mutex
	seen  map[int64]Final
	last  map[int64]Final // the latest status before the final one (Saw)
	waits map[int64]chan Final
}

// NewVerdicts returns an empty Verdicts.
func NewVerdicts() *Verdicts {
	return &Verdicts{seen: map[int64]Final{}, last: map[int64]Final{}, waits: map[int64]chan Final{}}
}

// Done records submission id's final verdict; a later one is ignored.
func (t *Verdicts) Done(id int64, f Final) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.seen[id]; ok {
		return
	}
	t.seen[id] = f
	if w := t.waits[id]; w != nil {
		w <- f
		delete(t.waits, id)
	}
}

// Saw records a status of submission id before its final one (queued,
// judging), for a report of where a verdict that never came stopped; one
// after the final is ignored.
func (t *Verdicts) Saw(id int64, f Final) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.seen[id]; !ok {
		t.last[id] = f
	}
}

// Last returns the latest status Saw recorded for submission id.
func (t *Verdicts) Last(id int64) (Final, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.last[id]
	return f, ok
}

// Seen returns submission id's final verdict if one came.
func (t *Verdicts) Seen(id int64) (Final, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.seen[id]
	return f, ok
}

// Wait returns submission id's final verdict, waiting for it until ctx
// ends.
func (t *Verdicts) Wait(ctx context.Context, id int64) (Final, error) {
	t.mu.Lock()
	if f, ok := t.seen[id]; ok {
		t.mu.Unlock()
		return f, nil
	}
	w := make(chan Final, 1)
	t.waits[id] = w
	t.mu.Unlock()
	select {
	case f := <-w:
		return f, nil
	case <-ctx.Done():
		t.mu.Lock()
		delete(t.waits, id)
		t.mu.Unlock()
		return Final{}, fmt.Errorf("harness: no final verdict for submission %d: %w", id, ctx.Err())
	}
}

// waiting is how many Wait calls are blocked (for tests).
func (t *Verdicts) waiting() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.waits)
}

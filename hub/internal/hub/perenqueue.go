package hub

import "time"

// perEnqueueMax and perEnqueueKeep bound what a perEnqueue remembers:
// entries no pass takes (the attempt was placed before its notice came,
// by another hub, or replaced by a rejudge's enqueue) are dropped once
// there are perEnqueueMax, those stamped more than perEnqueueKeep ago
// first; if that leaves more than half, all.
const (
	perEnqueueMax  = 1 << 16
	perEnqueueKeep = 10 * time.Minute
)

// enqueueKey is one enqueue: the submission and the queue's time of it
// (Queued.EnqueuedAt, kept across requeues; a rejudge's enqueue has its
// own).
type enqueueKey struct {
	sub, enqueuedMs int64
}

func keyOf(sub int64, enqueued time.Time) enqueueKey {
	return enqueueKey{sub, enqueued.UnixMilli()}
}

// perEnqueue is what the hub remembers of each enqueue until the
// dispatch pass that places the attempt takes it for its push: when its
// notice was read (noticeTimes), how the passes held it (holdTally).
// Each entry carries a time, its stamp, by which it is evicted. Not safe
// for concurrent use: its owner locks.
type perEnqueue[V any] struct {
	m map[enqueueKey]*stamped[V]
}

// stamped is one entry: its value and its time.
type stamped[V any] struct {
	at time.Time
	v  V
}

// entry returns k's entry, a new one stamped at (with V's zero value)
// when there is none; making room first when the map is full.
func (p *perEnqueue[V]) entry(k enqueueKey, at time.Time) *stamped[V] {
	if e := p.m[k]; e != nil {
		return e
	}
	if p.m == nil {
		p.m = make(map[enqueueKey]*stamped[V])
	}
	if len(p.m) >= perEnqueueMax {
		for k, e := range p.m {
			if at.Sub(e.at) > perEnqueueKeep {
				delete(p.m, k)
			}
		}
		if len(p.m) > perEnqueueMax/2 {
			clear(p.m)
		}
	}
	e := &stamped[V]{at: at}
	p.m[k] = e
	return e
}

// take returns k's entry and forgets it; nil when there is none.
func (p *perEnqueue[V]) take(k enqueueKey) *stamped[V] {
	e := p.m[k]
	delete(p.m, k)
	return e
}

// len is how many entries are remembered.
func (p *perEnqueue[V]) len() int { return len(p.m) }

package hub

import (
	"sync"
	"time"
)

// noticedMax and noticedKeep bound what noticeTimes remembers: notices
// no pass takes (the attempt was placed before its notice came, or by
// another hub) are dropped once there are noticedMax entries, those read
// more than noticedKeep ago first; if that leaves more than half, all.
const (
	noticedMax  = 1 << 16
	noticedKeep = 10 * time.Minute
)

// noticeTimes remembers when this hub read each enqueue's notice until
// the dispatch pass that places the attempt takes the time for its push
// (protocol.Task.NoticedMs). The pub/sub reader adds, the dispatcher
// takes: the contest rehearsal's trace gets each task's own notice, and
// the scheduling simulator's replay wakes its dispatcher as late as the
// hub's was woken for that very task (a drawn notice lands on a moment
// when the hub was not slow, and the hub's stalls hold every notice of
// their moment together).
type noticeTimes struct {
	mu sync.Mutex
	at map[noticeKey]time.Time
}

// noticeKey is one enqueue: the submission and the queue's time of it
// (Queued.EnqueuedAt, kept across requeues; a rejudge's enqueue has its
// own).
type noticeKey struct {
	sub, enqueuedMs int64
}

// add records that the notice of sub's enqueue at enqueued was read at
// read.
func (n *noticeTimes) add(sub int64, enqueued, read time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.at == nil {
		n.at = make(map[noticeKey]time.Time)
	}
	if len(n.at) >= noticedMax {
		for k, t := range n.at {
			if read.Sub(t) > noticedKeep {
				delete(n.at, k)
			}
		}
		if len(n.at) > noticedMax/2 {
			clear(n.at)
		}
	}
	n.at[noticeKey{sub, enqueued.UnixMilli()}] = read
}

// take returns when the notice of sub's enqueue at enqueued was read and
// forgets it; ok false when this hub has not read it.
func (n *noticeTimes) take(sub int64, enqueued time.Time) (read time.Time, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := noticeKey{sub, enqueued.UnixMilli()}
	read, ok = n.at[k]
	delete(n.at, k)
	return read, ok
}

// len is how many notices are remembered.
func (n *noticeTimes) len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.at)
}

package hub

import (
	"sync"
	"time"
)

// noticeTimes remembers when this hub read each enqueue's notice until
// the dispatch pass that places the attempt takes the time for its push
// (protocol.Task.NoticedMs). The pub/sub reader adds, the dispatcher
// takes: the contest rehearsal's trace gets each task's own notice, and
// the scheduling simulator's replay wakes its dispatcher as late as the
// hub's was woken for that very task (a drawn notice lands on a moment
// when the hub was not slow, and the hub's stalls hold every notice of
// their moment together). Bounded as perEnqueue says.
type noticeTimes struct {
	mu sync.Mutex
	at perEnqueue[struct{}] // each entry stamped when its notice was read
}

// add records that the notice of sub's enqueue at enqueued was read at
// read (the latest read, if it was read twice).
func (n *noticeTimes) add(sub int64, enqueued, read time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.at.entry(keyOf(sub, enqueued), read).at = read
}

// take returns when the notice of sub's enqueue at enqueued was read and
// forgets it; ok false when this hub has not read it.
func (n *noticeTimes) take(sub int64, enqueued time.Time) (read time.Time, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if e := n.at.take(keyOf(sub, enqueued)); e != nil {
		return e.at, true
	}
	return time.Time{}, false
}

// len is how many notices are remembered.
func (n *noticeTimes) len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.at.len()
}

package judging

import (
	"slices"
	"time"
)

// publishPlan says when each contest's board is published next: pure (the
// caller passes now and holds the lock), table-tested.
//
// A changed board is published at once when no node published it within
// the publish interval (the leading edge: a result in a quiet minute is on
// the browsers' boards without waiting for a tick), else as soon as the
// interval since the last publish, by this node or another, is over: the
// publisher learns when from the cluster-wide publish lock's remaining
// time and wakes then, instead of at its next tick. With a ticker, a
// result waited for the tick, and a tick that came a moment before the
// other node's lock expired waited a whole interval more.
type publishPlan struct {
	dirty     map[int64]bool
	notBefore map[int64]time.Time // no publish before (the lock's expiry as last seen)
}

func newPublishPlan() publishPlan {
	return publishPlan{dirty: map[int64]bool{}, notBefore: map[int64]time.Time{}}
}

// mark records that a contest's board changed.
func (p *publishPlan) mark(id int64) { p.dirty[id] = true }

// due returns the changed contests that may be published at now, sorted,
// and takes them off the changed list (a change after this is published
// next time).
func (p *publishPlan) due(now time.Time) []int64 {
	var ids []int64
	for id := range p.dirty {
		if nb, ok := p.notBefore[id]; ok && now.Before(nb) {
			continue
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		delete(p.dirty, id)
		delete(p.notBefore, id)
	}
	slices.Sort(ids)
	return ids
}

// wait puts a contest back on the changed list, to be published at until
// at the earliest: the lock is held (by another node) until then, or a
// publish failed and is tried again then.
func (p *publishPlan) wait(id int64, until time.Time) {
	p.dirty[id] = true
	p.notBefore[id] = until
}

// published records a publish of the contest whose lock lasts until
// until: a change before then waits for it.
func (p *publishPlan) published(id int64, until time.Time) {
	p.notBefore[id] = until
}

// next is when the publisher has something to do: the earliest time a
// changed contest may be published (ok false: nothing changed). Past
// publishes of contests that did not change since are forgotten.
func (p *publishPlan) next(now time.Time) (at time.Time, ok bool) {
	for id, nb := range p.notBefore {
		if !p.dirty[id] && !now.Before(nb) {
			delete(p.notBefore, id)
		}
	}
	for id := range p.dirty {
		nb := p.notBefore[id] // zero: at once
		if !ok || nb.Before(at) {
			at, ok = nb, true
		}
	}
	return at, ok
}

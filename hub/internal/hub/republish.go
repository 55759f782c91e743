package hub

import (
	"context"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/internal/queue"
)

// Final states the hub could not publish are published again every
// republishEvery, for at most republishFor (then the owner's page shows
// the verdict on its next read from MySQL).
const (
	republishEvery = 500 * time.Millisecond
	republishFor   = 10 * time.Minute
	republishBatch = 256
)

// unpublished holds final live states whose publish failed after their
// result was completed (and acknowledged to the judge, which will not send
// it again): only the hub publishes a final state, so without this one
// lost to a Redis restart between the completion and the publish left
// the submission "judging" on its owner's socket for good (four in the 40×
// rehearsal with faults, 2026-12-07). Keyed by submission: a later
// attempt's final replaces an earlier one's.
type unpublished struct {
	mu sync.Mutex
	m  map[int64]unpublishedFinal
}

type unpublishedFinal struct {
	u     queue.SubmissionUpdate
	since time.Time
}

// add keeps us to publish again, unless a later attempt's is kept.
func (p *unpublished) add(us []queue.SubmissionUpdate, since time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[int64]unpublishedFinal{}
	}
	for _, u := range us {
		if old, ok := p.m[u.SubmissionID]; ok && old.u.Attempt > u.Attempt {
			continue
		}
		p.m[u.SubmissionID] = unpublishedFinal{u: u, since: since}
	}
}

// take removes and returns up to n of the kept states, and how many it
// dropped for being kept longer than republishFor before now.
func (p *unpublished) take(n int, now time.Time) (batch []unpublishedFinal, dropped int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, f := range p.m {
		if len(batch) == n {
			break
		}
		delete(p.m, id)
		if now.Sub(f.since) > republishFor {
			dropped++
			continue
		}
		batch = append(batch, f)
	}
	return batch, dropped
}

// putBack keeps a batch whose publish failed again, each with its own
// since, unless a later attempt's came meanwhile.
func (p *unpublished) putBack(batch []unpublishedFinal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range batch {
		if old, ok := p.m[f.u.SubmissionID]; ok && old.u.Attempt >= f.u.Attempt {
			continue
		}
		p.m[f.u.SubmissionID] = f
	}
}

func (p *unpublished) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.m)
}

// republishLoop publishes the kept final states again until Redis takes
// them. Each is whole (one script, guarded by its attempt): one a failed
// call had applied after all is published twice, the same state, and a
// browser takes the first final it sees.
func (h *Hub) republishLoop(ctx context.Context) {
	t := time.NewTicker(republishEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if n := h.finals.len(); n > 0 {
				h.log.Warn("final states never published: their owners read them from the web nodes", "count", n)
			}
			return
		case <-t.C:
		}
		for ctx.Err() == nil {
			batch, dropped := h.finals.take(republishBatch, time.Now())
			if dropped > 0 {
				h.m.republished.WithLabelValues("dropped").Add(float64(dropped))
				h.log.Warn("final states not published within the bound: their owners read them from the web nodes",
					"count", dropped, "bound", republishFor)
			}
			if len(batch) == 0 {
				break
			}
			us := make([]queue.SubmissionUpdate, len(batch))
			for i, f := range batch {
				us[i] = f.u
			}
			if _, err := h.q.PublishSubmissions(ctx, us); err != nil {
				h.finals.putBack(batch)
				break // Redis still failing: the next tick
			}
			h.m.republished.WithLabelValues("published").Add(float64(len(batch)))
			h.log.Info("final states published again", "count", len(batch))
		}
	}
}

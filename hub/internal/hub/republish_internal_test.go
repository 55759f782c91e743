package hub

import (
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/queue"
)

func TestUnpublished(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 13, 0, 0, 0, time.UTC)
	u := func(id int64, attempt int) queue.SubmissionUpdate {
		return queue.SubmissionUpdate{SubmissionID: id, Attempt: attempt}
	}
	var p unpublished
	p.add([]queue.SubmissionUpdate{u(1, 2), u(2, 1)}, t0)
	p.add([]queue.SubmissionUpdate{u(1, 1)}, t0.Add(time.Second)) // an earlier attempt's: the later one stays
	p.add([]queue.SubmissionUpdate{u(3, 1)}, t0.Add(-republishFor-time.Second))
	if p.len() != 3 {
		t.Fatalf("kept %d, want 3", p.len())
	}
	batch, dropped := p.take(10, t0)
	if dropped != 1 || len(batch) != 2 || p.len() != 0 {
		t.Fatalf("took %+v, dropped %d, left %d: want submissions 1 and 2, 3 dropped (kept too long), none left", batch, dropped, p.len())
	}
	attempts := map[int64]int{}
	for _, f := range batch {
		attempts[f.u.SubmissionID] = f.u.Attempt
	}
	if attempts[1] != 2 || attempts[2] != 1 {
		t.Fatalf("took %v, want submission 1's attempt 2 and 2's attempt 1", attempts)
	}
	// The publish failed again: back, each with its own since, but not
	// over a later attempt's that came meanwhile.
	p.add([]queue.SubmissionUpdate{u(2, 2)}, t0.Add(time.Minute))
	p.putBack(batch)
	if p.len() != 2 || p.m[1].since != t0 || p.m[2].u.Attempt != 2 {
		t.Fatalf("after putBack: %+v, want 1 (since t0) and 2's attempt 2", p.m)
	}
	// take bounds the batch.
	if b, _ := p.take(1, t0); len(b) != 1 || p.len() != 1 {
		t.Fatalf("take(1) took %d, left %d", len(b), p.len())
	}
}

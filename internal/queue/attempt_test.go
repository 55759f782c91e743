package queue_test

import (
	"context"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// Attempt follows the task through enqueue, an expired lease (Reap
// raises the attempt MySQL does not know about), a result and a rejudge.
func TestAttemptFollowsTheTask(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	want := func(step string, id int64, attempt int, held bool) {
		t.Helper()
		a, ok, err := q.Attempt(ctx, id)
		if err != nil || a != attempt || ok != held {
			t.Fatalf("%s: Attempt(%d) = %d, %v, %v; want %d, %v", step, id, a, ok, err, attempt, held)
		}
	}
	want("never enqueued", 8, 0, false)
	if err := q.Enqueue(ctx, task(8, 1, protocol.PriorityPractice, base)); err != nil {
		t.Fatal(err)
	}
	want("enqueued", 8, 1, true)
	const lease = 300 * time.Millisecond
	if j, err := q.LeaseHolder(ctx, 8); err != nil || j != "" {
		t.Fatalf("queued: LeaseHolder = %q, %v; want none", j, err)
	}
	at, err := q.Lease(ctx, ref(8, 1), "j1", lease)
	if err != nil {
		t.Fatal(err)
	}
	if j, err := q.LeaseHolder(ctx, 8); err != nil || j != "j1" {
		t.Fatalf("leased: LeaseHolder = %q, %v; want j1", j, err)
	}
	time.Sleep(time.Until(at.Add(lease + 100*time.Millisecond)))
	if exp, err := q.Reap(ctx, 10); err != nil || len(exp) != 1 || exp[0].Ref != ref(8, 2) {
		t.Fatalf("reap: %+v, %v", exp, err)
	}
	want("lease expired and requeued", 8, 2, true)
	if _, err := q.Lease(ctx, ref(8, 2), "j2", time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Complete(ctx, "j2", result(8, 2, "j2")); err != nil {
		t.Fatal(err)
	}
	want("done", 8, 2, true)
	if err := q.Enqueue(ctx, task(8, 3, protocol.PriorityRejudge, base)); err != nil {
		t.Fatal(err)
	}
	want("rejudged", 8, 3, true)
	want("another submission", 9, 0, false)

	if err := env.Client.HSet(ctx, env.Names.Task(10), "attempt", "x").Err(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := q.Attempt(ctx, 10); err == nil {
		t.Fatal("a malformed attempt field read without an error")
	}
	// Many at once: 0 for none and for a malformed field.
	if got, err := q.Attempts(ctx, []int64{8, 9, 10}); err != nil || len(got) != 3 || got[0] != 3 || got[1] != 0 || got[2] != 0 {
		t.Fatalf("Attempts = %v, %v; want [3 0 0]", got, err)
	}
	if j, err := q.LeaseHolder(ctx, 8); err != nil || j != "" {
		t.Fatalf("rejudged (queued): LeaseHolder = %q, %v; want none", j, err)
	}
}

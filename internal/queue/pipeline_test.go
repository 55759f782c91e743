package queue_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
)

// CompleteMany completes each result as Complete would, in order: a
// judge's own leases complete, another judge's is stale, a repeat in the
// same call is answered as the first (Again), an invalid result is
// refused alone; after Redis forgot
// its scripts (a restart) it loads them again; a dead connection fails
// the whole call.
func TestCompleteManyAsCompleteEach(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	for id := int64(1); id <= 4; id++ {
		if err := q.Enqueue(ctx, task(id, 1, protocol.PriorityContest, base.Add(time.Duration(id)*time.Second))); err != nil {
			t.Fatal(err)
		}
		judge := "j1"
		if id == 4 {
			judge = "j2"
		}
		if _, err := q.Lease(ctx, ref(id, 1), judge, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	bad := result(3, 1, "j1")
	bad.Verdict = "nonsense"
	done, err := q.CompleteMany(ctx, "j1", []protocol.Result{
		result(1, 1, "j1"), result(4, 1, "j1"), result(2, 1, "j1"), result(2, 1, "j1"), bad,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []error{nil, queue.ErrStale, nil, nil, queue.ErrInvalidTask}
	for i, c := range done {
		if (want[i] == nil) != (c.Err == nil) || (want[i] != nil && !errors.Is(c.Err, want[i])) || (c.Err == nil) == (c.ID == "") {
			t.Errorf("result %d: %+v, want error %v", i, c, want[i])
		}
		if c.Again != (i == 3) {
			t.Errorf("result %d: Again = %v", i, c.Again)
		}
	}
	if done[3].ID != done[2].ID {
		t.Errorf("the repeat answered entry %s, the first %s", done[3].ID, done[2].ID)
	}
	var got []int64
	for _, e := range results(t, env) {
		got = append(got, e.SubmissionID)
	}
	if !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("results stream holds %v, want [1 2]", got)
	}

	if err := env.Client.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if done, err := q.CompleteMany(ctx, "j1", []protocol.Result{result(3, 1, "j1")}); err != nil || done[0].Err != nil {
		t.Fatalf("after SCRIPT FLUSH: %+v, %v", done, err)
	}
	if n, _ := q.Leased(ctx); n != 1 {
		t.Fatalf("%d leases left, want 1 (j2's)", n)
	}

	dead := redis.NewClient(&redis.Options{Addr: env.Client.Options().Addr})
	_ = dead.Close()
	dq, err := queue.New(queue.Config{Client: dead, Names: env.Names})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dq.CompleteMany(ctx, "j2", []protocol.Result{result(4, 1, "j2")}); err == nil {
		t.Fatal("CompleteMany on a closed client: no error")
	}
	if n, _ := q.Leased(ctx); n != 1 {
		t.Fatalf("%d leases left after a failed call, want 1", n)
	}
}

// PublishSubmissions leaves each submission's live state and sequence as
// the same updates one PublishSubmission at a time do, guards included,
// and loads its script again after Redis forgot it.
func TestPublishSubmissionsAsPublishEach(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	for _, id := range []int64{4, 5} {
		if err := q.Enqueue(ctx, task(id, 1, protocol.PriorityPractice, base)); err != nil {
			t.Fatal(err)
		}
		if _, err := q.Lease(ctx, ref(id, 1), "j1", time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	ac := func(n int) protocol.CaseResult { return protocol.CaseResult{Case: n, Verdict: protocol.VerdictAC} }
	updates := func(id int64) []queue.SubmissionUpdate {
		return []queue.SubmissionUpdate{
			{SubmissionID: id, Attempt: 1, Status: protocol.VerdictCompiling, Guard: queue.GuardLeased},
			{SubmissionID: id, Attempt: 1, Status: protocol.VerdictJudging, Cases: []protocol.CaseResult{ac(1), ac(2)}, Guard: queue.GuardLeased},
			{SubmissionID: id, Attempt: 1, Status: protocol.VerdictJudging, Cases: []protocol.CaseResult{ac(2)}, Guard: queue.GuardLeased},
			{SubmissionID: id, Attempt: 2, Status: protocol.VerdictJudging, Cases: []protocol.CaseResult{ac(3)}, Guard: queue.GuardLeased},
			{SubmissionID: id, Attempt: 1, Status: protocol.VerdictAC, Score: 100, Cases: []protocol.CaseResult{ac(1), ac(2), ac(3)}, Guard: queue.GuardAttempt},
		}
	}
	var each []bool
	for _, u := range updates(4) {
		ok, err := q.PublishSubmission(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		each = append(each, ok)
	}
	if err := env.Client.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	many, err := q.PublishSubmissions(ctx, updates(5))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(each, many) || !slices.Equal(many, []bool{true, true, false, false, true}) {
		t.Fatalf("published: one at a time %v, together %v", each, many)
	}
	a, err := q.Submission(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	b, err := q.Submission(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if a.Seq != b.Seq || a.State.Status != b.State.Status || a.State.Score != b.State.Score || len(a.State.Cases) != len(b.State.Cases) ||
		b.State.Status != protocol.VerdictAC || len(b.State.Cases) != 3 {
		t.Fatalf("one at a time %+v, together %+v", a, b)
	}
	if got, err := q.PublishSubmissions(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("no updates: %v, %v", got, err)
	}
}

package queue_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
)

func customTask(t *testing.T, q *queue.Queue, at time.Time) queue.Task {
	t.Helper()
	id, err := q.NewCustomRunID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tk := task(id, 1, protocol.PriorityCustom, at)
	tk.TestData = protocol.TestData{}
	tk.Custom = &protocol.CustomRun{Input: "1 2\n"}
	return tk
}

// TestCustomRunPriority: custom runs wait behind contest submissions and
// ahead of practice submissions and rejudges, whatever their times.
func TestCustomRunPriority(t *testing.T) {
	q, _ := newQueue(t)
	ctx := context.Background()
	rejudge := task(1, 1, protocol.PriorityRejudge, base)
	practice := task(2, 1, protocol.PriorityPractice, base.Add(time.Second))
	custom := customTask(t, q, base.Add(2*time.Second))
	contest := task(3, 1, protocol.PriorityContest, base.Add(3*time.Second))
	custom2 := customTask(t, q, base.Add(4*time.Second))
	for _, tk := range []queue.Task{rejudge, practice, custom, contest, custom2} {
		if err := q.Enqueue(ctx, tk); err != nil {
			t.Fatal(err)
		}
	}
	want := []int64{3, custom.SubmissionID, custom2.SubmissionID, 2, 1}
	if got := peekIDs(t, q); !slices.Equal(got, want) {
		t.Errorf("queue order %v, want %v (contest, custom runs, practice, rejudge)", got, want)
	}
}

// TestCustomRunLifecycle: a custom run's state goes to its owner's user
// channel, its result is stored with a TTL and never reaches the results
// stream (it is no submission), and a run whose leases all expire fails
// with a system error for its owner, also off the stream.
func TestCustomRunLifecycle(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	sub := env.Client.Subscribe(ctx, env.Names.Events("user", 7))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	events := sub.Channel()
	next := func() protocol.CustomRunState {
		t.Helper()
		select {
		case m := <-events:
			var ev protocol.Event
			if err := json.Unmarshal([]byte(m.Payload), &ev); err != nil || ev.Kind != protocol.EventCustomRun {
				t.Fatalf("event %s: %v", m.Payload, err)
			}
			var st protocol.CustomRunState
			if err := json.Unmarshal(ev.Body, &st); err != nil {
				t.Fatal(err)
			}
			return st
		case <-time.After(5 * time.Second):
			t.Fatal("no event on the user channel")
		}
		return protocol.CustomRunState{}
	}

	tk := customTask(t, q, base)
	if err := q.Enqueue(ctx, tk); err != nil {
		t.Fatal(err)
	}
	if st := next(); st.RunID != tk.SubmissionID || st.Status != protocol.VerdictQueued {
		t.Errorf("first event %+v, want queued", st)
	}
	if _, err := q.Lease(ctx, tk.TaskRef, "j1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := q.PublishCustomRun(ctx, queue.CustomRunUpdate{Owner: 7, Attempt: 1, Guard: queue.GuardLeased,
		State: protocol.CustomRunState{RunID: tk.SubmissionID, ProblemID: tk.ProblemID, Status: protocol.VerdictJudging}}); err != nil {
		t.Fatal(err)
	}
	if st := next(); st.Status != protocol.VerdictJudging {
		t.Errorf("progress event %+v", st)
	}
	res := protocol.Result{TaskRef: tk.TaskRef, Verdict: protocol.VerdictAC, JudgeID: "j1", Cases: []protocol.CaseResult{},
		Custom: []protocol.CustomOutput{{Verdict: protocol.VerdictAC, Stdout: "3\n", WallMs: 5}}}
	if _, err := q.Complete(ctx, "j2", res); !errors.Is(err, queue.ErrStale) {
		t.Errorf("complete by another judge: %v, want ErrStale", err)
	}
	if _, err := q.Complete(ctx, "j1", res); err != nil {
		t.Fatal(err)
	}
	st := next()
	if st.Status != protocol.VerdictAC || len(st.Runs) != 1 || st.Runs[0].Stdout != "3\n" || st.ProblemID != tk.ProblemID {
		t.Errorf("final event %+v", st)
	}
	rec, err := q.CustomRun(ctx, tk.SubmissionID)
	if err != nil || rec.Owner != 7 || rec.State.Status != protocol.VerdictAC {
		t.Errorf("stored run %+v, %v", rec, err)
	}
	ttl := env.Client.TTL(ctx, env.Names.CustomRun(tk.SubmissionID)).Val()
	if ttl <= 0 || ttl > queue.DefaultCustomRunTTL {
		t.Errorf("custom run TTL %v, want (0, %v]", ttl, queue.DefaultCustomRunTTL)
	}
	// The user channel's state (which also holds the user's submissions)
	// keeps the live TTL, not the custom run's shorter one.
	if ut := env.Client.TTL(ctx, env.Names.LiveState("user", 7)).Val(); ut <= queue.DefaultCustomRunTTL {
		t.Errorf("user state TTL %v after a custom run, want the live TTL %v", ut, queue.DefaultLiveTTL)
	}
	if _, err := q.CustomRun(ctx, tk.SubmissionID+999); !errors.Is(err, queue.ErrNoCustomRun) {
		t.Errorf("unknown run: %v", err)
	}

	// Leases that all expire: a system error for the owner, nothing on
	// the results stream.
	q2, err := queue.New(queue.Config{Client: env.Client, Names: env.Names, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	lost := customTask(t, q2, base)
	if err := q2.Enqueue(ctx, lost); err != nil {
		t.Fatal(err)
	}
	next()
	if _, err := q2.Lease(ctx, lost.TaskRef, "j1", time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	exp, err := q2.Reap(ctx, 10)
	if err != nil || len(exp) != 1 || exp[0].Requeued {
		t.Fatalf("reap: %+v, %v", exp, err)
	}
	if st := next(); st.RunID != lost.SubmissionID || st.Status != protocol.VerdictSE {
		t.Errorf("expired run event %+v, want SE", st)
	}
	if rs := results(t, env); len(rs) != 0 {
		t.Errorf("custom runs put %d entries on the results stream, want none", len(rs))
	}

	// A custom task needs a custom run id, and a custom run id a custom task.
	bad := task(protocol.CustomRunIDBase+5, 1, protocol.PriorityPractice, base)
	if err := q.Enqueue(ctx, bad); !errors.Is(err, queue.ErrInvalidTask) {
		t.Errorf("a submission task under a custom run id: %v, want ErrInvalidTask", err)
	}
}

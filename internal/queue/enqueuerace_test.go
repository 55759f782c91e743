package queue_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
)

// judgedInTheGap judges a task right after the enqueue script that made it
// visible, before Enqueue's next round trip: what a hub and a judge did
// while a loaded web node waited for a core between the two.
type judgedInTheGap struct {
	changed string // the queue-changed channel: in the enqueue script's keys
	judge   func(ctx context.Context)
	done    atomic.Bool
	busy    atomic.Bool
}

func (h *judgedInTheGap) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *judgedInTheGap) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *judgedInTheGap) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err == nil && !h.busy.Load() && !h.done.Load() && slices.Contains(cmd.Args(), any(h.changed)) {
			h.done.Store(true)
			h.busy.Store(true)
			h.judge(ctx)
			h.busy.Store(false)
		}
		return err
	}
}

// A verdict published before Enqueue's own "queued" stays: the queued
// state is published only while the attempt is still queued, and the
// owner, contest and feedback rule are in the live state from the enqueue
// itself, before any judge can have the task (the hub censors the
// verdict's event by them). The rehearsals of 2026-12-04 09:49 and 10:08
// each had one verdict that never reached its owner's page: the web node's
// "queued" came after it.
func TestEnqueueQueuedNeverOverwritesAVerdict(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	fb := &protocol.Feedback{Policy: protocol.FeedbackClosed, EndsAtMs: base.Add(time.Hour).UnixMilli()}
	var published bool
	hook := &judgedInTheGap{changed: env.Names.QueueChanged(), judge: func(ctx context.Context) {
		// The feedback rule is there for the hub before the verdict.
		live, err := env.Client.HGetAll(ctx, env.Names.LiveState("submission", 5)).Result()
		if err != nil || live["owner"] != "7" || live["contest"] != "3" || !strings.Contains(live["fb"], `"closed"`) {
			t.Errorf("the live state when a judge can first have the task: %v, %v; want owner 7, contest 3, the closed rule", live, err)
		}
		if _, err := q.Lease(ctx, ref(5, 1), "j1", time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, err := q.Complete(ctx, "j1", result(5, 1, "j1")); err != nil {
			t.Fatal(err)
		}
		published, err = q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: 5, Attempt: 1, Owner: 7,
			Status: protocol.VerdictAC, Score: 100, Guard: queue.GuardAttempt})
		if err != nil {
			t.Fatal(err)
		}
	}}
	env.Client.AddHook(hook)
	tk := task(5, 1, protocol.PriorityContest, base)
	tk.ContestID, tk.Feedback = 3, fb
	if err := q.Enqueue(ctx, tk); err != nil {
		t.Fatal(err)
	}
	if !hook.done.Load() || !published {
		t.Fatalf("the judge in the gap did not run (%v) or its verdict was not published (%v)", hook.done.Load(), published)
	}
	snap, err := q.Submission(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if snap.State.Status != protocol.VerdictAC || snap.Owner != 7 || snap.Feedback == nil || snap.Feedback.Policy != protocol.FeedbackClosed {
		t.Fatalf("after the enqueue: %+v, want AC with its owner and the closed rule", snap)
	}

	// Without the race, the enqueue publishes "queued" as before.
	if err := q.Enqueue(ctx, task(6, 1, protocol.PriorityContest, base)); err != nil {
		t.Fatal(err)
	}
	if snap, err := q.Submission(ctx, 6); err != nil || snap.State.Status != protocol.VerdictQueued || snap.Owner != 7 {
		t.Fatalf("a plain enqueue: %+v, %v; want queued, owner 7", snap, err)
	}
}

package hub_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// TestNoticeETAFollowsPosition: the notice a browser gets carries the ETA
// of its own submission's position, not the whole queue's (which the
// stored notice keeps, for a new submission).
func TestNoticeETAFollowsPosition(t *testing.T) {
	env := testenv.Redis(t)
	// The notice goes up when the queue grows faster than it drains over
	// the trend window (10 notice intervals, samples spanning 3): the
	// trend must have sampled the queue empty before it grows (below),
	// and at the helpers' 50 ms the window is half a second, so on a
	// loaded machine (the whole suite under -race) a late tick could find
	// those samples gone and never see growth. 250 ms: a 2.5 s window.
	th := startHub(t, env, func(c *hub.Config) { c.NoticeInterval = 250 * time.Millisecond })
	q := th.h.Queue()
	addSession(t, env, "cookie-7", 7, "")
	b, err := dialBrowser(t, th.url("/ws"), "cookie-7")
	if err != nil {
		t.Fatal(err)
	}
	b.subscribe("q", protocol.Channel{Kind: protocol.ChannelQueue})
	b.expect(protocol.TypeSnapshot)

	// Three tasks pass the gate and complete (a drain rate to go by); the
	// fourth holds the judge's one slot, so 5..8 wait in the queue.
	j := newFakeJudge(t, env, "busy", 1, func() string { return th.url("/judge") }, 5*time.Millisecond)
	j.gate = make(chan struct{}, 3)
	for range 3 {
		j.gate <- struct{}{}
	}
	j.start()
	defer close(j.gate)
	eventually(t, 5*time.Second, "judge ready", func() bool { return j.current() != nil })
	j.waitDispatchable(env)
	enqueue(t, q, newTask(1, 1, 7), newTask(2, 1, 7), newTask(3, 1, 7))
	waitResults(t, env, 3, 5*time.Second)
	// The queue is empty: let the trend sample it so (more than the 3
	// intervals its span needs) before it grows.
	time.Sleep(5 * 250 * time.Millisecond)
	enqueue(t, q, newTask(4, 1, 7), newTask(5, 1, 7), newTask(6, 1, 7), newTask(7, 1, 7), newTask(8, 1, 7))
	b.subscribe("s7", protocol.Channel{Kind: protocol.ChannelSubmission, ID: 7})

	deadline := time.Now().Add(15 * time.Second)
	for {
		msg, err := b.next(time.Until(deadline))
		if err != nil {
			t.Fatalf("no notice with submission 7 third of four: %v", err)
		}
		if msg.Type != protocol.TypeQueue {
			continue
		}
		n := decode[protocol.QueueNotice](t, msg)
		if n.Position != 3 || n.QueueLength != 4 || n.ETASeconds == 0 {
			continue // an earlier notice, before the queue settled
		}
		rate, err := q.CompletionRate(context.Background(), 2*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if want := sched.PositionETA(3, rate); n.ETASeconds != want {
			t.Fatalf("notice %+v: ETA %d s, want %d s (position 3 at %.3f tasks/s)", n, n.ETASeconds, want, rate)
		}
		raw, err := env.Client.Get(context.Background(), env.Names.QueueNotice()).Bytes()
		if err != nil {
			t.Fatal(err)
		}
		var stored protocol.QueueNotice
		if err := json.Unmarshal(raw, &stored); err != nil {
			t.Fatal(err)
		}
		if stored.ETASeconds != sched.PositionETA(4, rate) || stored.ETASeconds <= n.ETASeconds {
			t.Fatalf("stored notice %+v: want the whole queue's ETA, above the position's %d s", stored, n.ETASeconds)
		}
		return
	}
}

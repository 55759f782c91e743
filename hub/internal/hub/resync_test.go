package hub_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// A final verdict published while the hub's pub/sub connection is down
// (Redis restarted, the hub not yet subscribed again) is lost as an event,
// and no later event comes to show its owner a gap: once the pub/sub is
// back, the hub sends every subscription a fresh snapshot (the contest
// rehearsal with faults found six verdicts that never reached their
// owners, 2026-12-07).
func TestBrowsersResyncAfterPubSubLoss(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	addSession(t, env, "owner", 7, "")
	enqueue(t, q, newTask(5, 1, 7))
	b, err := dialBrowser(t, th.url("/ws"), "owner")
	if err != nil {
		t.Fatal(err)
	}
	sub := protocol.Channel{Kind: protocol.ChannelSubmission, ID: 5}
	user := protocol.Channel{Kind: protocol.ChannelUser, ID: 7}
	seqs := map[protocol.Channel]uint64{}
	for _, ch := range []protocol.Channel{sub, user} {
		b.subscribe(string(ch.Kind), ch)
		seqs[ch] = decode[protocol.Snapshot](t, b.expect(protocol.TypeSnapshot)).Seq
	}

	// The hub's pub/sub connections dropped (CLIENT KILL returns once they
	// are closed), and the verdict published before the hub reconnects
	// (it waits 200 ms after a failed read).
	ctx := context.Background()
	if err := env.Client.Do(ctx, "CLIENT", "KILL", "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: 5, Attempt: 1, Owner: 7,
		Status: protocol.VerdictAC, Guard: queue.GuardNone}); err != nil {
		t.Fatal(err)
	}

	// Both channels get a snapshot of their own, unasked (no id), newer
	// than what the browser had, with the verdict.
	got := map[protocol.Channel]bool{}
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < 2 {
		e, err := b.next(time.Until(deadline))
		if err != nil {
			t.Fatalf("no fresh snapshot of %v after the pub/sub came back (got %v): %v", []protocol.Channel{sub, user}, got, err)
		}
		if e.Type != protocol.TypeSnapshot {
			t.Fatalf("got %s %s, want the snapshots (the event was published while the hub was away)", e.Type, e.Data)
		}
		snap := decode[protocol.Snapshot](t, e)
		if e.ID != "" || snap.Seq <= seqs[snap.Channel] {
			t.Fatalf("snapshot %q of %v seq %d, want an unasked one newer than %d", e.ID, snap.Channel, snap.Seq, seqs[snap.Channel])
		}
		var final bool
		switch snap.Channel {
		case sub:
			var st protocol.SubmissionState
			final = json.Unmarshal(snap.State, &st) == nil && st.Status == protocol.VerdictAC
		case user:
			var st protocol.UserState
			final = json.Unmarshal(snap.State, &st) == nil && len(st.Items) == 1 && st.Items[0].Status == protocol.VerdictAC
		}
		if !final {
			t.Fatalf("the %s snapshot does not carry the verdict: %s", snap.Channel.Kind, snap.State)
		}
		got[snap.Channel] = true
		seqs[snap.Channel] = snap.Seq
	}
	eventually(t, 5*time.Second, "the resync counted", func() bool {
		return metric(t, th.reg, "verdict_hub_browser_resyncs_total", nil) >= 1
	})

	// And the events after it come in order, as before.
	if _, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: 5, Attempt: 1, Owner: 7,
		Status: protocol.VerdictAC, Score: 100, Guard: queue.GuardNone}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		ev := decode[protocol.Event](t, b.expect(protocol.TypeEvent))
		if ev.Seq != seqs[ev.Channel]+1 {
			t.Errorf("event of %v seq %d after its snapshot's %d, want the next", ev.Channel, ev.Seq, seqs[ev.Channel])
		}
	}
}

// The same for a contest's board: a change published while the pub/sub
// was away is pushed once it is back.
func TestBoardPushedAfterPubSubLoss(t *testing.T) {
	env, _, _, publish, b := boardPushEnv(t)
	if err := env.Client.Do(context.Background(), "CLIENT", "KILL", "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	publish(1)
	if got := lastBoard(t, b, 3*time.Second); got != 1 {
		t.Fatalf("the browser's board after the pub/sub came back shows board %d, want 1", got)
	}
}

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

// A browser whose socket was down when its verdict came learns it from the
// user channel's snapshot when it resubscribes.
func TestUserSnapshotCarriesMissedVerdicts(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	addSession(t, env, "owner", 7, "student")
	enqueue(t, q, newTask(21, 1, 7), newTask(22, 1, 7))
	ctx := context.Background()
	if _, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: 21, Attempt: 1, Owner: 7,
		Status: protocol.VerdictWA, Guard: queue.GuardNone}); err != nil {
		t.Fatal(err)
	}
	b, err := dialBrowser(t, th.url("/ws"), "owner")
	if err != nil {
		t.Fatal(err)
	}
	b.subscribe("u", protocol.Channel{Kind: protocol.ChannelUser, ID: 7})
	e, err := b.next(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if e.Type != protocol.TypeSnapshot || e.ID != "u" {
		t.Fatalf("got %s %s, want the user snapshot", e.Type, e.Data)
	}
	snap := decode[protocol.Snapshot](t, e)
	var st protocol.UserState
	if err := json.Unmarshal(snap.State, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Items) != 2 || st.Items[0].SubmissionID != 22 || st.Items[0].Status != protocol.VerdictQueued ||
		st.Items[1].SubmissionID != 21 || st.Items[1].Status != protocol.VerdictWA {
		t.Fatalf("user snapshot %s", snap.State)
	}
	if snap.Seq != 3 {
		t.Fatalf("user snapshot seq %d, want 3 (two enqueues, one verdict)", snap.Seq)
	}
}

package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// TestCustomRunLive: a custom run is dispatched to a judge like a
// submission, and its progress and output reach the owner's browser live
// on their user channel; nothing reaches the results stream.
func TestCustomRunLive(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	addSession(t, env, "cookie-7", 7, "")
	b, err := dialBrowser(t, th.url("/ws"), "cookie-7")
	if err != nil {
		t.Fatal(err)
	}
	b.subscribe("u", protocol.Channel{Kind: protocol.ChannelUser, ID: 7})
	b.expect(protocol.TypeSnapshot)

	j := newFakeJudge(t, env, "j1", 1, func() string { return th.url("/judge") }, 5*time.Millisecond).start()
	eventually(t, 5*time.Second, "judge ready", func() bool { return j.current() != nil })
	j.waitDispatchable(env)

	id, err := q.NewCustomRunID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tk := newTask(id, 1, 7)
	tk.TestData, tk.Feedback = protocol.TestData{}, nil
	tk.Priority = protocol.PriorityCustom
	tk.Custom = &protocol.CustomRun{Input: "21\n"}
	enqueue(t, q, tk)

	seen := map[protocol.Verdict]bool{}
	var final protocol.CustomRunState
	deadline := time.Now().Add(10 * time.Second)
	for final.Status != protocol.VerdictAC {
		e, err := b.next(time.Until(deadline))
		if err != nil {
			t.Fatalf("no final custom run event (saw %v): %v", seen, err)
		}
		if e.Type != protocol.TypeEvent {
			continue
		}
		ev := decode[protocol.Event](t, e)
		if ev.Kind != protocol.EventCustomRun {
			t.Fatalf("unexpected event %s on the user channel", e.Data)
		}
		var st protocol.CustomRunState
		if err := json.Unmarshal(ev.Body, &st); err != nil {
			t.Fatal(err)
		}
		if st.RunID != id {
			t.Fatalf("event of run %d, want %d", st.RunID, id)
		}
		seen[st.Status] = true
		final = st
	}
	if len(final.Runs) != 1 || final.Runs[0].Stdout != "echo 21\n" {
		t.Errorf("final state %+v", final)
	}
	if !seen[protocol.VerdictQueued] || !seen[protocol.VerdictCompiling] {
		t.Errorf("statuses seen %v, want queued and compiling before the outcome", seen)
	}
	// The judge got the custom task as enqueued: no test data.
	rec, err := q.CustomRun(context.Background(), id)
	if err != nil || rec.Owner != 7 {
		t.Fatalf("stored run %+v, %v", rec, err)
	}
	if n := env.Client.XLen(context.Background(), env.Names.Results()).Val(); n != 0 {
		t.Errorf("%d results stream entries, want none for a custom run", n)
	}
	if _, err := q.CustomRun(context.Background(), id+1); !errors.Is(err, queue.ErrNoCustomRun) {
		t.Errorf("a run that was never made: %v, want ErrNoCustomRun", err)
	}
}

package hub_test

import (
	"context"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// A judge whose heartbeats keep coming is not closed while the hub is slow
// to handle its messages: here Redis stalls every write for many heartbeat
// limits, so each message waits behind the one before it; the heartbeats
// count when they arrive.
func TestHeartbeatsCountWhenTheyArrive(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	addToken(t, env, "steady", "tok-steady")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, th.url("/judge"), &websocket.DialOptions{Subprotocols: []string{protocol.SubprotocolJudge}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	send := func(typ protocol.Type, v any) error {
		b, err := protocol.Marshal(typ, "", v)
		if err != nil {
			t.Fatal(err)
		}
		return c.Write(ctx, websocket.MessageText, b)
	}
	if err := send(protocol.TypeHello, protocol.Hello{JudgeID: "steady", Token: "tok-steady", AgentVersion: "test", Cores: 1,
		MemoryBytes: 1 << 30, Languages: []protocol.Language{{ID: "cpp17", Version: "g++"}}, MaxParallel: 1}); err != nil {
		t.Fatal(err)
	}
	if _, b, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	} else if e, err := protocol.Decode(protocol.LinkJudge, b); err != nil || e.Type != protocol.TypeWelcome {
		t.Fatalf("want welcome, got %s (%v)", b, err)
	}
	closed := make(chan error, 1)
	go func() {
		for {
			if _, _, err := c.Read(ctx); err != nil {
				closed <- err
				return
			}
		}
	}()
	beat := func() {
		if err := send(protocol.TypeHeartbeat, protocol.Heartbeat{Cores: 1}); err != nil {
			t.Errorf("heartbeat: %v", err)
		}
	}
	beat()
	limit := time.Duration(missedHeartbeats) * hbInterval
	stall := 4 * limit
	if err := env.Client.Do(ctx, "CLIENT", "PAUSE", stall.Milliseconds(), "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(stall + limit); time.Now().Before(end); time.Sleep(hbInterval) {
		beat()
		select {
		case err := <-closed:
			t.Fatalf("the hub closed a judge that kept sending heartbeats while Redis stalled: %v (close %v)", err, websocket.CloseStatus(err))
		default:
		}
	}
}

// A heartbeat that still lists an attempt whose result the hub has just
// recorded (the judge keeps a result it sent until the ack arrives) is
// not answered with a cancel: the attempt is finished, not lost. In the
// 3,000-contestant rehearsal the starved hub sent 16,906 such cancels.
func TestNoCancelForAnAttemptWhoseResultIsIn(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, send, next := dialRawJudge(ctx, t, env, th)
	before := time.Now()
	enqueue(t, th.h.Queue(), newTask(1, 1, 7))
	task, err := protocol.DecodeData[protocol.Task](next(protocol.TypeTask))
	if err != nil {
		t.Fatal(err)
	}
	// The push carries the queue's enqueue and its pass's start (the
	// judge logs the wait; the rehearsal's trace is built from them), in
	// order, on this machine's clock (Redis's is the same one).
	if enq, disp := task.Times(); enq.Before(before.Truncate(time.Millisecond)) || disp.Before(enq) || time.Since(disp) < 0 {
		t.Fatalf("the push's times: enqueued %v, dispatched %v (enqueued after %v)", enq, disp, before)
	}
	send(protocol.TypeAccept, protocol.Accept{TaskRef: task.TaskRef})
	// Stamped sent 250 ms ago (the judge's writer was slow): the ack
	// tells how long the result took to free its slot, counted from there.
	const late = 250 * time.Millisecond
	sentAt := time.Now()
	result := protocol.Result{TaskRef: task.TaskRef, Verdict: protocol.VerdictAC, Score: 100,
		Cases: []protocol.CaseResult{{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 5, WallMs: 7}}, JudgeID: "j1",
		SentMs: sentAt.Add(-late).UnixMilli()}
	send(protocol.TypeResult, result)
	// Before the ack is read, the judge still lists the attempt.
	send(protocol.TypeHeartbeat, protocol.Heartbeat{Cores: 1, Running: 0, Tasks: []protocol.TaskRef{task.TaskRef}})
	ack, err := protocol.DecodeData[protocol.ResultAck](next(protocol.TypeResultAck))
	if err != nil {
		t.Fatal(err)
	}
	// The stamp is in whole milliseconds, floored: up to 1 ms early.
	if lo, hi := float64(late.Milliseconds()), float64(late+time.Since(sentAt))/1e6+1; ack.SlotMs < lo || ack.SlotMs > hi {
		t.Errorf("the ack's slot_ms = %v, want the result's way from its sending to its slot free, in [%v, %v]", ack.SlotMs, lo, hi)
	}
	// The same result again (a resend: the ack crossed it) is known as
	// recorded and frees no slot: acknowledged with no slot time.
	send(protocol.TypeResult, result)
	if ack, err := protocol.DecodeData[protocol.ResultAck](next(protocol.TypeResultAck)); err != nil || ack.SlotMs != 0 || ack.TaskRef != task.TaskRef {
		t.Errorf("the resend's ack = %+v (err %v), want %v with no slot_ms", ack, err, task.TaskRef)
	}
	// A second heartbeat lists nothing; any cancel sent for the first
	// arrives before the answer to this ping-like round: wait a moment
	// and read what came.
	send(protocol.TypeHeartbeat, protocol.Heartbeat{Cores: 1, Tasks: []protocol.TaskRef{}})
	rctx, rcancel := context.WithTimeout(ctx, 4*hbInterval)
	defer rcancel()
	for {
		_, b, err := c.Read(rctx)
		if err != nil {
			return // nothing more came: no cancel
		}
		if e, err := protocol.Decode(protocol.LinkJudge, b); err == nil && e.Type == protocol.TypeCancel {
			t.Fatalf("the hub withdrew an attempt whose result it recorded: %s", b)
		}
	}
}

// A result the hub records but never placed (a lease this hub does not
// account to the judge: taken before a hub restart, say) frees no slot
// of its: it is acknowledged with no slot time, which the rehearsal's
// trace then leaves out (the replay draws one from its window).
func TestAckOfAResultThatFreedNoSlot(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, send, next := dialRawJudge(ctx, t, env, th)
	// In a language j1 does not offer: the hub never places it; the lease
	// is j1's all the same.
	task := newTask(1, 1, 7)
	task.Language = "py3"
	q := th.h.Queue()
	enqueue(t, q, task)
	if _, err := q.Lease(ctx, task.TaskRef, "j1", time.Minute); err != nil {
		t.Fatal(err)
	}
	send(protocol.TypeResult, protocol.Result{TaskRef: task.TaskRef, Verdict: protocol.VerdictAC, Score: 100,
		Cases: []protocol.CaseResult{{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 5, WallMs: 7}}, JudgeID: "j1",
		SentMs: time.Now().Add(-time.Second).UnixMilli()})
	ack, err := protocol.DecodeData[protocol.ResultAck](next(protocol.TypeResultAck))
	if err != nil {
		t.Fatal(err)
	}
	if ack.TaskRef != task.TaskRef || ack.SlotMs != 0 {
		t.Errorf("the ack = %+v, want %v with no slot_ms (no slot of j1's was taken by it)", ack, task.TaskRef)
	}
	if got := results(t, env)[task.SubmissionID]; len(got) != 1 || got[0].Verdict != protocol.VerdictAC {
		t.Errorf("the results stream holds %+v for it, want its one result recorded", got)
	}
}

// dialRawJudge connects judge j1 (one slot, C++) to th by hand: its
// token, hello, welcome and a first heartbeat with no tasks. send writes
// one message, next reads up to the first of type want (a cancel
// meanwhile fails the test). The link closes at the test's end.
func dialRawJudge(ctx context.Context, t *testing.T, env *testenv.RedisEnv, th *testHub) (c *websocket.Conn,
	send func(typ protocol.Type, v any), next func(want protocol.Type) protocol.Envelope) {
	t.Helper()
	addToken(t, env, "j1", "tok-j1")
	c, _, err := websocket.Dial(ctx, th.url("/judge"), &websocket.DialOptions{Subprotocols: []string{protocol.SubprotocolJudge}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	send = func(typ protocol.Type, v any) {
		t.Helper()
		b, err := protocol.Marshal(typ, "", v)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	next = func(want protocol.Type) protocol.Envelope {
		t.Helper()
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("waiting for %s: %v", want, err)
			}
			e, err := protocol.Decode(protocol.LinkJudge, b)
			if err != nil {
				t.Fatal(err)
			}
			if e.Type == want {
				return e
			}
			if e.Type == protocol.TypeCancel {
				t.Fatalf("cancel while waiting for %s: %s", want, b)
			}
		}
	}
	send(protocol.TypeHello, protocol.Hello{JudgeID: "j1", Token: "tok-j1", AgentVersion: "test", Cores: 1,
		MemoryBytes: 1 << 30, Languages: []protocol.Language{{ID: "cpp17", Version: "g++"}}, MaxParallel: 1})
	next(protocol.TypeWelcome)
	send(protocol.TypeHeartbeat, protocol.Heartbeat{Cores: 1, Tasks: []protocol.TaskRef{}})
	return c, send, next
}

// The push tells when this hub read the notice of the attempt's enqueue
// (the rehearsal's trace records it; the simulator's replay wakes its
// dispatcher as late): with no tick, that notice is what woke the pass,
// so it lies between the enqueue and the pass's start. A rejudge's
// enqueue has a notice of its own.
func TestPushTellsWhenTheNoticeCame(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, func(c *hub.Config) {
		c.DispatchInterval, c.HeartbeatInterval, c.LeaseTimeout = time.Hour, 10*time.Second, time.Minute
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, send, next := dialRawJudge(ctx, t, env, th)
	for attempt := 1; attempt <= 2; attempt++ {
		// Let the pass the last wake started (the judge's connection,
		// the result freeing its slot) end first: one that read the queue
		// before the notice came would rightly carry none.
		time.Sleep(200 * time.Millisecond)
		tk := newTask(5, 1, 7)
		tk.Attempt = attempt
		enqueue(t, th.h.Queue(), tk)
		task, err := protocol.DecodeData[protocol.Task](next(protocol.TypeTask))
		if err != nil {
			t.Fatal(err)
		}
		enq, disp := task.Times()
		noticed := task.Noticed()
		if task.Attempt != attempt || noticed.IsZero() || noticed.Before(enq) || disp.Before(noticed) {
			t.Fatalf("attempt %d: pushed attempt %d, enqueued %v, noticed %v, dispatched %v", attempt, task.Attempt, enq, noticed, disp)
		}
		send(protocol.TypeAccept, protocol.Accept{TaskRef: task.TaskRef})
		send(protocol.TypeResult, protocol.Result{TaskRef: task.TaskRef, Verdict: protocol.VerdictAC, Score: 100,
			Cases: []protocol.CaseResult{{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 5, WallMs: 7}}, JudgeID: "j1"})
		next(protocol.TypeResultAck)
	}
}

// The push tells how often the hub's passes held the attempt and why:
// none for a task placed at once; for one that found the judge's only
// slot taken, at least the pass its notice woke (busy), none for
// affinity, and the slot's freeing places it.
func TestPushTellsWhyItWasHeld(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, func(c *hub.Config) {
		c.DispatchInterval, c.HeartbeatInterval, c.LeaseTimeout = time.Hour, 10*time.Second, time.Minute
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, send, next := dialRawJudge(ctx, t, env, th)
	enqueue(t, th.h.Queue(), newTask(5, 1, 7))
	first, err := protocol.DecodeData[protocol.Task](next(protocol.TypeTask))
	if err != nil {
		t.Fatal(err)
	}
	if first.SubmissionID != 5 || first.Held != nil {
		t.Fatalf("first push: submission %d held %+v; want 5, never held", first.SubmissionID, first.Held)
	}
	send(protocol.TypeAccept, protocol.Accept{TaskRef: first.TaskRef})
	enqueue(t, th.h.Queue(), newTask(6, 1, 7))
	// The second waits for the only slot: its notice wakes a pass that
	// holds it. Wait for that pass before freeing the slot.
	eventually(t, 10*time.Second, "a pass held the second task", func() bool {
		return metric(t, th.reg, obs.HubDispatchHolds, map[string]string{"reason": "busy"}) >= 1
	})
	send(protocol.TypeResult, protocol.Result{TaskRef: first.TaskRef, Verdict: protocol.VerdictAC, Score: 100,
		Cases: []protocol.CaseResult{{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 5, WallMs: 7}}, JudgeID: "j1"})
	second, err := protocol.DecodeData[protocol.Task](next(protocol.TypeTask))
	if err != nil {
		t.Fatal(err)
	}
	if second.SubmissionID != 6 || second.Held == nil || second.Held.Busy < 1 ||
		second.Held.Affinity != 0 || second.Held.AffinityMs != 0 || second.Held.Reserve != 0 || second.Held.NoJudge != 0 {
		t.Fatalf("second push: submission %d held %+v; want 6, held busy at least once and for nothing else", second.SubmissionID, second.Held)
	}
}

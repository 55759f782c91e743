package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// The answer to a result's completion was lost (Redis stopped between
// running the script and answering it): the hub, with an error, sends no
// ack and publishes nothing, and the judge sends the result again once
// Redis is back. The queue answers that this judge's result completed the
// attempt already: the hub publishes the final state then, for no one
// else will (the 40× rehearsal with faults of 2026-12-07 17:52 left
// #23212 "compiling" on its owner's socket so: the repeat was called
// stale and dropped). A repeat after the final was published (its ack
// crossed it) publishes nothing, nor does one after a staff override.
func TestFinalPublishedForAResultWhoseCompletionAnswerWasLost(t *testing.T) {
	env := testenv.Redis(t)
	lost := &lostAnswer{match: func(cmd redis.Cmder) bool {
		a := cmd.Args()
		if (cmd.Name() != "evalsha" && cmd.Name() != "eval") || len(a) < 4 || a[3] != env.Names.Task(5) {
			return false
		}
		for _, v := range a[4:] { // the completion's result, whatever its place
			var r protocol.Result
			if b, ok := v.([]byte); ok && json.Unmarshal(b, &r) == nil && r.SubmissionID == 5 && r.Verdict != "" {
				return true
			}
		}
		return false
	}}
	env.Client.AddHook(lost)
	// Heartbeats 1 s apart and leases of 20 s: the hand-driven judge sends
	// one heartbeat, and a slow machine must neither close it for want of
	// the next nor take its task back.
	th := startHub(t, env, func(c *hub.Config) { c.HeartbeatInterval, c.LeaseTimeout = time.Second, 20*time.Second })
	addSession(t, env, "owner", 7, "")
	q := th.h.Queue()
	enqueue(t, q, newTask(5, 1, 7))
	b, err := dialBrowser(t, th.url("/ws"), "owner")
	if err != nil {
		t.Fatal(err)
	}
	b.subscribe("s", protocol.Channel{Kind: protocol.ChannelSubmission, ID: 5})
	b.expect(protocol.TypeSnapshot)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, send, next := dialRawJudge(ctx, t, env, th)
	task, err := protocol.DecodeData[protocol.Task](next(protocol.TypeTask))
	if err != nil {
		t.Fatal(err)
	}
	send(protocol.TypeAccept, protocol.Accept{TaskRef: task.TaskRef})
	result := protocol.Result{TaskRef: task.TaskRef, Verdict: protocol.VerdictAC, Score: 100,
		Cases: []protocol.CaseResult{{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 5, WallMs: 7}}, JudgeID: "j1"}
	// repeat sends the result again and reads its ack.
	repeat := func(why string) {
		t.Helper()
		send(protocol.TypeResult, result)
		if ack, err := protocol.DecodeData[protocol.ResultAck](next(protocol.TypeResultAck)); err != nil || ack.TaskRef != task.TaskRef {
			t.Fatalf("%s: the ack = %+v (err %v), want %v", why, ack, err, task.TaskRef)
		}
	}
	// status reads the next outcome the browser is sent in a status
	// event of the submission's channel ("" when none comes within wait).
	status := func(wait time.Duration) protocol.Verdict {
		t.Helper()
		deadline := time.Now().Add(wait)
		for {
			e, err := b.next(time.Until(deadline))
			if err != nil {
				return ""
			}
			if e.Type != protocol.TypeEvent {
				continue
			}
			var st protocol.SubmissionState
			if ev := decode[protocol.Event](t, e); ev.Channel.Kind == protocol.ChannelSubmission && ev.Kind == protocol.EventStatus &&
				json.Unmarshal(ev.Body, &st) == nil && st.Status.Final() {
				return st.Status
			}
		}
	}

	lost.on.Store(true)
	send(protocol.TypeResult, result)
	eventually(t, 5*time.Second, "the completion ran", func() bool { return lost.lost.Load() > 0 })
	lost.on.Store(false)
	if got := results(t, env)[5]; len(got) != 1 {
		t.Fatalf("the results stream holds %+v for #5, want the completion's one entry", got)
	}
	repeat("the judge got no ack and sent it again")
	if got := status(10 * time.Second); got != protocol.VerdictAC {
		t.Fatalf("the final verdict never reached the owner (%q)", got)
	}

	// A repeat that must publish nothing: the live state's seq stays. Its
	// publish would follow its ack within milliseconds (a slower one
	// would let this pass, never fail).
	unchanged := func(why string) {
		t.Helper()
		before, err := q.Submission(ctx, 5)
		if err != nil {
			t.Fatal(err)
		}
		repeat(why)
		time.Sleep(300 * time.Millisecond)
		if after, err := q.Submission(ctx, 5); err != nil || after.Seq != before.Seq || after.State.Status != before.State.Status {
			t.Errorf("%s: the live state went from %d %s to %+v (%v)", why, before.Seq, before.State.Status, after, err)
		}
	}
	unchanged("sent again, the ack crossing it")
	if _, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: 5, Attempt: 1, Owner: 7,
		Status: protocol.VerdictWA, Guard: queue.GuardNone}); err != nil { // as a staff override does
		t.Fatal(err)
	}
	if got := status(5 * time.Second); got != protocol.VerdictWA {
		t.Fatalf("the override reached the owner as %q", got)
	}
	unchanged("sent again after an override")

	if got := results(t, env)[5]; len(got) != 1 {
		t.Errorf("the results stream holds %d entries for #5, want 1", len(got))
	}
	if n := metric(t, th.reg, "verdict_hub_results_total", map[string]string{"outcome": "again"}); n != 3 {
		t.Errorf("results counted again: %v, want 3", n)
	}
}

// lostAnswer, while on, runs every command match picks and then fails it
// as a connection cut before Redis's answer arrived would (a pipeline
// holding one fails whole).
type lostAnswer struct {
	match func(redis.Cmder) bool
	on    atomic.Bool
	lost  atomic.Int64
}

var errCut = errors.New("read tcp: connection reset by peer")

func (l *lostAnswer) DialHook(next redis.DialHook) redis.DialHook { return next }

func (l *lostAnswer) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if err := next(ctx, cmd); err != nil || !l.on.Load() || !l.match(cmd) {
			return err
		}
		l.lost.Add(1)
		cmd.SetErr(errCut)
		return errCut
	}
}

func (l *lostAnswer) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		if err != nil || !l.on.Load() {
			return err
		}
		for _, c := range cmds {
			if l.match(c) {
				l.lost.Add(1)
				for _, c := range cmds {
					c.SetErr(errCut)
				}
				return errCut
			}
		}
		return nil
	}
}

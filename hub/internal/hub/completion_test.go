package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// The answer to a result's completion was lost (Redis stopped between
// running the script and answering it): the hub, with an error, sends no
// ack and publishes nothing, and the judge sends the result again once
// Redis is back. The queue answers that this judge's result completed the
// attempt already: the hub publishes the final state then, for no one
// else will (the 40× rehearsal with faults of 2026-12-07 17:52 left
// #23212 "compiling" on its owner's socket so: the repeat was called
// stale and dropped).
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
	th, b := ownerOfSubmission5(t, env)
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

	lost.on.Store(true)
	send(protocol.TypeResult, result)
	eventually(t, 5*time.Second, "the completion ran", func() bool { return lost.lost.Load() > 0 })
	lost.on.Store(false)
	if got := results(t, env)[5]; len(got) != 1 {
		t.Fatalf("the results stream holds %+v for #5, want the completion's one entry", got)
	}
	// The judge got no ack: it sends the result again.
	send(protocol.TypeResult, result)
	if ack, err := protocol.DecodeData[protocol.ResultAck](next(protocol.TypeResultAck)); err != nil || ack.TaskRef != task.TaskRef {
		t.Fatalf("the repeat's ack = %+v (err %v), want %v", ack, err, task.TaskRef)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		e, err := b.next(time.Until(deadline))
		if err != nil {
			t.Fatalf("the final verdict never reached the owner: %v", err)
		}
		var st protocol.SubmissionState
		if e.Type == protocol.TypeEvent && json.Unmarshal(decode[protocol.Event](t, e).Body, &st) == nil && st.Status == protocol.VerdictAC {
			break
		}
	}
	if got := results(t, env)[5]; len(got) != 1 {
		t.Errorf("the results stream holds %d entries for #5, want 1", len(got))
	}
	if n := metric(t, th.reg, "verdict_hub_results_total", map[string]string{"outcome": "again"}); n != 1 {
		t.Errorf("results counted again: %v, want 1", n)
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

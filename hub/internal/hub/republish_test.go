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

// Redis failed between a result's completion and the publish of its final
// state (a restart): the judge, acknowledged, does not send the result
// again and no one else publishes a final state, so the hub publishes it
// again once Redis takes it (the 40× rehearsal with faults left four
// submissions "judging" on their owners' sockets, 2026-12-07).
func TestFinalPublishedAgainAfterRedisFails(t *testing.T) {
	env := testenv.Redis(t)
	fail := &failPublish{key: env.Names.LiveState(string(protocol.ChannelSubmission), 5)}
	env.Client.AddHook(fail)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	addSession(t, env, "owner", 7, "")
	b, err := dialBrowser(t, th.url("/ws"), "owner")
	if err != nil {
		t.Fatal(err)
	}
	enqueue(t, q, newTask(5, 1, 7))
	b.subscribe("s", protocol.Channel{Kind: protocol.ChannelSubmission, ID: 5})
	b.expect(protocol.TypeSnapshot)

	fail.on.Store(true) // every publish of submission 5's state fails
	newFakeJudge(t, env, "j1", 1, func() string { return th.url("/judge") }, 10*time.Millisecond).start()
	waitResults(t, env, 1, 10*time.Second) // completed (and acknowledged)
	eventually(t, 5*time.Second, "the final's publish failed", func() bool { return fail.failed.Load() > 0 })
	time.Sleep(2 * time.Second) // a few of the republisher's tries fail too
	fail.on.Store(false)

	deadline := time.Now().Add(10 * time.Second)
	for {
		e, err := b.next(time.Until(deadline))
		if err != nil {
			t.Fatalf("the final verdict never reached the owner: %v", err)
		}
		if e.Type != protocol.TypeEvent {
			continue
		}
		var st protocol.SubmissionState
		if ev := decode[protocol.Event](t, e); json.Unmarshal(ev.Body, &st) == nil && st.Status == protocol.VerdictAC {
			break
		}
	}
	eventually(t, 5*time.Second, "counted", func() bool {
		return metric(t, th.reg, "verdict_hub_finals_republished_total", map[string]string{"outcome": "published"}) >= 1
	})
}

// failPublish fails, while on, every publish of the live state under key
// (the publish script's first key), as a Redis that went away would.
type failPublish struct {
	key    string
	on     atomic.Bool
	failed atomic.Int64
}

func (f *failPublish) DialHook(next redis.DialHook) redis.DialHook { return next }

func (f *failPublish) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if f.hits(cmd) {
			err := errors.New("LOADING Redis is loading the dataset in memory")
			cmd.SetErr(err)
			return err
		}
		return next(ctx, cmd)
	}
}

func (f *failPublish) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if f.hits(c) {
				err := errors.New("LOADING Redis is loading the dataset in memory")
				for _, c := range cmds {
					c.SetErr(err)
				}
				return err
			}
		}
		return next(ctx, cmds)
	}
}

func (f *failPublish) hits(cmd redis.Cmder) bool {
	a := cmd.Args()
	if !f.on.Load() || (cmd.Name() != "evalsha" && cmd.Name() != "eval") || len(a) < 4 || a[3] != f.key {
		return false
	}
	f.failed.Add(1)
	return true
}

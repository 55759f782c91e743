package hub_test

import (
	"encoding/json"
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
	// Every publish of submission 5's state (the script's first key)
	// fails while on.
	key := env.Names.LiveState(string(protocol.ChannelSubmission), 5)
	fail := &refusingRedis{match: func(cmd redis.Cmder) bool {
		a := cmd.Args()
		return (cmd.Name() == "evalsha" || cmd.Name() == "eval") && len(a) > 3 && a[3] == key
	}}
	env.Client.AddHook(fail)
	th, b := ownerOfSubmission5(t, env)
	b.subscribe("s", protocol.Channel{Kind: protocol.ChannelSubmission, ID: 5})
	b.expect(protocol.TypeSnapshot)

	fail.on.Store(true)
	newFakeJudge(t, env, "j1", 1, func() string { return th.url("/judge") }, 10*time.Millisecond).start()
	waitResults(t, env, 1, 10*time.Second) // completed (and acknowledged)
	eventually(t, 5*time.Second, "the final's publish failed", func() bool { return fail.refused.Load() > 0 })
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

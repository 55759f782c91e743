package hub_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// scriptTrips counts the round trips to Redis that run a script naming
// key (a pipeline of several counts once) and delays each by delay: a
// Redis slow to answer, as on a machine with no CPU to spare.
type scriptTrips struct {
	key   string
	delay time.Duration
	mu    sync.Mutex
	n     int
}

func (h *scriptTrips) names(cmd redis.Cmder) bool {
	if n := cmd.Name(); n != "evalsha" && n != "eval" {
		return false
	}
	for _, a := range cmd.Args() {
		if s, ok := a.(string); ok && s == h.key {
			return true
		}
	}
	return false
}

func (h *scriptTrips) trip() {
	h.mu.Lock()
	h.n++
	h.mu.Unlock()
	time.Sleep(h.delay)
}

func (h *scriptTrips) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

func (h *scriptTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *scriptTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.names(cmd) {
			h.trip()
		}
		return next(ctx, cmd)
	}
}

func (h *scriptTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if h.names(c) {
				h.trip()
				break
			}
		}
		return next(ctx, cmds)
	}
}

// A judge's results that wait behind a slow Redis are recorded together,
// not one round trip each. A result frees its judge's slot in the hub's
// accounting only once recorded, so one at a time they held the slots
// long after the work: at 3,000 contestants (docs/rehearsal.md, 08:35
// run) a result waited about 3.5 s behind its judge's earlier messages and
// the judges took tasks at a quarter of their slots' pace.
func TestJudgeBurstRecordedInFewRoundTrips(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	const n = 16
	j := newFakeJudge(t, env, "burst", n, func() string { return th.url("/judge") }, 0)
	j.gate = make(chan struct{})
	j.start()
	eventually(t, 5*time.Second, "judge ready", func() bool { return j.current() != nil })
	j.waitDispatchable(env)
	tasks := make([]queue.Task, n)
	for i := range tasks {
		tasks[i] = newTask(int64(i+1), 1, 7)
	}
	enqueue(t, q, tasks...)
	eventually(t, 5*time.Second, "every task on the judge", func() bool {
		j.mu.Lock()
		defer j.mu.Unlock()
		return len(j.running) == n
	})

	trips := &scriptTrips{key: env.Names.Results(), delay: 100 * time.Millisecond}
	env.Client.AddHook(trips)
	close(j.gate) // all n finish at once
	rs := waitResults(t, env, n, 20*time.Second)
	for id := int64(1); id <= n; id++ {
		if len(rs[id]) != 1 || rs[id][0].Verdict != protocol.VerdictAC {
			t.Fatalf("submission %d: results %+v", id, rs[id])
		}
	}
	// Each one's verdict is published to its live state too (the browser's
	// view), from the same batch.
	eventually(t, 5*time.Second, "every verdict live", func() bool {
		for id := int64(1); id <= n; id++ {
			s, err := q.Submission(context.Background(), id)
			if err != nil || s.State.Status != protocol.VerdictAC {
				return false
			}
		}
		return true
	})
	// One at a time this was n round trips; the first result's holds the
	// rest up, and they go together.
	if got := trips.count(); got > n/2 {
		t.Fatalf("%d results were recorded in %d round trips to Redis, want at most %d", n, got, n/2)
	}
	if v := metric(t, th.reg, "verdict_hub_judge_message_wait_seconds", nil); v < n {
		t.Fatalf("judge message waits observed: %v, want at least %d", v, n)
	}
	// Each result's way to its slot is timed (the replay's result latency).
	if v := metric(t, th.reg, obs.HubResultSlotSeconds, nil); v < n {
		t.Fatalf("results' slot waits observed: %v, want at least %d", v, n)
	}
}

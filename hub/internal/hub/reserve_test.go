package hub_test

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// TestRejudgeLeavesTheReserve: a rejudge queued in bulk takes the judges'
// slots but the reserve (an eighth by default: one of 8), which a contest
// submission arriving then takes at once; with the reserve off (a negative
// Config.Reserve) the rejudge takes every slot. The gauge says the
// configured share, the counter that passes held rejudges for it.
func TestRejudgeLeavesTheReserve(t *testing.T) {
	for _, tc := range []struct {
		name     string
		reserve  float64 // Config.Reserve
		share    float64 // the gauge
		rejudges int     // on the judge before the contest task comes
	}{
		{"default", 0, 0.125, 7},
		{"off", -1, 0, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testenv.Redis(t)
			th := startHub(t, env, func(c *hub.Config) { c.Reserve = tc.reserve })
			q := th.h.Queue()
			j := newFakeJudge(t, env, "j", 8, func() string { return th.url("/judge") }, time.Millisecond)
			j.gate = make(chan struct{}) // every task holds its slot until the end
			j.start()
			eventually(t, 5*time.Second, "judge ready", func() bool { return j.current() != nil })
			j.waitDispatchable(env)
			received := func() []int64 {
				j.mu.Lock()
				defer j.mu.Unlock()
				return slices.Clone(j.tasks)
			}

			for id := int64(1); id <= 20; id++ {
				tk := newTask(id, 1, 7)
				tk.Priority = protocol.PriorityRejudge
				enqueue(t, q, tk)
			}
			eventually(t, 5*time.Second, "the rejudge on the judge", func() bool { return len(received()) == tc.rejudges })
			time.Sleep(300 * time.Millisecond) // more passes (the tick is 250 ms): no more
			if got := received(); len(got) != tc.rejudges {
				t.Fatalf("the judge got %d rejudge tasks (%v), want %d", len(got), got, tc.rejudges)
			}
			if got := metric(t, th.reg, obs.HubDispatchReserve, nil); got != tc.share {
				t.Fatalf("%s = %v, want %v", obs.HubDispatchReserve, got, tc.share)
			}
			holds := metric(t, th.reg, obs.HubReserveHolds, nil)
			if (holds > 0) != (tc.share > 0) {
				t.Fatalf("%s = %v with share %v", obs.HubReserveHolds, holds, tc.share)
			}

			contest := newTask(100, 2, 8)
			contest.Priority = protocol.PriorityContest
			enqueue(t, q, contest)
			if tc.share > 0 {
				eventually(t, 5*time.Second, "the contest task in the reserve", func() bool { return slices.Contains(received(), 100) })
			} else {
				time.Sleep(300 * time.Millisecond)
				if slices.Contains(received(), 100) {
					t.Fatal("the contest task found a ninth slot")
				}
			}
			close(j.gate)
			eventually(t, 10*time.Second, "everything judged", func() bool { return len(results(t, env)) == 21 })
		})
	}
}

// TestReserveConfig: a reserve of every slot, or not a number, is refused
// at New.
func TestReserveConfig(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled
	defer rdb.Close()
	for _, r := range []float64{1, 2, math.NaN()} {
		if _, err := hub.New(hub.Config{Redis: rdb, Reserve: r}); !errors.Is(err, hub.ErrConfig) {
			t.Errorf("Reserve %v: %v, want ErrConfig", r, err)
		}
	}
}

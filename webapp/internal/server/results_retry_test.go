package server

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
)

// A result the consumer failed to write (or to acknowledge: Redis
// restarting) is tried again by the same consumer within seconds, not
// after ClaimIdle: in the contest rehearsal with faults (2026-12-07) a
// result whose board update failed as Redis restarted left its cell
// pending for 30–45 s, past the checks.
func TestConsumerRetriesItsOwnFailuresSoon(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	if err := je.q.EnsureResultsGroup(ctx); err != nil {
		t.Fatal(err)
	}
	alice := je.student("alice")
	sid := id(alice.submit("k1", map[string]any{"problem": "a-plus-b", "language": "cpp17", "source": "int main(){}"}))
	je.judge(sid, 1, protocol.VerdictAC, 3)

	// The consumer's own client: its acknowledgements fail while on.
	rdb := redis.NewClient(&redis.Options{Addr: je.rdb.Options().Addr, DB: je.rdb.Options().DB})
	t.Cleanup(func() { rdb.Close() })
	fail := &failAcks{}
	rdb.AddHook(fail)
	s, err := judging.New(judging.Config{Store: je.st, Redis: rdb, Names: je.names, Metrics: prometheus.NewRegistry(),
		NodeID: "node-retry", ClaimIdle: time.Minute, ReadBlock: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	fail.on.Store(true)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); s.RunConsumer(cctx) }()
	defer func() { cancel(); <-done }()

	deadline := time.Now().Add(10 * time.Second)
	for fail.failed.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the consumer never tried to acknowledge the result")
		}
		time.Sleep(20 * time.Millisecond)
	}
	fail.on.Store(false)
	deadline = time.Now().Add(10 * time.Second) // well under ClaimIdle
	for {
		p, err := je.rdb.XPending(ctx, je.names.Results(), je.names.ResultsGroup()).Result()
		if err == nil && p.Count == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the result still pending 10 s after Redis came back (%+v, %v): left for the claim, a minute later", p, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// failAcks fails XACK while on.
type failAcks struct {
	on     atomic.Bool
	failed atomic.Int64
}

var errAckRefused = errors.New("LOADING Redis is loading the dataset in memory")

func (f *failAcks) DialHook(next redis.DialHook) redis.DialHook { return next }

func (f *failAcks) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if f.on.Load() && cmd.Name() == "xack" {
			f.failed.Add(1)
			cmd.SetErr(errAckRefused)
			return errAckRefused
		}
		return next(ctx, cmd)
	}
}

func (f *failAcks) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

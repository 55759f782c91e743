package redisconn_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/localsvc"
	"github.com/verdict-oj/verdict/internal/redisconn"
)

// A restarted Redis answers every data command LOADING until its data is
// in memory; a transaction with one such command in it fails EXECABORT.
// In the 3,000-contestant rehearsal with faults that was 1.4 s, and 882
// page and API requests were answered 503: their session's read (MULTI
// HGETALL PEXPIRE EXEC) had failed. The clients Options.Client builds try
// again what Redis refused while loading, until it has loaded.
func TestClientWaitsForRedisToLoad(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	var r *localsvc.Redis
	port, err := localsvc.OnFreePort(nil, func(port int) (err error) {
		r, err = localsvc.StartRedis(ctx, localsvc.RedisConfig{Dir: dir, Port: port})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Enough keys, each loaded slowly (key-load-delay, µs), for a load of
	// a few seconds; the server answers its clients every KiB loaded.
	seed := redis.NewClient(&redis.Options{Addr: r.Addr()})
	const keys = 20000
	if _, err := seed.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range keys {
			p.Set(ctx, fmt.Sprintf("key:%d", i), i, 0)
		}
		p.Set(ctx, "n", 41, 0)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := seed.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	seed.Close()
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	restarted := make(chan error, 1)
	go func() {
		r2, err := localsvc.StartRedis(ctx, localsvc.RedisConfig{Dir: dir, Port: port,
			Args: []string{"--key-load-delay", "50", "--loading-process-events-interval-bytes", "1024"}})
		if err == nil {
			t.Cleanup(func() { _ = r2.Stop() })
		}
		restarted <- err
	}()

	opt := redisconn.Options{Addrs: []string{r.Addr()}}
	off := opt
	off.LoadingWait = -1
	plain, err := off.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	waits, err := opt.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer waits.Close()
	tries := &txTries{}
	waits.AddHook(tries)
	for {
		err := plain.Get(ctx, "n").Err()
		if redis.IsLoadingError(err) {
			break
		}
		if err == nil {
			t.Fatal("Redis served a read before it was seen loading: the test cannot test")
		}
		select {
		case err := <-restarted:
			t.Fatalf("Redis never seen loading (restart: %v)", err)
		case <-time.After(10 * time.Millisecond):
		}
	}

	// What the web nodes saw: a session's read fails.
	sessionRead := func(c redis.UniversalClient) (string, error) {
		var get *redis.StringCmd
		_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			get = p.Get(ctx, "n")
			p.PExpire(ctx, "n", time.Hour)
			return nil
		})
		if err != nil {
			return "", err
		}
		return get.Val(), nil
	}
	if _, err := sessionRead(plain); !redis.IsExecAbortError(err) {
		t.Fatalf("a transaction while loading, not tried again: %v, want EXECABORT", err)
	}

	// Tried again, each waits out the load; a caller's deadline first
	// ends the wait with Redis's answer.
	var wg sync.WaitGroup
	wg.Go(func() {
		if v, err := sessionRead(waits); err != nil || v != "41" {
			t.Errorf("a transaction while loading: %q, %v; want 41", v, err)
		}
		if tries.n.Load() < 2 {
			t.Errorf("the transaction was sent %d times, want it sent again", tries.n.Load())
		}
	})
	wg.Go(func() {
		if v, err := waits.Incr(ctx, "n2").Result(); err != nil || v != 1 {
			t.Errorf("a command while loading: %d, %v; want 1", v, err)
		}
	})
	wg.Go(func() {
		var a, b *redis.StringCmd
		if _, err := waits.Pipelined(ctx, func(p redis.Pipeliner) error {
			a, b = p.Get(ctx, "n"), p.Get(ctx, "key:7")
			return nil
		}); err != nil || a.Val() != "41" || b.Val() != "7" {
			t.Errorf("a pipeline while loading: %q %q, %v; want 41 7", a.Val(), b.Val(), err)
		}
	})
	wg.Go(func() {
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		if err := waits.Get(short, "n").Err(); !redis.IsLoadingError(err) {
			t.Errorf("a read with a deadline before the load's end: %v, want LOADING", err)
		}
	})
	wg.Wait()
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}

	// A transaction aborted for another reason is not sent again.
	tries.n.Store(0)
	_, err = waits.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Do(ctx, "set", "only-a-key")
		return nil
	})
	if !redis.IsExecAbortError(err) || tries.n.Load() != 1 {
		t.Errorf("a transaction with a wrong command: %v, sent %d times; want EXECABORT, once", err, tries.n.Load())
	}
}

// txTries counts the transactions a client sends.
type txTries struct{ n atomic.Int64 }

func (*txTries) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (*txTries) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (c *txTries) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) > 0 && cmds[0].Name() == "multi" {
			c.n.Add(1)
		}
		return next(ctx, cmds)
	}
}

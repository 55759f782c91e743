package redislock_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/redislock"
	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func lock(t *testing.T, env *testenv.RedisEnv, holder string, ttl time.Duration) *redislock.Lock {
	t.Helper()
	l, err := redislock.New(env.Client, env.Names.Lock("test"), holder, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func hold(t *testing.T, l *redislock.Lock) bool {
	t.Helper()
	ok, err := l.Hold(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestOneHolderAtATime(t *testing.T) {
	env := testenv.Redis(t)
	a, b := lock(t, env, "a", time.Minute), lock(t, env, "b", time.Minute)
	if !hold(t, a) {
		t.Fatal("a could not take a free lease")
	}
	if hold(t, b) {
		t.Fatal("b took a lease a holds")
	}
	if !hold(t, a) {
		t.Fatal("a could not renew its own lease")
	}
	if who, _ := b.Holder(context.Background()); who != "a" {
		t.Fatalf("holder %q, want a", who)
	}
	// b cannot release a's lease.
	if ok, err := b.Release(context.Background()); ok || err != nil {
		t.Fatalf("b released a's lease: %v %v", ok, err)
	}
	if ok, err := a.Release(context.Background()); !ok || err != nil {
		t.Fatalf("a could not release: %v %v", ok, err)
	}
	if who, _ := a.Holder(context.Background()); who != "" {
		t.Fatalf("holder %q after release, want none", who)
	}
	if !hold(t, b) {
		t.Fatal("b could not take the released lease")
	}
	if ok, _ := a.Release(context.Background()); ok {
		t.Fatal("a released b's lease")
	}
}

func TestRenewResetsTheTTLAndExpiryPassesTheLease(t *testing.T) {
	env := testenv.Redis(t)
	ttl := 300 * time.Millisecond
	a, b := lock(t, env, "a", ttl), lock(t, env, "b", ttl)
	hold(t, a)
	time.Sleep(ttl / 2)
	hold(t, a) // renewed: a full TTL from now
	pttl := env.Client.PTTL(context.Background(), a.Key()).Val()
	if pttl < ttl*3/4 {
		t.Fatalf("PTTL %v after renewal, want about %v", pttl, ttl)
	}
	time.Sleep(ttl / 2)
	if hold(t, b) {
		t.Fatal("b took a lease renewed within its TTL")
	}
	// a stops renewing (it died): the lease passes after the TTL.
	deadline := time.Now().Add(5 * ttl)
	for !hold(t, b) {
		if time.Now().After(deadline) {
			t.Fatal("the lease of a holder that stopped renewing never passed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if hold(t, a) {
		t.Fatal("a took back a lease b holds")
	}
}

func TestConcurrentHoldersElectOne(t *testing.T) {
	env := testenv.Redis(t)
	const n = 16
	var wg sync.WaitGroup
	won := make(chan string, n)
	for i := range n {
		l := lock(t, env, string(rune('a'+i)), time.Minute)
		wg.Go(func() {
			ok, err := l.Hold(context.Background())
			if err != nil {
				t.Error(err)
			}
			if ok {
				won <- "x"
			}
		})
	}
	wg.Wait()
	close(won)
	if len(won) != 1 {
		t.Fatalf("%d holders took the lease, want 1", len(won))
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	env := testenv.Redis(t)
	for _, tc := range []struct {
		name   string
		rdb    redis.UniversalClient
		key    string
		holder string
		ttl    time.Duration
	}{
		{"no client", nil, "k", "h", time.Second},
		{"no key", env.Client, "", "h", time.Second},
		{"no holder", env.Client, "k", "", time.Second},
		{"no ttl", env.Client, "k", "h", 0},
	} {
		if _, err := redislock.New(tc.rdb, tc.key, tc.holder, tc.ttl); !errors.Is(err, redislock.ErrConfig) {
			t.Errorf("%s: New = %v, want ErrConfig", tc.name, err)
		}
	}
}

func TestRedisDownIsAnError(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer c.Close()
	l, err := redislock.New(c, "k", "h", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := l.Hold(context.Background()); ok || err == nil {
		t.Fatalf("Hold with Redis down = %v, %v; want an error", ok, err)
	}
	if ok, err := l.Release(context.Background()); ok || err == nil {
		t.Fatalf("Release with Redis down = %v, %v; want an error", ok, err)
	}
}

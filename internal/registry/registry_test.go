package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/leakcheck"
	"github.com/verdict-oj/verdict/internal/registry"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m, leakcheck.Goroutines) }

func TestNewValidates(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	tests := []struct {
		name string
		cfg  registry.Config
		ok   bool
	}{
		{"ok", registry.Config{Client: c, Role: rkeys.RoleWeb, Addr: "10.0.0.1:8080"}, true},
		{"ok hub ipv6", registry.Config{Client: c, Role: rkeys.RoleHub, Addr: "[::1]:9000"}, true},
		{"ok dns", registry.Config{Client: c, Role: rkeys.RoleWeb, Addr: "web-1.internal:8080"}, true},
		{"no client", registry.Config{Role: rkeys.RoleWeb, Addr: "10.0.0.1:8080"}, false},
		{"bad role", registry.Config{Client: c, Role: "judge", Addr: "10.0.0.1:8080"}, false},
		{"wildcard", registry.Config{Client: c, Role: rkeys.RoleWeb, Addr: ":8080"}, false},
		{"zero host", registry.Config{Client: c, Role: rkeys.RoleWeb, Addr: "0.0.0.0:8080"}, false},
		{"no port", registry.Config{Client: c, Role: rkeys.RoleWeb, Addr: "10.0.0.1"}, false},
		{"port 0", registry.Config{Client: c, Role: rkeys.RoleWeb, Addr: "10.0.0.1:0"}, false},
		{"tiny interval", registry.Config{Client: c, Role: rkeys.RoleWeb, Addr: "10.0.0.1:1", Interval: time.Millisecond}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := registry.New(tc.cfg)
			if tc.ok != (err == nil) {
				t.Fatalf("New: err=%v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, registry.ErrConfig) {
				t.Fatalf("error %v does not wrap ErrConfig", err)
			}
			if err == nil && tc.cfg.Interval == 0 && r.Expiry() != registry.ExpiryFactor*registry.DefaultInterval {
				t.Fatalf("Expiry = %v", r.Expiry())
			}
		})
	}
}

// events collects RegistryChanged messages.
func events(t *testing.T, c *redis.Client, names rkeys.Names) <-chan registry.Event {
	t.Helper()
	ctx := context.Background()
	ps := c.Subscribe(ctx, names.RegistryChanged())
	if _, err := ps.Receive(ctx); err != nil { // subscription confirmed
		t.Fatalf("subscribe: %v", err)
	}
	t.Cleanup(func() { ps.Close() })
	out := make(chan registry.Event, 16)
	go func() {
		for m := range ps.Channel() {
			var e registry.Event
			if err := json.Unmarshal([]byte(m.Payload), &e); err != nil {
				e.Kind = "bad payload: " + m.Payload
			}
			out <- e
		}
	}()
	return out
}

func expectEvent(t *testing.T, ch <-chan registry.Event, want registry.Event) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Fatalf("event %+v, want %+v", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no event, want %+v", want)
	}
}

func expectNoEvent(t *testing.T, ch <-chan registry.Event) {
	t.Helper()
	select {
	case got := <-ch:
		t.Fatalf("unexpected event %+v", got)
	case <-time.After(100 * time.Millisecond):
	}
}

func live(t *testing.T, env *testenv.RedisEnv, role rkeys.Role, prune time.Duration) ([]string, int) {
	t.Helper()
	m, n, err := registry.Live(context.Background(), env.Client, env.Names, role, prune)
	if err != nil {
		t.Fatalf("Live: %v", err)
	}
	slices.Sort(m)
	return m, n
}

func TestRegisterRenewDeregister(t *testing.T) {
	env := testenv.Redis(t)
	ctx := context.Background()
	ev := events(t, env.Client, env.Names)
	r, err := registry.New(registry.Config{Client: env.Client, Names: env.Names, Role: rkeys.RoleWeb, Addr: "10.0.0.1:8080", Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	joined, err := r.Register(ctx)
	if err != nil || !joined {
		t.Fatalf("first Register: joined=%v err=%v", joined, err)
	}
	expectEvent(t, ev, registry.Event{Role: rkeys.RoleWeb, Addr: "10.0.0.1:8080", Kind: registry.Join})

	// Redis's clock around the renewal bounds the expiry it sets, however
	// long the calls take.
	before, err := env.Client.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	joined, err = r.Register(ctx)
	if err != nil || joined {
		t.Fatalf("renewal: joined=%v err=%v", joined, err)
	}
	after, err := env.Client.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	expectNoEvent(t, ev)

	score, err := env.Client.ZScore(ctx, env.Names.Registry(rkeys.RoleWeb), "10.0.0.1:8080").Result()
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := before.UnixMilli()+3000, after.UnixMilli()+3000; int64(score) < lo || int64(score) > hi {
		t.Fatalf("entry expires at %d ms, want 3s (3 × interval) after the renewal: in [%d, %d]", int64(score), lo, hi)
	}
	if got, _ := live(t, env, rkeys.RoleWeb, 0); !slices.Equal(got, []string{"10.0.0.1:8080"}) {
		t.Fatalf("live web = %v", got)
	}
	if got, _ := live(t, env, rkeys.RoleHub, 0); len(got) != 0 {
		t.Fatalf("live hub = %v, want none", got)
	}

	if err := r.Deregister(ctx); err != nil {
		t.Fatal(err)
	}
	expectEvent(t, ev, registry.Event{Role: rkeys.RoleWeb, Addr: "10.0.0.1:8080", Kind: registry.Leave})
	if err := r.Deregister(ctx); err != nil {
		t.Fatal(err)
	}
	expectNoEvent(t, ev) // leaving twice is one leave
	if got, _ := live(t, env, rkeys.RoleWeb, 0); len(got) != 0 {
		t.Fatalf("live web after deregister = %v", got)
	}
}

func TestExpiryAndPrune(t *testing.T) {
	env := testenv.Redis(t)
	ctx := context.Background()
	ev := events(t, env.Client, env.Names)
	// short expires 900 ms after a renewal: time enough for the checks that
	// it is live on a loaded machine, and the test sleeps past it.
	short, err := registry.New(registry.Config{Client: env.Client, Names: env.Names, Role: rkeys.RoleHub, Addr: "10.0.0.2:9000", Interval: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	long, err := registry.New(registry.Config{Client: env.Client, Names: env.Names, Role: rkeys.RoleHub, Addr: "10.0.0.3:9000", Interval: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*registry.Registrar{long, short} {
		if _, err := r.Register(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := live(t, env, rkeys.RoleHub, time.Hour); len(got) != 2 {
		t.Fatalf("live = %v, want both", got)
	}
	expectEvent(t, ev, registry.Event{Role: rkeys.RoleHub, Addr: "10.0.0.3:9000", Kind: registry.Join})
	expectEvent(t, ev, registry.Event{Role: rkeys.RoleHub, Addr: "10.0.0.2:9000", Kind: registry.Join})
	time.Sleep(short.Expiry() + 100*time.Millisecond) // short expires

	// Expired but within the prune grace: not live, not deleted.
	got, pruned := live(t, env, rkeys.RoleHub, time.Hour)
	if !slices.Equal(got, []string{"10.0.0.3:9000"}) || pruned != 0 {
		t.Fatalf("live = %v pruned %d, want only the long one, none pruned", got, pruned)
	}
	if n := env.Client.ZCard(ctx, env.Names.Registry(rkeys.RoleHub)).Val(); n != 2 {
		t.Fatalf("zcard = %d, want 2 before prune", n)
	}
	got, pruned = live(t, env, rkeys.RoleHub, 0)
	if !slices.Equal(got, []string{"10.0.0.3:9000"}) || pruned != 1 {
		t.Fatalf("live = %v pruned %d, want the long one, 1 pruned", got, pruned)
	}
	if n := env.Client.ZCard(ctx, env.Names.Registry(rkeys.RoleHub)).Val(); n != 1 {
		t.Fatalf("zcard = %d, want 1 after prune", n)
	}

	// Coming back after expiry is a join again, even before a prune.
	if _, err := short.Register(ctx); err != nil {
		t.Fatal(err)
	}
	expectEvent(t, ev, registry.Event{Role: rkeys.RoleHub, Addr: "10.0.0.2:9000", Kind: registry.Join})
	time.Sleep(short.Expiry() + 100*time.Millisecond)
	joined, err := short.Register(ctx) // expired, not pruned
	if err != nil || !joined {
		t.Fatalf("Register after expiry: joined=%v err=%v", joined, err)
	}
	expectEvent(t, ev, registry.Event{Role: rkeys.RoleHub, Addr: "10.0.0.2:9000", Kind: registry.Join})
}

func TestRunRenewsAndLeaves(t *testing.T) {
	env := testenv.Redis(t)
	ev := events(t, env.Client, env.Names)
	// Renewals every 300 ms, expiry 900 ms: a renewal may be late by most
	// of a second on a loaded machine before the entry lapses.
	const interval = 300 * time.Millisecond
	r, err := registry.New(registry.Config{Client: env.Client, Names: env.Names, Role: rkeys.RoleWeb, Addr: "10.0.0.4:8080", Interval: interval})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	expectEvent(t, ev, registry.Event{Role: rkeys.RoleWeb, Addr: "10.0.0.4:8080", Kind: registry.Join})
	// Live across two expiries: the heartbeat renews it.
	for range 6 {
		time.Sleep(interval)
		if got, _ := live(t, env, rkeys.RoleWeb, 0); len(got) != 1 {
			t.Fatalf("live = %v while Run renews", got)
		}
	}
	expectNoEvent(t, ev)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	expectEvent(t, ev, registry.Event{Role: rkeys.RoleWeb, Addr: "10.0.0.4:8080", Kind: registry.Leave})
	if got, _ := live(t, env, rkeys.RoleWeb, 0); len(got) != 0 {
		t.Fatalf("live after Run = %v", got)
	}
}

func TestRunFailsWithoutRedis(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer c.Close()
	r, err := registry.New(registry.Config{Client: c, Role: rkeys.RoleWeb, Addr: "10.0.0.5:8080"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.Run(ctx); err == nil {
		t.Fatal("Run without Redis succeeded")
	}
}

// gate is a TCP proxy to a real server that drops every connection until
// opened: Redis as seen from a process started during an outage.
type gate struct {
	ln    net.Listener
	to    string
	open  atomic.Bool
	conns sync.WaitGroup
}

func newGate(t *testing.T, to string) *gate {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{ln: ln, to: to}
	g.conns.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if !g.open.Load() {
				c.Close()
				continue
			}
			g.conns.Go(func() { g.pipe(c) })
		}
	})
	t.Cleanup(func() { ln.Close(); g.conns.Wait() })
	return g
}

func (g *gate) pipe(c net.Conn) {
	defer c.Close()
	up, err := net.Dial("tcp", g.to)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{})
	go func() { _, _ = io.Copy(up, c); up.Close(); close(done) }()
	_, _ = io.Copy(c, up)
	c.Close()
	<-done
}

// TestKeepWaitsForReadyAndRetries: a process started while Redis is
// unreachable keeps trying to register (with backoff) instead of giving
// up, registers only once ready, and leaves on stop.
func TestKeepWaitsForReadyAndRetries(t *testing.T) {
	env := testenv.Redis(t)
	g := newGate(t, env.Addr)
	c := redis.NewClient(&redis.Options{Addr: g.ln.Addr().String(), DB: env.DB, MaxRetries: -1})
	defer c.Close()
	r, err := registry.New(registry.Config{Client: c, Names: env.Names, Role: rkeys.RoleHub, Addr: "10.0.0.6:9000", Interval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var ready atomic.Bool
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- r.Keep(ctx, func(context.Context) error {
			if !ready.Load() {
				return errors.New("not ready")
			}
			return nil
		})
	}()
	g.open.Store(true)
	time.Sleep(300 * time.Millisecond)
	if got, _ := live(t, env, rkeys.RoleHub, 0); len(got) != 0 {
		t.Fatalf("registered before ready: %v", got)
	}
	g.open.Store(false) // Redis "down" when the process becomes ready
	ready.Store(true)
	time.Sleep(500 * time.Millisecond) // several failed first registrations
	if got, _ := live(t, env, rkeys.RoleHub, 0); len(got) != 0 {
		t.Fatalf("registered through a closed gate: %v", got)
	}
	g.open.Store(true)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if got, _ := live(t, env, rkeys.RoleHub, 0); len(got) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("not registered once Redis came back")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Keep = %v", err)
	}
	if got, _ := live(t, env, rkeys.RoleHub, 0); len(got) != 0 {
		t.Fatalf("still registered after Keep returned: %v", got)
	}
}

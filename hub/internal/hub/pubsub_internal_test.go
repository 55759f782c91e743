package hub

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/testenv"
)

// pubsubEnv is a pubsub on a real Redis, its messages on got, its run
// loop joined at the end of the test.
func pubsubEnv(t *testing.T) (*pubsub, *redis.Client, chan string) {
	t.Helper()
	env := testenv.Redis(t)
	c := redis.NewClient(env.Options())
	t.Cleanup(func() { _ = c.Close() })
	got := make(chan string, 64)
	p := newPubSub(c, slog.New(slog.DiscardHandler), func(ch, payload string) { got <- ch + " " + payload }, nil)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { p.run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return p, c, got
}

// wantDelivered: Redis counts exactly one subscriber of ch (the hub's)
// and a message published on it reaches the hub.
func wantDelivered(ctx context.Context, t *testing.T, c *redis.Client, got chan string, ch string) {
	t.Helper()
	n, err := c.PubSubNumSub(ctx, ch).Result()
	if err != nil {
		t.Fatal(err)
	}
	if n[ch] != 1 {
		t.Fatalf("Redis has %d subscribers of %s, the hub counts one", n[ch], ch)
	}
	if err := c.Publish(ctx, ch, "x").Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if m != ch+" x" {
			t.Fatalf("on %s: got %q", ch, m)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("the message on %s never came", ch)
	}
}

// TestPubSubLastLeavesAsOneComes: the last reference of a channel is
// dropped while a new one is taken (a browser reloads: its user channel's
// old socket closes as the new one opens). The UNSUBSCRIBE is held back
// just before it is sent, the way a descheduled goroutine holds it; the
// new subscriber's SUBSCRIBE must not pass it. Before the commands were
// sent in the order of the reference changes, it did: Redis ended with
// the channel unsubscribed while the hub counted a subscriber, whose
// events never came.
func TestPubSubLastLeavesAsOneComes(t *testing.T) {
	p, c, got := pubsubEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sending := make(chan struct{}, 1)
	p.beforeSend = func(cmd, _ string) {
		if cmd == "unsubscribe" {
			sending <- struct{}{}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for round := range 10 {
		ch := fmt.Sprintf("churn-%d", round)
		if err := p.subscribe(ctx, ch); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var serr error
		wg.Go(func() { p.unsubscribe(ctx, ch) })
		<-sending // the last reference is gone, its UNSUBSCRIBE not yet sent
		wg.Go(func() { serr = p.subscribe(ctx, ch) })
		wg.Wait()
		if serr != nil {
			t.Fatal(serr)
		}
		wantDelivered(ctx, t, c, got, ch)
		p.unsubscribe(ctx, ch)
		<-sending
	}
}

// TestPubSubAbandonedSubscribe: a subscribe whose caller leaves before
// Redis confirmed it (a browser that closed its socket while subscribing)
// does not make the next subscriber of the channel return before its own
// subscription holds.
func TestPubSubAbandonedSubscribe(t *testing.T) {
	p, c, got := pubsubEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for round := range 50 {
		ch := fmt.Sprintf("abandoned-%d", round)
		gone, leave := context.WithCancel(ctx)
		leave() // gone before any answer
		_ = p.subscribe(gone, ch)
		if err := p.subscribe(ctx, ch); err != nil {
			t.Fatal(err)
		}
		wantDelivered(ctx, t, c, got, ch)
		p.unsubscribe(ctx, ch)
	}
}

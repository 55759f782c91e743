package hub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// pubsub is the hub's one Redis pub/sub connection. Channels are
// subscribed with reference counts; subscribe returns once Redis confirmed
// the subscription, so a caller that reads state afterwards sees every
// later message.
type pubsub struct {
	ps      *redis.PubSub
	log     *slog.Logger
	handler func(channel, payload string)

	mu      sync.Mutex
	refs    map[string]int
	active  map[string]bool
	waiters map[string][]chan struct{}
	healthy bool
}

func newPubSub(c redis.UniversalClient, log *slog.Logger, handler func(channel, payload string)) *pubsub {
	return &pubsub{
		ps: c.Subscribe(context.Background()), log: log, handler: handler,
		refs: map[string]int{}, active: map[string]bool{}, waiters: map[string][]chan struct{}{},
	}
}

// run reads until ctx is done. go-redis reconnects and resubscribes by
// itself; messages published while disconnected are lost (browsers notice
// the gap in sequence numbers and resubscribe).
func (p *pubsub) run(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { _ = p.ps.Close() })
	defer stop()
	for {
		msg, err := p.ps.Receive(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, redis.ErrClosed) {
				return
			}
			p.setHealthy(false)
			p.log.Warn("pubsub receive failed", "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			p.setHealthy(true)
			if m.Kind == "subscribe" {
				p.mu.Lock()
				if p.refs[m.Channel] > 0 {
					p.active[m.Channel] = true
				}
				for _, w := range p.waiters[m.Channel] {
					close(w)
				}
				delete(p.waiters, m.Channel)
				p.mu.Unlock()
			}
		case *redis.Message:
			p.handler(m.Channel, m.Payload)
		case *redis.Pong:
		}
	}
}

func (p *pubsub) setHealthy(ok bool) {
	p.mu.Lock()
	p.healthy = ok
	p.mu.Unlock()
}

func (p *pubsub) isHealthy() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.healthy
}

// subscribe adds a reference to channel and waits until it is subscribed.
func (p *pubsub) subscribe(ctx context.Context, channel string) error {
	p.mu.Lock()
	p.refs[channel]++
	if p.active[channel] {
		p.mu.Unlock()
		return nil
	}
	w := make(chan struct{})
	first := len(p.waiters[channel]) == 0
	p.waiters[channel] = append(p.waiters[channel], w)
	p.mu.Unlock()
	if first {
		if err := p.ps.Subscribe(ctx, channel); err != nil {
			p.unsubscribe(context.WithoutCancel(ctx), channel)
			return fmt.Errorf("hub: subscribe %s: %w", channel, err)
		}
	}
	select {
	case <-w:
		return nil
	case <-ctx.Done():
		p.unsubscribe(context.WithoutCancel(ctx), channel)
		return fmt.Errorf("hub: subscribe %s: %w", channel, ctx.Err())
	}
}

// unsubscribe drops a reference; the last one unsubscribes from Redis.
func (p *pubsub) unsubscribe(ctx context.Context, channel string) {
	p.mu.Lock()
	p.refs[channel]--
	last := p.refs[channel] <= 0
	if last {
		delete(p.refs, channel)
		delete(p.active, channel)
	}
	p.mu.Unlock()
	if last {
		if err := p.ps.Unsubscribe(ctx, channel); err != nil && !errors.Is(err, redis.ErrClosed) {
			p.log.Warn("unsubscribe failed", "channel", channel, "err", err)
		}
	}
}

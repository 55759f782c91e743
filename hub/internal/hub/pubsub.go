package hub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// pubsub is the hub's one Redis pub/sub connection. Channels are
// subscribed with reference counts; subscribe returns once Redis has the
// subscription, so a caller that reads state afterwards sees every later
// message.
//
// Two rules keep that true while browsers come and go on one channel by
// the thousand (a reload closes a user channel's last reference as the new
// socket takes one):
//   - The SUBSCRIBE and UNSUBSCRIBE commands reach the connection in the
//     order of the reference changes that sent them (wire is held from the
//     change to the send). Otherwise a new subscriber's SUBSCRIBE could
//     pass the old one's UNSUBSCRIBE: Redis would end with the channel
//     unsubscribed while the hub counted a subscriber, whose events would
//     never come.
//   - A subscriber waits for the answer to a PING of its own sent after
//     the channel's SUBSCRIBE (answers come in order: Redis has then done
//     every earlier command), never for "a" subscribe confirmation, which
//     may answer an earlier SUBSCRIBE undone since. Each waiter's PING is
//     its own, so one that gives up (its browser left) leaves nothing that
//     stops the next.
type pubsub struct {
	ps      *redis.PubSub
	log     *slog.Logger
	handler func(channel, payload string)

	wire sync.Mutex // held from a reference change to its command's send

	mu      sync.Mutex
	refs    map[string]int
	active  map[string]bool // confirmed subscribed (a PING after it answered)
	pongs   map[string]pongWait
	nextID  uint64
	healthy bool
	// lost: a receive failed, and with the connection went whatever was
	// published until go-redis subscribed again; recovered is called
	// (on this goroutine: it must not block) once it has.
	lost      bool
	recovered func()

	// beforeSend, when set (tests), runs just before a command is sent.
	beforeSend func(cmd, channel string)
}

// pongWait is a subscriber waiting for the answer to its PING.
type pongWait struct {
	channel string
	done    chan struct{}
}

// confirmWait bounds how long a subscribe waits for its PING's answer: one
// lost with a broken connection fails the subscribe (the browser tries
// again) instead of holding it as long as the browser stays.
const confirmWait = 10 * time.Second

// newPubSub returns a pubsub whose messages go to handler. recovered, if
// not nil, is called on the pub/sub goroutine, without blocking, each time
// the subscriptions are back after a lost connection.
func newPubSub(c redis.UniversalClient, log *slog.Logger, handler func(channel, payload string), recovered func()) *pubsub {
	return &pubsub{
		ps: c.Subscribe(context.Background()), log: log, handler: handler, recovered: recovered,
		refs: map[string]int{}, active: map[string]bool{}, pongs: map[string]pongWait{},
	}
}

// run reads until ctx is done. go-redis reconnects and resubscribes by
// itself, every channel in one SUBSCRIBE; messages published while
// disconnected are lost. A browser notices a gap in its sequence numbers
// when the next event comes, but a lost event that was a channel's last
// (a final verdict) is followed by none: recovered, called at the first
// confirmation of that SUBSCRIBE (Redis has then done all of it, so a
// read sent after sees every later message come), lets the hub send
// fresh snapshots.
func (p *pubsub) run(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { _ = p.ps.Close() })
	defer stop()
	for {
		msg, err := p.ps.Receive(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, redis.ErrClosed) {
				return
			}
			// Commands may have been lost with the connection; go-redis
			// subscribes again to every channel on the next one. Until a
			// subscriber's PING answers after that, none is confirmed.
			p.mu.Lock()
			p.healthy, p.lost = false, true
			clear(p.active)
			p.mu.Unlock()
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
			p.mu.Lock()
			p.healthy = true
			back := p.lost
			p.lost = false
			p.mu.Unlock()
			if back && p.recovered != nil {
				p.recovered()
			}
		case *redis.Message:
			p.handler(m.Channel, m.Payload)
		case *redis.Pong:
			p.mu.Lock()
			if w, ok := p.pongs[m.Payload]; ok {
				delete(p.pongs, m.Payload)
				// The waiter holds a reference: the channel's last
				// command before its PING was a SUBSCRIBE, done now.
				if p.refs[w.channel] > 0 {
					p.active[w.channel] = true
				}
				close(w.done)
			}
			p.mu.Unlock()
		}
	}
}

func (p *pubsub) isHealthy() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.healthy
}

// subscribe adds a reference to channel and waits until it is subscribed.
func (p *pubsub) subscribe(ctx context.Context, channel string) error {
	p.wire.Lock()
	p.mu.Lock()
	p.refs[channel]++
	if p.active[channel] {
		p.mu.Unlock()
		p.wire.Unlock()
		return nil
	}
	first := p.refs[channel] == 1
	p.nextID++
	token := "verdict-hub-subscribe-" + strconv.FormatUint(p.nextID, 10)
	w := pongWait{channel: channel, done: make(chan struct{})}
	p.pongs[token] = w
	p.mu.Unlock()
	var err error
	if first {
		p.send("subscribe", channel)
		err = p.ps.Subscribe(ctx, channel)
	}
	if err == nil {
		err = p.ps.Ping(ctx, token)
	}
	p.wire.Unlock()
	if err == nil {
		timer := time.NewTimer(confirmWait)
		defer timer.Stop()
		select {
		case <-w.done:
			return nil
		case <-ctx.Done():
			err = ctx.Err()
		case <-timer.C:
			err = errors.New("no answer from Redis")
		}
	}
	p.mu.Lock()
	delete(p.pongs, token)
	p.mu.Unlock()
	p.unsubscribe(context.WithoutCancel(ctx), channel)
	return fmt.Errorf("hub: subscribe %s: %w", channel, err)
}

// unsubscribe drops a reference; the last one unsubscribes from Redis.
func (p *pubsub) unsubscribe(ctx context.Context, channel string) {
	p.wire.Lock()
	defer p.wire.Unlock()
	p.mu.Lock()
	p.refs[channel]--
	last := p.refs[channel] <= 0
	if last {
		delete(p.refs, channel)
		delete(p.active, channel)
	}
	p.mu.Unlock()
	if last {
		p.send("unsubscribe", channel)
		if err := p.ps.Unsubscribe(ctx, channel); err != nil && !errors.Is(err, redis.ErrClosed) {
			p.log.Warn("unsubscribe failed", "channel", channel, "err", err)
		}
	}
}

// send runs the test hook before a command. Called with wire held.
func (p *pubsub) send(cmd, channel string) {
	if p.beforeSend != nil {
		p.beforeSend(cmd, channel)
	}
}

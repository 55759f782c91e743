package simjudge

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/verdict-oj/verdict/internal/judgelink"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/wsconn"
)

// StopError: the hub closed the connection with a code that says not to
// retry (protocol's close table: bad token, superseded, unsupported
// version, ...). Run returns it.
type StopError = judgelink.StopError

// link is one live WebSocket connection to the hub.
type link struct {
	conn *wsconn.Conn
	// acks: the hub answers each result with result_ack (welcome said so).
	acks bool
}

// write sends one message now; a failed write closes the connection so the
// reader ends and the judge reconnects.
func (l *link) write(b []byte) error { return l.conn.Write(context.Background(), b) }

func (l *link) close(code protocol.CloseCode, reason string) { l.conn.Close(code, reason) }

func (l *link) closeNow() { l.conn.CloseNow() }

// linkLoop keeps a connection to the hub until ctx ends (nil), the hub
// says stop (*StopError), or the hub closes with drained after our own
// drain (nil). Reconnects back off like the agent's (internal/judgelink):
// from BackoffMin doubling to BackoffMax, each delay jittered in [d/2, d],
// reset after a welcomed connection; a hub's drain sets the next delay to
// its retry_after_ms.
func (j *Judge) linkLoop(ctx, bgCtx context.Context) error {
	// Seeded per judge id: judges of one process do not reconnect in step.
	id := fnv.New64a()
	_, _ = id.Write([]byte(j.cfg.ID))
	rng := rand.New(rand.NewPCG(j.cfg.Seed, id.Sum64()))
	return judgelink.Reconnect{
		Min: j.cfg.BackoffMin, Max: j.cfg.BackoffMax,
		Jitter: func(d time.Duration) time.Duration {
			if d <= 1 {
				return d
			}
			return d/2 + time.Duration(rng.Int64N(int64(d/2)+1))
		},
		Draining:     j.draining.Load,
		RetryAfter:   func() time.Duration { return time.Duration(j.retryAfter.Swap(0)) },
		Reconnecting: func() { j.count(func(c *counters) { c.reconnects++ }) },
		Log:          j.log,
	}.Run(ctx, func(ctx context.Context) (bool, error) { return j.session(ctx, bgCtx) })
}

// session dials, says hello and serves one connection until it ends.
// connected reports whether the hub welcomed us.
func (j *Judge) session(ctx, bgCtx context.Context) (connected bool, err error) {
	return judgelink.Session{
		Dialer: judgelink.Dialer{URL: j.cfg.HubURL, HTTPClient: j.cfg.HTTPClient, Log: j.log},
		Hello:  j.hello, Handle: func(env protocol.Envelope) { j.onMessage(bgCtx, env) }, Log: j.log,
		Up: func(conn *wsconn.Conn, w protocol.Welcome) (func() error, func()) {
			l := &link{conn: conn, acks: w.ResultAcks}
			j.hubDraining.Store(false)
			j.count(func(c *counters) { c.connections++ })
			// Undelivered results first, then a heartbeat listing what we
			// hold: the hub renews those leases instead of requeueing them.
			j.sendMu.Lock()
			j.link.Store(l)
			j.sendMu.Unlock()
			j.flush()
			return func() error { return j.writeHeartbeat(l) }, func() { j.link.CompareAndSwap(l, nil) }
		},
	}.Run(ctx)
}

func (j *Judge) writeHeartbeat(l *link) error {
	b, err := protocol.Marshal(protocol.TypeHeartbeat, "", j.heartbeat())
	if err != nil {
		return err
	}
	return l.write(b)
}

func (j *Judge) onMessage(bgCtx context.Context, env protocol.Envelope) {
	judgelink.Handlers{
		Task: j.handleTask,
		BadTask: func(env protocol.Envelope, err error) {
			if ref, ok := refOf(env.Data); ok {
				j.reject(ref, protocol.RejectInvalid, err.Error())
			}
		},
		Evict:    j.onEvict,
		Prefetch: func(p protocol.Prefetch) { j.onPrefetch(bgCtx, p) },
		Drain: func(d protocol.Drain) {
			j.hubDraining.Store(true)
			if d.RetryAfterMs > 0 {
				j.retryAfter.Store(int64(time.Duration(d.RetryAfterMs) * time.Millisecond))
			}
			j.log.Info("hub is draining; new tasks are refused until reconnect", "reason", d.Reason)
		},
		Cancel:    j.onCancel,
		ResultAck: j.onResultAck,
		Log:       j.log,
	}.Dispatch(env)
}

// refOf extracts the task ref from a task payload that failed validation.
func refOf(data json.RawMessage) (protocol.TaskRef, bool) {
	var r protocol.TaskRef
	if json.Unmarshal(data, &r) != nil || r.Validate() != nil {
		return r, false
	}
	return r, true
}

package agent

import (
	"context"
	"time"

	"github.com/verdict-oj/verdict/internal/judgelink"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/truncate"
	"github.com/verdict-oj/verdict/internal/wsconn"
)

// StopError: the hub closed the connection with a code that says not to
// retry (bad token, superseded, unsupported version, ...). The agent stops.
type StopError = judgelink.StopError

// link is one live WebSocket connection to the hub.
type link struct {
	conn *wsconn.Conn
	// acks: the hub answers each result with result_ack (welcome said so);
	// results then stay in the outbox until acknowledged.
	acks bool
}

// write sends one message now; a failed write closes the connection so the
// reader ends and the agent reconnects.
func (l *link) write(b []byte) error { return l.conn.Write(context.Background(), b) }

// close starts the close handshake with code (once; it does not block).
func (l *link) close(code protocol.CloseCode, reason string) { l.conn.Close(code, reason) }

// linkLoop keeps a connection to the hub until ctx ends (nil) or the hub
// says stop (*StopError).
func (a *Agent) linkLoop(ctx context.Context) error {
	return judgelink.Reconnect{
		Min: a.cfg.BackoffMin, Max: a.cfg.BackoffMax,
		Draining:     a.draining.Load,
		RetryAfter:   func() time.Duration { return time.Duration(a.retryAfter.Swap(0)) },
		Reconnecting: a.m.reconnects.Inc,
		Log:          a.log,
	}.Run(ctx, a.session)
}

// session dials, says hello and serves one connection until it ends.
// connected reports whether the hub welcomed us.
func (a *Agent) session(ctx context.Context) (connected bool, err error) {
	return judgelink.Session{
		Dialer: judgelink.Dialer{URL: a.cfg.HubURL, HTTPClient: a.cfg.HTTPClient, Log: a.log},
		Hello:  a.hello, Handle: a.onMessage, Log: a.log,
		Up: func(conn *wsconn.Conn, w protocol.Welcome) (func() error, func()) {
			l := &link{conn: conn, acks: w.ResultAcks}
			a.hubDraining.Store(false)
			// Undelivered results first, then a heartbeat listing what we
			// hold: the hub renews those leases instead of requeueing them.
			a.sendMu.Lock()
			a.link.Store(l)
			a.sendMu.Unlock()
			a.m.connected.Set(1)
			a.flush()
			return func() error { return a.writeHeartbeat(l) }, func() {
				a.link.CompareAndSwap(l, nil)
				a.m.connected.Set(0)
			}
		},
	}.Run(ctx)
}

func (a *Agent) writeHeartbeat(l *link) error {
	b, err := protocol.Marshal(protocol.TypeHeartbeat, "", a.heartbeat())
	if err != nil {
		return err
	}
	return l.write(b)
}

func (a *Agent) onMessage(env protocol.Envelope) {
	judgelink.Handlers{
		Task: a.handleTask,
		BadTask: func(env protocol.Envelope, err error) {
			if ref, ok := refOf(env.Data); ok {
				a.send(protocol.TypeReject, protocol.Reject{TaskRef: ref, Reason: protocol.RejectInvalid, Message: truncate.Marked(err.Error(), 512)})
			}
		},
		Evict: func(ev protocol.Evict) {
			n := a.cache.Evict(ev.ProblemID, ev.DataHash)
			a.log.Info("test data evicted", "problem_id", ev.ProblemID, "hash", ev.DataHash, "packages", n)
		},
		Prefetch: a.onPrefetch,
		Drain: func(d protocol.Drain) {
			a.hubDraining.Store(true)
			if d.RetryAfterMs > 0 {
				a.retryAfter.Store(int64(time.Duration(d.RetryAfterMs) * time.Millisecond))
			}
			a.log.Info("hub is draining; new tasks are refused until reconnect", "reason", d.Reason)
		},
		Cancel:    a.onCancel,
		ResultAck: a.onResultAck,
		Log:       a.log,
	}.Dispatch(env)
}

package agent

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// StopError: the hub closed the connection with a code that says not to
// retry (bad token, superseded, unsupported version, ...). The agent stops.
type StopError struct {
	Code   protocol.CloseCode
	Reason string
}

func (e *StopError) Error() string {
	hint := ""
	switch e.Code {
	case protocol.CloseBadToken:
		hint = " (check the judge id and token: the hub does not know this pair)"
	case protocol.CloseSuperseded:
		hint = " (another agent connected with the same judge id)"
	case protocol.CloseUnsupportedVersion:
		hint = " (upgrade this judge)"
	}
	return fmt.Sprintf("hub closed the connection for good: %s (%d): %q%s", e.Code, int(e.Code), e.Reason, hint)
}

// link is one live WebSocket connection to the hub.
type link struct {
	conn *websocket.Conn
	once sync.Once
	// acks: the hub answers each result with result_ack (welcome said so);
	// results then stay in the outbox until acknowledged.
	acks bool
}

const writeTimeout = 10 * time.Second

// write sends one message; a failed write closes the connection so the
// reader ends and the agent reconnects.
func (l *link) write(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if err := l.conn.Write(ctx, websocket.MessageText, b); err != nil {
		l.closeNow()
		return err
	}
	return nil
}

func (l *link) close(code protocol.CloseCode, reason string) {
	l.once.Do(func() { _ = l.conn.Close(websocket.StatusCode(code), reason) })
}

func (l *link) closeNow() { l.once.Do(func() { _ = l.conn.CloseNow() }) }

// linkLoop keeps a connection to the hub until ctx ends (nil) or the hub
// says stop (*StopError).
func (a *Agent) linkLoop(ctx context.Context) error {
	delay := a.cfg.BackoffMin
	for {
		connected, err := a.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var stop *StopError
		if errors.As(err, &stop) {
			if stop.Code == protocol.CloseDrained && a.draining.Load() {
				return nil
			}
			a.log.Error("hub refused this judge; stopping", "code", int(stop.Code), "close", stop.Code.String(), "reason", stop.Reason)
			return err
		}
		if connected {
			delay = a.cfg.BackoffMin
		}
		wait := jitter(delay)
		if ra := time.Duration(a.retryAfter.Swap(0)); ra > 0 {
			wait = ra + jitter(a.cfg.BackoffMin)
		}
		a.log.Warn("hub connection lost; reconnecting", "err", err, "in", wait.Round(time.Millisecond))
		a.m.reconnects.Inc()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		delay = min(delay*2, a.cfg.BackoffMax)
	}
}

// jitter returns a duration uniformly in [d/2, d].
func jitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// closeErr turns a read error into a *StopError when the hub's close code
// says stop.
func closeErr(err error) error {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		code := protocol.CloseCode(ce.Code)
		if !code.Retry() {
			return &StopError{Code: code, Reason: ce.Reason}
		}
		return fmt.Errorf("hub closed the connection: %s (%d) %q: %w", code, int(code), ce.Reason, err)
	}
	return err
}

// session dials, says hello and serves one connection until it ends.
// connected reports whether the hub welcomed us.
func (a *Agent) session(ctx context.Context) (connected bool, err error) {
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	conn, _, err := websocket.Dial(dctx, a.cfg.HubURL, &websocket.DialOptions{
		Subprotocols: []string{protocol.SubprotocolJudge},
		HTTPClient:   a.cfg.HTTPClient,
	})
	cancel()
	if err != nil {
		return false, fmt.Errorf("dial %s: %w", a.cfg.HubURL, err)
	}
	l := &link{conn: conn}
	defer l.closeNow()
	if conn.Subprotocol() != protocol.SubprotocolJudge {
		l.close(protocol.CloseProtocolError, "subprotocol "+protocol.SubprotocolJudge+" required")
		return false, fmt.Errorf("hub did not accept subprotocol %s", protocol.SubprotocolJudge)
	}
	conn.SetReadLimit(protocol.MaxJudgeMessage)
	hello, err := protocol.Marshal(protocol.TypeHello, "", a.hello())
	if err != nil {
		return false, err
	}
	if err := l.write(hello); err != nil {
		return false, fmt.Errorf("send hello: %w", err)
	}
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	w, err := a.readWelcome(rctx, conn)
	cancel()
	if err != nil {
		return false, err
	}
	if !w.Accepted {
		// The close frame that follows carries the code that decides.
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, _, rerr := conn.Read(rctx)
		cancel()
		var stop *StopError
		if errors.As(closeErr(rerr), &stop) {
			return false, stop
		}
		return false, fmt.Errorf("hub refused the judge: %s", w.Reason)
	}
	interval := w.HeartbeatInterval()
	if interval <= 0 {
		interval = protocol.DefaultHeartbeatInterval
	}
	a.hubDraining.Store(false)
	l.acks = w.ResultAcks
	a.log.Info("connected to the hub", "hub_id", w.HubID, "heartbeat", interval, "result_acks", w.ResultAcks)

	// Undelivered results first, then a heartbeat listing what we hold:
	// the hub renews those leases instead of requeueing them.
	a.sendMu.Lock()
	a.link.Store(l)
	a.sendMu.Unlock()
	a.m.connected.Set(1)
	defer func() {
		a.link.CompareAndSwap(l, nil)
		a.m.connected.Set(0)
	}()
	a.flush()
	if err := a.writeHeartbeat(l); err != nil {
		return true, err
	}

	sctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-sctx.Done():
				return
			case <-t.C:
				if a.writeHeartbeat(l) != nil {
					return
				}
			}
		}
	}()
	return true, a.readLoop(sctx, l)
}

func (a *Agent) writeHeartbeat(l *link) error {
	b, err := protocol.Marshal(protocol.TypeHeartbeat, "", a.heartbeat())
	if err != nil {
		return err
	}
	return l.write(b)
}

func (a *Agent) readWelcome(ctx context.Context, conn *websocket.Conn) (protocol.Welcome, error) {
	typ, b, err := conn.Read(ctx)
	if err != nil {
		return protocol.Welcome{}, closeErr(err)
	}
	if typ != websocket.MessageText {
		return protocol.Welcome{}, errors.New("hub sent a binary frame")
	}
	env, err := protocol.Decode(protocol.LinkJudge, b)
	if err != nil {
		return protocol.Welcome{}, fmt.Errorf("read welcome: %w", err)
	}
	if env.Type != protocol.TypeWelcome {
		return protocol.Welcome{}, fmt.Errorf("read welcome: got %q first", env.Type)
	}
	return protocol.DecodeData[protocol.Welcome](env)
}

// readLoop handles the hub's messages until the connection ends.
func (a *Agent) readLoop(ctx context.Context, l *link) error {
	for {
		typ, b, err := l.conn.Read(ctx)
		if err != nil {
			return closeErr(err)
		}
		if typ != websocket.MessageText {
			l.close(protocol.CloseUnsupportedData, "text frames only")
			return errors.New("hub sent a binary frame")
		}
		env, err := protocol.Decode(protocol.LinkJudge, b)
		if errors.Is(err, protocol.ErrUnknownType) {
			a.log.Debug("skipping unknown message", "err", err)
			continue
		}
		if err != nil {
			a.log.Warn("bad message from the hub", "err", err)
			l.close(protocol.CloseBadEnvelope, "bad message")
			return err
		}
		a.onMessage(env)
	}
}

func (a *Agent) onMessage(env protocol.Envelope) {
	switch env.Type {
	case protocol.TypeTask:
		t, err := protocol.DecodeData[protocol.Task](env)
		if err != nil {
			if ref, ok := refOf(env.Data); ok {
				a.send(protocol.TypeReject, protocol.Reject{TaskRef: ref, Reason: protocol.RejectInvalid, Message: truncate(err.Error(), 512)})
			}
			a.log.Warn("invalid task", "err", err)
			return
		}
		a.handleTask(t)
	case protocol.TypeEvict:
		ev, err := protocol.DecodeData[protocol.Evict](env)
		if err != nil {
			a.log.Warn("invalid evict", "err", err)
			return
		}
		n := a.cache.Evict(ev.ProblemID, ev.DataHash)
		a.log.Info("test data evicted", "problem_id", ev.ProblemID, "hash", ev.DataHash, "packages", n)
	case protocol.TypePrefetch:
		p, err := protocol.DecodeData[protocol.Prefetch](env)
		if err != nil {
			a.log.Warn("invalid prefetch", "err", err)
			return
		}
		a.onPrefetch(p)
	case protocol.TypeDrain:
		d, _ := protocol.DecodeData[protocol.Drain](env)
		a.hubDraining.Store(true)
		if d.RetryAfterMs > 0 {
			a.retryAfter.Store(int64(time.Duration(d.RetryAfterMs) * time.Millisecond))
		}
		a.log.Info("hub is draining; new tasks are refused until reconnect", "reason", d.Reason)
	case protocol.TypeCancel:
		cn, err := protocol.DecodeData[protocol.Cancel](env)
		if err != nil {
			a.log.Warn("invalid cancel", "err", err)
			return
		}
		a.onCancel(cn)
	case protocol.TypeResultAck:
		ack, err := protocol.DecodeData[protocol.ResultAck](env)
		if err != nil {
			a.log.Warn("invalid result_ack", "err", err)
			return
		}
		a.onResultAck(ack.TaskRef)
	case protocol.TypeWelcome:
	default:
		a.log.Debug("ignoring message", "type", env.Type)
	}
}

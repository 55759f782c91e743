package simjudge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// StopError: the hub closed the connection with a code that says not to
// retry (protocol's close table: bad token, superseded, unsupported
// version, ...). Run returns it.
type StopError struct {
	Code   protocol.CloseCode
	Reason string
}

func (e *StopError) Error() string {
	return fmt.Sprintf("simjudge: hub closed the connection for good: %s (%d): %q", e.Code, int(e.Code), e.Reason)
}

// link is one live WebSocket connection to the hub.
type link struct {
	conn *websocket.Conn
	once sync.Once
	// acks: the hub answers each result with result_ack (welcome said so).
	acks bool
}

const writeTimeout = 10 * time.Second

// write sends one message; a failed write closes the connection so the
// reader ends and the judge reconnects.
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

// linkLoop keeps a connection to the hub until ctx ends (nil), the hub
// says stop (*StopError), or the hub closes with drained after our own
// drain (nil). Reconnects back off like the agent's: from BackoffMin
// doubling to BackoffMax, each delay jittered in [d/2, d], reset after a
// welcomed connection; a hub's drain sets the next delay to its
// retry_after_ms.
func (j *Judge) linkLoop(ctx, bgCtx context.Context) error {
	// Seeded per judge id: judges of one process do not reconnect in step.
	id := fnv.New64a()
	_, _ = id.Write([]byte(j.cfg.ID))
	rng := rand.New(rand.NewPCG(j.cfg.Seed, id.Sum64()))
	jitter := func(d time.Duration) time.Duration {
		if d <= 1 {
			return d
		}
		return d/2 + time.Duration(rng.Int64N(int64(d/2)+1))
	}
	delay := j.cfg.BackoffMin
	for {
		connected, err := j.session(ctx, bgCtx)
		if ctx.Err() != nil {
			return nil
		}
		var stop *StopError
		if errors.As(err, &stop) {
			if stop.Code == protocol.CloseDrained && j.draining.Load() {
				return nil
			}
			j.log.Error("hub refused this judge; stopping", "code", int(stop.Code), "close", stop.Code.String(), "reason", stop.Reason)
			return err
		}
		if connected {
			delay = j.cfg.BackoffMin
		}
		wait := jitter(delay)
		if ra := time.Duration(j.retryAfter.Swap(0)); ra > 0 {
			wait = ra + jitter(j.cfg.BackoffMin)
		}
		j.log.Warn("hub connection lost; reconnecting", "err", err, "in", wait.Round(time.Millisecond))
		j.count(func(c *counters) { c.reconnects++ })
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		delay = min(delay*2, j.cfg.BackoffMax)
	}
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
func (j *Judge) session(ctx, bgCtx context.Context) (connected bool, err error) {
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	conn, _, err := websocket.Dial(dctx, j.cfg.HubURL, &websocket.DialOptions{
		Subprotocols: []string{protocol.SubprotocolJudge},
		HTTPClient:   j.cfg.HTTPClient,
	})
	cancel()
	if err != nil {
		return false, fmt.Errorf("dial %s: %w", j.cfg.HubURL, err)
	}
	l := &link{conn: conn}
	defer l.closeNow()
	if conn.Subprotocol() != protocol.SubprotocolJudge {
		l.close(protocol.CloseProtocolError, "subprotocol "+protocol.SubprotocolJudge+" required")
		return false, fmt.Errorf("hub did not accept subprotocol %s", protocol.SubprotocolJudge)
	}
	conn.SetReadLimit(protocol.MaxJudgeMessage)
	hello, err := protocol.Marshal(protocol.TypeHello, "", j.hello())
	if err != nil {
		return false, err
	}
	if err := l.write(hello); err != nil {
		return false, fmt.Errorf("send hello: %w", err)
	}
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	w, err := readWelcome(rctx, conn)
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
	j.hubDraining.Store(false)
	l.acks = w.ResultAcks
	j.log.Info("connected to the hub", "hub_id", w.HubID, "heartbeat", interval, "result_acks", w.ResultAcks)
	j.count(func(c *counters) { c.connections++ })

	// Undelivered results first, then a heartbeat listing what we hold:
	// the hub renews those leases instead of requeueing them.
	j.sendMu.Lock()
	j.link.Store(l)
	j.sendMu.Unlock()
	defer j.link.CompareAndSwap(l, nil)
	j.flush()
	if err := j.writeHeartbeat(l); err != nil {
		return true, err
	}

	sctx, stop := context.WithCancel(ctx)
	var hb sync.WaitGroup
	defer func() {
		stop()
		hb.Wait()
	}()
	hb.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-sctx.Done():
				return
			case <-t.C:
				if j.writeHeartbeat(l) != nil {
					return
				}
			}
		}
	})
	return true, j.readLoop(sctx, bgCtx, l)
}

func (j *Judge) writeHeartbeat(l *link) error {
	b, err := protocol.Marshal(protocol.TypeHeartbeat, "", j.heartbeat())
	if err != nil {
		return err
	}
	return l.write(b)
}

func readWelcome(ctx context.Context, conn *websocket.Conn) (protocol.Welcome, error) {
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
func (j *Judge) readLoop(ctx, bgCtx context.Context, l *link) error {
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
			j.log.Debug("skipping unknown message", "err", err)
			continue
		}
		if err != nil {
			j.log.Warn("bad message from the hub", "err", err)
			l.close(protocol.CloseBadEnvelope, "bad message")
			return err
		}
		j.onMessage(bgCtx, env)
	}
}

func (j *Judge) onMessage(bgCtx context.Context, env protocol.Envelope) {
	switch env.Type {
	case protocol.TypeTask:
		t, err := protocol.DecodeData[protocol.Task](env)
		if err != nil {
			if ref, ok := refOf(env.Data); ok {
				j.reject(ref, protocol.RejectInvalid, err.Error())
			}
			j.log.Warn("invalid task", "err", err)
			return
		}
		j.handleTask(t)
	case protocol.TypeEvict:
		ev, err := protocol.DecodeData[protocol.Evict](env)
		if err != nil {
			j.log.Warn("invalid evict", "err", err)
			return
		}
		j.onEvict(ev)
	case protocol.TypePrefetch:
		p, err := protocol.DecodeData[protocol.Prefetch](env)
		if err != nil {
			j.log.Warn("invalid prefetch", "err", err)
			return
		}
		j.onPrefetch(bgCtx, p)
	case protocol.TypeDrain:
		d, _ := protocol.DecodeData[protocol.Drain](env)
		j.hubDraining.Store(true)
		if d.RetryAfterMs > 0 {
			j.retryAfter.Store(int64(time.Duration(d.RetryAfterMs) * time.Millisecond))
		}
		j.log.Info("hub is draining; new tasks are refused until reconnect", "reason", d.Reason)
	case protocol.TypeCancel:
		cn, err := protocol.DecodeData[protocol.Cancel](env)
		if err != nil {
			j.log.Warn("invalid cancel", "err", err)
			return
		}
		j.onCancel(cn)
	case protocol.TypeResultAck:
		ack, err := protocol.DecodeData[protocol.ResultAck](env)
		if err != nil {
			j.log.Warn("invalid result_ack", "err", err)
			return
		}
		j.onResultAck(ack.TaskRef)
	case protocol.TypeWelcome:
	default:
		j.log.Debug("ignoring message", "type", env.Type)
	}
}

// refOf extracts the task ref from a task payload that failed validation.
func refOf(data json.RawMessage) (protocol.TaskRef, bool) {
	var r protocol.TaskRef
	if json.Unmarshal(data, &r) != nil || r.Validate() != nil {
		return r, false
	}
	return r, true
}

package judgelink

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/wsconn"
)

// Timeouts of one connection's opening.
const (
	DialTimeout    = 15 * time.Second // the WebSocket handshake
	WelcomeTimeout = 15 * time.Second // hello sent → welcome read
	RefusalTimeout = 5 * time.Second  // a refusing welcome → its close frame
	WriteTimeout   = 10 * time.Second // one message
)

// StopError: the hub closed the connection with a code that says not to
// retry (protocol's close table: bad token, superseded, unsupported
// version, ...). The judge stops.
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

// closeErr turns a read error into a *StopError when the hub's close code
// says stop.
func closeErr(err error) error {
	code, reason, ok := wsconn.CloseStatus(err)
	if !ok {
		return err
	}
	if !code.Retry() {
		return &StopError{Code: code, Reason: reason}
	}
	return fmt.Errorf("hub closed the connection: %s (%d) %q: %w", code, int(code), reason, err)
}

// Dialer opens connections to one hub.
type Dialer struct {
	URL        string
	HTTPClient *http.Client // nil: http.DefaultClient
	Log        *slog.Logger // skipped messages (debug); nil: discarded
}

// Dial connects, sends hello and reads the welcome. A refusal comes back
// as the *StopError its close code makes, or as an error to retry after.
// On success the caller owns the connection: Close (or CloseNow) and Wait
// it.
func (d Dialer) Dial(ctx context.Context, hello protocol.Hello) (*wsconn.Conn, protocol.Welcome, error) {
	dctx, cancel := context.WithTimeout(ctx, DialTimeout)
	c, err := wsconn.Dial(dctx, d.URL, wsconn.Config{Link: protocol.LinkJudge, WriteTimeout: WriteTimeout, Log: d.Log},
		wsconn.DialOptions{HTTPClient: d.HTTPClient})
	cancel()
	if err != nil {
		return nil, protocol.Welcome{}, err
	}
	w, err := d.greet(ctx, c, hello)
	if err != nil {
		c.CloseNow()
		c.Wait()
		return nil, protocol.Welcome{}, err
	}
	return c, w, nil
}

func (d Dialer) greet(ctx context.Context, c *wsconn.Conn, hello protocol.Hello) (protocol.Welcome, error) {
	b, err := protocol.Marshal(protocol.TypeHello, "", hello)
	if err != nil {
		return protocol.Welcome{}, err
	}
	if err := c.Write(ctx, b); err != nil {
		return protocol.Welcome{}, fmt.Errorf("send hello: %w", err)
	}
	rctx, cancel := context.WithTimeout(ctx, WelcomeTimeout)
	env, err := c.Read(rctx)
	cancel()
	switch {
	case errors.Is(err, wsconn.ErrBinary):
		return protocol.Welcome{}, errors.New("hub sent a binary frame")
	case errors.Is(err, wsconn.ErrBadMessage):
		return protocol.Welcome{}, fmt.Errorf("read welcome: %w", err)
	case err != nil:
		return protocol.Welcome{}, closeErr(err)
	case env.Type != protocol.TypeWelcome:
		return protocol.Welcome{}, fmt.Errorf("read welcome: got %q first", env.Type)
	}
	w, err := protocol.DecodeData[protocol.Welcome](env)
	if err != nil {
		return w, err
	}
	if !w.Accepted {
		// The close frame that follows carries the code that decides.
		rctx, cancel := context.WithTimeout(ctx, RefusalTimeout)
		_, rerr := c.Read(rctx)
		cancel()
		var stop *StopError
		if errors.As(closeErr(rerr), &stop) {
			return w, stop
		}
		return w, fmt.Errorf("hub refused the judge: %s", w.Reason)
	}
	return w, nil
}

// Interval is the heartbeat interval the welcome asks for (the protocol's
// default when it names none).
func Interval(w protocol.Welcome) time.Duration {
	if iv := w.HeartbeatInterval(); iv > 0 {
		return iv
	}
	return protocol.DefaultHeartbeatInterval
}

// Serve sends a heartbeat now and every interval after, and hands the
// hub's messages to handle in order, until ctx ends or the connection does.
// It returns what ended it (a *StopError when the hub's close code says
// stop). The heartbeat goroutine is joined before Serve returns.
func Serve(ctx context.Context, c *wsconn.Conn, interval time.Duration, heartbeat func() error, handle func(protocol.Envelope), log *slog.Logger) error {
	if err := heartbeat(); err != nil {
		return err
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
				if heartbeat() != nil {
					return
				}
			}
		}
	})
	err := c.ReadLoop(sctx, func(env protocol.Envelope) error {
		handle(env)
		return nil
	})
	switch {
	case errors.Is(err, wsconn.ErrBinary):
		return errors.New("hub sent a binary frame")
	case errors.Is(err, wsconn.ErrBadMessage):
		if log != nil {
			log.Warn("bad message from the hub", "err", err)
		}
		return err
	}
	return closeErr(err)
}

// Reconnect is the judge's reconnect policy.
type Reconnect struct {
	// Min and Max bound the delay: from Min doubling to Max, reset after a
	// welcomed connection.
	Min, Max time.Duration
	// Jitter spreads one delay; nil: uniform in [d/2, d].
	Jitter func(time.Duration) time.Duration
	// Draining reports the judge's own drain: a CloseDrained then ends Run
	// with nil instead of a *StopError.
	Draining func() bool
	// RetryAfter takes (and resets) the delay the hub's last drain asked
	// for; 0 when none.
	RetryAfter func() time.Duration
	// Reconnecting, if set, counts each reconnect.
	Reconnecting func()
	Log          *slog.Logger
}

// Jitter returns a duration uniformly in [d/2, d].
func Jitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// Run calls session until ctx ends (nil), the hub says stop (*StopError),
// or the hub closes with drained after the judge's own drain (nil),
// waiting between sessions by the policy. session reports whether the hub
// welcomed it.
func (r Reconnect) Run(ctx context.Context, session func(context.Context) (connected bool, err error)) error {
	jitter := r.Jitter
	if jitter == nil {
		jitter = Jitter
	}
	log := r.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	delay := r.Min
	for {
		connected, err := session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var stop *StopError
		if errors.As(err, &stop) {
			if stop.Code == protocol.CloseDrained && r.Draining != nil && r.Draining() {
				return nil
			}
			log.Error("hub refused this judge; stopping", "code", int(stop.Code), "close", stop.Code.String(), "reason", stop.Reason)
			return err
		}
		if connected {
			delay = r.Min
		}
		wait := jitter(delay)
		if r.RetryAfter != nil {
			if ra := r.RetryAfter(); ra > 0 {
				wait = ra + jitter(r.Min)
			}
		}
		log.Warn("hub connection lost; reconnecting", "err", err, "in", wait.Round(time.Millisecond))
		if r.Reconnecting != nil {
			r.Reconnecting()
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		delay = min(delay*2, r.Max)
	}
}

// Session is one connection's life on the judge's side: dial and greet,
// then Up (the judge publishes the link for its senders and flushes what
// it owes), heartbeats and the hub's messages until the connection ends,
// then the down func Up returned.
type Session struct {
	Dialer Dialer
	// Hello is the judge's hello, built afresh for each connection.
	Hello func() protocol.Hello
	// Up is called once the hub welcomed the connection, before the first
	// heartbeat. It returns the heartbeat writer and what undoes Up.
	Up func(c *wsconn.Conn, w protocol.Welcome) (heartbeat func() error, down func())
	// Handle gets the hub's messages, in order.
	Handle func(protocol.Envelope)
	Log    *slog.Logger
}

// Run serves one connection until it ends; connected reports whether the
// hub welcomed it. Pass it to Reconnect.Run.
func (s Session) Run(ctx context.Context) (connected bool, err error) {
	conn, w, err := s.Dialer.Dial(ctx, s.Hello())
	if err != nil {
		return false, err
	}
	defer func() {
		conn.CloseNow()
		conn.Wait()
	}()
	interval := Interval(w)
	if s.Log != nil {
		s.Log.Info("connected to the hub", "hub_id", w.HubID, "heartbeat", interval, "result_acks", w.ResultAcks)
	}
	heartbeat, down := s.Up(conn, w)
	defer down()
	return true, Serve(ctx, conn, interval, heartbeat, s.Handle, s.Log)
}

// Handlers are what a judge does with the hub's messages; Dispatch decodes
// each payload and calls the handler of its type. A payload that does not
// decode is logged and dropped, except a task's: BadTask gets it, so that
// the judge can reject the task by its ref.
type Handlers struct {
	Task      func(protocol.Task)
	BadTask   func(env protocol.Envelope, err error)
	Evict     func(protocol.Evict)
	Prefetch  func(protocol.Prefetch)
	Drain     func(protocol.Drain)
	Cancel    func(protocol.Cancel)
	ResultAck func(protocol.ResultAck)
	Log       *slog.Logger
}

// Dispatch handles one message of the hub.
func (h Handlers) Dispatch(env protocol.Envelope) {
	log := h.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	switch env.Type {
	case protocol.TypeTask:
		t, err := protocol.DecodeData[protocol.Task](env)
		if err != nil {
			h.BadTask(env, err)
			log.Warn("invalid task", "err", err)
			return
		}
		h.Task(t)
	case protocol.TypeEvict:
		dispatch(log, env, h.Evict)
	case protocol.TypePrefetch:
		dispatch(log, env, h.Prefetch)
	case protocol.TypeDrain:
		d, _ := protocol.DecodeData[protocol.Drain](env) // a drain always counts
		h.Drain(d)
	case protocol.TypeCancel:
		dispatch(log, env, h.Cancel)
	case protocol.TypeResultAck:
		dispatch(log, env, h.ResultAck)
	case protocol.TypeWelcome:
	default:
		log.Debug("ignoring message", "type", env.Type)
	}
}

func dispatch[T any](log *slog.Logger, env protocol.Envelope, handle func(T)) {
	v, err := protocol.DecodeData[T](env)
	if err != nil {
		log.Warn("invalid "+string(env.Type), "err", err)
		return
	}
	handle(v)
}

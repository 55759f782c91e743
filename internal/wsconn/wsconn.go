package wsconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/verdict-oj/verdict/internal/periodic"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/truncate"
)

// Errors. Read and ReadLoop wrap ErrBinary or ErrBadMessage (and, for the
// latter, the protocol sentinel that Decode returned); Accept and Dial wrap
// ErrSubprotocol.
var (
	ErrSubprotocol = errors.New("wsconn: the peers agreed on no subprotocol")
	ErrBinary      = errors.New("wsconn: binary frame where text was expected")
	ErrBadMessage  = errors.New("wsconn: bad message")
)

// Defaults of Config.
const (
	DefaultWriteTimeout = 10 * time.Second
	DefaultQueue        = 256
)

// MaxCloseReason is the longest close reason a close frame holds, in bytes
// (RFC 6455: 125 bytes of payload, two of them the code).
const MaxCloseReason = 123

// Drop says why the Conn closed itself.
type Drop string

// The drops.
const (
	DropOverflow    Drop = "overflow"     // the send queue was full
	DropWriteFailed Drop = "write_failed" // a queued write failed or timed out
	DropPingFailed  Drop = "ping_failed"  // a ping got no pong in time
)

// Config is one connection's settings.
type Config struct {
	// Link decides the decoding rules and, by default, the read limit.
	Link protocol.Link
	// ReadLimit bounds one incoming message in bytes; a larger one closes
	// the connection with 1009 (message too big). 0: Link.MaxMessageSize().
	ReadLimit int64
	// Queue is the capacity of Send's queue. 0: DefaultQueue.
	Queue int
	// WriteTimeout bounds one write (queued or not) and one ping.
	// 0: DefaultWriteTimeout.
	WriteTimeout time.Duration
	// PingInterval: a ping every interval while the connection is open;
	// 0: no pings. Pings need a concurrent ReadLoop (pongs are read there).
	PingInterval time.Duration
	// OverflowCode closes the connection when the queue is full (0:
	// CloseSlowConsumer); WriteFailCode when a queued write fails (0:
	// CloseInternalError). A failed ping closes with CloseGoingAway.
	OverflowCode  protocol.CloseCode
	WriteFailCode protocol.CloseCode
	// OnClose, if set, is called once, when closing starts (by anyone),
	// before Done is closed. It must not block.
	OnClose func(code protocol.CloseCode, reason string)
	// OnDrop, if set, is called when the Conn closes itself (the close it
	// started, not one already under way). It must not block.
	OnDrop func(Drop)
	// Log gets the skipped unknown messages (debug). nil: discarded.
	Log *slog.Logger
}

// Conn is one WebSocket connection. Its methods are safe for concurrent
// use.
type Conn struct {
	ws   *websocket.Conn
	cfg  Config
	log  *slog.Logger
	send chan []byte

	// done closes when closing starts; ctx ends once the socket is closed
	// (after the close handshake).
	done    chan struct{}
	closed  chan struct{} // the socket is closed (handshake over)
	ctx     context.Context
	cancel  context.CancelFunc
	once    sync.Once
	closing atomic.Bool
	started atomic.Bool
	wg      sync.WaitGroup // the writer (Added only by Start)
	pings   atomic.Pointer[periodic.Task]
	// g gathers each message into one write (accepted connections; nil:
	// dialled ones).
	g *gatherer
}

// New wraps an open WebSocket. base gives the connection's context its
// values (not its cancellation); nil means context.Background().
func New(base context.Context, ws *websocket.Conn, cfg Config) *Conn {
	if base == nil {
		base = context.Background()
	}
	if cfg.ReadLimit <= 0 {
		cfg.ReadLimit = int64(cfg.Link.MaxMessageSize())
	}
	cfg.Queue = cmpOr(cfg.Queue, DefaultQueue)
	cfg.WriteTimeout = cmpOr(cfg.WriteTimeout, DefaultWriteTimeout)
	cfg.OverflowCode = cmpOr(cfg.OverflowCode, protocol.CloseSlowConsumer)
	cfg.WriteFailCode = cmpOr(cfg.WriteFailCode, protocol.CloseInternalError)
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.ReadLimit > 0 {
		ws.SetReadLimit(cfg.ReadLimit)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(base))
	return &Conn{ws: ws, cfg: cfg, log: log, send: make(chan []byte, cfg.Queue),
		done: make(chan struct{}), closed: make(chan struct{}), ctx: ctx, cancel: cancel}
}

func cmpOr[T comparable](v, d T) T {
	var zero T
	if v == zero {
		return d
	}
	return v
}

// AcceptOptions are the server side's handshake options.
type AcceptOptions struct {
	// OriginPatterns: the hosts (path.Match patterns) a browser's Origin may
	// name besides the request's own host.
	OriginPatterns []string
	// AnyOrigin skips the Origin check: for peers that are not browsers.
	AnyOrigin bool
}

// Accept upgrades an HTTP request to the link's subprotocol. A failed
// handshake has already answered w. A client that did not offer the
// subprotocol is closed with CloseUnsupportedVersion and Accept returns an
// error wrapping ErrSubprotocol.
func Accept(w http.ResponseWriter, r *http.Request, cfg Config, opts AcceptOptions) (*Conn, error) {
	sub := cfg.Link.Subprotocol()
	h := &hijacker{ResponseWriter: w}
	ws, err := websocket.Accept(h, r, &websocket.AcceptOptions{
		Subprotocols:       []string{sub},
		OriginPatterns:     opts.OriginPatterns,
		InsecureSkipVerify: opts.AnyOrigin,
	})
	if err != nil {
		return nil, fmt.Errorf("wsconn: accept: %w", err)
	}
	c := New(r.Context(), ws, cfg)
	c.g = h.g
	if ws.Subprotocol() != sub {
		c.Close(protocol.CloseUnsupportedVersion, "subprotocol "+sub+" required")
		c.Wait()
		return nil, fmt.Errorf("%w: client did not offer %s", ErrSubprotocol, sub)
	}
	return c, nil
}

// DialOptions are the client side's handshake options.
type DialOptions struct {
	// HTTPClient dials (nil: http.DefaultClient). It must have no Timeout:
	// the connection outlives any request.
	HTTPClient *http.Client
	// Header is sent with the handshake (a session cookie, say).
	Header http.Header
}

// Dial opens a connection to url speaking the link's subprotocol. A server
// that did not agree to it is closed with CloseProtocolError and Dial
// returns an error wrapping ErrSubprotocol.
func Dial(ctx context.Context, url string, cfg Config, opts DialOptions) (*Conn, error) {
	sub := cfg.Link.Subprotocol()
	ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{
		Subprotocols: []string{sub},
		HTTPClient:   opts.HTTPClient,
		HTTPHeader:   opts.Header,
	})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("dial %s: %s: %w", url, resp.Status, err)
		}
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	c := New(ctx, ws, cfg)
	if ws.Subprotocol() != sub {
		c.Close(protocol.CloseProtocolError, "subprotocol "+sub+" required")
		c.Wait()
		return nil, fmt.Errorf("%w: %s did not accept %s", ErrSubprotocol, url, sub)
	}
	return c, nil
}

// Context ends once the connection is closed. Work done for the peer
// (a Redis call for its message) runs under it.
func (c *Conn) Context() context.Context { return c.ctx }

// Done is closed as soon as closing starts (the close frame may still be on
// its way).
func (c *Conn) Done() <-chan struct{} { return c.done }

// Closing reports whether closing has started.
func (c *Conn) Closing() bool { return c.closing.Load() }

// Start starts the writer (and the pinger, if configured). Messages queued
// before Start go out first, in order. Start is idempotent.
func (c *Conn) Start() {
	if !c.started.CompareAndSwap(false, true) {
		return
	}
	c.wg.Go(c.writer)
	if c.cfg.PingInterval > 0 {
		c.pings.Store(periodic.Every(c.cfg.PingInterval, c.ping))
	}
}

// Send queues one message without blocking. It returns false when closing
// has started, or when the queue is full, in which case it closes the
// connection with OverflowCode.
func (c *Conn) Send(b []byte) bool {
	if c.closing.Load() {
		return false
	}
	select {
	case c.send <- b:
		return true
	default:
		c.drop(DropOverflow, c.cfg.OverflowCode, "send queue full")
		return false
	}
}

// Write writes one message now, bounded by ctx and WriteTimeout. A failed
// write drops the connection (CloseNow), so that its reader ends.
func (c *Conn) Write(ctx context.Context, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.WriteTimeout)
	defer cancel()
	if err := c.write(ctx, b); err != nil {
		c.CloseNow()
		return fmt.Errorf("wsconn: write: %w", err)
	}
	return nil
}

// write writes one message, gathered into one write on an accepted
// connection, by ctx.
func (c *Conn) write(ctx context.Context, b []byte) error {
	c.g.begin()
	err := c.ws.Write(ctx, websocket.MessageText, b)
	dl, _ := ctx.Deadline()
	if gerr := c.g.end(dl, err != nil); err == nil {
		err = gerr
	}
	return err
}

func (c *Conn) writer() {
	for {
		select {
		case <-c.done:
			return
		case <-c.ctx.Done():
			return
		case b := <-c.send:
			ctx, cancel := context.WithTimeout(context.Background(), c.cfg.WriteTimeout)
			err := c.write(ctx, b)
			cancel()
			if err != nil {
				c.drop(DropWriteFailed, c.cfg.WriteFailCode, "write failed")
				return
			}
		}
	}
}

// ping is one ping of the pings task (no goroutine waits between them);
// false ends the task.
func (c *Conn) ping() bool {
	if c.closing.Load() {
		return false
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.cfg.WriteTimeout)
	err := c.ws.Ping(ctx)
	cancel()
	if err != nil {
		c.drop(DropPingFailed, protocol.CloseGoingAway, "ping failed")
		return false
	}
	return true
}

// drop closes the connection on its own account.
func (c *Conn) drop(d Drop, code protocol.CloseCode, reason string) {
	if c.closeWith(code, reason) && c.cfg.OnDrop != nil {
		c.cfg.OnDrop(d)
	}
}

// start begins closing; true for the one call that did.
func (c *Conn) start(code protocol.CloseCode, reason string) bool {
	first := false
	c.once.Do(func() {
		first = true
		c.closing.Store(true)
		if c.cfg.OnClose != nil {
			c.cfg.OnClose(code, reason)
		}
		close(c.done)
	})
	return first
}

// Close closes the connection with code and reason (trimmed to
// MaxCloseReason bytes) and returns at once; the close handshake runs on a
// goroutine that Wait joins, after which Context ends. Only the first Close
// or CloseNow counts.
func (c *Conn) Close(code protocol.CloseCode, reason string) { c.closeWith(code, reason) }

// closeWith is Close; true for the call that started closing.
func (c *Conn) closeWith(code protocol.CloseCode, reason string) bool {
	if !c.start(code, reason) {
		return false
	}
	go func() { // joined by Wait, through closed
		_ = c.ws.Close(websocket.StatusCode(code), TrimReason(reason))
		c.cancel()
		close(c.closed)
	}()
	return true
}

// CloseNow drops the connection without a close handshake (the peer sees
// 1006), unless closing already started.
func (c *Conn) CloseNow() {
	if !c.start(protocol.CloseAbnormal, "") {
		return
	}
	_ = c.ws.CloseNow()
	c.cancel()
	close(c.closed)
}

// Wait blocks until the connection is closed and the Conn's goroutines
// have ended. Call it after Close or CloseNow (it waits for closing to be
// started and finished); any number of goroutines may wait.
func (c *Conn) Wait() {
	<-c.closed
	c.pings.Load().Stop()
	c.wg.Wait()
}

// Read reads one message under ctx and decodes it with the link's rules.
// A failed read returns the transport's error (see CloseStatus); a binary
// frame ErrBinary; a message Decode refuses ErrBadMessage wrapping Decode's
// error (protocol.ErrUnknownType among them). Read does not close the
// connection.
func (c *Conn) Read(ctx context.Context) (protocol.Envelope, error) {
	typ, b, err := c.ws.Read(ctx)
	if err != nil {
		return protocol.Envelope{}, err
	}
	if typ != websocket.MessageText {
		return protocol.Envelope{}, ErrBinary
	}
	env, err := protocol.Decode(c.cfg.Link, b)
	if err != nil {
		return protocol.Envelope{}, fmt.Errorf("%w: %w", ErrBadMessage, err)
	}
	return env, nil
}

// ReadRaw reads one message under ctx as it came, undecoded. A binary frame
// is ErrBinary.
func (c *Conn) ReadRaw(ctx context.Context) ([]byte, error) {
	typ, b, err := c.ws.Read(ctx)
	if err != nil {
		return nil, err
	}
	if typ != websocket.MessageText {
		return nil, ErrBinary
	}
	return b, nil
}

// ReadOrSkip reads one message under ctx as it came, like ReadRaw, unless
// skip says so of its first head bytes (or fewer, for a shorter message):
// then the rest is read past without being kept (skipped is true, msg
// nil). A reader that ignores most large messages (a load generator's
// browsers, each pushed every scoreboard) so never holds them in memory.
func (c *Conn) ReadOrSkip(ctx context.Context, head int, skip func(head []byte) bool) (msg []byte, skipped bool, err error) {
	typ, r, err := c.ws.Reader(ctx)
	if err != nil {
		return nil, false, err
	}
	if typ != websocket.MessageText {
		_, _ = io.Copy(io.Discard, r)
		return nil, false, ErrBinary
	}
	h := make([]byte, head)
	n, err := io.ReadFull(r, h)
	h = h[:n]
	// ReadFull's own sentinels, as they are, say the message ended before
	// head bytes; the connection breaking mid-message is an error that
	// wraps io.ErrUnexpectedEOF ("failed to read frame payload: ..."),
	// and a truncated head is not a message.
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return h, false, nil // the whole message
	}
	if err != nil {
		return nil, false, err
	}
	if skip(h) {
		_, err := io.Copy(io.Discard, r)
		return nil, err == nil, err
	}
	rest, err := io.ReadAll(r)
	if err != nil {
		return nil, false, err
	}
	return append(h, rest...), false, nil
}

// ReadLoop reads messages under ctx and hands each to handle, in order,
// until the connection ends (the read error is returned), handle returns
// an error (returned as is), or the peer breaks the link's rules: a
// binary frame closes with CloseUnsupportedData, a message Decode refuses
// with CloseBadEnvelope (the error is returned). Messages of unknown types
// are skipped, as the protocol says receivers may.
func (c *Conn) ReadLoop(ctx context.Context, handle func(protocol.Envelope) error) error {
	for {
		env, err := c.Read(ctx)
		switch {
		case errors.Is(err, protocol.ErrUnknownType):
			c.log.Debug("skipping unknown message", "err", err)
			continue
		case errors.Is(err, ErrBinary):
			c.Close(protocol.CloseUnsupportedData, "text frames only")
			return err
		case errors.Is(err, ErrBadMessage):
			c.Close(protocol.CloseBadEnvelope, "bad message")
			return err
		case err != nil:
			return err
		}
		if err := handle(env); err != nil {
			return err
		}
	}
}

// CloseStatus returns the close code and reason the peer sent, if err is
// a read or write error that ended with a close frame.
func CloseStatus(err error) (code protocol.CloseCode, reason string, ok bool) {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return protocol.CloseCode(ce.Code), ce.Reason, true
	}
	return 0, "", false
}

// TrimReason cuts a close reason to MaxCloseReason bytes on a UTF-8
// boundary, dropping invalid bytes (a close frame's reason is UTF-8).
func TrimReason(s string) string {
	return truncate.UTF8(strings.ToValidUTF8(s, ""), MaxCloseReason)
}

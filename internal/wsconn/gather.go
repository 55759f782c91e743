package wsconn

import (
	"bufio"
	"net"
	"net/http"
	"sync"
	"time"
)

// WriteBuffer is the size of the buffer an accepted connection borrows
// (from a pool shared by every connection) while it writes a message: a
// message up to about this size is gathered there and goes out in one
// write; a larger one goes out as the gathered head and the rest in one
// writev.
//
// The WebSocket library writes a frame's header, then its payload, into a
// bufio.Writer; net/http hands a hijacked connection a 4 KiB one, so every
// message above 4 KiB took two writes, two wake-ups of the peer (nginx),
// and, on its other side, two more. A scoreboard delta of a busy contest
// minute is 4–10 KiB and goes to every browser of the contest. From
// 2026-12-06 05:00 to 09:00 each connection had a writer of its own of
// this size: 48 MiB of live heap at 3,000 browsers, 240 MiB more RSS
// under the hub's GOGC=400 (its peak 901 against 628 MiB). Borrowed only
// while a message is written, the buffer costs about nothing at rest.
const WriteBuffer = 16 << 10

// ReadBuffer is the size of an accepted connection's read buffer. A
// browser sends a few hundred bytes a minute; a larger message is read
// through it or, beyond its size, straight into the message.
const ReadBuffer = 1 << 10

// frameHead is the size of the bufio.Writer handed to the WebSocket
// library: room for a frame's header (at most 14 bytes) and a little of
// its payload; the rest passes straight to the gatherer.
const frameHead = 64

var gatherPool = sync.Pool{New: func() any { b := make([]byte, 0, WriteBuffer); return &b }}

// gatherer is what an accepted connection's WebSocket library writes to:
// between begin and end (one message) it holds the bytes, in a buffer
// borrowed from gatherPool, and end writes them at once; outside (a pong
// or a close frame written by another goroutine) it writes through. A
// write of another goroutine during a message (the library orders whole
// frames and whole messages) is held after it and goes out with it; two
// messages under way at once (Write beside the writer) are gathered
// until each ends, in order.
type gatherer struct {
	conn net.Conn
	mu   sync.Mutex
	on   int     // messages under way
	buf  *[]byte // borrowed while on > 0
}

func (g *gatherer) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.on == 0 {
		return g.conn.Write(p)
	}
	if g.buf == nil {
		g.buf = gatherPool.Get().(*[]byte)
	}
	b := *g.buf
	if len(b)+len(p) <= cap(b) {
		*g.buf = append(b, p...)
		return len(p), nil
	}
	// Too big to hold: what is held and p in one writev.
	bufs := net.Buffers{b, p}
	n, err := bufs.WriteTo(g.conn)
	*g.buf = b[:0]
	if n -= int64(len(b)); n < 0 {
		n = 0
	}
	return int(n), err
}

// begin starts gathering a message. nil-safe (a dialled connection has
// no gatherer).
func (g *gatherer) begin() {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.on++
	g.mu.Unlock()
}

// end writes what is held, by deadline (zero: none), and returns the
// buffer to the pool once no message is under way. After a failed message
// (failed: its write failed, the connection is being dropped) the held
// bytes are dropped.
func (g *gatherer) end(deadline time.Time, failed bool) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.on--
	if g.buf == nil {
		return nil
	}
	var err error
	if b := *g.buf; len(b) > 0 && !failed {
		if !deadline.IsZero() {
			_ = g.conn.SetWriteDeadline(deadline)
		}
		_, err = g.conn.Write(b)
		if !deadline.IsZero() {
			_ = g.conn.SetWriteDeadline(time.Time{})
		}
	}
	*g.buf = (*g.buf)[:0]
	if g.on == 0 {
		gatherPool.Put(g.buf)
		g.buf = nil
	}
	return err
}

// hijacker hands the WebSocket library a hijacked connection whose writer
// is a gatherer (behind a frameHead-byte bufio.Writer) and whose reader
// holds ReadBuffer bytes, and keeps the gatherer for the Conn.
type hijacker struct {
	http.ResponseWriter
	g *gatherer
}

// Hijack takes the connection over (through http.ResponseController, so
// a wrapped ResponseWriter's Unwrap is followed) and replaces its empty
// 4 KiB writer and reader. A writer or reader that still holds bytes is
// kept: they must go first, in order.
func (h *hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	if brw.Writer.Buffered() == 0 {
		h.g = &gatherer{conn: conn}
		brw.Writer = bufio.NewWriterSize(h.g, frameHead)
	}
	if brw.Reader.Buffered() == 0 {
		brw.Reader = bufio.NewReaderSize(conn, ReadBuffer)
	}
	return conn, brw, nil
}

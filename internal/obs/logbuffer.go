package obs

import (
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultLogBuffer is the records a service's log buffer holds
// (Config.LogBuffer): a few seconds of a web node's access log at a
// contest's peak.
const DefaultLogBuffer = 8192

// logFlushTimeout bounds how long Close waits for the buffer to drain
// into a sink that may be stuck.
const logFlushTimeout = 2 * time.Second

// logBuffer passes log records to a writer from a goroutine of its own,
// through a bounded buffer, so that a slow sink never holds the code that
// logs: a pipe whose reader is short of CPU, a terminal paused with
// Ctrl-S, a busy journald. A record that finds the buffer full is dropped
// and counted; before the next record it writes, and once more when it
// ends, the goroutine writes notice(n) for the n dropped since the last
// notice.
//
// In the 40× contest rehearsal of 2026-12-07 (2 cores) the web nodes
// wrote their access log to the stack's supervisor through a pipe; the
// supervisor, the load generator too, was starved of CPU, the pipe
// filled, and each request waited for its log line before its answer
// went out: 2,710 of a node's goroutines were blocked in slog's handler,
// nginx timed the answers at 12 s (p50) while the handlers took 0.2 s,
// and the browsers timed out by the ten thousand.
type logBuffer struct {
	w      io.Writer
	notice func(dropped uint64) []byte
	ch     chan []byte

	dropped  atomic.Uint64 // all time (the metric)
	reported uint64        // the goroutine's: dropped already noticed

	mu     sync.RWMutex // closed and the close of ch, against Write
	closed bool
	done   chan struct{}
}

func newLogBuffer(w io.Writer, size int, notice func(uint64) []byte) *logBuffer {
	b := &logBuffer{w: w, notice: notice, ch: make(chan []byte, size), done: make(chan struct{})}
	go b.run()
	return b
}

// Write queues a copy of p, or drops it when the buffer is full. It never
// blocks and never fails.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		b.dropped.Add(1)
		return len(p), nil
	}
	select {
	case b.ch <- append([]byte(nil), p...):
	default:
		b.dropped.Add(1)
	}
	return len(p), nil
}

func (b *logBuffer) run() {
	defer close(b.done)
	for p := range b.ch {
		b.noticeDrops()
		_, _ = b.w.Write(p)
	}
	// Closed and drained: the records dropped since the last one taken
	// (logged after Close, or beside the last take) have no record after
	// them to be noticed before.
	b.noticeDrops()
}

// noticeDrops writes the notice of the records dropped since the last.
func (b *logBuffer) noticeDrops() {
	if d := b.dropped.Load(); d > b.reported {
		_, _ = b.w.Write(b.notice(d - b.reported))
		b.reported = d
	}
}

// Close stops taking records (later writes are dropped and counted) and
// waits, at most logFlushTimeout, for the buffered ones to be written.
// Safe to call twice and beside Write.
func (b *logBuffer) Close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.ch)
	}
	b.mu.Unlock()
	t := time.NewTimer(logFlushTimeout)
	defer t.Stop()
	select {
	case <-b.done:
	case <-t.C:
	}
}

package sandbox

import (
	"os"
	"strings"
	"sync"
	"time"
)

// captureChunk is the read size and the unit the kept bytes are stored
// in: chunks, never one growing slice, so that holding n bytes costs n
// bytes (plus less than a chunk), not the up to 2n of append's regrowth.
const captureChunk = 64 << 10

// capture reads a pipe, keeping the first keep bytes. Past keep it reads
// on and discards, up to max bytes in all; past max it stops reading at
// once and closes overflow: the judge then kills the run as an output
// limit. The writer blocks on the full pipe meanwhile and costs nobody CPU;
// the judge reads max bytes at most per run whatever the program prints.
type capture struct {
	r        *os.File
	keep     int64
	max      int64
	overflow chan struct{} // closed when more than max bytes came

	mu        sync.Mutex
	chunks    [][]byte
	kept      int64
	total     int64
	truncated bool // more than keep bytes came
	over      bool // more than max bytes came
	done      chan struct{}
}

func newCapture(r *os.File, keep, max int64) *capture {
	if max < keep {
		max = keep
	}
	c := &capture{r: r, keep: keep, max: max, done: make(chan struct{}), overflow: make(chan struct{})}
	go c.loop()
	return c
}

func (c *capture) loop() {
	defer close(c.done)
	var chunk []byte
	var scratch []byte // reused once nothing more is kept
	for {
		c.mu.Lock()
		keeping := c.kept < c.keep
		c.mu.Unlock()
		var buf []byte
		if keeping {
			if chunk == nil || len(chunk) == cap(chunk) {
				chunk = make([]byte, 0, min(captureChunk, c.keep-c.kept))
			}
			buf = chunk[len(chunk):cap(chunk)]
		} else {
			if scratch == nil {
				scratch = make([]byte, captureChunk)
			}
			buf = scratch
		}
		n, err := c.r.Read(buf)
		if n > 0 {
			c.mu.Lock()
			c.total += int64(n)
			if keeping {
				if len(chunk) == 0 {
					c.chunks = append(c.chunks, nil)
				}
				chunk = chunk[:len(chunk)+n]
				c.chunks[len(c.chunks)-1] = chunk
				c.kept += int64(n)
			} else {
				c.truncated = true
			}
			over := c.total > c.max
			if over {
				c.over = true
				c.truncated = true
			}
			c.mu.Unlock()
			if over {
				// Stop reading: the run is killed now.
				close(c.overflow)
				return
			}
		}
		if err != nil {
			return // io.EOF: every writer is gone; other errors: deadline
		}
	}
}

// wait returns when the writer side is closed everywhere (or after a grace
// period, when it gives up on stragglers), or at once after an overflow,
// and reports whether more than max bytes came.
func (c *capture) wait() bool {
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
		_ = c.r.SetReadDeadline(time.Now())
		<-c.done
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.over
}

// result returns what was kept (once: the chunks are released) and
// whether anything was left out.
func (c *capture) result() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	b.Grow(int(c.kept))
	for _, ch := range c.chunks {
		b.Write(ch)
	}
	c.chunks = nil
	return b.String(), c.truncated
}

package sandbox

import (
	"os"
	"sync"
	"time"
)

// capture reads a pipe into at most limit bytes. Past the limit it keeps
// draining (so the writer never blocks) but stores nothing: the judge's
// memory stays bounded whatever the program prints.
type capture struct {
	r        *os.File
	limit    int64
	overflow chan struct{} // closed on the first byte past the limit, if watched

	mu        sync.Mutex
	buf       []byte
	truncated bool
	done      chan struct{}
}

func newCapture(r *os.File, limit int64, watchOverflow bool) *capture {
	c := &capture{r: r, limit: limit, done: make(chan struct{})}
	if watchOverflow {
		c.overflow = make(chan struct{})
	}
	go c.loop()
	return c
}

func (c *capture) loop() {
	defer close(c.done)
	chunk := make([]byte, 64<<10)
	signalled := false
	for {
		n, err := c.r.Read(chunk)
		if n > 0 {
			c.mu.Lock()
			room := c.limit - int64(len(c.buf))
			take := int64(n)
			if take > room {
				take = room
				c.truncated = true
			}
			if take > 0 {
				c.buf = append(c.buf, chunk[:take]...)
			}
			ovf := c.truncated
			c.mu.Unlock()
			if ovf && !signalled && c.overflow != nil {
				close(c.overflow)
				signalled = true
			}
		}
		if err != nil {
			return // io.EOF: every writer is gone; other errors: deadline
		}
	}
}

// wait returns when the writer side is closed everywhere (or after a grace
// period, when it gives up on stragglers) and reports an overflow.
func (c *capture) wait() bool {
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
		_ = c.r.SetReadDeadline(time.Now())
		<-c.done
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.truncated
}

func (c *capture) result() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.buf), c.truncated
}

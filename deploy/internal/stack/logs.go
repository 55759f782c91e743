package stack

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// console serialises whole lines from many processes onto one writer.
type console struct {
	mu    sync.Mutex
	w     io.Writer
	color bool
	width int
}

var palette = []string{"36", "33", "35", "32", "34", "31", "96", "93", "95", "92"}

// prefixed returns a writer that prefixes each line written to it with name.
func (c *console) prefixed(name string, idx int) io.Writer {
	if len(name) > c.width {
		c.width = len(name)
	}
	return &lineWriter{c: c, name: name, idx: idx}
}

func (c *console) line(name string, idx int, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.color {
		fmt.Fprintf(c.w, "\x1b[%sm%-*s |\x1b[0m %s\n", palette[idx%len(palette)], c.width, name, b)
	} else {
		fmt.Fprintf(c.w, "%-*s | %s\n", c.width, name, b)
	}
}

// lineWriter buffers partial lines; a line longer than maxLine is emitted
// in pieces so a process that never prints a newline cannot grow it.
type lineWriter struct {
	c    *console
	name string
	idx  int
	mu   sync.Mutex
	buf  []byte
}

const maxLine = 16 << 10

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.buf = append(l.buf, p...)
			for len(l.buf) >= maxLine {
				l.c.line(l.name, l.idx, l.buf[:maxLine])
				l.buf = append(l.buf[:0], l.buf[maxLine:]...)
			}
			break
		}
		l.buf = append(l.buf, p[:i]...)
		l.c.line(l.name, l.idx, bytes.TrimRight(l.buf, "\r"))
		l.buf = l.buf[:0]
		p = p[i+1:]
	}
	return n, nil
}

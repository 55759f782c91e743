package obs

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// stuckWriter blocks every Write until release is closed, then keeps what
// it was given.
type stuckWriter struct {
	release chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
}

func (w *stuckWriter) Write(p []byte) (int, error) {
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *stuckWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// gateWriter signals each Write on entered and holds it until release is
// closed.
type gateWriter struct {
	entered chan struct{}
	stuckWriter
}

func (w *gateWriter) Write(p []byte) (int, error) {
	w.entered <- struct{}{}
	return w.stuckWriter.Write(p)
}

// A record dropped after the last one the buffer took (here one logged
// after Close while the last record was being written) has no record
// after it to be noticed before: the notice comes at the end.
func TestLogBufferNoticesTheLastDrops(t *testing.T) {
	out := &gateWriter{entered: make(chan struct{}, 8), stuckWriter: stuckWriter{release: make(chan struct{})}}
	o, err := New(Config{Component: "hub", LogOutput: out, LogBuffer: 4})
	if err != nil {
		t.Fatal(err)
	}
	o.Logger.Info("last")
	<-out.entered // taken from the buffer, being written
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		o.Close()
	}()
	for {
		o.logBuf.mu.RLock()
		c := o.logBuf.closed
		o.logBuf.mu.RUnlock()
		if c {
			break
		}
		time.Sleep(time.Millisecond)
	}
	o.Logger.Info("too late") // dropped, counted
	close(out.release)
	<-closed
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"msg":"last"`) ||
		!strings.Contains(lines[1], `"msg":"log records dropped: the log output was too slow"`) || !strings.Contains(lines[1], `"dropped":1`) {
		t.Fatalf("the log, want the last record then a notice of 1 dropped:\n%s", out.String())
	}
}

// A log output that does not take what it is given never holds the code
// that logs: the records beyond the buffer are dropped and counted, and
// once the output moves again the drop is noticed in the log (a record
// of the log's own format) before the next record; Close writes out the
// buffer and later records are dropped, not a panic.
func TestLogBufferNeverBlocks(t *testing.T) {
	out := &stuckWriter{release: make(chan struct{})}
	o, err := New(Config{Component: "webapp", LogOutput: out, LogBuffer: 4})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 100 {
			o.Logger.Info("request", "i", i)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("logging blocked on a stuck output")
	}
	// One record is in the writer's hands, four in the buffer.
	dropped := o.logBuf.dropped.Load()
	if dropped < 95 || dropped > 96 {
		t.Fatalf("dropped %d of 100 with a buffer of 4 and one record being written", dropped)
	}
	close(out.release)
	for len(o.logBuf.ch) > 0 { // the output moves again: the buffer drains
		time.Sleep(time.Millisecond)
	}
	o.Logger.Info("after", "i", 100)
	o.Close()
	o.Close()
	o.Logger.Info("closed") // dropped, counted
	if d := o.logBuf.dropped.Load(); d != dropped+1 {
		t.Fatalf("dropped %d after a record logged after Close, want %d", d, dropped+1)
	}
	var requests, noticed float64
	var last map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("a line of the log is no JSON record: %q", l)
		}
		switch m["msg"] {
		case "request":
			requests++
		case "log records dropped: the log output was too slow":
			if m["level"] != "WARN" || m[KeyComponent] != "webapp" {
				t.Errorf("notice %v", m)
			}
			noticed += m["dropped"].(float64)
		}
		last = m
	}
	if requests != 100-float64(dropped) || noticed != float64(dropped) {
		t.Fatalf("%v records written and %v noticed as dropped, want %d and %d:\n%s", requests, noticed, 100-dropped, dropped, out.String())
	}
	if last["msg"] != "after" {
		t.Fatalf("the last record written is %v, want the one logged before Close", last)
	}
}

// Without a buffer every record is written as it is logged; Close does
// nothing.
func TestLogUnbuffered(t *testing.T) {
	var out bytes.Buffer
	o, err := New(Config{Component: "hub", LogOutput: &out})
	if err != nil {
		t.Fatal(err)
	}
	o.Logger.Info("now")
	if !strings.Contains(out.String(), `"msg":"now"`) {
		t.Fatalf("log %q", out.String())
	}
	o.Close()
	if _, err := New(Config{Component: "hub", LogBuffer: -1}); err == nil {
		t.Fatal("a negative log buffer accepted")
	}
}

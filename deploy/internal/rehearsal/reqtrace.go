package rehearsal

import (
	"context"
	"net/http/httptrace"
	"sync"
	"time"
)

// reqTrace splits a request's own time as the client sees it: getting a
// connection (an idle one from the pool, or a new one dialled — nginx's
// accept included), the request written → the answer's first byte (what
// nginx's $request_time covers, with loopback), and the rest (reading the
// body, and the client goroutine being scheduled).
type reqTrace struct {
	mu                    sync.Mutex
	start, gotConn, wrote time.Time
	firstByte             time.Time
	reused                bool
}

// traced returns ctx with a client trace recording into a new reqTrace,
// started now.
func traced(ctx context.Context) (context.Context, *reqTrace) {
	t := &reqTrace{start: time.Now()}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) {
			t.mu.Lock()
			t.gotConn, t.reused = time.Now(), i.Reused
			t.mu.Unlock()
		},
		WroteRequest: func(httptrace.WroteRequestInfo) {
			t.mu.Lock()
			t.wrote = time.Now()
			t.mu.Unlock()
		},
		GotFirstResponseByte: func() {
			t.mu.Lock()
			t.firstByte = time.Now()
			t.mu.Unlock()
		},
	}), t
}

// parts returns the three spans of a request that ended at end; ok is
// false when a hook did not fire (a transport error).
func (t *reqTrace) parts(end time.Time) (conn, server, rest time.Duration, reused, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gotConn.IsZero() || t.wrote.IsZero() || t.firstByte.IsZero() {
		return 0, 0, 0, false, false
	}
	return t.gotConn.Sub(t.start), t.firstByte.Sub(t.wrote), end.Sub(t.firstByte), t.reused, true
}

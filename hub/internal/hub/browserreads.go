package hub

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// readGate bounds the browsers' Redis reads in flight (Config.BrowserReads):
// a browser's session read on connecting and on each re-check, and its
// subscriptions' snapshots. Each such read holds a connection of the
// hub's one Redis pool for its round trip; without a bound, a storm of
// browsers (a contest's start, a mass reconnect, the freeze) took every
// connection, and the judges' lease renewals, results and the dispatcher
// waited behind them until leases expired (docs/rehearsal.md, 40×
// 2026-12-07 03:29: 636 expiries, 5 system errors). With the gate the
// browsers hold at most BrowserReads connections and the rest of the pool
// stays for the judges' work; a browser's read beyond them waits here, in
// order of arrival, for as long as its context allows.
type readGate struct {
	slots       chan struct{}
	waits       prometheus.Counter
	waitSeconds prometheus.Counter
}

func newReadGate(n int, m *metrics) *readGate {
	return &readGate{slots: make(chan struct{}, n), waits: m.browserReadWaits, waitSeconds: m.browserReadWaitSeconds}
}

// do runs fn, which reads Redis for a browser, once a slot is free; the
// context's error when it ends first (fn not run).
func (g *readGate) do(ctx context.Context, fn func() error) error {
	select {
	case g.slots <- struct{}{}:
	default:
		start := time.Now()
		g.waits.Inc()
		select {
		case g.slots <- struct{}{}:
			g.waitSeconds.Add(time.Since(start).Seconds())
		case <-ctx.Done():
			g.waitSeconds.Add(time.Since(start).Seconds())
			return ctx.Err()
		}
	}
	defer func() { <-g.slots }()
	return fn()
}

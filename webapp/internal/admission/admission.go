package admission

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Config.
const (
	DefaultSlots      = 64
	DefaultMaxWait    = time.Second
	DefaultRetryAfter = time.Second
	// DefaultMaxRetryAfter is the frontend's READ_RETRY_MAX_S
	// (frontend/src/api/http.ts): a browser resends a shed read by itself
	// only when told at most that. Change both together.
	DefaultMaxRetryAfter = 10 * time.Second
)

// ErrConfig reports a bad Config.
var ErrConfig = errors.New("admission: bad config")

// ShedError refuses a request: the line was full, or no slot came free
// within MaxWait. The client should come back after RetryAfter (whole
// seconds, see Config.RetryAfter).
type ShedError struct {
	Reason     Reason
	RetryAfter time.Duration
}

func (e *ShedError) Error() string {
	return fmt.Sprintf("admission: shed (%s); retry after %v", e.Reason, e.RetryAfter)
}

// Reason says why a request was shed.
type Reason string

const (
	// LineFull: MaxLine requests were already waiting.
	LineFull Reason = "line_full"
	// Waited: no slot came free within MaxWait.
	Waited Reason = "waited"
	// Queued: the request had already waited MaxWait before it reached
	// the gate (EnterQueued), and no slot was free.
	Queued Reason = "queued"
	// Stale: the request had already waited MaxQueued before it reached
	// the gate; shed even with a slot free.
	Stale Reason = "stale"
)

// Config configures New.
type Config struct {
	// Slots is how many requests are worked on at once. Default
	// DefaultSlots.
	Slots int
	// MaxWait is the longest a request waits in line for a slot before it
	// is shed. Default DefaultMaxWait.
	MaxWait time.Duration
	// MaxLine is how many requests may wait at once; one more is shed at
	// once. Default 4 × Slots.
	MaxLine int
	// RetryAfter is the least a shed request is told to wait, when its
	// turn is sooner (an idle gate's blip). Default DefaultRetryAfter.
	// A shed request is told about when its turn comes (retry.go), in
	// whole seconds between RetryAfter (rounded up) and MaxRetryAfter
	// (rounded down).
	RetryAfter time.Duration
	// MaxRetryAfter is the most a shed request is told, however long the
	// overload. Default DefaultMaxRetryAfter: more and browsers no longer
	// retry by themselves.
	MaxRetryAfter time.Duration
	// MaxQueued: a request that waited this long before it reached the
	// gate (EnterQueued) is shed even with a slot free: its time is spent
	// and the node, behind before its gate, would work on it for a client
	// likely gone. 0: none (the web node sets its request deadline).
	MaxQueued time.Duration
}

// Gate admits requests (see the package doc). Safe for concurrent use.
type Gate struct {
	cfg     Config
	slots   chan struct{}
	waiting atomic.Int64

	// now and rand are the clock and the jitter (uniform in [0, 1));
	// tests replace them.
	now  func() time.Time
	rand func() float64

	mu    sync.Mutex
	retry retryEstimate
}

// New checks cfg and returns a Gate.
func New(cfg Config) (*Gate, error) {
	if cfg.Slots < 0 || cfg.MaxLine < 0 || cfg.MaxWait < 0 || cfg.RetryAfter < 0 || cfg.MaxRetryAfter < 0 || cfg.MaxQueued < 0 {
		return nil, fmt.Errorf("%w: negative value in %+v", ErrConfig, cfg)
	}
	if cfg.Slots == 0 {
		cfg.Slots = DefaultSlots
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = DefaultMaxWait
	}
	if cfg.MaxLine == 0 {
		cfg.MaxLine = 4 * cfg.Slots
	}
	if cfg.RetryAfter == 0 {
		cfg.RetryAfter = DefaultRetryAfter
	}
	if cfg.MaxRetryAfter == 0 {
		cfg.MaxRetryAfter = max(DefaultMaxRetryAfter, cfg.RetryAfter)
	}
	if cfg.MaxRetryAfter < cfg.RetryAfter {
		return nil, fmt.Errorf("%w: MaxRetryAfter %v below RetryAfter %v", ErrConfig, cfg.MaxRetryAfter, cfg.RetryAfter)
	}
	return &Gate{cfg: cfg, slots: make(chan struct{}, cfg.Slots), now: time.Now, rand: rand.Float64,
		retry: newRetryEstimate(cfg.Slots, cfg.RetryAfter, cfg.MaxRetryAfter)}, nil
}

// Config returns the gate's settings, defaults filled in.
func (g *Gate) Config() Config { return g.cfg }

// Enter takes a slot, waiting in line for at most MaxWait. It returns the
// slot's release (call it exactly once, when the request is done), or a
// *ShedError, or ctx's error when ctx ended first (the client left).
func (g *Gate) Enter(ctx context.Context) (release func(), err error) {
	return g.EnterQueued(ctx, 0)
}

// EnterQueued is Enter for a request that already waited queued before it
// reached the gate (in a proxy's connection, in the server's backlog of
// requests not yet read): its wait counts against MaxWait. A free slot is
// taken whatever the wait (the node has room for it now) short of
// MaxQueued, past which the request is shed at once (Stale); else a
// request that waited MaxWait already is shed at once (Queued), and one
// that waited less waits in line only for the rest.
func (g *Gate) EnterQueued(ctx context.Context, queued time.Duration) (release func(), err error) {
	if g.cfg.MaxQueued > 0 && queued >= g.cfg.MaxQueued {
		return nil, g.shed(Stale, int(g.waiting.Load()))
	}
	select {
	case g.slots <- struct{}{}:
		return g.taken(), nil
	default:
	}
	wait := g.cfg.MaxWait - max(queued, 0)
	if wait <= 0 {
		return nil, g.shed(Queued, int(g.waiting.Load()))
	}
	if n := g.waiting.Add(1); n > int64(g.cfg.MaxLine) {
		g.waiting.Add(-1)
		return nil, g.shed(LineFull, int(n-1))
	}
	defer g.waiting.Add(-1)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return g.taken(), nil
	case <-t.C:
		return nil, g.shed(Waited, int(g.waiting.Load()-1))
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Bypass lets a request in without waiting, whatever the count (staff
// must be able to act during a storm of contestants): it takes a free
// slot if there is one (then contestants wait a little more for it), else
// it goes in beside the slots. Call the release once.
func (g *Gate) Bypass() (release func()) {
	select {
	case g.slots <- struct{}{}:
		return g.taken()
	default:
		return func() {}
	}
}

// taken is the release of a slot just taken: it frees the slot and counts
// how long it was held (the rate slots come free, for RetryAfter).
func (g *Gate) taken() (release func()) {
	start := g.now()
	return func() {
		held := g.now().Sub(start)
		g.mu.Lock()
		g.retry.done(held)
		g.mu.Unlock()
		<-g.slots
	}
}

// shed refuses a request with the wait it is told (retryEstimate.tell),
// waiting others being in line.
func (g *Gate) shed(why Reason, waiting int) *ShedError {
	g.mu.Lock()
	wait := g.retry.tell(g.now(), waiting, g.rand())
	g.mu.Unlock()
	return &ShedError{Reason: why, RetryAfter: wait}
}

// Advise is the wait told to a request the node could not finish now (a
// backing service failing or out of time, which under load is the same
// overload the gate sheds): what a request shed now would be told, and
// counted like one, since it is coming back too.
func (g *Gate) Advise() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.retry.tell(g.now(), g.Waiting(), g.rand())
}

// RetryAdvice is the longest wait a request shed now would be told (the
// top of its window, retryEstimate.window), for the metrics.
func (g *Gate) RetryAdvice() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, hi := g.retry.window(g.now(), g.Waiting())
	return time.Duration(hi) * time.Second
}

// InFlight is how many slots are taken; Waiting how many requests wait.
func (g *Gate) InFlight() int { return len(g.slots) }

// Waiting is how many requests wait in line.
func (g *Gate) Waiting() int { return int(g.waiting.Load()) }

package admission

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Defaults of Config.
const (
	DefaultSlots      = 64
	DefaultMaxWait    = time.Second
	DefaultRetryAfter = 2 * time.Second
)

// ErrConfig reports a bad Config.
var ErrConfig = errors.New("admission: bad config")

// ShedError refuses a request: the line was full, or no slot came free
// within MaxWait. The client should come back after RetryAfter.
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
	// RetryAfter is what a shed request is told. Default
	// DefaultRetryAfter.
	RetryAfter time.Duration
}

// Gate admits requests (see the package doc). Safe for concurrent use.
type Gate struct {
	cfg     Config
	slots   chan struct{}
	waiting atomic.Int64
}

// New checks cfg and returns a Gate.
func New(cfg Config) (*Gate, error) {
	if cfg.Slots < 0 || cfg.MaxLine < 0 || cfg.MaxWait < 0 || cfg.RetryAfter < 0 {
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
	return &Gate{cfg: cfg, slots: make(chan struct{}, cfg.Slots)}, nil
}

// Config returns the gate's settings, defaults filled in.
func (g *Gate) Config() Config { return g.cfg }

// Enter takes a slot, waiting in line for at most MaxWait. It returns the
// slot's release (call it exactly once, when the request is done), or a
// *ShedError, or ctx's error when ctx ended first (the client left).
func (g *Gate) Enter(ctx context.Context) (release func(), err error) {
	select {
	case g.slots <- struct{}{}:
		return g.release, nil
	default:
	}
	if g.waiting.Add(1) > int64(g.cfg.MaxLine) {
		g.waiting.Add(-1)
		return nil, &ShedError{Reason: LineFull, RetryAfter: g.cfg.RetryAfter}
	}
	defer g.waiting.Add(-1)
	t := time.NewTimer(g.cfg.MaxWait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return g.release, nil
	case <-t.C:
		return nil, &ShedError{Reason: Waited, RetryAfter: g.cfg.RetryAfter}
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
		return g.release
	default:
		return func() {}
	}
}

func (g *Gate) release() { <-g.slots }

// InFlight is how many slots are taken; Waiting how many requests wait.
func (g *Gate) InFlight() int { return len(g.slots) }

// Waiting is how many requests wait in line.
func (g *Gate) Waiting() int { return int(g.waiting.Load()) }

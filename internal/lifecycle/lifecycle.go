package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
)

// Signals returns a context cancelled by SIGINT or SIGTERM; stop releases
// the signals (a second one then has its default effect).
func Signals() (ctx context.Context, stop context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// Step is one component of a process, or one point of its drain.
type Step struct {
	// Name names the step in logs.
	Name string
	// Run runs the component until its context ends (then it stops and
	// returns) or it fails. Optional: a step may be only an OnStop or a
	// Delay. A Run that returns before its turn, with an error or not,
	// stops the process (a component that has nothing to do blocks until
	// its context ends). After its turn, an error other than its
	// context's own is returned by Run too.
	Run func(ctx context.Context) error
	// OnStop, when set, is called at the step's turn in the drain, before
	// Run's context is cancelled (e.g. turn /readyz to 503).
	OnStop func()
	// Delay is waited once the step has stopped, before the next step is
	// stopped: the drain delay. Skipped when the drain was not asked for by
	// ctx but follows a step's return (nothing is left worth draining for).
	Delay time.Duration
}

// Run runs every step's Run side by side until ctx ends or one returns,
// then stops the steps one at a time in the order given (see Step) and
// returns once all have returned: nil after a stop by ctx, else the first
// error. Steps' contexts are not ctx's children: a step stops at its turn,
// not when ctx ends. log may be nil.
func Run(ctx context.Context, log *slog.Logger, steps ...Step) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	base := context.WithoutCancel(ctx)
	ended := make(chan string, len(steps)) // steps that returned before their turn
	type running struct {
		cancel context.CancelFunc
		done   chan struct{}
	}
	live := make([]running, len(steps))
	var g errgroup.Group
	for i, s := range steps {
		if s.Run == nil {
			continue
		}
		sctx, cancel := context.WithCancel(base)
		done := make(chan struct{})
		live[i] = running{cancel: cancel, done: done}
		g.Go(func() error {
			defer close(done)
			err := s.Run(sctx)
			if sctx.Err() == nil { // before its turn
				how := " returned"
				if err != nil {
					how = " failed"
				}
				ended <- s.Name + how
				return err
			}
			if errors.Is(err, context.Canceled) {
				return nil // stopped as asked
			}
			return err
		})
	}

	cause := "signal"
	select {
	case <-ctx.Done():
	case cause = <-ended:
	}
	log.Info("stopping", "cause", cause)
	for i, s := range steps {
		if s.OnStop != nil {
			s.OnStop()
		}
		if r := live[i]; r.cancel != nil {
			r.cancel()
			<-r.done
			log.Debug("stopped", "step", s.Name)
		}
		if s.Delay > 0 && cause == "signal" {
			log.Info("draining", "after", s.Name, "delay", s.Delay)
			time.Sleep(s.Delay)
		}
	}
	return g.Wait()
}

// Serve returns a Step's Run for srv on ln: it serves until its context
// ends, then calls srv.Shutdown, which closes the listener and idle
// connections and lets requests in flight finish within timeout. Shutdown
// does not wait for hijacked connections (WebSockets): their owner closes
// them (a later step). If serving fails first, the server is closed and
// the error returned.
func Serve(srv *http.Server, ln net.Listener, timeout time.Duration) func(context.Context) error {
	return func(ctx context.Context) error {
		addr := ln.Addr().String()
		errc := make(chan error, 1)
		go func() { errc <- srv.Serve(ln) }()
		select {
		case err := <-errc:
			_ = srv.Close()
			return fmt.Errorf("serve %s: %w", addr, err)
		case <-ctx.Done():
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		shutErr := srv.Shutdown(sctx)
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve %s: %w", addr, err)
		}
		if shutErr != nil {
			_ = srv.Close()
			return fmt.Errorf("shutdown %s: %w", addr, shutErr)
		}
		return nil
	}
}

// Backoff is an exponential backoff: Min after the first failure, doubling
// up to Max.
type Backoff struct {
	Min, Max time.Duration
}

// DefaultBackoff is 100 ms doubling up to 10 s.
var DefaultBackoff = Backoff{Min: 100 * time.Millisecond, Max: 10 * time.Second}

// Delay is the wait after failure number n (0 for the first): Min·2ⁿ,
// at most Max. Min or Max ≤ 0 takes DefaultBackoff's; a Max below Min is
// Min.
func (b Backoff) Delay(n int) time.Duration {
	if b.Min <= 0 {
		b.Min = DefaultBackoff.Min
	}
	if b.Max <= 0 {
		b.Max = DefaultBackoff.Max
	}
	b.Max = max(b.Max, b.Min)
	d := b.Min
	for i := 0; i < n && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}

// Retry calls fn until it returns nil or ctx ends, waiting between tries
// b.Delay(n) less up to half of it at random (so that processes failing
// together do not retry together) and logging each failure as a warning
// naming what (log may be nil: no logging). It returns nil once fn
// succeeds, ctx.Err() once ctx ends.
func Retry(ctx context.Context, b Backoff, log *slog.Logger, what string, fn func(context.Context) error) error {
	for n := 0; ; n++ {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		d := b.Delay(n)
		d -= rand.N(d/2 + 1)
		if log != nil {
			log.Warn(what+" failed; retrying", "err", err, "retry_in", d)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

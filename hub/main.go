// Command hub is Verdict's scheduler and live channel: judges dial it at
// /judge, browsers at /ws. See docs/hub.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/cli"
	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/registry"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

func main() {
	o, err := cli.Parse(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "hub:", err)
		os.Exit(1)
	}
}

func run(o cli.Options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	ob, err := obs.New(obs.Config{Component: "hub", Log: obs.LogConfig{Level: o.LogLevel, Format: o.LogFormat}, Pprof: o.Pprof})
	if err != nil {
		return err
	}
	rdb, err := o.Redis.Client()
	if err != nil {
		return err
	}
	defer rdb.Close()
	ob.Logger.Info("redis", "target", o.Redis.String())
	policy, err := o.SchedPolicy()
	if err != nil {
		return err
	}
	h, err := hub.New(hub.Config{
		Redis: rdb, Names: o.Names(), Policy: policy,
		HeartbeatInterval: o.Heartbeat, MissedHeartbeats: o.MissedHeartbeats, LeaseTimeout: o.Lease,
		ReapInterval: o.Reap, DispatchInterval: o.Dispatch, MaxAttempts: o.MaxAttempts,
		SendQueue: o.SendQueue, Coalesce: o.Coalesce, OriginPatterns: o.Origins,
		WarmBefore: o.HubWarmBefore(), WarmInterval: o.WarmInterval,
		Logger: ob.Logger, Metrics: ob.Registry,
	})
	if err != nil {
		return err
	}
	ob.AddReadyCheck("hub", h.Ready)
	reg, err := registry.New(registry.Config{Client: rdb, Names: o.Names(), Role: rkeys.RoleHub, Addr: o.Advertise, Logger: ob.Logger})
	if err != nil {
		return err
	}

	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", o.Listen, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/judge", h.Handler())
	mux.Handle("/ws", h.Handler())
	mux.Handle("/", ob.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ob.Logger.Info("hub listening", "addr", ln.Addr().String(), "advertise", o.Advertise, "policy", policy.Name())

	hubCtx, stopHub := context.WithCancel(context.WithoutCancel(ctx))
	defer stopHub()
	regCtx, stopReg := context.WithCancel(context.WithoutCancel(ctx))
	defer stopReg()
	errc := make(chan error, 3)
	var wg sync.WaitGroup
	wg.Go(func() { errc <- h.Run(hubCtx) })
	wg.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	})
	wg.Go(func() {
		// Register once ready, so the edge never routes to a hub that
		// cannot serve yet.
		for h.Ready(regCtx) != nil {
			select {
			case <-regCtx.Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
		if err := reg.Run(regCtx); err != nil && regCtx.Err() == nil {
			errc <- err
		}
	})

	var runErr error
	select {
	case <-ctx.Done():
		ob.Logger.Info("shutting down")
	case runErr = <-errc:
		ob.Logger.Error("hub failed", "err", runErr)
	}
	// Drain: leave the registry, stop accepting, close WebSockets (judges
	// reconnect elsewhere and keep their leases), then stop.
	stopReg()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	shutdownErr := make(chan error, 1)
	go func() { shutdownErr <- srv.Shutdown(sctx) }()
	stopHub()
	if err := <-shutdownErr; err != nil && !errors.Is(err, context.DeadlineExceeded) {
		ob.Logger.Warn("http shutdown", "err", err)
	}
	wg.Wait()
	return runErr
}

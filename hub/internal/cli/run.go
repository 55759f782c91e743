package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/internal/lifecycle"
	"github.com/verdict-oj/verdict/internal/listenfd"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/redisconn"
	"github.com/verdict-oj/verdict/internal/registry"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// shutdownTimeout bounds the HTTP requests in flight (/readyz, /metrics)
// at shutdown; WebSockets are the hub's to close.
const shutdownTimeout = 5 * time.Second

// Main is the hub command: it reads args and the environment through
// getenv (Parse), runs the hub until SIGINT or SIGTERM and returns the
// exit status: 0 after a drain (or -h), 1 when the hub failed, 2 on bad
// flags. Logs and usage go to stderr.
func Main(args []string, getenv func(string) string, stderr io.Writer) int {
	o, err := Parse(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ctx, stop := lifecycle.Signals()
	defer stop()
	if err := Run(ctx, o, stderr); err != nil {
		fmt.Fprintln(stderr, "hub:", err)
		return 1
	}
	return 0
}

// Run runs the hub of o, logging to logOut, until ctx ends or a part of it
// fails, then drains (docs/hub.md): it leaves the live registry first,
// stops accepting, then closes judges and browsers with hub_shutdown
// (judges reconnect elsewhere and keep their leases) and returns once
// every goroutine has ended. The hub registers only once ready, and keeps
// retrying (with backoff) when Redis refuses the registration.
func Run(ctx context.Context, o Options, logOut io.Writer) error {
	// Through a buffer: the judges' results and the browsers' sockets
	// never wait for a slow log output (obs.Config.LogBuffer).
	ob, err := obs.New(obs.Config{Component: "hub", Log: obs.LogConfig{Level: o.LogLevel, Format: o.LogFormat}, Pprof: o.Pprof,
		LogOutput: logOut, LogBuffer: obs.DefaultLogBuffer})
	if err != nil {
		return err
	}
	defer ob.Close()
	rdb, err := o.Redis.Client()
	if err != nil {
		return err
	}
	defer rdb.Close()
	ob.Logger.Info("redis", "target", o.Redis.String())
	if err := redisconn.Instrument(rdb, ob.Registry); err != nil {
		return err
	}
	policy, err := o.SchedPolicy()
	if err != nil {
		return err
	}
	h, err := hub.New(hub.Config{
		Redis: rdb, Names: o.Names(), Policy: policy,
		HeartbeatInterval: o.Heartbeat, MissedHeartbeats: o.MissedHeartbeats, LeaseTimeout: o.Lease,
		ReapInterval: o.Reap, DispatchInterval: o.Dispatch, Reserve: o.HubReserve(), MaxAttempts: o.MaxAttempts,
		SendQueue: o.SendQueue, BrowserReads: o.BrowserReads, Coalesce: o.Coalesce, OriginPatterns: o.Origins,
		WarmBefore: o.HubWarmBefore(), WarmInterval: o.WarmInterval, PassLog: o.PassLog,
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
	ln, err := listenfd.Listen(ctx, o.Listen, o.ListenFD)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/judge", h.Handler())
	mux.Handle("/ws", h.Handler())
	if o.PassLog > 0 {
		mux.Handle("GET /debug/passes", h.PassLogHandler())
	}
	mux.Handle("/", ob.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ob.Logger.Info("hub listening", "addr", ln.Addr().String(), "advertise", o.Advertise, "policy", policy.Name())
	return lifecycle.Run(ctx, ob.Logger,
		lifecycle.Step{Name: "registry", Run: func(ctx context.Context) error { return reg.Keep(ctx, h.Ready) }},
		lifecycle.Step{Name: "http", Run: func(ctx context.Context) error {
			err := lifecycle.Serve(srv, ln, shutdownTimeout)(ctx)
			if errors.Is(err, context.DeadlineExceeded) { // a slow /metrics cut short: no matter
				ob.Logger.Warn("http shutdown", "err", err)
				return nil
			}
			return err
		}},
		lifecycle.Step{Name: "hub", Run: h.Run},
	)
}

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"syscall"

	"github.com/verdict-oj/verdict/edge/internal/edge"
	"github.com/verdict-oj/verdict/internal/lifecycle"
	"github.com/verdict-oj/verdict/internal/listenfd"
	"github.com/verdict-oj/verdict/internal/obs"
)

// Main is the edge command: it reads args and the environment through
// getenv (Parse), runs the edge until SIGINT or SIGTERM and returns the
// exit status: 0 after a clean stop (or -h), 1 when the edge failed, 2 on
// bad flags. Logs and usage go to stderr.
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
		fmt.Fprintln(stderr, "edge:", err)
		return 1
	}
	return 0
}

// Run runs the edge of o and its admin endpoint (/healthz, /readyz,
// /metrics), logging to logOut, until ctx ends or either fails (an edge
// whose admin endpoint cannot listen stops rather than run blind); the
// edge stops first, then the admin endpoint.
func Run(ctx context.Context, o Options, logOut io.Writer) error {
	// The admin listener first: before nginx, which must not inherit an
	// --admin-fd, and so that a taken port fails the edge at once.
	ln, err := listenfd.Listen(ctx, o.Admin, o.AdminFD)
	if err != nil {
		return fmt.Errorf("admin: %w", err)
	}
	defer ln.Close() // Serve closes it; not when the edge fails first
	ob, err := obs.New(obs.Config{Component: "edge", Log: obs.LogConfig{Level: o.LogLevel, Format: o.LogFormat}, LogOutput: logOut})
	if err != nil {
		return err
	}
	rdb, err := o.Redis.Client()
	if err != nil {
		return err
	}
	defer rdb.Close()
	ob.Logger.Info("observability listening", "addr", ln.Addr().String())
	ob.Logger.Info("redis", "target", o.Redis.String())

	if o.ManageNginx {
		o.Nginx.OpenFilesCeiling = hardOpenFiles()
	}
	e, err := edge.New(edge.Config{
		Redis:         rdb,
		Names:         o.Names(),
		Nginx:         o.Nginx,
		NginxBin:      o.NginxBin,
		ExternalNginx: !o.ManageNginx,
		ConfPath:      o.ConfPath,
		PidFile:       o.PidFile,
		PollInterval:  o.PollInterval,
		PruneAfter:    o.PruneAfter,
		HoldLast:      o.HoldLast,
		Logger:        ob.Logger,
		Metrics:       ob.Registry,
	})
	if err != nil {
		return err
	}
	ob.AddReadyCheck("edge", func(context.Context) error { return e.Ready() })
	return lifecycle.Run(ctx, ob.Logger,
		lifecycle.Step{Name: "edge", Run: e.Run},
		lifecycle.Step{Name: "admin", Run: func(ctx context.Context) error { return ob.Serve(ctx, ln) }},
	)
}

// hardOpenFiles is this process's hard open-file limit, which the nginx
// it starts inherits (0: unknown or unlimited).
func hardOpenFiles() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Max > math.MaxInt32 {
		return 0
	}
	return int(rl.Max)
}

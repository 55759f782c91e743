package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/verdict-oj/verdict/edge/internal/cli"
	"github.com/verdict-oj/verdict/edge/internal/edge"
	"github.com/verdict-oj/verdict/internal/obs"
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
		fmt.Fprintln(os.Stderr, "edge:", err)
		os.Exit(1)
	}
}

func run(o cli.Options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	ob, err := obs.New(obs.Config{Component: "edge", Log: obs.LogConfig{Level: o.LogLevel, Format: o.LogFormat}})
	if err != nil {
		return err
	}
	rdb, err := o.Redis.Client()
	if err != nil {
		return err
	}
	defer rdb.Close()
	ob.Logger.Info("redis", "target", o.Redis.String())

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

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	admErr := make(chan error, 1)
	go func() {
		err := ob.ListenAndServe(ctx, o.Admin)
		if err != nil {
			cancel() // no admin endpoint: stop rather than run blind
		}
		admErr <- err
	}()
	runErr := e.Run(ctx)
	cancel()
	return errors.Join(runErr, <-admErr)
}

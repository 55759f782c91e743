package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/catalog"
	"github.com/verdict-oj/verdict/webapp/internal/config"
	"github.com/verdict-oj/verdict/webapp/internal/demo"
	"github.com/verdict-oj/verdict/webapp/internal/judgetokens"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/partition"
	"github.com/verdict-oj/verdict/webapp/internal/server"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func main() {
	o, err := config.Parse(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ob, err := obs.New(obs.Config{Component: "webapp", Log: obs.LogConfig{Level: o.LogLevel, Format: o.LogFormat}, Pprof: o.Pprof})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, ob); err != nil {
		ob.Logger.Error("webapp failed", "command", o.Command, obs.Err(err))
		os.Exit(1)
	}
}

func run(ctx context.Context, o config.Options, ob *obs.Obs) error {
	db, err := store.Open(ctx, o.MySQL, store.OpenOptions{})
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := store.Migrate(ctx, db.DB, store.MigrateOptions{Logger: ob.Logger}); err != nil {
		return err
	}
	if o.Command == config.CmdMigrate {
		return nil
	}
	st := store.New(db)
	rdb, err := o.Redis.Client()
	if err != nil {
		return err
	}
	ob.Logger.Info("redis", "target", o.Redis.String())
	defer rdb.Close()

	if o.Command == config.CmdDemo {
		blobs, err := openBlobs(ctx, o)
		if err != nil {
			return err
		}
		cat, err := catalog.New(catalog.Config{Store: st, Redis: rdb, Names: o.Names(), Logger: ob.Logger})
		if err != nil {
			return err
		}
		res, err := demo.Load(ctx, demo.Config{Store: st, Blobs: blobs, Cache: cat, LoginsFile: o.LoginsFile,
			JudgeTokenDir: o.JudgeTokenDir, Judges: o.Judges, Logger: ob.Logger})
		if err != nil {
			return err
		}
		if _, err := judgetokens.Sync(ctx, st, rdb, o.Names()); err != nil {
			return err
		}
		ob.Logger.Info("demo data ready", "logins_file", o.LoginsFile, "problems", strings.Join(res.Problems, ","),
			"judges", len(res.JudgeNames))
		return nil
	}

	var proxies []netip.Prefix
	for _, p := range strings.Split(o.TrustedProxies, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		pfx, err := netip.ParsePrefix(p)
		if err != nil {
			return fmt.Errorf("--trusted-proxies %q: %w", p, err)
		}
		proxies = append(proxies, pfx)
	}
	blobs, err := openBlobs(ctx, o)
	if err != nil {
		return err
	}
	srv, err := server.New(server.Config{
		Blobs: blobs, MaxSourceBytes: o.MaxSourceBytes,
		Limits: server.Limits{
			LoginFreeFailures: o.LoginFreeFailures, LoginAccountFreeFailures: o.LoginAccountFreeFailures,
			LoginAddressFreeFailures: o.LoginAddressFreeFailures, LoginBackoffBase: o.LoginBackoffBase,
			LoginBackoffMax: o.LoginBackoffMax, LoginWindow: o.LoginWindow, TrustedNetworks: o.TrustedNets,
			SubmitPerMinute: o.SubmitPerMinute, SubmitBurst: o.SubmitBurst, RegisterPerHour: o.RegisterPerHour,
			HashSlots: o.HashSlots, PasswordTimeout: o.PasswordTimeout,
		},
		PasswordCost:     o.PasswordCost,
		MaxTestdataBytes: o.MaxTestdata, MaxImportRows: o.MaxImportRows,
		Judging:    judging.Config{TestdataURL: o.TestdataURL, NodeID: o.NodeID},
		Partitions: partition.Config{Interval: o.PartitionInterval, Size: o.PartitionSize, Headroom: o.PartitionHeadroom},
		Store:      st, Redis: rdb, Names: o.Names(), Obs: ob,
		Listen: o.Listen, Advertise: o.Advertise,
		DrainDelay: o.DrainDelay, ShutdownTimeout: o.ShutdownTimeout,
		SessionTTL: o.SessionTTL, MaxBodyBytes: o.MaxBodyBytes, TrustedProxies: proxies,
	})
	if err != nil {
		return err
	}
	// The hub checks judge tokens in Redis; keep them in step with MySQL.
	go judgetokens.Keep(ctx, st, rdb, o.Names(), 30*time.Second, judgetokens.DefaultProbe, ob.Logger)
	return srv.Run(ctx)
}

// openBlobs opens the test data store: the S3 bucket of --blob-s3 (its
// existence checked within 15 s), else the directory --blob-dir.
func openBlobs(ctx context.Context, o config.Options) (blob.Store, error) {
	if o.BlobS3 == "" {
		return blob.NewDir(o.BlobDir)
	}
	cfg, err := blob.ParseS3URL(o.BlobS3)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	return blob.NewS3(cctx, cfg)
}

package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/lifecycle"
	"github.com/verdict-oj/verdict/internal/listenfd"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/redisconn"
	"github.com/verdict-oj/verdict/webapp/internal/admission"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/catalog"
	"github.com/verdict-oj/verdict/webapp/internal/config"
	"github.com/verdict-oj/verdict/webapp/internal/demo"
	"github.com/verdict-oj/verdict/webapp/internal/judgetokens"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/partition"
	"github.com/verdict-oj/verdict/webapp/internal/readcache"
	"github.com/verdict-oj/verdict/webapp/internal/server"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TokenSyncInterval is how often a web node rewrites the judge token table
// in Redis from MySQL (it also restores a lost table within
// judgetokens.DefaultProbe).
const TokenSyncInterval = 30 * time.Second

// Main is the webapp command: it reads args and the environment through
// getenv (config.Parse), runs the subcommand (serve until SIGINT or
// SIGTERM) and returns the exit status: 0 on success (or -h), 1 when it
// failed, 2 on bad flags. Logs and usage go to stderr.
func Main(args []string, getenv func(string) string, stderr io.Writer) int {
	o, err := config.Parse(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	// Through a buffer: a request never waits for its access log line
	// to reach a slow log output (obs.Config.LogBuffer).
	ob, err := obs.New(obs.Config{Component: "webapp", Log: obs.LogConfig{Level: o.LogLevel, Format: o.LogFormat}, Pprof: o.Pprof,
		LogOutput: stderr, LogBuffer: obs.DefaultLogBuffer})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	defer ob.Close() // after the last record, below
	ctx, stop := lifecycle.Signals()
	defer stop()
	if err := Run(ctx, o, ob); err != nil {
		ob.Logger.Error("webapp failed", "command", o.Command, obs.Err(err))
		return 1
	}
	return 0
}

// Run runs o's subcommand. serve runs the web node until ctx ends, then
// drains it (server.Run: /readyz 503 and out of the live registry, the
// drain delay, the HTTP shutdown, the background jobs) and stops the judge
// token sync last.
func Run(ctx context.Context, o config.Options, ob *obs.Obs) error {
	db, err := store.Open(ctx, o.MySQL, store.OpenOptions{MaxOpenConns: o.MySQLConns})
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := store.Migrate(ctx, o.MySQL, store.MigrateOptions{Logger: ob.Logger}); err != nil {
		return err
	}
	if o.Command == config.CmdMigrate {
		return nil
	}
	st := store.New(db)
	var rc *readcache.Cache
	if o.ReadCacheTTL > 0 && o.Command == config.CmdServe {
		rc = readcache.New(readcache.Config{TTL: o.ReadCacheTTL})
		st.UseReadCache(rc)
	}
	rdb, err := o.Redis.Client()
	if err != nil {
		return err
	}
	ob.Logger.Info("redis", "target", o.Redis.String())
	defer rdb.Close()
	if err := redisconn.Instrument(rdb, ob.Registry); err != nil {
		return err
	}
	proxies, err := trustedProxies(o.TrustedProxies) // serve only: empty otherwise
	if err != nil {
		return err
	}
	blobs, err := openBlobs(ctx, o)
	if err != nil {
		return err
	}
	if o.Command == config.CmdDemo {
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

	// The results consumer's own pool: verdicts are written whatever the
	// requests hold (judging.Config.ResultStore).
	rdbx, err := store.Open(ctx, o.MySQL, store.OpenOptions{MaxOpenConns: o.ResultWorkers, MaxIdleConns: o.ResultWorkers})
	if err != nil {
		return err
	}
	defer rdbx.Close()

	ln, err := listenfd.Listen(ctx, o.Listen, o.ListenFD)
	if err != nil {
		return err
	}
	defer ln.Close() // Serve closes it; not when New fails
	srv, err := server.New(server.Config{
		Blobs: blobs, MaxSourceBytes: o.MaxSourceBytes,
		Limits: server.Limits{
			LoginFreeFailures: o.LoginFreeFailures, LoginAccountFreeFailures: o.LoginAccountFreeFailures,
			LoginAddressFreeFailures: o.LoginAddressFreeFailures, LoginBackoffBase: o.LoginBackoffBase,
			LoginBackoffMax: o.LoginBackoffMax, LoginWindow: o.LoginWindow, TrustedNetworks: o.TrustedNets,
			SubmitPerMinute: o.SubmitPerMinute, SubmitBurst: o.SubmitBurst, RegisterPerHour: o.RegisterPerHour,
			CustomRunPerMinute: o.CustomRunPerMinute, CustomRunBurst: o.CustomRunBurst,
			HashSlots: o.HashSlots, PasswordTimeout: o.PasswordTimeout,
		},
		PasswordCost:     o.PasswordCost,
		MaxTestdataBytes: o.MaxTestdata, MaxImportRows: o.MaxImportRows,
		Judging: judging.Config{TestdataURL: o.TestdataURL, NodeID: o.NodeID,
			ResultStore: store.New(rdbx), ResultWorkers: o.ResultWorkers, RejudgeAhead: cmp.Or(o.RejudgeAhead, -1)},
		Partitions: partition.Config{Interval: o.PartitionInterval, Size: o.PartitionSize, Headroom: o.PartitionHeadroom},
		Store:      st, Redis: rdb, Names: o.Names(), Obs: ob,
		Listen: o.Listen, Advertise: o.Advertise,
		DrainDelay: o.DrainDelay, ShutdownTimeout: o.ShutdownTimeout,
		SessionTTL: o.SessionTTL, MaxBodyBytes: o.MaxBodyBytes, TrustedProxies: proxies,
		SettingsTTL: o.SettingsTTL, ReadCache: rc,
		Admission:    admission.Config{Slots: o.AdmissionSlots, MaxWait: o.AdmissionWait},
		AdmissionOff: o.AdmissionSlots == 0,
	})
	if err != nil {
		return err
	}
	// The hub checks judge tokens in Redis; keep them in step with MySQL.
	keepTokens := func(ctx context.Context) error {
		return judgetokens.Keep(ctx, st, rdb, o.Names(), TokenSyncInterval, judgetokens.DefaultProbe, ob.Logger)
	}
	return lifecycle.Run(ctx, ob.Logger,
		lifecycle.Step{Name: "web node", Run: func(ctx context.Context) error { return srv.Serve(ctx, ln) }},
		lifecycle.Step{Name: "judge tokens", Run: keepTokens},
	)
}

// trustedProxies parses --trusted-proxies: comma-separated CIDRs.
func trustedProxies(s string) ([]netip.Prefix, error) {
	var proxies []netip.Prefix
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		pfx, err := netip.ParsePrefix(p)
		if err != nil {
			return nil, fmt.Errorf("--trusted-proxies %q: %w", p, err)
		}
		proxies = append(proxies, pfx)
	}
	return proxies, nil
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

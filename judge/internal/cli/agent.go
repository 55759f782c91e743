package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/envflag"
	"github.com/verdict-oj/verdict/internal/lifecycle"
	"github.com/verdict-oj/verdict/internal/listenfd"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/judge/internal/agent"
	"github.com/verdict-oj/verdict/judge/internal/lang"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// EnvPrefix prefixes the environment variable of every `judge agent` flag:
// --token-file is VERDICT_JUDGE_TOKEN_FILE.
const EnvPrefix = "VERDICT_JUDGE"

// ExitStopped is the exit status when the hub refused the judge for good
// (bad token, superseded...): restarting will not help. systemd units can
// say RestartPreventExitStatus=78.
const ExitStopped = 78

const agentUsageHead = `usage: judge agent --hub URL --id ID (--token-file FILE | --token TOKEN) [flags]

Dials the hub (one outbound WebSocket; the judge listens on nothing but
its --admin address), takes tasks, judges them in the sandbox and reports.
Needs root (namespaces, cgroups). SIGTERM or SIGINT drains: nothing new is
accepted, held tasks finish, their results are delivered, then it exits 0.
Exit status 78 when the hub refuses the judge for good (bad token,
superseded), 1 on other errors, 2 on bad flags.

Every flag can also be set by an environment variable (shown in brackets);
the command line wins.

flags:
`

type agentFlags struct {
	hub, id, token, tokenFile, dir, admin, languages, cgroupParent, cpus string
	parallel, queue, uidBase, adminFD                                    int
	cacheSize, buildCacheSize                                            int64
	logLevel, logFormat, testdataURL                                     string
	testlibDir                                                           string
	deliverTimeout                                                       time.Duration
}

func agentFlagSet(stderr io.Writer) (*flag.FlagSet, *agentFlags) {
	f := &agentFlags{cacheSize: agent.DefaultCacheBytes, buildCacheSize: agent.DefaultBuildCacheBytes}
	fs := flag.NewFlagSet("judge agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	s := envflag.Set{FS: fs, Prefix: EnvPrefix}
	s.String(&f.hub, "hub", "", "hub judge endpoint, ws://host:port/judge or wss://host/judge (required)")
	s.String(&f.id, "id", "", "judge id, as registered on the web side with its token (required)")
	s.String(&f.tokenFile, "token-file", "", "file holding the judge token (first line)")
	s.String(&f.token, "token", "", "the judge token itself (prefer --token-file: arguments are visible in ps)")
	s.String(&f.dir, "dir", "/var/lib/verdict-judge", "state directory: test data cache, undelivered results, scratch")
	s.String(&f.admin, "admin", "127.0.0.1:8079", "address for /healthz, /readyz (200 once connected to the hub) and /metrics; empty: none")
	s.Int(&f.adminFD, "admin-fd", 0, "serve --admin on this inherited file descriptor, a socket already bound to --admin and listening, instead of binding it (verdict-stack hands its judges their admin ports so); 0: bind --admin")
	s.String(&f.languages, "languages", "", "JSON file of languages merged over the built-in ones (see docs/judge.md)")
	s.Int(&f.parallel, "parallel", 0, "tasks judged at once, each on its own CPU (default: cores-1, at least 1)")
	s.Int(&f.queue, "queue", agent.DefaultQueueSize, "accepted tasks that may wait for a free slot")
	s.Var(sizeFlag{&f.cacheSize}, "cache-size", "bound on unpacked test data kept, e.g. 2G (least recently used goes first)")
	s.String(&f.cpus, "cpus", "", "CPUs the runs are pinned to, one per slot, e.g. 2-5 or 1,3 (default: this process's CPUs, the highest ones first); give two judges on one machine different CPUs")
	s.Var(sizeFlag{&f.buildCacheSize}, "build-cache-size", "bound on each language's kept compiler build cache (Go's compiled standard library), e.g. 512M; 0: none, every Go compile starts cold")
	s.String(&f.cgroupParent, "cgroup-parent", "", "parent cgroup of the runs (default verdict-sandbox; systemd v2: the service's cgroup)")
	s.Int(&f.uidBase, "uid-base", uidBaseDefault, "first uid and gid of the sandbox's range: slot i runs as uid-base+i; no other process may use these ids (the judge refuses to start otherwise)")
	s.String(&f.testdataURL, "testdata-url", "", "base URL test data is downloaded from, the hash appended (default: http(s)://<hub host>/api/judge/testdata/)")
	s.String(&f.testlibDir, "testlib-dir", agent.DefaultTestlibDir, "directory holding testlib.h for checkers and interactors that include it without carrying their own (see docs/problems.md); empty: none")
	s.Duration(&f.deliverTimeout, "deliver-timeout", agent.DefaultDeliverTimeout, "on drain, how long to keep trying to deliver results once all tasks are done")
	s.Log(&f.logLevel, &f.logFormat)
	return fs, f
}

// AgentUsage returns the full help of `judge agent`.
func AgentUsage() string {
	var b strings.Builder
	b.WriteString(agentUsageHead)
	fs, _ := agentFlagSet(&b)
	fs.PrintDefaults()
	return b.String()
}

func agentCmd(args []string, stdout, stderr io.Writer) int {
	fs, f := agentFlagSet(stderr)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, AgentUsage())
			return 0
		}
		fmt.Fprint(stderr, "usage: judge agent --help for the flags\n")
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "judge agent: unexpected arguments %q\nusage: judge agent --help for the flags\n", fs.Args())
		return 2
	}
	if err := envflag.Apply(fs, EnvPrefix, os.Getenv, envflag.LogAliases()); err != nil {
		fmt.Fprintf(stderr, "judge agent: %v\n", err)
		return 2
	}
	token, err := agentToken(f)
	if err == nil && (f.hub == "" || f.id == "") {
		err = errors.New("--hub and --id are required")
	}
	if err == nil {
		err = envflag.CheckLog(f.logLevel, f.logFormat)
	}
	if err == nil && (f.adminFD != 0 && (f.adminFD < 3 || f.admin == "")) {
		err = fmt.Errorf("--admin-fd %d: want 3 or above, with --admin (0: none)", f.adminFD)
	}
	if err != nil {
		fmt.Fprintf(stderr, "judge agent: %v\nusage: judge agent --help for the flags\n", err)
		return 2
	}
	o, err := obs.New(obs.Config{Component: "judge", Log: obs.LogConfig{Level: f.logLevel, Format: f.logFormat}, LogOutput: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "judge agent: %v\n", err)
		return 2
	}
	log := o.Logger.With(obs.JudgeID(f.id))
	var admin net.Listener
	if f.admin != "" {
		// Bind before judging: a judge whose /readyz nobody can reach would
		// look dead to its supervisor forever; better to fail now, loudly.
		// And before any child process (compilers, the sandbox), which
		// must not inherit an --admin-fd.
		admin, err = listenfd.Listen(context.Background(), f.admin, f.adminFD)
		if err != nil {
			log.Error("admin listener", "addr", f.admin, "err", err)
			return 1
		}
		defer admin.Close() // Serve closes it; not on an early return
	}

	langs, err := lang.Load(f.languages)
	if err != nil {
		log.Error("languages", "err", err)
		return 2
	}
	ctx, stop := lifecycle.Signals()
	defer stop()
	avail := lang.Detect(ctx, langs, log)
	for _, l := range avail {
		log.Info("language", "id", l.ID, "version", l.VersionText)
	}
	parallel := f.parallel
	cfg := agent.Config{
		HubURL: f.hub, JudgeID: f.id, Token: token, Dir: f.dir, Languages: avail,
		MaxParallel: parallel, QueueSize: f.queue, CacheBytes: f.cacheSize,
		BuildCacheBytes: buildCacheBytes(f.buildCacheSize),
		DeliverTimeout:  f.deliverTimeout, AgentVersion: o.Build().Version, TestlibDir: f.testlibDir,
		Logger: o.Logger, Registry: o.Registry, // the agent adds judge_id itself
	}
	if f.cpus != "" {
		cpus, err := parseCPUList(f.cpus)
		if err != nil {
			log.Error("bad --cpus", "err", err)
			return 2
		}
		cfg.CPUs = cpus
	}
	if f.testdataURL != "" {
		base := f.testdataURL
		if !strings.HasSuffix(base, "/") {
			base += "/"
		}
		if _, err := url.Parse(base); err != nil {
			log.Error("bad --testdata-url", "err", err)
			return 2
		}
		cfg.TestDataURL = func(hash string) string { return base + hash }
	}
	if parallel <= 0 {
		parallel = max(1, runtime.NumCPU()-1)
		if cfg.CPUs != nil {
			parallel = len(cfg.CPUs)
		}
		cfg.MaxParallel = parallel
	}
	if cfg.CPUs != nil && len(cfg.CPUs) < parallel {
		log.Error("bad --cpus", "err", fmt.Sprintf("%d CPUs for %d slots: each slot needs its own", len(cfg.CPUs), parallel))
		return 2
	}
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		log.Error("state directory", "err", err)
		return 1
	}
	// One sandbox slot per task slot, and one more each for the
	// interactor of an interactive problem (its own uid; started on first
	// use).
	sb, err := sandbox.New(sandbox.Config{Slots: 2 * parallel, Prewarm: parallel, CgroupParent: f.cgroupParent, Logger: log,
		UIDBase: f.uidBase, GIDBase: f.uidBase})
	if err != nil {
		log.Error("sandbox", "err", err)
		return 1
	}
	defer sb.Close()
	log.Info("sandbox ready", "cgroup", sb.CgroupVersion(), "slots", parallel)
	cfg.Runner = sb
	a, err := agent.New(cfg)
	if err != nil {
		log.Error("agent", "err", err)
		return 2
	}
	o.AddReadyCheck("hub", a.Ready)
	// The agent drains first (held tasks finish, results are delivered),
	// then the admin listener stops.
	steps := []lifecycle.Step{{Name: "agent", Run: a.Run}}
	if admin != nil {
		steps = append(steps, lifecycle.Step{Name: "admin", Run: func(ctx context.Context) error {
			if err := o.Serve(ctx, admin); err != nil {
				log.Error("admin listener", "addr", f.admin, "err", err)
			}
			<-ctx.Done() // judging goes on without it
			return nil
		}})
	}
	err = lifecycle.Run(ctx, log, steps...)
	var se *agent.StopError
	switch {
	case errors.As(err, &se):
		fmt.Fprintf(stderr, "judge agent: %v\n", err)
		return ExitStopped
	case err != nil:
		log.Error("agent stopped", "err", err)
		return 1
	}
	return 0
}

func agentToken(f *agentFlags) (string, error) {
	if f.token != "" {
		return strings.TrimSpace(f.token), nil
	}
	if f.tokenFile == "" {
		return "", errors.New("--token-file (or --token) is required")
	}
	b, err := os.ReadFile(f.tokenFile)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if t := strings.TrimSpace(line); t != "" {
		return t, nil
	}
	return "", fmt.Errorf("token file %s is empty", filepath.Clean(f.tokenFile))
}

// buildCacheBytes maps --build-cache-size to agent.Config: 0 turns it off.
func buildCacheBytes(n int64) int64 {
	if n == 0 {
		return -1
	}
	return n
}

// parseCPUList reads a CPU list like 0-3,6 (the kernel's cpuset syntax),
// sorted and without repeats.
func parseCPUList(s string) ([]int, error) {
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b >= 4096 {
			return nil, fmt.Errorf("%q: want CPU numbers or ranges like 0-3,6", part)
		}
		for c := a; c <= b; c++ {
			seen[c] = true
		}
	}
	out := make([]int, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	slices.Sort(out)
	return out, nil
}

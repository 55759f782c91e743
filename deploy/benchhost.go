package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/bench"
	"github.com/verdict-oj/verdict/deploy/internal/harness"
	"github.com/verdict-oj/verdict/deploy/internal/stack"
)

func numCPU() int { return runtime.NumCPU() }

// hostLoad is the load average line, to say how busy the shared machine
// was while measuring.
func hostLoad() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "load unknown"
	}
	return "load " + f[0] + " " + f[1] + " " + f[2]
}

// stackFlags configures the benchmarks that run a whole stack (items 2–4).
type stackFlags struct {
	bin, log    string
	users       int
	e2ePhase    time.Duration
	e2eCapacity time.Duration
	pushLevels  string
	pushDirect  bool
	workerConns int
	webClosed   time.Duration
	webOpen     time.Duration
	connectRate float64
	judges      int
	parallel    int
}

func (f *stackFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.bin, "bin", "bin", "component binaries of the stack (built by make build); empty: build them from --root")
	fs.StringVar(&f.log, "log", "bin/bench-stack.log", "file receiving the stack's own output")
	fs.IntVar(&f.users, "users", 24, "bench students (CSV import), each sending from its own loopback address")
	fs.DurationVar(&f.e2eCapacity, "e2e-capacity", 20*time.Second, "e2e: the closed-loop capacity phase")
	fs.DurationVar(&f.e2ePhase, "e2e-phase", 20*time.Second, "e2e: each open-loop phase")
	fs.StringVar(&f.pushLevels, "push-levels", "1000,5000,10000", "push: WebSockets open at each measurement")
	fs.BoolVar(&f.pushDirect, "push-direct", false, "push: connect to the hub's port instead of through nginx")
	fs.Float64Var(&f.connectRate, "push-connect-rate", 1000, "push: new WebSockets per second")
	fs.IntVar(&f.workerConns, "worker-connections", 16384, "nginx worker_connections of the bench stack (push goes through nginx)")
	fs.DurationVar(&f.webClosed, "web-closed", 4*time.Second, "web: closed-loop run per target")
	fs.DurationVar(&f.webOpen, "web-open", 5*time.Second, "web: open-loop run per target")
	fs.IntVar(&f.judges, "judges", 2, "judge agents of the bench stack")
	fs.IntVar(&f.parallel, "judge-parallel", 0, "slots per judge (0: the judge's default, cores-1), each pinned to its own CPU")
}

// runStackBench starts one stack on free loopback ports (its output goes
// to the --log file) and runs the selected items 2–4 against it.
func runStackBench(ctx context.Context, root string, sf stackFlags, want func(string) bool) error {
	if os.Geteuid() != 0 {
		return errors.New("e2e, push and web need root (the judges' sandbox: namespaces, cgroups); --only sched,queue runs without")
	}
	nofile, err := bench.RaiseNoFile()
	if err != nil {
		return err
	}
	var levels []int
	for _, s := range strings.Split(sf.pushLevels, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("--push-levels: bad level %q", s)
		}
		levels = append(levels, n)
	}
	work, err := os.MkdirTemp("", "verdict-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	static := filepath.Join(work, "static")
	if err := copyDir(filepath.Join(root, "frontend", "dist"), static); err != nil {
		return err
	}
	logf, err := os.Create(sf.log)
	if err != nil {
		return err
	}
	defer logf.Close()
	bin := sf.bin
	if bin != "" {
		if !filepath.IsAbs(bin) {
			bin = filepath.Join(root, bin)
		}
		for _, c := range []string{"webapp", "hub", "edge", "judge"} {
			if _, err := os.Stat(filepath.Join(bin, c)); err != nil {
				return fmt.Errorf("%s is not built (make build), or pass --bin '' to build into a temporary directory", filepath.Join(bin, c))
			}
		}
	}
	slots := sf.parallel
	var env []string
	if slots > 0 {
		env = append(env, "VERDICT_JUDGE_PARALLEL="+strconv.Itoa(slots))
	} else {
		slots = max(1, numCPU()-1)
	}
	fmt.Printf("== stack: starting one on free loopback ports (2 web nodes, hub, nginx via the edge, %d judges × %d slots; its output: %s; RLIMIT_NOFILE %d)\n",
		sf.judges, slots, sf.log, nofile)
	t0 := time.Now()
	e, stop, err := harness.Start(ctx, harness.Options{
		Root: root, Dir: filepath.Join(work, "stack"), Out: logf, Bin: bin, StaticDir: static,
		Judges: sf.judges, Env: env,
		Configure: func(c *stack.Config) { c.NginxWorkerConnections = sf.workerConns },
	})
	if err != nil {
		return err
	}
	defer stop()
	fmt.Printf("   ready in %.1f s at %s; %s\n", time.Since(t0).Seconds(), e.Base, hostLoad())
	t0 = time.Now()
	f, err := bench.Setup(ctx, e, sf.users)
	if err != nil {
		return err
	}
	fmt.Printf("   bench data via the admin API in %.1f s: problem %s (C++17 only, %d cases), contest %s, %d students logged in from 127.0.0.10…\n\n",
		time.Since(t0).Seconds(), bench.ProblemSlug, bench.CaseCount, bench.ContestSlug, len(f.Users))

	var errs []error
	if want("e2e") {
		fmt.Printf("== 2. judging end to end through nginx: A+B in C++ (%d cases), POST → final verdict on the owner's WebSocket (%s)\n", bench.CaseCount, hostLoad())
		dir := filepath.Join(work, "limit")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		r, err := bench.E2E(ctx, f, dir, bench.E2EConfig{CapacityFor: sf.e2eCapacity, PhaseFor: sf.e2ePhase, InFlight: 3 * sf.judges * slots}, numCPU())
		if err != nil {
			errs = append(errs, fmt.Errorf("e2e: %w", err))
		}
		bench.WriteE2E(os.Stdout, r)
		fmt.Println()
	}
	if want("push") {
		fmt.Printf("== 3. live push: browser WebSockets on one contest scoreboard (%s)\n", hostLoad())
		r, err := bench.Push(ctx, f, bench.PushConfig{Levels: levels, Direct: sf.pushDirect, ConnectRate: sf.connectRate}, e.Stack.Config().HubPort)
		if err != nil {
			errs = append(errs, fmt.Errorf("push: %w", err))
		}
		bench.WritePush(os.Stdout, r)
		fmt.Println()
		time.Sleep(2 * time.Second) // the hub and nginx let go of the sockets
	}
	if want("web") {
		fmt.Printf("== 4. web tier through nginx: upstream keepalive (the edge's default), none (a second nginx, same conf), a static file of the same bytes (%s)\n", hostLoad())
		r, err := bench.Web(ctx, f, static, work, bench.WebConfig{Closed: sf.webClosed, Open: sf.webOpen})
		if err != nil {
			errs = append(errs, fmt.Errorf("web: %w", err))
		}
		bench.WriteWeb(os.Stdout, r)
		fmt.Println()
	}
	return errors.Join(errs...)
}

// copyDir copies the regular files of src (recursively) into dst; a
// missing src leaves dst empty.
func copyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == src {
				return filepath.SkipDir
			}
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
}

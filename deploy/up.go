package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/verdict-oj/verdict/deploy/internal/stack"
)

const usage = `verdict-stack runs Verdict on one machine, on loopback.

Usage:
  verdict-stack up [flags]              start the whole stack; Ctrl-C stops it
  verdict-stack with-services -- CMD    run CMD with a throwaway MariaDB and Redis
                                        (sets VERDICT_TEST_MYSQL_DSN, VERDICT_TEST_REDIS_ADDR)
  verdict-stack chaos [--only a,b]      fault drills against a fresh stack (make chaos; root)
  verdict-stack bench [--only a,b]      benchmarks on loopback (make bench)
  verdict-stack rehearse [flags]        a whole contest through a fresh stack (make rehearsal)
  verdict-stack simjudge --hub URL --id ID --token-file F [--count N]
                                        simulated judges against a real hub (docs/benchmarks.md)
  verdict-stack export-trace [--from F | --dsn DSN [--since T] [--until T] [--contest ID]
                             [--judge NAME=SLOTSxSPEED] [--compile D]] [--out F] [--extra-judges N]
                                        a recorded run (a rehearsal's trace, or an installation's
                                        submissions from MySQL) as an anonymised scenario file
                                        of the scheduling lab (docs/scheduling.md)

Flags of up (environment variable in brackets):
`

// printUsage writes the usage to w and the flags of up to standard error.
func printUsage(w io.Writer) {
	fmt.Fprint(w, usage)
	upFlags(&stack.Config{}).PrintDefaults()
}

// runUp is `verdict-stack up`: the whole stack until ctx ends.
func runUp(ctx context.Context, args []string) int {
	var cfg stack.Config
	fs := upFlags(&cfg)
	_ = fs.Parse(args)
	cfg.Out = os.Stdout
	cfg.Color = os.Getenv("NO_COLOR") == "" && isTerminal()
	s, err := stack.New(cfg)
	if err != nil {
		fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	banner := make(chan struct{})
	go func() {
		defer close(banner)
		select {
		case <-s.Ready():
			fmt.Println(s.Banner())
		case <-runCtx.Done():
		}
	}()
	err = s.Run(ctx)
	cancel()
	<-banner
	if err != nil {
		fatal(err)
	}
	return 0
}

// runWithServices is `verdict-stack with-services -- CMD`.
func runWithServices(ctx context.Context, args []string) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	code, err := stack.WithServices(ctx, args, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	return code
}

func upFlags(cfg *stack.Config) *flag.FlagSet {
	fs := flag.NewFlagSet("up", flag.ExitOnError)
	fs.StringVar(&cfg.Dir, "dir", env("VERDICT_STACK_DIR", "var"), "state directory: databases, logs, secrets [VERDICT_STACK_DIR]")
	fs.StringVar(&cfg.BinDir, "bin", env("VERDICT_STACK_BIN", "bin"), "directory of the built binaries [VERDICT_STACK_BIN]")
	fs.StringVar(&cfg.StaticDir, "static", env("VERDICT_STACK_STATIC", "frontend/dist"), "built frontend served by nginx [VERDICT_STACK_STATIC]")
	fs.IntVar(&cfg.HTTPPort, "http-port", envInt("VERDICT_HTTP_PORT", 8080), "nginx port: the URL users open [VERDICT_HTTP_PORT]")
	fs.IntVar(&cfg.MySQLPort, "mysql-port", envInt("VERDICT_MYSQL_PORT", 13306), "MariaDB port [VERDICT_MYSQL_PORT]")
	fs.IntVar(&cfg.RedisPort, "redis-port", envInt("VERDICT_REDIS_PORT", 16379), "Redis port [VERDICT_REDIS_PORT]")
	fs.IntVar(&cfg.HubPort, "hub-port", envInt("VERDICT_HUB_PORT", 8090), "hub port [VERDICT_HUB_PORT]")
	fs.IntVar(&cfg.AdminPort, "admin-port", envInt("VERDICT_ADMIN_PORT", 8070), "first admin port (/healthz, /metrics) of the edge, then the judges [VERDICT_ADMIN_PORT]")
	fs.IntVar(&cfg.Judges, "judges", envInt("VERDICT_JUDGES", 2), "number of judge agents [VERDICT_JUDGES]")
	fs.Func("web-ports", "comma-separated web node ports, one node each (default 8081,8082) [VERDICT_WEB_PORTS]", func(v string) error {
		ports, err := parsePorts(v)
		cfg.WebPorts = ports
		return err
	})
	if v := os.Getenv("VERDICT_WEB_PORTS"); v != "" {
		ports, err := parsePorts(v)
		if err != nil {
			fatal(fmt.Errorf("VERDICT_WEB_PORTS: %w", err))
		}
		cfg.WebPorts = ports
	}
	fs.BoolVar(&cfg.Demo, "demo", true, "load the demo data (logins, problems, a contest)")
	fs.BoolVar(&cfg.Restart, "restart", true, "restart a component that exits unexpectedly")
	return fs
}

func parsePorts(v string) ([]int, error) {
	var ports []int
	for _, f := range strings.Split(v, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || p <= 0 || p > 65535 {
			return nil, fmt.Errorf("bad port %q", f)
		}
		ports = append(ports, p)
	}
	return ports, nil
}

func env(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func envInt(k string, def int) int {
	if v := os.Getenv(k); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
		fatal(fmt.Errorf("%s=%q is not a number", k, v))
	}
	return def
}

func isTerminal() bool {
	fi, err := os.Stdout.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "verdict-stack:", err)
	os.Exit(1)
}

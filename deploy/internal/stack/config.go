package stack

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"

	"github.com/verdict-oj/verdict/internal/localsvc"
)

// RedisNice is the niceness adjustment the stack starts Redis with
// (localsvc.RedisConfig.Nice; as root only): on one machine Redis shares
// the cores with the web nodes, the hub, MariaDB, nginx and, in a
// rehearsal, the load generator, and nearly every request waits on its
// answers, one round trip after another, while Redis itself needs little
// CPU. The 2026-12-02 rehearsal (2 cores, 3,000 contestants) measured it
// runnable but waiting for a core 85 % of the contest while it used 13 %
// of a core; the web nodes waited ~80,000–100,000 s in all for Redis
// connections. Ahead of the others (2026-12-03 run, docs/rehearsal.md) it
// waited 120 s, the web nodes' Redis waits fell to ~2,000 s and the stack
// acknowledged a third more submissions. MariaDB is left alone: with it
// ahead too (2026-12-02) its many threads took the cores from the web
// nodes and the run did worse.
const RedisNice = -10

// EdgeNice is the niceness adjustment the stack starts the edge with
// (as root only), and so nginx, which the edge starts: its master and
// workers inherit it. Every browser's request and every judge's
// connection passes through nginx's few single-threaded workers, twice
// (in, and the answer out), and a worker runnable but queued behind the
// web nodes, the hub, MariaDB and the load generator holds every one of
// its connections meanwhile; nginx itself needs little CPU. In the 40×
// rehearsal of 2026-12-07 (2 cores, 3,000 contestants, one run each, the
// machine overloaded in both) nginx waited 677 s for a core at the
// others' niceness and 265 s ahead of them, and the stack acknowledged
// 16,227 submissions instead of 11,734 (docs/rehearsal.md); at 10×,
// below saturation, one run showed neither a gain nor a cost.
const EdgeNice = -10

// ServiceGOGC is the garbage collector's target (GOGC) the stack gives the
// hub when neither its Config.Env nor its own environment sets one. Go's
// default, 100, collects each time the heap doubles. In the contest
// rehearsal (2026-12-03/04, 3,000 contestants on 2 cores, one run each)
// the collector took 13 % of the hub's CPU in the rush at 100 and 5 % at
// 400; the hub used 127 s of CPU in the contest instead of 134 s, and
// peaked at 661 MiB instead of 336 MiB. The web nodes are left at the
// default: at 400 their collector's share fell from 7 % to 2 %, their CPU
// hardly moved (147 s against 148 s) and their peak memory nearly tripled
// (478–620 MiB against ~178 MiB). docs/running.md gives the same advice
// for a production hub.
const ServiceGOGC = "400"

// Config configures the local stack. Zero fields take the documented
// defaults; all listeners are on 127.0.0.1.
//
// The stack binds the ports of its Go components (the web nodes, the hub,
// the edge's and the judges' admin endpoints) itself and hands each
// process its socket (internal/listenfd), so that no other process can
// take one in between; MariaDB, Redis and nginx bind their own.
type Config struct {
	// Dir holds all state: mysql/, redis/, nginx/, judge-N/, logs, secrets.
	// Default "var".
	Dir string
	// BinDir holds the built component binaries (edge, webapp, hub, judge).
	// Default "bin".
	BinDir string
	// StaticDir is the built frontend served by nginx. Default
	// "frontend/dist".
	StaticDir string
	// HTTPPort is nginx's port: the URL users open. Default 8080.
	HTTPPort int
	// MySQLPort is MariaDB's port. Default 13306.
	MySQLPort int
	// RedisPort is Redis's port. Default 16379.
	RedisPort int
	// WebPorts are the web nodes' ports, one node each. Default 8081, 8082.
	WebPorts []int
	// HubPort is the hub's port. Default 8090.
	HubPort int
	// AdminPort is the first of the ports for processes whose only HTTP is
	// /healthz, /readyz and /metrics: the edge, then each judge. Default 8070.
	AdminPort int
	// FreePorts: every port left zero above (two web nodes when WebPorts
	// is nil) is a free one the stack chooses when it starts, instead of
	// the default, so that stacks can run side by side (the tests, the
	// drills, the benchmarks next to `make run`). Free ports come from
	// localsvc's range, below the kernel's ephemeral one; when MariaDB,
	// Redis or nginx finds the port chosen for it taken after all, the
	// stack chooses another and starts it again. Config, once the stack is
	// ready, tells the ports chosen.
	FreePorts bool
	// Judges is the number of judge agents; 0 means none (verdict-stack up
	// defaults to 2).
	Judges int
	// SpareJudges is how many more judge tokens the demo data issues
	// (judge-(Judges+1) … judge-(Judges+SpareJudges), token files under
	// Dir) for agents the caller starts itself; the fault drills run such
	// judges in a network namespace or under a CPU quota. Default 0.
	SpareJudges int
	// Env is added to the environment of every component (e.g.
	// VERDICT_WEBAPP_SUBMIT_PER_MINUTE for load tests).
	Env []string
	// NginxWorkerConnections, when > 0, is passed to the edge as
	// --worker-connections.
	NginxWorkerConnections int
	// MySQLStatementStats turns on MariaDB's statement digests
	// (localsvc.MariaDBConfig.StatementStats; Stack.StatementDigests).
	MySQLStatementStats bool
	// Demo loads the demo data (logins, problems, a contest) after start.
	Demo bool
	// Restart restarts a component that exits unexpectedly. Default true
	// through the command line; the zero Config does not restart.
	Restart bool
	// Out receives the prefixed output of every process. Default os.Stdout.
	Out io.Writer
	// Color prefixes lines with ANSI colours.
	Color bool
	// Logger logs the supervisor's own events. Default: text to Out.
	Logger *slog.Logger

	// pickPort chooses the free port of a server that binds its own
	// (MariaDB, Redis, nginx) under FreePorts. Default localsvc.FreePort;
	// the tests take its choices away to prove the stack comes up anyway.
	pickPort func() (int, error)
}

func (c *Config) setDefaults() error {
	if c.Dir == "" {
		c.Dir = "var"
	}
	if c.BinDir == "" {
		c.BinDir = "bin"
	}
	if c.StaticDir == "" {
		c.StaticDir = "frontend/dist"
	}
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	if c.FreePorts {
		if c.WebPorts == nil {
			c.WebPorts = make([]int, 2)
		}
	} else {
		def(&c.HTTPPort, 8080)
		def(&c.MySQLPort, 13306)
		def(&c.RedisPort, 16379)
		def(&c.HubPort, 8090)
		def(&c.AdminPort, 8070)
		if c.WebPorts == nil {
			c.WebPorts = []int{8081, 8082}
		}
	}
	// The stack writes the ports it chooses here: never into the caller's
	// slice.
	c.WebPorts = slices.Clone(c.WebPorts)
	if c.pickPort == nil {
		c.pickPort = localsvc.FreePort
	}
	if c.SpareJudges < 0 || c.Judges+c.SpareJudges > 16 {
		return fmt.Errorf("stack: judges %d + spare %d out of range 0..16", c.Judges, c.SpareJudges)
	}
	if c.Judges < 0 || c.Judges > 16 {
		return fmt.Errorf("stack: judges %d out of range 0..16", c.Judges)
	}
	if c.Out == nil {
		c.Out = os.Stdout
	}
	return nil
}

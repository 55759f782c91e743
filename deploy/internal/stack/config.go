package stack

import (
	"fmt"
	"io"
	"log/slog"
	"os"
)

// Config configures the local stack. Zero fields take the documented
// defaults; all listeners are on 127.0.0.1.
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
	def(&c.HTTPPort, 8080)
	def(&c.MySQLPort, 13306)
	def(&c.RedisPort, 16379)
	def(&c.HubPort, 8090)
	def(&c.AdminPort, 8070)
	if c.WebPorts == nil {
		c.WebPorts = []int{8081, 8082}
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

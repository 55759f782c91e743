package stack

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// components returns the Verdict processes in start order, with their
// command lines. These command lines are the contract between the local
// stack and each component's flags (docs/running.md lists them).
func (s *Stack) components() ([]component, error) {
	dsn, err := s.MySQLAppDSN()
	if err != nil {
		return nil, err
	}
	bin := func(name string) string { return filepath.Join(s.cfg.BinDir, name) }
	addr := func(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
	env := append([]string{"VERDICT_LOG_FORMAT=text"}, s.cfg.Env...)
	var out []component

	for i, port := range s.cfg.WebPorts {
		c := component{
			name: "web-" + strconv.Itoa(i+1),
			argv: []string{bin("webapp"),
				"--listen", addr(port),
				"--mysql", dsn,
				"--redis", s.RedisAddr(),
				"--blob-dir", filepath.Join(s.cfg.Dir, "blobs"),
			},
			env:   env,
			ready: "http://" + addr(port) + "/readyz",
		}
		if i == len(s.cfg.WebPorts)-1 && s.cfg.Demo {
			c.then = s.loadDemo
		}
		out = append(out, c)
	}
	out = append(out, component{
		name: "hub",
		argv: []string{bin("hub"),
			"--listen", addr(s.cfg.HubPort),
			"--redis", s.RedisAddr(),
			// Every process of the local stack shares this machine's cores,
			// so load1 counts the judges' own work, the databases and the
			// web nodes: it says nothing about a judge's foreign load. Off.
			"--overload", "1000",
		},
		env:   env,
		ready: "http://" + addr(s.cfg.HubPort) + "/readyz",
	})
	edge := []string{bin("edge"),
		"--redis", s.RedisAddr(),
		"--listen", addr(s.cfg.HTTPPort),
		"--runtime-dir", filepath.Join(s.cfg.Dir, "nginx"),
		"--static-dir", s.cfg.StaticDir,
		"--admin", addr(s.cfg.AdminPort),
	}
	if os.Geteuid() == 0 {
		// nginx's workers would run as nobody and could not read a
		// checkout under /root: run them as the user who owns the tree.
		edge = append(edge, "--nginx-user", "root")
	}
	if s.cfg.NginxWorkerConnections > 0 {
		edge = append(edge, "--worker-connections", strconv.Itoa(s.cfg.NginxWorkerConnections))
	}
	out = append(out, component{
		name:  "edge",
		argv:  edge,
		env:   env,
		ready: "http://" + addr(s.cfg.AdminPort) + "/readyz",
	})
	for i := 1; i <= s.cfg.Judges; i++ {
		id := "judge-" + strconv.Itoa(i)
		dir := filepath.Join(s.cfg.Dir, id)
		out = append(out, component{
			name: id,
			argv: []string{bin("judge"), "agent",
				"--hub", "ws://" + addr(s.cfg.HTTPPort) + "/judge",
				"--id", id,
				"--token-file", filepath.Join(dir, "token"),
				"--dir", dir,
				"--admin", addr(s.cfg.AdminPort + i),
			},
			env:   env,
			probe: []string{bin("judge"), "agent", "--help"},
			ready: "http://" + addr(s.cfg.AdminPort+i) + "/readyz",
		})
	}
	return out, nil
}

// loadDemo runs `webapp demo`, which idempotently creates the demo logins,
// problems, contest and judge tokens, and writes the logins to a file that
// is printed on every start.
func (s *Stack) loadDemo(ctx context.Context) error {
	dsn, err := s.MySQLAppDSN()
	if err != nil {
		return err
	}
	web := filepath.Join(s.cfg.BinDir, "webapp")
	logins := filepath.Join(s.cfg.Dir, "demo-logins.txt")
	args := []string{"demo",
		"--mysql", dsn,
		"--redis", s.RedisAddr(),
		"--blob-dir", filepath.Join(s.cfg.Dir, "blobs"),
		"--logins", logins,
		"--judge-token-dir", s.cfg.Dir, // writes <dir>/judge-N/token
		"--judges", strconv.Itoa(s.cfg.Judges + s.cfg.SpareJudges),
	}
	cmd := exec.CommandContext(ctx, web, args...)
	cmd.Env = append(os.Environ(), "VERDICT_LOG_FORMAT=text")
	cmd.Stdout = s.con.prefixed("demo", s.next())
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("stack: loading demo data: %w", err)
	}
	b, err := os.ReadFile(logins)
	if err != nil {
		return fmt.Errorf("stack: demo logins: %w", err)
	}
	s.demoLogins = string(b)
	return nil
}

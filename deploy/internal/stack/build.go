package stack

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/verdict-oj/verdict/internal/localsvc"
)

// Build builds every component of the checkout at root that has a main
// package (webapp, hub, edge, judge) into bin, as `make build` does. The
// tests, the drills and the benchmarks use it to run a stack of the code
// they belong to.
func Build(root, bin string) error {
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return fmt.Errorf("stack: build: %w", err)
	}
	for _, c := range []string{"webapp", "hub", "edge", "judge"} {
		if _, err := os.Stat(filepath.Join(root, c, "main.go")); err != nil {
			continue
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(bin, c), "./"+c)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("stack: go build ./%s: %w\n%s", c, err, out)
		}
	}
	return nil
}

// UseFreePorts sets every port of cfg that is still zero to a free
// loopback port (two web nodes when WebPorts is nil), so that a stack can
// run next to another one, e.g. `make run`.
func UseFreePorts(cfg *Config) error {
	free := func(p *int) error {
		if *p != 0 {
			return nil
		}
		v, err := localsvc.FreePort()
		*p = v
		return err
	}
	if cfg.WebPorts == nil {
		cfg.WebPorts = make([]int, 2)
	}
	for _, p := range []*int{&cfg.HTTPPort, &cfg.MySQLPort, &cfg.RedisPort, &cfg.HubPort} {
		if err := free(p); err != nil {
			return err
		}
	}
	for i := range cfg.WebPorts {
		if err := free(&cfg.WebPorts[i]); err != nil {
			return err
		}
	}
	if cfg.AdminPort == 0 {
		// The edge and each judge take AdminPort+i: find a free run.
		for range 50 {
			base, err := localsvc.FreePort()
			if err != nil {
				return err
			}
			ok := true
			for i := 1; i <= cfg.Judges+cfg.SpareJudges; i++ {
				if !portFree(base + i) {
					ok = false
					break
				}
			}
			if ok {
				cfg.AdminPort = base
				return nil
			}
		}
		return fmt.Errorf("stack: no free run of %d admin ports", cfg.Judges+cfg.SpareJudges+1)
	}
	return nil
}

func portFree(p int) bool {
	if p <= 0 || p > 65535 {
		return false
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

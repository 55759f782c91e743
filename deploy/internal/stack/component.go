package stack

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/internal/localsvc"
)

// component is one Verdict process the supervisor runs.
type component struct {
	name string
	argv []string
	env  []string
	// ready is polled (HTTP GET, 200 wanted) before dependants start; empty
	// means "started is ready".
	ready string
	// probe, when set, is run first: the component is only available when
	// it exits 0 (e.g. `judge agent --help` before the agent exists).
	probe []string
	// then runs once the component is ready, before the next one starts.
	then func(ctx context.Context) error
}

// available reports whether the component's binary exists (and passes its
// probe), with the reason when it does not.
func (c *component) available() (bool, string) {
	if _, err := os.Stat(c.argv[0]); err != nil {
		return false, fmt.Sprintf("%s is not built", c.argv[0])
	}
	if c.probe != nil {
		cmd := exec.Command(c.probe[0], c.probe[1:]...)
		if err := cmd.Run(); err != nil {
			return false, fmt.Sprintf("%v failed (%v): not implemented yet", c.probe, err)
		}
	}
	return true, ""
}

// supervised runs a component, restarting it when it exits unexpectedly.
type supervised struct {
	c       component
	out     io.Writer
	dir     string
	log     *slog.Logger
	restart bool

	mu       sync.Mutex
	proc     *localsvc.Proc
	stopping bool
	restarts int // restarts by the supervisor after an unexpected exit
	done     chan struct{}
}

func (s *supervised) start() error {
	p, err := localsvc.StartProcess(s.c.name, s.out, s.dir, s.c.env, s.c.argv...)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	s.done = make(chan struct{})
	go s.watch(p)
	return nil
}

// watch restarts the process after an unexpected exit, with exponential
// backoff (1 s doubling to 30 s, reset after a minute of uptime).
func (s *supervised) watch(p *localsvc.Proc) {
	defer close(s.done)
	backoff := time.Second
	for {
		started := time.Now()
		err := p.Err()
		s.mu.Lock()
		stopping := s.stopping
		s.mu.Unlock()
		if stopping {
			return
		}
		if !s.restart {
			s.log.Error("component exited", "component", s.c.name, "err", err)
			return
		}
		if time.Since(started) > time.Minute {
			backoff = time.Second
		}
		s.log.Warn("component exited; restarting", "component", s.c.name, "err", err, "in", backoff)
		time.Sleep(backoff)
		backoff = min(backoff*2, 30*time.Second)
		s.mu.Lock()
		if s.stopping {
			s.mu.Unlock()
			return
		}
		np, serr := localsvc.StartProcess(s.c.name, s.out, s.dir, s.c.env, s.c.argv...)
		if serr != nil {
			s.mu.Unlock()
			s.log.Error("restart failed", "component", s.c.name, "err", serr)
			return
		}
		s.proc = np
		s.restarts++
		s.mu.Unlock()
		p = np
	}
}

func (s *supervised) stop(grace time.Duration) {
	s.mu.Lock()
	s.stopping = true
	p := s.proc
	s.mu.Unlock()
	if p != nil {
		if err := p.Stop(grace); err != nil {
			s.log.Warn("stop", "component", s.c.name, "err", err)
		}
	}
	if s.done != nil {
		<-s.done
	}
}

// pid returns the current process id, or 0.
func (s *supervised) pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return 0
	}
	return s.proc.Pid()
}

// waitReady polls the component's readiness URL until it answers 200.
func (s *supervised) waitReady(ctx context.Context, timeout time.Duration) error {
	if s.c.ready == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.c.ready, nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s answered %s", s.c.ready, resp.Status)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready after %v: %v", s.c.name, timeout, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

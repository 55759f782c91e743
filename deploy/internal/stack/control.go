package stack

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/verdict-oj/verdict/internal/localsvc"
)

// ErrNoComponent is returned by the control methods for a name the stack
// does not run.
var ErrNoComponent = errors.New("stack: no such component")

// The control methods below are for fault drills and benchmarks
// (deploy/internal/chaos): they break one component on purpose. They are
// valid after Ready and before Run returns.

func (s *Stack) component(name string) (*supervised, error) {
	for _, r := range s.running {
		if r.c.name == name {
			return r, nil
		}
	}
	return nil, fmt.Errorf("%w: %q", ErrNoComponent, name)
}

// Kill sends SIGKILL to a component and keeps it down (the supervisor does
// not restart it) until Start. It returns once the process is gone.
func (s *Stack) Kill(name string) error {
	r, err := s.component(name)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.stopping = true
	p := r.proc
	r.mu.Unlock()
	if p == nil {
		return nil
	}
	_ = syscall.Kill(p.Pid(), syscall.SIGKILL)
	<-p.Done()
	<-r.done
	return nil
}

// Start starts a component stopped by Kill again, supervised as before, and
// waits until it is ready.
func (s *Stack) Start(ctx context.Context, name string) error {
	r, err := s.component(name)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.stopping = false
	r.mu.Unlock()
	if err := r.start(); err != nil {
		return fmt.Errorf("stack: restart %s: %w", name, err)
	}
	return r.waitReady(ctx, 60*time.Second)
}

// WaitReady waits until a component answers its readiness check (after a
// crash the supervisor restarts it with backoff).
func (s *Stack) WaitReady(ctx context.Context, name string, timeout time.Duration) error {
	r, err := s.component(name)
	if err != nil {
		return err
	}
	return r.waitReady(ctx, timeout)
}

// RestartRedis stops Redis gracefully (SIGTERM: it writes its AOF) and
// starts it again on the same directory and port.
func (s *Stack) RestartRedis(ctx context.Context) error {
	if s.redis == nil {
		return fmt.Errorf("%w: redis", ErrNoComponent)
	}
	if err := s.redis.Stop(); err != nil {
		return fmt.Errorf("stack: restart redis: %w", err)
	}
	r, err := localsvc.StartRedis(ctx, localsvc.RedisConfig{
		Dir: filepath.Join(s.cfg.Dir, "redis"), Port: s.cfg.RedisPort, AOF: true,
		Log: s.con.prefixed("redis", s.next()), Nice: RedisNice,
	})
	if err != nil {
		return fmt.Errorf("stack: restart redis: %w", err)
	}
	s.redis = r
	return nil
}

// Dir is the stack's state directory (absolute).
func (s *Stack) Dir() string { return s.cfg.Dir }

// Config returns the stack's configuration with defaults applied and,
// once it is ready, the ports it chose (FreePorts).
func (s *Stack) Config() Config {
	c := s.cfg
	c.WebPorts = slices.Clone(c.WebPorts)
	return c
}

// HubURL is the hub's judge endpoint through nginx.
func (s *Stack) HubURL() string { return fmt.Sprintf("ws://127.0.0.1:%d/judge", s.cfg.HTTPPort) }

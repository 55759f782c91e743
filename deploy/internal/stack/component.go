package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
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
	// listeners are the ports the stack binds for the component and hands
	// it as inherited sockets, the i-th as file descriptor 3+i, named on
	// its command line by the flag (e.g. --listen-fd 3).
	listeners []handover
	// ownPort, when set, is the port, chosen by the stack, of a server
	// the component starts that binds its own (the edge's nginx): when the
	// component says that it is taken, the stack starts it again on
	// another.
	ownPort *int
	// nice, when negative, is the niceness adjustment the component is
	// started with (localsvc.Niced; as root only): ahead of the other
	// processes of the machine, for one they all wait on (EdgeNice).
	nice int
}

// handover is a port the stack binds for a component and the flag that
// tells the component which inherited descriptor holds it.
type handover struct {
	flag string
	port int
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

	// bind notices the component saying that its ownPort is taken.
	bind *localsvc.BindWatch

	mu       sync.Mutex
	proc     *localsvc.Proc
	stopping bool
	restarts int // restarts by the supervisor after an unexpected exit
	done     chan struct{}
	// held are the listeners of c.listeners that the stack bound before
	// the first start (by index); a later start binds the ports again.
	held []*net.TCPListener
}

func (s *supervised) start() error {
	s.mu.Lock()
	p, err := s.spawn()
	s.proc = p
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.done = make(chan struct{})
	go s.watch(p)
	return nil
}

// spawn starts the component's process with its listeners: those held
// since before the first start, else bound again on their ports (a
// restart). The stack's own copies are closed once the child has them. It
// is called with s.mu held.
func (s *supervised) spawn() (*localsvc.Proc, error) {
	argv := slices.Clone(s.c.argv)
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for i, h := range s.c.listeners {
		var l *net.TCPListener
		if i < len(s.held) {
			l, s.held[i] = s.held[i], nil
		}
		if l == nil {
			var err error
			if l, err = localsvc.Listen(h.port); err != nil {
				return nil, fmt.Errorf("%s: %w", s.c.name, err)
			}
		}
		f, err := l.File()
		l.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: listener on port %d: %w", s.c.name, h.port, err)
		}
		files = append(files, f)
		argv = append(argv, h.flag, strconv.Itoa(3+i))
	}
	return localsvc.StartProcessFiles(s.c.name, s.out, s.dir, s.c.env, files, localsvc.Niced(s.c.nice, argv)...)
}

// release closes the listeners held for a start that never came.
func (s *supervised) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, l := range s.held {
		if l != nil {
			l.Close()
			s.held[i] = nil
		}
	}
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
		for {
			s.log.Warn("component exited; restarting", "component", s.c.name, "err", err, "in", backoff)
			time.Sleep(backoff)
			backoff = min(backoff*2, 30*time.Second)
			s.mu.Lock()
			if s.stopping {
				s.mu.Unlock()
				return
			}
			np, serr := s.spawn()
			if serr == nil {
				s.proc = np
				s.restarts++
				s.mu.Unlock()
				p = np
				break
			}
			s.mu.Unlock()
			if !errors.Is(serr, syscall.EADDRINUSE) {
				s.log.Error("restart failed", "component", s.c.name, "err", serr)
				return
			}
			// Its port was free for a moment and someone took it: that
			// one may let it go again.
			err = serr
		}
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
		if s.bind != nil && s.bind.Seen() {
			return fmt.Errorf("%s: port %d: %w", s.c.name, *s.c.ownPort, localsvc.ErrPortInUse)
		}
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

package nginxctl

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Errors returned by this package.
var (
	// ErrInvalidConfig is returned by Test when nginx rejects a config file.
	ErrInvalidConfig = errors.New("nginx: configuration rejected")
	// ErrExited reports that a child nginx exited while it should be running.
	ErrExited = errors.New("nginx: process exited")
	// ErrNoPid reports that an external nginx's pid file is missing or bad.
	ErrNoPid = errors.New("nginx: no usable pid file")
)

// DefaultBinary is Debian's nginx.
const DefaultBinary = "/usr/sbin/nginx"

// Test runs "nginx -t -q -c conf" and returns nil when nginx accepts the
// file, or an error wrapping ErrInvalidConfig that carries nginx's message.
func Test(ctx context.Context, bin, conf string) error {
	if bin == "" {
		bin = DefaultBinary
	}
	cmd := exec.CommandContext(ctx, bin, "-t", "-q", "-c", conf)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	if err == nil {
		return nil
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) && ctx.Err() == nil {
		return fmt.Errorf("%w: %s: %s", ErrInvalidConfig, conf, strings.TrimSpace(out.String()))
	}
	return fmt.Errorf("nginx -t %s: %w", conf, err)
}

// Child is nginx run in the foreground ("daemon off") as our child process.
type Child struct {
	cmd  *exec.Cmd
	log  *slog.Logger
	done chan struct{}
	err  error // set before done is closed
	mu   sync.Mutex
	stop bool
}

// ReadyTimeout bounds how long Start waits for a new master to be able to
// take signals.
const ReadyTimeout = 15 * time.Second

// Start starts "nginx -c conf -g 'daemon off;'" and returns once the master
// has installed its signal handlers, so that a Reload right after Start
// cannot kill it (SIGHUP's default action ends a process that has not yet
// reached ngx_init_signals). It fails if nginx exits first (a bad config, a
// port in use). Its stderr (nginx's startup messages, and the error log when
// configured as "stderr") goes to logger line by line.
func Start(bin, conf string, logger *slog.Logger) (*Child, error) {
	if bin == "" {
		bin = DefaultBinary
	}
	cmd := exec.Command(bin, "-c", conf, "-g", "daemon off;")
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	cmd.Stderr = pw
	// Our own signals (Ctrl-C in a terminal) must not reach nginx directly:
	// the edge decides how it stops. But if the edge dies without stopping
	// it (SIGKILL, a crash), nginx must go too: an orphan would keep the
	// port and serve a stale configuration, and the restarted edge's nginx
	// could not bind.
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		pw.Close()
		return nil, fmt.Errorf("start nginx: %w", err)
	}
	c := &Child{cmd: cmd, log: logger, done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			logger.Warn("nginx", "line", sc.Text())
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	go func() {
		err := cmd.Wait()
		pw.Close()
		c.mu.Lock()
		stopping := c.stop
		c.mu.Unlock()
		if !stopping {
			c.err = fmt.Errorf("%w: pid %d: %v", ErrExited, cmd.Process.Pid, err)
		}
		close(c.done)
	}()
	if err := c.waitReady(ReadyTimeout); err != nil {
		_ = c.Stop(time.Second)
		return nil, err
	}
	return c, nil
}

// waitReady polls the master's caught-signal mask until SIGHUP is in it,
// the process exits, or the timeout passes.
func (c *Child) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		ok, err := catches(c.Pid(), syscall.SIGHUP)
		if ok {
			return nil
		}
		select {
		case <-c.done:
			return c.Err()
		case <-time.After(delay):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nginx pid %d: no SIGHUP handler after %v: %w", c.Pid(), timeout, err)
		}
	}
}

// catches reports whether process pid has a handler installed for sig,
// from the SigCgt mask in /proc/pid/status.
func catches(pid int, sig syscall.Signal) (bool, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false, err
	}
	for line := range strings.Lines(string(b)) {
		mask, ok := strings.CutPrefix(line, "SigCgt:")
		if !ok {
			continue
		}
		m, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
		if err != nil {
			return false, fmt.Errorf("parse SigCgt %q: %w", mask, err)
		}
		return m&(1<<(uint(sig)-1)) != 0, nil
	}
	return false, errors.New("no SigCgt line in /proc status")
}

// Pid is the master's process id.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Done is closed when the process has exited; Err then says why.
func (c *Child) Done() <-chan struct{} { return c.done }

// Err is nil after a requested Stop, or wraps ErrExited after an unexpected
// exit. Valid once Done is closed.
func (c *Child) Err() error {
	<-c.done
	return c.err
}

// Reload asks the master to re-read its configuration (SIGHUP). nginx
// starts new workers and lets the old ones finish gracefully.
func (c *Child) Reload() error {
	select {
	case <-c.done:
		return c.Err()
	default:
	}
	if err := c.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		return fmt.Errorf("reload nginx pid %d: %w", c.Pid(), err)
	}
	return nil
}

// Stop shuts nginx down gracefully (SIGQUIT: finish open requests), and
// after grace forcefully (SIGTERM, then SIGKILL). It returns when the
// process has exited.
func (c *Child) Stop(grace time.Duration) error {
	c.mu.Lock()
	c.stop = true
	c.mu.Unlock()
	select {
	case <-c.done:
		return nil
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGQUIT)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-c.done:
		return nil
	case <-t.C:
	}
	c.log.Warn("nginx did not quit gracefully in time; terminating", "grace", grace)
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		return nil
	case <-time.After(3 * time.Second):
	}
	_ = c.cmd.Process.Kill()
	<-c.done
	return nil
}

// ReadPid reads an nginx pid file and checks the process exists.
func ReadPid(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrNoPid, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("%w: %s: %q", ErrNoPid, path, bytes.TrimSpace(b))
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return 0, fmt.Errorf("%w: %s: pid %d: %w", ErrNoPid, path, pid, err)
	}
	return pid, nil
}

// ReloadPidFile reloads the nginx whose master pid is in path (what
// "nginx -s reload" does).
func ReloadPidFile(path string) error {
	pid, err := ReadPid(path)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		return fmt.Errorf("reload nginx pid %d: %w", pid, err)
	}
	return nil
}

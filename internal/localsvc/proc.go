package localsvc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrNotReady is returned when a service did not become ready in time.
var ErrNotReady = errors.New("service not ready")

// Proc is a running child process started by this package.
type Proc struct {
	Name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// StartProcess starts argv in dir with its output sent to out and env
// appended to this process's environment. The child gets its own process
// group (so a terminal's Ctrl-C reaches only the supervisor, which then stops
// children in order) and is killed if this process dies.
func StartProcess(name string, out io.Writer, dir string, env []string, argv ...string) (*Proc, error) {
	return StartProcessFiles(name, out, dir, env, nil, argv...)
}

// StartProcessFiles is StartProcess with files the child inherits as its
// file descriptors 3, 4, ... (exec.Cmd.ExtraFiles), e.g. listening sockets
// (internal/listenfd). The caller still owns and closes its copies.
func StartProcessFiles(name string, out io.Writer, dir string, env []string, files []*os.File, argv ...string) (*Proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.ExtraFiles = files
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Proc{Name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Niced returns argv run by nice(1) at adjustment n when n is negative
// and this process may raise priorities (root), argv itself otherwise
// (RedisConfig.Nice, and the local stack's processes that the others wait
// on). nice(1) execs argv: the process it starts is argv's own, pid and
// all.
func Niced(n int, argv []string) []string {
	if n >= 0 || os.Geteuid() != 0 {
		return argv
	}
	bin, err := exec.LookPath("nice")
	if err != nil {
		return argv
	}
	return append([]string{bin, "-n", strconv.Itoa(n)}, argv...)
}

// Niceness reads a process's niceness (/proc/PID/stat, field 19).
func Niceness(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("localsvc: niceness: %w", err)
	}
	// The command name (field 2) may hold spaces: count from its ")".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 > len(b) {
		return 0, fmt.Errorf("localsvc: niceness of %d: malformed stat %q", pid, b)
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 17 {
		return 0, fmt.Errorf("localsvc: niceness of %d: stat has %d fields after the name", pid, len(f))
	}
	n, err := strconv.Atoi(f[16])
	if err != nil {
		return 0, fmt.Errorf("localsvc: niceness of %d: %w", pid, err)
	}
	return n, nil
}

// Pid returns the process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err returns the process's exit error once Done is closed.
func (p *Proc) Err() error { <-p.done; return p.err }

// Stop sends SIGTERM, waits up to grace, then SIGKILLs. It returns nil when
// the process exited (for whatever reason) and is safe to call twice.
func (p *Proc) Stop(grace time.Duration) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return nil
	case <-t.C:
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("stop %s: killed after %v", p.Name, grace)
	}
}

// waitFor polls check every 50 ms until it succeeds, the process exits, or
// the timeout passes.
func waitFor(ctx context.Context, p *Proc, timeout time.Duration, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if last = check(ctx); last == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before it was ready (%v): %w", p.Name, p.err, ErrNotReady)
		case <-ctx.Done():
			return fmt.Errorf("%s after %v: %v: %w", p.Name, timeout, last, ErrNotReady)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func lookPath(names ...string) (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
		for _, dir := range []string{"/usr/sbin", "/usr/bin", "/sbin"} {
			if fi, err := os.Stat(dir + "/" + n); err == nil && !fi.IsDir() {
				return dir + "/" + n, nil
			}
		}
	}
	return "", fmt.Errorf("none of %v found: run `make deps` (Debian packages mariadb-server, redis-server, nginx-light)", names)
}

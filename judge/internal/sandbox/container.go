//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// container is the judge's handle on one pre-forked container init, and
// what the init holds for the next run: its cgroup and its /w.
type container struct {
	cmd  *exec.Cmd
	ctl  *net.UnixConn
	buf  *msgBuf
	dead bool // protocol broken or init gone: discard, never reuse
	runs int

	// cg is the cgroup this container's runs are measured in, kept while it
	// can be reset exactly (nil: take a fresh one).
	cg runCgroup
	// dir identifies the host directory attached at /w (zero: none).
	dir dirKey
}

// dirKey identifies a directory: the same key is the same live directory.
type dirKey struct{ dev, ino uint64 }

const containerFlags = unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWNET

// startContainer starts an init whose programs run as uid and gid.
func startContainer(cfg Config, uid, gid int) (*container, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("container: socketpair: %w", err)
	}
	ours := os.NewFile(uintptr(pair[0]), "sandbox-ctl")
	theirs := os.NewFile(uintptr(pair[1]), "sandbox-ctl-init")
	defer theirs.Close()
	c, err := net.FileConn(ours)
	_ = ours.Close()
	if err != nil {
		return nil, fmt.Errorf("container: control conn: %w", err)
	}
	ctl := c.(*net.UnixConn)

	ic, err := json.Marshal(initConfig{UID: uid, GID: gid, Binds: cfg.Binds, EtcFiles: cfg.EtcFiles,
		TmpSize: cfg.TmpSize, TmpInodes: cfg.TmpInodes})
	if err != nil {
		ctl.Close()
		return nil, fmt.Errorf("container: %w", err)
	}
	cmd := exec.Command(cfg.InitPath)
	cmd.Args = []string{"verdict-sandbox-init"}
	// One P: the init runs one goroutine that blocks in system calls, and
	// with a second P idle the runtime's monitor thread would poll every
	// 20µs for as long as the program runs.
	cmd.Env = []string{initEnv + "=1", initConfigEnv + "=" + string(ic), "GOMAXPROCS=1"}
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: containerFlags, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		ctl.Close()
		return nil, fmt.Errorf("container: start init: %w", err)
	}
	ct := &container{cmd: cmd, ctl: ctl, buf: newMsgBuf()}
	var hello initHello
	if _, err := recvMsg(ctl, ct.buf, &hello, time.Now().Add(20*time.Second)); err != nil {
		ct.close()
		return nil, fmt.Errorf("container: init hello: %w", err)
	}
	if hello.Err != "" {
		ct.close()
		return nil, fmt.Errorf("container: init setup: %s", hello.Err)
	}
	return ct, nil
}

// close kills the init (and with it everything in its PID namespace).
func (c *container) close() {
	c.dead = true
	_ = c.ctl.Close()
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
		_ = c.cmd.Wait()
	}
}

// send sends one run request with its descriptors.
func (c *container) send(req runRequest, fds []int) error {
	if err := sendMsg(c.ctl, req, fds); err != nil {
		c.dead = true
		return fmt.Errorf("container: %w", err)
	}
	return nil
}

type doneMsg struct {
	d   runDone
	err error
}

func (c *container) await() <-chan doneMsg {
	ch := make(chan doneMsg, 1)
	go func() {
		var d runDone
		fds, err := recvMsg(c.ctl, c.buf, &d, time.Time{})
		closeFds(fds)
		ch <- doneMsg{d: d, err: err}
	}()
	return ch
}

// interrupt makes a pending await return (used when the init hangs).
func (c *container) interrupt() {
	c.dead = true
	_ = c.ctl.SetReadDeadline(time.Unix(1, 0))
}

//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// The judge and a container init talk over a SOCK_SEQPACKET pair: one JSON
// message per packet, descriptors attached with SCM_RIGHTS.

const (
	initEnv       = "VERDICT_SANDBOX_INIT"
	initConfigEnv = "VERDICT_SANDBOX_INIT_CONFIG"
	maxPacket     = 256 << 10
	maxFds        = 16
)

// initConfig is passed in the environment when the init starts.
type initConfig struct {
	UID      int      `json:"uid"`
	GID      int      `json:"gid"`
	Binds    []string `json:"binds"`
	EtcFiles []string `json:"etc"`
	// TmpSize and TmpInodes cap the container's /tmp tmpfs.
	TmpSize   int64 `json:"tmp_size"`
	TmpInodes int   `json:"tmp_inodes"`
}

// initHello is the init's first message: the root is ready (or Err).
type initHello struct {
	Err string `json:"err,omitempty"`
}

// runRequest asks the init for one run. Descriptors, in order: stdin,
// stdout, stderr, the work dir (an open_tree clone) when NewDir, then one
// cgroup.procs per hierarchy to join.
type runRequest struct {
	Argv    []string `json:"argv"`
	Env     []string `json:"env"`
	Rlimits []rlimit `json:"rlimits"`
	Profile Profile  `json:"profile"`
	Multi   bool     `json:"multi"`
	// NewDir: attach the tree sent at /w, replacing the last run's. Else
	// the work dir attached for an earlier run is this run's too.
	NewDir  bool `json:"new_dir"`
	NCgroup int  `json:"ncg"`
	// Memory is the run's memory limit, shown as the total in its
	// /proc/meminfo.
	Memory int64 `json:"mem"`
}

// nFds is how many descriptors come with the request.
func (r runRequest) nFds() int {
	n := 3 + r.NCgroup
	if r.NewDir {
		n++
	}
	return n
}

// runDone is the init's answer when the main process is gone and every
// other process of the run has been killed and reaped.
type runDone struct {
	Exited    bool   `json:"exited"`
	ExitCode  int    `json:"exit_code"`
	Signal    int    `json:"signal"`
	WallNs    int64  `json:"wall_ns"`
	Forbidden string `json:"forbidden,omitempty"`
	// Err: the program could not be started (exec failure, bad path...).
	Err string `json:"err,omitempty"`
	// Fatal: the init is no longer usable.
	Fatal bool `json:"fatal,omitempty"`
	// Attached: the request's work dir was attached at /w.
	Attached bool `json:"attached,omitempty"`
}

// msgBuf holds one side's receive buffers, reused from message to message.
type msgBuf struct {
	b   []byte
	oob []byte
}

func newMsgBuf() *msgBuf {
	return &msgBuf{b: make([]byte, maxPacket), oob: make([]byte, unix.CmsgSpace(maxFds*4))}
}

func encodeMsg(v any, fds []int) ([]byte, []byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, nil, fmt.Errorf("encode: %w", err)
	}
	if len(b) > maxPacket {
		return nil, nil, fmt.Errorf("message of %d bytes is too large", len(b))
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	return b, oob, nil
}

// decodeMsg parses one received packet; on error the descriptors are closed.
func decodeMsg(b, oob []byte, flags int, v any) ([]int, error) {
	var fds []int
	if len(oob) > 0 {
		msgs, err := unix.ParseSocketControlMessage(oob)
		if err != nil {
			return nil, fmt.Errorf("recv: control message: %w", err)
		}
		for _, m := range msgs {
			f, err := unix.ParseUnixRights(&m)
			if err == nil {
				fds = append(fds, f...)
			}
		}
	}
	if flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
		closeFds(fds)
		return nil, fmt.Errorf("recv: message truncated")
	}
	if len(b) == 0 {
		closeFds(fds)
		return nil, fmt.Errorf("recv: %w", net.ErrClosed)
	}
	if err := json.Unmarshal(b, v); err != nil {
		closeFds(fds)
		return nil, fmt.Errorf("recv: decode: %w", err)
	}
	return fds, nil
}

// sendMsg sends one message on the judge's side of a control socket.
func sendMsg(c *net.UnixConn, v any, fds []int) error {
	b, oob, err := encodeMsg(v, fds)
	if err != nil {
		return err
	}
	if _, _, err := c.WriteMsgUnix(b, oob, nil); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	return nil
}

// recvMsg reads one message on the judge's side; deadline zero means none.
func recvMsg(c *net.UnixConn, mb *msgBuf, v any, deadline time.Time) ([]int, error) {
	_ = c.SetReadDeadline(deadline)
	n, oobn, flags, _, err := c.ReadMsgUnix(mb.b, mb.oob)
	if err != nil {
		return nil, fmt.Errorf("recv: %w", err)
	}
	return decodeMsg(mb.b[:n], mb.oob[:oobn], flags, v)
}

// sendFd and recvFd are the init's side: plain blocking system calls on
// its own thread, no Go poller in between.
func sendFd(fd int, v any, fds []int) error {
	b, oob, err := encodeMsg(v, fds)
	if err != nil {
		return err
	}
	for {
		err = unix.Sendmsg(fd, b, oob, nil, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	return nil
}

func recvFd(fd int, mb *msgBuf, v any) ([]int, error) {
	for {
		n, oobn, flags, _, err := unix.Recvmsg(fd, mb.b, mb.oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("recv: %w", err)
		}
		return decodeMsg(mb.b[:n], mb.oob[:oobn], flags, v)
	}
}

func closeFds(fds []int) {
	for _, fd := range fds {
		if fd >= 0 {
			_ = unix.Close(fd)
		}
	}
}

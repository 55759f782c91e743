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
}

// initHello is the init's first message: the root is ready (or Err).
type initHello struct {
	Err string `json:"err,omitempty"`
}

// runRequest asks the init for one run. Descriptors, in order: stdin,
// stdout, stderr, the work dir (an open_tree clone), then one cgroup.procs
// per hierarchy.
type runRequest struct {
	Argv    []string `json:"argv"`
	Env     []string `json:"env"`
	Rlimits []rlimit `json:"rlimits"`
	Profile Profile  `json:"profile"`
	Multi   bool     `json:"multi"`
	TmpSize int64    `json:"tmp_size"`
	NCgroup int      `json:"ncg"`
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
}

func sendMsg(c *net.UnixConn, v any, fds []int) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	if len(b) > maxPacket {
		return fmt.Errorf("message of %d bytes is too large", len(b))
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	if _, _, err := c.WriteMsgUnix(b, oob, nil); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	return nil
}

// recvMsg reads one message; deadline zero means none.
func recvMsg(c *net.UnixConn, v any, deadline time.Time) ([]int, error) {
	buf := make([]byte, maxPacket)
	oob := make([]byte, unix.CmsgSpace(maxFds*4))
	_ = c.SetReadDeadline(deadline)
	n, oobn, flags, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, fmt.Errorf("recv: %w", err)
	}
	var fds []int
	if oobn > 0 {
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
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
	if n == 0 {
		closeFds(fds)
		return nil, fmt.Errorf("recv: %w", net.ErrClosed)
	}
	if err := json.Unmarshal(buf[:n], v); err != nil {
		closeFds(fds)
		return nil, fmt.Errorf("recv: decode: %w", err)
	}
	return fds, nil
}

func closeFds(fds []int) {
	for _, fd := range fds {
		if fd >= 0 {
			_ = unix.Close(fd)
		}
	}
}

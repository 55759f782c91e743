package cli

import (
	"fmt"
	"os"

	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// The default work dir of `judge sandbox run` is a tmpfs of its own
// (sandbox.MakeWorkDir), bounded like the sandbox's /tmp: a program cannot
// fill the host's disk or inode table through it, its mountinfo names no
// host path, and removing it is an unmount.
const (
	tmpDirSize   = 64 << 20
	tmpDirInodes = 16384
)

// tmpWorkDir makes the default work dir: a fresh directory with a bounded
// tmpfs on it owned by the run's uid and gid. cleanup unmounts and
// removes it.
func tmpWorkDir(uid, gid int) (dir string, cleanup func() error, err error) {
	dir, err = os.MkdirTemp("", "verdict-run-")
	if err != nil {
		return "", nil, fmt.Errorf("work dir: %w", err)
	}
	if err := sandbox.MakeWorkDir(dir, uid, gid, sandbox.WorkDirLimits{Bytes: tmpDirSize, Inodes: tmpDirInodes}); err != nil {
		_ = os.Remove(dir)
		return "", nil, err
	}
	return dir, func() error { return sandbox.RemoveAll(dir) }, nil
}

package cli

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// The default work dir of `judge sandbox run` is a tmpfs of its own,
// bounded like the sandbox's /tmp: a program cannot fill the host's disk
// or inode table through it, and removing it is an unmount.
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
	opts := fmt.Sprintf("size=%d,nr_inodes=%d,mode=0755,uid=%d,gid=%d", tmpDirSize, tmpDirInodes, uid, gid)
	if err := unix.Mount("verdict-run", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		_ = os.Remove(dir)
		return "", nil, fmt.Errorf("work dir: mount tmpfs on %s: %w", dir, err)
	}
	return dir, func() error {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			return fmt.Errorf("unmount %s: %w", dir, err)
		}
		if err := os.Remove(dir); err != nil {
			return fmt.Errorf("remove %s: %w", dir, err)
		}
		return nil
	}, nil
}

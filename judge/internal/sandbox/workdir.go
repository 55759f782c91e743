//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// WorkDirLimits bound a work dir made by MakeWorkDir. Zero values take the
// documented defaults.
type WorkDirLimits struct {
	// Bytes caps the tmpfs (a cap, not a reservation: pages exist only
	// for what is written). Default 1 GiB.
	Bytes int64
	// Inodes caps its files and directories. Default 65536.
	Inodes int
}

func (l WorkDirLimits) withDefaults() WorkDirLimits {
	if l.Bytes <= 0 {
		l.Bytes = 1 << 30
	}
	if l.Inodes <= 0 {
		l.Inodes = 65536
	}
	return l
}

// workDirSource is the source every work dir's tmpfs shows in mountinfo.
const workDirSource = "w"

// MakeWorkDir makes dir an empty work dir for Spec.Dir: a tmpfs of its
// own (bounded by l, nosuid, nodev), mode 0755, owned by uid and gid.
// Whatever was at dir is removed first (RemoveAll, which also unmounts a
// work dir left by an earlier judge process). The run then sees /w as the
// root of a file system: its /proc/self/mountinfo reads "/ /w ... tmpfs
// w", where a directory of the host's file system would show its path
// there. Remove it with RemoveAll.
//
// Memory: a tmpfs page is charged to the memory cgroup of whoever writes
// it first: what the judge puts there (the source, a build cache's seed,
// a file-IO input) to the judge, what a run writes (a compile's output, a
// program's output file) to that run, within its memory limit, as /tmp.
// The pages are freed when the files are removed (RemoveAll empties the
// tree before it unmounts: a container may keep the mount attached until
// its next run).
func MakeWorkDir(dir string, uid, gid int, l WorkDirLimits) error {
	l = l.withDefaults()
	if err := RemoveAll(dir); err != nil {
		return fmt.Errorf("work dir: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("work dir: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("work dir: %w", err)
	}
	opts := fmt.Sprintf("size=%d,nr_inodes=%d,mode=0755,uid=%d,gid=%d", l.Bytes, l.Inodes, uid, gid)
	if err := unix.Mount(workDirSource, dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		_ = unix.Rmdir(dir)
		return fmt.Errorf("work dir: mount tmpfs on %s: %w", dir, err)
	}
	return nil
}

// isMountRoot reports whether the directory fd is the root of a mount.
func isMountRoot(fd int) (bool, error) {
	var stx unix.Statx_t
	if err := unix.Statx(fd, "", unix.AT_EMPTY_PATH|unix.AT_STATX_DONT_SYNC, unix.STATX_BASIC_STATS, &stx); err != nil {
		return false, err
	}
	if stx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 {
		return stx.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0, nil
	}
	// Before Linux 5.8: a mount root lies on another device than its
	// parent (a bind of a directory of the same file system aside).
	var st, pst unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, err
	}
	if err := unix.Fstatat(fd, "..", &pst, 0); err != nil {
		return false, err
	}
	return st.Dev != pst.Dev, nil
}

// UnmountWorkDirs unmounts every work dir (a MakeWorkDir tmpfs) mounted at
// or under dir, deepest first, and returns how many it unmounted: what a
// judge killed before its RemoveAll left behind (a directory with a mount
// in it cannot be removed). The directories stay, empty.
func UnmountWorkDirs(dir string) (int, error) {
	dir = filepath.Clean(dir)
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return 0, fmt.Errorf("work dirs: %w", err)
	}
	points := workDirMounts(string(b), dir)
	var errs []error
	n := 0
	for _, p := range points {
		if err := unix.Unmount(p, unix.MNT_DETACH|unix.UMOUNT_NOFOLLOW); err != nil {
			errs = append(errs, fmt.Errorf("unmount %s: %w", p, err))
			continue
		}
		n++
	}
	if err := errors.Join(errs...); err != nil {
		return n, fmt.Errorf("work dirs: %w", err)
	}
	return n, nil
}

// workDirMounts lists the mount points of work dirs (tmpfs, source
// workDirSource) at or under dir in a mountinfo text, deepest first (a
// path stacked twice is listed twice). Pure.
func workDirMounts(mountinfo, dir string) []string {
	var out []string
	for _, l := range strings.Split(mountinfo, "\n") {
		pre, post, ok := strings.Cut(l, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 2 || g[0] != "tmpfs" || g[1] != workDirSource {
			continue
		}
		p := unescapeMountinfo(f[4])
		if p == dir || strings.HasPrefix(p, dir+"/") {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	return out
}

// unescapeMountinfo undoes mountinfo's octal escapes (\040 for a space,
// \011, \012, \134). Pure.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

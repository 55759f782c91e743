//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Files in directories a program could write (its work dir, its /tmp, a
// compile's build cache) are handled by the judge only through the helpers
// below: a path is resolved beneath a directory the judge trusts, never
// through a symlink or a magic link (/proc/self/fd/N), never across a
// mount; only regular files are opened for reading, and reads are bounded.
// Trees are walked and removed holding two descriptors at most whatever
// their depth, without following symlinks.

// ErrUnsafeFile: a file under a sandbox-writable directory is not a plain
// regular file reachable without symlinks (or is larger than allowed).
var ErrUnsafeFile = errors.New("sandbox: unsafe file")

// resolveSafe is what openat2 refuses to cross.
const resolveSafe = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_XDEV

// openBeneathFd opens name (relative, may have several components) beneath
// the directory descriptor dirfd with flags, refusing symlinks in every
// component, magic links, ".." out of dirfd and mount crossings.
func openBeneathFd(dirfd int, name string, flags int, mode uint32) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NOCTTY), Mode: uint64(mode), Resolve: resolveSafe}
	for {
		fd, err := unix.Openat2(dirfd, name, &how)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue // EAGAIN: a rename raced with RESOLVE_BENEATH's check
		}
		if err == unix.ENOSYS {
			return openNoFollowWalk(dirfd, name, flags, mode)
		}
		return fd, err
	}
}

// openNoFollowWalk is openBeneathFd for kernels without openat2 (< 5.6):
// one O_NOFOLLOW openat per component, each relative to the last.
func openNoFollowWalk(dirfd int, name string, flags int, mode uint32) (int, error) {
	parts := strings.Split(name, "/")
	cur := dirfd
	closeCur := func() {
		if cur != dirfd {
			_ = unix.Close(cur)
		}
	}
	for i, p := range parts {
		if p == "" || p == "." {
			continue
		}
		if p == ".." {
			closeCur()
			return -1, unix.EXDEV
		}
		if i == len(parts)-1 {
			fd, err := unix.Openat(cur, p, flags|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NOCTTY, mode)
			closeCur()
			return fd, err
		}
		next, err := unix.Openat(cur, p, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		closeCur()
		if err != nil {
			return -1, err
		}
		cur = next
	}
	closeCur()
	return -1, unix.EINVAL
}

// OpenBeneath opens dir/name for reading, safely: see openBeneathFd. Only a
// regular file is returned (a fifo, device, socket or directory is
// ErrUnsafeFile); it is opened non-blocking, so a fifo planted there cannot
// stall the judge.
func OpenBeneath(dir, name string) (*os.File, error) {
	dfd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	defer unix.Close(dfd)
	fd, err := openBeneathFd(dfd, name, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s beneath %s: %w: %w", name, dir, ErrUnsafeFile, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("stat %s beneath %s: %w", name, dir, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("open %s beneath %s: %w: not a regular file", name, dir, ErrUnsafeFile)
	}
	return os.NewFile(uintptr(fd), dir+"/"+name), nil
}

// ReadFileBeneath reads at most max bytes of the regular file dir/name,
// opened as OpenBeneath does. truncated reports that the file was longer.
func ReadFileBeneath(dir, name string, max int64) (data []byte, truncated bool, err error) {
	f, err := OpenBeneath(dir, name)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if int64(len(b)) > max {
		return b[:max], true, nil
	}
	return b, false, nil
}

// openOutputFile creates (or truncates) path for a run's stdout: never
// through a symlink as its last component, a regular file only.
func openOutputFile(path string) (int, error) {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		_ = unix.Close(fd)
		if err == nil {
			err = fmt.Errorf("%w: not a regular file", ErrUnsafeFile)
		}
		return -1, err
	}
	return neutralReopen(fd, unix.O_WRONLY|unix.O_NOCTTY|unix.O_CLOEXEC)
}

// neutralReopen reopens the file of fd, closing fd, through a detached
// mount of that single file (open_tree OPEN_TREE_CLONE): the new
// descriptor's path is the detached mount's root, so /proc/self/fd/N of
// the program reads "/" instead of the host path of the test data or of
// the judge's output file, and the mount is listed in no mountinfo. It
// goes when the last descriptor of it does.
func neutralReopen(fd, flags int) (int, error) {
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH)
	_ = unix.Close(fd)
	if err != nil {
		return -1, fmt.Errorf("detach file: %w", err)
	}
	nfd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(tree), flags, 0)
	_ = unix.Close(tree)
	if err != nil {
		return -1, fmt.Errorf("reopen detached file: %w", err)
	}
	return nfd, nil
}

// RemoveAll removes path and everything under it, like os.RemoveAll, but
// whatever the depth of the tree with two descriptors open at most (a
// directory chain deeper than the open-file limit cannot make it fail),
// never following a symlink. A missing path is not an error. A path that
// is the root of a mount (a work dir of MakeWorkDir) is emptied, then
// unmounted (lazily) and removed: even when the tree cannot be emptied,
// the directory goes, and the file system with it once no container has
// it attached any more.
func RemoveAll(path string) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case err == unix.ENOENT:
		return nil
	case err == unix.ENOTDIR || err == unix.ELOOP:
		if err := unix.Unlink(path); err != nil && err != unix.ENOENT {
			return fmt.Errorf("remove %s: %w", path, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("remove %s: %w", path, err)
	}
	mounted, err := isMountRoot(fd)
	if err != nil {
		_ = unix.Close(fd)
		return fmt.Errorf("remove %s: %w", path, err)
	}
	if err := emptyDirFd(fd); err != nil && !mounted {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	if mounted {
		if err := unix.Unmount(path, unix.MNT_DETACH|unix.UMOUNT_NOFOLLOW); err != nil {
			return fmt.Errorf("remove %s: unmount: %w", path, err)
		}
		// What was under it (the directory, or a mount stacked below).
		return RemoveAll(path)
	}
	if err := unix.Rmdir(path); err != nil && err != unix.ENOENT {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}

// EmptyDir removes everything under the directory dir, keeping dir, as
// RemoveAll does.
func EmptyDir(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("empty %s: %w", dir, err)
	}
	if err := emptyDirFd(fd); err != nil {
		return fmt.Errorf("empty %s: %w", dir, err)
	}
	return nil
}

// emptyDirFd empties the directory fd and closes fd.
func emptyDirFd(fd int) error {
	return walkFd(fd, func(dirfd int, name string, isDir bool) (bool, error) {
		if isDir {
			// An empty directory goes at once; else descend first.
			err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
			if err == nil || err == unix.ENOENT {
				return false, nil
			}
			if err == unix.ENOTEMPTY || err == unix.EEXIST {
				return true, nil
			}
			return false, err
		}
		if err := unix.Unlinkat(dirfd, name, 0); err != nil && err != unix.ENOENT {
			return false, err
		}
		return false, nil
	}, func(dirfd int, name string) error {
		if err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); err != nil && err != unix.ENOENT {
			return err
		}
		return nil
	})
}

// ChownTree gives root and everything under it to uid:gid, without
// following symlinks (a symlink itself is changed) and, like RemoveAll,
// with two descriptors open at most whatever the depth.
func ChownTree(root string, uid, gid int) error {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("chown %s: %w", root, err)
	}
	if err := unix.Fchown(fd, uid, gid); err != nil {
		_ = unix.Close(fd)
		return fmt.Errorf("chown %s: %w", root, err)
	}
	err = walkFd(fd, func(dirfd int, name string, isDir bool) (bool, error) {
		if err := unix.Fchownat(dirfd, name, uid, gid, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return false, err
		}
		return isDir, nil
	}, nil)
	if err != nil {
		return fmt.Errorf("chown %s: %w", root, err)
	}
	return nil
}

// walkLevel is one directory on the way down: its remaining entries and
// its identity (to check the way back up).
type walkLevel struct {
	name     string // in its parent
	dev, ino uint64
	entries  []dirEntry
}

type dirEntry struct {
	name  string
	isDir bool
}

// walkFd visits the tree under the directory fd depth first and closes fd.
// pre is called for every entry with the descriptor of its directory and
// says whether to descend (directories only); post is called for each
// directory descended into once its entries are done. Only the current
// directory is held open: the way down is openat(O_NOFOLLOW) of the entry,
// the way back up openat("..") checked against the identity recorded on
// the way down, so the walk never leaves the tree even if it changed.
func walkFd(fd int, pre func(dirfd int, name string, isDir bool) (bool, error), post func(dirfd int, name string) error) (err error) {
	defer func() { _ = unix.Close(fd) }()
	cur, err := readLevel(fd, "")
	if err != nil {
		return err
	}
	var stack []*walkLevel
	for {
		if len(cur.entries) == 0 {
			if len(stack) == 0 {
				return nil
			}
			parent := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			pfd, err := unix.Openat(fd, "..", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return fmt.Errorf("walk up from %s: %w", cur.name, err)
			}
			var st unix.Stat_t
			if err := unix.Fstat(pfd, &st); err != nil || uint64(st.Dev) != parent.dev || uint64(st.Ino) != parent.ino {
				_ = unix.Close(pfd)
				return fmt.Errorf("walk up from %s: %w: the tree changed during the walk", cur.name, ErrUnsafeFile)
			}
			_ = unix.Close(fd)
			fd = pfd
			if post != nil {
				if err := post(fd, cur.name); err != nil {
					return fmt.Errorf("%s: %w", cur.name, err)
				}
			}
			cur = parent
			continue
		}
		e := cur.entries[0]
		cur.entries = cur.entries[1:]
		descend, err := pre(fd, e.name, e.isDir)
		if err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
		if !descend {
			continue
		}
		cfd, err := unix.Openat(fd, e.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.ENOENT {
			continue
		}
		if err != nil {
			return fmt.Errorf("open %s: %w", e.name, err)
		}
		next, err := readLevel(cfd, e.name)
		if err != nil {
			_ = unix.Close(cfd)
			return err
		}
		_ = unix.Close(fd)
		fd = cfd
		stack = append(stack, cur)
		cur = next
	}
}

// readLevel lists the directory fd (without "." and "..").
func readLevel(fd int, name string) (*walkLevel, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("stat %s: %w", name, err)
	}
	l := &walkLevel{name: name, dev: uint64(st.Dev), ino: uint64(st.Ino)}
	if _, err := unix.Seek(fd, 0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read dir %s: %w", name, err)
	}
	buf := make([]byte, 8192)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read dir %s: %w", name, err)
		}
		if n <= 0 {
			return l, nil
		}
		b := buf[:n]
		for len(b) > 0 {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name
			reclen := int(b[16]) | int(b[17])<<8
			if reclen == 0 || reclen > len(b) {
				return nil, fmt.Errorf("read dir %s: bad dirent", name)
			}
			typ := b[18]
			nb := b[19:reclen]
			if i := indexByte(nb, 0); i >= 0 {
				nb = nb[:i]
			}
			b = b[reclen:]
			ename := string(nb)
			if ename == "." || ename == ".." {
				continue
			}
			isDir := typ == unix.DT_DIR
			if typ == unix.DT_UNKNOWN {
				var est unix.Stat_t
				if err := unix.Fstatat(fd, ename, &est, unix.AT_SYMLINK_NOFOLLOW); err == nil {
					isDir = est.Mode&unix.S_IFMT == unix.S_IFDIR
				}
			}
			l.entries = append(l.entries, dirEntry{name: ename, isDir: isDir})
		}
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/verdict-oj/verdict/judge/internal/lang"
)

// buildCache keeps, for each language with a BuildCache directory (Go's
// GOCACHE), the toolchain's build cache harvested from successful compiles,
// and seeds every compile of that language with a private copy of it. Go
// compiles its standard library into that cache: without it every Go
// submission rebuilds fmt, os, runtime… (15–60 s of CPU); with it a compile
// takes about a second.
//
// Safety: the kept cache is the judge's (root, 0700), never visible to a
// program; each compile gets a copy owned by the sandbox user, so nothing a
// compile does to its copy reaches another submission. Harvesting happens
// right after a successful compile, before the program ever runs, when the
// compile's cgroup is already empty. Only regular files with one link are
// taken, opened without following symlinks, and only names the kept cache
// does not have yet (the toolchain's cache is content-addressed: a name's
// content never changes), up to a size bound.
type buildCache struct {
	root string
	max  int64

	mu   sync.RWMutex
	size map[string]int64 // per kept directory, once counted
}

func newBuildCache(root string, max int64) *buildCache {
	return &buildCache{root: root, max: max, size: map[string]int64{}}
}

// dir is the kept cache of l: one per language and toolchain version.
func (b *buildCache) dir(l lang.Available) string {
	sum := sha256.Sum256([]byte(l.ID + "\x00" + l.VersionText + "\x00" + l.CompileArgv0))
	return filepath.Join(b.root, l.ID+"-"+hex.EncodeToString(sum[:6]))
}

// enabled reports whether l has a build cache to keep.
func (b *buildCache) enabled(l lang.Available) bool {
	return b != nil && b.max > 0 && l.BuildCache != ""
}

// seed copies the kept cache of l into work/<BuildCache>, owned by uid.
// With nothing kept yet it creates the empty directory.
func (b *buildCache) seed(l lang.Available, work string, uid int) error {
	dst := filepath.Join(work, l.BuildCache)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	if err := os.Chown(dst, uid, uid); err != nil {
		return err
	}
	src := b.dir(l)
	b.mu.RLock()
	defer b.mu.RUnlock()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == src && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		out := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if err := os.Mkdir(out, 0o755); err != nil {
				return err
			}
			return os.Chown(out, uid, uid)
		case d.Type().IsRegular():
			return copyOwned(p, out, uid)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("seed build cache of %s: %w", l.ID, err)
	}
	return nil
}

// harvest adds to the kept cache of l the files of work/<BuildCache> it
// does not hold yet, within the size bound. It returns how many it added.
func (b *buildCache) harvest(l lang.Available, work string) (int, error) {
	src := filepath.Join(work, l.BuildCache)
	dst := b.dir(l)
	b.mu.Lock()
	defer b.mu.Unlock()
	size, ok := b.size[dst]
	if !ok {
		size = dirSize(dst)
	}
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return 0, fmt.Errorf("harvest build cache of %s: %w", l.ID, err)
	}
	added := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		if strings.HasPrefix(rel, "..") {
			return fs.SkipDir
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o700)
		}
		if !d.Type().IsRegular() {
			return nil // symlinks, fifos…: never followed, never kept
		}
		if _, err := os.Lstat(out); err == nil {
			return nil // content-addressed: already kept
		}
		n, err := keepFile(p, out, b.max-size)
		if err != nil || n < 0 {
			return err
		}
		size += n
		added++
		return nil
	})
	b.size[dst] = size
	if err != nil {
		return added, fmt.Errorf("harvest build cache of %s: %w", l.ID, err)
	}
	return added, nil
}

// keepFile copies src to dst (via a temporary name) when src is a regular
// file with one link and at most budget bytes; it returns the bytes kept,
// or -1 when the file was skipped.
func keepFile(src, dst string, budget int64) (int64, error) {
	in, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return -1, nil // gone or not a plain file: skip
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > budget {
		return -1, nil
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || sys.Nlink != 1 {
		return -1, nil
	}
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(in, st.Size()))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		os.Remove(tmp)
		return 0, err
	}
	return n, nil
}

// copyOwned copies a regular file, giving the copy to uid.
func copyOwned(src, dst string, uid int) error {
	if err := copyFileMode(src, dst, 0o644); err != nil {
		return err
	}
	return os.Chown(dst, uid, uid)
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

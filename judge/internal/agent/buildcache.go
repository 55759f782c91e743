package agent

import (
	"context"
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
	"time"

	"log/slog"

	"github.com/verdict-oj/verdict/judge/internal/lang"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// buildCache keeps, for each language with a BuildCache directory (Go's
// GOCACHE), a build cache that the judge filled itself, and seeds every
// compile of that language with a private copy of it. Go compiles its
// standard library into that cache: without it every Go submission
// rebuilds fmt, os, runtime… (15–60 s of CPU); with it a compile takes
// about a second.
//
// Safety (issue 16, finding 2): the kept cache holds only what no
// submission produced: the output of the language's BuildCacheWarm source
// (the judge's own code importing the standard library), compiled once per
// judge process, in the sandbox, before the first compile of that language
// (what an earlier judge process kept is discarded then). Submissions'
// compiles add nothing to it: each gets a copy owned by the sandbox user,
// removed right after the compile, so no submission can read (e.g. with
// //go:embed) what another one compiled. The kept cache is the judge's
// (root, 0700) and never visible to a program. Harvesting the warm-up
// compile takes only regular files with one link, opened without following
// symlinks, up to a size bound.
type buildCache struct {
	root string
	max  int64

	mu   sync.RWMutex
	size map[string]int64 // per kept directory, once counted

	warmMu sync.Mutex
	warmed map[string]bool // kept directories this process filled (or tried to)
}

func newBuildCache(root string, max int64) *buildCache {
	return &buildCache{root: root, max: max, size: map[string]int64{}, warmed: map[string]bool{}}
}

// warm fills the kept cache of l once per judge process: it discards what
// is kept, runs compile (the judge's warm-up compile) in a fresh work dir
// of its own and keeps what that compile wrote to its BuildCache. Other
// compiles of l wait for it. A failed warm-up leaves the kept cache empty
// (compiles then start from nothing) and is not retried.
func (b *buildCache) warm(ctx context.Context, l lang.Available, uid int, compile func(dir string) error, log *slog.Logger) {
	dst := b.dir(l)
	b.warmMu.Lock()
	defer b.warmMu.Unlock()
	if b.warmed[dst] {
		return
	}
	b.mu.Lock()
	err := sandbox.RemoveAll(dst)
	delete(b.size, dst)
	b.mu.Unlock()
	if err != nil {
		log.Warn("discard the kept build cache", "language", l.ID, "err", err)
		return // not marked: retried by the next compile
	}
	if l.BuildCacheWarm == "" {
		b.warmed[dst] = true
		return
	}
	dir := filepath.Join(b.root, "warm-"+l.ID)
	// A tmpfs (workdir.go) the warm-up compile fills, within its memory
	// limit.
	if err := resetWorkDir(dir, uid, max(l.CompileMemoryKiB<<10, 1<<30)); err != nil {
		log.Warn("build cache warm-up", "language", l.ID, "err", err)
		return
	}
	defer func() { _ = sandbox.RemoveAll(dir) }()
	start := time.Now()
	if err := compile(dir); err != nil {
		if ctx.Err() == nil {
			b.warmed[dst] = true
		}
		log.Warn("build cache warm-up", "language", l.ID, "err", err)
		return
	}
	b.warmed[dst] = true
	n, err := b.harvest(l, dir)
	if err != nil {
		log.Warn("build cache warm-up: keep", "language", l.ID, "err", err)
		return
	}
	log.Info("build cache warmed", "language", l.ID, "files", n, "took", time.Since(start).Round(time.Millisecond))
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
// Only the judge's warm-up compile is harvested.
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

package cache

import (
	"container/list"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// Sentinel errors.
var (
	// ErrBadHash: the hash is not 64 lower-case hex digits.
	ErrBadHash = errors.New("cache: bad content hash")
	// ErrHashMismatch: the downloaded bytes do not hash to the name they were
	// asked for. Retrying the same URL will not help.
	ErrHashMismatch = errors.New("cache: downloaded data does not match its hash")
	// ErrInvalidPackage: the package does not unpack (bad zip, bomb...).
	ErrInvalidPackage = errors.New("cache: invalid test data package")
	// ErrDownload: the download failed (network, HTTP status). Transient.
	ErrDownload = errors.New("cache: download failed")
	// ErrGone: the web node answered 404 or 410: it has no test data of
	// that hash (any more: a problem whose import was dropped). Always
	// with ErrDownload, so a caller that does not tell them apart retries.
	ErrGone = errors.New("cache: the web node has no such test data")
	// ErrClosed: the cache was closed.
	ErrClosed = errors.New("cache: closed")
)

// Config configures a Cache. Zero values take the documented defaults.
type Config struct {
	// Dir holds one directory per cached package, named by its hash.
	// Required; created if missing.
	Dir string
	// MaxBytes bounds the unpacked bytes kept. Least recently used packages
	// not in use are removed first; a package in use is never removed, so
	// the cache may briefly exceed it. Default 2 GiB.
	MaxBytes int64
	// MaxPackage bounds one download. Default 1 GiB. The unpack is bounded
	// by testpkg's limits (testpkg.DefaultLimits), the same numbers the web
	// node checks every upload against.
	MaxPackage int64
	// Client downloads. Default: an http.Client with a 10 minute timeout.
	Client *http.Client
	// Token is sent as "Authorization: Bearer <token>".
	Token string
	// URLFor builds the download URL of a hash when a request has none.
	URLFor func(hash string) string
	// Logger; default discards.
	Logger *slog.Logger
}

// Cache holds unpacked test data packages by content hash.
type Cache struct {
	cfg Config
	log *slog.Logger

	mu      sync.Mutex
	entries map[string]*Entry
	lru     *list.List // of *Entry, front = most recent
	total   int64
	loading map[string]*load
	closed  bool
}

type load struct {
	done chan struct{}
	err  error
}

// Entry is one unpacked package. Get pins it; Release unpins.
type Entry struct {
	c        *Cache
	hash     string
	dir      string
	size     int64
	manifest testpkg.Manifest
	problem  int64
	elem     *list.Element
	refs     int
	doomed   bool // evicted while in use: removed on the last Release unless wanted again

	buildMu sync.Mutex
	built   map[string]string // artefact key -> path (e.g. the compiled checker)
}

// meta is written next to the files when an unpack completes.
type meta struct {
	Hash      string           `json:"hash"`
	ProblemID int64            `json:"problem_id"`
	Size      int64            `json:"size"`
	Manifest  testpkg.Manifest `json:"manifest"`
}

const (
	metaName = ".meta.json"
	dataDir  = "data"
)

var hashRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// New opens the cache, keeping complete packages from earlier runs and
// removing partial ones.
func New(cfg Config) (*Cache, error) {
	if cfg.Dir == "" {
		return nil, errors.New("cache new: no directory")
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 2 << 30
	}
	if cfg.MaxPackage <= 0 {
		cfg.MaxPackage = 1 << 30
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 10 * time.Minute}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache new: %w", err)
	}
	c := &Cache{cfg: cfg, log: cfg.Logger, entries: map[string]*Entry{}, lru: list.New(), loading: map[string]*load{}}
	ents, err := os.ReadDir(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("cache new: %w", err)
	}
	type found struct {
		e  *Entry
		at time.Time
	}
	var fs []found
	for _, de := range ents {
		p := filepath.Join(cfg.Dir, de.Name())
		if !hashRE.MatchString(de.Name()) {
			_ = os.RemoveAll(p) // leftovers of an interrupted download
			continue
		}
		b, err := os.ReadFile(filepath.Join(p, metaName))
		var m meta
		if err != nil || json.Unmarshal(b, &m) != nil || m.Hash != de.Name() {
			_ = os.RemoveAll(p)
			continue
		}
		info, _ := os.Stat(filepath.Join(p, metaName))
		fs = append(fs, found{&Entry{c: c, hash: m.Hash, dir: p, size: m.Size, manifest: m.Manifest, problem: m.ProblemID}, info.ModTime()})
	}
	// Oldest first, each pushed to the front: the newest ends at the front.
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j].at.Before(fs[j-1].at); j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
	for _, f := range fs {
		f.e.elem = c.lru.PushFront(f.e)
		c.entries[f.e.hash] = f.e
		c.total += f.e.size
	}
	c.mu.Lock()
	c.trimLocked()
	c.mu.Unlock()
	return c, nil
}

// Hash returns the package's content hash.
func (e *Entry) Hash() string { return e.hash }

// Dir is the directory holding the package's files (N.in, N.ans, ...).
func (e *Entry) Dir() string { return filepath.Join(e.dir, dataDir) }

// Manifest is the package's manifest.
func (e *Entry) Manifest() testpkg.Manifest { return e.manifest }

// Release unpins the entry. Call it exactly once per Get.
func (e *Entry) Release() {
	c := e.c
	c.mu.Lock()
	defer c.mu.Unlock()
	e.refs--
	if e.refs == 0 && e.doomed {
		c.removeLocked(e)
	}
	c.trimLocked()
}

// Build returns the artefact key of this package, building it once with
// build(dir) where dir is an empty directory under the entry (kept as long
// as the entry). Concurrent callers wait for the one build; a failed build
// is retried by the next caller. Used to compile a special judge once per
// test data version.
func (e *Entry) Build(ctx context.Context, key string, build func(ctx context.Context, dir string) (string, error)) (string, error) {
	e.buildMu.Lock()
	defer e.buildMu.Unlock()
	if p, ok := e.built[key]; ok {
		return p, nil
	}
	dir := filepath.Join(e.dir, ".build-"+key)
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cache build %s: %w", key, err)
	}
	p, err := build(ctx, dir)
	if err != nil {
		return "", err
	}
	if e.built == nil {
		e.built = map[string]string{}
	}
	e.built[key] = p
	return p, nil
}

// Hashes lists the cached hashes, most recently used first.
func (c *Cache) Hashes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, c.lru.Len())
	for el := c.lru.Front(); el != nil; el = el.Next() {
		if e := el.Value.(*Entry); !e.doomed {
			out = append(out, e.hash)
		}
	}
	return out
}

// Size returns the bytes held.
func (c *Cache) Size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Get returns the pinned package with this hash, downloading and unpacking
// it first if needed (from url, or URLFor(hash) when url is empty).
// Concurrent Gets of one hash download once. The caller must Release it.
func (c *Cache) Get(ctx context.Context, problemID int64, hash, url string) (*Entry, error) {
	if !hashRE.MatchString(hash) {
		return nil, fmt.Errorf("%w: %q", ErrBadHash, hash)
	}
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, ErrClosed
		}
		if e, ok := c.entries[hash]; ok {
			e.doomed = false // evicted while in use, wanted again: keep it
			e.refs++
			c.lru.MoveToFront(e.elem)
			c.mu.Unlock()
			_ = os.Chtimes(filepath.Join(e.dir, metaName), time.Now(), time.Now()) // LRU order survives restarts
			return e, nil
		}
		if l, ok := c.loading[hash]; ok {
			c.mu.Unlock()
			select {
			case <-l.done:
			case <-ctx.Done():
				return nil, fmt.Errorf("cache get %s: %w", hash, ctx.Err())
			}
			if l.err != nil {
				return nil, l.err
			}
			continue // now cached (or evicted again at once: load again)
		}
		l := &load{done: make(chan struct{})}
		c.loading[hash] = l
		c.mu.Unlock()

		// The download is shared: it must not die with the first caller.
		e, err := c.fetch(context.WithoutCancel(ctx), problemID, hash, url)
		c.mu.Lock()
		delete(c.loading, hash)
		l.err = err
		if err == nil {
			e.elem = c.lru.PushFront(e)
			c.entries[hash] = e
			c.total += e.size
			e.refs++
			c.trimLocked()
		}
		close(l.done)
		c.mu.Unlock()
		if err != nil {
			return nil, err
		}
		return e, nil
	}
}

// Prefetch makes sure the package is cached.
func (c *Cache) Prefetch(ctx context.Context, problemID int64, hash, url string) error {
	e, err := c.Get(ctx, problemID, hash, url)
	if err != nil {
		return err
	}
	e.Release()
	return nil
}

// Evict drops the package with hash, or every package of problemID when
// hash is empty. Packages in use go when released. It returns how many.
func (c *Cache) Evict(problemID int64, hash string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for h, e := range c.entries {
		if (hash != "" && h == hash) || (hash == "" && problemID > 0 && e.problem == problemID) {
			n++
			if e.refs > 0 {
				e.doomed = true
				continue
			}
			c.removeLocked(e)
		}
	}
	return n
}

// Close stops new Gets. Cached data stays on disk for the next start.
func (c *Cache) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
}

// removeLocked deletes e's files and accounting (e has no refs).
func (c *Cache) removeLocked(e *Entry) {
	if e.elem != nil {
		c.lru.Remove(e.elem)
		e.elem = nil
		c.total -= e.size
	}
	delete(c.entries, e.hash)
	// Rename first so a crash mid-removal leaves no half package under its
	// hash; New removes the leftover.
	tmp := filepath.Join(c.cfg.Dir, ".gone-"+randHex())
	if err := os.Rename(e.dir, tmp); err == nil {
		go os.RemoveAll(tmp)
	} else if !errors.Is(err, fs.ErrNotExist) {
		c.log.Warn("cache: remove package", "hash", e.hash, "err", err)
	}
}

// trimLocked removes least recently used unpinned entries over MaxBytes.
func (c *Cache) trimLocked() {
	for el := c.lru.Back(); el != nil && c.total > c.cfg.MaxBytes; {
		prev := el.Prev()
		e := el.Value.(*Entry)
		if e.refs == 0 {
			c.log.Info("cache: evicting least recently used package", "hash", e.hash, "bytes", e.size)
			c.removeLocked(e)
		}
		el = prev
	}
}

func randHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// fetch downloads, verifies and unpacks one package into a new entry.
func (c *Cache) fetch(ctx context.Context, problemID int64, hash, url string) (*Entry, error) {
	if url == "" && c.cfg.URLFor != nil {
		url = c.cfg.URLFor(hash)
	}
	if url == "" {
		return nil, fmt.Errorf("%w: %s: no URL", ErrDownload, hash)
	}
	start := time.Now()
	tmp := filepath.Join(c.cfg.Dir, ".tmp-"+randHex())
	if err := os.MkdirAll(filepath.Join(tmp, dataDir), 0o755); err != nil {
		return nil, fmt.Errorf("cache fetch %s: %w", hash, err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = os.RemoveAll(tmp)
		}
	}()
	zipPath := filepath.Join(tmp, "package.zip")
	n, err := c.download(ctx, url, zipPath, hash)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(zipPath)
	if err != nil {
		return nil, fmt.Errorf("cache fetch %s: %w", hash, err)
	}
	m, err := testpkg.Unpack(f, n, filepath.Join(tmp, dataDir), testpkg.DefaultLimits())
	f.Close()
	_ = os.Remove(zipPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidPackage, hash, err)
	}
	size, err := dirSize(tmp)
	if err != nil {
		return nil, fmt.Errorf("cache fetch %s: %w", hash, err)
	}
	mb, _ := json.Marshal(meta{Hash: hash, ProblemID: problemID, Size: size, Manifest: m})
	if err := os.WriteFile(filepath.Join(tmp, metaName), mb, 0o644); err != nil {
		return nil, fmt.Errorf("cache fetch %s: %w", hash, err)
	}
	final := filepath.Join(c.cfg.Dir, hash)
	if _, err := os.Stat(final); err == nil { // not ours (removed by hand?)
		_ = os.Rename(final, filepath.Join(c.cfg.Dir, ".gone-"+randHex()))
	}
	if err := os.Rename(tmp, final); err != nil {
		return nil, fmt.Errorf("cache fetch %s: %w", hash, err)
	}
	ok = true
	c.log.Info("cache: test data ready", "hash", hash, "problem_id", problemID, "zip_bytes", n, "bytes", size, "took", time.Since(start).Round(time.Millisecond))
	return &Entry{c: c, hash: hash, dir: final, size: size, manifest: m, problem: problemID}, nil
}

// download writes the body of url to path, checking its SHA-256 and size.
func (c *Cache) download(ctx context.Context, url, path, hash string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrDownload, hash, err)
	}
	if c.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	}
	resp, err := c.cfg.Client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrDownload, hash, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
		err := fmt.Errorf("%w: %s: GET %s: %s: %s", ErrDownload, hash, url, resp.Status, strings.TrimSpace(string(body)))
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone {
			err = fmt.Errorf("%w (%w)", err, ErrGone)
		}
		return 0, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, fmt.Errorf("cache download %s: %w", hash, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(resp.Body, c.cfg.MaxPackage+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrDownload, hash, err)
	}
	if n > c.cfg.MaxPackage {
		return 0, fmt.Errorf("%w: %s: more than %d bytes", ErrInvalidPackage, hash, c.cfg.MaxPackage)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != hash {
		return 0, fmt.Errorf("%w: asked for %s, got %s (%d bytes)", ErrHashMismatch, hash, got, n)
	}
	return n, nil
}

func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return n, err
}

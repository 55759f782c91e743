package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

type server struct {
	*httptest.Server
	hits  atomic.Int32
	mu    sync.Mutex
	blobs map[string][]byte
	gate  chan struct{} // when set, downloads wait for it
}

func newServer(t *testing.T) *server {
	s := &server{blobs: map[string][]byte{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "bad token", http.StatusUnauthorized)
			return
		}
		if s.gate != nil {
			<-s.gate
		}
		s.mu.Lock()
		b, ok := s.blobs[filepath.Base(r.URL.Path)]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

// add stores a package of n cases of size bytes each and returns its hash.
func (s *server) add(t *testing.T, tag string, size int) string {
	t.Helper()
	b, _, err := testpkg.Build([]testpkg.Case{{In: []byte(tag + strings.Repeat("x", size)), Ans: []byte(tag)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	h := hex.EncodeToString(sum[:])
	s.mu.Lock()
	s.blobs[h] = b
	s.mu.Unlock()
	return h
}

func newCache(t *testing.T, s *server, dir string, max int64) *Cache {
	t.Helper()
	c, err := New(Config{Dir: dir, MaxBytes: max, Token: "tok", URLFor: func(h string) string { return s.URL + "/api/judge/testdata/" + h }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConcurrentGetsDownloadOnce(t *testing.T) {
	s := newServer(t)
	h := s.add(t, "a", 100)
	c := newCache(t, s, t.TempDir(), 0)
	s.gate = make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			e, err := c.Get(context.Background(), 1, h, "")
			if err != nil {
				errs <- err
				return
			}
			b, err := os.ReadFile(filepath.Join(e.Dir(), "1.ans"))
			if err != nil || string(b) != "a" {
				errs <- errors.New("wrong content")
			}
			e.Release()
		})
	}
	time.Sleep(50 * time.Millisecond)
	close(s.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := s.hits.Load(); n != 1 {
		t.Fatalf("%d downloads, want 1", n)
	}
}

func TestHashMismatchAndErrors(t *testing.T) {
	s := newServer(t)
	h := s.add(t, "a", 10)
	other := strings.Repeat("ab", 32)
	s.mu.Lock()
	s.blobs[other] = s.blobs[h] // served under the wrong name
	s.mu.Unlock()
	c := newCache(t, s, t.TempDir(), 0)
	ctx := context.Background()
	if _, err := c.Get(ctx, 1, other, ""); !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("wrong bytes: %v", err)
	}
	if _, err := c.Get(ctx, 1, "nothex", ""); !errors.Is(err, ErrBadHash) {
		t.Fatalf("bad hash: %v", err)
	}
	// Not known to the web node (404): gone, and a download error.
	if _, err := c.Get(ctx, 1, strings.Repeat("cd", 32), ""); !errors.Is(err, ErrDownload) || !errors.Is(err, ErrGone) || !strings.Contains(err.Error(), "404") {
		t.Fatalf("missing: %v", err)
	}
	c.cfg.Token = "wrong"
	if _, err := c.Get(ctx, 1, h, ""); !errors.Is(err, ErrDownload) || errors.Is(err, ErrGone) || !strings.Contains(err.Error(), "401") {
		t.Fatalf("bad token: %v", err)
	}
	// A URL given with the request wins over URLFor.
	c.cfg.Token = "tok"
	if _, err := c.Get(ctx, 1, h, s.URL+"/elsewhere/"+strings.Repeat("0", 64)); !errors.Is(err, ErrDownload) {
		t.Fatalf("explicit URL not used: %v", err)
	}
	if len(c.Hashes()) != 0 {
		t.Fatalf("failed downloads left %v", c.Hashes())
	}
	ents, _ := os.ReadDir(c.cfg.Dir)
	if len(ents) != 0 {
		t.Fatalf("failed downloads left files: %v", ents)
	}
}

func TestLRUBoundAndPinning(t *testing.T) {
	s := newServer(t)
	a, b, d := s.add(t, "a", 4000), s.add(t, "b", 4000), s.add(t, "d", 4000)
	c := newCache(t, s, t.TempDir(), 9000) // room for two
	ctx := context.Background()
	ea, err := c.Get(ctx, 1, a, "")
	if err != nil {
		t.Fatal(err)
	}
	eb, _ := c.Get(ctx, 2, b, "")
	eb.Release()
	ed, _ := c.Get(ctx, 3, d, "") // over the bound: b (unpinned, oldest unpinned) goes, a is pinned
	ed.Release()
	got := strings.Join(c.Hashes(), ",")
	if got != d+","+a {
		t.Fatalf("hashes = %v, want d,a", c.Hashes())
	}
	if c.Size() > 9000 {
		t.Fatalf("size %d over the bound", c.Size())
	}
	// a stays readable while pinned, even when evicted by the hub.
	if n := c.Evict(1, ""); n != 1 {
		t.Fatalf("evicted %d", n)
	}
	if _, err := os.Stat(filepath.Join(ea.Dir(), "1.in")); err != nil {
		t.Fatalf("pinned entry removed: %v", err)
	}
	ea.Release()
	if _, err := os.Stat(ea.dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("evicted entry still there after release: %v", err)
	}
	if got := c.Hashes(); len(got) != 1 || got[0] != d {
		t.Fatalf("hashes = %v", got)
	}
}

func TestRestartKeepsCompletePackages(t *testing.T) {
	s := newServer(t)
	h := s.add(t, "a", 10)
	dir := t.TempDir()
	c := newCache(t, s, dir, 0)
	if err := c.Prefetch(context.Background(), 5, h, ""); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, ".tmp-dead"), 0o755)
	os.MkdirAll(filepath.Join(dir, strings.Repeat("e", 64)), 0o755) // no meta: partial
	c2 := newCache(t, s, dir, 0)
	if got := c2.Hashes(); len(got) != 1 || got[0] != h {
		t.Fatalf("hashes after restart = %v", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("leftovers not removed: %v", ents)
	}
	e, err := c2.Get(context.Background(), 5, h, "")
	if err != nil || e.Manifest().Cases[0].In != "1.in" {
		t.Fatal(err)
	}
	e.Release()
	if s.hits.Load() != 1 {
		t.Fatalf("downloaded again after restart")
	}
	if c2.Evict(5, "") != 1 || len(c2.Hashes()) != 0 {
		t.Fatal("evict by problem after restart")
	}
}

func TestBuildOnce(t *testing.T) {
	s := newServer(t)
	h := s.add(t, "a", 10)
	c := newCache(t, s, t.TempDir(), 0)
	e, err := c.Get(context.Background(), 1, h, "")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Release()
	var builds atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			p, err := e.Build(context.Background(), "checker", func(ctx context.Context, dir string) (string, error) {
				builds.Add(1)
				return filepath.Join(dir, "bin"), nil
			})
			if err != nil || !strings.HasSuffix(p, "bin") {
				t.Error(p, err)
			}
		})
	}
	wg.Wait()
	if builds.Load() != 1 {
		t.Fatalf("%d builds", builds.Load())
	}
}

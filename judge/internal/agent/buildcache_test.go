package agent

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/judge/internal/lang"
)

func goLang() lang.Available {
	return lang.Available{Language: lang.Language{ID: "go", BuildCache: ".gocache"}, VersionText: "go version go1.26", CompileArgv0: "/usr/local/go/bin/go"}
}

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBuildCacheHarvestAndSeed(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("seeding gives files to the sandbox user: needs root")
	}
	root := t.TempDir()
	b := newBuildCache(filepath.Join(root, "kept"), 1000)
	l := goLang()
	if !b.enabled(l) || b.enabled(lang.Available{Language: lang.Language{ID: "c17"}}) {
		t.Fatal("enabled is wrong")
	}

	// A first compile's cache: entries, plus what a hostile compile could
	// plant: a symlink to a secret, a hard link, a fifo, a too-big file.
	work1 := filepath.Join(root, "work1")
	c1 := filepath.Join(work1, ".gocache")
	write(t, filepath.Join(c1, "ab", "ab12-a"), "action")
	write(t, filepath.Join(c1, "ab", "ab12-d"), "output")
	write(t, filepath.Join(c1, "README"), "cache")
	write(t, filepath.Join(root, "secret"), "s3cret")
	if err := os.Symlink(filepath.Join(root, "secret"), filepath.Join(c1, "ab", "link-d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(c1, "README"), filepath.Join(c1, "hard-d")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(c1, "fifo-d"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(c1, "cd", "big-d"), strings.Repeat("x", 2000))

	n, err := b.harvest(l, work1)
	if err != nil {
		t.Fatal(err)
	}
	kept := b.dir(l)
	if n != 2 { // README and hard-d have two links: skipped; so are the rest
		t.Errorf("harvested %d files, want 2 (ab12-a, ab12-d)", n)
	}
	for _, name := range []string{"ab/link-d", "hard-d", "README", "fifo-d", "cd/big-d"} {
		if _, err := os.Lstat(filepath.Join(kept, name)); err == nil {
			t.Errorf("kept %s", name)
		}
	}
	if st, err := os.Stat(kept); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("kept dir mode %v, %v: want 0700", st.Mode(), err)
	}

	// An entry is never replaced: content-addressed names.
	work2 := filepath.Join(root, "work2")
	write(t, filepath.Join(work2, ".gocache", "ab", "ab12-d"), "forged")
	write(t, filepath.Join(work2, ".gocache", "ef", "ef34-d"), "new")
	if n, err := b.harvest(l, work2); err != nil || n != 1 {
		t.Fatalf("second harvest added %d, %v; want 1", n, err)
	}
	if got, _ := os.ReadFile(filepath.Join(kept, "ab", "ab12-d")); string(got) != "output" {
		t.Errorf("an existing entry was replaced: %q", got)
	}

	// Seeding: a private copy owned by the sandbox user, fresh mtimes (Go
	// treats an entry untouched for an hour as one to refresh).
	old := time.Now().Add(-3 * time.Hour)
	_ = os.Chtimes(filepath.Join(kept, "ab", "ab12-a"), old, old)
	work3 := filepath.Join(root, "work3")
	if err := os.MkdirAll(work3, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := b.seed(l, work3, sandboxUID); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "ab", "ab/ab12-a", "ab/ab12-d", "ef/ef34-d"} {
		st, err := os.Stat(filepath.Join(work3, ".gocache", name))
		if err != nil {
			t.Fatalf("seeded %q: %v", name, err)
		}
		if uid := st.Sys().(*syscall.Stat_t).Uid; uid != sandboxUID {
			t.Errorf("seeded %q owned by %d", name, uid)
		}
		if !st.IsDir() && time.Since(st.ModTime()) > time.Minute {
			t.Errorf("seeded %q has an old mtime %v", name, st.ModTime())
		}
	}
	// The copy is independent of the kept cache.
	write(t, filepath.Join(work3, ".gocache", "ab", "ab12-a"), "changed by a compile")
	if got, _ := os.ReadFile(filepath.Join(kept, "ab", "ab12-a")); string(got) != "action" {
		t.Errorf("a compile's change reached the kept cache: %q", got)
	}

	// Seeding with nothing kept creates the empty directory.
	other := lang.Available{Language: lang.Language{ID: "go2", BuildCache: "c"}}
	if err := b.seed(other, work3, sandboxUID); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(work3, "c")); err != nil || !st.IsDir() {
		t.Errorf("empty seed: %v", err)
	}

	// The size bound: a fresh cache with room for one small file only.
	small := newBuildCache(filepath.Join(root, "small"), 8)
	if n, err := small.harvest(l, work1); err != nil || n != 1 {
		t.Errorf("bounded harvest added %d, %v; want 1", n, err)
	}
}

package agent

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/judge/internal/lang"
)

// configLang is a language added by configuration: Python whose compile
// step is the given script (run under the compile profile, in /w).
func configLang(t *testing.T, id, script string) lang.Available {
	t.Helper()
	for _, l := range testLangs {
		if l.ID == "py3" {
			l.ID = id
			l.Compile = []string{"python3", "-c", script}
			l.CompileProcs = 0
			return l
		}
	}
	t.Fatal("no py3 among the test languages")
	return lang.Available{}
}

// TestCompileStepCannotReadHostFiles (issue 16, findings 1 and 5): a
// compile step that runs submission-controlled code replaces every file
// the judge might read back from the work dir by a symlink to a root-only
// host file: the compile message never carries that file. Another leaves a
// directory chain deeper than PATH_MAX allows to name in the work dir:
// handing the work dir to root and cleaning it up still work (the
// submission is judged, the next one on the slot too).
func TestCompileStepCannotReadHostFiles(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "root-only")
	const secretText = "TOP-SECRET-host-file-16"
	if err := os.WriteFile(secret, []byte(secretText+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Swap the stdout file the judge gave the compiler, wherever the
	// compiler can reach it, and any name the judge might read.
	swap := `import os, sys
for name in ['.compiler-stdout', 'compiler-stdout', 'compile.log', 'stdout', 'output']:
    try:
        os.unlink(name)
    except OSError:
        pass
    os.symlink(` + "'" + secret + "'" + `, name)
sys.stderr.write('syntax error near line 1\n')
sys.exit(1)
`
	deep := `import os
for i in range(3000):
    os.mkdir('d')
    os.chdir('d')
open('leaf', 'w').write('x')
`
	h := newFakeHub(t)
	hash := h.addPackage(aplusb())
	evil, chain := configLang(t, "pysyntax", swap), configLang(t, "pydeep", deep)
	startAgent(t, h, "", func(c *Config) {
		c.Languages = append(append([]lang.Available(nil), testLangs...), evil, chain)
		c.MaxParallel = 1 // one slot: the next task reuses the work dir
	})
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)

	src := "a,b=map(int,input().split())\nprint(a+b)\n"
	ce := mkTask(1, hash, "pysyntax", src)
	d1, d2 := mkTask(1, hash, "pydeep", src), mkTask(1, hash, "pydeep", src)
	after := mkTask(1, hash, "py3", src)
	for _, tk := range []protocol.Task{ce, d1, d2, after} {
		h.send(protocol.TypeTask, tk)
	}
	r := c.result(ce.TaskRef, 60*time.Second)
	if r.Verdict != protocol.VerdictCE || !strings.Contains(r.CompileMessage, "syntax error near line 1") {
		t.Errorf("compile step: %s %q, want CE with its stderr", r.Verdict, r.CompileMessage)
	}
	if strings.Contains(r.CompileMessage, secretText) {
		t.Fatalf("the compile message carries a root-only host file: %q", r.CompileMessage)
	}
	for _, tk := range []protocol.Task{d1, d2, after} {
		if r := c.result(tk.TaskRef, 60*time.Second); r.Verdict != protocol.VerdictAC {
			t.Errorf("%s after a deep directory chain in the work dir: %s %q", tk.Language, r.Verdict, r.CompileMessage)
		}
	}
}

// TestBuildCacheNotShared (issue 16, finding 2): what one Go submission's
// compile puts in its build cache never reaches another submission. The
// second embeds the whole build cache it was given (//go:embed) and looks
// for a string only the first one's compiled package holds.
func TestBuildCacheNotShared(t *testing.T) {
	h := newFakeHub(t)
	hash := h.addPackage(aplusb())
	ra := startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)

	const marker = "LEAKMARK-5e1f0c-first-submission"
	first := mkTask(1, hash, "go", `package main

import "fmt"

var Marker = "`+marker+`"

func main() {
	var a, b int64
	fmt.Scan(&a, &b)
	if a < -1000000 {
		fmt.Println(Marker)
	}
	fmt.Println(a + b)
}
`)
	h.send(protocol.TypeTask, first)
	if r := c.result(first.TaskRef, 180*time.Second); r.Verdict != protocol.VerdictAC {
		t.Fatalf("first: %s %q", r.Verdict, r.CompileMessage)
	}
	// The marker is split so that this source does not hold it.
	half := len(marker) / 2
	second := mkTask(1, hash, "go", `package main

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
)

//go:embed all:.gocache
var cache embed.FS

func main() {
	want := "`+marker[:half]+`" + "`+marker[half:]+`"
	leak := false
	fs.WalkDir(cache, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := cache.ReadFile(p); err == nil && strings.Contains(string(b), want) {
				leak = true
			}
		}
		return nil
	})
	var a, b int64
	fmt.Scan(&a, &b)
	if leak {
		fmt.Println("LEAK")
		return
	}
	fmt.Println(a + b)
}
`, func(t *protocol.Task) { t.Limits.MemoryKiB = 1 << 20; t.Limits.TimeMs = 5000 })
	h.send(protocol.TypeTask, second)
	r := c.result(second.TaskRef, 180*time.Second)
	if r.Verdict != protocol.VerdictAC {
		t.Errorf("second (embeds its build cache): %s %q %+v", r.Verdict, r.CompileMessage, r.Cases)
	}
	// The kept cache holds the judge's warm-up only: the standard
	// library, none of the submissions' packages.
	kept, _ := filepath.Glob(filepath.Join(ra.a.cfg.Dir, "buildcache", "go-*"))
	if len(kept) != 1 || dirSize(kept[0]) < 1<<20 {
		t.Fatalf("kept build cache %v: want the warmed standard library", kept)
	}
	_ = filepath.WalkDir(kept[0], func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(marker)) {
				t.Errorf("the kept build cache holds the first submission's package: %s", p)
			}
		}
		return nil
	})
}

// uidsRunning returns the uids in [base, base+n) that host processes run
// under right now.
func uidsRunning(base, n int) map[int]bool {
	out := map[int]bool{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" {
				if uid, err := strconv.Atoi(f[1]); err == nil && uid >= base && uid < base+n {
					out[uid] = true
				}
			}
		}
	}
	return out
}

// TestAgentPerSlotUIDs (issue 16, finding 3): two submissions judged at
// once run under the uids of their own slots, never the old shared 65534;
// one that holds its whole queued-signal quota does not make sigqueue
// fail in the other.
func TestAgentPerSlotUIDs(t *testing.T) {
	hog := `#include <cstdio>
#include <csignal>
#include <unistd.h>
int main(){ sigset_t s; sigemptyset(&s); sigaddset(&s, SIGRTMIN); sigprocmask(SIG_BLOCK, &s, 0);
	union sigval v = {0}; while (sigqueue(getpid(), SIGRTMIN, v) == 0) {}
	usleep(1200000); long a, b; if (scanf("%ld %ld", &a, &b) != 2) return 1; printf("%ld\n", a + b); }
`
	probe := `#include <cstdio>
#include <csignal>
#include <unistd.h>
int main(){ sigset_t s; sigemptyset(&s); sigaddset(&s, SIGRTMIN); sigprocmask(SIG_BLOCK, &s, 0);
	usleep(400000); union sigval v = {0}; int ok = 1;
	for (int i = 0; i < 10; i++) ok &= sigqueue(getpid(), SIGRTMIN, v) == 0;
	usleep(800000); long a, b; if (scanf("%ld %ld", &a, &b) != 2) return 1; printf("%ld\n", ok ? a + b : -1); }
`
	h := newFakeHub(t)
	hash := h.addPackage(aplusb())
	startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)

	stop := make(chan struct{})
	seen := make(chan bool, 1)
	go func() {
		both := false
		for {
			select {
			case <-stop:
				seen <- both
				return
			case <-time.After(5 * time.Millisecond):
			}
			both = both || len(uidsRunning(testUIDBase, 2)) == 2
		}
	}()
	hogT, probeT := mkTask(1, hash, "cpp17", hog), mkTask(1, hash, "cpp17", probe)
	h.send(protocol.TypeTask, hogT)
	h.send(protocol.TypeTask, probeT)
	rh, rp := c.result(hogT.TaskRef, 60*time.Second), c.result(probeT.TaskRef, 60*time.Second)
	close(stop)
	both := <-seen
	if rh.Verdict != protocol.VerdictAC {
		t.Errorf("hog: %s %+v", rh.Verdict, rh.Cases)
	}
	if rp.Verdict != protocol.VerdictAC {
		t.Errorf("probe beside a run holding its signal quota: %s %+v (sigqueue failed: the quota is shared)", rp.Verdict, rp.Cases)
	}
	if !both {
		t.Error("never saw both slots' uids at once: the runs did not overlap, or share a uid")
	}
}

//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// judgeCPU is this process's own CPU time (user + system, every thread;
// the container inits are children and not included).
func judgeCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapPeak samples the heap until stop is called, which returns the peak
// growth over the heap at the start.
func heapPeak() (stop func() int64) {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(done)
		<-finished
		return int64(peak.Load()) - int64(base.HeapAlloc)
	}
}

// TestOutputFloodCostsTheJudgeLittle (issue 16, finding 4): an endless
// stderr or stdout ends as an output limit at once, not at the wall
// limit, and the judge's own CPU and memory for the run stay small. Before,
// stderr past its cap was drained for the whole wall limit (seconds of the
// judge's system CPU for one run).
func TestOutputFloodCostsTheJudgeLittle(t *testing.T) {
	dir := workDir(t)
	bin := buildC(t, t.TempDir(), "flood", `#include <string.h>
#include <unistd.h>
#include <stdlib.h>
int main(int argc, char **argv){ static char b[1<<16]; memset(b, 'x', sizeof b); int fd = atoi(argv[1]);
for(;;) if (write(fd, b, sizeof b) < 0) return 3; }
`, true)
	if err := copyTo(bin, filepath.Join(dir, "flood")); err != nil {
		t.Fatal(err)
	}
	for _, fd := range []string{"2", "1"} {
		lim := Limits{CPU: 5 * time.Second, Wall: 6 * time.Second, Output: 8 << 20, Stderr: 64 << 10}
		stopHeap := heapPeak()
		cpu0 := judgeCPU(t)
		r, err := testSB.Run(context.Background(), Spec{Argv: []string{"./flood", fd}, Dir: dir, Limits: lim})
		judge := judgeCPU(t) - cpu0
		grew := stopHeap()
		if err != nil || r.Status != StatusOutputLimit {
			t.Fatalf("flood on fd %s: %v %s (wall %v), want output_limit", fd, err, r.Status, r.Wall)
		}
		// The flood writes Output bytes (8 MiB) and is killed: tens of
		// milliseconds for the judge; draining it for the 6 s wall limit
		// cost seconds. Generous for -race and a busy machine.
		if judge > emuScale()*1500*time.Millisecond {
			t.Errorf("flood on fd %s: the judge spent %v of its own CPU on one run", fd, judge)
		}
		if fd == "2" && (int64(len(r.Stderr)) != lim.Stderr || !r.StderrTruncated) {
			t.Errorf("stderr kept %d bytes (truncated %v), want the first %d", len(r.Stderr), r.StderrTruncated, lim.Stderr)
		}
		if fd == "1" && int64(len(r.Stdout)) != lim.Output {
			t.Errorf("stdout kept %d bytes, want %d", len(r.Stdout), lim.Output)
		}
		// What is kept plus reading buffers; the stdout result is a copy.
		if bound := 2*lim.Output + 8<<20; grew > bound {
			t.Errorf("flood on fd %s: judge heap grew by %d MiB", fd, grew>>20)
		}
		t.Logf("flood on fd %s: %s after %v wall, judge CPU %v, heap +%d KiB", fd, r.Status, r.Wall.Round(time.Millisecond), judge.Round(time.Millisecond), grew>>10)
	}
}

// TestDeepTmpChainCleanup (issue 16, finding 5): a run that leaves a
// directory chain as deep as /tmp's inode bound allows cannot make the
// per-run cleanup fail, even when the judge (and so the container init)
// has a low open-file limit; the next run in the same container finds /tmp
// empty.
func TestDeepTmpChainCleanup(t *testing.T) {
	sb := oneSlot(t)
	sb.mu.Lock()
	if sb.slots[0].c == nil {
		sb.mu.Unlock()
		t.Fatal("no prewarmed container")
	}
	initPid := sb.slots[0].c.cmd.Process.Pid
	sb.mu.Unlock()
	// The init's open-file limit, soft and hard (its Go runtime raised the
	// soft one to the hard one at start), far below the chain's depth.
	low := unix.Rlimit{Cur: 512, Max: 512}
	if err := unix.Prlimit(initPid, unix.RLIMIT_NOFILE, &low, nil); err != nil {
		t.Fatal(err)
	}
	dir := workDir(t)
	chain := buildC(t, t.TempDir(), "chain", `#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
int main(void){ if (chdir("/tmp")) return 2; int n = 0;
for (;;) { if (mkdir("d", 0700) || chdir("d")) break; n++; }
int fd = creat("leaf", 0600); printf("%d %d\n", n, fd >= 0); return 0; }
`, true)
	list := buildC(t, t.TempDir(), "list", `#include <stdio.h>
#include <dirent.h>
int main(void){ DIR *d = opendir("/tmp"); if (!d) return 2; int n = 0; struct dirent *e;
while ((e = readdir(d))) if (e->d_name[0] != '.') n++; printf("%d\n", n); return 0; }
`, true)
	for _, b := range []string{chain, list} {
		if err := copyTo(b, filepath.Join(dir, filepath.Base(b))); err != nil {
			t.Fatal(err)
		}
	}
	lim := Limits{CPU: 10 * time.Second, Wall: 30 * time.Second}
	for i := 0; i < 2; i++ {
		r, err := sb.Run(context.Background(), Spec{Argv: []string{"./chain"}, Dir: dir, Limits: lim})
		if err != nil || r.Status != StatusOK {
			t.Fatalf("deep chain run %d: %v %s %q", i, err, r.Status, r.Error)
		}
		var depth, leaf int
		if _, err := fmt.Sscan(r.Stdout, &depth, &leaf); err != nil || depth < 16000 {
			t.Fatalf("chain depth %q: want about 16383 levels", r.Stdout)
		}
		r, err = sb.Run(context.Background(), Spec{Argv: []string{"./list"}, Dir: dir})
		if err != nil || r.Status != StatusOK || strings.TrimSpace(r.Stdout) != "0" {
			t.Fatalf("after the chain, /tmp: %v %s %q %q", err, r.Status, r.Stdout, r.Error)
		}
	}
}

// TestCoreDumpsDisabled (issue 16, finding 8): every program runs with
// RLIMIT_CORE 1 byte (no core file; the kernel never starts a pipe core
// handler for a task whose limit is 1), cannot change it, can still lower
// other limits, and a crash is still reported by its signal.
func TestCoreDumpsDisabled(t *testing.T) {
	dir := workDir(t)
	bin := buildC(t, t.TempDir(), "core", `#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/resource.h>
int main(int argc, char **argv){ struct rlimit r; getrlimit(RLIMIT_CORE, &r);
struct rlimit z = {0, 0}; int set = setrlimit(RLIMIT_CORE, &z); int e = errno;
struct rlimit f = {1<<20, 1<<20}; int other = setrlimit(RLIMIT_FSIZE, &f);
printf("%llu %llu %d %d %d\n", (unsigned long long)r.rlim_cur, (unsigned long long)r.rlim_max, set, e, other);
fflush(stdout); if (argc > 1) abort(); return 0; }
`, true)
	if err := copyTo(bin, filepath.Join(dir, "core")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Profile{ProfileRun, ProfileCompile} {
		r, err := testSB.Run(context.Background(), Spec{Argv: []string{"./core"}, Dir: dir, Profile: p})
		want := "1 1 -1 1 0\n" // EPERM is 1
		if err != nil || r.Status != StatusOK || r.Stdout != want {
			t.Errorf("%s: %v %s %q, want %q", p, err, r.Status, r.Stdout, want)
		}
	}
	r, err := testSB.Run(context.Background(), Spec{Argv: []string{"./core", "abort"}, Dir: dir})
	if err != nil || r.Status != StatusRuntimeError || r.SignalName != "SIGABRT" {
		t.Errorf("abort: %v %s %s", err, r.Status, r.SignalName)
	}
	if _, err := os.Stat(filepath.Join(dir, "core")); err != nil {
		t.Fatal(err)
	}
}

// TestStdoutFileNotFollowed: the judge's stdout file is never opened
// through a symlink, nor as a fifo (a sandbox-writable directory may hold
// either).
func TestStdoutFileNotFollowed(t *testing.T) {
	dir := workDir(t)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "out")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	r, err := testSB.Run(context.Background(), Spec{Argv: []string{"/bin/true"}, Dir: dir, StdoutFile: link})
	if err == nil || r.Status != StatusSandboxError {
		t.Errorf("stdout file through a symlink: %v %s", err, r.Status)
	}
	if b, _ := os.ReadFile(secret); string(b) != "keep" {
		t.Errorf("the symlink's target was truncated: %q", b)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = testSB.Run(context.Background(), Spec{Argv: []string{"/bin/true"}, Dir: dir, StdoutFile: fifo})
	if err == nil || r.Status != StatusSandboxError {
		t.Errorf("stdout file a fifo: %v %s", err, r.Status)
	}
}

// TestSafeFS: the helpers the judge uses on sandbox-writable directories.
func TestSafeFS(t *testing.T) {
	root := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(root, "sub", "ok"), []byte("0123456789"), 0o644))
	must(os.Symlink(secret, filepath.Join(root, "link")))
	must(os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "dirlink")))
	must(os.Symlink("/proc/self/fd/0", filepath.Join(root, "magic")))
	must(unix.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	b, trunc, err := ReadFileBeneath(root, "sub/ok", 4)
	if err != nil || string(b) != "0123" || !trunc {
		t.Errorf("bounded read: %q %v %v", b, trunc, err)
	}
	if b, trunc, err := ReadFileBeneath(root, "sub/ok", 100); err != nil || string(b) != "0123456789" || trunc {
		t.Errorf("read: %q %v %v", b, trunc, err)
	}
	for _, name := range []string{"link", "dirlink/ok", "magic", "fifo", "sub", "../" + filepath.Base(root) + "/sub/ok", "/etc/passwd"} {
		b, _, err := ReadFileBeneath(root, name, 100)
		if err == nil || !errors.Is(err, ErrUnsafeFile) {
			t.Errorf("ReadFileBeneath(%q) = %q, %v: want ErrUnsafeFile", name, b, err)
		}
	}

	// A chain deeper than the open-file limit: removed and chowned with
	// two descriptors, never through a symlink.
	deep := filepath.Join(t.TempDir(), "deep")
	must(os.Mkdir(deep, 0o755))
	fd, err := unix.Open(deep, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	must(err)
	const depth = 3000 // > the limit set below; paths far past PATH_MAX
	for i := 0; i < depth; i++ {
		must(unix.Mkdirat(fd, "d", 0o755))
		if i == depth/2 {
			must(unix.Symlinkat(secret, fd, "s"))
			f, err := unix.Openat(fd, "f", unix.O_CREAT|unix.O_WRONLY, 0o644)
			must(err)
			unix.Close(f)
		}
		nfd, err := unix.Openat(fd, "d", unix.O_RDONLY|unix.O_DIRECTORY, 0)
		must(err)
		unix.Close(fd)
		fd = nfd
	}
	unix.Close(fd)
	var old unix.Rlimit
	must(unix.Getrlimit(unix.RLIMIT_NOFILE, &old))
	must(unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: 256, Max: old.Max}))
	chownErr := ChownTree(deep, testUID, testUID)
	var st syscall.Stat_t
	secretOwned := syscall.Stat(secret, &st) == nil && st.Uid == testUID
	rmErr := RemoveAll(deep)
	must(unix.Setrlimit(unix.RLIMIT_NOFILE, &old))
	if chownErr != nil {
		t.Errorf("ChownTree of a %d-deep chain: %v", depth, chownErr)
	}
	if secretOwned {
		t.Error("ChownTree followed a symlink")
	}
	if rmErr != nil {
		t.Errorf("RemoveAll of a %d-deep chain: %v", depth, rmErr)
	}
	if _, err := os.Lstat(deep); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("deep chain still there: %v", err)
	}
	if _, err := os.Stat(secret); err != nil {
		t.Errorf("RemoveAll reached a symlink's target: %v", err)
	}
	if err := RemoveAll(deep); err != nil {
		t.Errorf("RemoveAll of a missing path: %v", err)
	}
}

func copyTo(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}

//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// oneSlot is a sandbox with a single container, so consecutive runs share
// it (and its cgroup, when that can be reset).
func oneSlot(t *testing.T) *Sandbox {
	t.Helper()
	sb, err := New(Config{Slots: 1, CgroupParent: testCgroupParent, UIDBase: oneSlotUID, GIDBase: oneSlotUID,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sb.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return sb
}

// slotCgroup is the cgroup the idle container of a one-slot sandbox holds.
func slotCgroup(t *testing.T, sb *Sandbox) runCgroup {
	t.Helper()
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.slots[0].busy || sb.slots[0].c == nil {
		t.Fatal("no idle container in slot 0")
	}
	return sb.slots[0].c.cg
}

const (
	trivialSrc = `int main(void){ return 0; }`
	// touchSrc touches argv[1] MiB, page by page.
	touchSrc = `#include <stdlib.h>
int main(int argc, char **argv){ long n = atol(argv[1]) << 20; volatile char *p = malloc(n); if (!p) return 3;
	for (long i = 0; i < n; i += 4096) p[i] = 1; return p[n - 1]; }`
	exitSrc = `#include <stdlib.h>
int main(int argc, char **argv){ return atoi(argv[1]); }`
	// orphanSrc leaves a child that would run forever; the parent exits.
	orphanSrc = `#include <unistd.h>
int main(void){ if (fork() == 0) { for (;;) pause(); } return 0; }`
	// procsSrc prints how many processes it can see in /proc.
	procsSrc = `#include <dirent.h>
#include <stdio.h>
#include <ctype.h>
int main(void){ DIR *d = opendir("/proc"); struct dirent *e; int n = 0;
	while ((e = readdir(d))) if (isdigit((unsigned char)e->d_name[0])) n++;
	printf("%d\n", n); return 0; }`
	// writeSrc writes argv[2] KiB to the file argv[1].
	writeSrc = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv){ FILE *f = fopen(argv[1], "w"); if (!f) { perror(argv[1]); return 2; }
	static char b[1024]; memset(b, 'z', sizeof b); for (long i = 0; i < atol(argv[2]); i++) fwrite(b, 1, sizeof b, f);
	return fclose(f) == 0 ? 0 : 3; }`
	// negdentSrc looks up argv[1] names that do not exist: kernel
	// memory (negative dentries) charged to the cgroup after it exits.
	negdentSrc = `#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
int main(int argc, char **argv){ struct stat st; char p[64];
	for (long i = 0; i < atol(argv[1]); i++) { snprintf(p, sizeof p, "/w/missing-%ld", i); stat(p, &st); }
	return 0; }`
	// lsSrc prints the names in a directory, one per line.
	lsSrc = `#include <dirent.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv){ DIR *d = opendir(argv[1]); if (!d) { perror(argv[1]); return 2; } struct dirent *e;
	while ((e = readdir(d))) if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) printf("%s\n", e->d_name);
	return 0; }`
)

// TestReuseNothingCarriesOver: a container's cgroup is reused from run to
// run only through an exact reset. The memory peak, CPU time, OOM kills,
// processes and /tmp files of a run never show in the next one, and a
// run that leaves pages charged (a file it wrote) makes the next run use a
// fresh cgroup.
func TestReuseNothingCarriesOver(t *testing.T) {
	sb := oneSlot(t)
	// On v2 every run takes a fresh cgroup (memory.peak cannot be reset):
	// the same runs then check that the next one is measured as if by a
	// fresh container, and that it did get a fresh cgroup.
	v2 := sb.CgroupVersion() == "v2"
	dir := workDir(t)
	for name, src := range map[string]string{"trivial": trivialSrc, "touch": touchSrc, "exit": exitSrc, "burn": burnSrc,
		"orphan": orphanSrc, "procs": procsSrc, "write": writeSrc, "ls": lsSrc, "negdent": negdentSrc} {
		buildC(t, dir, name, src, true)
	}
	ctx := context.Background()
	run := func(lim Limits, argv ...string) Result {
		t.Helper()
		r, err := sb.Run(ctx, Spec{Argv: argv, Dir: dir, Limits: lim})
		if err != nil {
			t.Fatalf("%v: %v %+v", argv, err, r)
		}
		return r
	}
	want := func(r Result, st Status, what string) {
		t.Helper()
		if r.Status != st {
			t.Fatalf("%s: status %s (exit %d, signal %s, %s), want %s", what, r.Status, r.ExitCode, r.SignalName, r.Error, st)
		}
	}
	lim := Limits{Memory: 256 << 20}

	// A fresh cgroup's figures for the trivial program.
	fresh := run(lim, "./trivial")
	want(fresh, StatusOK, "trivial in a fresh cgroup")
	slack := int64(memcgChargeBatch*os.Getpagesize()) * int64(runtime.NumCPU())
	if !v2 {
		slack = sb.cg.(*v1Driver).slack
	}
	// settle waits until what a big run leaves to the kernel to free after
	// a grace period (its page tables) is gone: until then the cgroup is
	// (rightly) not reset but replaced, and this test is about the reset.
	// Kernel memory (dentries, inodes) a run leaves charged stays until
	// the kernel reclaims it; the test drops those caches instead of
	// waiting for memory pressure.
	settle := func() {
		t.Helper()
		if v2 {
			return // the next run's cgroup is a fresh one
		}
		v1 := slotCgroup(t, sb).(*v1Run)
		dropped := false
		for end := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			u, err := v1.readInt(v1MemUsage)
			if err != nil {
				t.Fatal(err)
			}
			k := int64(0)
			if v1.fd[v1MemKmem] >= 0 {
				if k, err = v1.readInt(v1MemKmem); err != nil {
					t.Fatal(err)
				}
			}
			if u <= slack && k <= v1KmemSlack {
				return
			}
			if k > v1KmemSlack && !dropped {
				if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("2"), 0); err != nil {
					t.Fatalf("drop the dentry and inode caches: %v", err)
				}
				dropped = true
			}
			if time.Now().After(end) {
				t.Fatalf("memory usage of an empty cgroup stays at %d bytes (kernel memory %d)", u, k)
			}
		}
	}
	// runReused runs argv after an exact reset of the container's cgroup
	// (a test of the reset needs one), and fails if it was replaced.
	runReused := func(lim Limits, argv ...string) Result {
		t.Helper()
		settle()
		before := slotCgroup(t, sb)
		r := run(lim, argv...)
		switch after := slotCgroup(t, sb); {
		case v2 && after == before:
			t.Fatalf("%v: a v2 cgroup was used twice", argv)
		case !v2 && after != before:
			t.Fatalf("%v: the container took a fresh cgroup; this step is meant to test the reset", argv)
		}
		return r
	}
	smallPeak := func(r Result, what string) {
		t.Helper()
		if got, max := r.MemoryKB<<10, fresh.MemoryKB<<10+slack; got > max {
			t.Errorf("%s: memory peak %d KiB, a fresh cgroup shows %d KiB (+ charge caches %d KiB at most)", what, r.MemoryKB, fresh.MemoryKB, slack>>10)
		}
	}

	// Memory peak.
	r := run(lim, "./touch", "100")
	want(r, StatusOK, "touch 100 MiB")
	// A polled peak (a v2 kernel before 5.19) misses what a program
	// touches in its last sampling interval before it exits (touch exits
	// at once): 8 MiB of slack, as TestPolledMemoryPeak allows.
	minTouch := int64(100 << 10)
	if m := sb.MemoryPeakMethod(); m == PeakV2Polled || m == PeakV1Polled {
		minTouch -= 8 << 10
	}
	if r.MemoryKB < minTouch {
		t.Fatalf("touch 100 MiB: peak %d KiB", r.MemoryKB)
	}
	r = runReused(lim, "./trivial")
	want(r, StatusOK, "trivial after 100 MiB")
	smallPeak(r, "trivial after 100 MiB")

	// CPU time.
	r = run(Limits{CPU: 2 * time.Second}, "./burn", "300")
	want(r, StatusOK, "burn 300 ms")
	if !withinCPU(r.CPU, 300*time.Millisecond) {
		t.Fatalf("burn 300 ms: cpu %v", r.CPU)
	}
	r = runReused(lim, "./trivial")
	if r.CPU > fresh.CPU+10*time.Millisecond+emuSlack() {
		t.Errorf("trivial after burning 300 ms: cpu %v (a fresh cgroup: %v)", r.CPU, fresh.CPU)
	}

	// An OOM kill is this run's only.
	r = run(Limits{Memory: 32 << 20}, "./touch", "48")
	want(r, StatusMemoryLimit, "touch 48 MiB under 32 MiB")
	r = runReused(Limits{Memory: 32 << 20}, "./exit", "3")
	want(r, StatusRuntimeError, "exit 3 after an OOM kill")
	smallPeak(r, "exit 3 after an OOM kill")

	// Kernel memory a run leaves charged (memory.stat has no slab line on
	// v1) would show in the next run's peak: a cgroup with more than
	// v1KmemSlack of it left is replaced, not reset. 300 missing names
	// leave ~170 KiB of negative dentries. (On a 2-CPU machine the usage
	// slack often catches it too; with many CPUs only the kernel-memory
	// check does: TestV1Reusable covers that decision.)
	settle()
	want(run(lim, "./negdent", "300"), StatusOK, "300 missing names")
	used := slotCgroup(t, sb)
	if v2 {
		t.Logf("v2: kernel memory goes with the cgroup (never reused)")
	} else if k, err := used.(*v1Run).readInt(v1MemKmem); err == nil && k > v1KmemSlack {
		r = run(lim, "./trivial")
		want(r, StatusOK, "trivial after 1000 negative dentries")
		if slotCgroup(t, sb) == used {
			t.Errorf("a cgroup with %d KiB of kernel memory left charged was reused", k>>10)
		}
	} else {
		t.Logf("kernel memory not accounted or already freed (%v): the check is not exercised", err)
	}

	// Processes: an orphan is killed with its run.
	want(run(Limits{Procs: 4}, "./orphan"), StatusOK, "orphan")
	r = runReused(lim, "./procs")
	want(r, StatusOK, "procs after an orphan")
	if strings.TrimSpace(r.Stdout) != "1" {
		t.Errorf("after a run that left an orphan, the next run sees %q processes, want 1 (itself)", r.Stdout)
	}

	// /tmp is emptied after every run.
	want(run(lim, "./write", "/tmp/left-behind", "64"), StatusOK, "write /tmp")
	r = run(lim, "./ls", "/tmp")
	want(r, StatusOK, "ls /tmp")
	if r.Stdout != "" {
		t.Errorf("/tmp after a run that wrote there: %q, want empty", r.Stdout)
	}

	// Pages left charged (a 4 MiB file in /w stays in the page cache):
	// the next run gets a fresh cgroup, whose peak is small again.
	want(run(lim, "./write", "/w/big", "4096"), StatusOK, "write 4 MiB to /w")
	cg := slotCgroup(t, sb)
	r = run(lim, "./trivial")
	want(r, StatusOK, "trivial after writing a file")
	if slotCgroup(t, sb) == cg {
		t.Errorf("a cgroup with a file's pages charged to it was reused")
	}
	smallPeak(r, "trivial after writing a file")
}

// TestWorkDirSwitch: one container, runs alternating between work dirs,
// each sees its own directory at /w and writes go to the right one.
func TestWorkDirSwitch(t *testing.T) {
	sb := oneSlot(t)
	tools := workDir(t)
	buildC(t, tools, "ls", lsSrc, true)
	buildC(t, tools, "write", writeSrc, true)
	dirs := []string{workDir(t), workDir(t)}
	for i, d := range dirs {
		for _, f := range []string{"ls", "write"} {
			b, err := os.ReadFile(filepath.Join(tools, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, f), b, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("marker-%d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for step, i := range []int{0, 0, 1, 0, 1, 1} {
		out := fmt.Sprintf("out-%d", step)
		r, err := sb.Run(context.Background(), Spec{Argv: []string{"./write", out, "1"}, Dir: dirs[i]})
		if err != nil || r.Status != StatusOK {
			t.Fatalf("step %d: write in dir %d: %v %+v", step, i, err, r)
		}
		if _, err := os.Stat(filepath.Join(dirs[i], out)); err != nil {
			t.Errorf("step %d: the file written at /w is not in dir %d: %v", step, i, err)
		}
		r, err = sb.Run(context.Background(), Spec{Argv: []string{"./ls", "/w"}, Dir: dirs[i]})
		if err != nil || r.Status != StatusOK {
			t.Fatalf("step %d: ls in dir %d: %v %+v", step, i, err, r)
		}
		mine, other := fmt.Sprintf("marker-%d", i), fmt.Sprintf("marker-%d", 1-i)
		if !strings.Contains(r.Stdout, mine) || strings.Contains(r.Stdout, other) {
			t.Errorf("step %d: /w of a run in dir %d lists %q", step, i, r.Stdout)
		}
	}
}

// TestProgramCredentials: the program has no capability in any set, no
// way to gain one, no supplementary group, and its seccomp filter.
func TestProgramCredentials(t *testing.T) {
	dir := workDir(t)
	buildC(t, dir, "status", `#include <stdio.h>
#include <string.h>
int main(void){ FILE *f = fopen("/proc/self/status", "r"); char l[256];
	while (fgets(l, sizeof l, f)) if (!strncmp(l, "Cap", 3) || !strncmp(l, "NoNewPrivs", 10) || !strncmp(l, "Seccomp:", 8) ||
		!strncmp(l, "Uid", 3) || !strncmp(l, "Gid", 3) || !strncmp(l, "Groups", 6)) fputs(l, stdout);
	return 0; }`, true)
	for _, p := range []Profile{ProfileRun, ProfileCompile} {
		r, err := testSB.Run(context.Background(), Spec{Argv: []string{"./status"}, Dir: dir, Profile: p})
		if err != nil || r.Status != StatusOK {
			t.Fatalf("%s: %v %+v", p, err, r)
		}
		got := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			k, v, _ := strings.Cut(l, ":")
			got[k] = strings.Join(strings.Fields(v), " ")
		}
		if r.UID != testUID+r.Slot {
			t.Errorf("%s: result uid %d slot %d, want uid %d", p, r.UID, r.Slot, testUID+r.Slot)
		}
		ids := fmt.Sprintf("%d %d %d %d", r.UID, r.UID, r.UID, r.UID)
		for k, v := range map[string]string{"CapInh": "0000000000000000", "CapPrm": "0000000000000000", "CapEff": "0000000000000000",
			"CapBnd": "0000000000000000", "CapAmb": "0000000000000000", "NoNewPrivs": "1", "Seccomp": "2",
			"Uid": ids, "Gid": ids, "Groups": ""} {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", p, k, got[k], v)
			}
		}
	}
}

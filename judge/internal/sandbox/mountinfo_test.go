//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mountsSrc prints everything a run can list of its mounts and where its
// descriptors and directories resolve to.
const mountsSrc = `#include <stdio.h>
#include <unistd.h>
static void cat(const char *p){ char b[65536]; FILE *f = fopen(p, "r"); if (!f) { printf("== %s\nmissing\n", p); return; }
	size_t n = fread(b, 1, sizeof b - 1, f); b[n] = 0; printf("== %s\n%s", p, b); fclose(f); }
static void lnk(const char *p){ char l[4096]; ssize_t n = readlink(p, l, sizeof l - 1); l[n < 0 ? 0 : n] = 0; printf("%s -> %s\n", p, l); }
int main(void){
	lnk("/proc/self/fd/0"); lnk("/proc/self/fd/1"); lnk("/proc/self/fd/2"); lnk("/proc/self/cwd"); lnk("/proc/self/exe"); lnk("/proc/self/root");
	cat("/proc/self/mountinfo"); cat("/proc/self/mounts"); cat("/proc/self/mountstats"); cat("/proc/1/mountinfo");
	return 0; }`

// TestHostileMountinfo (issue 16, finding 7, the work dir): nothing a run
// can list of its mounts (mountinfo's root and mount point fields,
// mounts, mountstats) or resolve its descriptors to names a host path:
// the work dir (a MakeWorkDir tmpfs) is the root of its file system, the
// test input and output files are detached, and every other mount is a
// file system of the sandbox's own or a bind at the host path it shows.
// The work dir's tmpfs counts what a run writes there against its memory
// limit and its own size, and RemoveAll takes it away whatever the run
// left in it.
func TestHostileMountinfo(t *testing.T) {
	ctx := context.Background()
	repo := checkout(t)
	base := t.TempDir()
	dir := filepath.Join(base, "host-secret-work")
	slot := 0
	uid, gid := testSB.SlotUser(slot)
	if err := MakeWorkDir(dir, uid, gid, WorkDirLimits{Bytes: 64 << 20}); err != nil {
		t.Fatal(err)
	}
	removed := false
	t.Cleanup(func() {
		if !removed {
			_ = RemoveAll(dir)
		}
	})
	buildC(t, dir, "mounts", mountsSrc, true)
	buildC(t, dir, "write", writeSrc, true)
	in := filepath.Join(base, "host-secret-in")
	if err := os.WriteFile(in, []byte("1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The mount points a run may see, and for each the root it may show
	// besides "/" (a bind shows the path it binds, which is its mount
	// point; a /proc mask the file's name on the masks' tmpfs).
	allowed := map[string]bool{"/": true, "/dev": true, "/tmp": true, "/proc": true, "/.proc": true, "/w": true}
	for _, b := range testSB.cfg.Binds {
		allowed[filepath.Clean(b)] = true
	}
	for _, e := range testSB.cfg.EtcFiles {
		allowed[filepath.Join("/etc", e)] = true
	}
	for _, m := range []string{"meminfo", "cpuinfo", "cmdline", "loadavg", "uptime"} {
		allowed["/proc/"+m] = true
	}
	for _, p := range []Profile{ProfileRun, ProfileCompile} {
		r, err := testSB.Run(ctx, Spec{Argv: []string{"./mounts"}, Dir: dir, StdinFile: in, StdoutFile: filepath.Join(base, "host-secret-out"),
			Profile: p, Slot: &slot})
		if err != nil || r.Status != StatusOK {
			t.Fatalf("%s: %v %+v", p, err, r)
		}
		b, _, err := ReadFileBeneath(base, "host-secret-out", 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		got := string(b) + r.Stderr
		for _, host := range []string{base, repo, "/tmp/", "host-secret", "/work/", "/var/"} {
			if strings.Contains(got, host) {
				t.Errorf("%s: the run sees the host path %q:\n%s", p, host, got)
			}
		}
		mi := section(got, "/proc/self/mountinfo")
		var w bool
		for _, l := range strings.Split(strings.TrimSpace(mi), "\n") {
			f := strings.Fields(l)
			if len(f) < 10 {
				t.Errorf("%s: mountinfo line %q", p, l)
				continue
			}
			root, point := f[3], f[4]
			if !allowed[point] || (root != "/" && root != point && root != "/"+filepath.Base(point)) {
				t.Errorf("%s: mount %q at %q", p, root, point)
			}
			if point == "/w" {
				w = true
				if root != "/" || !strings.Contains(l, " - tmpfs "+workDirSource+" ") {
					t.Errorf("%s: the work dir is not a tmpfs root of its own: %q", p, l)
				}
			}
		}
		if !w {
			t.Errorf("%s: no /w in mountinfo:\n%s", p, mi)
		}
		if !strings.Contains(got, "/proc/self/cwd -> /w\n") || !strings.Contains(got, "/proc/self/fd/0 -> /\n") || !strings.Contains(got, "/proc/self/fd/1 -> /\n") {
			t.Errorf("%s: descriptors and cwd resolve to\n%s", p, got[:strings.Index(got, "== ")])
		}
	}

	// What a run writes in /w is memory of its own: within the tmpfs's
	// size, over its memory limit an OOM kill; past the size ENOSPC.
	// (CPU to spare: under emulation writing 96 MiB took more than 1 s.)
	cpu := time.Second * emuScale()
	r, err := testSB.Run(ctx, Spec{Argv: []string{"./write", "/w/big", "49152"}, Dir: dir, Slot: &slot, Limits: Limits{Memory: 32 << 20, CPU: cpu}})
	t.Logf("48 MiB to /w under 32 MiB: %s, peak %d KiB", r.Status, r.MemoryKB)
	if err != nil || r.Status != StatusMemoryLimit || r.MemoryKB < 30<<10 {
		t.Errorf("48 MiB written to /w under 32 MiB of memory: %v %s, peak %d KiB, want a memory limit", err, r.Status, r.MemoryKB)
	}
	r, err = testSB.Run(ctx, Spec{Argv: []string{"./write", "/w/big", "98304"}, Dir: dir, Slot: &slot, Limits: Limits{Memory: 256 << 20, CPU: cpu}})
	t.Logf("96 MiB to a 64 MiB /w: %s exit %d, peak %d KiB", r.Status, r.ExitCode, r.MemoryKB)
	if err != nil || r.Status != StatusRuntimeError || r.MemoryKB < 60<<10 {
		t.Errorf("96 MiB written to a 64 MiB /w: %v %s exit %d, peak %d KiB, want a failed write (exit 3)", err, r.Status, r.ExitCode, r.MemoryKB)
	}
	if r.ExitCode != 3 {
		t.Errorf("96 MiB written to a 64 MiB /w: exit %d, want 3 (fclose fails: ENOSPC)", r.ExitCode)
	}

	// Cleanup: a symlink to a host file and a deep chain left in /w; the
	// work dir goes (unmounted), the host file stays.
	victim := filepath.Join(base, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "escape")); err != nil {
		t.Fatal(err)
	}
	deep := dir
	for i := 0; i < 300; i++ {
		deep = filepath.Join(deep, "d")
	}
	if err := os.MkdirAll(deep, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		t.Fatal(err)
	}
	removed = true
	if err := RemoveAll(dir); err != nil {
		t.Fatalf("remove the work dir: %v", err)
	}
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("work dir still there after RemoveAll: %v", err)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep" {
		t.Errorf("host file behind a symlink in /w: %q %v", b, err)
	}
	self, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(self), dir) {
		t.Errorf("work dir still mounted after RemoveAll")
	}
}

// checkout is the module's directory: above the working directory (go
// test), else above the test binary (the cgroup v2 VM runs it from /tmp,
// the binary built under the checkout's var/), else the binary's dir.
func checkout(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{wd, filepath.Dir(exe)} {
		for ; dir != "/" && dir != "."; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return dir
			}
		}
	}
	// No checkout above either (the cgroup v2 VM test runs the test
	// binary from its build dir with the host's /tmp hidden): the test
	// binary's own dir is the host path the run must not see.
	return filepath.Dir(exe)
}

//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCompileProfileAllowList (issue 16, finding 6): under the compile
// profile a call newer than the profile (the kernel has it) fails with
// ENOSYS, a number nobody knows too, and modify_ldt is forbidden.
func TestCompileProfileAllowList(t *testing.T) {
	// The kernel has mseal (462): on the host it is not ENOSYS.
	if _, _, e := unix.Syscall(462, 0, 0, 0); e == unix.ENOSYS {
		t.Fatalf("this kernel has no mseal (462): %v", e)
	}
	dir := workDir(t)
	buildC(t, dir, "newer", `#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
int main(void){ long nrs[] = {451, 457, 458, 462, 467, 600};
	for (int i = 0; i < 6; i++) { long r = syscall(nrs[i], 0, 0, 0, 0, 0);
		printf("%ld=%s\n", nrs[i], r < 0 ? strerrorname_np(errno) : "ok"); }
	return 0; }`, true)
	r, err := testSB.Run(context.Background(), Spec{Argv: []string{"./newer"}, Dir: dir, Profile: ProfileCompile})
	if err != nil || r.Status != StatusOK {
		t.Fatalf("%v %+v", err, r)
	}
	if got, want := strings.TrimSpace(r.Stdout), "451=ENOSYS\n457=ENOSYS\n458=ENOSYS\n462=ENOSYS\n467=ENOSYS\n600=ENOSYS"; got != want {
		t.Errorf("calls unknown to the compile profile:\n%s\nwant\n%s", got, want)
	}
	buildC(t, dir, "ldt", `#include <unistd.h>
#include <sys/syscall.h>
int main(void){ char buf[16]; syscall(SYS_modify_ldt, 0, buf, sizeof buf); return 0; }`, true)
	r, err = testSB.Run(context.Background(), Spec{Argv: []string{"./ldt"}, Dir: dir, Profile: ProfileCompile})
	if err != nil || r.Status != StatusForbiddenSyscall || r.Syscall != "modify_ldt" {
		t.Errorf("modify_ldt under compile: %v %s %q", err, r.Status, r.Syscall)
	}
}

// TestNoHostFacts (issue 16, finding 7): /proc/self/cgroup names no run
// cgroup (which carries the judge's pid), stdin and a stdout file resolve
// to no host path, /proc/cmdline and /proc/loadavg are neutral, and no
// mount lists the host path of the input.
func TestNoHostFacts(t *testing.T) {
	dir := workDir(t)
	buildC(t, dir, "facts", `#include <stdio.h>
#include <unistd.h>
static void cat(const char *p){ char b[8192]; FILE *f = fopen(p, "r"); if (!f) { printf("%s: missing\n", p); return; }
	size_t n = fread(b, 1, sizeof b - 1, f); b[n] = 0; printf("== %s\n%s", p, b); fclose(f); }
int main(void){ char l[4096]; ssize_t n;
	n = readlink("/proc/self/fd/0", l, sizeof l - 1); l[n < 0 ? 0 : n] = 0; printf("stdin -> %s\n", l);
	n = readlink("/proc/self/fd/1", l, sizeof l - 1); l[n < 0 ? 0 : n] = 0; fprintf(stderr, "stdout -> %s\n", l);
	cat("/proc/self/cgroup"); cat("/proc/cmdline"); cat("/proc/loadavg"); cat("/proc/self/mountinfo");
	return 0; }`, true)
	inDir := filepath.Join(t.TempDir(), "host-secret-input-dir")
	if err := os.Mkdir(inDir, 0o755); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(inDir, "7.in")
	if err := os.WriteFile(in, []byte("1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(t.TempDir(), "host-secret-output-dir")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(outDir, "out")
	for _, p := range []Profile{ProfileRun, ProfileCompile} {
		r, err := testSB.Run(context.Background(), Spec{Argv: []string{"./facts"}, Dir: dir, StdinFile: in, StdoutFile: out, Profile: p})
		if err != nil || r.Status != StatusOK {
			t.Fatalf("%s: %v %+v", p, err, r)
		}
		b, _, err := ReadFileBeneath(outDir, "out", 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		got := string(b)
		if !strings.Contains(got, "stdin -> /\n") || strings.TrimSpace(r.Stderr) != "stdout -> /" {
			t.Errorf("%s: stdio resolves to a host path: %q %q", p, got[:strings.Index(got, "\n")], r.Stderr)
		}
		cg := section(got, "/proc/self/cgroup")
		if strings.Contains(cg, "run-") || strings.Contains(cg, testCgroupParent) {
			t.Errorf("%s: /proc/self/cgroup names the run cgroup:\n%s", p, cg)
		}
		for _, l := range strings.Split(strings.TrimSpace(cg), "\n") {
			if !strings.HasSuffix(l, ":/") {
				t.Errorf("%s: /proc/self/cgroup line %q is not the namespace root", p, l)
			}
		}
		if c := section(got, "/proc/cmdline"); c != "verdict\n" {
			t.Errorf("%s: /proc/cmdline %q", p, c)
		}
		if c := section(got, "/proc/loadavg"); c != "0.00 0.00 0.00 1/1 1\n" {
			t.Errorf("%s: /proc/loadavg %q", p, c)
		}
		mi := section(got, "/proc/self/mountinfo")
		if strings.Contains(mi, "host-secret") || mi == "" {
			t.Errorf("%s: mountinfo shows the input or output path:\n%s", p, mi)
		}
	}
}

// section is the content printed after "== name\n" by the facts program.
func section(s, name string) string {
	_, rest, ok := strings.Cut(s, "== "+name+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n== "); i >= 0 {
		return rest[:i+1]
	}
	return rest
}

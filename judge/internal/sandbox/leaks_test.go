//go:build linux

package sandbox

import (
	"context"
	"fmt"
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
	// Where the kernel has mseal (462, Linux 6.10+; this CI host), its
	// ENOSYS below can only be the filter's. (An older kernel, as in the
	// cgroup v2 VM, answers ENOSYS itself; the filter must still let
	// nothing else through.)
	if _, _, e := unix.Syscall(462, 0, 0, 0); e == unix.ENOSYS {
		t.Logf("this kernel has no mseal (462): ENOSYS for it is the kernel's too")
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
	cat("/proc/meminfo"); cat("/proc/uptime"); cat("/proc/cpuinfo");
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
	hostCPU, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []Profile{ProfileRun, ProfileCompile, ProfileRun} {
		mem := []int64{256 << 20, 512 << 20, 64 << 20}[i]
		r, err := testSB.Run(context.Background(), Spec{Argv: []string{"./facts"}, Dir: dir, StdinFile: in, StdoutFile: out, Profile: p, Limits: Limits{Memory: mem}})
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
		// meminfo: the run's own limit, no swap, whatever the host has.
		wantMem := fmt.Sprintf("MemTotal:       %8d kB\n", mem>>10)
		if m := section(got, "/proc/meminfo"); !strings.HasPrefix(m, wantMem) || !strings.Contains(m, "SwapTotal:             0 kB\n") {
			t.Errorf("%s, limit %d MiB: /proc/meminfo\n%s\nwant it to start %q", p, mem>>20, m, wantMem)
		}
		if u := section(got, "/proc/uptime"); u != "0.00 0.00\n" {
			t.Errorf("%s: /proc/uptime %q", p, u)
		}
		ci := section(got, "/proc/cpuinfo")
		if !strings.Contains(ci, "processor") || !strings.Contains(ci, "flags") {
			t.Errorf("%s: /proc/cpuinfo lost what a CPU is:\n%s", p, ci)
		}
		for _, l := range strings.Split(ci, "\n") {
			k, _, _ := strings.Cut(l, ":")
			switch strings.TrimSpace(k) {
			case "cpu MHz", "bogomips", "microcode", "bugs", "apicid", "initial apicid", "physical id", "core id", "siblings", "cpu cores", "address sizes", "power management":
				t.Errorf("%s: /proc/cpuinfo shows the host's %q", p, l)
			}
		}
		if strings.Count(ci, "processor") != strings.Count(string(hostCPU), "processor") {
			t.Errorf("%s: /proc/cpuinfo lists %d processors, the host %d", p, strings.Count(ci, "processor"), strings.Count(string(hostCPU), "processor"))
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

func TestProcMasks(t *testing.T) {
	host := "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu MHz\t\t: 2994.372\nmodel name\t: AMD EPYC\nbogomips\t: 5988.74\nflags\t\t: fpu vme x2apic\nbugs\t\t: sysret_ss_attrs\napicid\t\t: 0\n\nprocessor\t: 1\nvendor_id\t: AuthenticAMD\nmicrocode\t: 0x1000065\nflags\t\t: fpu vme x2apic\n\n"
	want := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nflags\t\t: fpu vme x2apic\n\nprocessor\t: 1\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu vme x2apic\n\n"
	if got := maskCPUInfo(host); got != want {
		t.Errorf("maskCPUInfo =\n%q\nwant\n%q", got, want)
	}
	if got := maskCPUInfo(""); got != "" {
		t.Errorf("maskCPUInfo(\"\") = %q", got)
	}
	m := meminfoText(64 << 20)
	for _, l := range []string{"MemTotal:          65536 kB\n", "MemAvailable:      65536 kB\n", "SwapTotal:             0 kB\n"} {
		if !strings.Contains(m, l) {
			t.Errorf("meminfoText(64 MiB) has no line %q:\n%s", l, m)
		}
	}
}

//go:build linux && cgroup2vm

package vmtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/verdict-oj/verdict/judge/internal/sandbox/vmtest/plan"
)

// The cgroup parent of the delegation phase: a systemd service's cgroup.
const delegated = "system.slice/verdict-judge.service"

// The modules the VM needs from the kernel package (Debian builds them as
// modules): the 9p file system over virtio-pci.
var wantModules = []string{"virtio_pci", "9pnet_virtio", "9p"}

// The hostile suite and the timing burners, run again in the delegated
// and polled phases (the full suite runs once).
const hostileRun = "^(TestHostile|TestHostileMountinfo|TestCPUTiming|TestReuseNothingCarriesOver|TestPerSlotUIDs|TestNoHostFacts|TestPolledMemoryPeak)$"

func TestCgroup2VM(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the cgroup v2 VM test needs root (9p passthrough of the host's root, apt-get download)")
	}
	var missing []string
	for _, tool := range []string{"qemu-system-x86_64", "apt-get", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("the cgroup v2 VM test needs %v (make deps installs qemu-system-x86)", missing)
	}
	repo := repoRoot(t)
	cache := filepath.Join(repo, "var", "cache", "cgroup2-vm")
	// VERDICT_CGROUP2VM_KERNEL picks the kernel: "" the host's apt
	// sources' linux-image-amd64 (Debian 12: 6.1), or a suite of
	// kernelSuites (bullseye: Debian 11's 5.10, no memory.peak).
	suite := os.Getenv("VERDICT_CGROUP2VM_KERNEL")
	if _, ok := kernelSuites[suite]; suite != "" && !ok {
		t.Fatalf("VERDICT_CGROUP2VM_KERNEL=%q: want empty or one of %v", suite, slices.Sorted(maps.Keys(kernelSuites)))
	}
	vmlinuz, modDir, pkg := fetchKernel(t, cache, suite)
	t.Logf("kernel: %s (%s)", pkg, vmlinuz)

	// Binaries the VM runs from the host's root (shared read-only).
	build := filepath.Join(cache, "build")
	if err := os.MkdirAll(build, 0o755); err != nil {
		t.Fatal(err)
	}
	goBin := goTool(t)
	initBin := filepath.Join(build, "vminit")
	sbTest := filepath.Join(build, "sandbox.test")
	judge := filepath.Join(build, "judge")
	for _, c := range []struct {
		args []string
		env  []string
	}{
		{[]string{"build", "-o", initBin, "./judge/internal/sandbox/vmtest/vminit"}, []string{"CGO_ENABLED=0"}},
		{[]string{"test", "-c", "-o", sbTest, "./judge/internal/sandbox"}, nil},
		{[]string{"build", "-o", judge, "./judge"}, nil},
	} {
		cmd := exec.Command(goBin, c.args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), c.env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", c.args, err, out)
		}
	}

	mods, err := kernelModules(modDir, wantModules)
	if err != nil {
		t.Fatal(err)
	}
	// make test runs the short plan (boot, info, one run, the hostile
	// suite and the burners from a delegated cgroup: about 3 minutes under
	// TCG); make test-cgroup2 (VERDICT_CGROUP2VM_FULL=1) adds the whole
	// sandbox suite and the polled-peak pass (10-15 minutes under TCG).
	full := os.Getenv("VERDICT_CGROUP2VM_FULL") == "1"
	p := plan.Plan{Phases: []plan.Phase{
		{Name: "info", Argv: []string{judge, "sandbox", "info"}},
		// CPU time to spare: under TCG on a busy host the first exec of
		// cat over 9p took 1.1 s of (emulated) CPU once.
		{Name: "cli-run", Argv: []string{judge, "sandbox", "run", "--mem", "64M", "--time", "5s", "--", "/bin/cat", "/proc/self/cgroup"}},
		{Name: "delegated", Argv: []string{sbTest, "-test.v", "-test.count=1", "-test.timeout=15m", "-test.run", hostileRun},
			Env: []string{"VERDICT_SANDBOX_TEST_CGROUP_PARENT=" + delegated}, Cgroup: delegated},
	}}
	// The polled pass forces the polled peak where the kernel has
	// memory.peak; a kernel without it (bullseye's 5.10) polls anyway.
	polled := full && wantPeak(strings.TrimPrefix(pkg, "linux-image-")) == "memory.peak"
	if full {
		p.Phases = append(p.Phases,
			plan.Phase{Name: "suite", Argv: []string{sbTest, "-test.v", "-test.count=1", "-test.timeout=25m"}})
	}
	if polled {
		p.Phases = append(p.Phases,
			plan.Phase{Name: "polled", Argv: []string{sbTest, "-test.v", "-test.count=1", "-test.timeout=15m", "-test.run", hostileRun},
				Env: []string{"VERDICT_SANDBOX_TEST_POLL_MEMORY=1"}})
	}
	// The binaries are built under the checkout, which may sit under a
	// directory the VM covers with its own tmpfs (a CI clone in /tmp).
	p.Binds = []string{build}
	t.Logf("plan: %d phases (full: %v)", len(p.Phases), full)
	initrd := filepath.Join(t.TempDir(), "initrd.cpio")
	writeInitramfs(t, initrd, initBin, mods, &p)

	out := t.TempDir()
	console := filepath.Join(out, "console.log")
	// KVM when /dev/kvm opens, the CPU has vmx or svm, and a guest
	// actually boots on it (a nested host may offer /dev/kvm that cannot
	// run one: then nothing reaches the console); TCG otherwise.
	var accels [][]string
	cpuinfo, _ := os.ReadFile("/proc/cpuinfo")
	fd, err := unix.Open("/dev/kvm", unix.O_RDWR|unix.O_CLOEXEC, 0)
	switch {
	case err != nil:
		t.Logf("no KVM (%v)", err)
	case !cpuVirtualizes(string(cpuinfo)):
		// Every run here once waited the 10 s boot watchdog below for
		// a KVM guest that never printed.
		unix.Close(fd)
		t.Logf("/dev/kvm opens, but the CPU flags have no vmx or svm: no KVM guest runs here")
	default:
		unix.Close(fd)
		accels = append(accels, []string{"-accel", "kvm", "-cpu", "host,-arch-capabilities", "-append", ""})
	}
	accels = append(accels, []string{"-accel", "tcg,thread=multi", "-cpu", "max", "-append", " " + plan.EmulatedArg})
	keep := filepath.Join(repo, "bin", "cgroup2-vm")
	if suite != "" {
		keep += "-" + suite
	}
	var qerr error
	var qout []byte
	for i, accel := range accels {
		extra := accel[len(accel)-1]
		args := append(accel[:len(accel)-2:len(accel)-2],
			"-m", "2048", "-smp", fmt.Sprint(min(2, runtime.NumCPU())),
			"-display", "none", "-monitor", "none", "-no-reboot",
			"-serial", "file:"+console,
			"-kernel", vmlinuz, "-initrd", initrd,
			"-append", "console=ttyS0 cgroup_no_v1=all systemd.unified_cgroup_hierarchy=1 panic=-1 loglevel=4"+extra,
			"-virtfs", "local,path=/,mount_tag=hostroot,security_model=passthrough,readonly=on",
			"-virtfs", "local,path="+out+",mount_tag=out,security_model=passthrough",
		)
		start := time.Now()
		var booted bool
		// Only a fallback needs the boot watchdog; the last one gets all
		// the time (TCG on a loaded host is slow to print its first line).
		// A KVM guest prints its first line within a second or two; 10 s
		// is generous, and on a host whose /dev/kvm runs no guest every
		// second of it is spent before TCG starts (this one, without vmx
		// or svm, no longer tries KVM).
		bootWait := 10 * time.Second
		if i == len(accels)-1 {
			bootWait = 55 * time.Minute
		}
		qout, booted, qerr = runQEMU(args, console, bootWait, 55*time.Minute)
		t.Logf("VM (%s) ran %v", accel[1], time.Since(start).Round(time.Second))
		if booted || i == len(accels)-1 {
			break
		}
		t.Logf("%s: no console output in %v (%v %s); trying the next accelerator", accel[1], bootWait, qerr, qout)
	}
	// Keep what the VM said for whoever reads a failure.
	_ = os.RemoveAll(keep)
	_ = os.MkdirAll(filepath.Dir(keep), 0o755)
	_ = exec.Command("cp", "-r", out, keep).Run()
	if qerr != nil {
		t.Fatalf("qemu: %v\n%s\nconsole:\n%s", qerr, qout, tail(console))
	}
	if b, err := os.ReadFile(filepath.Join(out, "init-error")); err == nil {
		t.Fatalf("VM init: %s\nconsole:\n%s", b, tail(console))
	}
	results := map[string]plan.Result{}
	for _, r := range consoleResults(t, console) {
		results[r.Name] = r
	}
	for _, ph := range p.Phases {
		r, ok := results[ph.Name]
		if !ok {
			t.Fatalf("phase %s: no result on the console (see %s)\n%s", ph.Name, keep, tail(console))
		}
		t.Logf("phase %s: exit %d in %d ms", ph.Name, r.Exit, r.Ms)
	}

	// judge sandbox info: pure v2, memory.peak from Linux 5.19 on, the
	// polled peak before (bullseye's 5.10).
	var info struct {
		Cgroup     string `json:"cgroup"`
		CgroupMode string `json:"cgroup_mode"`
		MemoryPeak string `json:"memory_peak"`
		Kernel     string `json:"kernel"`
		Root       bool   `json:"root"`
	}
	if err := json.Unmarshal(phaseLog(t, out, "info", results), &info); err != nil {
		t.Fatalf("judge sandbox info in the VM: %v", err)
	}
	t.Logf("in the VM: %+v", info)
	if info.Cgroup != "v2" || info.CgroupMode != "unified" || !info.Root {
		t.Errorf("judge sandbox info in the VM: %+v, want cgroup v2, unified, root", info)
	}
	if want := wantPeak(info.Kernel); info.MemoryPeak != want {
		t.Errorf("judge sandbox info in the VM: memory_peak %q, want %q on Linux %s", info.MemoryPeak, want, info.Kernel)
	}
	if b, _ := os.ReadFile("/proc/sys/kernel/osrelease"); info.Kernel == strings.TrimSpace(string(b)) {
		t.Errorf("the VM ran the host's kernel %s?", info.Kernel)
	}

	// judge sandbox run: a v2 run, its own cgroup namespace.
	var run struct {
		Status string `json:"status"`
		Stdout string `json:"stdout"`
		Cgroup string `json:"cgroup"`
	}
	if err := json.Unmarshal(phaseLog(t, out, "cli-run", results), &run); err != nil {
		t.Fatalf("judge sandbox run in the VM: %v", err)
	}
	if run.Status != "ok" || run.Cgroup != "v2" || run.Stdout != "0::/\n" {
		t.Errorf("judge sandbox run in the VM: %+v, want ok, v2, /proc/self/cgroup \"0::/\\n\"", run)
	}

	// The whole suite, then the hostile suite and burners delegated and
	// polled: every test named must have run and passed.
	all := suiteTests(t, filepath.Join(repo, "judge", "internal", "sandbox"))
	hostile := regexp.MustCompile(hostileRun)
	var subset []string
	for _, n := range all {
		if hostile.MatchString(n) {
			subset = append(subset, n)
		}
	}
	if len(subset) != 7 {
		t.Fatalf("hostile subset %v: the sandbox tests were renamed; update hostileRun", subset)
	}
	checkSuite(t, out, "delegated", results, subset)
	if full {
		checkSuite(t, out, "suite", results, all)
	}
	if polled {
		checkSuite(t, out, "polled", results, subset)
	}

	// Delegation: the judge moved itself into a leaf, the service's cgroup
	// kept no process, its children had the controllers a run needs.
	tree := results["delegated"].Tree
	byPath := map[string]plan.Cgroup{}
	for _, c := range tree {
		byPath[c.Path] = c
	}
	svc, ok := byPath[delegated]
	if !ok {
		t.Fatalf("delegated: no %s in %+v", delegated, tree)
	}
	if len(svc.Procs) != 0 {
		t.Errorf("delegated: processes %v left in the service's own cgroup", svc.Procs)
	}
	for _, c := range []string{"cpu", "cpuset", "memory", "pids"} {
		if !slices.Contains(svc.SubtreeControl, c) {
			t.Errorf("delegated: %s not enabled for the service's children (%v)", c, svc.SubtreeControl)
		}
	}
	if _, ok := byPath[delegated+"/supervisor"]; !ok {
		t.Errorf("delegated: no supervisor leaf under %s: %+v", delegated, tree)
	}
	for p := range byPath {
		if strings.Contains(p, "/run-") {
			t.Errorf("delegated: run cgroup %s left behind", p)
		}
	}
}

// runQEMU runs QEMU until it powers off. booted is false when nothing
// reached the console within bootWait (QEMU is killed then).
func runQEMU(args []string, console string, bootWait, limit time.Duration) (out []byte, booted bool, err error) {
	_ = os.Remove(console)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64", args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		return nil, false, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(bootWait)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			fi, serr := os.Stat(console)
			return buf.Bytes(), serr == nil && fi.Size() > 0, err
		case <-tick.C:
			if booted {
				continue
			}
			if fi, err := os.Stat(console); err == nil && fi.Size() > 0 {
				booted = true
			} else if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				<-done
				return buf.Bytes(), false, errors.New("no console output")
			}
		}
	}
}

// repoRoot is the module's directory.
func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// goTool is the go command that runs this test.
func goTool(t *testing.T) string {
	// go test puts its own GOROOT/bin first in the test's PATH.
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("no go command")
	}
	return p
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// kernelSuites are the Debian suites VERDICT_CGROUP2VM_KERNEL can name:
// their apt sources, used through a sources list and package lists of the
// test's own under the cache (the host's apt configuration is not touched).
var kernelSuites = map[string][]string{
	"bullseye": {
		"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bullseye main",
		"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bullseye-security main",
	},
}

// fetchKernel returns Debian's amd64 kernel of suite ("" the host's apt
// sources), unpacked under cache: the linux-image-amd64 metapackage names
// the versioned package it depends on; both are fetched with apt-get
// download (kept in cache/deb, or cache/<suite>/deb) and the kernel
// package unpacked once with dpkg-deb -x.
func fetchKernel(t *testing.T, cache, suite string) (vmlinuz, modDir, pkg string) {
	var aptOpts []string
	if suite != "" {
		cache = filepath.Join(cache, suite)
		aptOpts = suiteApt(t, filepath.Join(cache, "apt"), kernelSuites[suite])
	}
	debs := filepath.Join(cache, "deb")
	if err := os.MkdirAll(debs, 0o755); err != nil {
		t.Fatal(err)
	}
	download := func(name string) string {
		if m, _ := filepath.Glob(filepath.Join(debs, name+"_*.deb")); len(m) > 0 {
			slices.Sort(m)
			return m[len(m)-1]
		}
		cmd := exec.Command("apt-get", append(aptOpts, "download", name)...)
		cmd.Dir = debs
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("apt-get download %s: %v\n%s", name, err, out)
		}
		m, _ := filepath.Glob(filepath.Join(debs, name+"_*.deb"))
		if len(m) == 0 {
			t.Fatalf("apt-get download %s left no .deb in %s", name, debs)
		}
		slices.Sort(m)
		return m[len(m)-1]
	}
	meta := download("linux-image-amd64")
	dep, err := exec.Command("dpkg-deb", "-f", meta, "Depends").Output()
	if err != nil {
		t.Fatalf("dpkg-deb -f %s Depends: %v", meta, err)
	}
	pkg = kernelPackage(string(dep))
	if pkg == "" {
		t.Fatalf("%s depends on %q: no linux-image package", meta, dep)
	}
	dir := filepath.Join(cache, pkg)
	if !fileExists(filepath.Join(dir, "boot")) {
		deb := download(pkg)
		tmp := dir + ".tmp"
		_ = os.RemoveAll(tmp)
		if out, err := exec.Command("dpkg-deb", "-x", deb, tmp).CombinedOutput(); err != nil {
			t.Fatalf("dpkg-deb -x %s: %v\n%s", deb, err, out)
		}
		if err := os.Rename(tmp, dir); err != nil {
			t.Fatal(err)
		}
	}
	k, _ := filepath.Glob(filepath.Join(dir, "boot", "vmlinuz-*"))
	m, _ := filepath.Glob(filepath.Join(dir, "lib", "modules", "*"))
	if len(k) != 1 || len(m) != 1 {
		t.Fatalf("%s: want one vmlinuz and one module tree, found %v %v", dir, k, m)
	}
	return k[0], m[0], pkg
}

// suiteApt returns apt-get options that use sources (deb lines) and
// package lists of their own under dir, and fetches the lists once.
func suiteApt(t *testing.T, dir string, sources []string) []string {
	lists := filepath.Join(dir, "lists")
	for _, d := range []string{filepath.Join(lists, "partial"), filepath.Join(dir, "cache", "archives", "partial")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	list := filepath.Join(dir, "sources.list")
	if err := os.WriteFile(list, []byte(strings.Join(sources, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := []string{
		"-o", "Dir::Etc::SourceList=" + list, "-o", "Dir::Etc::SourceParts=/dev/null",
		"-o", "Dir::State::Lists=" + lists, "-o", "Dir::Cache=" + filepath.Join(dir, "cache"),
		"-o", "Dir::State::status=/dev/null",
	}
	if m, _ := filepath.Glob(filepath.Join(lists, "*_Packages")); len(m) > 0 {
		return opts
	}
	if out, err := exec.Command("apt-get", append(opts, "update")...).CombinedOutput(); err != nil {
		t.Fatalf("apt-get update for %v: %v\n%s", sources, err, out)
	}
	return opts
}

// writeInitramfs writes the VM's initramfs: /init, the modules (in load
// order, named in the plan), /dev/console for the init's output, and
// /plan.json.
func writeInitramfs(t *testing.T, path, initBin string, mods []string, p *plan.Plan) {
	initData, err := os.ReadFile(initBin)
	if err != nil {
		t.Fatal(err)
	}
	es := []cpioEntry{
		{Name: "dev", Mode: cpioDir | 0o755},
		{Name: "dev/console", Mode: cpioChar | 0o600, Major: 5, Minor: 1},
		{Name: "proc", Mode: cpioDir | 0o755},
		{Name: "sys", Mode: cpioDir | 0o755},
		{Name: "newroot", Mode: cpioDir | 0o755},
		{Name: "modules", Mode: cpioDir | 0o755},
		{Name: "init", Mode: cpioReg | 0o755, Data: initData},
	}
	p.Modules = nil
	for _, m := range mods {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, cpioEntry{Name: "modules/" + filepath.Base(m), Mode: cpioReg | 0o644, Data: b})
		p.Modules = append(p.Modules, filepath.Base(m))
	}
	pj, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	es = append(es, cpioEntry{Name: "plan.json", Mode: cpioReg | 0o644, Data: pj})
	var buf bytes.Buffer
	if err := writeCpio(&buf, es); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// consoleResults reads the VMTEST-RESULT lines of the serial console.
func consoleResults(t *testing.T, console string) []plan.Result {
	f, err := os.Open(console)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []plan.Result
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		_, js, ok := strings.Cut(line, "VMTEST-RESULT ")
		if !ok {
			continue
		}
		var r plan.Result
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			t.Fatalf("console result %q: %v", js, err)
		}
		out = append(out, r)
	}
	return out
}

// phaseLog is a phase's output; the phase must have exited 0.
func phaseLog(t *testing.T, out, name string, results map[string]plan.Result) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, name+".log"))
	if err != nil {
		t.Fatalf("phase %s: %v", name, err)
	}
	if r := results[name]; r.Exit != 0 {
		t.Errorf("phase %s: exit %d %s\n%s", name, r.Exit, r.Error, lastLines(b, 80))
	}
	return b
}

// checkSuite checks that a test-binary phase passed every test in want.
func checkSuite(t *testing.T, out, name string, results map[string]plan.Result, want []string) {
	t.Helper()
	b := phaseLog(t, out, name, results)
	passed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^--- PASS: (Test\w+) `).FindAllSubmatch(b, -1) {
		passed[string(m[1])] = true
	}
	var notPassed []string
	for _, w := range want {
		if !passed[w] {
			notPassed = append(notPassed, w)
		}
	}
	if len(notPassed) > 0 {
		t.Errorf("phase %s: %d of %d tests did not pass in the VM: %v\n%s", name, len(notPassed), len(want), notPassed, failures(b))
	}
}

// suiteTests lists the top-level tests of the package in dir.
func suiteTests(t *testing.T, dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	re := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			out = append(out, string(m[1]))
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d tests found in %s", len(out), dir)
	}
	slices.Sort(out)
	return out
}

// failures is the part of a -test.v log around its FAIL lines.
func failures(b []byte) string {
	lines := strings.Split(string(b), "\n")
	var out []string
	for i, l := range lines {
		if strings.Contains(l, "--- FAIL") || strings.Contains(l, "panic:") {
			out = append(out, lines[max(0, i-15):min(len(lines), i+3)]...)
			out = append(out, "...")
		}
	}
	if len(out) == 0 {
		return lastLines(b, 40)
	}
	return strings.Join(out, "\n")
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func tail(path string) string {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "(no console output)"
	}
	return lastLines(b, 60)
}

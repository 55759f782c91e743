//go:build linux

package sandbox

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testSB is shared by the tests that run programs; made in TestMain.
var testSB *Sandbox

const testCgroupParent = "verdict-sandbox-test"

// testUID is the first uid (and gid) of the sandbox under test: slot i
// runs programs as testUID+i. It is not the default range so that the
// host-wide "nothing of the run is left" checks see only this package's
// programs, and so that another test binary (the judge agent's, the
// CLI's) sandboxing at the same time holds ids of its own.
const testUID = 64910

// oneSlotUID is oneSlot's range (it lives alongside testSB).
const oneSlotUID = 64920

func TestMain(m *testing.M) {
	// The test binary is also the container init it re-executes.
	MaybeInit()
	if os.Getenv(probeEnv) != "" {
		os.Exit(probeMain())
	}
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "sandbox tests need root (namespaces, cgroups, mounts); run them as root")
		os.Exit(1)
	}
	for _, tool := range []string{"gcc", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			fmt.Fprintf(os.Stderr, "sandbox tests need %s (make deps installs it): %v\n", tool, err)
			os.Exit(1)
		}
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := Config{Slots: 2, CgroupParent: testCgroupParent, Logger: log, UIDBase: testUID, GIDBase: testUID}
	// The cgroup v2 VM test (package vmtest) runs this suite again with
	// a delegated parent (this process's own cgroup, as under systemd
	// Delegate=yes) and with the memory peak polled.
	if p := os.Getenv(testParentEnv); p != "" {
		cfg.CgroupParent = p
	}
	cfg.PollMemory = os.Getenv(testPollEnv) == "1"
	sb, err := New(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		os.Exit(1)
	}
	if p := os.Getenv(testParentEnv); p != "" {
		// Delegated: New moved this process into the parent's leaf.
		self, _ := os.ReadFile("/proc/self/cgroup")
		if own, err := ownCgroup(self, ""); err != nil || own != "/"+strings.Trim(p, "/")+"/supervisor" {
			fmt.Fprintf(os.Stderr, "delegated parent %s: the judge is in %q (%v), want its supervisor leaf\n", p, own, err)
			os.Exit(1)
		}
	}
	testSB = sb
	code := m.Run()
	if err := sb.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox close: %v\n", err)
		code = 1
	}
	// Nothing the tests made may outlive them.
	if left := leftoverCgroups(); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "leftover run cgroups: %v\n", left)
		code = 1
	}
	os.Exit(code)
}

// Test-only knobs of the suite (set by the cgroup v2 VM test).
const (
	testParentEnv = "VERDICT_SANDBOX_TEST_CGROUP_PARENT"
	testPollEnv   = "VERDICT_SANDBOX_TEST_POLL_MEMORY"
	testEmuEnv    = "VERDICT_SANDBOX_TEST_EMULATED"
)

// emulated: the suite runs in a VM without hardware virtualisation (the
// cgroup v2 VM test under QEMU's TCG, on a host whose /dev/kvm cannot run
// a guest). Every instruction is emulated, and the guest cannot tell time
// its vCPU thread was descheduled by a busy host from time a task ran (no
// steal time): CPU figures carry tens of milliseconds of noise. Precision
// bounds then get emuSlack more, costs emuScale times more; the
// classifications stay exact.
var emulated = os.Getenv(testEmuEnv) == "1"

func emuSlack() time.Duration {
	if emulated {
		return 150 * time.Millisecond
	}
	return 0
}

func emuScale() time.Duration {
	if emulated {
		return 10
	}
	return 1
}

// leftoverCgroups lists this process's run cgroups still present.
func leftoverCgroups() []string {
	var out []string
	prefix := fmt.Sprintf("run-%d-", os.Getpid())
	var dirs []string
	switch CgroupMode() {
	case "v2":
		dirs = []string{filepath.Join("/sys/fs/cgroup", testCgroupParent)}
		if p := os.Getenv(testParentEnv); p != "" {
			dirs = append(dirs, filepath.Join("/sys/fs/cgroup", p))
		}
	default:
		for _, c := range v1Controllers {
			dirs = append(dirs, filepath.Join("/sys/fs/cgroup", string(c), testCgroupParent))
		}
	}
	for _, d := range dirs {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
				out = append(out, filepath.Join(d, e.Name()))
			}
		}
	}
	return out
}

// buildC compiles src with gcc into dir/name (static when asked).
func buildC(t testing.TB, dir, name, src string, static bool, extra ...string) string {
	t.Helper()
	srcPath := filepath.Join(dir, name+".c")
	if err := os.WriteFile(srcPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, name)
	args := []string{"-O1", "-o", bin, srcPath}
	if static {
		args = append(args, "-static")
	}
	args = append(args, extra...)
	out, err := exec.Command("gcc", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc %s: %v\n%s", name, err, out)
	}
	return bin
}

// workDir is a fresh directory the programs of every slot may write
// (each slot has its own uid).
func workDir(t testing.TB) string {
	t.Helper()
	d := t.TempDir()
	if err := os.Chmod(d, 0o777); err != nil {
		t.Fatal(err)
	}
	return d
}

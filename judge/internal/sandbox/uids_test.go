//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// probeEnv makes the test binary a probe (probeMain): run on the host
// under some uid, it tries to reach the process named by the variable.
const probeEnv = "VERDICT_TEST_PROBE"

// probeResult is what a probe could do to its target ("ok" or the errno).
type probeResult struct {
	UID     int    `json:"uid"`
	Ptrace  string `json:"ptrace"`
	Kill    string `json:"kill"`
	Environ string `json:"environ"`
	Mem     string `json:"mem"`
}

func errName(err error) string {
	if err == nil {
		return "ok"
	}
	var en syscall.Errno
	if errors.As(err, &en) {
		return unix.ErrnoName(en)
	}
	return err.Error()
}

func probeMain() int {
	pid, err := strconv.Atoi(os.Getenv(probeEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		return 2
	}
	res := probeResult{UID: os.Getuid()}
	res.Ptrace = errName(unix.PtraceAttach(pid))
	if res.Ptrace == "ok" {
		_ = unix.PtraceDetach(pid)
	}
	res.Kill = errName(unix.Kill(pid, 0))
	_, err = os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	res.Environ = errName(err)
	f, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
	if err == nil {
		f.Close()
	}
	res.Mem = errName(err)
	_ = json.NewEncoder(os.Stdout).Encode(res)
	return 0
}

// probe runs probeMain on the host as uid:gid against pid.
func probe(t *testing.T, uid, gid, pid int) probeResult {
	t.Helper()
	cmd := exec.Command("/proc/self/exe")
	cmd.Env = []string{probeEnv + "=" + strconv.Itoa(pid)}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("probe as %d: %v", uid, err)
	}
	var r probeResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("probe as %d: %v: %q", uid, err, out)
	}
	return r
}

// waitProcOfUID waits for the single host process of uid and returns it.
func waitProcOfUID(t *testing.T, uid int) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if p := procsOfUID(t, uid); len(p) == 1 {
			n, _, _ := strings.Cut(p[0], ":")
			pid, _ := strconv.Atoi(n)
			return pid
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no process of uid %d appeared", uid)
	return 0
}

// TestPerSlotUIDs (issue 16, finding 3): every slot runs under its own uid
// and gid. A process with another slot's uid, or the old shared uid 65534,
// cannot ptrace, signal or read /proc of a run; a run in another slot
// cannot even name it.
func TestPerSlotUIDs(t *testing.T) {
	if testSB.Slots() != 2 {
		t.Fatalf("%d slots, want 2", testSB.Slots())
	}
	for i := 0; i < 2; i++ {
		if uid, gid := testSB.SlotUser(i); uid != testUID+i || gid != testUID+i {
			t.Fatalf("slot %d user %d:%d, want %d", i, uid, gid, testUID+i)
		}
	}
	dir := workDir(t)
	buildC(t, dir, "hold", `#include <unistd.h>
int main(void){ sleep(4); return 0; }`, true)
	buildC(t, dir, "reach", `#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <signal.h>
#include <fcntl.h>
int main(int argc, char **argv){ int pid = atoi(argv[1]);
	printf("kill=%s\n", kill(pid, 0) ? strerrorname_np(errno) : "ok");
	char p[64]; snprintf(p, sizeof p, "/proc/%d/environ", pid);
	int fd = open(p, O_RDONLY); printf("proc=%s\n", fd < 0 ? strerrorname_np(errno) : "ok");
	return 0; }`, true)
	one := 1
	victim := make(chan Result, 1)
	go func() {
		r, err := testSB.Run(context.Background(), Spec{Argv: []string{"./hold"}, Dir: dir, Slot: &one,
			Env: []string{"SECRET=slot-one"}, Limits: Limits{Wall: 10 * time.Second}})
		if err != nil {
			t.Errorf("victim run: %v", err)
		}
		victim <- r
	}()
	pid := waitProcOfUID(t, testUID+1)

	// Another slot's uid, on the host (no namespace in the way).
	for _, who := range []struct {
		name     string
		uid, gid int
	}{{"slot 0's uid", testUID, testUID}, {"the old shared uid 65534", 65534, 65534}} {
		r := probe(t, who.uid, who.gid, pid)
		if r.Ptrace != "EPERM" || r.Kill != "EPERM" || r.Environ != "EACCES" || r.Mem != "EACCES" {
			t.Errorf("%s reaches the run in slot 1: %+v", who.name, r)
		}
	}
	// A run in slot 0 at the same time.
	zero := 0
	r, err := testSB.Run(context.Background(), Spec{Argv: []string{"./reach", strconv.Itoa(pid)}, Dir: dir, Slot: &zero})
	if err != nil || r.Status != StatusOK || r.Slot != 0 || r.UID != testUID {
		t.Fatalf("slot 0 run: %v %+v", err, r)
	}
	if got := strings.TrimSpace(r.Stdout); got != "kill=ESRCH\nproc=ENOENT" {
		t.Errorf("run in slot 0 reaches the run in slot 1: %q", got)
	}
	// ptrace is a forbidden call under the run profile anyway.
	buildC(t, dir, "trace", `#include <sys/ptrace.h>
#include <stdlib.h>
int main(int argc, char **argv){ ptrace(PTRACE_ATTACH, atoi(argv[1]), 0, 0); return 0; }`, true)
	r, err = testSB.Run(context.Background(), Spec{Argv: []string{"./trace", strconv.Itoa(pid)}, Dir: dir, Slot: &zero})
	if err != nil || r.Status != StatusForbiddenSyscall || r.Syscall != "ptrace" {
		t.Errorf("ptrace from slot 0: %v %s %q", err, r.Status, r.Syscall)
	}
	if v := <-victim; v.Status != StatusOK || v.Slot != 1 || v.UID != testUID+1 {
		t.Errorf("victim: %+v", v)
	}
}

// TestPerUIDQuotas (issue 16, finding 3): a run that holds its whole
// queued-signal quota does not make sigqueue fail in a run of another
// slot; RLIMIT_SIGPENDING and RLIMIT_NPROC are set per run.
func TestPerUIDQuotas(t *testing.T) {
	dir := workDir(t)
	buildC(t, dir, "sigq", `#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
int main(int argc, char **argv){
	sigset_t s; sigemptyset(&s); sigaddset(&s, SIGRTMIN); sigprocmask(SIG_BLOCK, &s, 0);
	struct rlimit sp, np; getrlimit(RLIMIT_SIGPENDING, &sp); getrlimit(RLIMIT_NPROC, &np);
	int n = 0, max = atoi(argv[1]); union sigval v = {0}; const char *err = "none";
	while (n < max) { if (sigqueue(getpid(), SIGRTMIN, v)) { err = strerrorname_np(errno); break; } n++; }
	printf("queued=%d err=%s sigpending=%llu nproc=%llu\n", n, err, (unsigned long long)sp.rlim_cur, (unsigned long long)np.rlim_cur);
	fflush(stdout);
	if (argc > 2) sleep(atoi(argv[2]));
	return 0; }`, true)
	zero, one := 0, 1
	hog := make(chan Result, 1)
	go func() {
		r, err := testSB.Run(context.Background(), Spec{Argv: []string{"./sigq", "100000", "2"}, Dir: dir, Slot: &zero,
			Limits: Limits{Wall: 10 * time.Second}})
		if err != nil {
			t.Errorf("hog: %v", err)
		}
		hog <- r
	}()
	// The hog holds its quota once it sleeps.
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", waitProcOfUID(t, testUID)))
		if strings.Contains(string(b), "State:\tS") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the hog never slept")
		}
		time.Sleep(5 * time.Millisecond)
	}
	r, err := testSB.Run(context.Background(), Spec{Argv: []string{"./sigq", "10"}, Dir: dir, Slot: &one})
	if err != nil || r.Status != StatusOK {
		t.Fatalf("slot 1: %v %+v", err, r)
	}
	want := fmt.Sprintf("queued=10 err=none sigpending=%d nproc=1", sigPendingLimit)
	if got := strings.TrimSpace(r.Stdout); got != want {
		t.Errorf("slot 1 beside a run holding its signal quota: %q, want %q", got, want)
	}
	h := <-hog
	want = fmt.Sprintf("queued=%d err=EAGAIN sigpending=%d nproc=1", sigPendingLimit, sigPendingLimit)
	if got := strings.TrimSpace(h.Stdout); got != want {
		t.Errorf("hog: %q, want %q", got, want)
	}
}

// TestIDRangeInUse (issue 16, finding 3): New refuses a range a host
// process runs under, or one another sandbox of this process holds, and
// says why.
func TestIDRangeInUse(t *testing.T) {
	const base = 64930
	squatter := exec.Command("sleep", "30")
	squatter.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: base + 1, Gid: 1000}}
	if err := squatter.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = squatter.Process.Kill(); _ = squatter.Wait() }()
	sb, err := New(Config{Slots: 2, CgroupParent: testCgroupParent, UIDBase: base, GIDBase: base, Prewarm: -1})
	if err == nil {
		sb.Close()
		t.Fatal("New accepted a uid range a host process runs under")
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("pid %d (sleep", squatter.Process.Pid)) {
		t.Errorf("error does not name the process: %v", err)
	}
	// gid in use, uid free.
	sb, err = New(Config{Slots: 1, CgroupParent: testCgroupParent, UIDBase: base + 5, GIDBase: 1000, Prewarm: -1})
	if err == nil {
		sb.Close()
		t.Error("New accepted a gid range a host process runs under")
	}
	// Overlapping testSB's range.
	sb, err = New(Config{Slots: 1, CgroupParent: testCgroupParent, UIDBase: testUID + 1, GIDBase: base + 7, Prewarm: -1})
	if err == nil {
		sb.Close()
		t.Error("New accepted a range another sandbox of this process holds")
	} else if !strings.Contains(err.Error(), "another sandbox") {
		t.Errorf("overlap error: %v", err)
	}
	// Free again once the squatter is gone.
	_ = squatter.Process.Kill()
	_ = squatter.Wait()
	sb, err = New(Config{Slots: 2, CgroupParent: testCgroupParent, UIDBase: base, GIDBase: base, Prewarm: -1})
	if err != nil {
		t.Fatalf("free range refused: %v", err)
	}
	if err := sb.Close(); err != nil {
		t.Error(err)
	}
}

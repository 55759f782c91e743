package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// TestSIGTERMDrainsTheBinary runs the real judge binary against the fake
// hub, sends it SIGTERM while it judges, and checks the drain as an
// operator sees it: drain announced, the running task finished and its
// result delivered, exit status 0.
func TestSIGTERMDrainsTheBinary(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "judge")
	build := exec.Command("go", "build", "-o", bin, "./judge")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./judge: %v\n%s", err, out)
	}
	h := newFakeHub(t)
	hash := h.addPackage(aplusb())
	dir := t.TempDir()
	cmd := exec.Command(bin, "agent", "--hub", h.url(), "--id", "judge-bin", "--dir", dir,
		"--admin", "", "--parallel", "1", "--cgroup-parent", "verdict-agent-bin-test", "--log-format", "text")
	cmd.Env = append(os.Environ(), "VERDICT_JUDGE_TOKEN="+h.token)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	h.waitConn(1, 20*time.Second)
	c := newCollector(h)

	slow := mkTask(1, hash, "py3", "import time\ntime.sleep(1.5)\na,b=map(int,input().split())\nprint(a+b)\n",
		func(t *protocol.Task) { t.Limits.TimeMs = 3000 })
	h.send(protocol.TypeTask, slow)
	c.until("accept", 10*time.Second, func() bool { return c.accepts[slow.TaskRef] > 0 })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	c.until("drain", 10*time.Second, func() bool { return c.drains > 0 })
	if r := c.result(slow.TaskRef, 60*time.Second); r.Verdict != protocol.VerdictAC {
		t.Errorf("the task running at SIGTERM: %s, want AC", r.Verdict)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("judge exited with %v after the drain, want status 0", err)
		}
	case <-time.After(45 * time.Second):
		t.Fatal("judge still running 45 s after SIGTERM")
	}
}

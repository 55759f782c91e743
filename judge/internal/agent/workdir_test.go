package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// TestRunSeesNoStateDir (issue 16): a submission's program sees its work
// dir as the root of a tmpfs of its own: nothing it can list of its
// mounts names the agent's state dir, and the work dir is gone (not left
// mounted) after the task.
func TestRunSeesNoStateDir(t *testing.T) {
	h := newFakeHub(t)
	h.acks.Store(true)
	ra := startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)
	tk := mkCustom("for p in ('/proc/self/mountinfo', '/proc/self/mounts'):\n    print(open(p).read())\n", "", nil)
	h.send(protocol.TypeTask, tk)
	r := c.result(tk.TaskRef, 90*time.Second)
	if r.Verdict != protocol.VerdictAC || len(r.Custom) != 1 {
		t.Fatalf("custom run: %+v", r)
	}
	out := r.Custom[0].Stdout
	dir := ra.a.cfg.Dir
	if strings.Contains(out, dir) || strings.Contains(out, filepath.Dir(dir)) || strings.Contains(out, "/work/") {
		t.Errorf("the run sees the state dir %s:\n%s", dir, out)
	}
	var w bool
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 4 && f[4] == "/w" {
			w = f[3] == "/" && strings.Contains(l, " - tmpfs w ")
		}
	}
	if !w {
		t.Errorf("/w is not a tmpfs root of its own:\n%s", out)
	}
	self, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(self), dir) {
		t.Errorf("a work dir is still mounted under %s after the task", dir)
	}
}

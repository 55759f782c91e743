package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

func aplusb() testpkg.Package {
	return testpkg.Package{Cases: []testpkg.Case{
		{In: []byte("1 2\n"), Ans: []byte("3\n")},
		{In: []byte("20 22\n"), Ans: []byte("42\n")},
	}}
}

// TestVerdicts drives C++ and Python solutions through every verdict, and
// checks hello, heartbeats, progress and idempotency on the way.
func TestVerdicts(t *testing.T) {
	h := newFakeHub(t)
	hash := h.addPackage(aplusb())
	startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)

	type sub struct {
		lang, src string
		want      protocol.Verdict
		msg       string // in the first failing case's message (or the compile message)
	}
	subs := []sub{
		{"cpp17", "#include <cstdio>\nint main(){long a,b;scanf(\"%ld%ld\",&a,&b);printf(\"%ld\\n\",a+b);}\n", protocol.VerdictAC, ""},
		{"cpp17", "#include <cstdio>\nint main(){long a,b;scanf(\"%ld%ld\",&a,&b);printf(\"%ld\\n\",a+b+1);}\n", protocol.VerdictWA, "expected"},
		{"cpp17", "int main(){volatile unsigned long x=0;for(;;)x++;}\n", protocol.VerdictTLE, "time limit"},
		{"cpp17", "#include <cstdlib>\n#include <cstring>\nint main(){for(int i=0;i<64;i++){char*p=(char*)malloc(8<<20);memset(p,1,8<<20);}return 0;}\n", protocol.VerdictMLE, ""},
		{"cpp17", "int main(){return 3;}\n", protocol.VerdictRE, "exit code 3"},
		{"cpp17", "int main(){ this is not C++ }\n", protocol.VerdictCE, "error"},
		{"cpp17", "#include <cstdio>\nint main(){for(;;)fputs(\"spam spam spam spam\\n\",stdout);}\n", protocol.VerdictOLE, ""},
		{"py3", "a,b=map(int,input().split())\nprint(a+b)\n", protocol.VerdictAC, ""},
		{"py3", "a,b=map(int,input().split())\nprint(a-b)\n", protocol.VerdictWA, "expected"},
		{"py3", "while True:\n    pass\n", protocol.VerdictTLE, "time limit"},
		{"py3", "x=[]\nwhile True:\n    x.append(bytearray(1<<20))\n", protocol.VerdictMLE, ""},
		{"py3", "raise SystemExit(5)\n", protocol.VerdictRE, "exit code 5"},
		{"py3", "def f(:\n    pass\n", protocol.VerdictCE, "SyntaxError"},
		{"py3", "import sys\nwhile True:\n    sys.stdout.write('spam '*1000)\n", protocol.VerdictOLE, ""},
	}
	tasks := make([]protocol.Task, len(subs))
	for i, s := range subs {
		tasks[i] = mkTask(1, hash, s.lang, s.src, func(t *protocol.Task) { t.Limits.TimeMs = 500 })
		h.send(protocol.TypeTask, tasks[i])
	}
	// The first task again: accepted again, judged once.
	h.send(protocol.TypeTask, tasks[0])

	for i, s := range subs {
		r := c.result(tasks[i].TaskRef, 60*time.Second)
		msg := r.CompileMessage
		for _, cs := range r.Cases {
			if cs.Verdict != protocol.VerdictAC {
				msg = cs.Message
				break
			}
		}
		if r.Verdict != s.want || !strings.Contains(msg, s.msg) {
			t.Errorf("%s #%d: verdict %s (%q), want %s with %q; result %+v", s.lang, i, r.Verdict, msg, s.want, s.msg, r)
			continue
		}
		if r.JudgeID != "judge-test" {
			t.Errorf("judge id %q", r.JudgeID)
		}
		switch s.want {
		case protocol.VerdictAC:
			if len(r.Cases) != 2 || r.Score != 100 || r.Cases[1].MemoryKiB <= 0 {
				t.Errorf("%s AC: %+v", s.lang, r)
			}
		case protocol.VerdictCE:
			if len(r.Cases) != 0 || r.CompileMessage == "" {
				t.Errorf("%s CE: %+v", s.lang, r)
			}
		default: // ICPC: stops at case 1, case 2 skipped
			if len(r.Cases) != 2 || r.Cases[1].Verdict != protocol.VerdictSkipped || r.Score != 0 {
				t.Errorf("%s %s: cases %+v", s.lang, s.want, r.Cases)
			}
		}
		// A TLE ran to a limit: its CPU one (1 s), or, on a machine too
		// loaded to give it the CPU in time (a CI run of -race packages
		// side by side gave one 422 ms in its 3 s), the wall one (2 × CPU
		// + 1 s), never killed early.
		if s.want == protocol.VerdictTLE {
			if c0 := r.Cases[0]; c0.CPUMs < 500 && c0.WallMs < 2500 {
				t.Errorf("TLE with %d ms CPU and %d ms wall", c0.CPUMs, c0.WallMs)
			}
		}
		// Progress: compiling, judging, and every finished case before the result.
		var statuses []protocol.Verdict
		cases := 0
		for _, p := range c.progress[tasks[i].TaskRef] {
			if len(p.Cases) == 0 {
				statuses = append(statuses, p.Status)
			}
			cases += len(p.Cases)
		}
		if len(statuses) == 0 || statuses[0] != protocol.VerdictCompiling {
			t.Errorf("%s %s: progress statuses %v", s.lang, s.want, statuses)
		}
		ran := 0
		for _, cs := range r.Cases {
			if cs.Verdict != protocol.VerdictSkipped {
				ran++
			}
		}
		if cases != ran {
			t.Errorf("%s %s: %d cases in progress, %d ran", s.lang, s.want, cases, ran)
		}
	}
	if n := len(c.results[tasks[0].TaskRef]); n != 1 || c.accepts[tasks[0].TaskRef] != 2 {
		t.Errorf("duplicate task: %d results, %d accepts", n, c.accepts[tasks[0].TaskRef])
	}
	if n := h.fetches.Load(); n != 1 {
		t.Errorf("test data downloaded %d times", n)
	}
	// A task already judged and delivered: the result is sent again.
	h.send(protocol.TypeTask, tasks[1])
	c.until("the repeated result", 10*time.Second, func() bool { return len(c.results[tasks[1].TaskRef]) == 2 })
	if c.results[tasks[1].TaskRef][1].r.Verdict != protocol.VerdictWA {
		t.Error("repeated result differs")
	}
	// An unknown language is rejected, not judged.
	bad := mkTask(1, hash, "cobol", "x")
	h.send(protocol.TypeTask, bad)
	c.until("the reject", 10*time.Second, func() bool { return c.rejects[bad.TaskRef].Reason != "" })
	if c.rejects[bad.TaskRef].Reason != protocol.RejectLanguage {
		t.Errorf("reject %+v", c.rejects[bad.TaskRef])
	}

	h.mu.Lock()
	hello := h.hellos[0]
	h.mu.Unlock()
	langs := map[string]string{}
	for _, l := range hello.Languages {
		langs[l.ID] = l.Version
	}
	if !strings.Contains(langs["cpp17"], "g++") || !strings.Contains(langs["py3"], "Python 3") || langs["java17"] == "" {
		t.Errorf("hello languages %v", hello.Languages)
	}
	if hello.MaxParallel != 2 || hello.Cores != runtime.NumCPU() || hello.MemoryBytes <= 0 {
		t.Errorf("hello %+v", hello)
	}
	if !slices.Contains(hello.Capabilities, protocol.CapabilityInputValidation) {
		t.Errorf("hello capabilities %v: want %s", hello.Capabilities, protocol.CapabilityInputValidation)
	}
	c.until("heartbeats", 5*time.Second, func() bool { return len(c.beats) >= 3 })
	hb := c.beats[len(c.beats)-1].hb
	if hb.Cores != runtime.NumCPU() || hb.Load1 < 0 || hb.MemUsedRatio <= 0 || hb.MemUsedRatio > 1 {
		t.Errorf("heartbeat %+v", hb)
	}
}

func TestJavaAndFloat(t *testing.T) {
	h := newFakeHub(t)
	hash := h.addPackage(aplusb())
	third := h.addPackage(testpkg.Package{Cases: []testpkg.Case{{In: []byte("1 3\n"), Ans: []byte("0.333333333333\n")}}})
	startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)

	java := mkTask(1, hash, "java17", `import java.util.*;
public class Solution {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        System.out.println(a + b);
    }
}
`)
	float := func(expr string) protocol.Task {
		return mkTask(2, third, "py3", "a,b=map(int,input().split())\nprint("+expr+")\n", func(t *protocol.Task) {
			t.Checker = protocol.Checker{Kind: protocol.CheckerFloat, Tolerance: 1e-6}
		})
	}
	close, far := float("'%.7f' % (a/b)"), float("'%.3f' % (a/b)")
	for _, tk := range []protocol.Task{java, close, far} {
		h.send(protocol.TypeTask, tk)
	}
	if r := c.result(java.TaskRef, 60*time.Second); r.Verdict != protocol.VerdictAC {
		t.Errorf("java: %+v", r)
	}
	if r := c.result(close.TaskRef, 30*time.Second); r.Verdict != protocol.VerdictAC {
		t.Errorf("float within 1e-6: %+v", r)
	}
	if r := c.result(far.TaskRef, 30*time.Second); r.Verdict != protocol.VerdictWA {
		t.Errorf("float off by 3e-4: %+v", r)
	}
}

// TestGo: a Go submission compiles in the sandbox (its build directory and
// the standard library's archives are larger than the sandbox's /tmp and
// than a naive compile file-size limit) and is accepted.
func TestGo(t *testing.T) {
	h := newFakeHub(t)
	hash := h.addPackage(aplusb())
	ra := startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)
	task := mkTask(1, hash, "go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar a, b int64\n\tfmt.Scan(&a, &b)\n\tfmt.Println(a + b)\n}\n")
	start := time.Now()
	h.send(protocol.TypeTask, task)
	if r := c.result(task.TaskRef, 120*time.Second); r.Verdict != protocol.VerdictAC {
		t.Fatalf("go: %s %q", r.Verdict, r.CompileMessage)
	}
	cold := time.Since(start)
	// The first compile's build cache (the standard library) is kept and
	// seeds the next compile, which must still be right.
	kept, _ := filepath.Glob(filepath.Join(ra.a.cfg.Dir, "buildcache", "go-*"))
	if len(kept) != 1 || dirSize(kept[0]) < 1<<20 {
		t.Fatalf("kept build cache %v (%d bytes): want the standard library's archives", kept, dirSizeOf(kept))
	}
	task2 := mkTask(1, hash, "go", "package main\n\nimport (\n\t\"bufio\"\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tin := bufio.NewReader(os.Stdin)\n\tvar a, b int64\n\tfmt.Fscan(in, &a, &b)\n\tfmt.Println(a + b)\n}\n")
	start = time.Now()
	h.send(protocol.TypeTask, task2)
	if r := c.result(task2.TaskRef, 120*time.Second); r.Verdict != protocol.VerdictAC {
		t.Fatalf("go with a kept build cache: %s %q", r.Verdict, r.CompileMessage)
	}
	t.Logf("go: first submission judged in %v (cold build cache), second in %v", cold.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}

func dirSizeOf(dirs []string) int64 {
	if len(dirs) == 0 {
		return 0
	}
	return dirSize(dirs[0])
}

// A minimal testlib-style checker: AC when the output equals the answer,
// 7 with half the points for "half", WA otherwise.
const partialChecker = `#include <cstdio>
#include <cstring>
int main(int argc, char** argv) {
    if (argc != 4) { fprintf(stderr, "usage: checker input output answer"); return 3; }
    char out[256] = {0}, ans[256] = {0};
    FILE* o = fopen(argv[2], "r"); FILE* a = fopen(argv[3], "r");
    if (!o || !a) { fprintf(stderr, "cannot open files"); return 3; }
    if (fscanf(a, "%255s", ans) != 1) { fprintf(stderr, "empty answer"); return 3; }
    if (fscanf(o, "%255s", out) != 1) { fprintf(stderr, "empty output"); return 2; }
    if (strcmp(out, ans) == 0) { fprintf(stderr, "ok"); return 0; }
    if (strcmp(out, "half") == 0) { fprintf(stderr, "points 0.5 half right"); return 7; }
    fprintf(stderr, "expected %s, found %s", ans, out);
    return 1;
}
`

func TestSpecialJudgeAndVersionChange(t *testing.T) {
	h := newFakeHub(t)
	cases := []testpkg.Case{{In: []byte("1\n"), Ans: []byte("one\n")}, {In: []byte("2\n"), Ans: []byte("two\n")}}
	special := h.addPackage(testpkg.Package{Cases: cases, Checker: []byte(partialChecker)})
	ra := startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)

	ioi := func(t *protocol.Task) {
		t.Mode = protocol.ModeIOI
		t.Checker = protocol.Checker{Kind: protocol.CheckerSpecial}
	}
	partial := mkTask(3, special, "py3", "n=int(input())\nprint('one' if n==1 else 'half')\n", ioi)
	wrong := mkTask(3, special, "py3", "print('zero')\n", ioi)
	h.send(protocol.TypeTask, partial)
	h.send(protocol.TypeTask, wrong)
	r := c.result(partial.TaskRef, 60*time.Second)
	if r.Verdict != protocol.VerdictWA || r.Score != 75 || r.Cases[0].Verdict != protocol.VerdictAC ||
		r.Cases[1].Score != 25 || r.Cases[1].Message != "half right" {
		t.Errorf("partial: %+v", r)
	}
	r = c.result(wrong.TaskRef, 30*time.Second)
	if r.Verdict != protocol.VerdictWA || r.Score != 0 || len(r.Cases) != 2 || !strings.Contains(r.Cases[0].Message, "expected one") {
		t.Errorf("wrong: %+v", r)
	}

	// The problem's test data changes: the new version is fetched and used.
	v1 := h.addPackage(testpkg.Package{Cases: []testpkg.Case{{In: []byte("1 2\n"), Ans: []byte("3\n")}}})
	v2 := h.addPackage(testpkg.Package{Cases: []testpkg.Case{{In: []byte("1 2\n"), Ans: []byte("-1\n")}}})
	src := "a,b=map(int,input().split())\nprint(a+b)\n"
	t1 := mkTask(4, v1, "py3", src)
	h.send(protocol.TypeTask, t1)
	if r := c.result(t1.TaskRef, 30*time.Second); r.Verdict != protocol.VerdictAC {
		t.Errorf("v1: %+v", r)
	}
	h.send(protocol.TypeEvict, protocol.Evict{ProblemID: 4})
	t2 := mkTask(4, v2, "py3", src)
	h.send(protocol.TypeTask, t2)
	if r := c.result(t2.TaskRef, 30*time.Second); r.Verdict != protocol.VerdictWA {
		t.Errorf("v2: %+v", r)
	}
	hashes := strings.Join(ra.a.cache.Hashes(), ",")
	if strings.Contains(hashes, v1) || !strings.Contains(hashes, v2) {
		t.Errorf("cache after evict of v1 holds %s", hashes)
	}
	// Prefetch warms the cache without a task.
	v3 := h.addPackage(testpkg.Package{Cases: []testpkg.Case{{In: []byte("3\n"), Ans: []byte("3\n")}}})
	h.send(protocol.TypePrefetch, protocol.Prefetch{ProblemID: 5, TestData: protocol.TestData{Hash: v3, URL: h.srv.URL + "/api/judge/testdata/" + v3}})
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(strings.Join(ra.a.cache.Hashes(), ","), v3) {
		if time.Now().After(deadline) {
			t.Fatal("prefetch did not arrive in the cache")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestResultKeptUntilAcknowledged: against a hub that acknowledges results,
// a result written to a connection that then drops is not forgotten: it is
// resent on the next connection and leaves the outbox only on result_ack.
func TestResultKeptUntilAcknowledged(t *testing.T) {
	h := newFakeHub(t)
	h.acks.Store(true)
	hash := h.addPackage(aplusb())
	ra := startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)

	task := mkTask(1, hash, "py3", "a,b=map(int,input().split())\nprint(a+b)\n")
	h.send(protocol.TypeTask, task)
	c.result(task.TaskRef, 30*time.Second)
	if n := ra.a.outbox.len(); n != 1 {
		t.Fatalf("outbox holds %d results after an unacknowledged send, want 1", n)
	}
	// The link drops before the hub acknowledged: the result comes again.
	h.drop()
	h.waitConn(2, 10*time.Second)
	c.until("the result resent on connection 2", 10*time.Second, func() bool {
		for _, r := range c.results[task.TaskRef] {
			if r.conn == 2 {
				return true
			}
		}
		return false
	})
	if r := c.results[task.TaskRef]; r[len(r)-1].r.Verdict != r[0].r.Verdict {
		t.Errorf("resent result differs: %+v vs %+v", r[len(r)-1].r, r[0].r)
	}
	h.send(protocol.TypeResultAck, protocol.ResultAck{TaskRef: task.TaskRef})
	deadline := time.Now().Add(5 * time.Second)
	for ra.a.outbox.len() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the acknowledged result stayed in the outbox")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Heartbeats stop listing it, so the hub may let its lease go.
	beats := len(c.beats)
	c.until("a heartbeat after the ack", 5*time.Second, func() bool { return len(c.beats) > beats+1 })
	for _, ref := range c.beats[len(c.beats)-1].hb.Tasks {
		if ref == task.TaskRef {
			t.Error("a heartbeat after the ack still lists the task")
		}
	}
}

func TestReconnectDeliversResult(t *testing.T) {
	h := newFakeHub(t)
	hash := h.addPackage(aplusb())
	startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)

	slow := mkTask(1, hash, "py3", "import time\ntime.sleep(1.5)\na,b=map(int,input().split())\nprint(a+b)\n",
		func(t *protocol.Task) { t.Limits.TimeMs = 3000 })
	h.send(protocol.TypeTask, slow)
	c.until("accept", 10*time.Second, func() bool { return c.accepts[slow.TaskRef] > 0 })
	h.drop()
	h.waitConn(2, 10*time.Second)
	// The first heartbeat on the new connection reports the task in flight.
	var first *protocol.Heartbeat
	c.until("a heartbeat on connection 2", 5*time.Second, func() bool {
		for _, b := range c.beats {
			if b.conn == 2 {
				first = &b.hb
				return true
			}
		}
		return false
	})
	if len(c.results[slow.TaskRef]) == 0 {
		listed := false
		for _, ref := range first.Tasks {
			listed = listed || ref == slow.TaskRef
		}
		if !listed || first.Running+first.Queued < 1 {
			t.Errorf("first heartbeat after reconnect does not report the task: %+v", first)
		}
	}
	r := c.result(slow.TaskRef, 30*time.Second)
	if r.Verdict != protocol.VerdictAC {
		t.Errorf("result after reconnect: %+v", r)
	}
	if got := c.results[slow.TaskRef][0].conn; got != 2 {
		t.Errorf("result arrived on connection %d, want 2", got)
	}
}

// TestCancelStopsTheRun: the hub withdraws an attempt (its lease was lost):
// the running program is killed at once, nothing is reported for it, the
// slot is free again and the next heartbeat no longer lists it. A cancel
// for another attempt is ignored.
func TestCancelStopsTheRun(t *testing.T) {
	h := newFakeHub(t)
	hash := h.addPackage(aplusb())
	ra := startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)

	spin := mkTask(1, hash, "py3", "while True:\n    pass\n",
		func(t *protocol.Task) { t.Limits.TimeMs = 20000; t.Limits.WallTimeMs = 30000 })
	h.send(protocol.TypeTask, spin)
	c.until("the spinning task running", 20*time.Second, func() bool {
		for _, b := range c.beats {
			if b.hb.Running == 1 {
				return true
			}
		}
		return false
	})
	// Another attempt of the same submission: not held, ignored.
	h.send(protocol.TypeCancel, protocol.Cancel{TaskRef: protocol.TaskRef{SubmissionID: spin.SubmissionID, Attempt: spin.Attempt + 1}, Reason: protocol.CancelLeaseLost})
	time.Sleep(300 * time.Millisecond)
	if n := len(ra.a.heldTasks()); n != 1 {
		t.Fatalf("a cancel for another attempt dropped the task (%d held)", n)
	}
	sent := time.Now()
	h.send(protocol.TypeCancel, protocol.Cancel{TaskRef: spin.TaskRef, Reason: protocol.CancelLeaseLost})
	beats := len(c.beats)
	c.until("a heartbeat with the slot free", 10*time.Second, func() bool {
		for _, b := range c.beats[beats:] {
			if b.hb.Running == 0 && b.hb.Queued == 0 && len(b.hb.Tasks) == 0 {
				return true
			}
		}
		return false
	})
	if took := time.Since(sent); took > 5*time.Second {
		t.Errorf("the run stopped %v after the cancel", took)
	}
	for end := time.After(500 * time.Millisecond); ; { // whatever else comes
		select {
		case m := <-h.msgs:
			c.take(m)
			continue
		case <-end:
		}
		break
	}
	if r := c.results[spin.TaskRef]; len(r) != 0 {
		t.Fatalf("a cancelled attempt reported %+v", r)
	}
	// The slot takes new work.
	ok := mkTask(1, hash, "py3", "a,b=map(int,input().split())\nprint(a+b)\n")
	h.send(protocol.TypeTask, ok)
	if r := c.result(ok.TaskRef, 30*time.Second); r.Verdict != protocol.VerdictAC {
		t.Fatalf("next task: %+v", r)
	}
}

// TestDrainAndRestart: a drain finishes held tasks and refuses new ones; a
// result that cannot be delivered stays on disk and the next agent on the
// same directory delivers it.
func TestDrainAndRestart(t *testing.T) {
	h := newFakeHub(t)
	hash := h.addPackage(aplusb())
	dir := t.TempDir()
	ra := startAgent(t, h, dir, func(c *Config) { c.DeliverTimeout = 500 * time.Millisecond })
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)
	src := "import time\ntime.sleep(0.5)\na,b=map(int,input().split())\nprint(a+b)\n"
	first := mkTask(1, hash, "py3", src, func(t *protocol.Task) { t.Limits.TimeMs = 2000 })
	h.send(protocol.TypeTask, first)
	c.until("accept", 10*time.Second, func() bool { return c.accepts[first.TaskRef] > 0 })

	// Drain (what SIGTERM does): the result is still delivered.
	ra.cancel()
	c.until("the drain notice", 5*time.Second, func() bool { return c.drains > 0 })
	late := mkTask(1, hash, "py3", src)
	h.send(protocol.TypeTask, late)
	c.until("the late task's reject", 5*time.Second, func() bool { return c.rejects[late.TaskRef].Reason != "" })
	if c.rejects[late.TaskRef].Reason != protocol.RejectDraining {
		t.Errorf("late task: %+v", c.rejects[late.TaskRef])
	}
	if r := c.result(first.TaskRef, 30*time.Second); r.Verdict != protocol.VerdictAC {
		t.Errorf("drained result: %+v", r)
	}
	if err := ra.stop(t, 20*time.Second); err != nil {
		t.Fatalf("drain: %v", err)
	}

	// Second life: the hub goes away mid-task; the drain cannot deliver.
	ra = startAgent(t, h, dir, func(c *Config) { c.DeliverTimeout = 300 * time.Millisecond })
	h.waitConn(2, 10*time.Second)
	lost := mkTask(1, hash, "py3", src, func(t *protocol.Task) { t.Limits.TimeMs = 2000 })
	h.send(protocol.TypeTask, lost)
	c.until("accept", 10*time.Second, func() bool { return c.accepts[lost.TaskRef] > 0 })
	h.down.Store(true)
	h.drop()
	if err := ra.stop(t, 30*time.Second); err != nil {
		t.Fatalf("drain without hub: %v", err)
	}
	if len(c.results[lost.TaskRef]) != 0 {
		t.Fatal("result delivered to a dead hub?")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "outbox", "*.json"))
	if len(files) != 1 {
		t.Fatalf("outbox holds %v", files)
	}

	// Third life: the hub is back; the result from the earlier run arrives.
	h.down.Store(false)
	startAgent(t, h, dir, nil)
	if r := c.result(lost.TaskRef, 20*time.Second); r.Verdict != protocol.VerdictAC {
		t.Errorf("result after restart: %+v", r)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		files, _ = filepath.Glob(filepath.Join(dir, "outbox", "*.json"))
		if len(files) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("outbox not emptied: %v", files)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBadTokenStops(t *testing.T) {
	h := newFakeHub(t)
	ra := startAgent(t, h, "", func(c *Config) { c.Token = "wrong" })
	select {
	case err := <-ra.done:
		ra.done <- err
		var stop *StopError
		if !errors.As(err, &stop) || stop.Code != protocol.CloseBadToken || !strings.Contains(err.Error(), "token") {
			t.Fatalf("Run = %v, want a StopError with bad_token", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("agent with a bad token kept running")
	}
	if err := ra.a.Ready(context.Background()); err == nil {
		t.Error("ready without a hub")
	}
}

// TestFloodMemoryBounded: a solution printing as fast as it can does not
// grow the agent's memory, whether it passes the output limit (OLE) or
// stays under it (the checker streams).
func TestFloodMemoryBounded(t *testing.T) {
	h := newFakeHub(t)
	hash := h.addPackage(aplusb())
	startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
		}
	}()
	flood := "#include <cstdio>\n#include <cstring>\nint main(){static char b[1<<16];memset(b,'7',sizeof b);for(;;)fwrite(b,1,sizeof b,stdout);}\n"
	under := "#include <cstdio>\n#include <cstring>\nint main(){static char b[1<<16];memset(b,' ',sizeof b);b[0]='3';fwrite(b,1,1,stdout);for(int i=0;i<600;i++)fwrite(b+1,1,sizeof b-1,stdout);}\n"
	big := func(t *protocol.Task) { t.Limits.OutputBytes = 64 << 20 }
	t1, t2 := mkTask(1, hash, "cpp17", flood, big), mkTask(1, hash, "cpp17", under, big)
	h.send(protocol.TypeTask, t1)
	h.send(protocol.TypeTask, t2)
	r1 := c.result(t1.TaskRef, 60*time.Second)
	r2 := c.result(t2.TaskRef, 60*time.Second)
	close(stop)
	<-sampled
	if r1.Verdict != protocol.VerdictOLE {
		t.Errorf("flood: %+v", r1)
	}
	// ~39 MB of spaces after "3": the token checker streams through it.
	if r2.Verdict != protocol.VerdictAC && r2.Verdict != protocol.VerdictWA {
		t.Errorf("large output: %+v", r2)
	}
	if grow := int64(peak.Load()) - int64(base.HeapAlloc); grow > 24<<20 {
		t.Errorf("agent heap grew by %d MiB while solutions printed 100+ MiB", grow>>20)
	}
}

func TestStateDirIsPrivate(t *testing.T) {
	h := newFakeHub(t)
	dir := filepath.Join(t.TempDir(), "state")
	startAgent(t, h, dir, nil)
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("state dir mode %v, %v", st.Mode(), err)
	}
}

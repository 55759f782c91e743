package chaos

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestResultFormatAndSummary(t *testing.T) {
	pass := Result{Name: "a", Took: 1500 * time.Millisecond}
	pass.did("killed %s", "judge-1")
	pass.check(true, "judged once", "unused")
	fail := Result{Name: "b"}
	fail.check(false, "judged elsewhere", "judged by judge-1")
	tests := []struct {
		r    Result
		want []string
		not  []string
	}{
		{pass, []string{"== drill a: PASS (1.5 s)", "did:     killed judge-1", "checked: judged once"}, []string{"FAILED"}},
		{fail, []string{"== drill b: FAIL", "checked: judged elsewhere", "FAILED:  judged elsewhere: judged by judge-1"}, []string{"PASS"}},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		tc.r.Format(&b)
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: report lacks %q:\n%s", tc.r.Name, w, b.String())
			}
		}
		for _, w := range tc.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("%s: report has %q:\n%s", tc.r.Name, w, b.String())
			}
		}
	}
	s := Summary([]Result{pass, fail})
	for _, w := range []string{"PASS a", "FAIL b", "1 of 2 drills passed"} {
		if !strings.Contains(s, w) {
			t.Errorf("summary lacks %q:\n%s", w, s)
		}
	}
}

func TestRetryable(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   bool
	}{{0, true}, {502, true}, {503, true}, {504, true}, {429, true}, {200, false}, {400, false}, {500, false}} {
		if got := retryable(Attempt{Status: tc.status}); got != tc.want {
			t.Errorf("retryable(%d) = %v, want %v", tc.status, got, tc.want)
		}
	}
}

// TestKillDrills are the drills CI runs, on one real stack: a judge killed
// with SIGKILL while it holds a task (judged by the other judge, exactly
// once), then the hub killed with SIGKILL mid-run and restarted (every
// submission still gets exactly one verdict), then Redis wiped while
// submissions wait and the judges reconnect before the tokens are back
// (last: it empties Redis). `make chaos` runs every drill.
func TestKillDrills(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the judges' sandbox needs root")
	}
	root, _ := filepath.Abs("../../..")
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sw := &syncWriter{w: &out}
	e, stop, err := Start(ctx, Options{Root: root, Dir: t.TempDir(), Out: sw})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, d := range []Drill{{"kill-judge", KillJudge}, {"kill-hub", KillHub}, {"wipe-redis", WipeRedis}} {
		r := Run(ctx, e, d)
		var rep bytes.Buffer
		r.Format(&rep)
		t.Log("\n" + rep.String())
		if !r.Passed() {
			t.Errorf("drill %s failed:\n%s", d.Name, rep.String())
		}
	}
	if t.Failed() { // the stack's own words on what went wrong
		sw.mu.Lock()
		b := out.String()
		sw.mu.Unlock()
		t.Logf("the stack's output (last 20000 bytes):\n%s", b[max(0, len(b)-20000):])
	}
}

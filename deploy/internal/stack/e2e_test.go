package stack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The solutions the browser submits to A+B. The accepted one burns about
// 150 ms of CPU per case so that the judge streams several progress batches
// (it batches every 250 ms) and the page visibly fills in case by case.
const (
	slowAccepted = `#include <cstdio>
#include <ctime>
int main() {
    long long a, b;
    if (scanf("%lld %lld", &a, &b) != 2) return 1;
    clock_t start = clock();
    volatile unsigned long long x = 0;
    while (clock() - start < CLOCKS_PER_SEC * 15 / 100) x++;
    printf("%lld\n", a + b);
    return 0;
}
`
	// Right on the first case ("1 2"), wrong on the second.
	alwaysThree = `#include <cstdio>
int main() { puts("3"); return 0; }
`
)

// artifacts is where screenshots go: $VERDICT_ARTIFACTS or bin/e2e.
func artifacts(t *testing.T) string {
	d := os.Getenv("VERDICT_ARTIFACTS")
	if d == "" {
		root, _ := filepath.Abs("../../..")
		d = filepath.Join(root, "bin", "e2e")
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	p := filepath.Join(artifacts(t), strings.ReplaceAll(name, " ", "-")+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Logf("screenshot %s: %v", name, err)
	}
}

// browser starts a headless Chromium (Debian's, installed by make deps).
func browser(t *testing.T) (context.Context, context.CancelFunc) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Fatalf("the browser test needs /usr/bin/chromium (make deps installs it): %v", err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath("/usr/bin/chromium"),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	return ctx, func() { cancelB(); cancelA() }
}

// caseStates reads the live verdict table: one "index:verdict" per row.
const caseStatesJS = `Array.from(document.querySelectorAll('tr[data-case]')).map(r => r.dataset.case + ':' + r.dataset.verdict).join(' ')`

// watchCases polls the verdict table until every row is final or the
// deadline passes and returns each distinct state seen, in order.
func watchCases(t *testing.T, ctx context.Context, done func(string) bool, within time.Duration) []string {
	t.Helper()
	var seen []string
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](caseStatesJS))
		if err != nil {
			t.Fatalf("read the verdict table: %v", err)
		}
		if len(seen) == 0 || seen[len(seen)-1] != s {
			seen = append(seen, s)
		}
		if done(s) {
			return seen
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("the verdict table did not finish within %v; states seen:\n%s", within, strings.Join(seen, "\n"))
	return nil
}

// js evaluates a boolean expression in the page as a step.
func js(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](expr)(ctx, t)
		return err
	})
}

// until waits for a boolean expression in the page to become true.
func until(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[bool](expr)(ctx, t)
		return err
	})
}

// step runs actions with their own deadline and, on failure, saves a
// screenshot named after the step and fails the test.
func step(t *testing.T, ctx context.Context, name string, within time.Duration, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		screenshot(t, ctx, "failed-"+name)
		t.Fatalf("%s: %v", name, err)
	}
}

func submit(t *testing.T, ctx context.Context, url, source string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "main.cpp")
	if err := os.WriteFile(f, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "open the problem", 30*time.Second,
		chromedp.Navigate(url),
		chromedp.WaitReady(chromedp.CSS(`#language option[value="cpp17"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.cm-content`)), // the editor loads lazily
	)
	// Choosing a file fires "change" in a real browser; setting the input's
	// files over CDP does not here, so the test fires it as the browser would.
	step(t, ctx, "choose C++17 and load the source file", 15*time.Second,
		chromedp.SetValue(chromedp.CSS(`#language`), "cpp17"),
		chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{f}),
		js(`document.querySelector('input[type=file]').dispatchEvent(new Event('change', {bubbles: true}))`),
		until(`!!document.querySelector('.cm-content')?.innerText.includes('main')`),
	)
	step(t, ctx, "submit", 30*time.Second,
		chromedp.Click(chromedp.CSS(`.submit-panel button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-case]`)),
	)
}

// TestBrowserEndToEnd is issue 7's acceptance: the whole stack behind real
// nginx, driven by headless Chromium.
func TestBrowserEndToEnd(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the judges' sandbox needs root")
	}
	root, _ := filepath.Abs("../../..")
	static := filepath.Join(root, "frontend", "dist")
	if _, err := os.Stat(filepath.Join(static, "index.html")); err != nil {
		t.Fatalf("the browser test needs the built frontend (make test builds it: npm run build): %v", err)
	}
	bin := buildComponents(t)
	out := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			lines := strings.Split(out.String(), "\n")
			t.Logf("last lines of the stack's output:\n%s", strings.Join(lines[max(0, len(lines)-120):], "\n"))
		}
	})
	cfg := Config{
		Dir: t.TempDir(), BinDir: bin, StaticDir: static, Demo: true, Restart: false, Judges: 2, Out: out,
	}
	if err := UseFreePorts(&cfg); err != nil {
		t.Fatal(err)
	}
	s, stop := startStack(t, cfg)
	defer stop()
	logins := map[string]string{}
	for _, l := range strings.Split(s.demoLogins, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && !strings.HasPrefix(l, "#") {
			logins[f[0]] = f[1]
		}
	}
	base := strings.TrimSuffix(s.URL(), "/")

	ctx, cancel := browser(t)
	defer cancel()

	// Start the browser without a deadline (it lives as long as ctx), then
	// log in as the demo student.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	step(t, ctx, "log in", 30*time.Second,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), "student"),
		chromedp.SendKeys(chromedp.ID("password"), logins["student"]),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
		chromedp.WaitNotPresent(chromedp.ID("password")),
	)

	// A second browser context watches the contest scoreboard.
	sbCtx, cancelSB := chromedp.NewContext(ctx)
	defer cancelSB()
	if err := chromedp.Do(sbCtx); err != nil {
		t.Fatalf("open a second tab: %v", err)
	}
	step(t, sbCtx, "open the scoreboard", 30*time.Second,
		chromedp.Navigate(base+"/contests/demo?tab=scoreboard"),
		chromedp.WaitVisible(chromedp.CSS(`section[aria-labelledby="sb-h"]`)))

	// An accepted C++ solution: the cases turn accepted one by one.
	submit(t, ctx, base+"/contests/demo/problems/a-plus-b", slowAccepted)
	screenshot(t, ctx, "1-judging")
	allAC := func(s string) bool {
		f := strings.Fields(s)
		for _, c := range f {
			if !strings.HasSuffix(c, ":AC") {
				return false
			}
		}
		return len(f) > 0
	}
	states := watchCases(t, ctx, allAC, 90*time.Second)
	acceptedAt := time.Now()
	screenshot(t, ctx, "2-accepted")
	partial := 0
	for _, st := range states {
		n := strings.Count(st, ":AC")
		if n > 0 && n < len(strings.Fields(st)) {
			partial++
		}
	}
	if partial < 2 {
		t.Errorf("the cases did not fill in one by one: %d partial states; seen:\n%s", partial, strings.Join(states, "\n"))
	}
	// The page is a single-page app: the submit did not reload it, so its
	// Resource Timing holds every request since login. The live view must
	// not poll the submission over REST.
	submissionGets, err := chromedp.Run(ctx, chromedp.Evaluate[int](
		`performance.getEntriesByType('resource').filter(e => /\/api\/submissions\/\d+/.test(e.name)).length`))
	if err != nil {
		t.Fatal(err)
	}
	if submissionGets > 2 {
		t.Errorf("the page read the submission %d times over REST: the live view polls instead of listening", submissionGets)
	}

	// The scoreboard in the other context shows the solve within 2 s.
	var solved bool
	for time.Since(acceptedAt) < 2*time.Second && !solved {
		solved, _ = chromedp.Run(sbCtx, chromedp.Evaluate[bool](`!!document.querySelector('td[data-label="A"].cell-solved, td[data-label="A"].cell-first')`))
		time.Sleep(50 * time.Millisecond)
	}
	screenshot(t, sbCtx, "3-scoreboard")
	if !solved {
		t.Errorf("the scoreboard did not show A solved within 2 s of the verdict")
	}

	// Kill one web node: nginx routes around it and the rest still works.
	pids := s.Pids()
	if err := syscall.Kill(pids["web-1"], syscall.SIGKILL); err != nil {
		t.Fatalf("kill web-1: %v", err)
	}

	// A wrong solution: wrong answer on case 2 (case 1 is right).
	submit(t, ctx, base+"/contests/demo/problems/a-plus-b", alwaysThree)
	final := func(s string) bool { return strings.Contains(s, ":WA") }
	states = watchCases(t, ctx, final, 90*time.Second)
	last := states[len(states)-1]
	screenshot(t, ctx, "4-wrong-answer")
	if !strings.Contains(last, "1:AC") || !strings.Contains(last, "2:WA") {
		t.Errorf("wrong answer not on case 2: %s", last)
	}
	fmt.Fprintf(os.Stderr, "e2e screenshots in %s\n", artifacts(t))
}

package stack

import (
	"fmt"
	"os"
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

// TestBrowserEndToEnd is issue 7's acceptance: the whole stack behind real
// nginx, driven by headless Chromium.
func TestBrowserEndToEnd(t *testing.T) {
	env := startBrowserStack(t, 2)
	s, logins, base := env.stack, env.logins, env.base

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

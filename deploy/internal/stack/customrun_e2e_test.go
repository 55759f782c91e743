package stack

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestCustomRunBrowser (issue 17): on a problem's page the demo student
// runs an accepted solution on their own input ("Run on my input"); the
// output, time and memory appear live (the user channel's custom_run
// events, not REST polling), and nothing became a submission.
func TestCustomRunBrowser(t *testing.T) {
	env := startBrowserStack(t, 1)
	logins, base := env.logins, env.base
	ctx, cancel := browser(t)
	defer cancel()
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
	src := filepath.Join(t.TempDir(), "main.py")
	if err := os.WriteFile(src, []byte("a, b = map(int, input().split())\nprint(a + b)\nimport sys\nprint('note', file=sys.stderr)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "open the problem", 30*time.Second,
		chromedp.Navigate(base+"/problems/a-plus-b"),
		chromedp.WaitReady(chromedp.CSS(`#language option[value="py3"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.cm-content`)),
		chromedp.WaitVisible(chromedp.ID("run-input")),
	)
	step(t, ctx, "choose Python and load the source", 15*time.Second,
		chromedp.SetValue(chromedp.CSS(`#language`), "py3"),
		js(`document.querySelector('#language').dispatchEvent(new Event('change', {bubbles: true}))`),
		chromedp.SetUploadFiles(chromedp.CSS(`.submit-panel input[type=file]`), []string{src}),
		js(`document.querySelector('.submit-panel input[type=file]').dispatchEvent(new Event('change', {bubbles: true}))`),
		until(`!!document.querySelector('.cm-content')?.innerText.includes('print(a + b)')`),
	)
	// Watch the result's states as they come (the page does not reload).
	step(t, ctx, "run on my input", 60*time.Second,
		chromedp.SendKeys(chromedp.ID("run-input"), "40 2\n"),
		js(`(() => {
			window.__runStates = [];
			new MutationObserver(() => {
				const s = document.querySelector('[data-testid="run-result"]')?.getAttribute('data-status');
				if (s && window.__runStates.at(-1) !== s) window.__runStates.push(s);
			}).observe(document.querySelector('[data-testid="custom-run"]'), {subtree: true, childList: true, attributes: true});
			return true;
		})()`),
		chromedp.Click(chromedp.CSS(`[data-testid="run-button"]`)),
		until(`document.querySelector('[data-testid="run-result"]')?.getAttribute('data-status') === 'AC'`),
		until(`document.querySelector('[data-testid="run-output-0"] .run-stdout')?.textContent === '42\n'`),
		until(`(document.querySelector('[data-testid="run-output-0"] .run-stderr')?.textContent ?? '') === 'note\n'`),
		until(`(document.querySelector('[data-testid="run-output-0"]')?.textContent ?? '').includes('ms')`),
	)
	screenshot(t, ctx, "custom-run-1-output")
	states, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.__runStates.join(' → ')`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("custom run states seen: %s", states)
	// Live, not polled: the page read no custom run over REST (the poll is
	// a fallback for a socket that is down), and made no submission.
	gets, err := chromedp.Run(ctx, chromedp.Evaluate[int](
		`performance.getEntriesByType('resource').filter(e => /\/api\/custom-runs\/\d+/.test(e.name)).length`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(states, "queued") || !strings.HasSuffix(states, "AC") {
		t.Errorf("custom run states %q: want queued first, AC last", states)
	}
	if gets > 1 {
		t.Errorf("the page read the custom run %d times over REST: it polls instead of listening", gets)
	}
	subs, err := chromedp.Run(ctx, chromedp.Evaluate[int](
		`performance.getEntriesByType('resource').filter(e => e.name.endsWith('/api/submissions') && e.initiatorType === 'fetch').length`))
	if err != nil {
		t.Fatal(err)
	}
	if subs != 0 {
		t.Errorf("a custom run made %d submission requests", subs)
	}
}

package stack

// Helpers of the browser tests (TestBrowserEndToEnd, TestAdminBrowser):
// the stack with the built frontend, headless Chromium, steps with their own
// deadlines and a screenshot on failure.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// browserStack is a running stack with demo data for a browser test.
type browserStack struct {
	stack  *Stack
	base   string            // http://127.0.0.1:port, no trailing slash
	logins map[string]string // demo username -> password
}

// startBrowserStack builds the components and starts the whole stack (with
// demo data, the built frontend and the given number of judges) behind
// nginx; it stops when the test ends. It needs root (the judges' sandbox)
// and frontend/dist.
func startBrowserStack(t *testing.T, judges int) browserStack {
	t.Helper()
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
		Dir: t.TempDir(), BinDir: bin, StaticDir: static, Demo: true, Restart: false, Judges: judges, Out: out, FreePorts: true,
	}
	s, stop := startStack(t, cfg)
	t.Cleanup(stop)
	logins := map[string]string{}
	for _, l := range strings.Split(s.demoLogins, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && !strings.HasPrefix(l, "#") {
			logins[f[0]] = f[1]
		}
	}
	return browserStack{stack: s, base: strings.TrimSuffix(s.URL(), "/"), logins: logins}
}

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

// newBrowserContext opens a browser context of its own (own cookies, as
// another person or another computer would have) under parent's browser.
func newBrowserContext(t *testing.T, parent context.Context) (context.Context, context.CancelFunc) {
	t.Helper()
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		t.Fatalf("open a browser context: %v", err)
	}
	return ctx, cancel
}

// acceptDialogs answers OK to every JavaScript dialog (confirm, alert) the
// tab of ctx opens from now on, as a user clicking OK would, and returns
// a func that lists the dialogs' messages so far. Without it a confirm()
// blocks the page, and the step that clicked waits until its deadline.
func acceptDialogs(t *testing.T, ctx context.Context) func() []string {
	t.Helper()
	var (
		mu   sync.Mutex
		msgs []string
	)
	// Subscribed now, before any click can open a dialog.
	opening := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range opening {
			if err != nil {
				return // the context ended
			}
			mu.Lock()
			msgs = append(msgs, ev.Message)
			mu.Unlock()
			if _, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true}); err != nil && ctx.Err() == nil {
				// The step that waits on the page fails with its own
				// message; this says why.
				t.Logf("accept the dialog %q: %v", ev.Message, err)
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), msgs...)
	}
}

// loginFails tries to log in and expects the login page's "wrong username
// or password" message, still logged out.
func loginFails(t *testing.T, ctx context.Context, base, user, pw string) {
	t.Helper()
	step(t, ctx, "log in as "+user+" with a wrong password", 30*time.Second,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), user),
		chromedp.SendKeys(chromedp.ID("password"), pw),
		chromedp.KeyEvent("\r"),
		until(`(document.querySelector('main .alert-error[role=alert]')?.textContent ?? '').includes('Wrong username or password.')`),
		until(`!!document.getElementById('password') && !document.querySelector('.whoami')`),
	)
}

// caseStates reads the live verdict table: one "index:verdict" per row.
const caseStatesJS = `Array.from(document.querySelectorAll('tr[data-case]')).map(r => r.dataset.case + ':' + r.dataset.verdict).join(' ')`

// recordCasesJS has the page itself record each distinct state of the
// verdict table as it renders it (a MutationObserver runs after every task
// that changed the DOM, so after each pushed progress frame), and answers
// the states recorded so far. Reading the table from the test instead
// samples it: a CDP round trip that stalls for a second under a loaded CI
// machine missed a whole progress batch (clean-clone CI, 2026-12-05).
const recordCasesJS = `(() => {
  const read = () => ` + caseStatesJS + `;
  if (!window.__verdictCaseStates) {
    const states = [read()];
    window.__verdictCaseStates = states;
    new MutationObserver(() => {
      const s = read();
      if (states[states.length - 1] !== s) states.push(s);
    }).observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  }
  return window.__verdictCaseStates;
})()`

// watchCases watches the verdict table until done holds for its state or
// the deadline passes and returns each distinct state the page rendered,
// in order.
func watchCases(t *testing.T, ctx context.Context, done func(string) bool, within time.Duration) []string {
	t.Helper()
	// A fresh recorder for this watch (an earlier one on the page recorded
	// an earlier submission).
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`delete window.__verdictCaseStates`)); err != nil {
		t.Fatalf("reset the verdict table's recorder: %v", err)
	}
	var seen []string
	read := 0 // how many of the recorder's states are in seen
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		states, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](recordCasesJS))
		if err != nil {
			t.Fatalf("read the verdict table: %v", err)
		}
		if len(states) < read { // a reload started a new recorder
			read = 0
		}
		for _, s := range states[read:] {
			if len(seen) > 0 && seen[len(seen)-1] == s {
				continue
			}
			seen = append(seen, s)
			if done(s) {
				return seen
			}
		}
		read = len(states)
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

// pollEvery is how often until evaluates its expression. chromedp's
// default, every animation frame, has the page draw 60 frames a second
// while a test waits (for a verdict, a pushed board), in software here.
// Measured 2026-12-04 on the project's 2-core machine over
// TestAdminBrowser and TestBrowserCSP: Chromium used 77 s of CPU polling
// every frame, 66 s polling every 50 ms; CPU the rest of the suite,
// running beside, needs. A person takes longer than 50 ms to notice a
// change anyway.
const pollEvery = 50 * time.Millisecond

// until waits for a boolean expression in the page to become true.
func until(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for {
			_, err := chromedp.Poll[bool](expr, chromedp.WithPollingInterval(pollEvery))(ctx, t)
			// A navigation (the page's own, or the one before still
			// settling) destroyed the context the poll ran in: poll the
			// new page, until the step's deadline.
			if err != nil && strings.Contains(err.Error(), "Cannot find context with specified id") && ctx.Err() == nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			return err
		}
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

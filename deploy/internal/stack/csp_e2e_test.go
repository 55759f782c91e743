package stack

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/verdict-oj/verdict/internal/httpsec"
)

// cspWatch is injected into every document before its own scripts: it
// records each Content-Security-Policy violation the page reports.
const cspWatch = `window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__csp.push(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber + ' (' + (e.sample || '') + ')');
});`

// problems collects what the browser reports that means the page does not
// work under its CSP: violations seen by the listener, the browser's own
// CSP messages (Log domain, console) and uncaught exceptions.
type problems struct {
	mu  sync.Mutex
	all []string
}

func (p *problems) add(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.all = append(p.all, s)
}

func (p *problems) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.all
	p.all = nil
	return out
}

func cspRelated(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "content security policy") || strings.Contains(s, "content-security-policy")
}

// watchCSP installs cspWatch in the tab of ctx and listens to its log,
// console and exceptions.
func watchCSP(t *testing.T, ctx context.Context) *problems {
	t.Helper()
	p := &problems{}
	entries := chromedp.Events(ctx, cdplog.EntryAdded)
	console := chromedp.Events(ctx, runtime.ConsoleAPICalled)
	thrown := chromedp.Events(ctx, runtime.ExceptionThrown)
	go func() {
		for ev, err := range entries {
			if err != nil {
				return
			}
			if e := ev.Entry; e != nil && (e.Source == cdplog.EntrySourceSecurity || cspRelated(e.Text)) {
				p.add("log: " + e.Text + " " + e.URL)
			}
		}
	}()
	go func() {
		for ev, err := range console {
			if err != nil {
				return
			}
			for _, a := range ev.Args {
				if s := string(a.Value) + a.Description; cspRelated(s) {
					p.add("console: " + s)
				}
			}
		}
	}()
	go func() {
		for ev, err := range thrown {
			if err != nil {
				return
			}
			if d := ev.ExceptionDetails; d != nil {
				msg := d.Text
				if d.Exception != nil {
					msg += " " + d.Exception.Description
				}
				p.add("uncaught: " + msg)
			}
		}
	}()
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("enable the log: %v", err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspWatch}); err != nil {
		t.Fatalf("install the CSP listener: %v", err)
	}
	return p
}

// visit opens path, waits for ready (a JS condition), lets the page settle
// and fails the test on any CSP violation or uncaught exception.
func visit(t *testing.T, ctx context.Context, p *problems, base, path, ready string) {
	t.Helper()
	step(t, ctx, "open "+path, 30*time.Second,
		chromedp.Navigate(base+path),
		until(`document.readyState === 'complete' && !!document.querySelector('#app main, #app .page, #app h1')`),
		until(ready),
	)
	time.Sleep(300 * time.Millisecond) // lazy chunks, fonts, live channel
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__csp || ['the CSP listener is missing']`))
	if err != nil {
		t.Fatalf("%s: read the CSP reports: %v", path, err)
	}
	all := append(v, p.take()...)
	if len(all) > 0 {
		screenshot(t, ctx, "csp"+strings.ReplaceAll(path, "/", "-"))
		t.Errorf("%s: %d CSP violations or errors:\n  %s", path, len(all), strings.Join(all, "\n  "))
	}
}

// TestBrowserCSP is issue 15's CSP acceptance: the whole stack behind real
// nginx, every main page opened in Chromium as a visitor, a student and an
// admin, and not one CSP violation reported (no inline script, KaTeX and
// the editor styled and working); the document and its assets carry the
// security headers.
func TestBrowserCSP(t *testing.T) {
	env := startBrowserStack(t, 1) // a judge: the node refuses submissions while none is connected
	base, logins := env.base, env.logins

	// The headers, as the browser gets them from nginx.
	// The app shell's policy admits <style> with this load's nonce, which
	// the edge wrote into the page.
	res, err := http.Get(base + "/problems")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`<meta name="csp-nonce" content="([0-9a-f]{32})"`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("no nonce in the app shell:\n%s", body)
	}
	for _, h := range httpsec.Always {
		want := h.Value
		if h.Name == "Content-Security-Policy" {
			want = httpsec.DocumentPolicy(string(m[1]))
		}
		if got := res.Header.Values(h.Name); len(got) != 1 || got[0] != want {
			t.Errorf("the app shell: %s = %q, want %q", h.Name, got, want)
		}
	}

	ctx, cancel := browser(t)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	p := watchCSP(t, ctx)
	katex := `!!document.querySelector('.statement .katex') && document.fonts.status === 'loaded' && document.fonts.check('16px KaTeX_Main') &&
		getComputedStyle(document.querySelector('.statement .katex .strut') || document.body).height !== 'auto'`
	editor := `!!document.querySelector('.cm-editor .cm-content') && getComputedStyle(document.querySelector('.cm-editor')).display === 'flex'`

	// A visitor.
	visit(t, ctx, p, base, "/", `!!document.querySelector('h1')`)
	visit(t, ctx, p, base, "/problems", `!!document.querySelector('table.list a')`)
	visit(t, ctx, p, base, "/problems/a-plus-b", katex)
	visit(t, ctx, p, base, "/contests", `!!document.querySelector('.zoned-time')`)
	visit(t, ctx, p, base, "/contests/demo", `!!document.querySelector('.countdown') && !!document.querySelector('.contest-times')`)
	visit(t, ctx, p, base, "/contests/demo?tab=scoreboard", `!!document.querySelector('section[aria-labelledby="sb-h"]')`)
	visit(t, ctx, p, base, "/register", `!!document.getElementById('username') || !!document.querySelector('[data-testid="registration-closed"]')`)
	visit(t, ctx, p, base, "/login", `!!document.getElementById('username')`)

	// A student: the editor, contest pages, submissions, the account.
	step(t, ctx, "log in as the student", 30*time.Second,
		chromedp.SendKeys(chromedp.ID("username"), "student"),
		chromedp.SendKeys(chromedp.ID("password"), logins["student"]),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
		chromedp.WaitNotPresent(chromedp.ID("password")),
	)
	visit(t, ctx, p, base, "/problems/a-plus-b", katex+" && "+editor)
	visit(t, ctx, p, base, "/contests/demo/problems/a-plus-b", editor)
	visit(t, ctx, p, base, "/contests/demo?tab=clarifications", `!!document.querySelector('main textarea, main form, main section')`)
	answer, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {
		const me = await (await fetch('/api/me')).json();
		const r = await fetch('/api/submissions', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-CSRF-Token': me.csrf_token, 'Idempotency-Key': 'csp-' + Date.now()},
			body: JSON.stringify({problem: 'a-plus-b', contest: 'demo', language: 'cpp17', source: 'int main() { return 0; }\n'})});
		return r.status + ' ' + await r.text();
	})()`, chromedp.EvalAwaitPromise))
	var sub struct {
		ID int64 `json:"id"`
	}
	if _, js, _ := strings.Cut(answer, " "); err != nil || json.Unmarshal([]byte(js), &sub) != nil || sub.ID <= 0 {
		t.Fatalf("submit through the page's API: %q, %v", answer, err)
	}
	id := sub.ID
	visit(t, ctx, p, base, "/submissions", `!!document.querySelector('table.list')`)
	visit(t, ctx, p, base, fmt.Sprintf("/submissions/%d", id), `!!document.querySelector('main .page section')`)
	visit(t, ctx, p, base, "/account", `!!document.getElementById('current_password')`)

	// An admin: every section of the admin pages, the statement preview
	// with math.
	if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(async () => {
		const me = await (await fetch('/api/me')).json();
		return (await fetch('/api/session', {method: 'DELETE', headers: {'X-CSRF-Token': me.csrf_token}})).ok;
	})()`, chromedp.EvalAwaitPromise)); err != nil || !ok {
		t.Fatalf("log out: %v, %v", ok, err)
	}
	visit(t, ctx, p, base, "/login", `!!document.getElementById('username')`)
	step(t, ctx, "log in as the admin", 30*time.Second,
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), logins["admin"]),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
		chromedp.WaitNotPresent(chromedp.ID("password")),
	)
	for _, s := range []string{"problems", "contests", "users", "judges", "rejudge", "settings"} {
		visit(t, ctx, p, base, "/admin/"+s, `!!document.querySelector('.admin-section')`)
	}
	step(t, ctx, "preview a statement with math", 15*time.Second,
		chromedp.Navigate(base+"/admin/problems"),
		until(`!!document.getElementById('p-statement')`),
		setValue(`#p-statement`, "Sum $a+b$ and $$\\sum_{i=1}^n i$$"),
		js(`document.querySelector('button[aria-pressed]').click(), true`),
		until(`!!document.querySelector('.preview .katex')`),
	)
	time.Sleep(300 * time.Millisecond)
	v, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__csp`))
	if more := p.take(); len(v)+len(more) > 0 {
		t.Errorf("the statement preview: CSP violations %v %v", v, more)
	}
}

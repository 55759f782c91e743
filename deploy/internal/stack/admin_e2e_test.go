package stack

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// The problem the admin creates, the contest, the imported student and the
// clarification they exchange. Names start with e2e- so they cannot clash
// with the demo data.
const (
	adminProblem = "e2e-sum"
	adminContest = "e2e-cup"
	e2eStudent   = "e2e-alice"
	e2eStudentPW = "alice-pass-1"
	e2eQuestion  = "E2E: may a+b exceed 2^31?"
	e2eAnswer    = "E2E: no, |a+b| < 2^31 in every test."
	aPlusBSource = "#include <cstdio>\nint main() { long long a, b; scanf(\"%lld %lld\", &a, &b); printf(\"%lld\\n\", a + b); }\n"
	phoneWidth   = 375
	phoneHeight  = 740
	// The student's page is subscribed to pushes (it then polls only every
	// 120 s ±20 %), so an answer within this must have been pushed.
	clarArrivesIn = 20 * time.Second
)

// The imported user without a password in the CSV: the admin resets it,
// then they choose their own on the account page.
const (
	e2eBob      = "e2e-bob"
	e2eBobName  = "Bob E2E"
	e2eBobOwnPW = "bob-chose-this-1"
)

// jsq quotes s as a JavaScript string literal.
func jsq(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// setValue sets a form control's value as a user would (the native setter,
// then input and change events), for controls SendKeys cannot fill in a
// locale-independent way: selects and datetime-local inputs.
func setValue(sel, v string) chromedp.Action[chromedp.Void] {
	return js(fmt.Sprintf(`(() => {
		const el = document.querySelector(%s);
		const proto = el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
		Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, %s);
		el.dispatchEvent(new Event('input', {bubbles: true}));
		el.dispatchEvent(new Event('change', {bubbles: true}));
		return true;
	})()`, jsq(sel), jsq(v)))
}

// setLocalTime fills a contest form time field with now + minutes, as a
// wall time in the browser's time zone (the zone a new contest starts in).
func setLocalTime(sel string, minutes int) chromedp.Action[chromedp.Void] {
	return js(fmt.Sprintf(`(() => {
		const p = (n) => String(n).padStart(2, '0');
		const d = new Date(Date.now() + %d * 60000);
		const v = d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + 'T' + p(d.getHours()) + ':' + p(d.getMinutes());
		const el = document.querySelector(%s);
		Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(el, v);
		el.dispatchEvent(new Event('input', {bubbles: true}));
		return true;
	})()`, minutes, jsq(sel)))
}

// chooseFile sets a file input and fires "change" (setting files over CDP
// does not fire it here; a real file chooser does).
func chooseFile(sel, path string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.SetUploadFiles(chromedp.CSS(sel), []string{path}),
		js(fmt.Sprintf(`document.querySelector(%s).dispatchEvent(new Event('change', {bubbles: true}))`, jsq(sel))),
	)
}

// textIncludes waits until the text of the page's main element includes s.
func textIncludes(s string) chromedp.Action[chromedp.Void] {
	return until(fmt.Sprintf(`(document.querySelector('main')?.innerText ?? '').includes(%s)`, jsq(s)))
}

// unlabelledJS lists the form controls without an accessible name: the rule
// of frontend/src/a11y.ts (aria-label, aria-labelledby, <label>, a button's
// text, title).
const unlabelledJS = `Array.from(document.querySelectorAll('input, select, textarea, button')).filter((el) => {
	if (el.type === 'hidden') return false;
	if ((el.getAttribute('aria-label') || '').trim()) return false;
	const by = el.getAttribute('aria-labelledby');
	if (by && by.split(/\s+/).some((id) => (document.getElementById(id)?.textContent || '').trim())) return false;
	if (el.labels && Array.from(el.labels).some((l) => l.textContent.trim())) return false;
	if (el.tagName === 'BUTTON' && el.textContent.trim()) return false;
	if (el.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(el.type) && el.value.trim()) return false;
	return !(el.getAttribute('title') || '').trim();
}).map((el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.getAttribute('class') ? '.' + el.getAttribute('class').split(' ')[0] : ''))`

// keyboardLogin logs in with the keyboard only: type the username, Tab to
// the password (its focus ring must show), type it, Enter.
func keyboardLogin(t *testing.T, ctx context.Context, base, user, pw string) {
	t.Helper()
	step(t, ctx, "log in as "+user+" with the keyboard", 30*time.Second,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.Focus(chromedp.ID("username")),
		chromedp.KeyEvent(user),
		chromedp.KeyEvent("\t"),
		until(`document.activeElement?.id === 'password' && document.activeElement.matches(':focus-visible')
			&& getComputedStyle(document.activeElement).outlineStyle !== 'none'
			&& parseFloat(getComputedStyle(document.activeElement).outlineWidth) >= 2`),
		chromedp.KeyEvent(pw),
		chromedp.KeyEvent("\r"),
		chromedp.WaitNotPresent(chromedp.ID("password")),
		until(`!!document.querySelector('.whoami')`),
	)
}

// pressEnterOn focuses a control and activates it with Enter.
func pressEnterOn(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.Focus(chromedp.CSS(sel)), chromedp.KeyEvent("\r"))
}

// phonePage opens url in a 375 px wide context, waits for ready, and checks
// that the page does not scroll sideways and that every control is
// labelled; it saves a screenshot named phone-<name>.
func phonePage(t *testing.T, ctx context.Context, name, url, ready string, more ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	actions := append([]chromedp.Action[chromedp.Void]{
		chromedp.Navigate(url),
		until(fmt.Sprintf(`!!document.querySelector(%s)`, jsq(ready))),
	}, more...)
	step(t, ctx, "phone: "+name, 20*time.Second, actions...)
	type result struct {
		ScrollWidth int      `json:"sw"`
		InnerWidth  int      `json:"iw"`
		Wide        []string `json:"wide"`
		Unlabelled  []string `json:"unl"`
	}
	r, err := chromedp.Run(ctx, chromedp.Evaluate[result](`(() => {
		const iw = window.innerWidth;
		// What sticks out of the phone's width, to say what to fix.
		const wide = Array.from(document.querySelectorAll('body *')).filter((el) => {
			const r = el.getBoundingClientRect();
			if (r.right <= `+strconv.Itoa(phoneWidth)+` + 0.5 || r.width === 0) return false;
			for (let p = el.parentElement; p; p = p.parentElement) {
				const o = getComputedStyle(p).overflowX;
				if (o === 'auto' || o === 'scroll' || o === 'hidden') return false;
			}
			return true;
		}).slice(0, 5).map((el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.getAttribute('class') ? '.' + el.getAttribute('class').split(' ')[0] : '') + ' right=' + Math.round(el.getBoundingClientRect().right));
		return {sw: document.documentElement.scrollWidth, iw, wide, unl: `+unlabelledJS+`};
	})()`))
	screenshot(t, ctx, "phone-"+name)
	if err != nil {
		t.Fatalf("phone: %s: %v", name, err)
	}
	if r.InnerWidth != phoneWidth {
		t.Errorf("phone: %s: innerWidth = %d, want %d (the page zoomed out to fit something wider)", name, r.InnerWidth, phoneWidth)
	}
	if r.ScrollWidth > r.InnerWidth {
		t.Errorf("phone: %s: the page scrolls sideways: scrollWidth %d > innerWidth %d; too wide: %v", name, r.ScrollWidth, r.InnerWidth, r.Wide)
	}
	if len(r.Unlabelled) > 0 {
		t.Errorf("phone: %s: controls without a label: %v", name, r.Unlabelled)
	}
}

// usersListed waits until the admin's accounts list has the answer to the
// search for q with the role filter role ("" for any) and shows exactly
// these usernames, in order (space-separated). Waiting for that answer
// first matters: the list asks again once the page has rendered the new
// filters, so the answer to an earlier filter may be on screen for a
// moment, and an action taken then would meet the later answer.
func usersListed(q, role, names string) chromedp.Action[chromedp.Void] {
	return until(fmt.Sprintf(`performance.getEntriesByType('resource').some((e) => {
			const u = new URL(e.name);
			return u.pathname === '/api/users' && (u.searchParams.get('q') ?? '') === %s && (u.searchParams.get('role') ?? '') === %s;
		})
		&& !document.querySelector('table.users-table')?.closest('[aria-busy]')
		&& Array.from(document.querySelectorAll('table.users-table tbody tr[data-username]')).map((r) => r.dataset.username).join(' ') === %s`, jsq(q), jsq(role), jsq(names)))
}

// usersStatus waits until the accounts list's status line includes s.
func usersStatus(s string) chromedp.Action[chromedp.Void] {
	return until(fmt.Sprintf(`(document.querySelector('[data-testid=users-status]')?.textContent ?? '').includes(%s)`, jsq(s)))
}

// roleShown waits until the role select of a row in the accounts list
// shows role, with no change on the way.
func roleShown(row, role string) chromedp.Action[chromedp.Void] {
	return until(fmt.Sprintf(`(() => { const s = document.querySelector(%s); return !!s && s.value === %s && !s.hasAttribute('aria-busy'); })()`, jsq(row+" select"), jsq(role)))
}

// whoami waits until the header says who is logged in.
func whoami(name string) chromedp.Action[chromedp.Void] {
	return until(fmt.Sprintf(`(document.querySelector('header a.whoami')?.innerText ?? '').includes(%s)`, jsq(name)))
}

// loggedOut waits until the header offers to log in (the session is known
// to be gone, not still loading).
const loggedOut = `!document.querySelector('.whoami') && !!document.querySelector('header a[href^="/login"]')`

// csvDownload is what the page's fetch of the scoreboard CSV got. Body.text()
// would drop the BOM (UTF-8 decode strips it), so the page looks at the
// bytes and decodes with ignoreBOM to keep it in Text.
type csvDownload struct {
	Status      int    `json:"status"`
	Type        string `json:"type"`
	Disposition string `json:"disposition"`
	BOM         bool   `json:"bom"`
	Text        string `json:"text"`
}

const fetchCSVJS = `fetch(document.querySelector('a[data-testid=scoreboard-csv]').href).then(async (r) => {
	const b = new Uint8Array(await r.arrayBuffer());
	return {
		status: r.status,
		type: r.headers.get('content-type') ?? '',
		disposition: r.headers.get('content-disposition') ?? '',
		bom: b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf,
		text: new TextDecoder('utf-8', {ignoreBOM: true}).decode(b),
	};
})`

// TestAdminBrowser drives the admin pages in a real browser against the
// whole stack: a problem with test data, a judge token and the judges' live
// load, a CSV import, the accounts list (search, role, password reset) and
// the imported user logging in with the reset password and choosing their
// own on the account page, a by-list contest and its participants, the
// scoreboard CSV export, a clarification answered publicly and arriving on
// the student's page without a reload, a rejudge; then every main page at
// phone width.
func TestAdminBrowser(t *testing.T) {
	env := startBrowserStack(t, 1)
	base := env.base
	started := time.Now()
	lap := func(what string) { t.Logf("%6.1fs %s", time.Since(started).Seconds(), what) }

	ctx, cancel := browser(t)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	keyboardLogin(t, ctx, base, "admin", env.logins["admin"])
	// "Disable" and "Reset password" ask first (confirm()): the admin says OK.
	dialogs := acceptDialogs(t, ctx)
	lap("admin logged in")

	// A problem, then its test data (a zip in internal/testpkg's format).
	step(t, ctx, "create a problem", 30*time.Second,
		chromedp.Navigate(base+"/admin/problems"),
		chromedp.WaitVisible(chromedp.ID("p-slug")),
		chromedp.SendKeys(chromedp.ID("p-slug"), adminProblem),
		chromedp.SendKeys(chromedp.ID("p-title"), "E2E Sum"),
		chromedp.SendKeys(chromedp.ID("p-statement"), "Print $a+b$."),
		setValue("#p-visibility", "public"),
		chromedp.Click(chromedp.CSS(`form:has(#p-slug) button[type=submit]`)),
		textIncludes("Saved."),
		chromedp.WaitVisible(chromedp.ID("td-file")),
	)
	zipBytes, _, err := testpkg.Build([]testpkg.Case{
		{In: []byte("1 2\n"), Ans: []byte("3\n")},
		{In: []byte("5 7\n"), Ans: []byte("12\n")},
		{In: []byte("-100 250\n"), Ans: []byte("150\n")},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(t.TempDir(), adminProblem+".zip")
	if err := os.WriteFile(zipPath, zipBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "upload the test data", 30*time.Second,
		chooseFile("#td-file", zipPath),
		until(`!document.querySelector('form:has(#td-file) button[type=submit]').disabled`),
		chromedp.Click(chromedp.CSS(`form:has(#td-file) button[type=submit]`)),
		textIncludes("Uploaded: 3 cases"),
	)
	screenshot(t, ctx, "admin-1-problem")
	lap("problem and test data")

	// A judge token, shown once; the judges' list refreshes with their load.
	step(t, ctx, "see the judges' live load", 30*time.Second,
		chromedp.Navigate(base+"/admin/judges"),
		until(`Array.from(document.querySelectorAll('table.judges tbody tr')).some((r) =>
			r.querySelector('th')?.textContent === 'judge-1' && r.innerText.includes('online') && /\d+\/\d+/.test(r.cells[2].textContent) && /\d\.\d\d/.test(r.cells[3].textContent))`),
		// The list is read again while the page is open (every 3 s).
		until(`performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname === '/api/judges').length >= 2`),
	)
	step(t, ctx, "issue a judge token", 30*time.Second,
		chromedp.SendKeys(chromedp.ID("j-name"), "e2e-judge"),
		chromedp.KeyEvent("\r"),
		until(`/^[0-9a-f]{64}$/.test(document.querySelector('input.token')?.value ?? '')`),
		until(`Array.from(document.querySelectorAll('table.judges tbody th')).some((th) => th.textContent === 'e2e-judge')`),
	)
	screenshot(t, ctx, "admin-2-judges")
	step(t, ctx, "the token is not shown again", 20*time.Second,
		chromedp.Navigate(base+"/admin/judges"),
		until(`Array.from(document.querySelectorAll('table.judges tbody th')).some((th) => th.textContent === 'e2e-judge')`),
		until(`!document.querySelector('input.token')`),
	)
	lap("judges")

	// Users from CSV: one with a password, one that gets a generated one.
	csvPath := filepath.Join(t.TempDir(), "users.csv")
	csv := "username,display_name,password,role\n" + e2eStudent + ",Alice E2E," + e2eStudentPW + ",student\ne2e-bob,Bob E2E,,student\n"
	if err := os.WriteFile(csvPath, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "import users from CSV", 30*time.Second,
		chromedp.Navigate(base+"/admin/users"),
		chromedp.WaitVisible(chromedp.ID("u-file")),
		chooseFile("#u-file", csvPath),
		until(`!document.querySelector('form:has(#u-file) button[type=submit]').disabled`),
		chromedp.Click(chromedp.CSS(`form:has(#u-file) button[type=submit]`)),
		textIncludes("Imported: 2 created, 0 updated."),
		until(`Array.from(document.querySelectorAll('.alert-warn td')).some((td) => td.textContent === 'e2e-bob')`),
	)
	screenshot(t, ctx, "admin-3-users")
	lap("users imported")

	// The accounts list: find the imported user, make them a setter and
	// back, then reset their password, shown once.
	bobRow := `tr[data-username="` + e2eBob + `"]`
	step(t, ctx, "find an imported user in the accounts list", 20*time.Second,
		chromedp.Navigate(base+"/admin/users"),
		chromedp.WaitVisible(chromedp.ID("u-q")),
		// The whole list first, so that the one row below is the search's.
		chromedp.WaitVisible(chromedp.CSS(`table.users-table tr[data-username="`+e2eStudent+`"]`)),
		chromedp.SendKeys(chromedp.ID("u-q"), e2eBob),
		chromedp.KeyEvent("\r"),
		usersListed(e2eBob, "", e2eBob),
		usersStatus("1 user shown."),
		until(fmt.Sprintf(`document.querySelector(%s)?.textContent === %s`, jsq(bobRow+" td.u-name"), jsq(e2eBobName))),
		roleShown(bobRow, "student"),
	)
	step(t, ctx, "make them a setter", 20*time.Second,
		setValue(bobRow+" select", "setter"),
		usersStatus(e2eBob+" was updated."),
		roleShown(bobRow, "setter"),
	)
	step(t, ctx, "the role is stored: the setters after a reload", 20*time.Second,
		chromedp.Navigate(base+"/admin/users"),
		chromedp.WaitVisible(chromedp.CSS(`table.users-table tr[data-username="`+e2eStudent+`"]`)),
		setValue("#u-role", "setter"),
		chromedp.SendKeys(chromedp.ID("u-q"), "e2e-"),
		chromedp.KeyEvent("\r"),
		usersListed("e2e-", "setter", e2eBob), // e2e-alice is still a student
		roleShown(bobRow, "setter"),
	)
	step(t, ctx, "and back to a student", 20*time.Second,
		setValue(bobRow+" select", "student"),
		usersStatus(e2eBob+" was updated."),
		roleShown(bobRow, "student"),
	)
	screenshot(t, ctx, "admin-3a-users-list")
	step(t, ctx, "reset their password", 20*time.Second,
		chromedp.Click(chromedp.CSS(bobRow+` button[id^="u-reset-"]`)),
		until(`/^[A-Za-z0-9]{16}$/.test(document.querySelector('[data-testid=reset-password] #reset-pw')?.value ?? '')`),
		until(fmt.Sprintf(`(document.querySelector('label[for=reset-pw]')?.textContent ?? '') === %s`, jsq("New password for "+e2eBob))),
		// Focus goes to the password, selected for copying.
		until(`document.activeElement?.id === 'reset-pw'`),
	)
	resetPW, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('reset-pw').value`))
	if err != nil {
		t.Fatalf("read the generated password: %v", err)
	}
	if msgs := dialogs(); !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, "Reset the password of "+e2eBob+"?") }) {
		t.Errorf("the reset did not ask first; dialogs seen: %q", msgs)
	}
	screenshot(t, ctx, "admin-3b-reset-password")
	step(t, ctx, "hide the password", 20*time.Second,
		chromedp.Click(chromedp.CSS(`[data-testid=reset-password] > button`)),
		until(`!document.getElementById('reset-pw') && (document.activeElement?.id ?? '').startsWith('u-reset-')`),
	)
	lap("accounts list: role and password reset")

	// The user logs in with the reset password; on a second computer too.
	bctx, cancelBob := newBrowserContext(t, ctx)
	defer cancelBob()
	keyboardLogin(t, bctx, base, e2eBob, resetPW)
	step(t, bctx, "logged in with the reset password", 20*time.Second, whoami(e2eBobName))
	octx, cancelOther := newBrowserContext(t, ctx)
	defer cancelOther()
	keyboardLogin(t, octx, base, e2eBob, resetPW)

	// They choose their own password on the account page.
	step(t, bctx, "open the account page from the header", 20*time.Second,
		chromedp.Click(chromedp.CSS(`header a.whoami`)),
		until(`location.pathname === '/account' && document.querySelector('header a.whoami')?.getAttribute('aria-current') === 'page'`),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=password-form]`)),
		textIncludes(e2eBob),
		textIncludes(e2eBobName),
		textIncludes("Student"),
	)
	step(t, bctx, "change the password", 30*time.Second,
		chromedp.SendKeys(chromedp.ID("current_password"), resetPW),
		chromedp.SendKeys(chromedp.ID("new_password"), e2eBobOwnPW),
		chromedp.SendKeys(chromedp.ID("confirm_password"), e2eBobOwnPW),
		chromedp.Click(chromedp.CSS(`[data-testid=password-form] button[type=submit]`)),
		until(`(document.querySelector('[data-testid=password-form] .alert-ok[role=status]')?.textContent ?? '').includes('Your password was changed.')`),
		until(`['current_password', 'new_password', 'confirm_password'].every((id) => document.getElementById(id).value === '')`),
	)
	screenshot(t, bctx, "user-1-password-changed")
	// Still logged in here, with the new session: a write from this page,
	// without a reload, proves the new CSRF token replaced the old one.
	step(t, bctx, "still logged in: register for the demo contest", 30*time.Second,
		js(`window.__e2eNoReload = 1, true`),
		chromedp.Click(chromedp.CSS(`#main-nav a[href="/contests"]`)),
		chromedp.WaitVisible(chromedp.CSS(`a[href="/contests/demo"]`)),
		chromedp.Click(chromedp.CSS(`a[href="/contests/demo"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.registration[data-state="can-register"] button`)),
		chromedp.Click(chromedp.CSS(`.registration[data-state="can-register"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`.registration[data-state="registered"]`)),
		until(`window.__e2eNoReload === 1`),
	)
	step(t, bctx, "still logged in after a reload", 20*time.Second,
		chromedp.Reload(),
		until(`window.__e2eNoReload === undefined`),
		whoami(e2eBobName),
		chromedp.WaitVisible(chromedp.CSS(`.registration[data-state="registered"]`)),
	)
	step(t, octx, "the other computer was logged out", 20*time.Second,
		chromedp.Reload(),
		until(loggedOut),
	)
	cancelOther()
	cancelBob()
	nctx, cancelNew := newBrowserContext(t, ctx)
	defer cancelNew()
	loginFails(t, nctx, base, e2eBob, resetPW)
	keyboardLogin(t, nctx, base, e2eBob, e2eBobOwnPW)
	step(t, nctx, "logged in with the new password", 20*time.Second, whoami(e2eBobName))
	screenshot(t, nctx, "user-2-new-password")
	cancelNew()
	lap("password changed on the account page")

	// A contest with registration by list, then its participants.
	step(t, ctx, "create a by-list contest", 30*time.Second,
		chromedp.Navigate(base+"/admin/contests"),
		chromedp.WaitVisible(chromedp.ID("c-slug")),
		chromedp.SendKeys(chromedp.ID("c-slug"), adminContest),
		chromedp.SendKeys(chromedp.ID("c-title"), "E2E Cup"),
		setLocalTime("#c-start", -5),
		setLocalTime("#c-end", 120),
		setValue("#c-registration", "list"),
		chromedp.SendKeys(chromedp.ID("c-problems"), "A "+adminProblem+" 100"),
		chromedp.Click(chromedp.CSS(`form:has(#c-slug) button[type=submit]`)),
		textIncludes("Saved."),
		chromedp.WaitVisible(chromedp.ID("pt-add")),
	)
	step(t, ctx, "add participants", 30*time.Second,
		chromedp.SendKeys(chromedp.ID("pt-add"), e2eStudent+" nobody-e2e"),
		chromedp.Click(chromedp.CSS(`form:has(#pt-add) button[type=submit]`)),
		until(`(document.querySelector('[data-testid=pt-unknown]')?.textContent ?? '').includes('nobody-e2e')`),
		until(`!document.querySelector('tr[data-username]')`),
		setValue("#pt-add", e2eStudent),
		chromedp.Click(chromedp.CSS(`form:has(#pt-add) button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-username="`+e2eStudent+`"]`)),
		textIncludes("Added 1; 0 already on the list."),
	)
	screenshot(t, ctx, "admin-4-contest")
	lap("contest and participants")

	// The student, in a browser context of their own (own cookies).
	sctx, cancelS := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancelS()
	if err := chromedp.Do(sctx); err != nil {
		t.Fatalf("open a second browser context: %v", err)
	}
	keyboardLogin(t, sctx, base, e2eStudent, e2eStudentPW)
	step(t, sctx, "register for the open demo contest with the keyboard", 20*time.Second,
		chromedp.Navigate(base+"/contests/demo"),
		chromedp.WaitVisible(chromedp.CSS(`.registration[data-state="can-register"] button`)),
		pressEnterOn(`.registration[data-state="can-register"] button`),
		chromedp.WaitVisible(chromedp.CSS(`.registration[data-state="registered"]`)),
	)

	// The scoreboard's CSV: a link for staff, nothing for a student.
	step(t, ctx, "the demo scoreboard links its CSV for staff", 20*time.Second,
		chromedp.Navigate(base+"/contests/demo?tab=scoreboard"),
		chromedp.WaitVisible(chromedp.CSS(`a[data-testid=scoreboard-csv]`)),
		until(`(() => {
			const a = document.querySelector('a[data-testid=scoreboard-csv]');
			return a.getAttribute('href') === '/api/contests/demo/scoreboard.csv' && a.hasAttribute('download') && a.textContent.trim() === 'Download CSV';
		})()`),
	)
	screenshot(t, ctx, "admin-4a-demo-scoreboard")
	// What the link gives, fetched with the admin's cookies from the page.
	dl, err := chromedp.Run(ctx, chromedp.Evaluate[csvDownload](fetchCSVJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("fetch the scoreboard CSV: %v", err)
	}
	const wantHeader = "rank,username,display_name,solved,penalty,A_solved,A_attempts,A_time_min,B_solved,B_attempts,B_time_min"
	csvLines := strings.Split(strings.TrimSuffix(dl.Text, "\r\n"), "\r\n")
	switch {
	case dl.Status != 200:
		t.Errorf("scoreboard CSV: status %d, want 200; body %q", dl.Status, dl.Text)
	case dl.Type != "text/csv; charset=utf-8" || !strings.Contains(dl.Disposition, `filename="demo-scoreboard.csv"`):
		t.Errorf("scoreboard CSV: Content-Type %q, Content-Disposition %q", dl.Type, dl.Disposition)
	case !dl.BOM || !strings.HasPrefix(dl.Text, "\ufeffrank,username,display_name"):
		t.Errorf("scoreboard CSV does not start with the BOM and the header: %q", dl.Text[:min(len(dl.Text), 80)])
	case strings.TrimPrefix(csvLines[0], "\ufeff") != wantHeader:
		t.Errorf("scoreboard CSV header = %q, want %q", strings.TrimPrefix(csvLines[0], "\ufeff"), wantHeader)
	}
	t.Logf("scoreboard CSV: %d bytes, %d participant row(s)", len(dl.Text), len(csvLines)-1)
	step(t, sctx, "a student gets no CSV link", 20*time.Second,
		chromedp.Navigate(base+"/contests/demo?tab=scoreboard"),
		whoami("Alice E2E"),
		until(`!!document.querySelector('section[aria-labelledby=sb-h] table.scoreboard') || (document.querySelector('section[aria-labelledby=sb-h]')?.innerText ?? '').includes('No submissions yet.')`),
		until(`!document.querySelector('[data-testid=scoreboard-csv]')`),
	)
	if st, err := chromedp.Run(sctx, chromedp.Evaluate[int](`fetch('/api/contests/demo/scoreboard.csv').then((r) => r.status)`, chromedp.EvalAwaitPromise)); err != nil || st != 403 {
		t.Errorf("a student fetching the scoreboard CSV: status %d (err %v), want 403", st, err)
	}
	lap("scoreboard CSV")
	step(t, sctx, "ask a question in the by-list contest", 20*time.Second,
		chromedp.Navigate(base+"/contests/"+adminContest+"?tab=clarifications"),
		chromedp.WaitVisible(chromedp.CSS(`.registration[data-state="registered"]`)),
		chromedp.WaitVisible(chromedp.ID("clar-question")),
		setValue("#clar-problem", adminProblem),
		chromedp.SendKeys(chromedp.ID("clar-question"), e2eQuestion),
		pressEnterOn(`form[aria-labelledby="ask-h"] button[type=submit]`),
		textIncludes("Your question was sent."),
		until(fmt.Sprintf(`Array.from(document.querySelectorAll('li[data-clar-id]')).some((li) => li.querySelector('.clar-q')?.textContent === %s && li.dataset.answered === '0')`, jsq(e2eQuestion))),
		// A mark that a reload would erase.
		js(`window.__e2eNoReload = 1, true`),
		// Changes are pushed to this page (not polled).
		chromedp.WaitVisible(chromedp.CSS(`section[aria-labelledby="clar-h"][data-live="1"]`)),
	)
	lap("student asked")

	var id string
	step(t, ctx, "find the question as staff", 20*time.Second,
		chromedp.Navigate(base+"/contests/"+adminContest+"?tab=clarifications"),
		until(fmt.Sprintf(`Array.from(document.querySelectorAll('li[data-clar-id]')).some((li) => li.querySelector('.clar-q')?.textContent === %s)`, jsq(e2eQuestion))),
		chromedp.Func(func(c context.Context, tg *chromedp.Target) error {
			v, err := chromedp.Evaluate[string](fmt.Sprintf(`Array.from(document.querySelectorAll('li[data-clar-id]')).find((li) => li.querySelector('.clar-q')?.textContent === %s).dataset.clarId`, jsq(e2eQuestion)))(c, tg)
			id = v
			return err
		}),
	)
	li := `li[data-clar-id="` + id + `"]`
	screenshot(t, ctx, "admin-5-question")
	step(t, ctx, "answer it publicly", 20*time.Second,
		chromedp.SendKeys(chromedp.ID("ans-"+id), e2eAnswer),
		chromedp.Click(chromedp.CSS(li+` input[value="public"]`)),
		chromedp.Click(chromedp.CSS(li+` form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(li+`[data-answered="1"][data-public="1"]`)),
	)
	answeredAt := time.Now()
	screenshot(t, ctx, "admin-6-answered")
	step(t, sctx, "the answer arrives on the student's page", clarArrivesIn,
		until(fmt.Sprintf(`document.querySelector(%s)?.dataset.answered === '1' && document.querySelector(%s + ' .clar-answer-text')?.textContent === %s`, jsq(li), jsq(li), jsq(e2eAnswer))),
	)
	t.Logf("the answer reached the student's page %.1fs after it was sent", time.Since(answeredAt).Seconds())
	if ok, err := chromedp.Run(sctx, chromedp.Evaluate[bool](`window.__e2eNoReload === 1`)); err != nil || !ok {
		t.Errorf("the student's page reloaded to show the answer (mark kept: %v, err %v)", ok, err)
	}
	screenshot(t, sctx, "admin-7-student-sees-answer")
	lap("clarification answered")

	// A submission to rejudge: the student solves the contest's problem,
	// submitting from the editor with Ctrl+Enter.
	srcPath := filepath.Join(t.TempDir(), "sum.cpp")
	if err := os.WriteFile(srcPath, []byte(aPlusBSource), 0o644); err != nil {
		t.Fatal(err)
	}
	step(t, sctx, "submit from the editor with the keyboard", 30*time.Second,
		chromedp.Navigate(base+"/contests/"+adminContest+"/problems/"+adminProblem),
		chromedp.WaitReady(chromedp.CSS(`#language option[value="cpp17"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.cm-content`)),
		setValue("#language", "cpp17"),
		chooseFile(`.file-btn input[type=file]`, srcPath),
		until(`!!document.querySelector('.cm-content')?.innerText.includes('scanf')`),
		chromedp.Focus(chromedp.CSS(`.cm-content`)),
		chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-case]`)),
	)
	watchCases(t, sctx, allCasesAC, 60*time.Second)
	href, err := chromedp.Run(sctx, chromedp.Evaluate[string](`document.querySelector('.live-submission h2 a').getAttribute('href')`))
	if err != nil {
		t.Fatal(err)
	}
	subID, err := strconv.Atoi(strings.TrimPrefix(href, "/submissions/"))
	if err != nil {
		t.Fatalf("submission link %q: %v", href, err)
	}
	lap("submission judged")
	step(t, ctx, "rejudge the submission", 20*time.Second,
		chromedp.Navigate(base+"/admin/rejudge"),
		chromedp.WaitVisible(chromedp.ID("rj-value")),
		chromedp.SendKeys(chromedp.ID("rj-value"), strconv.Itoa(subID)),
		chromedp.KeyEvent("\r"),
		textIncludes("1 submission queued for rejudging."),
	)
	attemptRe := regexp.MustCompile(`^(\d+):(\w+)$`)
	deadline := time.Now().Add(60 * time.Second)
	var last string
	for {
		last, err = chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(
			`fetch('/api/submissions/%d').then((r) => r.json()).then((d) => d.submission.attempt + ':' + d.submission.verdict)`, subID), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("read submission %d: %v", subID, err)
		}
		if m := attemptRe.FindStringSubmatch(last); m != nil && m[1] != "1" && m[2] == "AC" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("submission %d was not judged again within 60 s: attempt:verdict = %s", subID, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
	step(t, ctx, "the rejudged submission's page", 20*time.Second,
		chromedp.Navigate(base+"/submissions/"+strconv.Itoa(subID)),
		until(`document.querySelectorAll('tr[data-case][data-verdict="AC"]').length === 3`),
	)
	screenshot(t, ctx, "admin-8-rejudged")
	lap("rejudged: " + last)
	staffTools(t, ctx, base, subID)
	lap("staff tools: status page, source, live rejudge, export")

	// The by-list contest's CSV has the student's row: one problem, solved
	// at the first attempt (the rejudge counts no new attempt).
	step(t, ctx, "the by-list contest's scoreboard", 20*time.Second,
		chromedp.Navigate(base+"/contests/"+adminContest+"?tab=scoreboard"),
		chromedp.WaitVisible(chromedp.CSS(`table.scoreboard td[data-label="A"]:is(.cell-first, .cell-solved)`)),
		chromedp.WaitVisible(chromedp.CSS(`a[data-testid=scoreboard-csv][href="/api/contests/`+adminContest+`/scoreboard.csv"]`)),
	)
	dl, err = chromedp.Run(ctx, chromedp.Evaluate[csvDownload](fetchCSVJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("fetch the %s scoreboard CSV: %v", adminContest, err)
	}
	csvLines = strings.Split(strings.TrimSuffix(strings.TrimPrefix(dl.Text, "\ufeff"), "\r\n"), "\r\n")
	wantRow := regexp.MustCompile(`^1,` + regexp.QuoteMeta(e2eStudent) + `,Alice E2E,1,\d+,1,1,\d+$`)
	if dl.Status != 200 || len(csvLines) != 2 || csvLines[0] != "rank,username,display_name,solved,penalty,A_solved,A_attempts,A_time_min" || !wantRow.MatchString(csvLines[1]) {
		t.Errorf("%s scoreboard CSV (status %d), want the header and a row like %s:\n%s", adminContest, dl.Status, wantRow, dl.Text)
	}

	// Every main page at phone width, as the student, as staff, logged out.
	phone := chromedp.EmulateViewport(phoneWidth, phoneHeight, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
	for _, c := range []context.Context{sctx, ctx} {
		if err := chromedp.Do(c, phone); err != nil {
			t.Fatalf("phone viewport: %v", err)
		}
	}
	phonePage(t, sctx, "problems", base+"/problems", `table.list a[href="/problems/`+adminProblem+`"]`,
		// The menu opens from the keyboard.
		chromedp.WaitVisible(chromedp.CSS(`.menu-btn`)),
		pressEnterOn(`.menu-btn`),
		chromedp.WaitVisible(chromedp.CSS(`#main-nav.open a[href="/contests"]`)),
	)
	phonePage(t, sctx, "problem", base+"/problems/"+adminProblem, `.cm-content`)
	phonePage(t, sctx, "contests", base+"/contests", `a[href="/contests/`+adminContest+`"]`)
	phonePage(t, sctx, "contest", base+"/contests/"+adminContest, `.registration[data-state="registered"]`)
	phonePage(t, sctx, "scoreboard", base+"/contests/"+adminContest+"?tab=scoreboard", `table.scoreboard td[data-label="A"]:is(.cell-first, .cell-solved)`)
	phonePage(t, sctx, "clarifications", base+"/contests/"+adminContest+"?tab=clarifications", li)
	phonePage(t, sctx, "submissions", base+"/submissions", `table.submissions`)
	phonePage(t, sctx, "submission", base+"/submissions/"+strconv.Itoa(subID), `tr[data-case][data-verdict="AC"]`)
	phonePage(t, sctx, "account", base+"/account", `[data-testid=password-form]`,
		// The header link to it is reachable from the phone's menu.
		pressEnterOn(`.menu-btn`),
		chromedp.WaitVisible(chromedp.CSS(`#main-nav.open a.whoami[aria-current="page"]`)),
	)
	phonePage(t, ctx, "admin-problems", base+"/admin/problems", `#p-slug`)
	phonePage(t, ctx, "admin-contests", base+"/admin/contests", `#c-lookup`,
		chromedp.SendKeys(chromedp.ID("c-lookup"), adminContest),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-username="`+e2eStudent+`"]`)),
	)
	phonePage(t, ctx, "admin-users", base+"/admin/users", `table.users-table tr[data-username="`+e2eStudent+`"]`)
	phonePage(t, ctx, "admin-users-reset", base+"/admin/users", `table.users-table tr[data-username="`+e2eStudent+`"]`,
		chromedp.SendKeys(chromedp.ID("u-q"), e2eBob),
		chromedp.KeyEvent("\r"),
		usersListed(e2eBob, "", e2eBob),
		chromedp.Click(chromedp.CSS(bobRow+` button[id^="u-reset-"]`)),
		until(`/^[A-Za-z0-9]{16}$/.test(document.getElementById('reset-pw')?.value ?? '')`),
	)
	phonePage(t, ctx, "staff-scoreboard", base+"/contests/demo?tab=scoreboard", `a[data-testid=scoreboard-csv]`)
	phonePage(t, ctx, "admin-judges", base+"/admin/judges", `table.judges`)
	phonePage(t, ctx, "admin-rejudge", base+"/admin/rejudge", `#rj-value`)
	phonePage(t, ctx, "staff-clarifications", base+"/contests/"+adminContest+"?tab=clarifications", li+` button`)
	actx, cancelA := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancelA()
	if err := chromedp.Do(actx, phone); err != nil {
		t.Fatalf("a logged-out context: %v", err)
	}
	phonePage(t, actx, "login", base+"/login", `#username`)
	phonePage(t, actx, "register", base+"/register", `#display_name`)
	lap("phone pass")
	fmt.Fprintf(os.Stderr, "admin e2e screenshots in %s\n", artifacts(t))
}

// allCasesAC: every row of the verdict table is accepted.
func allCasesAC(s string) bool {
	f := strings.Fields(s)
	for _, c := range f {
		if !strings.HasSuffix(c, ":AC") {
			return false
		}
	}
	return len(f) > 0
}

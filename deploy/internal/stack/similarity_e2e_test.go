package stack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// apiClient is a logged-in API client of the stack (a cookie jar and the
// session's CSRF token).
type apiClient struct {
	t    *testing.T
	base string
	http *http.Client
	csrf string
}

func apiLogin(t *testing.T, base, user, pw string) *apiClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &apiClient{t: t, base: base, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
	var out struct {
		CSRF string `json:"csrf_token"`
	}
	if st := c.call("POST", "/api/session", "application/json", fmt.Sprintf(`{"username":%q,"password":%q}`, user, pw), &out); st != 200 {
		t.Fatalf("log in as %s: %d", user, st)
	}
	c.csrf = out.CSRF
	return c
}

func (c *apiClient) call(method, path, ctype, body string, out any, hdr ...string) int {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	if c.csrf != "" {
		req.Header.Set("X-CSRF-Token", c.csrf)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			c.t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	}
	if res.StatusCode >= 300 {
		c.t.Logf("%s %s: %d %s", method, path, res.StatusCode, bytes.TrimSpace(raw))
	}
	return res.StatusCode
}

// TestSimilarityBrowser (issue 15): four students submit to the demo's
// max-subarray problem, two of them the same program with renamed
// variables and reordered functions (package similarity's fixtures); the
// staff's similarity page lists that planted pair first, and its
// side-by-side view highlights the matching regions on both sides.
func TestSimilarityBrowser(t *testing.T) {
	env := startBrowserStack(t, 1) // submissions need a connected judge
	base, logins := env.base, env.logins
	admin := apiLogin(t, base, "admin", logins["admin"])
	csv := "username,password,role\n"
	for i := range 4 {
		csv += fmt.Sprintf("sim%d,sim-password-%d,student\n", i, i)
	}
	if st := admin.call("POST", "/api/users/import", "text/csv", csv, nil); st != 200 {
		t.Fatalf("import the students: %d", st)
	}
	fixture := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "webapp", "internal", "similarity", "testdata", "maxsub", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ids := map[string]int64{}
	for i, f := range []string{"a_kadane.cpp", "b_divide.cpp", "copy_a.cpp", "c_prefix.cpp"} {
		c := apiLogin(t, base, fmt.Sprintf("sim%d", i), fmt.Sprintf("sim-password-%d", i))
		body, _ := json.Marshal(map[string]string{"problem": "max-subarray", "language": "cpp17", "source": fixture(f)})
		var out struct {
			ID int64 `json:"id"`
		}
		if st := c.call("POST", "/api/submissions", "application/json", string(body), &out, "Idempotency-Key", fmt.Sprintf("sim-e2e-%d", i)); st != 201 && st != 200 {
			t.Fatalf("submit %s: %d", f, st)
		}
		ids[f] = out.ID
	}
	orig, cp := ids["a_kadane.cpp"], ids["copy_a.cpp"]
	if orig == 0 || cp == 0 {
		t.Fatalf("submission ids %v", ids)
	}

	ctx, cancel := browser(t)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // start it outside a step's deadline
		t.Fatalf("start chromium: %v", err)
	}
	step(t, ctx, "log in as the admin", 30*time.Second,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), logins["admin"]),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
		chromedp.WaitNotPresent(chromedp.ID("password")),
	)
	first := `table.sim-pairs tbody tr:first-child`
	step(t, ctx, "the similarity page shows the planted copy pair first", 60*time.Second,
		chromedp.Navigate(base+"/similarity"),
		chromedp.WaitVisible(chromedp.ID("sim-slug")),
		setValue("#sim-slug", "max-subarray"),
		chromedp.Click(chromedp.CSS(`form:has(#sim-slug) button[type=submit]`)),
		until(`location.search === '?problem=max-subarray'`),
		chromedp.WaitVisible(chromedp.CSS(first)),
		until(fmt.Sprintf(`(() => { const r = document.querySelector(%s); return [r.dataset.a, r.dataset.b].sort().join() === [%q, %q].sort().join(); })()`,
			jsq(first), fmt.Sprint(orig), fmt.Sprint(cp))),
		until(`(document.querySelector('.sim-summary')?.textContent ?? '').includes('Sources: 4;')`),
	)
	screenshot(t, ctx, "similarity-1-pairs")
	step(t, ctx, "the side-by-side view highlights the matching regions", 30*time.Second,
		chromedp.Click(chromedp.CSS(first+` a.btn`)),
		until(`new URLSearchParams(location.search).has('a')`),
		chromedp.WaitVisible(chromedp.CSS(`pre.sim-a mark`)),
		until(`document.querySelectorAll('pre.sim-a mark').length >= 3 && document.querySelectorAll('pre.sim-a mark').length === document.querySelectorAll('pre.sim-b mark').length`),
		until(`(document.querySelector('pre.sim-a')?.textContent ?? '').includes('kadane') || (document.querySelector('pre.sim-b')?.textContent ?? '').includes('kadane')`),
		until(`getComputedStyle(document.querySelector('pre.sim-a mark')).backgroundColor !== 'rgba(0, 0, 0, 0)'`),
	)
	screenshot(t, ctx, "similarity-2-side-by-side")
}

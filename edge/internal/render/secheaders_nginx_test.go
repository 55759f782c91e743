package render_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/edge/internal/render"
	"github.com/verdict-oj/verdict/internal/httpsec"
	"github.com/verdict-oj/verdict/internal/reqstart"
)

// secureNode is a web node (and hub) that sets the security headers as the
// real ones do (internal/httpsec) and echoes the X-Forwarded-Proto nginx
// sent it, and its X-Request-Start.
func secureNode(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		httpsec.Set(w.Header(), r.Header.Get("X-Forwarded-Proto") == "https")
		if assetPath.MatchString(r.URL.Path) {
			// As the web node serves a problem's asset (problems_assets.go).
			w.Header().Set("Content-Security-Policy", httpsec.AssetPolicy)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-Seen-Proto", r.Header.Get("X-Forwarded-Proto"))
		w.Header().Set("X-Seen-Request-Start", r.Header.Get(reqstart.Header))
		w.Header().Set(upstreamHeader, "1")
		if strings.HasSuffix(r.URL.Path, "/fail") {
			w.WriteHeader(http.StatusForbidden)
		}
		io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// assetPath is a problem asset's path on the web node.
var assetPath = regexp.MustCompile(`^/api/problems/[^/]+/assets/[^/]+$`)

// nonceRe finds the nonce the edge wrote into the app shell.
var nonceRe = regexp.MustCompile(`<meta name="csp-nonce" content="([0-9a-f]{32})">`)

func wantHeaders(t *testing.T, what string, r response, hsts bool) {
	t.Helper()
	for _, x := range httpsec.Always {
		want := x.Value
		if x.Name == "Content-Security-Policy" && strings.HasPrefix(r.body, "<!doctype html>") {
			// The app shell: its own nonce, in the policy and in the page.
			m := nonceRe.FindStringSubmatch(r.body)
			if m == nil {
				t.Errorf("%s: no nonce written into the page: %q", what, r.body)
				continue
			}
			want = httpsec.DocumentPolicy(m[1])
		}
		if got := r.header.Values(x.Name); len(got) != 1 || got[0] != want {
			t.Errorf("%s (%d): %s = %q, want once %q", what, r.status, x.Name, got, want)
		}
	}
	got := r.header.Values(httpsec.HSTSName)
	if hsts && (len(got) != 1 || got[0] != httpsec.StrictTransportSecurity) || !hsts && len(got) != 0 {
		t.Errorf("%s (%d): %s = %q (over HTTPS: %v)", what, r.status, httpsec.HSTSName, got, hsts)
	}
}

// TestSecurityHeadersOnEveryAnswer: every class of answer through the
// edge carries the security headers exactly once: static files (the app
// shell, a client-side route, a hashed asset, a missing asset), proxied
// web node and hub answers (whose own copies nginx replaces), and nginx's
// own errors (no node up, rate limited, too large).
func TestSecurityHeadersOnEveryAnswer(t *testing.T) {
	node := secureNode(t)
	addr := strings.TrimPrefix(node.URL, "http://")
	base := startNginx(t, render.Params{RegisterRate: "1r/m", RegisterBurst: 1, ClientMaxBodySize: "1k"},
		render.Upstreams{Web: []string{addr}, Hub: []string{addr}})
	empty := startNginx(t, render.Params{}, render.Upstreams{})
	c := clientFrom(t, "127.0.0.1")
	for _, tc := range []struct {
		name, method, url, body string
		status                  int
	}{
		{"the app shell", "GET", base + "/", "", 200},
		{"index.html", "GET", base + "/index.html", "", 200},
		{"a client-side route", "GET", base + "/contests/demo", "", 200},
		{"a hashed asset", "GET", base + "/assets/app.js", "", 200},
		{"a missing asset", "GET", base + "/assets/nope.js", "", 404},
		{"an API answer", "GET", base + "/api/problems", "", 200},
		{"an API error", "GET", base + "/api/fail", "", 403},
		{"a hub answer", "GET", base + "/ws/fail", "", 403},
		{"no web node up", "GET", empty + "/api/problems", "", 503},
		{"no hub up", "GET", empty + "/ws", "", 503},
		{"too large", "POST", base + "/api/problems", strings.Repeat("x", 4096), 413},
		{"registration, first", "POST", base + "/api/users", "{}", 200},
		{"registration, the burst", "POST", base + "/api/users", "{}", 200},
		{"registration, rate limited", "POST", base + "/api/users", "{}", 429},
	} {
		r := do(t, c, tc.method, tc.url, tc.body)
		if r.status != tc.status {
			t.Fatalf("%s: %d, want %d; %q", tc.name, r.status, tc.status, r.body)
		}
		wantHeaders(t, tc.name, r, false)
	}
	// Every load of the app shell has a nonce of its own.
	a, b := do(t, c, "GET", base+"/", ""), do(t, c, "GET", base+"/", "")
	if na, nb := nonceRe.FindStringSubmatch(a.body), nonceRe.FindStringSubmatch(b.body); na == nil || nb == nil || na[1] == nb[1] {
		t.Errorf("the nonces of two loads: %q, %q", na, nb)
	}
	// A client cannot claim HTTPS: nginx forwards its own scheme.
	req, _ := http.NewRequest("GET", base+"/api/problems", nil)
	req.Header.Set("X-Forwarded-Proto", "https")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := res.Header.Get("X-Seen-Proto"); got != "http" {
		t.Errorf("the web node was told X-Forwarded-Proto %q, want http", got)
	}
	wantHeaders(t, "X-Forwarded-Proto https from a client", response{res.StatusCode, res.Header, ""}, false)

	// nginx stamps when it passed the request on, in place of a client's
	// own stamp (here one a web node would shed at once).
	req, _ = http.NewRequest("GET", base+"/api/problems", nil)
	req.Header.Set(reqstart.Header, reqstart.Format(time.Now().Add(-30*time.Second)))
	res, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	seen := res.Header.Get("X-Seen-Request-Start")
	if d, ok := reqstart.Waited(seen, time.Now()); !ok || d > 5*time.Second {
		t.Errorf("the web node was told %s %q (waited %v, believable %v), want nginx's own stamp", reqstart.Header, seen, d, ok)
	}
}

// TestSecurityHeadersHSTSBehindTLSProxy: behind a trusted TLS-terminating
// proxy (RealIPFrom) that says https, nginx sends HSTS on every answer and
// tells the web node https; over plain HTTP, never.
func TestSecurityHeadersHSTSBehindTLSProxy(t *testing.T) {
	node := secureNode(t)
	addr := strings.TrimPrefix(node.URL, "http://")
	base := startNginx(t, render.Params{RealIPFrom: []string{"127.0.0.1"}}, render.Upstreams{Web: []string{addr}, Hub: []string{addr}})
	c := clientFrom(t, "127.0.0.1")
	for _, path := range []string{"/", "/assets/app.js", "/api/problems", "/api/fail"} {
		for _, proto := range []string{"https", "http", ""} {
			req, _ := http.NewRequest("GET", base+path, nil)
			if proto != "" {
				req.Header.Set("X-Forwarded-Proto", proto)
			}
			res, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			wantHeaders(t, path+" with X-Forwarded-Proto "+proto, response{res.StatusCode, res.Header, string(b)}, proto == "https")
			if strings.HasPrefix(path, "/api/") {
				want := proto
				if want == "" {
					want = "http"
				}
				if got := res.Header.Get("X-Seen-Proto"); got != want {
					t.Errorf("%s: the web node was told %q, want %q", path, got, want)
				}
			}
		}
	}
}

// TestAssetPolicyThroughTheEdge: a problem's statement image or
// attachment reaches the browser with the web node's sandboxed policy
// (httpsec.AssetPolicy), once, and the other security headers once; the
// rest of the API keeps the page policy; with no web node up the asset
// path answers the API's JSON 503 with the page policy.
func TestAssetPolicyThroughTheEdge(t *testing.T) {
	node := secureNode(t)
	addr := strings.TrimPrefix(node.URL, "http://")
	base := startNginx(t, render.Params{}, render.Upstreams{Web: []string{addr}, Hub: []string{addr}})
	empty := startNginx(t, render.Params{}, render.Upstreams{})
	c := clientFrom(t, "127.0.0.1")
	for _, tc := range []struct {
		name, url string
		status    int
		csp       string
	}{
		{"a statement image", base + "/api/problems/demo/assets/figure.svg", 200, httpsec.AssetPolicy},
		{"an attachment", base + "/api/problems/a-b/assets/testing_tool.py", 200, httpsec.AssetPolicy},
		{"the problem", base + "/api/problems/demo", 200, httpsec.ContentSecurityPolicy},
		{"the problem's test data", base + "/api/problems/demo/testdata", 200, httpsec.ContentSecurityPolicy},
		{"no web node up", empty + "/api/problems/demo/assets/figure.svg", 503, httpsec.ContentSecurityPolicy},
	} {
		r := do(t, c, "GET", tc.url, "")
		if r.status != tc.status {
			t.Fatalf("%s: %d, want %d; %q", tc.name, r.status, tc.status, r.body)
		}
		if got := r.header.Values("Content-Security-Policy"); len(got) != 1 || got[0] != tc.csp {
			t.Errorf("%s: Content-Security-Policy %q, want once %q", tc.name, got, tc.csp)
		}
		for _, x := range httpsec.Always {
			if x.Name == "Content-Security-Policy" {
				continue
			}
			if got := r.header.Values(x.Name); len(got) != 1 || got[0] != x.Value {
				t.Errorf("%s: %s = %q, want once %q", tc.name, x.Name, got, x.Value)
			}
		}
		if got := r.header.Values(httpsec.HSTSName); len(got) != 0 {
			t.Errorf("%s: %s over HTTP: %q", tc.name, httpsec.HSTSName, got)
		}
	}
}

package server

import (
	"net/http"
	"net/netip"
	"testing"

	"github.com/verdict-oj/verdict/internal/httpsec"
)

func wantSecurityHeaders(t *testing.T, what string, h http.Header, hsts bool) {
	t.Helper()
	for _, x := range httpsec.Always {
		if got := h.Values(x.Name); len(got) != 1 || got[0] != x.Value {
			t.Errorf("%s: %s = %q, want once %q", what, x.Name, got, x.Value)
		}
	}
	if got := h.Get(httpsec.HSTSName); hsts && got != httpsec.StrictTransportSecurity || !hsts && got != "" {
		t.Errorf("%s: %s = %q (over HTTPS: %v)", what, httpsec.HSTSName, got, hsts)
	}
}

// TestSecurityHeaders: every class of the node's answers carries the
// security headers; HSTS only when a trusted proxy says the browser came
// over HTTPS.
func TestSecurityHeaders(t *testing.T) {
	se := newStaffEnv(t, nil)
	anon := se.client()
	for _, tc := range []struct {
		name, method, path string
		client             *client
		body               any
		status             int
	}{
		{"a public list", "GET", "/api/problems", anon, nil, 200},
		{"the registration mode", "GET", "/api/settings/registration", anon, nil, 200},
		{"logged out", "GET", "/api/me", anon, nil, 401},
		{"a field error", "POST", "/api/users", anon, map[string]string{"username": "x"}, 400},
		{"not found", "GET", "/api/nowhere", anon, nil, 404},
		{"a wrong method", "DELETE", "/api/problems", anon, nil, 405},
		{"CSRF refused", "PUT", "/api/settings/registration", se.admin, map[string]string{"mode": "open"}, 403},
		{"logged in", "GET", "/api/me", se.student, nil, 200},
		{"health", "GET", "/healthz", anon, nil, 200},
		{"metrics", "GET", "/metrics", anon, nil, 200},
		{"pprof, off", "GET", "/debug/pprof/", anon, nil, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.client.do(tc.method, tc.path, tc.body)
			if r.status != tc.status {
				t.Fatalf("%s %s: %d %s", tc.method, tc.path, r.status, r.raw)
			}
			wantSecurityHeaders(t, "over HTTP", r.header, false)
			r = tc.client.do(tc.method, tc.path, tc.body, "X-Forwarded-Proto", "https")
			wantSecurityHeaders(t, "over HTTPS through the trusted proxy", r.header, true)
		})
	}
}

// TestSecurityHeadersHSTSOnlyFromTrustedProxy: a client that is not a
// trusted proxy cannot claim HTTPS.
func TestSecurityHeadersHSTSOnlyFromTrustedProxy(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")} })
	r := e.client().do("GET", "/api/problems", nil, "X-Forwarded-Proto", "https")
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	wantSecurityHeaders(t, "X-Forwarded-Proto from an untrusted peer", r.header, false)
}

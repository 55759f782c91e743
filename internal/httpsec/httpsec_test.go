package httpsec

import (
	"net/http"
	"strings"
	"testing"
)

func directives(p string) map[string]string {
	out := map[string]string{}
	for _, d := range strings.Split(p, ";") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), " ")
		out[name] = val
	}
	return out
}

func TestPolicies(t *testing.T) {
	page, doc := directives(ContentSecurityPolicy), directives(DocumentPolicy("abc123"))
	for _, p := range []map[string]string{page, doc} {
		if s := p["script-src"]; s != "'self'" {
			t.Errorf("script-src %q: only the site's own scripts, nothing inline", s)
		}
		if p["frame-ancestors"] != "'none'" || p["object-src"] != "'none'" || p["base-uri"] != "'none'" {
			t.Errorf("policy %v", p)
		}
		if p["default-src"] != "'self'" {
			t.Errorf("default-src %q", p["default-src"])
		}
	}
	if doc["style-src"] != "'self' 'nonce-abc123'" || page["style-src"] != "'self'" {
		t.Errorf("style-src: page %q, document %q", page["style-src"], doc["style-src"])
	}
	for k, v := range page {
		if k != "style-src" && doc[k] != v {
			t.Errorf("%s differs: %q, %q", k, v, doc[k])
		}
	}
}

func TestSet(t *testing.T) {
	h := http.Header{}
	Set(h, false)
	if h.Get("X-Frame-Options") != "DENY" || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") == "" ||
		h.Get("Content-Security-Policy") != ContentSecurityPolicy || h.Get(HSTSName) != "" {
		t.Fatalf("over HTTP: %v", h)
	}
	Set(h, true)
	if h.Get(HSTSName) != StrictTransportSecurity || len(h.Values("X-Frame-Options")) != 1 {
		t.Fatalf("over HTTPS: %v", h)
	}
}

// TestAssetPolicy: a problem's asset may load and run nothing and gets an
// opaque origin (sandbox).
func TestAssetPolicy(t *testing.T) {
	p := directives(AssetPolicy)
	if p["default-src"] != "'none'" || p["script-src"] != "" {
		t.Errorf("default-src %q, script-src %q: nothing may run", p["default-src"], p["script-src"])
	}
	if _, ok := p["sandbox"]; !ok {
		t.Errorf("no sandbox directive: %q", AssetPolicy)
	}
}

package httpsec

import (
	"net/http"
	"strings"
)

// The header values.
const (
	// ContentSecurityPolicy is the page policy. frame-ancestors 'none'
	// forbids framing (clickjacking); X-Frame-Options says the same to
	// browsers without CSP level 2.
	ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; " +
		"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self'; " +
		"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
	// NoncePlaceholder is what the app shell (frontend/index.html) carries
	// in <meta name="csp-nonce">; the edge replaces it with each answer's
	// nonce (nginx's $request_id), which DocumentPolicy puts in style-src.
	NoncePlaceholder   = "VERDICT_CSP_NONCE"
	FrameOptions       = "DENY"
	ContentTypeOptions = "nosniff"
	// ReferrerPolicy: other sites never see the address of a page here
	// (a contest's or a submission's), the site's own pages do.
	ReferrerPolicy = "same-origin"
	// StrictTransportSecurity: one year; sent only over HTTPS. Not
	// includeSubDomains: other hosts of the organisation's domain are not
	// ours to pin.
	StrictTransportSecurity = "max-age=31536000"
	// AssetPolicy is the policy of a problem's statement image or
	// attachment (/api/problems/{slug}/assets/{name}, served by the web
	// nodes and kept by the edge in place of ContentSecurityPolicy):
	// nothing in it may run or load anything (an SVG opened on its own is
	// a document that could carry script; sandbox gives it an opaque
	// origin as well).
	AssetPolicy = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"
)

// DocumentPolicy is the policy of the app shell (the HTML document),
// whose <style> elements may carry nonce: CodeMirror puts its styles in
// one (EditorView.cspNonce) when the document is not a shadow root. Every
// other rule is ContentSecurityPolicy's: no inline script, ever.
func DocumentPolicy(nonce string) string {
	return strings.Replace(ContentSecurityPolicy, "style-src 'self';", "style-src 'self' 'nonce-"+nonce+"';", 1)
}

// Header is one security header.
type Header struct{ Name, Value string }

// Always are the headers of every answer, HTTPS or not.
var Always = []Header{
	{"Content-Security-Policy", ContentSecurityPolicy},
	{"X-Frame-Options", FrameOptions},
	{"X-Content-Type-Options", ContentTypeOptions},
	{"Referrer-Policy", ReferrerPolicy},
}

// HSTSName is the header sent only over HTTPS.
const HSTSName = "Strict-Transport-Security"

// Set puts the security headers in h; Strict-Transport-Security only when
// secure (the browser reached the site over HTTPS).
func Set(h http.Header, secure bool) {
	for _, x := range Always {
		h.Set(x.Name, x.Value)
	}
	if secure {
		h.Set(HSTSName, StrictTransportSecurity)
	}
}

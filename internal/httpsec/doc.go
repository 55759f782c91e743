// Package httpsec is the one definition of the security headers every
// answer of a Verdict site carries: the web nodes set them on each API
// answer (and /healthz, /metrics), and the edge renders the same values
// into nginx.conf for what nginx serves itself (the frontend's static
// files, its own errors) and for what it proxies (it hides the web
// node's and the hub's copies and sets its own, so no header is sent
// twice). See docs/edge.md, "Security headers".
//
// The Content-Security-Policy is the one the built frontend works under:
// scripts, styles, fonts only from the site itself (no inline script, no
// eval); inline style attributes are allowed (style-src-attr), because
// KaTeX lays out formulas with them; CodeMirror's styles are constructed
// style sheets, which CSP does not restrict. HSTS is sent only on answers
// the browser got over HTTPS.
package httpsec

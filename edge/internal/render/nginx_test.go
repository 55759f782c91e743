package render_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/edge/internal/nginxctl"
	"github.com/verdict-oj/verdict/edge/internal/render"
)

// These tests run the rendered config in a real nginx in front of a tiny Go
// web node, and check what a client sees: every error nginx produces is the
// API's JSON, errors of the web node pass through untouched, and the
// per-address limits let a room behind one address in.

// upstreamHeader marks responses written by the fake web node / hub.
const upstreamHeader = "X-Verdict-Upstream"

// fakeNode is the web node and the hub: POSTs and GETs answer 200 JSON,
// /api/own/{status} and /ws/own/{status} answer the node's own JSON error
// with Retry-After 7, /api/slow and /ws/slow answer after 3 s.
func fakeNode(t *testing.T) *httptest.Server {
	t.Helper()
	ownError := func(w http.ResponseWriter, r *http.Request) {
		code, err := strconv.Atoi(r.PathValue("status"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Retry-After", "7")
		w.Header().Set(upstreamHeader, "1")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"code":"node_%d","message":"from the web node"}}`, code)
	}
	slow := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
			return
		}
		w.Header().Set(upstreamHeader, "1")
		io.WriteString(w, `{"late":true}`)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/own/{status}", ownError)
	mux.HandleFunc("/ws/own/{status}", ownError)
	mux.HandleFunc("/api/slow", slow)
	mux.HandleFunc("/ws/slow", slow)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("slow") {
			slow(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set(upstreamHeader, "1")
		io.WriteString(w, `{"ok":true}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// deadAddr is a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startNginx renders p and u (nginx's files in a temp dir) and runs nginx on
// it until the test ends. It returns the base URL.
func startNginx(t *testing.T, p render.Params, u render.Upstreams) string {
	t.Helper()
	dir := t.TempDir()
	p.RuntimeDir = filepath.Join(dir, "run")
	p.StaticDir = filepath.Join(dir, "static")
	for _, d := range []string{p.RuntimeDir, p.StaticDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(p.StaticDir, "index.html"), []byte(`<!doctype html><meta name="csp-nonce" content="VERDICT_CSP_NONCE">`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p.StaticDir, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.StaticDir, "assets", "app.js"), []byte("export {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Listen = deadAddr(t)
	p.WorkerProcesses = "1"
	p.ErrorLog = "stderr"
	p.ErrorLogLevel = "error"
	p.AccessLog = "off"
	if os.Geteuid() == 0 {
		// As root nginx would run its workers as nobody, who cannot enter
		// the test's private temp dirs.
		me, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		p.User = me.Username
	}
	conf, err := render.Render(p, u)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	path := filepath.Join(p.RuntimeDir, "nginx.conf")
	if err := os.WriteFile(path, conf, 0o644); err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuf{}
	child, err := nginxctl.Start(nginxBin(t), path, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatalf("start nginx: %v", err)
	}
	t.Cleanup(func() {
		if err := child.Stop(5 * time.Second); err != nil {
			t.Errorf("stop nginx: %v", err)
		}
		if t.Failed() {
			t.Logf("nginx stderr:\n%s", logs.String())
		}
	})
	return "http://" + p.Listen
}

// clientFrom is an HTTP client whose connections come from the loopback
// address ip (all of 127.0.0.0/8 is local), so nginx sees a distinct
// client address per client.
func clientFrom(t *testing.T, ip string) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 16}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 20 * time.Second}
}

type response struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, c *http.Client, method, url, body string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	return response{res.StatusCode, res.Header, string(b)}
}

// raw sends req as is on a new connection from 127.0.0.1 and reads one
// response (for requests net/http will not send: a Content-Length without
// the body).
func raw(t *testing.T, base, req string) response {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatalf("write request: %v", err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read response body: %v", err)
	}
	return response{res.StatusCode, res.Header, string(b)}
}

// wantNginxError checks r is nginx's own error in the API's shape: status,
// JSON content type, exactly {"error":{"code","message"}} with the code,
// Retry-After as given ("" for none), and not from the upstream.
func wantNginxError(t *testing.T, r response, status int, code, retryAfter string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %q", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json; body %q", ct, r.body)
	}
	var body struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(strings.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		t.Fatalf("body %q is not the API's error JSON: %v", r.body, err)
	}
	if body.Error.Code != code || body.Error.Message == "" {
		t.Errorf("error %+v, want code %q and a message", body.Error, code)
	}
	if got := r.header.Get("Retry-After"); got != retryAfter {
		t.Errorf("Retry-After %q, want %q", got, retryAfter)
	}
	if r.header.Get(upstreamHeader) != "" {
		t.Errorf("response came from the upstream, want nginx's own")
	}
}

// TestNginxErrorsAreJSON: what nginx answers by itself (413, 429, 502 → 503,
// 504, no live node) is the API's JSON error; what the web node or hub
// answers passes through byte for byte.
func TestNginxErrorsAreJSON(t *testing.T) {
	node := fakeNode(t)
	nodeAddr := strings.TrimPrefix(node.URL, "http://")
	base := startNginx(t, render.Params{
		ClientMaxBodySize: "1k",
		LoginRate:         "1r/m", LoginBurst: 1,
		SubmitRate: "2r/m", SubmitBurst: 1,
		RegisterRate: "3r/m", RegisterBurst: 1,
		APIReadTimeout: time.Second,
		WSReadTimeout:  time.Second,
	}, render.Upstreams{Web: []string{nodeAddr}, Hub: []string{nodeAddr}})
	c := clientFrom(t, "127.0.0.1")
	big := strings.Repeat("x", 2048)

	t.Run("429 per zone", func(t *testing.T) {
		tests := []struct {
			from, path, retryAfter string
		}{
			{"127.0.0.11", "/api/session", "60"},
			{"127.0.0.12", "/api/login", "60"},
			{"127.0.0.13", "/api/submissions", "30"},
			{"127.0.0.14", "/api/users", "20"},
		}
		for _, tc := range tests {
			t.Run(tc.path, func(t *testing.T) {
				c := clientFrom(t, tc.from)
				for i := range 2 { // the rate's one plus a burst of 1
					if r := do(t, c, "POST", base+tc.path, `{}`); r.status != 200 || r.header.Get(upstreamHeader) == "" {
						t.Fatalf("POST %d: %d %q, want 200 from the node", i+1, r.status, r.body)
					}
				}
				wantNginxError(t, do(t, c, "POST", base+tc.path, `{}`), 429, "rate_limited", tc.retryAfter)
				// Reads on the same path are never limited.
				for range 5 {
					if r := do(t, c, "GET", base+tc.path, ""); r.status != 200 {
						t.Fatalf("GET after the limit: %d %q", r.status, r.body)
					}
				}
			})
		}
		// /api/login and /api/session share one zone.
		c := clientFrom(t, "127.0.0.15")
		for range 2 {
			do(t, c, "POST", base+"/api/session", `{}`)
		}
		wantNginxError(t, do(t, c, "POST", base+"/api/login", `{}`), 429, "rate_limited", "60")
		// Other POSTs (admin import, contests) are not limited.
		for range 5 {
			if r := do(t, c, "POST", base+"/api/users/import", `{}`); r.status != 200 {
				t.Fatalf("POST /api/users/import: %d %q", r.status, r.body)
			}
		}
	})

	t.Run("413", func(t *testing.T) {
		tests := []struct{ name, req string }{
			{"content-length api", "POST /api/submissions HTTP/1.1\r\nHost: edge\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n"},
			{"content-length ws", "POST /ws/x HTTP/1.1\r\nHost: edge\r\nContent-Length: 4096\r\n\r\n"},
			{"chunked", "POST /api/problems HTTP/1.1\r\nHost: edge\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
				strconv.FormatInt(int64(len(big)), 16) + "\r\n" + big + "\r\n0\r\n\r\n"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				wantNginxError(t, raw(t, base, tc.req), 413, "payload_too_large", "")
			})
		}
		// Within the limit the body reaches the node.
		if r := do(t, c, "POST", base+"/api/problems", strings.Repeat("x", 1000)); r.status != 200 {
			t.Fatalf("1000-byte body: %d %q", r.status, r.body)
		}
	})

	t.Run("node errors pass through", func(t *testing.T) {
		for _, prefix := range []string{"/api/own/", "/ws/own/"} {
			for _, status := range []int{400, 401, 404, 413, 429, 500, 502, 503, 504} {
				t.Run(prefix+strconv.Itoa(status), func(t *testing.T) {
					r := do(t, c, "GET", base+prefix+strconv.Itoa(status), "")
					want := fmt.Sprintf(`{"error":{"code":"node_%d","message":"from the web node"}}`, status)
					if r.status != status || r.body != want || r.header.Get("Retry-After") != "7" || r.header.Get(upstreamHeader) != "1" {
						t.Fatalf("got %d %q Retry-After %q upstream %q; want %d %q Retry-After 7 from the node",
							r.status, r.body, r.header.Get("Retry-After"), r.header.Get(upstreamHeader), status, want)
					}
				})
			}
		}
	})

	// Uploads get the upload read timeout (default 330 s), not the API's
	// (1 s here): a slow import is the web node's answer, not a 504.
	t.Run("uploads wait longer", func(t *testing.T) {
		for _, path := range []string{"/api/users/import", "/api/problems/p-1/testdata", "/api/problems/import"} {
			t.Run(path, func(t *testing.T) {
				if r := do(t, c, "POST", base+path+"?slow=1", `{}`); r.status != 200 || r.header.Get(upstreamHeader) == "" {
					t.Fatalf("slow upload: %d %q, want the node's 200", r.status, r.body)
				}
			})
		}
	})

	// Last: a timeout counts as a failure of the only node.
	t.Run("504", func(t *testing.T) {
		for _, path := range []string{"/api/slow", "/ws/slow"} {
			t.Run(path, func(t *testing.T) {
				wantNginxError(t, do(t, c, "GET", base+path, ""), 504, "gateway_timeout", "")
			})
		}
	})
}

// TestNginxNoNodeIsJSON: with every node down (connection refused → nginx's
// 502) or none registered, /api and the WebSocket paths answer the JSON 503
// with Retry-After, and an oversized body still gets the JSON 413.
func TestNginxNoNodeIsJSON(t *testing.T) {
	dead := deadAddr(t)
	tests := []struct {
		name string
		u    render.Upstreams
	}{
		{"down", render.Upstreams{Web: []string{dead}, Hub: []string{dead}}},
		{"none", render.Upstreams{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := startNginx(t, render.Params{ClientMaxBodySize: "1k"}, tc.u)
			c := clientFrom(t, "127.0.0.1")
			for _, req := range []struct{ method, path string }{
				{"GET", "/api/me"}, {"POST", "/api/submissions"}, {"POST", "/api/session"},
				{"GET", "/ws"}, {"GET", "/ws/contest/1"}, {"GET", "/judge"}, {"GET", "/judge/x"},
			} {
				t.Run(req.method+" "+req.path, func(t *testing.T) {
					wantNginxError(t, do(t, c, req.method, base+req.path, `{}`), 503, "unavailable", "5")
				})
			}
			t.Run("413", func(t *testing.T) {
				r := raw(t, base, "POST /api/submissions HTTP/1.1\r\nHost: edge\r\nContent-Length: 4096\r\n\r\n")
				wantNginxError(t, r, 413, "payload_too_large", "")
			})
			if r := do(t, c, "GET", base+"/", ""); r.status != 200 {
				t.Fatalf("static frontend: %d", r.status)
			}
		})
	}
}

// TestNginxTrustedNetworks: addresses in a trusted network are not counted;
// any other address still is.
func TestNginxTrustedNetworks(t *testing.T) {
	node := fakeNode(t)
	base := startNginx(t, render.Params{
		LoginRate: "1r/m", LoginBurst: 1,
		SubmitRate: "1r/m", SubmitBurst: 1,
		RegisterRate: "1r/m", RegisterBurst: 1,
		TrustedNetworks: []string{"127.0.0.32/28", "2001:db8::/32"},
	}, render.Upstreams{Web: []string{strings.TrimPrefix(node.URL, "http://")}})
	tests := []struct {
		from       string
		trusted    bool
		path, body string
	}{
		{"127.0.0.32", true, "/api/session", `{}`},
		{"127.0.0.47", true, "/api/submissions", `{}`},
		{"127.0.0.40", true, "/api/users", `{}`},
		{"127.0.0.31", false, "/api/session", `{}`},
		{"127.0.0.48", false, "/api/submissions", `{}`},
		{"127.0.0.49", false, "/api/users", `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.from+tc.path, func(t *testing.T) {
			c := clientFrom(t, tc.from)
			first429 := 0
			for i := 1; i <= 20 && first429 == 0; i++ {
				r := do(t, c, "POST", base+tc.path, tc.body)
				switch r.status {
				case 200:
				case 429:
					first429 = i
					wantNginxError(t, r, 429, "rate_limited", "60")
				default:
					t.Fatalf("POST %d: %d %q", i, r.status, r.body)
				}
			}
			switch {
			case tc.trusted && first429 != 0:
				t.Fatalf("trusted %s limited at request %d", tc.from, first429)
			case !tc.trusted && first429 != 3:
				t.Fatalf("untrusted %s: first 429 at request %d, want 3 (rate 1 + burst 1)", tc.from, first429)
			}
		})
	}
}

// TestNginxDefaultLimitsFitARoom: with the default limits, a room of 300
// behind one NAT address logs in, registers and submits back to back
// without a 429; the flood guard still stops more than that.
func TestNginxDefaultLimitsFitARoom(t *testing.T) {
	node := fakeNode(t)
	base := startNginx(t, render.Params{}, render.Upstreams{Web: []string{strings.TrimPrefix(node.URL, "http://")}})
	const room = 300
	c := clientFrom(t, "127.0.0.2")
	for _, path := range []string{"/api/session", "/api/users", "/api/submissions"} {
		t.Run(path, func(t *testing.T) {
			for i := 1; i <= room; i++ {
				if r := do(t, c, "POST", base+path, `{}`); r.status != 200 {
					t.Fatalf("POST %d of %d from one address: %d %q", i, room, r.status, r.body)
				}
			}
		})
	}
	// More log-ins from the same address, faster than 10 a second: the
	// guard holds. Look for the 429 with a few clients in parallel, bounded.
	var sent, limited atomic.Int64
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var once sync.Once
	var got429 response
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && sent.Add(1) <= 3000 {
				req, _ := http.NewRequestWithContext(ctx, "POST", base+"/api/session", strings.NewReader(`{}`))
				res, err := c.Do(req)
				if err != nil {
					return
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode == 429 {
					limited.Add(1)
					once.Do(func() { got429 = response{res.StatusCode, res.Header, string(b)}; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if limited.Load() == 0 {
		t.Fatalf("no 429 after %d more log-ins from one address: the default limit does not hold", sent.Load())
	}
	wantNginxError(t, got429, 429, "rate_limited", "1")
}

// flakyNode is a web node whose listener, while broken is set, accepts
// each connection and resets it at once (nginx counts a failed try
// against the server, as it does a connect that times out), and otherwise
// serves 200 JSON.
func flakyNode(t *testing.T, broken *atomic.Bool) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set(upstreamHeader, "1")
		io.WriteString(w, `{"ok":true}`)
	})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(resetWhile{Listener: l, broken: broken})
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return l.Addr().String()
}

// resetWhile resets the connections it accepts while broken is set.
type resetWhile struct {
	net.Listener
	broken *atomic.Bool
}

func (l resetWhile) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil || !l.broken.Load() {
			return c, err
		}
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // RST, not FIN
		}
		c.Close()
	}
}

// TestNginxPanicRouting: when every web node has failed often enough to be
// skipped (as an overloaded machine's slow connects make them all look),
// nginx does not answer "no live upstreams" until fail_timeout is over: it
// goes on to the same nodes as backups, and the first request after they
// recover gets through.
func TestNginxPanicRouting(t *testing.T) {
	var broken atomic.Bool
	broken.Store(true)
	a, b := flakyNode(t, &broken), flakyNode(t, &broken)
	base := startNginx(t, render.Params{MaxFails: 1, FailTimeout: time.Minute}, render.Upstreams{Web: []string{a, b}})
	c := clientFrom(t, "127.0.0.1")
	for range 3 {
		wantNginxError(t, do(t, c, "GET", base+"/api/x", ""), 503, "unavailable", "5")
	}
	broken.Store(false)
	// Both primaries are skipped for a minute now.
	for i := range 3 {
		r := do(t, c, "GET", base+"/api/x", "")
		if r.status != 200 || r.header.Get(upstreamHeader) != "1" {
			t.Fatalf("request %d after the nodes recovered, within fail_timeout: %d %q, want the node's 200", i, r.status, r.body)
		}
	}
}

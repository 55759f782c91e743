package edge_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/verdict-oj/verdict/edge/internal/edge"
	"github.com/verdict-oj/verdict/edge/internal/nginxctl"
	"github.com/verdict-oj/verdict/edge/internal/render"
	"github.com/verdict-oj/verdict/internal/registry"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func nginxBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("VERDICT_NGINX")
	if bin == "" {
		bin = nginxctl.DefaultBinary
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("this test runs the real nginx and cannot find it at %s (set VERDICT_NGINX or run make deps): %v", bin, err)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// nginxParams puts nginx's files in a temp dir, with a tiny built frontend.
func nginxParams(t *testing.T) render.Params {
	t.Helper()
	dir := t.TempDir()
	static := filepath.Join(dir, "static")
	for path, body := range map[string]string{
		"index.html":         "<!doctype html><title>verdict</title>",
		"assets/app-1a2b.js": "console.log('verdict')",
	} {
		p := filepath.Join(static, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := render.Params{
		Listen:                freeAddr(t),
		RuntimeDir:            filepath.Join(dir, "run"),
		StaticDir:             static,
		WorkerProcesses:       "1",
		WorkerShutdownTimeout: 2 * time.Second,
		ErrorLog:              "stderr",
		ErrorLogLevel:         "error",
		// Fast passive checks: a stopped server is skipped at once.
		MaxFails:    1,
		FailTimeout: 30 * time.Second,
	}
	// As root nginx would run its workers as nobody, who cannot enter the
	// test's private temp dirs.
	if os.Geteuid() == 0 {
		u, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		p.User = u.Username
	}
	return p
}

// node is a fake web node or hub: it answers with its name, and echoes
// WebSocket messages prefixed with its name.
type node struct {
	name string
	srv  *httptest.Server
	reg  *registry.Registrar
	stop context.CancelFunc
	done chan error
}

// nodeInterval is the renewal interval of nodes that join (3 s expiry).
// They leave by deregistering, so no test waits for their entries to
// expire, and a renewal held up on a loaded machine must not drop one
// from the upstream mid-test.
const nodeInterval = time.Second

func startNode(t *testing.T, env *testenv.RedisEnv, role rkeys.Role, name string, interval time.Duration) *node {
	t.Helper()
	n := &node{name: name}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen-Forwarded-For", r.Header.Get("X-Forwarded-For"))
		io.WriteString(w, name)
	})
	ws := func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			_, msg, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if err := c.Write(r.Context(), websocket.MessageText, []byte(name+":"+r.URL.Path+":"+string(msg))); err != nil {
				return
			}
		}
	}
	mux.HandleFunc("/ws", ws)
	mux.HandleFunc("/judge", ws)
	n.srv = httptest.NewServer(mux)
	t.Cleanup(n.srv.Close)
	reg, err := registry.New(registry.Config{
		Client: env.Client, Names: env.Names, Role: role,
		Addr: n.srv.Listener.Addr().String(), Interval: interval,
	})
	if err != nil {
		t.Fatal(err)
	}
	n.reg = reg
	return n
}

// join runs the node's registrar (heartbeat) until leave.
func (n *node) join(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	n.stop, n.done = cancel, make(chan error, 1)
	go func() { n.done <- n.reg.Run(ctx) }()
	t.Cleanup(func() { n.leave(t) })
}

// leave deregisters and stops the server, as a node does on shutdown.
func (n *node) leave(t *testing.T) {
	t.Helper()
	n.deregister(t)
	n.srv.Close()
}

// deregister takes the node out of the registry while its server stays up.
func (n *node) deregister(t *testing.T) {
	t.Helper()
	if n.stop == nil {
		return
	}
	n.stop()
	n.stop = nil
	if err := <-n.done; err != nil {
		t.Errorf("%s registrar: %v", n.name, err)
	}
}

var client = &http.Client{Timeout: 5 * time.Second}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	res, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return res, string(b)
}

// eventually polls cond every 50 ms until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	var last string
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("after %v: %s; last: %s", d, what, last)
}

// served returns which nodes answered n requests to /api/whoami.
func served(base string, n int) map[string]int {
	seen := map[string]int{}
	for range n {
		res, err := client.Get(base + "/api/whoami")
		if err != nil {
			seen["error: "+err.Error()]++
			continue
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			seen[fmt.Sprintf("status %d", res.StatusCode)]++
			continue
		}
		seen[string(b)]++
	}
	return seen
}

func sameKeys(m map[string]int, want ...string) bool {
	if len(m) != len(want) {
		return false
	}
	for _, w := range want {
		if m[w] == 0 {
			return false
		}
	}
	return true
}

type logBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startEdge(t *testing.T, cfg edge.Config) (stop func() error) {
	t.Helper()
	logs := &logBuf{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("edge log:\n%s", logs.String())
		}
	})
	e, err := edge.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	var once sync.Once
	var runErr error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(20 * time.Second):
				runErr = errors.New("edge did not stop")
			}
		})
		return runErr
	}
	t.Cleanup(func() { _ = stop() })
	eventually(t, 10*time.Second, "edge ready", func() (bool, string) {
		select {
		case err := <-done:
			t.Fatalf("edge stopped early: %v", err)
		default:
		}
		err := e.Ready()
		return err == nil, fmt.Sprint(err)
	})
	return stop
}

func TestEdgeFollowsRegistry(t *testing.T) {
	env := testenv.Redis(t)
	p := nginxParams(t)
	base := "http://" + p.Listen
	metrics := prometheus.NewRegistry()

	webA := startNode(t, env, rkeys.RoleWeb, "web-a", nodeInterval)
	webB := startNode(t, env, rkeys.RoleWeb, "web-b", nodeInterval)
	webA.join(t)
	webB.join(t)

	stop := startEdge(t, edge.Config{
		Redis: env.Client, Names: env.Names, Nginx: p, NginxBin: nginxBin(t),
		PollInterval: 200 * time.Millisecond, PruneAfter: 500 * time.Millisecond, Metrics: metrics,
		HoldLast: 3 * time.Second,
	})

	// Both registered nodes take traffic.
	eventually(t, 5*time.Second, "both web nodes serve /api", func() (bool, string) {
		s := served(base, 10)
		return sameKeys(s, "web-a", "web-b"), fmt.Sprint(s)
	})
	if got := metric(t, metrics, "verdict_edge_upstream_servers", "webapp"); got != 2 {
		t.Fatalf("upstream_servers{webapp} = %v, want 2", got)
	}

	// The edge replaces a client's X-Forwarded-For with the real address.
	req, _ := http.NewRequest("GET", base+"/api/whoami", nil)
	req.Header.Set("X-Forwarded-For", "6.6.6.6")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := res.Header.Get("X-Seen-Forwarded-For"); got != "127.0.0.1" {
		t.Fatalf("web node saw X-Forwarded-For %q, want 127.0.0.1", got)
	}

	// Static files: the SPA shell uncached, hashed assets cached for good,
	// unknown paths fall back to the shell.
	res, body := get(t, base+"/")
	if res.StatusCode != 200 || !strings.Contains(body, "<title>verdict</title>") || res.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("GET / = %d %q cache %q", res.StatusCode, body, res.Header.Get("Cache-Control"))
	}
	res, body = get(t, base+"/contest/7/scoreboard")
	if res.StatusCode != 200 || !strings.Contains(body, "<title>verdict</title>") {
		t.Fatalf("SPA fallback = %d %q", res.StatusCode, body)
	}
	res, _ = get(t, base+"/assets/app-1a2b.js")
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") ||
		!strings.HasPrefix(res.Header.Get("Content-Type"), "application/javascript") {
		t.Fatalf("asset = %d cache %q type %q", res.StatusCode, res.Header.Get("Cache-Control"), res.Header.Get("Content-Type"))
	}
	if res, _ = get(t, base+"/assets/missing.js"); res.StatusCode != 404 {
		t.Fatalf("missing asset = %d, want 404", res.StatusCode)
	}

	// No hub yet: /ws answers 503 JSON instead of failing.
	res, body = get(t, base+"/ws")
	if res.StatusCode != 503 || !strings.Contains(body, `"code":"unavailable"`) {
		t.Fatalf("/ws without hubs = %d %q", res.StatusCode, body)
	}

	// A node that shuts down is skipped at once (it refuses nginx's
	// connects), and leaves the upstream once it has been gone HoldLast.
	webA.leave(t)
	eventually(t, 3*time.Second, "only web-b serves after web-a left", func() (bool, string) {
		s := served(base, 10)
		return sameKeys(s, "web-b"), fmt.Sprint(s)
	})
	eventually(t, 3*time.Second+5*time.Second, "web-a out of nginx.conf after HoldLast", func() (bool, string) {
		b, err := os.ReadFile(filepath.Join(p.RuntimeDir, "nginx.conf"))
		return err == nil && !strings.Contains(string(b), webA.srv.Listener.Addr().String()), fmt.Sprint(err)
	})

	// A new node joins without anyone editing a file.
	webC := startNode(t, env, rkeys.RoleWeb, "web-c", nodeInterval)
	webC.join(t)
	eventually(t, 3*time.Second, "web-c takes traffic after joining", func() (bool, string) {
		s := served(base, 10)
		return sameKeys(s, "web-b", "web-c"), fmt.Sprint(s)
	})

	// A node that dies without deregistering (no more heartbeats) is dropped
	// when its entry expires — here its server stays up, so only the
	// registry can be the reason — and then pruned from Redis.
	// It expires 3 s after its one heartbeat: within that the edge must poll,
	// test and reload nginx, and a request must reach web-d, which on a
	// loaded machine takes more than a second.
	webD := startNode(t, env, rkeys.RoleWeb, "web-d", time.Second)
	if _, err := webD.reg.Register(context.Background()); err != nil {
		t.Fatal(err)
	}
	eventually(t, webD.reg.Expiry(), "web-d takes traffic", func() (bool, string) {
		s := served(base, 12)
		return s["web-d"] > 0, fmt.Sprint(s)
	})
	eventually(t, webD.reg.Expiry()+3*time.Second+5*time.Second, "web-d dropped after its entry expired and HoldLast passed", func() (bool, string) {
		s := served(base, 10)
		return sameKeys(s, "web-b", "web-c"), fmt.Sprint(s)
	})
	eventually(t, 3*time.Second, "web-d pruned from Redis", func() (bool, string) {
		_, err := env.Client.ZScore(context.Background(), env.Names.Registry(rkeys.RoleWeb), webD.srv.Listener.Addr().String()).Result()
		return err != nil, fmt.Sprint(err)
	})

	// A hub joins: WebSockets through /ws and /judge reach it. The dial
	// carries the Origin a browser on the page sends, and the fake hub
	// checks it against Host the way the real hub does (coder/websocket's
	// default): nginx must pass the Host with its port.
	hub := startNode(t, env, rkeys.RoleHub, "hub-1", nodeInterval)
	hub.join(t)
	for _, path := range []string{"/ws", "/judge"} {
		var c *websocket.Conn
		eventually(t, 3*time.Second, "WebSocket "+path+" through nginx", func() (bool, string) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			conn, res, err := websocket.Dial(ctx, "ws://"+p.Listen+path, &websocket.DialOptions{
				HTTPHeader: http.Header{"Origin": {"http://" + p.Listen}},
			})
			if err != nil {
				code := 0
				if res != nil {
					code = res.StatusCode
				}
				return false, fmt.Sprintf("status %d: %v", code, err)
			}
			c = conn
			return true, ""
		})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := c.Write(ctx, websocket.MessageText, []byte("ping")); err != nil {
			t.Fatal(err)
		}
		_, msg, err := c.Read(ctx)
		cancel()
		if err != nil || string(msg) != "hub-1:"+path+":ping" {
			t.Fatalf("%s echo = %q, %v", path, msg, err)
		}
		c.Close(websocket.StatusNormalClosure, "")
	}

	// Every web node gone from the registry. For HoldLast the last ones
	// keep serving (an entry that expired under load is not a death, and a
	// reload would cut every WebSocket); then /api answers 503 JSON, static
	// files still serve.
	webB.deregister(t)
	webC.deregister(t)
	time.Sleep(time.Second) // five polls: without HoldLast nginx would have reloaded

	if s := served(base, 6); s["web-b"]+s["web-c"] != 6 {
		t.Fatalf("right after the registry emptied, served %v: want the last members kept", s)
	}
	if got := metric(t, metrics, "verdict_edge_upstream_held", "web"); got != 2 {
		t.Fatalf("upstream_held{web} = %v, want 2 (web-b and web-c) while holding", got)
	}
	want := `{"error":{"code":"unavailable","message":"no web node is up"}}`
	eventually(t, 5*time.Second, "503 JSON with no web node", func() (bool, string) {
		res, body := get(t, base+"/api/whoami")
		return res.StatusCode == 503 && body == want && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json"),
			fmt.Sprintf("%d %q %q", res.StatusCode, body, res.Header.Get("Content-Type"))
	})
	if res, _ := get(t, base+"/"); res.StatusCode != 200 {
		t.Fatalf("static with no web node = %d", res.StatusCode)
	}
	if got := metric(t, metrics, "verdict_edge_reloads_total", "ok"); got < 5 {
		t.Fatalf("reloads_total{ok} = %v, want at least 5", got)
	}

	// Stopping the edge stops nginx.
	if err := stop(); err != nil {
		t.Fatalf("edge Run: %v", err)
	}
	if c, err := net.DialTimeout("tcp", p.Listen, time.Second); err == nil {
		c.Close()
		t.Fatal("nginx still listening after the edge stopped")
	}
}

// A member that leaves the registry and comes back within HoldLast (a node
// restarted in place, a rolling deploy, a renewal late under load) costs
// no reload, so the WebSockets through nginx stay open: a reload closes
// them all after worker_shutdown_timeout (2 s here), browsers and judges
// alike, and nothing else about a member leaving needs one.
func TestEdgeKeepsAMemberThatComesBack(t *testing.T) {
	env := testenv.Redis(t)
	p := nginxParams(t)
	base := "http://" + p.Listen
	metrics := prometheus.NewRegistry()
	webs := []*node{startNode(t, env, rkeys.RoleWeb, "web-a", nodeInterval), startNode(t, env, rkeys.RoleWeb, "web-b", nodeInterval)}
	hubs := map[string]*node{"hub-1": startNode(t, env, rkeys.RoleHub, "hub-1", nodeInterval), "hub-2": startNode(t, env, rkeys.RoleHub, "hub-2", nodeInterval)}
	for _, n := range append(webs, hubs["hub-1"], hubs["hub-2"]) {
		n.join(t)
	}
	stop := startEdge(t, edge.Config{
		Redis: env.Client, Names: env.Names, Nginx: p, NginxBin: nginxBin(t),
		PollInterval: 200 * time.Millisecond, PruneAfter: 500 * time.Millisecond, Metrics: metrics,
		HoldLast: time.Minute,
	})
	defer stop()
	eventually(t, 5*time.Second, "both web nodes serve /api", func() (bool, string) {
		s := served(base, 10)
		return sameKeys(s, "web-a", "web-b"), fmt.Sprint(s)
	})
	// Both hubs in the config and its reloads settled, their old workers
	// gone: a socket dialled before the edge's reload for the second hub
	// was cut by it 2 s later, and the check below failed (clean-clone
	// CI, 2026-12-07 21:41).
	eventually(t, 15*time.Second, "both hubs in a settled config", func() (bool, string) {
		n := reloadsOK(t, metrics)
		time.Sleep(p.WorkerShutdownTimeout + 500*time.Millisecond)
		inConfig, after := metric(t, metrics, "verdict_edge_upstream_servers", "hub"), reloadsOK(t, metrics)
		return inConfig == 2 && after == n, fmt.Sprintf("hubs %v, reloads %v then %v", inConfig, n, after)
	})

	var c *websocket.Conn
	eventually(t, 5*time.Second, "a WebSocket through nginx to a hub", func() (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		conn, _, err := websocket.Dial(ctx, "ws://"+p.Listen+"/ws", &websocket.DialOptions{
			HTTPHeader: http.Header{"Origin": {"http://" + p.Listen}},
		})
		c = conn
		return err == nil, fmt.Sprint(err)
	})
	defer c.CloseNow()
	echo := func(msg string) (hub string, err error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			return "", err
		}
		_, got, err := c.Read(ctx)
		if err != nil {
			return "", err
		}
		hub, rest, _ := strings.Cut(string(got), ":")
		if rest != "/ws:"+msg {
			err = fmt.Errorf("echo %q", got)
		}
		return hub, err
	}
	hub, err := echo("before")
	if err != nil || hubs[hub] == nil {
		t.Fatalf("echo from %q: %v", hub, err)
	}
	reloads := reloadsOK(t, metrics)

	// web-a and the socket's hub leave the registry, their servers up, as
	// a node's are while its renewals are late; the others stay, so
	// neither role empties.
	webs[0].deregister(t)
	hubs[hub].deregister(t)
	eventually(t, 3*time.Second, "both held", func() (bool, string) {
		w, h := metric(t, metrics, "verdict_edge_upstream_held", "web"), metric(t, metrics, "verdict_edge_upstream_held", "hub")
		return w == 1 && h == 1, fmt.Sprintf("web %v hub %v", w, h)
	})
	// Longer than a reload's cut would take: the edge polls five times a
	// second, and the old workers close their sockets 2 s after a reload.
	time.Sleep(p.WorkerShutdownTimeout + time.Second)
	if _, err := echo("while away"); err != nil {
		t.Fatalf("the socket through nginx while its hub was out of the registry: %v", err)
	}

	// Back: nothing held, nothing reloaded, the socket still open.
	webs[0].join(t)
	hubs[hub].join(t)
	eventually(t, 3*time.Second, "none held once both are back", func() (bool, string) {
		w, h := metric(t, metrics, "verdict_edge_upstream_held", "web"), metric(t, metrics, "verdict_edge_upstream_held", "hub")
		return w == 0 && h == 0, fmt.Sprintf("web %v hub %v", w, h)
	})
	if got := reloadsOK(t, metrics); got != reloads {
		t.Errorf("nginx reloaded %v times while members left and came back, want 0", got-reloads)
	}
	if _, err := echo("after"); err != nil {
		t.Fatalf("the socket through nginx after its hub came back: %v", err)
	}
	eventually(t, 3*time.Second, "both web nodes serve /api again", func() (bool, string) {
		s := served(base, 10)
		return sameKeys(s, "web-a", "web-b"), fmt.Sprint(s)
	})
}

// reloadsOK is verdict_edge_reloads_total{result="ok"}, 0 before the first.
func reloadsOK(t *testing.T, g *prometheus.Registry) float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "verdict_edge_reloads_total" {
			for _, m := range mf.GetMetric() {
				if m.GetLabel()[0].GetValue() == "ok" {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// metric returns the value of the series of name whose first label is label.
func metric(t *testing.T, g *prometheus.Registry, name, label string) float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) > 0 && m.GetLabel()[0].GetValue() == label {
				return m.GetGauge().GetValue() + m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no metric %s{%s}", name, label)
	return 0
}

// With --manage-nginx=false the edge writes the config and reloads an nginx
// it does not own, through the pid file the config names.
func TestEdgeReloadsExternalNginx(t *testing.T) {
	env := testenv.Redis(t)
	p := nginxParams(t)
	base := "http://" + p.Listen
	bin := nginxBin(t)
	cfg := edge.Config{
		Redis: env.Client, Names: env.Names, Nginx: p, NginxBin: bin, ExternalNginx: true,
		PollInterval: 200 * time.Millisecond,
	}
	e, err := edge.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("edge Run: %v", err)
		}
	}()

	conf := filepath.Join(p.RuntimeDir, "nginx.conf")
	eventually(t, 5*time.Second, "edge wrote the config", func() (bool, string) {
		_, err := os.Stat(conf)
		return err == nil, fmt.Sprint(err)
	})
	if err := e.Ready(); !errors.Is(err, edge.ErrNotReady) {
		t.Fatalf("Ready without nginx = %v, want ErrNotReady", err)
	}
	// "The operator" starts nginx on the edge's file.
	child, err := nginxctl.Start(bin, conf, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer child.Stop(5 * time.Second)
	eventually(t, 5*time.Second, "edge ready with external nginx", func() (bool, string) {
		err := e.Ready()
		return err == nil, fmt.Sprint(err)
	})
	if res, _ := get(t, base+"/api/x"); res.StatusCode != 503 {
		t.Fatalf("/api before any node = %d, want 503", res.StatusCode)
	}

	web := startNode(t, env, rkeys.RoleWeb, "web-x", nodeInterval)
	web.join(t)
	eventually(t, 3*time.Second, "external nginx routes to the new node", func() (bool, string) {
		s := served(base, 5)
		return sameKeys(s, "web-x"), fmt.Sprint(s)
	})
}

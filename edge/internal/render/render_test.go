package render_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/edge/internal/nginxctl"
	"github.com/verdict-oj/verdict/edge/internal/render"
	"github.com/verdict-oj/verdict/internal/httpsec"
)

var update = flag.Bool("update", false, "rewrite testdata/*.conf from the current template")

// Fixed paths in the goldens; replaced by temp dirs to run nginx -t.
const (
	goldenRuntime = "/verdict-golden/run"
	goldenStatic  = "/verdict-golden/static"
)

func goldenParams() render.Params {
	return render.Params{RuntimeDir: goldenRuntime, StaticDir: goldenStatic}
}

func nginxBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("VERDICT_NGINX")
	if bin == "" {
		bin = nginxctl.DefaultBinary
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("these tests run the real nginx and cannot find it at %s (set VERDICT_NGINX or run make deps): %v", bin, err)
	}
	return bin
}

// nginxTest writes conf (with the golden paths moved into a temp dir) and
// runs the real nginx -t on it.
func nginxTest(t *testing.T, conf []byte) error {
	t.Helper()
	dir := t.TempDir()
	run, static := filepath.Join(dir, "run"), filepath.Join(dir, "static")
	for _, d := range []string{run, static} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf = bytes.ReplaceAll(conf, []byte(goldenRuntime), []byte(run))
	conf = bytes.ReplaceAll(conf, []byte(goldenStatic), []byte(static))
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, conf, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return nginxctl.Test(ctx, nginxBin(t), path)
}

func TestGolden(t *testing.T) {
	web3 := []string{"10.0.0.3:8080", "10.0.0.1:8080", "[2001:db8::7]:8080"}
	hub2 := []string{"10.0.1.2:9000", "10.0.1.1:9000"}
	tests := []struct {
		file string
		p    render.Params
		u    render.Upstreams
	}{
		{"web0_hub0.conf", goldenParams(), render.Upstreams{}},
		{"web1_hub0.conf", goldenParams(), render.Upstreams{Web: []string{"10.0.0.1:8080"}}},
		{"web3_hub0.conf", goldenParams(), render.Upstreams{Web: web3}},
		{"web0_hub2.conf", goldenParams(), render.Upstreams{Hub: hub2}},
		{"web1_hub2.conf", goldenParams(), render.Upstreams{Web: []string{"10.0.0.1:8080"}, Hub: hub2}},
		{"web3_hub2.conf", goldenParams(), render.Upstreams{Web: web3, Hub: hub2}},
		{"custom.conf", func() render.Params {
			p := goldenParams()
			p.Listen = "*:8443"
			p.ListenReusePort = true
			p.User = "www-data www-data"
			p.WorkerProcesses = "2"
			p.ClientMaxBodySize = "256m"
			p.LoginRate = "5r/m"
			p.SubmitRate = "2r/s"
			p.SubmitBurst = 20
			p.RegisterRate = "7r/m"
			p.RegisterBurst = 3
			p.TrustedNetworks = []string{"192.0.2.0/24", "2001:db8:1::/48", "198.51.100.7/32", "::ffff:203.0.113.0/120", "192.0.2.9/24"}
			p.AccessLog = "off"
			p.ErrorLog = "stderr"
			p.WSReadTimeout = 1500 * time.Millisecond
			p.RealIPFrom = []string{"10.0.0.0/8", "192.0.2.1"}
			return p
		}(), render.Upstreams{Web: []string{"10.0.0.1:8080"}, Hub: []string{"10.0.1.1:9000"}}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := render.Render(tc.p, tc.u)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			path := filepath.Join("testdata", tc.file)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("rendered config differs from %s (go test -update rewrites it):\n%s", path, firstDiff(got, want))
			}
			if err := nginxTest(t, want); err != nil {
				t.Fatalf("nginx rejects %s: %v", path, err)
			}
		})
	}
}

func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return "(no line differs)"
}

// The rendered config must carry the choices the edge promises, whatever
// the golden files say.
func TestRenderedChoices(t *testing.T) {
	conf, err := render.Render(goldenParams(), render.Upstreams{Web: []string{"10.0.0.1:8080"}, Hub: []string{"10.0.1.1:9000"}})
	if err != nil {
		t.Fatal(err)
	}
	s := directives(conf)
	for _, want := range []string{
		"least_conn;",
		"zone webapp 64k;",
		"keepalive 32;",
		"server 10.0.0.1:8080 max_fails=2 fail_timeout=10s;",
		"server 10.0.1.1:9000 max_fails=2 fail_timeout=10s;",
		`proxy_set_header Connection "";`,
		"proxy_set_header Connection $verdict_connection_upgrade;",
		"proxy_set_header Upgrade $http_upgrade;",
		"proxy_next_upstream error timeout;",
		"proxy_read_timeout 75s;",
		"worker_shutdown_timeout 10s;",
		"client_max_body_size 65m;",
		"limit_req zone=verdict_login burst=300 nodelay;",
		"limit_req zone=verdict_submit burst=300 nodelay;",
		"limit_req zone=verdict_register burst=300 nodelay;",
		"zone=verdict_login:10m    rate=600r/m;",
		"zone=verdict_submit:10m   rate=600r/m;",
		"zone=verdict_register:10m rate=60r/m;",
		"location = /api/users {",
		"geo $verdict_trusted {\n        default 0;\n    }",
		"error_page 429 = @verdict_login_limited;",
		"error_page 429 = @verdict_submit_limited;",
		"error_page 429 = @verdict_register_limited;",
		"error_page 413 = @verdict_too_large;",
		"error_page 502 503 = @web_unavailable;",
		"error_page 502 503 = @hub_unavailable;",
		"error_page 504 = @verdict_gateway_timeout;",
		"add_header Retry-After 1 always;",
		`"code":"payload_too_large","message":"the body is larger than 65m"`,
		"listen 127.0.0.1:8080 backlog=4096;",
		"worker_rlimit_nofile 8448;",
		"pid " + goldenRuntime + "/nginx.pid;",
		"client_body_temp_path " + goldenRuntime + "/client_body;",
		"root " + goldenStatic + ";",
		"stub_status;",
		"gzip on;",
		"X-Forwarded-Proto $verdict_proto",
		"default   $scheme;",
		"add_header X-Frame-Options \"DENY\" always;",
		"proxy_hide_header Content-Security-Policy;",
		"location ~ ^/api/problems/[^/]+/assets/ {",
		`add_header Content-Security-Policy "` + httpsec.AssetPolicy + `" always;`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("rendered config lacks %q", want)
		}
	}
	// A web node's own errors must pass through: nginx must not replace
	// them with its error pages.
	for _, bad := range []string{"non_idempotent", "daemon ", "/var/", "/etc/", "proxy_intercept_errors", "fastcgi_intercept_errors"} {
		if strings.Contains(s, bad) {
			t.Errorf("rendered config contains %q", bad)
		}
	}
}

// TestAssetLocation: a problem's assets are proxied like the rest of the
// API, with the asset policy as their only Content-Security-Policy and
// every other security header, when a web node is up; with none, the
// location answers the API's 503.
func TestAssetLocation(t *testing.T) {
	for _, tc := range []struct {
		name string
		u    render.Upstreams
		want []string
	}{
		{"a web node", render.Upstreams{Web: []string{"10.0.0.1:8080"}}, []string{"proxy_pass http://webapp;", "error_page 502 503 = @web_unavailable;"}},
		{"no web node", render.Upstreams{}, []string{"return 503 "}},
	} {
		conf, err := render.Render(goldenParams(), tc.u)
		if err != nil {
			t.Fatal(err)
		}
		s := string(conf)
		const head = "location ~ ^/api/problems/[^/]+/assets/ {"
		i := strings.Index(s, head)
		if i < 0 {
			t.Fatalf("%s: no %q", tc.name, head)
		}
		block, _, _ := strings.Cut(s[i:], "\n        }")
		for _, w := range tc.want {
			if !strings.Contains(block, w) {
				t.Errorf("%s: the asset location lacks %q:\n%s", tc.name, w, block)
			}
		}
		policies := regexp.MustCompile(`add_header Content-Security-Policy "([^"]*)" always;`).FindAllStringSubmatch(block, -1)
		want := httpsec.AssetPolicy
		if len(tc.u.Web) == 0 {
			want = httpsec.ContentSecurityPolicy // the JSON 503
		}
		if len(policies) != 1 || policies[0][1] != want {
			t.Errorf("%s: policies %q, want once %q", tc.name, policies, want)
		}
		for _, x := range append(slices.Clone(httpsec.Always), httpsec.Header{Name: httpsec.HSTSName}) {
			if n := strings.Count(block, "add_header "+x.Name+" "); n != 1 {
				t.Errorf("%s: %s added %d times", tc.name, x.Name, n)
			}
		}
		if strings.Contains(block, "proxy_hide_header") {
			t.Errorf("%s: the asset location hides headers of its own (the server's list would stop applying):\n%s", tc.name, block)
		}
	}
}

// TestNoKeepalive: a negative Keepalive renders an upstream without idle
// connections (nginx refuses "keepalive 0"), and nginx accepts it.
func TestNoKeepalive(t *testing.T) {
	p := goldenParams()
	p.Keepalive = -1
	conf, err := render.Render(p, render.Upstreams{Web: []string{"10.0.0.1:8080"}, Hub: []string{"10.0.1.1:9000"}})
	if err != nil {
		t.Fatal(err)
	}
	s := directives(conf)
	i := strings.Index(s, "upstream webapp {")
	if i < 0 {
		t.Fatal("no upstream webapp block")
	}
	block := s[i : i+strings.Index(s[i:], "}")]
	if strings.Contains(block, "keepalive") || !strings.Contains(block, "server 10.0.0.1:8080") {
		t.Fatalf("upstream with Keepalive -1:\n%s", block)
	}
	if err := nginxTest(t, conf); err != nil {
		t.Fatalf("nginx -t: %v", err)
	}
}

// directives is conf without comments.
func directives(conf []byte) string {
	var b strings.Builder
	for _, l := range strings.Split(string(conf), "\n") {
		if i := strings.Index(l, "#"); i >= 0 && !strings.Contains(l[:i], "'") {
			l = l[:i]
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// TestPanicBackups: with two or more servers in an upstream, each is also
// a backup that is never skipped (nginx goes to the backups only when every
// primary is skipped); a lone server (which nginx never skips) and an empty
// upstream have none.
func TestPanicBackups(t *testing.T) {
	for _, tc := range []struct {
		name     string
		web, hub []string
		backups  []string
	}{
		{"two of each", []string{"10.0.0.1:8080", "10.0.0.2:8080"}, []string{"10.0.1.1:9000", "10.0.1.2:9000"},
			[]string{"10.0.0.1:8080", "10.0.0.2:8080", "10.0.1.1:9000", "10.0.1.2:9000"}},
		{"lone servers", []string{"10.0.0.1:8080"}, []string{"10.0.1.1:9000"}, nil},
		{"two web nodes, no hub", []string{"10.0.0.1:8080", "10.0.0.2:8080"}, nil, []string{"10.0.0.1:8080", "10.0.0.2:8080"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conf, err := render.Render(goldenParams(), render.Upstreams{Web: tc.web, Hub: tc.hub})
			if err != nil {
				t.Fatal(err)
			}
			s := directives(conf)
			if n := strings.Count(s, " backup "); n != len(tc.backups) {
				t.Fatalf("%d backups rendered, want %d:\n%s", n, len(tc.backups), s)
			}
			for _, b := range tc.backups {
				if !strings.Contains(s, "server "+b+" backup max_fails=0;") {
					t.Errorf("no backup for %s", b)
				}
			}
		})
	}
}

// TestWorkerOpenFiles: the default is twice worker_connections plus 256,
// capped at the hard limit nginx inherits; a value given is kept.
func TestWorkerOpenFiles(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		conns, given, ceiling int
		want                  string
	}{
		{"default", 4096, 0, 0, "worker_rlimit_nofile 8448;"},
		{"default under the ceiling", 4096, 0, 20000, "worker_rlimit_nofile 8448;"},
		{"default over the ceiling", 16384, 0, 20000, "worker_rlimit_nofile 20000;"},
		{"given over the ceiling", 16384, 50000, 20000, "worker_rlimit_nofile 50000;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := goldenParams()
			p.WorkerConnections, p.WorkerOpenFiles, p.OpenFilesCeiling = tc.conns, tc.given, tc.ceiling
			conf, err := render.Render(p, render.Upstreams{Web: []string{"10.0.0.1:8080"}})
			if err != nil {
				t.Fatal(err)
			}
			if s := directives(conf); !strings.Contains(s, tc.want) {
				t.Errorf("rendered config lacks %q", tc.want)
			}
		})
	}
}

func TestRenderDeterministic(t *testing.T) {
	a, err := render.Render(goldenParams(), render.Upstreams{Web: []string{"10.0.0.2:1", "10.0.0.1:1", "10.0.0.2:1"}, Hub: []string{"[::ffff:10.0.0.9]:2"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := render.Render(goldenParams(), render.Upstreams{Web: []string{"10.0.0.1:1", "10.0.0.2:1"}, Hub: []string{"10.0.0.9:2"}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("equal sets (order, duplicates, v4-mapped) render differently")
	}
	if n := strings.Count(string(a), "server 10.0.0.2:1 max_fails"); n != 1 {
		t.Fatalf("duplicate member rendered %d times", n)
	}
	if n := strings.Count(string(a), "server 10.0.0.2:1 backup"); n != 1 {
		t.Fatalf("duplicate member rendered %d times as a backup", n)
	}
}

func TestRenderRejects(t *testing.T) {
	params := func(f func(*render.Params)) render.Params {
		p := goldenParams()
		f(&p)
		return p
	}
	tests := []struct {
		name string
		p    render.Params
		u    render.Upstreams
		want error
	}{
		{"relative runtime", params(func(p *render.Params) { p.RuntimeDir = "run" }), render.Upstreams{}, render.ErrInvalidParam},
		{"no static", params(func(p *render.Params) { p.StaticDir = "" }), render.Upstreams{}, render.ErrInvalidParam},
		{"space in static", params(func(p *render.Params) { p.StaticDir = "/a b" }), render.Upstreams{}, render.ErrInvalidParam},
		{"injection in static", params(func(p *render.Params) { p.StaticDir = "/a;}" }), render.Upstreams{}, render.ErrInvalidParam},
		{"variable in log", params(func(p *render.Params) { p.AccessLog = "/x/$host.log" }), render.Upstreams{}, render.ErrInvalidParam},
		{"listen hostname", params(func(p *render.Params) { p.Listen = "localhost:80" }), render.Upstreams{}, render.ErrInvalidParam},
		{"listen no port", params(func(p *render.Params) { p.Listen = "127.0.0.1" }), render.Upstreams{}, render.ErrInvalidParam},
		{"bad rate", params(func(p *render.Params) { p.LoginRate = "10/m" }), render.Upstreams{}, render.ErrInvalidParam},
		{"zero rate", params(func(p *render.Params) { p.SubmitRate = "0r/s" }), render.Upstreams{}, render.ErrInvalidParam},
		{"bad size", params(func(p *render.Params) { p.ClientMaxBodySize = "64 MB" }), render.Upstreams{}, render.ErrInvalidParam},
		{"bad level", params(func(p *render.Params) { p.ErrorLogLevel = "loud" }), render.Upstreams{}, render.ErrInvalidParam},
		{"bad user", params(func(p *render.Params) { p.User = "root;" }), render.Upstreams{}, render.ErrInvalidParam},
		{"bad workers", params(func(p *render.Params) { p.WorkerProcesses = "0" }), render.Upstreams{}, render.ErrInvalidParam},
		{"bad realip", params(func(p *render.Params) { p.RealIPFrom = []string{"unix:"} }), render.Upstreams{}, render.ErrInvalidParam},
		{"negative burst", params(func(p *render.Params) { p.LoginBurst = -1 }), render.Upstreams{}, render.ErrInvalidParam},
		{"negative register burst", params(func(p *render.Params) { p.RegisterBurst = -3 }), render.Upstreams{}, render.ErrInvalidParam},
		{"bad register rate", params(func(p *render.Params) { p.RegisterRate = "1r/h" }), render.Upstreams{}, render.ErrInvalidParam},
		{"trusted address without bits", params(func(p *render.Params) { p.TrustedNetworks = []string{"10.0.0.1"} }), render.Upstreams{}, render.ErrInvalidParam},
		{"trusted injection", params(func(p *render.Params) { p.TrustedNetworks = []string{"10.0.0.0/8 0; default 1"} }), render.Upstreams{}, render.ErrInvalidParam},
		{"trusted zone", params(func(p *render.Params) { p.TrustedNetworks = []string{"fe80::%eth0/64"} }), render.Upstreams{}, render.ErrInvalidParam},
		{"trusted bits", params(func(p *render.Params) { p.TrustedNetworks = []string{"10.0.0.0/33"} }), render.Upstreams{}, render.ErrInvalidParam},
		{"hostname member", goldenParams(), render.Upstreams{Web: []string{"web1:8080"}}, render.ErrInvalidMember},
		{"member injection", goldenParams(), render.Upstreams{Hub: []string{"10.0.0.1:80; server evil"}}, render.ErrInvalidMember},
		{"member port 0", goldenParams(), render.Upstreams{Web: []string{"10.0.0.1:0"}}, render.ErrInvalidMember},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := render.Render(tc.p, tc.u)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Render err = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestRenderRejectNames: a rejected value names its field.
func TestRenderRejectNames(t *testing.T) {
	p := goldenParams()
	p.TrustedNetworks = []string{"10.0.0.0/8", "campus"}
	_, err := render.Render(p, render.Upstreams{})
	if !errors.Is(err, render.ErrInvalidParam) || !strings.Contains(err.Error(), `TrustedNetworks="campus"`) {
		t.Fatalf("err = %v, want ErrInvalidParam naming TrustedNetworks=\"campus\"", err)
	}
}

// TestTrustedNetworks: trusted networks render as one geo entry each, in
// one canonical form, sorted and deduplicated.
func TestTrustedNetworks(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string // geo entries in order
	}{
		{"none", nil, nil},
		{"one", []string{"10.20.0.0/16"}, []string{"10.20.0.0/16"}},
		{"host bits cleared", []string{"10.20.30.40/16"}, []string{"10.20.0.0/16"}},
		{"sorted and deduplicated", []string{"192.0.2.0/24", "10.0.0.0/8", "192.0.2.77/24"}, []string{"10.0.0.0/8", "192.0.2.0/24"}},
		{"v4-mapped is v4", []string{"::ffff:198.51.100.0/120"}, []string{"198.51.100.0/24"}},
		{"ipv6", []string{"2001:DB8:0:1::/64"}, []string{"2001:db8:0:1::/64"}},
		{"single address", []string{"203.0.113.9/32"}, []string{"203.0.113.9/32"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := goldenParams()
			p.TrustedNetworks = tc.in
			conf, err := render.Render(p, render.Upstreams{})
			if err != nil {
				t.Fatal(err)
			}
			s := string(conf)
			i := strings.Index(s, "geo $verdict_trusted {")
			if i < 0 {
				t.Fatal("no geo block")
			}
			block := s[i : i+strings.Index(s[i:], "}")]
			var got []string
			for _, l := range strings.Split(block, "\n")[1:] {
				if f := strings.Fields(l); len(f) == 2 && f[0] != "default" {
					if f[1] != "1;" {
						t.Errorf("geo entry %q: want value 1", l)
					}
					got = append(got, f[0])
				}
			}
			if !slices.Equal(got, tc.want) || !strings.Contains(block, "default 0;") {
				t.Fatalf("geo block:\n%s\nentries %q, want %q", block, got, tc.want)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		rate string
		want int
	}{
		{"600r/m", 1}, {"60r/m", 1}, {"59r/m", 2}, {"10r/m", 6}, {"7r/m", 9}, {"1r/m", 60},
		{"1r/s", 1}, {"100r/s", 1}, {"", 1}, {"0r/m", 1}, {"xr/m", 1},
	}
	for _, tc := range tests {
		if got := render.RetryAfter(tc.rate); got != tc.want {
			t.Errorf("RetryAfter(%q) = %d, want %d", tc.rate, got, tc.want)
		}
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {-time.Second, "0s"}, {time.Second, "1s"}, {90 * time.Second, "90s"},
		{1500 * time.Millisecond, "1500ms"}, {time.Microsecond, "1ms"},
	}
	for _, tc := range tests {
		if got := render.Duration(tc.d); got != tc.want {
			t.Errorf("Duration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestParseMember(t *testing.T) {
	tests := []struct {
		in       string
		addr     string // canonical ip:port when the host is an IP
		host     string
		port     uint16
		wantFail bool
	}{
		{in: "10.0.0.1:8080", addr: "10.0.0.1:8080"},
		{in: "[::1]:9000", addr: "[::1]:9000"},
		{in: "[::ffff:10.0.0.1]:80", addr: "10.0.0.1:80"},
		{in: "Web-1.Internal.:8080", host: "web-1.internal", port: 8080},
		{in: "web1:1", host: "web1", port: 1},
		{in: "", wantFail: true},
		{in: "10.0.0.1", wantFail: true},
		{in: "10.0.0.1:0", wantFail: true},
		{in: "10.0.0.1:65536", wantFail: true},
		{in: "10.0.0.1:08080", wantFail: true},
		{in: ":8080", wantFail: true},
		{in: "[fe80::1%eth0]:80", wantFail: true},
		{in: "web_1:80", wantFail: true},
		{in: "-web:80", wantFail: true},
		{in: "a b:80", wantFail: true},
		{in: "web;down:80", wantFail: true},
		{in: "unix:/tmp/x.sock", wantFail: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			m, err := render.ParseMember(tc.in)
			if tc.wantFail {
				if !errors.Is(err, render.ErrInvalidMember) {
					t.Fatalf("ParseMember(%q) = %+v, %v; want ErrInvalidMember", tc.in, m, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseMember(%q): %v", tc.in, err)
			}
			if tc.addr != "" {
				if !m.Addr.IsValid() || m.Addr.String() != tc.addr || m.Host != "" {
					t.Fatalf("ParseMember(%q) = %+v, want addr %s", tc.in, m, tc.addr)
				}
				return
			}
			if m.Addr.IsValid() || m.Host != tc.host || m.Port != tc.port {
				t.Fatalf("ParseMember(%q) = %+v, want host %s port %d", tc.in, m, tc.host, tc.port)
			}
		})
	}
}

// FuzzParseMember: whatever a process writes into the registry, an accepted
// member renders into a config without any nginx syntax of its own.
func FuzzParseMember(f *testing.F) {
	for _, s := range []string{"10.0.0.1:8080", "[::1]:1", "web-1:80", "a;b:1", "x:y:z", "[::1%lo]:80", "host.:65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := render.ParseMember(s)
		if err != nil {
			if !errors.Is(err, render.ErrInvalidMember) {
				t.Fatalf("error %v does not wrap ErrInvalidMember", err)
			}
			return
		}
		if m.Addr.IsValid() {
			conf, err := render.Render(goldenParams(), render.Upstreams{Web: []string{m.Addr.String()}})
			if err != nil {
				t.Fatalf("accepted member %q does not render: %v", s, err)
			}
			if !strings.Contains(string(conf), "server "+m.Addr.String()+" max_fails") {
				t.Fatalf("member %q not rendered as one server line", s)
			}
			return
		}
		if m.Port == 0 || m.Host == "" || strings.ContainsAny(m.Host, " \t\n;{}$#'\"\\") {
			t.Fatalf("accepted %q as %+v", s, m)
		}
	})
}

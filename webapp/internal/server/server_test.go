package server

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/leakcheck"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/registry"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/internal/testenv"
	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func TestMain(m *testing.M) { testenv.Main(m, leakcheck.Goroutines) }

type env struct {
	t     *testing.T
	srv   *Server
	st    *store.Store
	rdb   *redis.Client
	names rkeys.Names
	ts    *httptest.Server
	dsn   string // the test database's
}

func newEnv(t *testing.T, mod func(*Config)) *env {
	t.Helper()
	my := testenv.MySQL(t)
	db, err := store.Open(context.Background(), my.DSN, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := store.Migrate(context.Background(), my.DSN, store.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	rd := testenv.Redis(t)
	o, err := obs.New(obs.Config{Component: "webapp", LogOutput: t.Output(), Log: obs.LogConfig{Format: "text", Level: "warn"}})
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := blob.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Store: store.New(db), Redis: rd.Client, Names: rd.Names, Obs: o, PasswordCost: 4, Blobs: blobs, NoBackground: true,
		Limits:     Limits{LoginFreeFailures: 2, LoginAddressFreeFailures: 100},
		DrainDelay: 10 * time.Millisecond, RegistryInterval: 100 * time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.judging.Wait) // background rejudges a test started: joined before the database closes
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return &env{t: t, srv: s, st: cfg.Store, rdb: rd.Client, names: rd.Names, ts: ts, dsn: my.DSN}
}

func (e *env) user(name, role, password string) store.User {
	e.t.Helper()
	h, err := account.HashPassword(password, 4)
	if err != nil {
		e.t.Fatal(err)
	}
	u, err := e.st.CreateUser(context.Background(), store.User{Username: name, DisplayName: name, Role: role, PasswordHash: h})
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

// client is a browser: a cookie jar and the CSRF token it was given.
type client struct {
	e    *env
	http *http.Client
	csrf string
}

func (e *env) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{e: e, http: &http.Client{Jar: jar}}
}

type resp struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (c *client) do(method, path string, body any, hdr ...string) resp {
	c.e.t.Helper()
	var rd io.Reader
	if s, ok := body.(string); ok {
		rd = strings.NewReader(s)
	} else if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.e.ts.URL+path, rd)
	if err != nil {
		c.e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := resp{status: res.StatusCode, header: res.Header, raw: string(raw)}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

func (c *client) login(username, password string) resp {
	c.e.t.Helper()
	r := c.do("POST", "/api/session", map[string]string{"username": username, "password": password})
	if r.status == http.StatusOK {
		c.csrf, _ = r.body["csrf_token"].(string)
	}
	return r
}

func errCode(r resp) (code, field string) {
	e, _ := r.body["error"].(map[string]any)
	code, _ = e["code"].(string)
	field, _ = e["field"].(string)
	return
}

func wantErr(t *testing.T, r resp, status int, code, field string) {
	t.Helper()
	gc, gf := errCode(r)
	if r.status != status || gc != code || gf != field {
		t.Fatalf("got %d %s field=%q (%s), want %d %s field=%q", r.status, gc, gf, r.raw, status, code, field)
	}
	if msg, _ := r.body["error"].(map[string]any)["message"].(string); msg == "" {
		t.Fatalf("error without a message: %s", r.raw)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestErrorsAreJSON(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	wantErr(t, c.do("GET", "/api/nothing", nil), 404, CodeNotFound, "")
	wantErr(t, c.do("PUT", "/api/me", nil), 405, CodeMethodNotAllowed, "")
	if r := c.do("GET", "/api/me", nil); r.header.Get("X-Request-Id") == "" {
		t.Fatal("no X-Request-Id")
	}
}

func TestPanicIsJSON500(t *testing.T) {
	e := newEnv(t, nil)
	h := e.srv.requestID(e.srv.accessLog(e.srv.recoverer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/x", nil))
	var body errorBody
	if rec.Code != 500 || json.Unmarshal(rec.Body.Bytes(), &body) != nil || body.Error.Code != CodeInternal {
		t.Fatalf("panic: %d %s", rec.Code, rec.Body)
	}
}

func TestReadiness(t *testing.T) {
	rd := testenv.Redis(t)
	// A client of our own, closed below, standing in for Redis going away.
	own := redis.NewClient(rd.Options())
	e := newEnv(t, func(c *Config) { c.Redis = own })
	c := e.client()
	if r := c.do("GET", "/readyz", nil); r.status != 200 {
		t.Fatalf("readyz: %d %s", r.status, r.raw)
	}
	if r := c.do("GET", "/healthz", nil); r.status != 200 {
		t.Fatalf("healthz: %d", r.status)
	}
	if r := c.do("GET", "/metrics", nil); r.status != 200 || !strings.Contains(r.raw, "verdict_webapp_http_requests_total") {
		t.Fatalf("metrics: %d", r.status)
	}
	own.Close()
	r := c.do("GET", "/readyz", nil)
	if r.status != 503 || !strings.Contains(r.raw, "redis") {
		t.Fatalf("readyz without redis: %d %s", r.status, r.raw)
	}
}

func TestRunRegistersAndDrains(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Listen = "127.0.0.1:0" })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ctx, ln) }()
	live := func() []string {
		m, _, err := registry.Live(context.Background(), e.rdb, e.names, rkeys.RoleWeb, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(live()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := live(); len(got) != 1 || got[0] != addr {
		t.Fatalf("registry = %v, want [%s]", got, addr)
	}
	res, err := http.Get("http://" + addr + "/readyz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("readyz while serving: %v %v", res, err)
	}
	res.Body.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	if got := live(); len(got) != 0 {
		t.Fatalf("still registered after shutdown: %v", got)
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Fatal("still listening after shutdown")
	}
}

// TestFrozenDatabaseAnswers503: a MySQL that accepts connections and never
// answers (a frozen mariadbd) must cost a request a prompt 503 with a
// clear message, not a hang.
func TestFrozenDatabaseAnswers503(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it open, say nothing
		}
	}()
	dsn, err := store.FixDSN("root@tcp(" + ln.Addr().String() + ")/verdict")
	if err != nil {
		t.Fatal(err)
	}
	frozen, err := sqlx.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer frozen.Close()
	e := newEnv(t, func(c *Config) {
		c.Store = store.New(frozen)
		c.RequestTimeout = 500 * time.Millisecond
	})
	c := e.client()
	start := time.Now()
	r := c.login("alice", "alice-password")
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("login against a frozen database took %v", took)
	}
	wantErr(t, r, http.StatusServiceUnavailable, CodeUnavailable, "")
}

func TestUnavailableClassifiesBackendFailures(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"deadline", fmt.Errorf("store get user: %w", context.DeadlineExceeded), true},
		{"bad connection", fmt.Errorf("q: %w", driver.ErrBadConn), true},
		{"invalid connection", mysql.ErrInvalidConn, true},
		{"refused", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, true},
		{"a bug", errors.New("nil map"), false},
		{"not found", store.ErrNotFound, false},
	}
	for _, tc := range tests {
		if got := unavailable(tc.err); got != tc.want {
			t.Errorf("%s: unavailable = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPprofRoute: with --pprof the node serves Go's profiler (the
// rehearsal profiles web nodes under the rush); without it, 404.
func TestPprofRoute(t *testing.T) {
	for _, on := range []bool{false, true} {
		e := newEnv(t, func(c *Config) {
			o, err := obs.New(obs.Config{Component: "webapp", LogOutput: t.Output(), Log: obs.LogConfig{Format: "text", Level: "warn"}, Pprof: on})
			if err != nil {
				t.Fatal(err)
			}
			c.Obs = o
		})
		resp, err := http.Get(e.ts.URL + "/debug/pprof/cmdline")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[bool]int{false: 404, true: 200}[on]; resp.StatusCode != want {
			t.Errorf("pprof %v: GET /debug/pprof/cmdline = %d, want %d", on, resp.StatusCode, want)
		}
	}
}

// staffEnv is an env with a logged-in admin, setter and student.
type staffEnv struct {
	*env
	admin, setter, student *client
	adminUser              store.User
}

func newStaffEnv(t *testing.T, mod func(*Config)) *staffEnv {
	e := newEnv(t, mod)
	se := &staffEnv{env: e}
	login := func(name, role string) *client {
		u := e.user(name, role, name+"-password")
		if role == store.RoleAdmin {
			se.adminUser = u
		}
		c := e.client()
		if r := c.login(name, name+"-password"); r.status != 200 {
			t.Fatalf("login %s: %d %s", name, r.status, r.raw)
		}
		return c
	}
	se.admin, se.setter, se.student = login("root", store.RoleAdmin), login("setter", store.RoleSetter), login("stud", store.RoleStudent)
	return se
}

// call is do with the CSRF header.
func (c *client) call(method, path string, body any) resp {
	c.e.t.Helper()
	return c.do(method, path, body, "X-CSRF-Token", c.csrf)
}

// upload posts data as the multipart field "file" (or, with rawType, as
// the whole body of that type).
func (c *client) upload(path, field string, data []byte, rawType string) resp {
	c.e.t.Helper()
	var body io.Reader
	ct := rawType
	if rawType == "" {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		_ = mw.WriteField("note", "ignored")
		fw, _ := mw.CreateFormFile(field, "upload.bin")
		_, _ = fw.Write(data)
		_ = mw.Close()
		body, ct = &buf, mw.FormDataContentType()
	} else {
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequest("POST", c.e.ts.URL+path, body)
	if err != nil {
		c.e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("X-CSRF-Token", c.csrf)
	res, err := c.http.Do(req)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := resp{status: res.StatusCode, header: res.Header, raw: string(raw)}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

func (e *env) count(table string) int {
	e.t.Helper()
	var n int
	if err := e.st.DB.Get(&n, "SELECT COUNT(*) FROM "+table); err != nil {
		e.t.Fatal(err)
	}
	return n
}

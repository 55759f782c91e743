package server

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	sharedsession "github.com/verdict-oj/verdict/internal/session"
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
	return &env{t: t, srv: s, st: cfg.Store, rdb: rd.Client, names: rd.Names, ts: ts}
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

func TestLoginLogoutMe(t *testing.T) {
	e := newEnv(t, nil)
	e.user("alice", store.RoleStudent, "alice-password")
	c := e.client()

	wantErr(t, c.do("GET", "/api/me", nil), 401, CodeUnauthorized, "")
	r := c.login("alice", "alice-password")
	if r.status != 200 || c.csrf == "" {
		t.Fatalf("login: %d %s", r.status, r.raw)
	}
	sc := r.header.Get("Set-Cookie")
	for _, want := range []string{SessionCookie + "=", "HttpOnly", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(sc, want) {
			t.Errorf("Set-Cookie %q lacks %q", sc, want)
		}
	}
	if strings.Contains(sc, "Secure") {
		t.Errorf("cookie is Secure on plain HTTP: %q", sc)
	}
	me := c.do("GET", "/api/me", nil)
	u, _ := me.body["user"].(map[string]any)
	if me.status != 200 || u["username"] != "alice" || me.body["csrf_token"] != c.csrf {
		t.Fatalf("me: %d %s", me.status, me.raw)
	}
	if _, ok := u["password_hash"]; ok {
		t.Fatal("me leaks the password hash")
	}
	// The hub authorises live channels from the session hash alone, read
	// with internal/session: it must carry the user id and the role, and
	// the login must have published the user's epoch for the hub's check.
	keys, _ := e.rdb.Keys(context.Background(), e.names.Session("*")).Result()
	if len(keys) != 1 {
		t.Fatalf("sessions in Redis: %v", keys)
	}
	rec, err := sharedsession.Decode(e.rdb.HGetAll(context.Background(), keys[0]).Val())
	if id, _ := u["id"].(float64); err != nil || rec.UserID != int64(id) || rec.Role != store.RoleStudent {
		t.Errorf("session hash %+v, %v; want the user's id and %q", rec, err, store.RoleStudent)
	}
	if cur, known, err := sharedsession.ReadEpoch(context.Background(), e.rdb, e.names, rec.UserID); err != nil || !known || !cur.Valid(rec.Epoch) {
		t.Errorf("published epoch %+v, %v, %v: the hub would not take session %+v", cur, known, err, rec)
	}
	// Logout needs the CSRF token.
	wantErr(t, c.do("DELETE", "/api/session", nil), 403, CodeCSRF, "")
	wantErr(t, c.do("DELETE", "/api/session", nil, "X-CSRF-Token", "wrong"), 403, CodeCSRF, "")
	if r := c.do("DELETE", "/api/session", nil, "X-CSRF-Token", c.csrf); r.status != 204 {
		t.Fatalf("logout: %d %s", r.status, r.raw)
	}
	wantErr(t, c.do("GET", "/api/me", nil), 401, CodeUnauthorized, "")
	// The session is gone server-side, not only the cookie.
	keys, _ = e.rdb.Keys(context.Background(), e.names.Session("*")).Result()
	if len(keys) != 0 {
		t.Fatalf("sessions left in Redis after logout: %v", keys)
	}
}

func TestLoginFailuresAndRateLimit(t *testing.T) {
	e := newEnv(t, nil)
	e.user("bob", store.RoleStudent, "bob-password")
	c := e.client()
	wantErr(t, c.login("bob", "wrong-password"), 401, CodeInvalidCredentials, "")
	wantErr(t, c.login("nobody", "whatever-pw"), 401, CodeInvalidCredentials, "")
	wantErr(t, c.login("", "x"), 400, CodeValidation, "username")
	wantErr(t, c.login("bob", ""), 400, CodeValidation, "password")
	wantErr(t, c.do("POST", "/api/session", "username=bob", "Content-Type", "application/x-www-form-urlencoded"), 415, CodeUnsupportedMedia, "")
	// LoginFreeFailures is 2: two more failures make this account wait
	// (from this address)...
	c.login("bob", "wrong-password")
	c.login("bob", "wrong-password")
	r := c.login("bob", "bob-password")
	wantErr(t, r, 429, CodeRateLimited, "")
	if ra := r.header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After = %q", ra)
	}
	// ...but not others.
	e.user("carol", store.RoleStudent, "carol-password")
	if r := e.client().login("carol", "carol-password"); r.status != 200 {
		t.Fatalf("carol blocked: %s", r.raw)
	}
}

func TestLoginRateLimitPerIP(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.LoginAddressFreeFailures = 1; c.LoginFreeFailures = 100 })
	e.user("dave", store.RoleStudent, "dave-password")
	c := e.client()
	wantErr(t, c.login("x1", "whatever-pw"), 401, CodeInvalidCredentials, "")
	wantErr(t, c.login("x2", "whatever-pw"), 401, CodeInvalidCredentials, "")
	wantErr(t, c.login("dave", "dave-password"), 429, CodeRateLimited, "")
	// Another client address (through the trusted proxy) is not blocked.
	r := c.do("POST", "/api/session", map[string]string{"username": "dave", "password": "dave-password"},
		"X-Forwarded-For", "203.0.113.9", "X-Forwarded-Proto", "https")
	if r.status != 200 {
		t.Fatalf("login from another address: %s", r.raw)
	}
	if !strings.Contains(r.header.Get("Set-Cookie"), "Secure") {
		t.Errorf("cookie not Secure behind an https proxy: %s", r.header.Get("Set-Cookie"))
	}
}

// TestFailedLoginCountedWhenClientLeaves: a guesser that hangs up during
// the (slow, on purpose) password check must still be counted, or every
// abandoned attempt is a free guess.
func TestFailedLoginCountedWhenClientLeaves(t *testing.T) {
	// Cost 10 makes the check take well over the client's 20 ms patience
	// on any machine.
	e := newEnv(t, func(c *Config) { c.PasswordCost = 10 })
	body := strings.NewReader(`{"username":"nobody-here","password":"guess-1234"}`)
	req, err := http.NewRequest("POST", e.ts.URL+"/api/session", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if res, err := (&http.Client{Timeout: 20 * time.Millisecond}).Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("the login answered (%d) within 20 ms; the test needs it to be slower", res.StatusCode)
	}
	for _, k := range [][2]string{{e.names.LoginAddr("127.0.0.1"), "n"}, {e.names.LoginUser("nobody-here"), "a:127.0.0.1:n"}} {
		deadline := time.Now().Add(30 * time.Second)
		for {
			n, err := e.rdb.HGet(context.Background(), k[0], k[1]).Int()
			if err == nil && n == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s = %d (%v) 30 s after the abandoned login, want 1", k, n, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func TestDisabledUserCannotLogIn(t *testing.T) {
	e := newEnv(t, nil)
	u := e.user("erin", store.RoleStudent, "erin-password")
	c := e.client()
	if r := c.login("erin", "erin-password"); r.status != 200 {
		t.Fatal(r.raw)
	}
	e.st.DB.MustExec("UPDATE users SET disabled = 1 WHERE id = ?", u.ID)
	wantErr(t, c.do("GET", "/api/me", nil), 401, CodeUnauthorized, "")
	wantErr(t, e.client().login("erin", "erin-password"), 401, CodeInvalidCredentials, "")
}

func countUsers(t *testing.T, e *env) int {
	var n int
	if err := e.st.DB.Get(&n, "SELECT COUNT(*) FROM users"); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRegister(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	for _, tc := range []struct {
		name   string
		body   any
		status int
		code   string
		field  string
	}{
		{"short username", map[string]any{"username": "ab", "password": "password1"}, 400, CodeValidation, "username"},
		{"upper-case username", map[string]any{"username": "Alice", "password": "password1"}, 400, CodeValidation, "username"},
		{"short password", map[string]any{"username": "alice", "password": "short"}, 400, CodeValidation, "password"},
		{"bad email", map[string]any{"username": "alice", "password": "password1", "email": "nope"}, 400, CodeValidation, "email"},
		{"bad display name", map[string]any{"username": "alice", "password": "password1", "display_name": "a\x00b"}, 400, CodeValidation, "display_name"},
		{"wrong type", map[string]any{"username": 5, "password": "password1"}, 400, CodeValidation, "username"},
		{"role is not accepted", map[string]any{"username": "alice", "password": "password1", "role": "admin"}, 400, CodeValidation, "role"},
		{"user id is not accepted", map[string]any{"username": "alice", "password": "password1", "id": 1}, 400, CodeValidation, "id"},
		{"not json", "{", 400, CodeInvalidJSON, ""},
		{"two objects", `{"username":"alice","password":"password1"}{}`, 400, CodeInvalidJSON, ""},
		{"too large", `{"username":"` + strings.Repeat("a", 2<<20) + `"}`, 413, CodeTooLarge, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, c.do("POST", "/api/users", tc.body), tc.status, tc.code, tc.field)
			if n := countUsers(t, e); n != 0 {
				t.Fatalf("%d users written by a rejected request", n)
			}
		})
	}
	r := c.do("POST", "/api/users", map[string]any{"username": "alice", "password": "password1", "email": "a@example.org"})
	if r.status != 201 {
		t.Fatalf("register: %d %s", r.status, r.raw)
	}
	u, _ := e.st.UserByUsername(context.Background(), "alice")
	if u.Role != store.RoleStudent || u.DisplayName != "alice" || !account.CheckPassword(u.PasswordHash, "password1") {
		t.Fatalf("stored %+v", u)
	}
	wantErr(t, c.do("POST", "/api/users", map[string]any{"username": "alice", "password": "password2"}), 409, CodeConflict, "username")
	wantErr(t, c.do("POST", "/api/users", map[string]any{"username": "alice2", "password": "password2", "email": "a@example.org"}), 409, CodeConflict, "email")
	if n := countUsers(t, e); n != 1 {
		t.Fatalf("%d users", n)
	}
	if r := c.login("alice", "password1"); r.status != 200 {
		t.Fatalf("new user cannot log in: %s", r.raw)
	}
}

func mkProblem(t *testing.T, e *env, slug, vis string) int64 {
	t.Helper()
	id, err := e.st.CreateProblem(context.Background(), store.Problem{Slug: slug, Title: "T " + slug, Statement: "Compute $x$.",
		TimeLimitMs: 1000, MemoryLimitKB: 65536, Checker: store.CheckerFloat, FloatTolerance: 1e-6, Mode: store.ModeICPC,
		Visibility: vis, Languages: store.Languages{"c11"}})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func slugs(r resp, key string) []string {
	var out []string
	list, _ := r.body[key].([]any)
	for _, p := range list {
		out = append(out, p.(map[string]any)["slug"].(string))
	}
	return out
}

func TestProblems(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	mkProblem(t, e, "pub", store.VisibilityPublic)
	mkProblem(t, e, "secret", store.VisibilityPrivate)
	conly := mkProblem(t, e, "in-contest", store.VisibilityContestOnly)
	e.user("setter", store.RoleSetter, "setter-password")
	stu := e.user("stu", store.RoleStudent, "stu-password")
	anon := e.client()
	student := e.client()
	student.login("stu", "stu-password")
	staff := e.client()
	staff.login("setter", "setter-password")

	if got := slugs(anon.do("GET", "/api/problems", nil), "problems"); strings.Join(got, ",") != "pub" {
		t.Fatalf("anonymous list: %v", got)
	}
	if got := slugs(staff.do("GET", "/api/problems", nil), "problems"); strings.Join(got, ",") != "pub,secret,in-contest" {
		t.Fatalf("staff list: %v", got)
	}
	// Cached: a new public problem is invisible until invalidation.
	mkProblem(t, e, "pub2", store.VisibilityPublic)
	if got := slugs(anon.do("GET", "/api/problems", nil), "problems"); len(got) != 1 {
		t.Fatalf("list not cached: %v", got)
	}
	if err := e.srv.Catalog().InvalidateProblems(ctx); err != nil {
		t.Fatal(err)
	}
	if got := slugs(anon.do("GET", "/api/problems", nil), "problems"); strings.Join(got, ",") != "pub,pub2" {
		t.Fatalf("list after invalidation: %v", got)
	}

	r := anon.do("GET", "/api/problems/pub", nil)
	p, _ := r.body["problem"].(map[string]any)
	if r.status != 200 || p["statement"] != "Compute $x$." || p["checker"] != "float" || p["float_tolerance"] != 1e-6 {
		t.Fatalf("get pub: %s", r.raw)
	}
	wantErr(t, anon.do("GET", "/api/problems/secret", nil), 404, CodeNotFound, "")
	wantErr(t, student.do("GET", "/api/problems/secret", nil), 404, CodeNotFound, "")
	if r := staff.do("GET", "/api/problems/secret", nil); r.status != 200 {
		t.Fatalf("staff get secret: %s", r.raw)
	}
	wantErr(t, anon.do("GET", "/api/problems/nope", nil), 404, CodeNotFound, "")
	// Contest-only: visible to a registered participant once the contest started.
	wantErr(t, student.do("GET", "/api/problems/in-contest", nil), 404, CodeNotFound, "")
	cid, err := e.st.CreateContest(ctx, store.Contest{Slug: "c1", Title: "C1", Rule: store.ModeICPC,
		StartAt: time.Now().Add(-time.Minute), EndAt: time.Now().Add(time.Hour), Registration: store.RegistrationOpen, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.AddContestProblem(ctx, cid, conly, "A", 100); err != nil {
		t.Fatal(err)
	}
	wantErr(t, student.do("GET", "/api/problems/in-contest", nil), 404, CodeNotFound, "")
	if err := e.st.AddParticipant(ctx, cid, stu.ID); err != nil {
		t.Fatal(err)
	}
	if r := student.do("GET", "/api/problems/in-contest", nil); r.status != 200 {
		t.Fatalf("participant get contest-only: %s", r.raw)
	}
	wantErr(t, anon.do("GET", "/api/problems/in-contest", nil), 404, CodeNotFound, "")
}

func TestContests(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	pid := mkProblem(t, e, "p1", store.VisibilityPublic)
	now := time.Now()
	mk := func(slug string, start time.Time, visible bool) int64 {
		id, err := e.st.CreateContest(ctx, store.Contest{Slug: slug, Title: slug, Rule: store.ModeICPC, StartAt: start,
			EndAt: start.Add(time.Hour), Registration: store.RegistrationOpen, Visible: visible})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.st.AddContestProblem(ctx, id, pid, "A", 100); err != nil {
			t.Fatal(err)
		}
		return id
	}
	running := mk("running", now.Add(-time.Minute), true)
	mk("future", now.Add(time.Hour), true)
	mk("hidden", now.Add(-time.Minute), false)
	stu := e.user("stu", store.RoleStudent, "stu-password")
	if err := e.st.AddParticipant(ctx, running, stu.ID); err != nil {
		t.Fatal(err)
	}
	anon := e.client()
	if got := slugs(anon.do("GET", "/api/contests", nil), "contests"); strings.Join(got, ",") != "future,running" {
		t.Fatalf("contests: %v", got)
	}
	r := anon.do("GET", "/api/contests/running", nil)
	c, _ := r.body["contest"].(map[string]any)
	if r.status != 200 || c["phase"] != "running" || len(slugs(r, "problems")) != 1 || c["registered"] != nil {
		t.Fatalf("running: %s", r.raw)
	}
	if id, _ := c["id"].(float64); int64(id) != running {
		t.Errorf("contest id = %v, want %d (the live scoreboard channel)", c["id"], running)
	}
	if r := anon.do("GET", "/api/contests/future", nil); len(slugs(r, "problems")) != 0 {
		t.Fatalf("future contest reveals its problems: %s", r.raw)
	}
	wantErr(t, anon.do("GET", "/api/contests/hidden", nil), 404, CodeNotFound, "")
	s := e.client()
	s.login("stu", "stu-password")
	if r := s.do("GET", "/api/contests/running", nil); r.body["contest"].(map[string]any)["registered"] != true {
		t.Fatalf("registered flag: %s", r.raw)
	}
}

// TestIdentityOnlyFromSession: nothing a client sends selects the user.
func TestIdentityOnlyFromSession(t *testing.T) {
	e := newEnv(t, nil)
	admin := e.user("root", store.RoleAdmin, "root-password")
	e.user("mallory", store.RoleStudent, "mallory-password")
	mkProblem(t, e, "secret", store.VisibilityPrivate)
	m := e.client()
	m.login("mallory", "mallory-password")
	id := itoa(admin.ID)
	for _, hdr := range [][]string{
		{"X-User-Id", id}, {"X-Forwarded-User", "root"}, {"Authorization", "Bearer " + id},
	} {
		r := m.do("GET", "/api/me?user_id="+id, nil, hdr...)
		if r.body["user"].(map[string]any)["username"] != "mallory" {
			t.Fatalf("identity taken from %v: %s", hdr, r.raw)
		}
		wantErr(t, m.do("GET", "/api/problems/secret?user_id="+id, nil, hdr...), 404, CodeNotFound, "")
	}
	// A forged cookie value is anonymous.
	f := e.client()
	req, _ := http.NewRequest("GET", e.ts.URL+"/api/me", nil)
	req.AddCookie(&http.Cookie{Name: SessionCookie, Value: strings.Repeat("A", 43)})
	res, err := f.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Fatalf("forged session: %d", res.StatusCode)
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

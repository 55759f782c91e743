package server

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	sharedsession "github.com/verdict-oj/verdict/internal/session"
	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

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

// slowSessionWrites stalls the first pipeline that writes a session hash
// (session.Create) by stall: Redis answering late, or the node starved of
// CPU, after the password check.
type slowSessionWrites struct {
	prefix string
	stall  time.Duration
	once   sync.Once
}

func (h *slowSessionWrites) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (h *slowSessionWrites) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h *slowSessionWrites) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if k, ok := c.Args()[min(1, len(c.Args())-1)].(string); ok && c.Name() == "hset" && strings.HasPrefix(k, h.prefix) {
				h.once.Do(func() { time.Sleep(h.stall) })
				break
			}
		}
		return next(ctx, cmds)
	}
}

// A login whose password checked out after most of the request's deadline
// (in a storm it waits its turn for the hasher) still gets its session:
// the rest has a deadline of its own. It used to answer 503 and throw the
// hashing away (14 of 3,000 logins in the rehearsal's 10:37 run).
func TestLoginFinishesPastTheRequestDeadline(t *testing.T) {
	const deadline = 500 * time.Millisecond
	e := newEnv(t, func(c *Config) { c.PasswordTimeout = deadline })
	e.user("alice", store.RoleStudent, "alice-password")
	e.rdb.AddHook(&slowSessionWrites{prefix: e.names.Session(""), stall: deadline + 300*time.Millisecond})
	c := e.client()
	if r := c.login("alice", "alice-password"); r.status != http.StatusOK || c.csrf == "" {
		t.Fatalf("login with the session written past the request's deadline: %d %s", r.status, r.raw)
	}
	if me := c.do("GET", "/api/me", nil); me.status != http.StatusOK {
		t.Fatalf("me after that login: %d %s", me.status, me.raw)
	}
}

package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/webapp/internal/readcache"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// cachedNode gives a node a read cache that never expires by itself in a
// test's time (a minute), so only a purge can make it see a write.
func cachedNode(cfg *Config) {
	c := readcache.New(readcache.Config{TTL: time.Minute})
	st := store.New(cfg.Store.DB)
	st.UseReadCache(c)
	cfg.Store, cfg.ReadCache = st, c
}

// sibling is a second web node on the same MySQL and Redis, with its own
// configuration (mod).
func (e *env) sibling(t *testing.T, mod func(*Config)) *env {
	t.Helper()
	cfg := e.srv.cfg
	cfg.Store = store.New(e.st.DB)
	cfg.ReadCache = nil
	if mod != nil {
		mod(&cfg)
	}
	o, err := obs.New(obs.Config{Component: "webapp", LogOutput: t.Output(), Log: obs.LogConfig{Format: "text", Level: "warn"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Obs = o
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.judging.Wait)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return &env{t: t, srv: s, st: cfg.Store, rdb: e.rdb, names: e.names, ts: ts}
}

// listenPurges runs the node's purge listener for the test.
func (e *env) listenPurges(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = e.srv.keepReadCacheTrue(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// A write through one node is seen by the other node's next requests at
// once (its cache purged through Redis), though the other node keeps the
// user it read; without the purge it would serve the old user for its
// whole TTL (a minute here).
func TestReadCacheAcrossNodes(t *testing.T) {
	a := newEnv(t, cachedNode)
	b := a.sibling(t, cachedNode)
	a.listenPurges(t)
	b.listenPurges(t)
	time.Sleep(100 * time.Millisecond) // both subscribed

	a.user("root", store.RoleAdmin, "root-password")
	a.user("stu", store.RoleStudent, "stu-password")
	admin := b.client()
	if r := admin.login("root", "root-password"); r.status != 200 {
		t.Fatalf("admin login: %d %s", r.status, r.raw)
	}
	stu := a.client()
	if r := stu.login("stu", "stu-password"); r.status != 200 {
		t.Fatalf("student login: %d %s", r.status, r.raw)
	}
	me := func() resp { return stu.do("GET", "/api/me", nil) }
	for range 3 {
		if r := me(); r.status != 200 {
			t.Fatalf("GET /api/me: %d %s", r.status, r.raw)
		}
	}
	if st := a.srv.cfg.ReadCache.Stats(); st.Hits == 0 {
		t.Fatalf("node A's cache was not used: %+v", st)
	}
	within := func(what string, ok func(resp) bool) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Second)
		for {
			r := me()
			if ok(r) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: node A still answers %d %s", what, r.status, r.raw)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if r := admin.call("PUT", "/api/users/stu", map[string]any{"display_name": "Renamed"}); r.status != 200 {
		t.Fatalf("rename: %d %s", r.status, r.raw)
	}
	within("the rename on node B", func(r resp) bool {
		u, _ := r.body["user"].(map[string]any)
		return r.status == 200 && u["display_name"] == "Renamed"
	})
	if r := admin.call("PUT", "/api/users/stu", map[string]any{"disabled": true}); r.status != 200 {
		t.Fatalf("disable: %d %s", r.status, r.raw)
	}
	within("disabling on node B", func(r resp) bool { return r.status == http.StatusUnauthorized })
}

// A request that writes reads its own write on its node, and the node's
// next read does too.
func TestReadCacheReadYourWrites(t *testing.T) {
	a := newEnv(t, cachedNode)
	a.user("root", store.RoleAdmin, "root-password")
	a.user("stu", store.RoleStudent, "stu-password")
	admin := a.client()
	admin.login("root", "root-password")
	for i, name := range []string{"First", "Second", "Third"} {
		r := admin.call("PUT", "/api/users/stu", map[string]any{"display_name": name})
		if u, _ := r.body["user"].(map[string]any); r.status != 200 || u["display_name"] != name {
			t.Fatalf("rename %d: %d %s", i, r.status, r.raw)
		}
		r = admin.do("GET", "/api/users?q=stu", nil)
		if r.status != 200 || !jsonContains(r.raw, `"display_name":"`+name+`"`) {
			t.Fatalf("list after rename %d: %d %s", i, r.status, r.raw)
		}
	}
}

// Every unsafe route is classified in readCacheRoutes, and every entry
// there is a route: a new route must say whether it changes what the read
// cache keeps.
func TestReadCacheRouteTable(t *testing.T) {
	e := newEnv(t, nil)
	routes := map[string]bool{}
	err := chi.Walk(e.srv.router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if !safeMethod(method) {
			routes[method+" "+route] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := range routes {
		if _, ok := readCacheRoutes[r]; !ok {
			t.Errorf("%s is not in readCacheRoutes: does it change what the read cache keeps (store/cached.go)?", r)
		}
	}
	for r, eff := range readCacheRoutes {
		if !routes[r] {
			t.Errorf("readCacheRoutes has %s, which is no route", r)
		}
		if eff != keepsCache && eff != purgesCache {
			t.Errorf("%s: effect %d", r, eff)
		}
	}
	// Requests as they come, routed by the node's router.
	for _, tc := range []struct {
		method, path string
		want         cacheEffect
	}{
		{"PUT", "/api/users/bob", purgesCache},
		{"POST", "/api/me/password", purgesCache},
		{"PUT", "/api/contests/c1", purgesCache},
		{"DELETE", "/api/contests/c1/participants/bob", purgesCache},
		{"PUT", "/api/problems/p1", purgesCache},
		{"POST", "/api/problems/p1/testdata", purgesCache},
		{"POST", "/api/contests/c1/register", keepsCache},
		{"POST", "/api/contests/c1/participants", keepsCache},
		{"POST", "/api/submissions", keepsCache},
		{"POST", "/api/submissions/outputs", keepsCache},
		{"PUT", "/api/contests/c1/balloons/t1/A", keepsCache},
		{"POST", "/api/contests/c1/clarifications/3/answer", keepsCache},
		{"POST", "/api/session", keepsCache},
		{"POST", "/api/users", keepsCache},
		{"POST", "/api/no-such-route", keepsCache}, // 404: no handler runs
		{"PATCH", "/api/users/bob", keepsCache},    // 405
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		rctx := chi.NewRouteContext()
		rctx.Routes = e.srv.router
		r = r.WithContext(context.WithValue(r.Context(), chi.RouteCtxKey, rctx))
		if got := cacheEffectOf(r); got != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, got, tc.want)
		}
	}
}

// countPurgeMessages counts the purges published to the other nodes.
func countPurgeMessages(t *testing.T, e *env) *atomic.Int64 {
	t.Helper()
	ps := e.rdb.Subscribe(context.Background(), e.names.ReadCachePurge())
	if _, err := ps.Receive(context.Background()); err != nil { // subscribed
		t.Fatal(err)
	}
	var n atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for range ps.Channel() {
			n.Add(1)
		}
	})
	t.Cleanup(func() { _ = ps.Close(); wg.Wait() })
	return &n
}

// Only a request that can have changed what the read cache keeps purges
// it: authenticated, answered 2xx, on a route that writes a kept row. A
// visitor's unsafe request, a refused one (403, 404), and a write of what
// the cache does not keep leave every node's cache alone; before, any of
// them emptied it on every node.
func TestReadCachePurgesOnlyAfterWrites(t *testing.T) {
	e := newEnv(t, cachedNode)
	ctx := context.Background()
	e.user("root", store.RoleAdmin, "root-password")
	e.user("stu", store.RoleStudent, "stu-password")
	if _, err := e.st.CreateContest(ctx, store.Contest{Slug: "c1", Title: "C", Rule: "icpc", StartAt: time.Now().Add(-time.Hour),
		EndAt: time.Now().Add(time.Hour), Registration: "open", Visible: true}); err != nil {
		t.Fatal(err)
	}
	admin, stu, visitor := e.client(), e.client(), e.client()
	if r := admin.login("root", "root-password"); r.status != 200 {
		t.Fatalf("admin login: %d %s", r.status, r.raw)
	}
	if r := stu.login("stu", "stu-password"); r.status != 200 {
		t.Fatalf("student login: %d %s", r.status, r.raw)
	}
	published := countPurgeMessages(t, e)
	purges := func() uint64 { return e.srv.cfg.ReadCache.Stats().Purges }
	before := purges()
	for _, tc := range []struct {
		who          *client
		method, path string
		body         any
		status       int
		purge        bool
	}{
		{visitor, "PUT", "/api/users/stu", map[string]any{"display_name": "X"}, 401, false},
		{visitor, "POST", "/api/contests", map[string]any{"slug": "c2"}, 401, false},
		{visitor, "POST", "/api/session", map[string]any{"username": "stu", "password": "wrong"}, 401, false},
		{stu, "PUT", "/api/users/stu", map[string]any{"display_name": "X"}, 403, false},
		{stu, "POST", "/api/no-such-route", map[string]any{}, 404, false},
		{admin, "PUT", "/api/users/nobody", map[string]any{"display_name": "X"}, 404, false},
		{admin, "PUT", "/api/contests/nope", map[string]any{"title": "X"}, 404, false},
		{admin, "PUT", "/api/users/stu", map[string]any{"role": "emperor"}, 400, false},
		{stu, "POST", "/api/contests/c1/register", nil, 200, false},              // a registration turns true
		{admin, "POST", "/api/judges", map[string]any{"name": "j1"}, 201, false}, // not kept
		{admin, "PUT", "/api/users/stu", map[string]any{"display_name": "Renamed"}, 200, true},
		{admin, "DELETE", "/api/contests/c1/participants/stu", nil, 204, true},
	} {
		r := tc.who.call(tc.method, tc.path, tc.body)
		if r.status != tc.status {
			t.Fatalf("%s %s: %d %s, want %d", tc.method, tc.path, r.status, r.raw, tc.status)
		}
		want := before
		if tc.purge {
			want++
		}
		if got := purges(); got != want {
			t.Fatalf("%s %s (%d): the node's cache purged %d times, want %d", tc.method, tc.path, r.status, got-before, want-before)
		}
		before = purges()
	}
	// Each purge told the other nodes, and nothing else did (Redis
	// delivers one subscriber's messages in order).
	deadline := time.Now().Add(2 * time.Second)
	for published.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if n := published.Load(); n != 2 {
		t.Fatalf("%d purges published to the other nodes, want 2", n)
	}
}

// headerSpy notes, when the answer's header is written, how many purges
// the read cache has had.
type headerSpy struct {
	*httptest.ResponseRecorder
	c        *readcache.Cache
	atHeader int64 // -1: no header yet
}

func (w *headerSpy) note() {
	if w.atHeader < 0 {
		w.atHeader = int64(w.c.Stats().Purges)
	}
}

func (w *headerSpy) WriteHeader(code int) { w.note(); w.ResponseRecorder.WriteHeader(code) }

func (w *headerSpy) Write(b []byte) (int, error) { w.note(); return w.ResponseRecorder.Write(b) }

func (w *headerSpy) Flush() { w.note(); w.ResponseRecorder.Flush() }

// A write's purge happens before its answer leaves the node, so that the
// client's next request reads what it wrote; it used to run after the
// handler had written the answer (on its way out, or not at all for an
// answer the handler flushed).
func TestReadCachePurgedBeforeTheAnswer(t *testing.T) {
	e := newEnv(t, cachedNode)
	asAdmin := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u := &store.User{ID: 1, Username: "root", Role: store.RoleAdmin}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keyAuth, auth{user: u})))
		})
	}
	var answer func(w http.ResponseWriter)
	rt := chi.NewRouter()
	rt.Route("/api", func(r chi.Router) {
		r.Use(asAdmin, e.srv.readCachePolicy)
		r.Put("/users/{username}", func(w http.ResponseWriter, r *http.Request) {
			if !readcache.Bypassed(r.Context()) {
				t.Error("a write's reads go through the cache")
			}
			answer(w)
		})
	})
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter)
		purged bool
	}{
		{"status and body", func(w http.ResponseWriter) { writeJSON(w, http.StatusOK, map[string]any{"ok": true}) }, true},
		{"body only", func(w http.ResponseWriter) { _, _ = w.Write([]byte("{}")) }, true},
		{"flushed first", func(w http.ResponseWriter) {
			_ = http.NewResponseController(w).Flush()
			time.Sleep(10 * time.Millisecond)
			_, _ = w.Write([]byte("{}"))
		}, true},
		{"201", func(w http.ResponseWriter) { w.WriteHeader(http.StatusCreated) }, true},
		{"nothing written", func(http.ResponseWriter) {}, true},
		{"refused", func(w http.ResponseWriter) { writeAPIError(w, errNotFound) }, false},
	} {
		answer = tc.answer
		c := e.srv.cfg.ReadCache
		before := int64(c.Stats().Purges)
		w := &headerSpy{ResponseRecorder: httptest.NewRecorder(), c: c, atHeader: -1}
		rt.ServeHTTP(w, httptest.NewRequest("PUT", "/api/users/bob", strings.NewReader("{}")))
		after := int64(c.Stats().Purges)
		switch {
		case !tc.purged && after != before:
			t.Errorf("%s: purged %d times, want none", tc.name, after-before)
		case tc.purged && after != before+1:
			t.Errorf("%s: purged %d times, want once", tc.name, after-before)
		case tc.purged && w.atHeader >= 0 && w.atHeader != before+1:
			t.Errorf("%s: the answer's header was written before the purge", tc.name)
		}
	}
}

// A node whose cache still holds a user from before their epoch moved on
// (a password change on another node whose purge has not arrived) must not
// end the user's new session: only MySQL may.
func TestStaleCachedEpochEndsNoNewSession(t *testing.T) {
	a := newEnv(t, cachedNode) // no purge listener: the purge never arrives
	b := a.sibling(t, nil)
	a.user("stu", store.RoleStudent, "stu-password")
	old := a.client()
	if r := old.login("stu", "stu-password"); r.status != 200 {
		t.Fatalf("login: %d %s", r.status, r.raw)
	}
	if r := old.do("GET", "/api/me", nil); r.status != 200 { // node A keeps the user
		t.Fatalf("GET /api/me: %d %s", r.status, r.raw)
	}
	if _, err := a.st.DB.Exec("UPDATE users SET session_epoch = session_epoch + 1 WHERE username = 'stu'"); err != nil {
		t.Fatal(err)
	}
	fresh := b.client()
	if r := fresh.login("stu", "stu-password"); r.status != 200 {
		t.Fatalf("login on node B: %d %s", r.status, r.raw)
	}
	// The new session, on node A.
	fresh.e = a
	if r := fresh.do("GET", "/api/me", nil); r.status != 200 {
		t.Fatalf("the new session on the node with the stale user: %d %s", r.status, r.raw)
	}
}

package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

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

func TestKeepsReadCache(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         bool
	}{
		{"POST", "/api/session", true},
		{"DELETE", "/api/session", true},
		{"POST", "/api/submissions", true},
		{"POST", "/api/custom-runs", true},
		{"POST", "/api/contests/c1/register", true},
		{"POST", "/api/contests/c1/clarifications", true},
		{"POST", "/api/contests/c1/clarifications/3/answer", false},
		{"POST", "/api/contests/c1/participants", false},
		{"DELETE", "/api/contests/c1/participants/bob", false},
		{"PUT", "/api/contests/c1", false},
		{"PUT", "/api/users/bob", false},
		{"POST", "/api/me/password", false},
		{"POST", "/api/contests//register", false},
		{"PUT", "/api/submissions", false},
		{"POST", "/api/contests/c1/unfreeze", false},
		{"POST", "/api/problems", false},
	} {
		if got := keepsReadCache(tc.method, tc.path); got != tc.want {
			t.Errorf("%s %s: %v, want %v", tc.method, tc.path, got, tc.want)
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

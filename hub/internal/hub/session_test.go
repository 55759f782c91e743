package hub_test

import (
	"context"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/session"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// publishEpoch does what a web node does at a login and after a password
// change, a role change or a disabling: it publishes the user's epoch
// (read from MySQL there) for the hubs.
func publishEpoch(t *testing.T, env *testenv.RedisEnv, user int64, epoch uint32) {
	t.Helper()
	err := session.PublishEpoch(context.Background(), env.Client, env.Names, user,
		func(context.Context) (uint32, error) { return epoch, nil })
	if err != nil {
		t.Fatal(err)
	}
}

// wantClose reads until the connection closes and checks the code.
func wantClose(t *testing.T, b *browser, code protocol.CloseCode) {
	t.Helper()
	for {
		env, err := b.next(5 * time.Second)
		if err == nil {
			t.Logf("before the close: %s %s", env.Type, env.Data)
			continue
		}
		if got := websocket.CloseStatus(err); got != websocket.StatusCode(code) {
			t.Fatalf("connection ended with %v (status %d), want close %s", err, got, code)
		}
		return
	}
}

// The web nodes end a session by moving its user's epoch on (MySQL, and
// the copy they publish in Redis); they also delete the sessions they have
// indexed, but a session that dropped out of the index, or a deletion that
// failed, leaves the hash in Redis. The hub must refuse such a session
// all the same: a new connection, a new subscription on a live
// connection, and, within SessionCheck, the live connection itself.
func TestHubRefusesSessionTheWebNodeEnded(t *testing.T) {
	env := testenv.Redis(t)
	// No periodic check in the first part: the subscribe check alone
	// must refuse.
	th := startHub(t, env, func(c *hub.Config) { c.SessionCheck = time.Hour })
	addSessionAt(t, env, "admin", 9, session.RoleAdmin, 2)
	publishEpoch(t, env, 9, 2) // the login

	b, err := dialBrowser(t, th.url("/ws"), "admin")
	if err != nil {
		t.Fatal(err)
	}
	other := protocol.Channel{Kind: protocol.ChannelUser, ID: 7} // admins only
	b.subscribe("s1", other)
	if env := b.expect(protocol.TypeSnapshot); env.ID != "s1" {
		t.Fatalf("snapshot for %q", env.ID)
	}

	publishEpoch(t, env, 9, 3) // demoted, disabled, or a new password
	b.subscribe("s2", protocol.Channel{Kind: protocol.ChannelUser, ID: 8})
	wantClose(t, b, protocol.CloseSessionExpired)

	again, err := dialBrowser(t, th.url("/ws"), "admin")
	if err == nil {
		wantClose(t, again, protocol.CloseBadToken)
	}

	// The user's new session, made at the new epoch, is accepted.
	addSessionAt(t, env, "admin-new", 9, session.RoleStudent, 3)
	nb, err := dialBrowser(t, th.url("/ws"), "admin-new")
	if err != nil {
		t.Fatal(err)
	}
	nb.subscribe("s3", protocol.Channel{Kind: protocol.ChannelUser, ID: 9})
	if env := nb.expect(protocol.TypeSnapshot); env.ID != "s3" {
		t.Fatalf("snapshot for %q", env.ID)
	}
	nb.subscribe("s4", other) // now a student
	env2 := nb.expect(protocol.TypeError)
	if e := decode[protocol.Error](t, env2); e.Code != protocol.ErrorForbidden {
		t.Fatalf("new session, another user's channel: %+v, want forbidden", e)
	}
}

// A live connection that subscribes to nothing more is closed by the
// periodic session check once its session ended.
func TestHubClosesEndedSessionOnCheck(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, func(c *hub.Config) { c.SessionCheck = 50 * time.Millisecond })
	addSessionAt(t, env, "u", 8, session.RoleSetter, 0)
	publishEpoch(t, env, 8, 0)
	b, err := dialBrowser(t, th.url("/ws"), "u")
	if err != nil {
		t.Fatal(err)
	}
	b.subscribe("s1", protocol.Channel{Kind: protocol.ChannelUser, ID: 8})
	b.expect(protocol.TypeSnapshot)
	// Still live after a few checks (a read that times out would close
	// the connection: answer a subscription instead).
	time.Sleep(200 * time.Millisecond)
	b.subscribe("s2", protocol.Channel{Kind: protocol.ChannelContest, ID: 1})
	if env := b.expect(protocol.TypeSnapshot); env.ID != "s2" {
		t.Fatalf("snapshot for %q", env.ID)
	}
	publishEpoch(t, env, 8, 1)
	wantClose(t, b, protocol.CloseSessionExpired)
}

package hub_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/session"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// A browser's connection is served by a goroutine of the hub's own: the
// upgrade handler returns once the handshake is over (so net/http lets go
// of the connection's buffers and the request), the socket lives on, and
// Run still closes it and waits for it.
func TestBrowserHandlerReturnsAfterHandshake(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	addSession(t, env, "student", 7, session.RoleStudent)
	var inFlight atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Add(1)
		defer inFlight.Add(-1)
		th.h.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws"

	student, err := dialBrowser(t, url, "student")
	if err != nil {
		t.Fatal(err)
	}
	visitor, err := dialBrowser(t, url, "")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "both upgrade handlers returned", func() bool { return inFlight.Load() == 0 })

	// Both sockets live on after their handlers returned.
	student.subscribe("s1", protocol.Channel{Kind: protocol.ChannelUser, ID: 7})
	if env := student.expect(protocol.TypeSnapshot); env.ID != "s1" {
		t.Fatalf("snapshot for %q", env.ID)
	}
	visitor.subscribe("v1", protocol.Channel{Kind: protocol.ChannelUser, ID: 7})
	if e := decode[protocol.Error](t, visitor.expect(protocol.TypeError)); e.Code != protocol.ErrorForbidden {
		t.Fatalf("a visitor's subscription to a user: %+v, want forbidden", e)
	}
	if got := metric(t, th.reg, obs.HubBrowsersConnected, nil); got != 2 {
		t.Fatalf("browsers connected: %v, want 2", got)
	}

	// Run closes both and has waited for their goroutines when it
	// returns: they unregistered.
	closed := make(chan websocket.StatusCode, 2)
	for _, b := range []*browser{student, visitor} {
		go func() {
			for {
				if _, err := b.next(15 * time.Second); err != nil {
					closed <- websocket.CloseStatus(err)
					return
				}
			}
		}()
	}
	th.stop(t)
	if got := metric(t, th.reg, obs.HubBrowsersConnected, nil); got != 0 {
		t.Errorf("browsers connected after Run returned: %v, want 0", got)
	}
	for range 2 {
		if code := <-closed; code != websocket.StatusCode(protocol.CloseHubShutdown) {
			t.Errorf("a browser's connection ended with %d, want %s", code, protocol.CloseHubShutdown)
		}
	}
}

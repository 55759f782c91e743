package hub_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/session"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// stallDialer dials Redis for a client whose connections, while stalling
// is on, hold the reply to any command naming marker until released: a
// Redis round trip that takes as long as the test wants, for the reads of
// the browsers' sessions only (the 40× rehearsal's storm, when the hub's
// browsers' reads queued behind a starved CPU held its pool's connections).
type stallDialer struct {
	marker []byte

	mu      sync.Mutex
	on      bool
	release chan struct{}
	once    sync.Once
	stalled atomic.Int32 // replies held now
}

func newStallDialer(marker string) *stallDialer {
	return &stallDialer{marker: []byte(marker), release: make(chan struct{})}
}

func (d *stallDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &stallConn{Conn: c, d: d}, nil
}

func (d *stallDialer) stall() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.on = true
}

// unstall lets every held reply through, and those to come; idempotent.
func (d *stallDialer) unstall() {
	d.mu.Lock()
	d.on = false
	d.mu.Unlock()
	d.once.Do(func() { close(d.release) })
}

// holdFor is the channel the reply to the command in b waits for; nil:
// none.
func (d *stallDialer) holdFor(b []byte) chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.on && bytes.Contains(b, d.marker) {
		return d.release
	}
	return nil
}

// stallConn is one connection: a pooled one writes a command and then
// reads its reply; a pub/sub one reads and writes on two goroutines.
type stallConn struct {
	net.Conn
	d    *stallDialer
	hold atomic.Pointer[chan struct{}]
}

func (c *stallConn) Write(b []byte) (int, error) {
	if h := c.d.holdFor(b); h != nil {
		c.hold.Store(&h)
	}
	return c.Conn.Write(b)
}

// Read waits for the release, deadline or not: a held reply holds its
// pooled connection.
func (c *stallConn) Read(b []byte) (int, error) {
	if h := c.hold.Swap(nil); h != nil {
		c.d.stalled.Add(1)
		<-*h
		c.d.stalled.Add(-1)
	}
	return c.Conn.Read(b)
}

// A storm of browsers whose session reads stall holds at most
// BrowserReads of the hub's pooled Redis connections; the rest wait at the
// hub's gate, and a judge's task is dispatched, its lease renewed past its
// timeout and its result taken all the while. Without the gate the
// browsers' reads took every connection and the lease expired.
func TestBrowserStormLeavesTheJudgesTheirConnections(t *testing.T) {
	env := testenv.Redis(t)
	const pool, storm = 6, 10
	key := session.Key(env.Names, "x")
	d := newStallDialer(key[:strings.LastIndex(key, ":")+1])
	rdb := redis.NewClient(&redis.Options{Addr: env.Addr, DB: env.DB, PoolSize: pool, Dialer: d.dial})
	t.Cleanup(func() { rdb.Close() })
	// BrowserReads left to its default: half the pool.
	th := startHub(t, env, func(c *hub.Config) { c.Redis = rdb })
	t.Cleanup(d.unstall) // before the hub stops

	j := newFakeJudge(t, env, "j1", 1, func() string { return th.url("/judge") }, 3*leaseTime).start()
	eventually(t, 5*time.Second, "judge connected", func() bool { return j.current() != nil })
	j.waitDispatchable(env)

	d.stall()
	browsers := make([]*browser, storm)
	for i := range browsers {
		name := fmt.Sprint("student-", i)
		addSession(t, env, name, int64(100+i), session.RoleStudent)
		b, err := dialBrowser(t, th.url("/ws"), name)
		if err != nil {
			t.Fatal(err)
		}
		browsers[i] = b
	}
	eventually(t, 5*time.Second, "the storm at the gate", func() bool {
		return metric(t, th.reg, "verdict_hub_browser_read_waits_total", nil) == storm-pool/2
	})
	if got := d.stalled.Load(); got != pool/2 {
		t.Fatalf("%d browsers' reads hold a connection, want %d (half the pool)", got, pool/2)
	}

	// A web node enqueues (its own client); the judge's task outlives its
	// lease three times over: it is judged once only if every renewal got
	// a connection.
	q, err := queue.New(queue.Config{Client: env.Client, Names: env.Names})
	if err != nil {
		t.Fatal(err)
	}
	enqueue(t, q, newTask(1, 1, 7))
	rs := waitResults(t, env, 1, 10*time.Second)
	if r := rs[1]; len(r) != 1 || r[0].Attempt != 1 || r[0].Verdict != protocol.VerdictAC {
		t.Fatalf("results %+v, want attempt 1 judged AC once", rs)
	}
	if n := metric(t, th.reg, "verdict_hub_lease_expiries_total", nil); n != 0 {
		t.Fatalf("%v leases expired during the storm", n)
	}
	if got := d.stalled.Load(); got != pool/2 {
		t.Fatalf("after the task %d browsers' reads hold a connection, want %d", got, pool/2)
	}

	// The storm passes: every browser is let in and served.
	d.unstall()
	for i, b := range browsers {
		b.subscribe("s", protocol.Channel{Kind: protocol.ChannelUser, ID: int64(100 + i)})
		if env := b.expect(protocol.TypeSnapshot); env.ID != "s" {
			t.Fatalf("browser %d: snapshot for %q", i, env.ID)
		}
	}
	if w := metric(t, th.reg, "verdict_hub_browser_read_wait_seconds_total", nil); w <= 0 {
		t.Fatalf("browser read wait %v s, want > 0", w)
	}
}

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/harness"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
)

// PushConfig bounds item 3. Zero fields take the defaults.
type PushConfig struct {
	// Levels are the numbers of open WebSockets measured, ascending
	// (default 1,000, 5,000, 10,000); connections are added between levels.
	Levels []int
	// ConnectRate bounds new connections per second (default 1,000).
	ConnectRate float64
	// Results per level (default 3): each is one contest submission by a
	// user not yet on the board, judged WA, whose scoreboard change every
	// connection must receive.
	Results int
	// Within bounds the wait for one result's deliveries (default 10 s).
	Within time.Duration
	// Direct connects to the hub's own port instead of through nginx.
	Direct bool
	// Sources is how many loopback addresses the connections come from
	// (default 20: 127.1.0.1 …), so no address runs out of ports.
	Sources int
}

func (c *PushConfig) defaults() {
	if c.Levels == nil {
		c.Levels = []int{1000, 5000, 10000}
	}
	if c.ConnectRate == 0 {
		c.ConnectRate = 1000
	}
	if c.Results == 0 {
		c.Results = 3
	}
	if c.Within == 0 {
		c.Within = 10 * time.Second
	}
	if c.Sources == 0 {
		c.Sources = 20
	}
}

// PushLevel is item 3 at one number of connections.
type PushLevel struct {
	Conns        int
	ConnectFails int           // dials or subscribes that failed (cumulative)
	ConnectTime  time.Duration // to open this level's new connections
	// Resident memory growth since before the first connection, per open
	// connection, in bytes: the hub, nginx (master and workers; 0 when
	// Direct) and this load generator.
	HubPerConn, NginxPerConn, ClientPerConn float64
	HubRSS                                  int64 // the hub's RSS at this level
	Latency                                 Summary
	Last                                    []time.Duration // per result: result → its last delivery
	Missed                                  int             // deliveries not seen within Within
	Dropped                                 int             // connections closed by the far side by the end of the level
}

// PushResult is item 3.
type PushResult struct {
	Via       string // "nginx" or "hub (direct)"
	HubNoFile int64  // the hub's RLIMIT_NOFILE
	Levels    []PushLevel
}

type recv struct {
	at time.Time
	b  []byte
}

// pconn is one benchmark browser.
type pconn struct {
	l    *harness.Live
	gone atomic.Bool // closed by the other side
	mu   sync.Mutex
	got  []recv
}

func (c *pconn) read(ctx context.Context) {
	for {
		b, err := c.l.ReadRaw(ctx)
		if err != nil {
			if ctx.Err() == nil {
				c.gone.Store(true)
			}
			return
		}
		now := time.Now()
		c.mu.Lock()
		c.got = append(c.got, recv{now, b})
		c.mu.Unlock()
	}
}

// take returns what the connection received since the last take.
func (c *pconn) take() []recv {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.got
	c.got = nil
	return g
}

// Push is item 3: WebSockets subscribed to the bench contest's
// scoreboard, added at a bounded rate up to each level; at each level the
// memory per connection, then Results contest submissions whose results
// must reach every connection (latency from the result's entry in the
// results stream — Redis's clock, to the millisecond — to each delivery).
func Push(ctx context.Context, f *Fixture, cfg PushConfig, hubPort int) (PushResult, error) {
	cfg.defaults()
	e := f.Env
	res := PushResult{Via: "nginx"}
	url := harness.LiveURL(e.Base)
	if cfg.Direct {
		res.Via = "hub (direct)"
		url = "ws://127.0.0.1:" + strconv.Itoa(hubPort) + "/ws"
	}
	hubPid := e.Stack.Pids()["hub"]
	if hubPid == 0 {
		return res, fmt.Errorf("bench: push: no hub running")
	}
	res.HubNoFile, _ = NoFile(hubPid)
	nginxPid := 0
	if !cfg.Direct {
		var err error
		if nginxPid, err = PidFile(filepath.Join(e.Stack.Dir(), "nginx", "nginx.pid")); err != nil {
			return res, err
		}
	}
	clients := make([]*http.Client, cfg.Sources)
	for i := range clients {
		clients[i] = &http.Client{Transport: harness.Transport(netip.AddrFrom4([4]byte{127, 1, byte(i / 250), byte(1 + i%250)}), 0)}
	}
	cookies := make([]*http.Cookie, len(f.Users))
	for i, u := range f.Users {
		cookies[i] = u.Cookie()
	}
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: f.ContestID}

	rctx, stopRead := context.WithCancel(ctx)
	defer stopRead()
	var conns []*pconn
	defer func() {
		var wg sync.WaitGroup
		for _, c := range conns {
			wg.Go(func() { c.l.Close() })
		}
		wg.Wait()
	}()
	selfRSS := func() int64 { r, _ := RSS(os.Getpid()); return r }
	nginxRSS := func() int64 {
		if nginxPid == 0 {
			return 0
		}
		r, _ := TreeRSS(nginxPid)
		return r
	}
	runtime.GC()
	hub0, _ := RSS(hubPid)
	nginx0, self0 := nginxRSS(), selfRSS()

	var fails atomic.Int64
	var mu sync.Mutex
	resultN := 0
	for _, level := range cfg.Levels {
		add := level - len(conns)
		lv := PushLevel{}
		if add > 0 {
			base := len(conns)
			t0 := time.Now()
			Pace(cfg.ConnectRate, time.Duration(float64(add)/cfg.ConnectRate*float64(time.Second)), func(i int, _ time.Time) {
				k := base + i
				dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				defer cancel()
				l, err := harness.DialLive(dctx, url, cookies[k%len(cookies)], clients[k%len(clients)])
				if err != nil {
					if fails.Add(1) <= 3 {
						fmt.Fprintln(os.Stderr, "bench: push: connect:", err)
					}
					return
				}
				if _, err := l.Subscribe(dctx, ch); err != nil {
					l.Close()
					if fails.Add(1) <= 3 {
						fmt.Fprintln(os.Stderr, "bench: push: subscribe:", err)
					}
					return
				}
				c := &pconn{l: l}
				go c.read(rctx)
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			})
			lv.ConnectTime = time.Since(t0)
		}
		lv.Conns, lv.ConnectFails = len(conns), int(fails.Load())
		if lv.Conns == 0 {
			return res, fmt.Errorf("bench: push: no connection opened (%d failed)", lv.ConnectFails)
		}
		time.Sleep(2 * time.Second) // let the connections settle
		runtime.GC()
		hubNow, _ := RSS(hubPid)
		lv.HubRSS = hubNow
		n := float64(lv.Conns)
		lv.HubPerConn = float64(hubNow-hub0) / n
		lv.NginxPerConn = float64(nginxRSS()-nginx0) / n
		lv.ClientPerConn = float64(selfRSS()-self0) / n

		var rec Recorder
		for range cfg.Results {
			if resultN >= len(f.Users) {
				return res, fmt.Errorf("bench: push: only %d bench users for the results", len(f.Users))
			}
			u := f.Users[resultN]
			name := UserName(resultN)
			resultN++
			for _, c := range conns {
				c.take()
			}
			last, missed, err := pushOne(ctx, f, u, name, conns, &rec, cfg.Within)
			if err != nil {
				return res, err
			}
			lv.Last = append(lv.Last, last)
			lv.Missed += missed
		}
		lv.Latency = rec.Summary()
		for _, c := range conns {
			if c.gone.Load() {
				lv.Dropped++
			}
		}
		res.Levels = append(res.Levels, lv)
		if lv.Missed > 0 {
			return res, fmt.Errorf("bench: push: %d deliveries missed at %d sockets, %d sockets closed by the server side (see the stack's log)", lv.Missed, lv.Conns, lv.Dropped)
		}
	}
	return res, nil
}

// pushOne submits one WA contest submission as u and records, for every
// connection, the time from the result's entry in the results stream to
// the first scoreboard it received that shows u's attempt.
func pushOne(ctx context.Context, f *Fixture, u *harness.Client, name string, conns []*pconn, rec *Recorder, within time.Duration) (time.Duration, int, error) {
	id, _, err := u.SubmitRetry(ctx, harness.NewKey(), harness.Submission{
		Problem: ProblemSlug, Contest: ContestSlug, Language: Language, Source: WrongSolution(int(time.Now().UnixNano())),
	}, 10*time.Second)
	if err != nil {
		return 0, 0, fmt.Errorf("bench: push: submit: %w", err)
	}
	at, err := resultTime(ctx, f, id, 60*time.Second)
	if err != nil {
		return 0, 0, err
	}
	shows := map[string]bool{} // message → shows the attempt (same bytes on every connection)
	firsts := make([]time.Time, len(conns))
	deadline := at.Add(within)
	for {
		pending := 0
		for i, c := range conns {
			if !firsts[i].IsZero() {
				continue
			}
			for _, r := range c.take() {
				k := string(r.b)
				ok, seen := shows[k]
				if !seen {
					ok = boardShows(r.b, name)
					shows[k] = ok
				}
				if ok {
					firsts[i] = r.at
					break
				}
			}
			if firsts[i].IsZero() {
				pending++
			}
		}
		if pending == 0 || time.Now().After(deadline) {
			var last time.Duration
			for _, t := range firsts {
				if t.IsZero() {
					rec.Fail()
					continue
				}
				d := t.Sub(at)
				rec.Add(d)
				last = max(last, d)
			}
			return last, pending, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// resultTime is when the final result of submission id entered the
// results stream (its entry id's milliseconds, Redis's clock on this
// machine).
func resultTime(ctx context.Context, f *Fixture, id int64, within time.Duration) (time.Time, error) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		msgs, err := f.Env.RDB.XRevRangeN(ctx, f.Env.Names.Results(), "+", "-", 200).Result()
		if err != nil {
			return time.Time{}, fmt.Errorf("bench: results stream: %w", err)
		}
		for _, m := range msgs {
			r, err := queue.ParseResult(m)
			if err != nil || r.SubmissionID != id {
				continue
			}
			return StreamTime(m.ID)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Time{}, fmt.Errorf("bench: no result for submission %d within %v", id, within)
}

// StreamTime is the time in a Redis stream entry id ("<ms>-<seq>").
func StreamTime(id string) (time.Time, error) {
	ms, _, ok := strings.Cut(id, "-")
	n, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil {
		return time.Time{}, fmt.Errorf("bench: stream id %q", id)
	}
	return time.UnixMilli(n), nil
}

// boardShows reports whether a live message is a scoreboard of the bench
// contest on which user has a judged attempt at problem A and nothing
// pending.
func boardShows(msg []byte, user string) bool {
	env, err := protocol.Decode(protocol.LinkLive, msg)
	if err != nil {
		return false
	}
	var state json.RawMessage
	switch env.Type {
	case protocol.TypeSnapshot:
		s, err := protocol.DecodeData[protocol.Snapshot](env)
		if err != nil {
			return false
		}
		state = s.State
	case protocol.TypeEvent:
		ev, err := protocol.DecodeData[protocol.Event](env)
		if err != nil {
			return false
		}
		state = ev.Body
	default:
		return false
	}
	var doc struct {
		Rows []struct {
			User     string `json:"user"`
			Problems map[string]struct {
				Attempts int `json:"attempts"`
				Pending  int `json:"pending"`
			} `json:"problems"`
		} `json:"rows"`
	}
	if json.Unmarshal(state, &doc) != nil {
		return false
	}
	for _, r := range doc.Rows {
		if r.User == user {
			a := r.Problems["A"]
			return a.Attempts >= 1 && a.Pending == 0
		}
	}
	return false
}

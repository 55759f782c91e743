package hub_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/internal/leakcheck"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/internal/session"
	"github.com/verdict-oj/verdict/internal/testenv"
	"github.com/verdict-oj/verdict/internal/tokens"
)

func TestMain(m *testing.M) { testenv.Main(m, leakcheck.Goroutines) }

// Test timings. Heartbeats come every 50 ms, so judges become dispatchable
// at once, but a judge is dead only after 10 missed (500 ms) and a lease
// lives 1 s after its last renewal: on a loaded CI machine (-race, many test
// binaries beside MariaDB, Redis and Chromium) a stall of a few hundred
// milliseconds must neither close a judge's connection nor expire a lease
// that a test counts on (dispatches, requeues, attempt numbers). Tests of
// death and expiry wait that much longer.
const (
	hbInterval       = 50 * time.Millisecond
	missedHeartbeats = 10
	leaseTime        = time.Second
	// afterLease is long enough for a lease left behind by mistake to
	// expire and its task to be reaped, dispatched and judged again: a
	// test that waits it out and finds nothing new knows nothing is left.
	afterLease = leaseTime + 500*time.Millisecond
)

type testHub struct {
	h      *hub.Hub
	srv    *httptest.Server
	reg    *prometheus.Registry
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

func (th *testHub) url(path string) string {
	return "ws" + strings.TrimPrefix(th.srv.URL, "http") + path
}

// stop kills the hub: its listener and every connection go away.
func (th *testHub) stop(t *testing.T) {
	t.Helper()
	th.once.Do(func() { th.kill(t) })
}

func (th *testHub) kill(t *testing.T) {
	th.cancel()
	select {
	case err := <-th.done:
		if err != nil {
			t.Errorf("hub Run: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Error("hub did not stop")
	}
	th.srv.CloseClientConnections()
	th.srv.Close()
}

// smallSendBuffers gives accepted connections a small kernel send buffer,
// so that a peer that stops reading pushes back on the hub after tens of
// kilobytes instead of the megabytes Linux would otherwise absorb.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(16 << 10)
	}
	return c, err
}

func startHub(t *testing.T, env *testenv.RedisEnv, mod func(*hub.Config)) *testHub {
	t.Helper()
	reg := prometheus.NewRegistry()
	cfg := hub.Config{
		Redis: env.Client, Names: env.Names, HeartbeatInterval: hbInterval, MissedHeartbeats: missedHeartbeats, LeaseTimeout: leaseTime,
		ReapInterval: 25 * time.Millisecond, DispatchInterval: 50 * time.Millisecond, NoticeInterval: 50 * time.Millisecond,
		Metrics: reg, Logger: testLogger(t),
	}
	if mod != nil {
		mod(&cfg)
	}
	h, err := hub.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv := httptest.NewUnstartedServer(h.Handler())
	srv.Listener = smallSendBuffers{srv.Listener}
	srv.Start()
	th := &testHub{h: h, srv: srv, reg: reg, cancel: cancel, done: make(chan error, 1)}
	go func() { th.done <- h.Run(ctx) }()
	eventually(t, 5*time.Second, "hub ready", func() bool { return h.Ready(context.Background()) == nil })
	t.Cleanup(func() { th.stop(t) })
	return th
}

// testLogger discards hub logs unless VERDICT_TEST_LOG is set.
func testLogger(t *testing.T) *slog.Logger {
	if os.Getenv("VERDICT_TEST_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})).With("test", t.Name())
}

func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func metric(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if v, ok := labels[lp.GetName()]; ok && v != lp.GetValue() {
					continue next
				}
			}
			switch {
			case m.Counter != nil:
				sum += m.Counter.GetValue()
			case m.Gauge != nil:
				sum += m.Gauge.GetValue()
			case m.Histogram != nil:
				sum += float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return sum
}

func addToken(t *testing.T, env *testenv.RedisEnv, judge, token string) {
	t.Helper()
	// As a web node's sync does: the token, and the mark of a loaded table.
	if err := env.Client.HSet(context.Background(), env.Names.JudgeTokens(), tokens.FieldOf(token), judge,
		rkeys.JudgeTokensSynced, time.Now().UnixMilli()).Err(); err != nil {
		t.Fatal(err)
	}
}

// cookieFor turns a test's short name for a browser ("owner") into a
// well-formed session id, the same for addSession and dialBrowser.
func cookieFor(name string) string {
	b := sha256.Sum256([]byte(name))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// addSession stores a session as a web node does (internal/session), at
// epoch 0; role "" is a session from before roles were stored.
func addSession(t *testing.T, env *testenv.RedisEnv, cookie string, user int64, role string) {
	t.Helper()
	addSessionAt(t, env, cookie, user, role, 0)
}

func addSessionAt(t *testing.T, env *testenv.RedisEnv, cookie string, user int64, role string, epoch uint32) {
	t.Helper()
	r := session.Record{UserID: user, Role: role, CSRF: "x", CreatedAt: time.UnixMilli(1), Epoch: epoch}
	var args []any
	for f := r.Fields(); len(f) > 0; f = f[2:] {
		if f[0] != session.FieldRole || role != "" {
			args = append(args, f[0], f[1])
		}
	}
	if err := env.Client.HSet(context.Background(), session.Key(env.Names, cookieFor(cookie)), args...).Err(); err != nil {
		t.Fatal(err)
	}
}

func newTask(id, problem int64, user int64) queue.Task {
	return queue.Task{
		Task: protocol.Task{
			TaskRef: protocol.TaskRef{SubmissionID: id, Attempt: 1}, ProblemID: problem,
			TestData: protocol.TestData{Hash: fmt.Sprint("data-", problem), URL: fmt.Sprint("http://blobs/", problem)},
			Language: "cpp17", Source: "int main(){}",
			Limits: protocol.Limits{TimeMs: 1000, MemoryKiB: 65536, OutputBytes: 1 << 20},
			Mode:   protocol.ModeICPC, Checker: protocol.Checker{Kind: protocol.CheckerDefault}, Priority: protocol.PriorityPractice,
		},
		UserID: user, SubmittedAt: time.Now(),
		// As the web node enqueues a practice submission (judging.Enqueue).
		Feedback: &protocol.Feedback{Policy: protocol.FeedbackFull},
	}
}

func enqueue(t *testing.T, q *queue.Queue, tasks ...queue.Task) {
	t.Helper()
	for _, tk := range tasks {
		if err := q.Enqueue(context.Background(), tk); err != nil {
			t.Fatal(err)
		}
	}
}

// results reads the results stream: entries per submission.
func results(t *testing.T, env *testenv.RedisEnv) map[int64][]queue.ResultEntry {
	t.Helper()
	msgs, err := env.Client.XRange(context.Background(), env.Names.Results(), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64][]queue.ResultEntry{}
	for _, m := range msgs {
		e, err := queue.ParseResult(m)
		if err != nil {
			t.Fatal(err)
		}
		out[e.SubmissionID] = append(out[e.SubmissionID], e)
	}
	return out
}

func waitResults(t *testing.T, env *testenv.RedisEnv, n int, d time.Duration) map[int64][]queue.ResultEntry {
	t.Helper()
	var rs map[int64][]queue.ResultEntry
	eventually(t, d, fmt.Sprintf("%d results", n), func() bool {
		rs = results(t, env)
		return len(rs) >= n
	})
	return rs
}

// fakeJudge is a scripted judge agent: it speaks the judge protocol for
// real over a WebSocket, runs each task for a while, reports progress and
// a result, and reconnects when its connection drops.
type fakeJudge struct {
	t     *testing.T
	id    string
	token string
	slots int
	url   func() string
	work  func(protocol.Task) time.Duration
	// gate, when set, holds every task until it is closed.
	gate chan struct{}

	mu         sync.Mutex
	conn       *websocket.Conn
	running    map[int64]protocol.TaskRef
	pending    []protocol.Result // finished while disconnected
	peak       int
	judged     int
	rejected   int
	received   []protocol.Type
	closeCodes []websocket.StatusCode
	killed     bool
	// silent: connected but sending no heartbeats (a judge whose reports
	// stopped).
	silent    bool
	cancelled []protocol.TaskRef
	// cachedData is listed in hello; prefetches are the prefetch messages
	// received, and reports the outcomes the next heartbeat carries (every
	// prefetch succeeds).
	cachedData []string
	// capabilities are announced in hello; tasks are the ids of the
	// tasks received.
	capabilities []string
	tasks        []int64
	prefetches   []protocol.Prefetch
	reports      []protocol.PrefetchOutcome

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

func newFakeJudge(t *testing.T, env *testenv.RedisEnv, id string, slots int, url func() string, work time.Duration) *fakeJudge {
	t.Helper()
	token := "token-" + id
	addToken(t, env, id, token)
	ctx, cancel := context.WithCancel(context.Background())
	j := &fakeJudge{
		t: t, id: id, token: token, slots: slots, url: url,
		work:    func(protocol.Task) time.Duration { return work },
		running: map[int64]protocol.TaskRef{}, ctx: ctx, cancel: cancel, done: make(chan struct{}),
	}
	t.Cleanup(j.stop)
	return j
}

func (j *fakeJudge) start() *fakeJudge {
	go j.loop()
	return j
}

func (j *fakeJudge) stop() {
	j.cancel()
	<-j.done
}

// kill drops the connection without a close frame and stops the judge for
// good: no more heartbeats, no results.
func (j *fakeJudge) kill() {
	j.mu.Lock()
	j.killed = true
	c := j.conn
	j.mu.Unlock()
	j.cancel()
	if c != nil {
		_ = c.CloseNow()
	}
	<-j.done
}

func (j *fakeJudge) loop() {
	defer close(j.done)
	for j.ctx.Err() == nil {
		err := j.session()
		if j.ctx.Err() != nil {
			return
		}
		var ce websocket.CloseError
		if errors.As(err, &ce) && !protocol.CloseCode(ce.Code).Retry() {
			return // told to stop
		}
		select {
		case <-j.ctx.Done():
			return
		case <-time.After(30 * time.Millisecond):
		}
	}
}

func (j *fakeJudge) send(c *websocket.Conn, typ protocol.Type, payload any) error {
	b, err := protocol.Marshal(typ, "", payload)
	if err != nil {
		j.t.Errorf("judge %s: marshal %s: %v", j.id, typ, err)
		return err
	}
	ctx, cancel := context.WithTimeout(j.ctx, 2*time.Second)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, b)
}

func (j *fakeJudge) session() error {
	c, _, err := websocket.Dial(j.ctx, j.url(), &websocket.DialOptions{Subprotocols: []string{protocol.SubprotocolJudge}})
	if err != nil {
		return err
	}
	defer c.CloseNow()
	c.SetReadLimit(protocol.MaxJudgeMessage)
	if err := j.send(c, protocol.TypeHello, protocol.Hello{
		JudgeID: j.id, Token: j.token, AgentVersion: "test", Cores: j.slots, MemoryBytes: 1 << 30,
		Languages: []protocol.Language{{ID: "cpp17", Version: "g++"}}, MaxParallel: j.slots,
		CachedData: j.cachedData, Capabilities: j.capabilities,
	}); err != nil {
		return err
	}
	_, b, err := c.Read(j.ctx)
	if err != nil {
		j.noteClose(err)
		return err
	}
	env, err := protocol.Decode(protocol.LinkJudge, b)
	if err != nil || env.Type != protocol.TypeWelcome {
		return fmt.Errorf("judge %s: want welcome, got %s (%v)", j.id, b, err)
	}
	w, err := protocol.DecodeData[protocol.Welcome](env)
	if err != nil || !w.Accepted {
		_, _, err := c.Read(j.ctx) // the close that follows a refusal
		j.noteClose(err)
		return err
	}
	j.mu.Lock()
	if j.killed {
		j.mu.Unlock()
		return errors.New("killed")
	}
	j.conn = c
	pending := j.pending
	j.pending = nil
	j.mu.Unlock()
	for _, r := range pending { // re-report what finished meanwhile
		_ = j.send(c, protocol.TypeResult, r)
	}
	sctx, stop := context.WithCancel(j.ctx)
	defer stop()
	go func() {
		t := time.NewTicker(w.HeartbeatInterval())
		defer t.Stop()
		for {
			j.heartbeat(c)
			select {
			case <-sctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	for {
		_, b, err := c.Read(sctx)
		if err != nil {
			j.noteClose(err)
			j.mu.Lock()
			if j.conn == c {
				j.conn = nil
			}
			j.mu.Unlock()
			return err
		}
		env, err := protocol.Decode(protocol.LinkJudge, b)
		if err != nil {
			j.t.Errorf("judge %s: bad message %s: %v", j.id, b, err)
			continue
		}
		j.mu.Lock()
		j.received = append(j.received, env.Type)
		j.mu.Unlock()
		if env.Type == protocol.TypePrefetch {
			p, err := protocol.DecodeData[protocol.Prefetch](env)
			if err != nil {
				j.t.Errorf("judge %s: bad prefetch: %v", j.id, err)
				continue
			}
			j.mu.Lock()
			j.prefetches = append(j.prefetches, p)
			j.reports = append(j.reports, protocol.PrefetchOutcome{Hash: p.TestData.Hash})
			j.mu.Unlock()
			continue
		}
		if env.Type == protocol.TypeCancel {
			cn, err := protocol.DecodeData[protocol.Cancel](env)
			if err != nil {
				j.t.Errorf("judge %s: bad cancel: %v", j.id, err)
				continue
			}
			j.mu.Lock()
			j.cancelled = append(j.cancelled, cn.TaskRef)
			if j.running[cn.SubmissionID] == cn.TaskRef {
				delete(j.running, cn.SubmissionID)
			}
			j.mu.Unlock()
			continue
		}
		if env.Type != protocol.TypeTask {
			continue
		}
		task, err := protocol.DecodeData[protocol.Task](env)
		if err != nil {
			j.t.Errorf("judge %s: bad task: %v", j.id, err)
			continue
		}
		j.mu.Lock()
		j.tasks = append(j.tasks, task.SubmissionID)
		busy := len(j.running) >= j.slots
		if busy {
			j.rejected++
		} else {
			j.running[task.SubmissionID] = task.TaskRef
			j.peak = max(j.peak, len(j.running))
		}
		j.mu.Unlock()
		if busy {
			_ = j.send(c, protocol.TypeReject, protocol.Reject{TaskRef: task.TaskRef, Reason: protocol.RejectBusy})
			continue
		}
		_ = j.send(c, protocol.TypeAccept, protocol.Accept{TaskRef: task.TaskRef})
		go j.judge(task)
	}
}

func (j *fakeJudge) heartbeat(c *websocket.Conn) {
	j.mu.Lock()
	if j.silent {
		j.mu.Unlock()
		return
	}
	hb := protocol.Heartbeat{Running: len(j.running), Cores: j.slots, Load1: float64(len(j.running)), MemUsedRatio: 0.1}
	for _, r := range j.running {
		hb.Tasks = append(hb.Tasks, r)
	}
	hb.Prefetched, j.reports = j.reports, nil
	j.mu.Unlock()
	_ = j.send(c, protocol.TypeHeartbeat, hb)
}

// waitDispatchable waits until the hub has taken the judge's first
// heartbeat, which makes it dispatchable: the hub records the judge's state
// in Redis only after marking it ready, so this needs no guess at how long
// a heartbeat takes to arrive.
func (j *fakeJudge) waitDispatchable(env *testenv.RedisEnv) {
	j.t.Helper()
	eventually(j.t, 5*time.Second, "judge "+j.id+" dispatchable", func() bool {
		return env.Client.Exists(context.Background(), env.Names.Judge(j.id)).Val() == 1
	})
}

func (j *fakeJudge) current() *websocket.Conn {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.killed {
		return nil
	}
	return j.conn
}

func (j *fakeJudge) judge(task protocol.Task) {
	if c := j.current(); c != nil {
		_ = j.send(c, protocol.TypeProgress, protocol.Progress{TaskRef: task.TaskRef, Status: protocol.VerdictCompiling})
	}
	if j.gate != nil {
		select {
		case <-j.gate:
		case <-j.ctx.Done():
			return
		}
	}
	select {
	case <-time.After(j.work(task)):
	case <-j.ctx.Done():
		return
	}
	cs := []protocol.CaseResult{{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 5, WallMs: 7}}
	if c := j.current(); c != nil {
		_ = j.send(c, protocol.TypeProgress, protocol.Progress{TaskRef: task.TaskRef, Status: protocol.VerdictJudging, Cases: cs})
	}
	r := protocol.Result{TaskRef: task.TaskRef, Verdict: protocol.VerdictAC, Score: 100, Cases: cs, JudgeID: j.id}
	if task.Custom != nil { // a custom run: its output, no cases
		r.Score, r.Cases = 0, []protocol.CaseResult{}
		r.Custom = []protocol.CustomOutput{{Verdict: protocol.VerdictAC, WallMs: 7, Stdout: "echo " + task.Custom.Input}}
	}
	j.mu.Lock()
	delete(j.running, task.SubmissionID)
	j.judged++
	c := j.conn
	if c == nil || j.killed {
		if !j.killed {
			j.pending = append(j.pending, r)
		}
		j.mu.Unlock()
		return
	}
	j.mu.Unlock()
	if err := j.send(c, protocol.TypeResult, r); err != nil {
		j.mu.Lock()
		j.pending = append(j.pending, r)
		j.mu.Unlock()
	}
}

func (j *fakeJudge) noteClose(err error) {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		j.mu.Lock()
		j.closeCodes = append(j.closeCodes, ce.Code)
		j.mu.Unlock()
	}
}

func (j *fakeJudge) stats() (peak, judged, rejected int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.peak, j.judged, j.rejected
}

// browser is a scripted browser on /ws.
type browser struct {
	t *testing.T
	c *websocket.Conn
}

func dialBrowser(t *testing.T, url, cookie string) (*browser, error) {
	t.Helper()
	return dialBrowserWith(t, url, cookie, nil)
}

// dialSlowBrowser dials with a tiny TCP receive buffer, so a browser that
// stops reading pushes back on the hub after a few kilobytes.
func dialSlowBrowser(t *testing.T, url, cookie string) (*browser, error) {
	t.Helper()
	d := &net.Dialer{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096)
		}
		return c, err
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return dialBrowserWith(t, url, cookie, &http.Client{Transport: tr})
}

func dialBrowserWith(t *testing.T, url, cookie string, hc *http.Client) (*browser, error) {
	t.Helper()
	h := http.Header{}
	if cookie != "" {
		h.Set("Cookie", hub.SessionCookie+"="+cookieFor(cookie))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{protocol.SubprotocolLive}, HTTPHeader: h, HTTPClient: hc})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(protocol.MaxLiveMessage)
	t.Cleanup(func() { c.CloseNow() })
	return &browser{t: t, c: c}, nil
}

func (b *browser) subscribe(id string, ch protocol.Channel) {
	b.t.Helper()
	m, err := protocol.Marshal(protocol.TypeSubscribe, id, protocol.Subscribe{Channel: ch})
	if err != nil {
		b.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := b.c.Write(ctx, websocket.MessageText, m); err != nil {
		b.t.Fatal(err)
	}
}

func (b *browser) next(d time.Duration) (protocol.Envelope, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	_, m, err := b.c.Read(ctx)
	if err != nil {
		return protocol.Envelope{}, err
	}
	return protocol.Decode(protocol.LinkLive, m)
}

func (b *browser) expect(typ protocol.Type) protocol.Envelope {
	b.t.Helper()
	env, err := b.next(5 * time.Second)
	if err != nil {
		b.t.Fatalf("want %s: %v", typ, err)
	}
	if env.Type != typ {
		b.t.Fatalf("want %s, got %s %s", typ, env.Type, env.Data)
	}
	return env
}

func decode[T any](t *testing.T, env protocol.Envelope) T {
	t.Helper()
	v, err := protocol.DecodeData[T](env)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

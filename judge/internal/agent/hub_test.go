package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/verdict-oj/verdict/internal/leakcheck"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/judge/internal/lang"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

var (
	testSB    *sandbox.Sandbox
	testLangs []lang.Available
)

func TestMain(m *testing.M) {
	// The test binary is also the sandbox's container init.
	sandbox.MaybeInit()
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "agent tests need root (the sandbox: namespaces, cgroups, mounts)")
		os.Exit(1)
	}
	for _, tool := range []string{"g++", "python3", "javac"} {
		if _, err := exec.LookPath(tool); err != nil {
			fmt.Fprintf(os.Stderr, "agent tests need %s (make deps installs it): %v\n", tool, err)
			os.Exit(1)
		}
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	sb, err := sandbox.New(sandbox.Config{Slots: 2, CgroupParent: "verdict-agent-test", Logger: log,
		UIDBase: testUIDBase, GIDBase: testUIDBase})
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		os.Exit(1)
	}
	testSB = sb
	var want []lang.Language
	for _, l := range lang.Defaults() {
		if l.ID == "cpp17" || l.ID == "py3" || l.ID == "java17" || l.ID == "go" {
			want = append(want, l)
		}
	}
	testLangs = lang.Detect(context.Background(), want, log)
	if len(testLangs) != 4 {
		fmt.Fprintf(os.Stderr, "agent tests need C++, Python 3, Java 17 and Go (the toolchain running them, at /usr/local/go); found %d of them\n", len(testLangs))
		os.Exit(1)
	}
	code := m.Run()
	if err := sb.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox close: %v\n", err)
		code = 1
	}
	if code == 0 {
		if err := leakcheck.Goroutines(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// testUIDBase starts the test sandbox's uid range: its own, apart from the
// sandbox and CLI test binaries' that may run at the same time.
const testUIDBase = 64800

// fakeHub is a real WebSocket server speaking the judge protocol, plus the
// test data endpoint of the web nodes.
type fakeHub struct {
	t     *testing.T
	srv   *httptest.Server
	token string

	mu      sync.Mutex
	pkgs    map[string][]byte
	conn    *websocket.Conn
	nconns  int
	hellos  []protocol.Hello
	down    atomic.Bool // refuse WebSocket upgrades (503)
	acks    atomic.Bool // welcome says the hub acknowledges results
	msgs    chan hubMsg
	fetches atomic.Int32
}

type hubMsg struct {
	conn int // 1-based connection number
	env  protocol.Envelope
}

func newFakeHub(t *testing.T) *fakeHub {
	h := &fakeHub{t: t, token: "secret-token", pkgs: map[string][]byte{}, msgs: make(chan hubMsg, 10000)}
	mux := http.NewServeMux()
	mux.HandleFunc("/judge", h.serveJudge)
	mux.HandleFunc("/api/judge/testdata/{hash}", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+h.token {
			http.Error(w, "bad token", http.StatusUnauthorized)
			return
		}
		h.fetches.Add(1)
		h.mu.Lock()
		b, ok := h.pkgs[r.PathValue("hash")]
		h.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	})
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

func (h *fakeHub) url() string { return "ws" + strings.TrimPrefix(h.srv.URL, "http") + "/judge" }

func (h *fakeHub) serveJudge(w http.ResponseWriter, r *http.Request) {
	if h.down.Load() {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{protocol.SubprotocolJudge}})
	if err != nil {
		return
	}
	ws.SetReadLimit(protocol.MaxJudgeMessage)
	ctx := context.Background()
	_, b, err := ws.Read(ctx)
	if err != nil {
		return
	}
	env, err := protocol.Decode(protocol.LinkJudge, b)
	if err != nil || env.Type != protocol.TypeHello {
		ws.Close(websocket.StatusCode(protocol.CloseBadEnvelope), "first message must be hello")
		return
	}
	hello, err := protocol.DecodeData[protocol.Hello](env)
	if err != nil {
		ws.Close(websocket.StatusCode(protocol.CloseBadEnvelope), "bad hello")
		return
	}
	if hello.Token != h.token {
		wb, _ := protocol.Marshal(protocol.TypeWelcome, "", protocol.Welcome{Accepted: false, Reason: "bad token"})
		ws.Write(ctx, websocket.MessageText, wb)
		ws.Close(websocket.StatusCode(protocol.CloseBadToken), "bad token")
		return
	}
	wb, _ := protocol.Marshal(protocol.TypeWelcome, "", protocol.Welcome{Accepted: true, HubID: "fake", HeartbeatIntervalMs: 300, ResultAcks: h.acks.Load()})
	if err := ws.Write(ctx, websocket.MessageText, wb); err != nil {
		return
	}
	h.mu.Lock()
	h.nconns++
	n := h.nconns
	h.conn = ws
	h.hellos = append(h.hellos, hello)
	h.mu.Unlock()
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			return
		}
		env, err := protocol.Decode(protocol.LinkJudge, b)
		if err != nil {
			h.t.Errorf("agent sent an invalid message: %v: %s", err, b)
			return
		}
		h.msgs <- hubMsg{n, env}
	}
}

// addPackage stores a package and returns its hash.
func (h *fakeHub) addPackage(p testpkg.Package) string {
	b, _, err := p.Build()
	if err != nil {
		h.t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	hash := hex.EncodeToString(sum[:])
	h.mu.Lock()
	h.pkgs[hash] = b
	h.mu.Unlock()
	return hash
}

func (h *fakeHub) send(typ protocol.Type, payload any) {
	h.t.Helper()
	b, err := protocol.Marshal(typ, "", payload)
	if err != nil {
		h.t.Fatal(err)
	}
	h.mu.Lock()
	ws := h.conn
	h.mu.Unlock()
	if ws == nil {
		h.t.Fatal("no judge connected")
	}
	if err := ws.Write(context.Background(), websocket.MessageText, b); err != nil {
		h.t.Fatalf("send %s: %v", typ, err)
	}
}

// drop cuts the current connection without a close handshake.
func (h *fakeHub) drop() {
	h.mu.Lock()
	ws := h.conn
	h.conn = nil
	h.mu.Unlock()
	if ws != nil {
		ws.CloseNow()
	}
}

func (h *fakeHub) connections() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.nconns
}

// waitConn waits until at least n connections were welcomed.
func (h *fakeHub) waitConn(n int, within time.Duration) {
	h.t.Helper()
	deadline := time.Now().Add(within)
	for h.connections() < n || func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.conn == nil }() {
		if time.Now().After(deadline) {
			h.t.Fatalf("no connection #%d within %v", n, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// collector sorts the hub's incoming messages by task.
type collector struct {
	h        *fakeHub
	results  map[protocol.TaskRef][]resultAt
	progress map[protocol.TaskRef][]protocol.Progress
	accepts  map[protocol.TaskRef]int
	rejects  map[protocol.TaskRef]protocol.Reject
	beats    []hubHeartbeat
	drains   int
}

type resultAt struct {
	conn int
	at   time.Time
	r    protocol.Result
}

type hubHeartbeat struct {
	conn int
	hb   protocol.Heartbeat
}

func newCollector(h *fakeHub) *collector {
	return &collector{h: h, results: map[protocol.TaskRef][]resultAt{}, progress: map[protocol.TaskRef][]protocol.Progress{},
		accepts: map[protocol.TaskRef]int{}, rejects: map[protocol.TaskRef]protocol.Reject{}}
}

func (c *collector) take(m hubMsg) {
	t := c.h.t
	switch m.env.Type {
	case protocol.TypeResult:
		r, err := protocol.DecodeData[protocol.Result](m.env)
		if err != nil {
			t.Fatal(err)
		}
		c.results[r.TaskRef] = append(c.results[r.TaskRef], resultAt{m.conn, time.Now(), r})
	case protocol.TypeProgress:
		p, _ := protocol.DecodeData[protocol.Progress](m.env)
		c.progress[p.TaskRef] = append(c.progress[p.TaskRef], p)
	case protocol.TypeAccept:
		a, _ := protocol.DecodeData[protocol.Accept](m.env)
		c.accepts[a.TaskRef]++
	case protocol.TypeReject:
		r, _ := protocol.DecodeData[protocol.Reject](m.env)
		c.rejects[r.TaskRef] = r
	case protocol.TypeHeartbeat:
		hb, err := protocol.DecodeData[protocol.Heartbeat](m.env)
		if err != nil {
			t.Fatal(err)
		}
		c.beats = append(c.beats, hubHeartbeat{m.conn, hb})
	case protocol.TypeDrain:
		c.drains++
	}
}

// until reads messages until cond holds.
func (c *collector) until(what string, within time.Duration, cond func() bool) {
	c.h.t.Helper()
	deadline := time.After(within)
	for !cond() {
		select {
		case m := <-c.h.msgs:
			c.take(m)
		case <-deadline:
			c.h.t.Fatalf("timed out after %v waiting for %s", within, what)
		}
	}
}

func (c *collector) result(ref protocol.TaskRef, within time.Duration) protocol.Result {
	c.h.t.Helper()
	c.until(fmt.Sprintf("the result of %+v", ref), within, func() bool { return len(c.results[ref]) > 0 })
	return c.results[ref][0].r
}

// startAgent runs an agent against h until the test ends.
type runningAgent struct {
	a      *Agent
	cancel context.CancelFunc
	done   chan error
}

func startAgent(t *testing.T, h *fakeHub, dir string, mod func(*Config)) *runningAgent {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	cfg := Config{
		HubURL: h.url(), JudgeID: "judge-test", Token: h.token, Dir: dir, Languages: testLangs,
		Runner: testSB, MaxParallel: 2, QueueSize: 30, BackoffMin: 50 * time.Millisecond, BackoffMax: 400 * time.Millisecond,
		DeliverTimeout: 5 * time.Second,
		Logger:         slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if mod != nil {
		mod(&cfg)
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ra := &runningAgent{a: a, cancel: cancel, done: make(chan error, 1)}
	go func() { ra.done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-ra.done:
		case <-time.After(60 * time.Second):
			t.Error("agent did not stop")
		}
	})
	return ra
}

func (ra *runningAgent) stop(t *testing.T, within time.Duration) error {
	t.Helper()
	ra.cancel()
	select {
	case err := <-ra.done:
		ra.done <- err // for the cleanup
		return err
	case <-time.After(within):
		t.Fatalf("Run did not return within %v", within)
		return nil
	}
}

var nextSubmission atomic.Int64

func init() { nextSubmission.Store(1000) }

func mkTask(problem int64, hash, language, source string, mut ...func(*protocol.Task)) protocol.Task {
	t := protocol.Task{
		TaskRef:   protocol.TaskRef{SubmissionID: nextSubmission.Add(1), Attempt: 1},
		ProblemID: problem, TestData: protocol.TestData{Hash: hash}, Language: language, Source: source,
		Limits: protocol.Limits{TimeMs: 1000, MemoryKiB: 64 << 10, OutputBytes: 1 << 20},
		Mode:   protocol.ModeICPC, Checker: protocol.Checker{Kind: protocol.CheckerDefault},
		Priority: protocol.PriorityPractice,
	}
	for _, m := range mut {
		m(&t)
	}
	return t
}

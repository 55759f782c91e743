package simjudge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// peer is the hub's side of one judge connection, driven by the test.
type peer struct {
	t    *testing.T
	conn *websocket.Conn
}

func (p *peer) send(typ protocol.Type, payload any) {
	p.t.Helper()
	b, err := protocol.Marshal(typ, "", payload)
	if err != nil {
		p.t.Fatal(err)
	}
	if err := p.conn.Write(context.Background(), websocket.MessageText, b); err != nil {
		p.t.Fatal(err)
	}
}

// next reads until a message of type typ, skipping heartbeats and
// progress unless asked for; any other message first fails the test.
func (p *peer) next(typ protocol.Type) protocol.Envelope {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		_, b, err := p.conn.Read(ctx)
		if err != nil {
			p.t.Fatalf("waiting for %s: %v", typ, err)
		}
		env, err := protocol.Decode(protocol.LinkJudge, b)
		if err != nil {
			p.t.Fatal(err)
		}
		if env.Type == typ {
			return env
		}
		if env.Type != protocol.TypeHeartbeat && env.Type != protocol.TypeProgress {
			p.t.Fatalf("got %s %s while waiting for %s", env.Type, env.Data, typ)
		}
	}
}

func data[T any](t *testing.T, env protocol.Envelope) T {
	t.Helper()
	v, err := protocol.DecodeData[T](env)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestProtocolEdges drives one simulated judge from the hub's side of the
// WebSocket through what a real hub rarely or never does on cue: a push
// while every slot is taken, a repeated push, a result left without its
// ack, a cancel, prefetch and evict, a hub drain and a reconnect.
func TestProtocolEdges(t *testing.T) {
	pkg, _, err := testpkg.Build([]testpkg.Case{{In: []byte("1\n"), Ans: []byte("1\n")}, {In: []byte("2\n"), Ans: []byte("2\n")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(pkg)
	hash := hex.EncodeToString(sum[:])
	pkg2, _, err := testpkg.Build([]testpkg.Case{{In: []byte("x\n"), Ans: []byte("x\n")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum2 := sha256.Sum256(pkg2)
	hash2 := hex.EncodeToString(sum2[:])

	conns := make(chan *websocket.Conn)
	var gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/judge" {
			c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{protocol.SubprotocolJudge}})
			if err != nil {
				return
			}
			conns <- c
			<-r.Context().Done()
			return
		}
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		gets.Add(1)
		switch strings.TrimPrefix(r.URL.Path, "/api/judge/testdata/") {
		case hash:
			_, _ = w.Write(pkg)
		case hash2:
			_, _ = w.Write(pkg2)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	var kinds []EventKind
	evc := make(chan Event, 256)
	j, err := New(Config{
		HubURL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/judge", ID: "sim-1", Token: "tok",
		Slots: 1, CompileTime: 20 * time.Millisecond, CaseTime: 20 * time.Millisecond, Sigma: -1,
		ResendAfter: 300 * time.Millisecond, BackoffMin: 50 * time.Millisecond, DeliverTimeout: 2 * time.Second,
		OnEvent: func(e Event) { evc <- e },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runErr := make(chan error, 1)
	go func() { runErr <- j.Run(ctx) }()

	task := func(id int64, src string) protocol.Task {
		tk := simTask(id, protocol.ModeICPC, src)
		tk.TestData = protocol.TestData{Hash: hash, URL: srv.URL + "/api/judge/testdata/" + hash}
		return tk
	}
	welcome := func() *peer {
		p := &peer{t: t, conn: <-conns}
		h := data[protocol.Hello](t, p.next(protocol.TypeHello))
		if h.JudgeID != "sim-1" || h.Token != "tok" || h.MaxParallel != 1 || len(h.Languages) != 6 {
			t.Fatalf("hello %+v", h)
		}
		p.send(protocol.TypeWelcome, protocol.Welcome{Accepted: true, HubID: "test", HeartbeatIntervalMs: 100, ResultAcks: true})
		return p
	}
	heldIn := func(p *peer, ids ...int64) {
		t.Helper()
		hb := data[protocol.Heartbeat](t, p.next(protocol.TypeHeartbeat))
		var got []int64
		for _, r := range hb.Tasks {
			got = append(got, r.SubmissionID)
		}
		slices.Sort(got)
		if !slices.Equal(got, ids) && !(len(got) == 0 && len(ids) == 0) {
			t.Fatalf("heartbeat holds %v, want %v", got, ids)
		}
	}

	p := welcome()
	heldIn(p) // the first heartbeat, right after welcome: nothing held

	// A task, a second one while the only slot is taken, the first again.
	p.send(protocol.TypeTask, task(1, "// sim: verdict=WA case=2 ms=300"))
	if a := data[protocol.Accept](t, p.next(protocol.TypeAccept)); a.SubmissionID != 1 {
		t.Fatalf("accept %+v", a)
	}
	p.send(protocol.TypeTask, task(2, ""))
	if r := data[protocol.Reject](t, p.next(protocol.TypeReject)); r.SubmissionID != 2 || r.Reason != protocol.RejectBusy {
		t.Fatalf("reject %+v, want busy", r)
	}
	p.send(protocol.TypeTask, task(1, "// sim: verdict=WA case=2 ms=300"))
	data[protocol.Accept](t, p.next(protocol.TypeAccept))
	heldIn(p, 1)

	// The result, resent while not acknowledged, listed in heartbeats.
	res := data[protocol.Result](t, p.next(protocol.TypeResult))
	if res.Verdict != protocol.VerdictWA || len(res.Cases) != 2 || res.Cases[1].Verdict != protocol.VerdictWA || res.JudgeID != "sim-1" {
		t.Fatalf("result %+v", res)
	}
	heldIn(p, 1)
	again := data[protocol.Result](t, p.next(protocol.TypeResult))
	if again.TaskRef != res.TaskRef {
		t.Fatalf("resent %+v", again.TaskRef)
	}
	p.send(protocol.TypeResultAck, protocol.ResultAck{TaskRef: res.TaskRef, SlotMs: 87.5})
	// The record keeps the hub's slot time of the result (the trace's
	// slot_ms).
	ackDeadline := time.Now().Add(5 * time.Second)
	for slot := 0.0; slot != 87.5; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(ackDeadline) {
			t.Fatalf("the record's SlotMs = %v after the ack, want 87.5", slot)
		}
		for _, r := range j.Stats().Tasks {
			if r.SubmissionID == res.SubmissionID && r.Attempt == res.Attempt && r.Acked {
				slot = r.SlotMs
			}
		}
	}
	// A push of the judged attempt gets its result again.
	p.send(protocol.TypeTask, task(1, ""))
	data[protocol.Accept](t, p.next(protocol.TypeAccept))
	data[protocol.Result](t, p.next(protocol.TypeResult))

	// Cancel drops a running task: nothing is reported for it.
	p.send(protocol.TypeTask, task(3, "// sim: ms=5000"))
	data[protocol.Accept](t, p.next(protocol.TypeAccept))
	started := func() bool {
		for _, r := range j.Stats().Tasks {
			if r.SubmissionID == 3 && !r.Started.IsZero() {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(2 * time.Second)
	for !started() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	p.send(protocol.TypeCancel, protocol.Cancel{TaskRef: protocol.TaskRef{SubmissionID: 3, Attempt: 1}, Reason: protocol.CancelLeaseLost})
	deadline = time.Now().Add(2 * time.Second)
	for j.Stats().Cancelled == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	p.next(protocol.TypeHeartbeat) // perhaps written before the cancel
	heldIn(p)

	// Prefetch downloads, evict forgets.
	p.send(protocol.TypePrefetch, protocol.Prefetch{ProblemID: 2, TestData: protocol.TestData{Hash: hash2, URL: srv.URL + "/api/judge/testdata/" + hash2}})
	deadline = time.Now().Add(2 * time.Second)
	for len(j.Stats().Cached) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if st := j.Stats(); len(st.Cached) != 2 || st.Prefetches != 1 {
		t.Fatalf("after prefetch: cached %v, %d prefetches", st.Cached, st.Prefetches)
	}
	// The next heartbeat reports the prefetch done (the hub counts the
	// judge warm from it), and only once.
	hb := data[protocol.Heartbeat](t, p.next(protocol.TypeHeartbeat))
	if len(hb.Prefetched) != 1 || hb.Prefetched[0] != (protocol.PrefetchOutcome{Hash: hash2}) {
		t.Fatalf("heartbeat after the prefetch reports %+v, want %s done", hb.Prefetched, hash2)
	}
	if hb := data[protocol.Heartbeat](t, p.next(protocol.TypeHeartbeat)); len(hb.Prefetched) != 0 {
		t.Fatalf("the prefetch is reported twice: %+v", hb.Prefetched)
	}
	p.send(protocol.TypeEvict, protocol.Evict{DataHash: hash2})
	// A heartbeat reports the eviction (the hub's view of the cache
	// follows it), and only once.
	for i := 0; ; i++ {
		hb := data[protocol.Heartbeat](t, p.next(protocol.TypeHeartbeat))
		if len(hb.Evicted) == 0 && i < 20 {
			continue
		}
		if len(hb.Evicted) != 1 || hb.Evicted[0] != hash2 {
			t.Fatalf("heartbeat after the evict reports evicted %v, want [%s]", hb.Evicted, hash2)
		}
		break
	}
	if hb := data[protocol.Heartbeat](t, p.next(protocol.TypeHeartbeat)); len(hb.Evicted) != 0 {
		t.Fatalf("the eviction is reported twice: %v", hb.Evicted)
	}

	// The hub drains: tasks are refused until the next connection, which
	// lists the cached data in its hello.
	p.send(protocol.TypeDrain, protocol.Drain{Reason: "test", RetryAfterMs: 50})
	p.send(protocol.TypeTask, task(4, ""))
	if r := data[protocol.Reject](t, p.next(protocol.TypeReject)); r.SubmissionID != 4 || r.Reason != protocol.RejectDraining {
		t.Fatalf("reject %+v, want draining", r)
	}
	_ = p.conn.Close(websocket.StatusCode(protocol.CloseHubShutdown), "bye")
	p2 := &peer{t: t, conn: <-conns}
	h := data[protocol.Hello](t, p2.next(protocol.TypeHello))
	if len(h.CachedData) != 1 || h.CachedData[0] != hash {
		t.Fatalf("hello after reconnect lists %v, want [%s] (the evicted one gone)", h.CachedData, hash)
	}
	p2.send(protocol.TypeWelcome, protocol.Welcome{Accepted: true, HeartbeatIntervalMs: 100, ResultAcks: true})
	heldIn(p2)
	p2.send(protocol.TypeTask, task(4, ""))
	data[protocol.Accept](t, p2.next(protocol.TypeAccept))
	r4 := data[protocol.Result](t, p2.next(protocol.TypeResult))
	if r4.Verdict != protocol.VerdictAC || len(r4.Cases) != 2 {
		t.Fatalf("result %+v", r4)
	}

	// Our drain: drain is sent, the unacknowledged result resent until
	// acked, then the hub says drained and Run returns nil.
	cancel()
	data[protocol.Drain](t, p2.next(protocol.TypeDrain))
	data[protocol.Result](t, p2.next(protocol.TypeResult))
	p2.send(protocol.TypeResultAck, protocol.ResultAck{TaskRef: r4.TaskRef})
	_ = p2.conn.Close(websocket.StatusCode(protocol.CloseDrained), "drained")
	select {
	case err := <-runErr:
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after the drain")
	}

	st := j.Stats()
	want := Stats{Received: 7, Accepted: 5, Rejected: 2, Cancelled: 1, Judged: 2, Acked: 2, Connections: 2, Reconnects: 1, Downloads: 2, DataHashMismatches: 0, Evicted: 1}
	got := Stats{Received: st.Received, Accepted: st.Accepted, Rejected: st.Rejected, Cancelled: st.Cancelled, Judged: st.Judged,
		Acked: st.Acked, Connections: st.Connections, Reconnects: st.Reconnects, Downloads: st.Downloads, DataHashMismatches: st.DataHashMismatches, Evicted: st.Evicted}
	if !equalStats(got, want) || st.Resends < 2 || st.RejectedBy[protocol.RejectBusy] != 1 || st.RejectedBy[protocol.RejectDraining] != 1 || gets.Load() != 2 {
		t.Fatalf("stats %+v (%d GETs)", st, gets.Load())
	}
	close(evc)
	for e := range evc {
		if e.Task.SubmissionID == 3 {
			kinds = append(kinds, e.Kind)
		}
	}
	if !slices.Equal(kinds, []EventKind{EventReceived, EventAccepted, EventStarted, EventCancelled}) {
		t.Errorf("events of the cancelled task: %v", kinds)
	}
}

func equalStats(a, b Stats) bool {
	return a.Received == b.Received && a.Accepted == b.Accepted && a.Rejected == b.Rejected && a.Cancelled == b.Cancelled &&
		a.Judged == b.Judged && a.Acked == b.Acked && a.Connections == b.Connections && a.Reconnects == b.Reconnects &&
		a.Downloads == b.Downloads && a.DataHashMismatches == b.DataHashMismatches && a.Evicted == b.Evicted
}

// TestKill: Kill drops the link at once, loses the held task and its
// result, never reconnects, and Run returns nil without a drain.
func TestKill(t *testing.T) {
	pkg, _, err := testpkg.Build([]testpkg.Case{{In: []byte("1\n"), Ans: []byte("1\n")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(pkg)
	hash := hex.EncodeToString(sum[:])
	conns := make(chan *websocket.Conn, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/judge" {
			c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{protocol.SubprotocolJudge}})
			if err != nil {
				return
			}
			conns <- c
			<-r.Context().Done()
			return
		}
		_, _ = w.Write(pkg)
	}))
	defer srv.Close()
	j, err := New(Config{HubURL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/judge", ID: "sim-k", Token: "tok",
		Slots: 1, CompileTime: 10 * time.Second, Sigma: -1, BackoffMin: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	runErr := make(chan error, 1)
	go func() { runErr <- j.Run(context.Background()) }()
	p := &peer{t: t, conn: <-conns}
	p.next(protocol.TypeHello)
	p.send(protocol.TypeWelcome, protocol.Welcome{Accepted: true, HubID: "test", HeartbeatIntervalMs: 100, ResultAcks: true})
	tk := simTask(9, protocol.ModeICPC, "")
	tk.TestData = protocol.TestData{Hash: hash, URL: srv.URL + "/d/" + hash}
	p.send(protocol.TypeTask, tk)
	p.next(protocol.TypeAccept)
	t0 := time.Now()
	j.Kill()
	select {
	case err := <-runErr:
		if err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Run did not return after Kill")
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("Kill took %v (the task's compile alone takes 10 s: it was waited for)", d)
	}
	// The hub's side sees the link end with no drain and no result.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for {
		_, b, err := p.conn.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) != -1 {
				t.Fatalf("the link was closed with a close frame (%v): kill -9 sends none", err)
			}
			break
		}
		env, _ := protocol.Decode(protocol.LinkJudge, b)
		if env.Type == protocol.TypeDrain || env.Type == protocol.TypeResult {
			t.Fatalf("got %s after Kill", env.Type)
		}
	}
	select {
	case <-conns:
		t.Fatal("a killed judge dialled in again")
	case <-time.After(300 * time.Millisecond):
	}
	if st := j.Stats(); st.ResultsSent != 0 {
		t.Fatalf("%d results sent after Kill", st.ResultsSent)
	}
}

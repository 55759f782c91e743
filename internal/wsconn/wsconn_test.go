package wsconn_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/verdict-oj/verdict/internal/leakcheck"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/wsconn"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := leakcheck.Goroutines(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// server runs serve for each connection accepted with cfg; it returns the
// ws:// URL. The test ends only after every serve returned.
func server(t *testing.T, cfg wsconn.Config, serve func(*wsconn.Conn)) string {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []*wsconn.Conn
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wg.Add(1)
		defer wg.Done()
		c, err := wsconn.Accept(w, r, cfg, wsconn.AcceptOptions{AnyOrigin: true})
		if err != nil {
			return
		}
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		serve(c)
		c.Close(protocol.CloseNormal, "")
		c.Wait()
	}))
	t.Cleanup(func() {
		mu.Lock()
		for _, c := range conns { // a test that failed midway: end its serve
			c.CloseNow()
		}
		mu.Unlock()
		wg.Wait()
		srv.Close()
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// rawDial opens a plain client socket (no wsconn) speaking sub.
func rawDial(t *testing.T, url, sub string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{sub}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.CloseNow() })
	return ws
}

func msg(t *testing.T, typ protocol.Type, payload any) []byte {
	t.Helper()
	b, err := protocol.Marshal(typ, "", payload)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// closeOf reads until the connection ends and returns the close code the
// peer sent (-1: none).
func closeOf(t *testing.T, ws *websocket.Conn) (websocket.StatusCode, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, _, err := ws.Read(ctx)
		if err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code, ce.Reason
			}
			return -1, err.Error()
		}
	}
}

func judgeCfg() wsconn.Config { return wsconn.Config{Link: protocol.LinkJudge} }

func TestRoundTripSkipsUnknownTypes(t *testing.T) {
	got := make(chan protocol.Type, 8)
	url := server(t, judgeCfg(), func(c *wsconn.Conn) {
		c.Start()
		err := c.ReadLoop(c.Context(), func(env protocol.Envelope) error {
			got <- env.Type
			if env.Type == protocol.TypeHeartbeat {
				c.Send(msg(t, protocol.TypeDrain, protocol.Drain{Reason: "bye"}))
			}
			return nil
		})
		if _, _, ok := wsconn.CloseStatus(err); !ok {
			t.Errorf("ReadLoop ended with %v, want the client's close", err)
		}
	})
	ctx := context.Background()
	c, err := wsconn.Dial(ctx, url, judgeCfg(), wsconn.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// An unknown type first: skipped, the connection stays.
	if err := c.Write(ctx, []byte(`{"v":1,"type":"from_the_future","data":{}}`)); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx, msg(t, protocol.TypeHeartbeat, protocol.Heartbeat{Cores: 1})); err != nil {
		t.Fatal(err)
	}
	env, err := c.Read(ctx)
	if err != nil || env.Type != protocol.TypeDrain {
		t.Fatalf("Read = %v, %v; want the drain", env.Type, err)
	}
	if typ := <-got; typ != protocol.TypeHeartbeat {
		t.Fatalf("server got %q first, want the heartbeat (unknown types skipped)", typ)
	}
	c.Close(protocol.CloseNormal, "")
	c.Wait()
	select {
	case <-c.Context().Done():
	default:
		t.Fatal("Context still open after Wait")
	}
}

func TestQueueKeepsOrderAndGoesOutBeforeStart(t *testing.T) {
	const n = 50
	url := server(t, judgeCfg(), func(c *wsconn.Conn) {
		for i := range n {
			if !c.Send(msg(t, protocol.TypeEvict, protocol.Evict{ProblemID: int64(i + 1)})) {
				t.Errorf("Send %d refused", i)
			}
		}
		c.Start()
		_ = c.ReadLoop(c.Context(), func(protocol.Envelope) error { return nil })
	})
	c, err := wsconn.Dial(context.Background(), url, judgeCfg(), wsconn.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { c.CloseNow(); c.Wait() }()
	for i := range n {
		env, err := c.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ev, _ := protocol.DecodeData[protocol.Evict](env)
		if ev.ProblemID != int64(i+1) {
			t.Fatalf("message %d is problem %d: out of order", i, ev.ProblemID)
		}
	}
}

func TestFullQueueClosesWithOverflowCode(t *testing.T) {
	var drops atomic.Int32
	var closed atomic.Int32
	cfg := judgeCfg()
	cfg.Queue = 2
	cfg.OverflowCode = protocol.CloseSlowConsumer
	cfg.OnDrop = func(d wsconn.Drop) {
		if d == wsconn.DropOverflow {
			drops.Add(1)
		}
	}
	cfg.OnClose = func(code protocol.CloseCode, reason string) {
		if code == protocol.CloseSlowConsumer && reason == "send queue full" {
			closed.Add(1)
		}
	}
	url := server(t, cfg, func(c *wsconn.Conn) {
		b := msg(t, protocol.TypeDrain, protocol.Drain{})
		// Not started: nothing drains the queue.
		for i := range cfg.Queue {
			if !c.Send(b) {
				t.Errorf("Send %d refused below capacity", i)
			}
		}
		if c.Send(b) {
			t.Error("Send accepted beyond capacity")
		}
		if c.Send(b) {
			t.Error("Send accepted after closing started")
		}
		<-c.Context().Done()
	})
	ws := rawDial(t, url, protocol.SubprotocolJudge)
	if code, r := closeOf(t, ws); code != websocket.StatusCode(protocol.CloseSlowConsumer) {
		t.Fatalf("close %d %s, want slow_consumer", code, r)
	}
	if drops.Load() != 1 || closed.Load() != 1 {
		t.Fatalf("OnDrop(overflow) %d times, OnClose %d times; want once each", drops.Load(), closed.Load())
	}
}

// A peer that stops reading: the writes block in the socket, the queue
// fills behind them, and the connection is closed within the write
// timeout, not held forever.
func TestSlowReaderIsDropped(t *testing.T) {
	dropped := make(chan wsconn.Drop, 2)
	cfg := wsconn.Config{Link: protocol.LinkLive, Queue: 8, WriteTimeout: 300 * time.Millisecond,
		OnDrop: func(d wsconn.Drop) { dropped <- d }}
	url := server(t, cfg, func(c *wsconn.Conn) {
		c.Start()
		big := []byte(`{"v":1,"type":"event","data":{"seq":1,"pad":"` + strings.Repeat("x", 256<<10) + `"}}`)
		deadline := time.Now().Add(10 * time.Second)
		for !c.Closing() && time.Now().Before(deadline) {
			c.Send(big)
			time.Sleep(time.Millisecond)
		}
		if !c.Closing() {
			t.Error("a peer that never reads was not dropped in 10 s")
		}
	})
	ws := rawDial(t, url, protocol.SubprotocolLive)
	_ = ws // never read
	select {
	case d := <-dropped:
		if d != wsconn.DropOverflow && d != wsconn.DropWriteFailed {
			t.Fatalf("dropped for %q", d)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no drop")
	}
}

func TestOversizedMessageIsRefused(t *testing.T) {
	cfg := wsconn.Config{Link: protocol.LinkLive, ReadLimit: 1 << 10}
	ended := make(chan error, 1)
	url := server(t, cfg, func(c *wsconn.Conn) {
		c.Start()
		ended <- c.ReadLoop(c.Context(), func(protocol.Envelope) error { return nil })
	})
	ws := rawDial(t, url, protocol.SubprotocolLive)
	b := msg(t, protocol.TypeSubscribe, protocol.Subscribe{Channel: protocol.Channel{Kind: protocol.ChannelQueue}})
	b = append(b[:len(b)-1], []byte(`,"pad":"`+strings.Repeat("x", 2<<10)+`"}`)...)
	_ = ws.Write(context.Background(), websocket.MessageText, b)
	if code, _ := closeOf(t, ws); code != websocket.StatusMessageTooBig {
		t.Fatalf("close %d, want 1009 message too big", code)
	}
	if err := <-ended; err == nil {
		t.Fatal("ReadLoop went on after an oversized message")
	}
}

func TestBadFramesCloseWithTheTablesCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		typ  websocket.MessageType
		data string
		code protocol.CloseCode
		err  error
	}{
		{"binary", websocket.MessageBinary, `{"v":1,"type":"heartbeat","data":{}}`, protocol.CloseUnsupportedData, wsconn.ErrBinary},
		{"not json", websocket.MessageText, `hello`, protocol.CloseBadEnvelope, protocol.ErrMalformed},
		{"other version", websocket.MessageText, `{"v":9,"type":"heartbeat","data":{}}`, protocol.CloseBadEnvelope, protocol.ErrUnsupportedVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ended := make(chan error, 1)
			url := server(t, judgeCfg(), func(c *wsconn.Conn) {
				c.Start()
				ended <- c.ReadLoop(c.Context(), func(protocol.Envelope) error { return nil })
			})
			ws := rawDial(t, url, protocol.SubprotocolJudge)
			if err := ws.Write(context.Background(), tc.typ, []byte(tc.data)); err != nil {
				t.Fatal(err)
			}
			if code, _ := closeOf(t, ws); code != websocket.StatusCode(tc.code) {
				t.Fatalf("close %d, want %s", code, tc.code)
			}
			if err := <-ended; !errors.Is(err, tc.err) {
				t.Fatalf("ReadLoop = %v, want %v", err, tc.err)
			}
		})
	}
}

func TestCloseHandshakeCarriesCodeAndTrimmedReason(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	waited := make(chan bool, 1)
	url := server(t, judgeCfg(), func(c *wsconn.Conn) {
		c.Start()
		go func() { _ = c.ReadLoop(c.Context(), func(protocol.Envelope) error { return nil }) }()
		c.Close(protocol.CloseSessionExpired, long)
		c.Close(protocol.CloseNormal, "second close is ignored")
		c.Wait()
		waited <- c.Context().Err() != nil
	})
	c, err := wsconn.Dial(context.Background(), url, judgeCfg(), wsconn.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Read(context.Background())
	code, reason, ok := wsconn.CloseStatus(err)
	if !ok || code != protocol.CloseSessionExpired {
		t.Fatalf("read = %v, want close session_expired", err)
	}
	if len(reason) > wsconn.MaxCloseReason || !utf8.ValidString(reason) || !strings.HasPrefix(long, reason) || len(reason) < 120 {
		t.Fatalf("reason %q (%d bytes): want the reason cut to ≤ %d bytes on a character boundary", reason, len(reason), wsconn.MaxCloseReason)
	}
	if !<-waited {
		t.Fatal("Context not done after Wait")
	}
	c.CloseNow()
	c.Wait()
}

func TestCloseNowSendsNoCode(t *testing.T) {
	url := server(t, judgeCfg(), func(c *wsconn.Conn) {
		c.CloseNow()
		c.Wait()
	})
	ws := rawDial(t, url, protocol.SubprotocolJudge)
	if code, _ := closeOf(t, ws); code != -1 {
		t.Fatalf("close %d, want none (1006)", code)
	}
}

func TestPingsDropADeadPeerAndKeepALiveOne(t *testing.T) {
	cfg := wsconn.Config{Link: protocol.LinkLive, PingInterval: 50 * time.Millisecond, WriteTimeout: 200 * time.Millisecond}
	t.Run("dead", func(t *testing.T) {
		dropped := make(chan wsconn.Drop, 1)
		cfg := cfg
		cfg.OnDrop = func(d wsconn.Drop) { dropped <- d }
		url := server(t, cfg, func(c *wsconn.Conn) {
			c.Start()
			_ = c.ReadLoop(c.Context(), func(protocol.Envelope) error { return nil })
		})
		// A client that never reads never answers a ping.
		_ = rawDial(t, url, protocol.SubprotocolLive)
		select {
		case d := <-dropped:
			if d != wsconn.DropPingFailed {
				t.Fatalf("dropped for %q, want ping_failed", d)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a peer that answers no ping is still connected")
		}
	})
	t.Run("alive", func(t *testing.T) {
		var drops atomic.Int32
		cfg := cfg
		cfg.OnDrop = func(wsconn.Drop) { drops.Add(1) }
		url := server(t, cfg, func(c *wsconn.Conn) {
			c.Start()
			_ = c.ReadLoop(c.Context(), func(protocol.Envelope) error { return nil })
		})
		ws := rawDial(t, url, protocol.SubprotocolLive)
		ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
		defer cancel()
		_, _, err := ws.Read(ctx) // reads pings (and answers them) until ctx ends
		if websocket.CloseStatus(err) != -1 || drops.Load() != 0 {
			t.Fatalf("a reading peer was dropped: %v, %d drops", err, drops.Load())
		}
	})
}

func TestSubprotocolIsRequired(t *testing.T) {
	url := server(t, judgeCfg(), func(c *wsconn.Conn) { t.Error("served a client without the subprotocol") })
	ws := rawDial(t, url, "something.else")
	if code, _ := closeOf(t, ws); code != websocket.StatusCode(protocol.CloseUnsupportedVersion) {
		t.Fatalf("close %d, want unsupported_version", code)
	}

	// A server that answers without it: Dial refuses.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err == nil {
			_, _, _ = ws.Read(context.Background())
		}
	}))
	defer srv.Close()
	_, err := wsconn.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), judgeCfg(), wsconn.DialOptions{})
	if !errors.Is(err, wsconn.ErrSubprotocol) {
		t.Fatalf("Dial = %v, want ErrSubprotocol", err)
	}
}

func TestTrimReason(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"bad token", "bad token"},
		{strings.Repeat("a", 200), strings.Repeat("a", 123)},
		{strings.Repeat("a", 122) + "é", strings.Repeat("a", 122)},
		{"bad\xffbyte", "badbyte"},
	} {
		if got := wsconn.TrimReason(tc.in); got != tc.want {
			t.Errorf("TrimReason(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Close from one goroutine while another drops and waits (the judge's
// drain racing its session's end): one close wins, every Wait returns.
func TestConcurrentCloseAndWait(t *testing.T) {
	for range 20 {
		url := server(t, judgeCfg(), func(c *wsconn.Conn) {
			_ = c.ReadLoop(c.Context(), func(protocol.Envelope) error { return nil })
		})
		c, err := wsconn.Dial(context.Background(), url, judgeCfg(), wsconn.DialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c.Start()
		var wg sync.WaitGroup
		wg.Go(func() { c.Close(protocol.CloseGoingAway, "judge drained") })
		wg.Go(func() { c.CloseNow(); c.Wait() })
		wg.Go(func() { c.Close(protocol.CloseNormal, ""); c.Wait() })
		wg.Wait()
		c.Wait()
	}
}

// TestReadOrSkip: a message whose head skip picks is read past and not
// kept; the others come whole (shorter than the head too); the next
// message is read right after a skipped one.
func TestReadOrSkip(t *testing.T) {
	big := "SKIP" + strings.Repeat("x", 200<<10)
	keep := "KEEP" + strings.Repeat("y", 100<<10)
	url := server(t, judgeCfg(), func(c *wsconn.Conn) {
		ctx := c.Context()
		for _, m := range []string{big, keep, "hi", big, "last"} {
			if err := c.Write(ctx, []byte(m)); err != nil {
				t.Error(err)
				return
			}
		}
		<-ctx.Done()
	})
	ctx := context.Background()
	c, err := wsconn.Dial(ctx, url, wsconn.Config{Link: protocol.LinkJudge, ReadLimit: 1 << 20}, wsconn.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	skip := func(h []byte) bool { return strings.HasPrefix(string(h), "SKIP") }
	var got []string
	for range 5 {
		m, skipped, err := c.ReadOrSkip(ctx, 16, skip)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case skipped && m == nil:
			got = append(got, "skipped")
		case skipped:
			t.Fatal("a skipped message was kept")
		default:
			got = append(got, string(m[:min(len(m), 4)])+":"+strconv.Itoa(len(m)))
		}
	}
	want := []string{"skipped", "KEEP:" + strconv.Itoa(len(keep)), "hi:2", "skipped", "last:4"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("read %v, want %v", got, want)
	}
}

// A connection that breaks in the middle of a message is an error for
// ReadOrSkip, not a message of the bytes that came (a load generator's
// browser took such a head for a frame, undecodable, on a hub that
// dropped it).
func TestReadOrSkipBrokenMidMessage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		fmt.Fprintf(rw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
			"Sec-WebSocket-Accept: %s\r\nSec-WebSocket-Protocol: %s\r\n\r\n",
			base64.StdEncoding.EncodeToString(sum[:]), protocol.LinkJudge.Subprotocol())
		// A text frame of 1,000 bytes, of which 10 come before the
		// connection closes.
		rw.Write([]byte{0x81, 126, 0x03, 0xe8})
		rw.WriteString("0123456789")
		rw.Flush()
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := wsconn.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), judgeCfg(), wsconn.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	m, skipped, err := c.ReadOrSkip(ctx, 16, func([]byte) bool { return false })
	if err == nil {
		t.Fatalf("ReadOrSkip = %q (skipped %v), want an error", m, skipped)
	}
}

// countingListener counts the writes to the connections it accepts.
type countingListener struct {
	net.Listener
	writes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, writes: &l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// A message of up to WriteBuffer goes out in one write, written at once
// or queued: a scoreboard delta of 4–10 KiB to thousands of browsers took
// two each with the hijacked connection's 4 KiB writer (and twice the
// peer's reads), and larger ones still arrive whole (their head and the
// rest: one writev on a TCP socket, two writes on this counting one).
func TestAMessageIsOneWrite(t *testing.T) {
	for _, queued := range []bool{false, true} {
		for _, size := range []int{100, 3 << 10, 6 << 10, 12 << 10, wsconn.WriteBuffer - 64, 3 * wsconn.WriteBuffer} {
			t.Run(fmt.Sprintf("queued=%v/%d", queued, size), func(t *testing.T) {
				body := msg(t, protocol.TypeEvict, protocol.Evict{DataHash: strings.Repeat("x", size)})
				const n = 20
				ready, read := make(chan struct{}), make(chan struct{})
				var before int64
				var ln *countingListener // the server's, counting (set before it starts)
				srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					c, err := wsconn.Accept(w, r, judgeCfg(), wsconn.AcceptOptions{AnyOrigin: true})
					if err != nil {
						t.Error(err)
						return
					}
					before = ln.writes.Load() // the handshake's
					close(ready)
					if queued {
						c.Start()
					}
					for range n {
						if queued {
							c.Send(body)
						} else if err := c.Write(context.Background(), body); err != nil {
							t.Error(err)
						}
					}
					<-read
					c.CloseNow()
					c.Wait()
				}))
				ln = &countingListener{Listener: srv.Listener}
				srv.Listener = ln
				srv.Start()
				defer srv.Close()
				done := sync.OnceFunc(func() { close(read) }) // the handler may end
				defer done()
				ws := rawDial(t, "ws"+strings.TrimPrefix(srv.URL, "http"), protocol.LinkJudge.Subprotocol())
				defer ws.CloseNow()
				ws.SetReadLimit(1 << 20)
				for i := range n {
					_, got, err := ws.Read(context.Background())
					if err != nil {
						t.Fatalf("message %d: %v", i, err)
					}
					if !bytes.Equal(got, body) {
						t.Fatalf("message %d: %d bytes, want the %d sent", i, len(got), len(body))
					}
				}
				<-ready
				writes := ln.writes.Load() - before
				done()
				want := int64(n)
				if len(body) > wsconn.WriteBuffer {
					want = 2 * n
				}
				if writes != want {
					t.Errorf("%d messages of %d bytes took %d writes, want %d", n, len(body), writes, want)
				}
			})
		}
	}
}

// Pings (written by another goroutine, while messages are gathered) and
// messages of every size keep their bytes and their order.
func TestGatheredMessagesWithPings(t *testing.T) {
	const n = 300
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = msg(t, protocol.TypeEvict, protocol.Evict{DataHash: strings.Repeat(string(rune('a'+i%26)), 1+(i*997)%(3*wsconn.WriteBuffer))})
	}
	read := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cfg := judgeCfg()
		cfg.PingInterval = time.Millisecond
		c, err := wsconn.Accept(w, r, cfg, wsconn.AcceptOptions{AnyOrigin: true})
		if err != nil {
			t.Error(err)
			return
		}
		c.Start()
		go func() { _ = c.ReadLoop(c.Context(), func(protocol.Envelope) error { return nil }) }() // reads the pongs
		for i, b := range bodies {
			if i%3 == 0 {
				if err := c.Write(context.Background(), b); err != nil {
					t.Error(err)
				}
			} else if !c.Send(b) {
				t.Error("queue full")
			}
			if i%50 == 0 {
				time.Sleep(5 * time.Millisecond) // pings in between
			}
		}
		<-read
		c.CloseNow()
		c.Wait()
	}))
	defer srv.Close()
	defer close(read)
	ws := rawDial(t, "ws"+strings.TrimPrefix(srv.URL, "http"), protocol.LinkJudge.Subprotocol())
	defer ws.CloseNow()
	ws.SetReadLimit(1 << 20)
	got := make([][]byte, 0, n)
	for len(got) < n {
		_, b, err := ws.Read(context.Background()) // answers the pings
		if err != nil {
			t.Fatalf("after %d messages: %v", len(got), err)
		}
		got = append(got, b)
	}
	// Write and Send race for the socket: each one's messages keep their
	// order, and every message arrives whole, once.
	seen := map[string]int{}
	for _, b := range got {
		seen[string(b)]++
	}
	for i, b := range bodies {
		if seen[string(b)] == 0 {
			t.Fatalf("message %d (%d bytes) missing or corrupted", i, len(b))
		}
		seen[string(b)]--
	}
}

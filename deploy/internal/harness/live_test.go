package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/wsconn"
)

var (
	contestCh = protocol.Channel{Kind: protocol.ChannelContest, ID: 7}
	userCh    = protocol.Channel{Kind: protocol.ChannelUser, ID: 42}
)

// fakeHub answers each subscribe it reads by calling answer, which writes
// whatever it likes (pushes, then the answer) on the socket.
func fakeHub(t *testing.T, answer func(ctx context.Context, c *wsconn.Conn, sub protocol.Subscribe, id string)) string {
	t.Helper()
	var wg sync.WaitGroup
	done := make(chan struct{}) // the test ended: a socket its client left open closes
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wg.Add(1)
		defer wg.Done()
		c, err := wsconn.Accept(w, r, wsconn.Config{Link: protocol.LinkLive}, wsconn.AcceptOptions{AnyOrigin: true})
		if err != nil {
			return
		}
		defer c.Wait()
		defer c.CloseNow()
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		go func() {
			select {
			case <-done:
				c.CloseNow()
			case <-ctx.Done():
			}
		}()
		for {
			raw, err := c.ReadRaw(ctx)
			if err != nil {
				return
			}
			var env protocol.Envelope
			if err := json.Unmarshal(raw, &env); err != nil || env.Type != protocol.TypeSubscribe {
				continue
			}
			sub, err := protocol.DecodeData[protocol.Subscribe](env)
			if err != nil {
				t.Errorf("fake hub: %v", err)
				return
			}
			answer(ctx, c, sub, env.ID)
		}
	}))
	t.Cleanup(func() {
		close(done)
		srv.CloseClientConnections()
		srv.Close()
		wg.Wait()
	})
	return LiveURL(srv.URL)
}

func mustWrite(ctx context.Context, t *testing.T, c *wsconn.Conn, b []byte, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx, b); err != nil {
		t.Errorf("fake hub: write: %v", err)
	}
}

func push(ch protocol.Channel, seq uint64) ([]byte, error) {
	return protocol.Marshal(protocol.TypeEvent, "", protocol.Event{Channel: ch, Seq: seq, Kind: protocol.EventScoreboard, Body: json.RawMessage(`{"rows":[]}`)})
}

// The contest's pushes that come while the user channel's subscribe waits
// for its answer are read after it, in order, then the socket's next: the
// rehearsal's browsers dropped them, and one that reconnected in the
// unfreeze's push kept the frozen board (the 2026-12-04 02:34 run).
func TestSubscribeHoldsOtherPushes(t *testing.T) {
	url := fakeHub(t, func(ctx context.Context, c *wsconn.Conn, sub protocol.Subscribe, id string) {
		if sub.Channel == userCh { // two contest pushes before the answer
			for seq := uint64(2); seq <= 3; seq++ {
				b, err := push(contestCh, seq)
				mustWrite(ctx, t, c, b, err)
			}
		}
		b, err := protocol.MarshalSnapshot(id, sub.Channel, 1, json.RawMessage(`{"rows":[]}`))
		mustWrite(ctx, t, c, b, err)
		if sub.Channel == userCh {
			b, err := push(contestCh, 4)
			mustWrite(ctx, t, c, b, err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, unread := range []bool{false, true} {
		l, err := DialLive(ctx, url, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if unread {
			err = l.SubscribeUnread(ctx, contestCh)
		} else {
			_, err = l.Subscribe(ctx, contestCh)
		}
		if err != nil {
			t.Fatalf("subscribe contest: %v", err)
		}
		snap, err := l.Subscribe(ctx, userCh)
		if err != nil || snap.Channel != userCh {
			t.Fatalf("subscribe user: %v, %v", snap, err)
		}
		for want := uint64(2); want <= 4; want++ {
			env, err := l.Read(ctx)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			ev, err := protocol.DecodeData[protocol.Event](env)
			if err != nil || ev.Seq != want || ev.Channel != contestCh {
				t.Fatalf("read %d: got %+v, %v", want, ev, err)
			}
		}
		l.Close()
	}
}

// A browser that never reads the board holds the pushes it skips only as
// skipped: ReadOrSkip reports them skipped, ReadRaw passes over them, and
// the message the skip does not match is held whole.
func TestSkipHeld(t *testing.T) {
	url := fakeHub(t, func(ctx context.Context, c *wsconn.Conn, sub protocol.Subscribe, id string) {
		if sub.Channel == userCh {
			b, err := push(contestCh, 2)
			mustWrite(ctx, t, c, b, err)
			b, err = push(userCh, 5)
			mustWrite(ctx, t, c, b, err)
		}
		b, err := protocol.MarshalSnapshot(id, sub.Channel, 1, json.RawMessage(`{"rows":[]}`))
		mustWrite(ctx, t, c, b, err)
		if sub.Channel == userCh {
			b, err := push(contestCh, 3)
			mustWrite(ctx, t, c, b, err)
			b, err = push(userCh, 6)
			mustWrite(ctx, t, c, b, err)
		}
	})
	contest := func(head []byte) bool { return bytes.Contains(head, []byte(`"kind":"contest"`)) }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// A browser that never reads the board: the contest unread, then
	// its own channel.
	open := func() *Live {
		l, err := DialLive(ctx, url, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		l.SkipHeld(96, contest)
		if err := l.SubscribeUnread(ctx, contestCh); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Subscribe(ctx, userCh); err != nil {
			t.Fatal(err)
		}
		return l
	}
	l := open()
	var got []string
	for range 4 {
		raw, skipped, err := l.ReadOrSkip(ctx, 96, contest)
		if err != nil {
			t.Fatal(err)
		}
		if skipped {
			got = append(got, "skipped")
			continue
		}
		ev, err := protocol.DecodeData[protocol.Event](mustDecode(t, raw))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Channel.String())
	}
	if want := "skipped user:42 skipped user:42"; strings.Join(got, " ") != want {
		t.Errorf("reads = %q, want %q", strings.Join(got, " "), want)
	}

	l = open()
	env, err := l.Read(ctx) // the held contest push is passed over
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := protocol.DecodeData[protocol.Event](env); err != nil || ev.Channel != userCh || ev.Seq != 5 {
		t.Errorf("first read = %+v, %v; want user:42 seq 5", ev, err)
	}
	// Read the rest before the socket closes: the fake hub's last writes
	// would otherwise race the close (connection reset, the CI of 4acec42).
	for {
		env, err := l.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ev, err := protocol.DecodeData[protocol.Event](env); err == nil && ev.Channel == userCh && ev.Seq == 6 {
			break
		}
	}
}

func mustDecode(t *testing.T, raw []byte) protocol.Envelope {
	t.Helper()
	env, err := protocol.Decode(protocol.LinkLive, raw)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// A subscribe the hub refuses is an error wrapping ErrRefused; the pushes
// read before the refusal are still held.
func TestSubscribeRefused(t *testing.T) {
	url := fakeHub(t, func(ctx context.Context, c *wsconn.Conn, sub protocol.Subscribe, id string) {
		if sub.Channel == userCh {
			b, err := push(contestCh, 2)
			mustWrite(ctx, t, c, b, err)
			b, err = protocol.Marshal(protocol.TypeError, id, protocol.Error{Code: protocol.ErrorForbidden, Message: "not yours", Channel: &sub.Channel})
			mustWrite(ctx, t, c, b, err)
			return
		}
		b, err := protocol.MarshalSnapshot(id, sub.Channel, 1, json.RawMessage(`{"rows":[]}`))
		mustWrite(ctx, t, c, b, err)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := DialLive(ctx, url, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Subscribe(ctx, contestCh); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Subscribe(ctx, userCh); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not yours") {
		t.Fatalf("subscribe user: %v, want ErrRefused with the hub's message", err)
	}
	env, err := l.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := protocol.DecodeData[protocol.Event](env); err != nil || ev.Seq != 2 {
		t.Errorf("read = %+v, %v; want the contest push held", ev, err)
	}
}

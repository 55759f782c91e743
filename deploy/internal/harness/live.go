package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/wsconn"
)

// ErrRefused is wrapped when the hub answers a subscribe with an error.
var ErrRefused = errors.New("harness: subscribe refused")

// Live is a browser's WebSocket to the hub: /ws, subprotocol
// verdict.live.v1, authenticated by the session cookie.
type Live struct {
	conn *wsconn.Conn
	next int
}

// LiveURL turns the site's base URL (http://host:port) into its /ws URL.
func LiveURL(base string) string {
	return "ws" + strings.TrimPrefix(strings.TrimSuffix(base, "/"), "http") + "/ws"
}

// DialLive opens the client's live WebSocket through the same nginx, from
// the same source address, with its session cookie.
func (c *Client) DialLive(ctx context.Context) (*Live, error) {
	return DialLive(ctx, LiveURL(c.base), c.Cookie(), c.stream)
}

// DialLive opens a live WebSocket to wsURL sending cookie; hc (nil: the
// default client) must have no Timeout (the socket outlives any request).
func DialLive(ctx context.Context, wsURL string, cookie *http.Cookie, hc *http.Client) (*Live, error) {
	h := http.Header{}
	if cookie != nil {
		h.Set("Cookie", cookie.Name+"="+cookie.Value)
	}
	c, err := wsconn.Dial(ctx, wsURL, wsconn.Config{Link: protocol.LinkLive, ReadLimit: protocol.MaxLiveMessage},
		wsconn.DialOptions{HTTPClient: hc, Header: h})
	if err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	return &Live{conn: c}, nil
}

// Subscribe subscribes to ch and reads until the hub's snapshot (or error)
// for it; messages before it are dropped. Call it before any concurrent
// ReadRaw.
func (l *Live) Subscribe(ctx context.Context, ch protocol.Channel) (protocol.Snapshot, error) {
	l.next++
	id := "s" + strconv.Itoa(l.next)
	b, err := protocol.Marshal(protocol.TypeSubscribe, id, protocol.Subscribe{Channel: ch})
	if err != nil {
		return protocol.Snapshot{}, err
	}
	if err := l.conn.Write(ctx, b); err != nil {
		return protocol.Snapshot{}, fmt.Errorf("harness: subscribe %s: %w", ch, err)
	}
	idField := []byte(`"id":"` + id + `"`)
	for {
		raw, err := l.ReadRaw(ctx)
		if err != nil {
			return protocol.Snapshot{}, fmt.Errorf("harness: subscribe %s: %w", ch, err)
		}
		if !bytes.Contains(raw[:min(len(raw), 96)], idField) {
			// Another channel's push (a whole board, on a socket that
			// subscribed to its contest first): not decoded.
			continue
		}
		env, err := protocol.Decode(protocol.LinkLive, raw)
		if err != nil || env.ID != id {
			continue
		}
		switch env.Type {
		case protocol.TypeSnapshot:
			return protocol.DecodeData[protocol.Snapshot](env)
		case protocol.TypeError:
			e, _ := protocol.DecodeData[protocol.Error](env)
			return protocol.Snapshot{}, fmt.Errorf("%w: %s: %s %s", ErrRefused, ch, e.Code, e.Message)
		}
	}
}

// SubscribeUnread subscribes to ch and waits for the hub's answer without
// decoding its state: a load generator's browser that never looks at the
// board (thousands of them, each answered with the whole board of a big
// contest, cost the generator more CPU than the stack it loads). The
// answer is told by its envelope's head (type, then id: the hub's
// encoding); an error answer is decoded and returned as Subscribe does.
func (l *Live) SubscribeUnread(ctx context.Context, ch protocol.Channel) error {
	l.next++
	id := "s" + strconv.Itoa(l.next)
	b, err := protocol.Marshal(protocol.TypeSubscribe, id, protocol.Subscribe{Channel: ch})
	if err != nil {
		return err
	}
	if err := l.conn.Write(ctx, b); err != nil {
		return fmt.Errorf("harness: subscribe %s: %w", ch, err)
	}
	snapHead := snapshotHead(id)
	idField := []byte(`"id":"` + id + `"`)
	for {
		raw, err := l.ReadRaw(ctx)
		if err != nil {
			return fmt.Errorf("harness: subscribe %s: %w", ch, err)
		}
		if bytes.HasPrefix(raw, snapHead) {
			return nil
		}
		if !bytes.Contains(raw[:min(len(raw), 96)], idField) {
			continue // another channel's event
		}
		env, err := protocol.Decode(protocol.LinkLive, raw)
		if err != nil || env.ID != id {
			continue
		}
		switch env.Type {
		case protocol.TypeSnapshot:
			return nil
		case protocol.TypeError:
			e, _ := protocol.DecodeData[protocol.Error](env)
			return fmt.Errorf("%w: %s: %s %s", ErrRefused, ch, e.Code, e.Message)
		}
	}
}

// snapshotHead is how the hub's snapshot answer to subscribe id begins.
func snapshotHead(id string) []byte {
	return []byte(`{"v":` + strconv.Itoa(protocol.Version) + `,"type":"snapshot","id":"` + id + `",`)
}

// ReadOrSkip returns the next message as received, or reads past it
// without keeping it when skip says so of its first head bytes
// (wsconn.Conn.ReadOrSkip).
func (l *Live) ReadOrSkip(ctx context.Context, head int, skip func([]byte) bool) ([]byte, bool, error) {
	return l.conn.ReadOrSkip(ctx, head, skip)
}

// ReadRaw returns the next message as received.
func (l *Live) ReadRaw(ctx context.Context) ([]byte, error) { return l.conn.ReadRaw(ctx) }

// Read returns the next message, decoded.
func (l *Live) Read(ctx context.Context) (protocol.Envelope, error) {
	b, err := l.ReadRaw(ctx)
	if err != nil {
		return protocol.Envelope{}, err
	}
	return protocol.Decode(protocol.LinkLive, b)
}

// Close closes the socket at once (no close handshake).
func (l *Live) Close() error {
	l.conn.CloseNow()
	l.conn.Wait()
	return nil
}

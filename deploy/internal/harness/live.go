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
//
// Messages that arrive while Subscribe waits for its answer (the pushes of
// a channel subscribed before, as the frontend's socket gets them too) are
// held, in order, and the next reads return them first: a browser that
// dropped them would miss a push it never sees again (under a loaded hub
// the wait between two subscribe answers can outlast a board's last push,
// the unfreeze's).
type Live struct {
	conn *wsconn.Conn
	next int
	held []heldMsg
	// skipHead and skip, when set (SkipHeld), say which messages read
	// while waiting for an answer are held only as skipped.
	skipHead int
	skip     func(head []byte) bool
}

// heldMsg is one message read while a subscribe waited for its answer:
// as received, or only its place when it was skipped.
type heldMsg struct {
	raw     []byte
	skipped bool
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
// for it; the messages before it are held for the next reads. Call it
// before any concurrent read.
func (l *Live) Subscribe(ctx context.Context, ch protocol.Channel) (protocol.Snapshot, error) {
	id, err := l.sendSubscribe(ctx, ch)
	if err != nil {
		return protocol.Snapshot{}, err
	}
	env, err := l.awaitAnswer(ctx, ch, id, nil)
	if err != nil {
		return protocol.Snapshot{}, err
	}
	return protocol.DecodeData[protocol.Snapshot](env)
}

// SubscribeUnread subscribes to ch and waits for the hub's answer without
// decoding its state: a load generator's browser that never looks at the
// board (thousands of them, each answered with the whole board of a big
// contest, cost the generator more CPU than the stack it loads). The
// answer is told by its envelope's head (type, then id: the hub's
// encoding); an error answer is decoded and returned as Subscribe does.
func (l *Live) SubscribeUnread(ctx context.Context, ch protocol.Channel) error {
	id, err := l.sendSubscribe(ctx, ch)
	if err != nil {
		return err
	}
	_, err = l.awaitAnswer(ctx, ch, id, snapshotHead(id))
	return err
}

// SkipHeld says which messages read while Subscribe waits for its answer
// are held only as skipped (ReadOrSkip returns them as skipped; ReadRaw
// and Read pass over them), told by their first head bytes: a browser
// that never looks at the board need not hold boards in memory.
func (l *Live) SkipHeld(head int, skip func(head []byte) bool) { l.skipHead, l.skip = head, skip }

func (l *Live) sendSubscribe(ctx context.Context, ch protocol.Channel) (string, error) {
	l.next++
	id := "s" + strconv.Itoa(l.next)
	b, err := protocol.Marshal(protocol.TypeSubscribe, id, protocol.Subscribe{Channel: ch})
	if err != nil {
		return "", err
	}
	if err := l.conn.Write(ctx, b); err != nil {
		return "", fmt.Errorf("harness: subscribe %s: %w", ch, err)
	}
	return id, nil
}

// awaitAnswer reads until the hub's answer to subscribe id, holding every
// other message for the next reads. A snapshot answer is returned (not
// decoded when it begins with unread: its envelope then holds only the
// type); an error answer is returned as an error wrapping ErrRefused.
func (l *Live) awaitAnswer(ctx context.Context, ch protocol.Channel, id string, unread []byte) (protocol.Envelope, error) {
	idField := []byte(`"id":"` + id + `"`)
	answer := func(head []byte) bool { return bytes.Contains(head[:min(len(head), 96)], idField) }
	for {
		var raw []byte
		var skipped bool
		var err error
		if l.skip != nil {
			raw, skipped, err = l.conn.ReadOrSkip(ctx, max(l.skipHead, 96), func(head []byte) bool {
				return !answer(head) && l.skip(head)
			})
		} else {
			raw, err = l.conn.ReadRaw(ctx)
		}
		if err != nil {
			return protocol.Envelope{}, fmt.Errorf("harness: subscribe %s: %w", ch, err)
		}
		if skipped {
			l.held = append(l.held, heldMsg{skipped: true})
			continue
		}
		if unread != nil && bytes.HasPrefix(raw, unread) {
			return protocol.Envelope{Type: protocol.TypeSnapshot, ID: id}, nil
		}
		if !answer(raw) {
			l.held = append(l.held, heldMsg{raw: raw}) // another channel's message
			continue
		}
		env, err := protocol.Decode(protocol.LinkLive, raw)
		if err != nil || env.ID != id {
			l.held = append(l.held, heldMsg{raw: raw})
			continue
		}
		switch env.Type {
		case protocol.TypeSnapshot:
			return env, nil
		case protocol.TypeError:
			e, _ := protocol.DecodeData[protocol.Error](env)
			return protocol.Envelope{}, fmt.Errorf("%w: %s: %s %s", ErrRefused, ch, e.Code, e.Message)
		}
		l.held = append(l.held, heldMsg{raw: raw})
	}
}

// snapshotHead is how the hub's snapshot answer to subscribe id begins.
func snapshotHead(id string) []byte {
	return []byte(`{"v":` + strconv.Itoa(protocol.Version) + `,"type":"snapshot","id":"` + id + `",`)
}

// ReadOrSkip returns the next message as received, or reads past it
// without keeping it when skip says so of its first head bytes
// (wsconn.Conn.ReadOrSkip). Held messages come first.
func (l *Live) ReadOrSkip(ctx context.Context, head int, skip func([]byte) bool) ([]byte, bool, error) {
	if len(l.held) > 0 {
		m := l.popHeld()
		if m.skipped || skip(m.raw[:min(len(m.raw), head)]) {
			return nil, true, nil
		}
		return m.raw, false, nil
	}
	return l.conn.ReadOrSkip(ctx, head, skip)
}

// ReadRaw returns the next message as received, held messages first (those
// held as skipped are passed over).
func (l *Live) ReadRaw(ctx context.Context) ([]byte, error) {
	for len(l.held) > 0 {
		if m := l.popHeld(); !m.skipped {
			return m.raw, nil
		}
	}
	return l.conn.ReadRaw(ctx)
}

func (l *Live) popHeld() heldMsg {
	m := l.held[0]
	l.held[0] = heldMsg{}
	l.held = l.held[1:]
	if len(l.held) == 0 {
		l.held = nil
	}
	return m
}

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

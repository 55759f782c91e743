package wsconn

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// recConn records each write (a net.Conn without writev: net.Buffers
// writes it buffer by buffer).
type recConn struct {
	net.Conn
	writes   []string
	deadline []time.Time
	fail     bool
}

func (c *recConn) Write(p []byte) (int, error) {
	if c.fail {
		return 0, errors.New("broken pipe")
	}
	c.writes = append(c.writes, string(p))
	return len(p), nil
}

func (c *recConn) SetWriteDeadline(t time.Time) error {
	c.deadline = append(c.deadline, t)
	return nil
}

func TestGatherer(t *testing.T) {
	big := strings.Repeat("b", WriteBuffer)
	dl := time.Unix(100, 0)
	type op struct {
		begin, end bool
		failed     bool   // end: the message failed
		write      string // written by the library
	}
	w := func(s string) op { return op{write: s} }
	for _, tc := range []struct {
		name string
		ops  []op
		want []string // the conn's writes
		held bool     // a buffer still borrowed at the end
	}{
		{"outside a message: through", []op{w("pong")}, []string{"pong"}, false},
		{"a message: one write at its end", []op{{begin: true}, w("hd"), w("payload"), {end: true}}, []string{"hdpayload"}, false},
		{"a pong during a message goes after it", []op{{begin: true}, w("hd"), w("pay"), w("pong"), {end: true}, w("later")},
			[]string{"hdpaypong", "later"}, false},
		{"too big to hold: the head and the rest", []op{{begin: true}, w("hd"), w(big), w("tail"), {end: true}},
			[]string{"hd", big, "tail"}, false},
		{"a failed message is dropped", []op{{begin: true}, w("hd"), {end: true, failed: true}, w("close")},
			[]string{"close"}, false},
		{"two messages under way: each end writes, the buffer kept until the last",
			[]op{{begin: true}, {begin: true}, w("one"), {end: true}, w("two")}, []string{"one"}, true},
		{"an empty message writes nothing", []op{{begin: true}, {end: true}}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &recConn{}
			g := &gatherer{conn: c}
			for _, o := range tc.ops {
				switch {
				case o.begin:
					g.begin()
				case o.end:
					if err := g.end(dl, o.failed); err != nil {
						t.Fatal(err)
					}
				default:
					if n, err := g.Write([]byte(o.write)); n != len(o.write) || err != nil {
						t.Fatalf("Write(%d bytes) = %d, %v", len(o.write), n, err)
					}
				}
			}
			if strings.Join(c.writes, "|") != strings.Join(tc.want, "|") {
				t.Errorf("writes %q, want %q", short(c.writes), short(tc.want))
			}
			if (g.buf != nil) != tc.held {
				t.Errorf("buffer borrowed: %v, want %v", g.buf != nil, tc.held)
			}
		})
	}
	// end's write is bounded by the message's deadline, cleared after.
	c := &recConn{}
	g := &gatherer{conn: c}
	g.begin()
	_, _ = g.Write([]byte("x"))
	_ = g.end(dl, false)
	if len(c.deadline) != 2 || !c.deadline[0].Equal(dl) || !c.deadline[1].IsZero() {
		t.Errorf("deadlines %v, want %v then none", c.deadline, dl)
	}
	// A failed write is the message's error; the buffer goes back.
	c.fail = true
	g.begin()
	_, _ = g.Write([]byte("x"))
	if err := g.end(time.Time{}, false); err == nil || g.buf != nil {
		t.Errorf("end on a broken conn: %v (buffer kept: %v)", err, g.buf != nil)
	}
	// A nil gatherer (a dialled connection) does nothing.
	var none *gatherer
	none.begin()
	if err := none.end(dl, false); err != nil {
		t.Error(err)
	}
}

// short shows long writes by their length.
func short(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		if len(w) > 12 {
			w = fmt.Sprintf("%.4s…(%d bytes)", w, len(w))
		}
		out[i] = w
	}
	return out
}

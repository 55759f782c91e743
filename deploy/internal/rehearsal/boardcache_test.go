package rehearsal

import (
	"encoding/json"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// TestBoardCache: a board push is decoded once for every browser that
// gets the same bytes; snapshots replace, scoreboard events merge, other
// contest events carry no board; old pushes are forgotten.
func TestBoardCache(t *testing.T) {
	contest := protocol.Channel{Kind: protocol.ChannelContest, ID: 7}
	frame := func(typ protocol.Type, v any) []byte {
		t.Helper()
		b, err := protocol.Marshal(typ, "", v)
		if err != nil {
			t.Fatal(err)
		}
		if !boardFrame(b) {
			t.Fatalf("boardFrame misses %s", b[:min(len(b), boardHead)])
		}
		return b
	}
	doc := func(users ...int64) json.RawMessage {
		d := boardDoc{Full: true}
		for _, u := range users {
			d.Rows = append(d.Rows, row{UserID: u, Problems: map[string]cell{}})
		}
		b, _ := json.Marshal(d)
		return b
	}
	snap := frame(protocol.TypeSnapshot, protocol.Snapshot{Channel: contest, Seq: 1, State: doc(1, 2)})
	ev := frame(protocol.TypeEvent, protocol.Event{Channel: contest, Seq: 2, Kind: protocol.EventScoreboard, Body: doc(3)})
	other := frame(protocol.TypeEvent, protocol.Event{Channel: contest, Seq: 3, Kind: protocol.EventClarification, Body: json.RawMessage(`{"x":1}`)})

	c := newBoardCache()
	a, err := c.decode(snap)
	if err != nil || !a.board || !a.replace || len(a.doc.Rows) != 2 {
		t.Fatalf("snapshot: %+v %v", a, err)
	}
	if b, _ := c.decode(append([]byte(nil), snap...)); b != a {
		t.Fatal("the same bytes decoded twice")
	}
	e, err := c.decode(ev)
	if err != nil || !e.board || e.replace || len(e.doc.Rows) != 1 || e.doc.Rows[0].UserID != 3 {
		t.Fatalf("scoreboard event: %+v %v", e, err)
	}
	if o, err := c.decode(other); err != nil || o.board {
		t.Fatalf("another contest event: %+v %v", o, err)
	}
	if _, err := c.decode([]byte(`{"v":1,"type":"snapshot","channel":{"kind":"contest"`)); err == nil {
		t.Fatal("a broken frame decoded")
	}
	for i := range boardCacheSize {
		_, _ = c.decode(frame(protocol.TypeSnapshot, protocol.Snapshot{Channel: contest, Seq: uint64(10 + i), State: doc(1)}))
	}
	if b, _ := c.decode(snap); b == a {
		t.Fatal("an old push is still kept")
	}
}

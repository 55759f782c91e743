package hub

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/verdict-oj/verdict/internal/boarddoc"
	"github.com/verdict-oj/verdict/internal/protocol"
)

// board is a contest topic's last scoreboard, as this hub pushed it. Its
// sequence numbers are the hub's own (one per snapshot or delta it
// pushes), so a browser sees contiguous events however many of the web
// nodes' publishes a push coalesced; a browser that moves to another hub
// takes that hub's snapshot whatever its number (the subscribe answer).
//
// A push sends only the rows that changed (boarddoc.Delta) as a scoreboard
// event instead of the whole board: at 3,000 contestants the board is
// hundreds of kilobytes and every browser of the contest gets every push.
// The board is kept as boarddoc.ParseRaw read it (its rows' bytes), not
// decoded: the delta compares the bytes.
type board struct {
	ok       bool
	seq      uint64 // hub-local
	redisSeq uint64 // the web nodes' sequence of the state it holds
	raw      json.RawMessage
	compact  bool // raw is protocol.CompactJSON: checked once, not per subscriber
	doc      boarddoc.Raw
}

// contestSnapshot answers a subscribe to a contest channel from the
// topic's board, reading it from Redis only when the topic has none yet.
// compact says the board is protocol.CompactJSON (so the caller may use
// protocol.MarshalCompactSnapshot).
func (h *Hub) contestSnapshot(ctx context.Context, ch protocol.Channel) (seq uint64, raw json.RawMessage, compact bool, err error) {
	h.mu.Lock()
	t := h.topics[h.n.Events(string(ch.Kind), ch.ID)]
	h.mu.Unlock()
	if t != nil {
		t.mu.Lock()
		b := t.board
		t.mu.Unlock()
		if b.ok {
			return b.seq, b.raw, b.compact, nil
		}
	}
	rseq, state, err := h.q.Doc(ctx, ch)
	if err != nil {
		return 0, nil, false, err
	}
	if state == nil {
		state = json.RawMessage(`{}`)
	}
	if t == nil {
		return 1, state, false, nil
	}
	doc, err := boarddoc.ParseRaw(state)
	if err != nil {
		return 0, nil, false, fmt.Errorf("hub: scoreboard of %s: %w", ch, err)
	}
	compact = protocol.CompactJSON(state)
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.board.ok { // a push may have filled it meanwhile
		t.board = board{ok: true, seq: 1, redisSeq: rseq, raw: state, compact: compact, doc: doc}
	}
	return t.board.seq, t.board.raw, t.board.compact, nil
}

// nextBoard takes the web nodes' latest state (sequence rseq) and returns
// the message to push to every subscriber with its hub sequence number:
// nothing (push false) when the state is the one already pushed, a delta
// event when rows changed, came or left, the whole board as a snapshot
// otherwise (the first push, a new rule).
// Called with t.mu held.
func (t *topic) nextBoard(rseq uint64, state json.RawMessage) (msg []byte, seq uint64, push bool, err error) {
	if t.board.ok && rseq == t.board.redisSeq {
		return nil, 0, false, nil
	}
	doc, err := boarddoc.ParseRaw(state)
	if err != nil {
		return nil, 0, false, fmt.Errorf("hub: scoreboard of %s: %w", t.ch, err)
	}
	prev := t.board
	seq = prev.seq + 1
	var delta boarddoc.RawDelta
	ok := false
	if prev.ok {
		delta, ok = boarddoc.Delta(prev.doc, doc)
	}
	switch {
	case ok && !delta.Changed(prev.doc):
		// Only the web nodes' sequence moved (e.g. a publish of the same
		// board): nothing to tell the browsers.
		t.board.redisSeq = rseq
		return nil, 0, false, nil
	case ok:
		body, err := json.Marshal(delta)
		if err != nil {
			return nil, 0, false, fmt.Errorf("hub: scoreboard delta of %s: %w", t.ch, err)
		}
		ev, err := json.Marshal(protocol.Event{Channel: t.ch, Seq: seq, Kind: protocol.EventScoreboard, Body: body})
		if err != nil {
			return nil, 0, false, fmt.Errorf("hub: scoreboard delta of %s: %w", t.ch, err)
		}
		msg, err = protocol.Encode(protocol.LinkLive, protocol.Envelope{V: protocol.Version, Type: protocol.TypeEvent, Data: ev})
		if err != nil {
			return nil, 0, false, err
		}
		t.h.m.boardPushes.WithLabelValues("delta").Inc()
		if len(delta.Left) > 0 {
			t.h.log.Info("scoreboard delta: contestants left the board", "channel", t.key,
				"left", delta.Left[:min(len(delta.Left), 3)], "count", len(delta.Left), "rows", len(doc.Rows))
		}
	default:
		msg, err = protocol.MarshalSnapshot("", t.ch, seq, state)
		if err != nil {
			return nil, 0, false, err
		}
		t.h.m.boardPushes.WithLabelValues("full").Inc()
		reason := "first"
		if prev.ok {
			reason = "rule"
		}
		t.h.m.fullPushes.WithLabelValues(reason).Inc()
	}
	t.board = board{ok: true, seq: seq, redisSeq: rseq, raw: state, compact: protocol.CompactJSON(state), doc: doc}
	return msg, seq, true, nil
}

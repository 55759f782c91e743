package rehearsal

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/harness"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/wsconn"
)

// cell is one problem of a scoreboard row as the browser shows it.
type cell struct {
	Solved   bool `json:"solved,omitempty"`
	Attempts int  `json:"attempts"`
	Pending  int  `json:"pending,omitempty"`
}

// row is one contestant of the scoreboard document the web nodes publish
// (frontend/src/scoreboard.ts reads the same document).
type row struct {
	UserID   int64           `json:"user_id"`
	User     string          `json:"user"`
	Solved   int             `json:"solved"`
	Penalty  int             `json:"penalty"`
	Problems map[string]cell `json:"problems"`
}

type boardDoc struct {
	Frozen bool     `json:"frozen"`
	Full   bool     `json:"full"`
	Rows   []row    `json:"rows"`
	Left   []string `json:"left"` // a delta's users who left the board
}

// cellKey names a scoreboard cell.
type cellKey struct {
	user  int64
	label string
}

// browser is one contestant's open page: a live WebSocket subscribed to the
// contest's scoreboard and the contestant's own submissions, read by its
// own goroutine. As the frontend's live client does, it reconnects (and
// resubscribes, getting fresh snapshots) when the socket drops, and keeps
// trying when an open fails (connect), until the page is left (shutdown).
type browser struct {
	r      *run
	c      *harness.Client
	keep   bool // keep a board (checked at the end)
	sample bool // measure staleness on it

	ctx  context.Context // ends with shutdown: stops the retries
	quit context.CancelFunc

	mu       sync.Mutex
	board    map[int64]row
	frozen   bool            // the board shown is frozen
	seen     map[cellKey]int // result sequence last measured, per cell
	live     *harness.Live
	cancel   context.CancelFunc
	done     chan struct{}
	frames   int
	retrying bool // a connect goroutine is trying
	shut     bool // shutdown: no socket is opened any more
	opens    int  // sockets opened
	lastOpen time.Time
	// The user channel as the socket brought it: its last event (seq,
	// when), and the unasked snapshots (a hub's resync) and the last.
	userSeq     uint64
	userEventAt time.Time
	resyncs     int
	resyncAt    time.Time
}

func newBrowser(r *run, c *harness.Client, keep, sample bool) *browser {
	b := &browser{r: r, c: c, keep: keep, sample: sample, seen: map[cellKey]int{}}
	b.ctx, b.quit = context.WithCancel(r.ctx)
	return b
}

// Backoff of a browser whose socket would not open: from reconnectFirst,
// doubling up to reconnectMax. The frontend's live client backs off from
// 0.5 s to 30 s with jitter (DEFAULT_BACKOFF in frontend/src/live); the
// harness stops at 5 s so that a browser is back well within the check's
// wait for the boards to converge (boardConverge).
const (
	reconnectFirst = time.Second
	reconnectMax   = 5 * time.Second
)

// connect opens the socket (at once when first is 0, else after first);
// when that fails it goes on trying in the background, backing off, until an open works (its own or another's: a page reload) or the
// browser is shut down. A failed open is counted each time.
func (b *browser) connect(ctx context.Context, first time.Duration) {
	if first == 0 && b.open(ctx) == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.retrying || b.shut {
		return
	}
	b.retrying = true
	// Under mu, so that shutdown (which sets shut under mu) comes before
	// or after: run waits for r.sockets once every browser is shut.
	b.r.sockets.Go(func() {
		defer func() {
			b.mu.Lock()
			b.retrying = false
			b.mu.Unlock()
		}()
		for wait := cmp.Or(first, reconnectFirst); ; wait = min(2*wait, reconnectMax) {
			if !sleepFor(b.ctx, wait) {
				return
			}
			b.mu.Lock()
			up := b.live != nil
			b.mu.Unlock()
			if up || b.open(b.ctx) == nil {
				return
			}
		}
	})
}

// shutdown is leaving the page: the socket closes and no retry opens it
// again.
func (b *browser) shutdown() {
	b.mu.Lock()
	b.shut = true
	b.mu.Unlock()
	b.quit()
	b.close()
}

// socketState says, for a board that differs at the check, whether the
// browser's socket was up and when it last opened.
func (b *browser) socketState() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	up := "up"
	if b.live == nil {
		up = "down"
	}
	at := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return b.r.contestTime(t)
	}
	return fmt.Sprintf("socket %s, opened %d times, last at contest time %s; its user channel's last status event seq %d at %s; %d unasked user snapshots, the last at %s",
		up, b.opens, at(b.lastOpen), b.userSeq, at(b.userEventAt), b.resyncs, at(b.resyncAt))
}

// open dials and subscribes; the reader runs until close.
func (b *browser) open(ctx context.Context) error {
	due := time.Now()
	var board json.RawMessage // the contest's snapshot, when this browser keeps a board
	l, err := b.c.DialLive(ctx)
	if err != nil {
		b.r.m.fail(Failure{Class: ClassSocket, What: "dial /ws", Code: short(err)}, time.Now())
		return err
	}
	if !b.keep && !b.sample {
		// The pushes that come while a subscribe waits for its answer
		// are held for read; the boards of a board never read, only
		// counted.
		l.SkipHeld(boardHead, boardFrame)
	}
	for _, ch := range []protocol.Channel{
		{Kind: protocol.ChannelContest, ID: b.r.contestID},
		{Kind: protocol.ChannelUser, ID: b.c.User().ID},
	} {
		if ch.Kind == protocol.ChannelContest && !b.keep && !b.sample {
			// A board this browser does not check (read below).
			if err := l.SubscribeUnread(ctx, ch); err != nil {
				l.Close()
				b.r.m.fail(Failure{Class: ClassSocket, What: "subscribe " + string(ch.Kind), Code: short(err)}, time.Now())
				return err
			}
			continue
		}
		snap, err := l.Subscribe(ctx, ch)
		if err != nil {
			l.Close()
			b.r.m.fail(Failure{Class: ClassSocket, What: "subscribe " + string(ch.Kind), Code: short(err)}, time.Now())
			return err
		}
		if ch.Kind == protocol.ChannelContest {
			board = snap.State // applied below, if this socket is the one kept
		}
		if ch.Kind == protocol.ChannelUser {
			// After a reconnect, the verdicts missed while the socket
			// was down, as the submissions page takes them.
			b.userSnapshot(snap.State, time.Now())
		}
	}
	b.r.m.ok(ClassSocket, due, due)
	rctx, cancel := context.WithCancel(context.Background())
	b.mu.Lock()
	if b.shut || b.live != nil {
		// Left meanwhile, or another open (a reload, a retry) won: its
		// snapshot and the pushes since are the board; this socket's
		// snapshot, older perhaps, must not replace them.
		b.mu.Unlock()
		cancel()
		l.Close()
		return nil
	}
	if board != nil {
		var d boardDoc
		if err := json.Unmarshal(board, &d); err != nil {
			b.r.m.fail(Failure{Class: ClassSocket, What: "scoreboard", Code: "undecodable"}, time.Now())
		} else {
			b.applyLocked(&d, true, false, time.Now())
		}
	}
	b.live, b.cancel, b.done = l, cancel, make(chan struct{})
	b.opens++
	b.lastOpen = time.Now()
	done := b.done
	b.mu.Unlock()
	go func() {
		defer close(done)
		b.read(rctx, l)
	}()
	return nil
}

// userSnapshot takes the final verdicts of a user channel's snapshot, as
// the submissions page does.
func (b *browser) userSnapshot(state json.RawMessage, now time.Time) {
	var st protocol.UserState
	if err := json.Unmarshal(state, &st); err != nil {
		b.r.m.fail(Failure{Class: ClassSocket, What: "snapshot user", Code: "undecodable"}, now)
		return
	}
	for _, it := range st.Items {
		if it.Status.Final() {
			b.r.verdicts.Done(it.SubmissionID, harness.Final{At: now, Verdict: it.Status})
		} else {
			b.r.verdicts.Saw(it.SubmissionID, harness.Final{At: now, Verdict: it.Status})
		}
	}
}

// close stops the reader and closes the socket.
func (b *browser) close() {
	b.mu.Lock()
	l, cancel, done := b.live, b.cancel, b.done
	b.live = nil
	b.mu.Unlock()
	if l == nil {
		return
	}
	cancel()
	l.Close()
	<-done
}

// reopen is a page reload: close, then connect again.
func (b *browser) reopen(ctx context.Context) {
	b.close()
	b.connect(ctx, 0)
}

func (b *browser) read(ctx context.Context, l *harness.Live) {
	// A board this browser does not check: a browser renders it, the
	// load generator need not even keep it (thousands of sockets get
	// every push; reading and decoding them all starved the stack it
	// loads of CPU).
	unchecked := func(head []byte) bool { return !b.keep && !b.sample && boardFrame(head) }
	for {
		raw, skipped, err := l.ReadOrSkip(ctx, boardHead, unchecked)
		if skipped {
			b.mu.Lock()
			b.frames++
			b.mu.Unlock()
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			// The socket dropped under us: the frontend reconnects with
			// backoff and resubscribes. A 1001 going away is the server
			// telling it to (an nginx reload, a hub drain): not a failure,
			// as long as the reopen works (a failed one is counted).
			if code, _, _ := wsconn.CloseStatus(err); code == protocol.CloseGoingAway {
				b.r.goingAway.Add(1)
			} else {
				b.r.m.fail(Failure{Class: ClassSocket, What: "read", Code: short(err)}, time.Now())
			}
			b.mu.Lock()
			same := b.live == l
			if same {
				b.live = nil
				b.cancel()
			}
			b.mu.Unlock()
			if same {
				l.Close()
				b.connect(b.ctx, 500*time.Millisecond)
			}
			return
		}
		now := time.Now()
		if boardFrame(raw) {
			// Every checking browser gets the same pushes: decoded once.
			d, err := b.r.boards.decode(raw)
			if err != nil {
				b.r.m.fail(Failure{Class: ClassSocket, What: "scoreboard", Code: "undecodable"}, now)
				continue
			}
			b.mu.Lock()
			b.frames++
			b.mu.Unlock()
			if d.board {
				b.applyDoc(&d.doc, d.replace, true, now)
			}
			continue
		}
		env, err := protocol.Decode(protocol.LinkLive, raw)
		if err != nil {
			b.r.m.fail(Failure{Class: ClassSocket, What: "frame", Code: "undecodable"}, now)
			continue
		}
		b.mu.Lock()
		b.frames++
		b.mu.Unlock()
		switch env.Type {
		case protocol.TypeSnapshot:
			// The hub pushes a contest's board as a fresh snapshot,
			// coalesced, whenever it changes.
			snap, err := protocol.DecodeData[protocol.Snapshot](env)
			if err != nil {
				b.r.m.fail(Failure{Class: ClassSocket, What: "snapshot", Code: "undecodable"}, now)
				continue
			}
			switch snap.Channel.Kind {
			case protocol.ChannelContest:
				b.apply(snap.State, true, true, now)
			case protocol.ChannelUser:
				// Unasked: the hub's pub/sub lost events (a Redis
				// restart), and this is the whole list again.
				b.mu.Lock()
				b.resyncs++
				b.resyncAt = now
				b.mu.Unlock()
				b.userSnapshot(snap.State, now)
			}
		case protocol.TypeError:
			e, _ := protocol.DecodeData[protocol.Error](env)
			b.r.m.fail(Failure{Class: ClassSocket, What: "frame", Code: string(e.Code)}, now)
		case protocol.TypeEvent:
			ev, err := protocol.DecodeData[protocol.Event](env)
			if err != nil {
				b.r.m.fail(Failure{Class: ClassSocket, What: "event", Code: "undecodable"}, now)
				continue
			}
			switch {
			case ev.Channel.Kind == protocol.ChannelUser && ev.Kind == protocol.EventStatus:
				b.mu.Lock()
				b.userSeq, b.userEventAt = ev.Seq, now
				b.mu.Unlock()
				var st protocol.SubmissionState
				if json.Unmarshal(ev.Body, &st) == nil {
					f := harness.Final{At: now, Verdict: st.Status}
					if st.Status.Final() {
						b.r.verdicts.Done(st.SubmissionID, f)
					} else {
						b.r.verdicts.Saw(st.SubmissionID, f)
					}
				}
			case ev.Channel.Kind == protocol.ChannelContest && ev.Kind == protocol.EventScoreboard:
				b.apply(ev.Body, false, true, now)
			}
		}
	}
}

// boardFrame reports, from the head of the frame only, whether it is a
// scoreboard push of a contest channel (a snapshot or an event): the hub
// encodes the envelope's type and the channel first.
func boardFrame(raw []byte) bool {
	head := raw[:min(len(raw), boardHead)]
	return bytes.Contains(head, []byte(`"kind":"contest"`)) &&
		(bytes.Contains(head, []byte(`"type":"event"`)) || bytes.Contains(head, []byte(`"type":"snapshot"`)))
}

// apply merges a scoreboard document into the board (replace: it is the
// whole board), measuring how long each judged result took to show when
// measure is set (not for the snapshot that answers a subscribe).
//
// A result shows when its cell changes: a cell equal to what the browser
// showed before has not taken it yet (or the result changes nothing
// visible — a compile error, which ICPC does not count, whose pending
// state was never shown); it is measured when the cell next changes,
// from the latest result. A frozen board still shows the results of
// before the freeze (later ones are not measured, nor is the unfreeze
// that shows them).
func (b *browser) apply(raw json.RawMessage, replace, measure bool, now time.Time) {
	if !b.keep && !b.sample {
		return
	}
	var d boardDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		b.r.m.fail(Failure{Class: ClassSocket, What: "scoreboard", Code: "undecodable"}, now)
		return
	}
	b.applyDoc(&d, replace, measure, now)
}

// applyDoc is apply of a decoded document, which it does not change (the
// browsers share one decoded copy of each push).
func (b *browser) applyDoc(d *boardDoc, replace, measure bool, now time.Time) {
	if !b.keep && !b.sample {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.applyLocked(d, replace, measure, now)
}

// applyLocked is applyDoc with b.mu held.
func (b *browser) applyLocked(d *boardDoc, replace, measure bool, now time.Time) {
	if !b.keep && !b.sample {
		return
	}
	if b.frozen && !d.Frozen {
		// The unfreeze shows at once every result of the freeze, which
		// are not measured; a cell it changes is marked seen without a
		// measure. Measured, a cell whose latest result before the
		// freeze changed nothing visible (a compile error) counted from
		// that result to the unfreeze: the 1,658 s maximum of the
		// 2026-12-05 14:14 run, 348 s at 08:10.
		measure = false
	}
	b.frozen = d.Frozen
	old := b.board
	if replace || d.Full || b.board == nil {
		b.board = map[int64]row{}
	}
	if len(d.Left) > 0 {
		gone := make(map[string]bool, len(d.Left))
		for _, u := range d.Left {
			gone[u] = true
		}
		for id, rw := range b.board {
			if gone[rw.User] {
				delete(b.board, id)
			}
		}
	}
	for _, rw := range d.Rows {
		prev, had := old[rw.UserID]
		b.board[rw.UserID] = rw
		if !b.sample {
			continue
		}
		for label, c := range rw.Problems {
			if c.Pending != 0 {
				continue
			}
			k := cellKey{rw.UserID, label}
			seq, t0 := b.r.stale.latest(k)
			if seq <= b.seen[k] {
				continue
			}
			if pc, ok := prev.Problems[label]; had && ok && pc == c {
				continue
			}
			b.seen[k] = seq
			if measure && !t0.IsZero() { // zero: a rejudge's, unmeasured
				b.r.staleness.Add(now.Sub(t0))
			}
		}
	}
}

// boardHead is how much of a frame tells a board push (boardFrame).
const boardHead = 96

// boardCache decodes each board push once for all the browsers that check
// it (every one of them gets the same bytes): a few recent pushes, by a
// hash of their bytes.
type boardCache struct {
	mu   sync.Mutex
	seed maphash.Seed
	keys []uint64 // oldest first
	m    map[uint64]*decodedBoard
}

type decodedBoard struct {
	once sync.Once
	// board: the frame carries a board of the contest channel, whole
	// (replace: a snapshot) or changed rows (a scoreboard event).
	board, replace bool
	doc            boardDoc
	err            error
}

const boardCacheSize = 8

func newBoardCache() *boardCache {
	return &boardCache{seed: maphash.MakeSeed(), m: map[uint64]*decodedBoard{}}
}

// decode decodes a frame boardFrame took for a board push, once for every
// browser that gets the same bytes. The result may not be changed.
func (c *boardCache) decode(raw []byte) (*decodedBoard, error) {
	k := maphash.Bytes(c.seed, raw)
	c.mu.Lock()
	d, ok := c.m[k]
	if !ok {
		d = &decodedBoard{}
		c.m[k] = d
		c.keys = append(c.keys, k)
		if len(c.keys) > boardCacheSize {
			delete(c.m, c.keys[0])
			c.keys = c.keys[1:]
		}
	}
	c.mu.Unlock()
	d.once.Do(func() { d.err = d.decode(raw) })
	return d, d.err
}

func (d *decodedBoard) decode(raw []byte) error {
	env, err := protocol.Decode(protocol.LinkLive, raw)
	if err != nil {
		return err
	}
	var body json.RawMessage
	switch env.Type {
	case protocol.TypeSnapshot:
		// The hub pushes a contest's board as a fresh snapshot,
		// coalesced, whenever it changes.
		snap, err := protocol.DecodeData[protocol.Snapshot](env)
		if err != nil {
			return err
		}
		d.board, d.replace, body = snap.Channel.Kind == protocol.ChannelContest, true, snap.State
	case protocol.TypeEvent:
		ev, err := protocol.DecodeData[protocol.Event](env)
		if err != nil {
			return err
		}
		d.board, body = ev.Channel.Kind == protocol.ChannelContest && ev.Kind == protocol.EventScoreboard, ev.Body
	}
	if !d.board {
		return nil
	}
	return json.Unmarshal(body, &d.doc)
}

// snapshotBoard copies the board.
func (b *browser) snapshotBoard() map[int64]row {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[int64]row, len(b.board))
	for k, v := range b.board {
		out[k] = v
	}
	return out
}

// results remembers, per scoreboard cell, the latest judged result a
// browser should show (a sequence number and when the judge sent it).
type results struct {
	mu sync.Mutex
	m  map[cellKey]mark
}

type mark struct {
	seq int
	at  time.Time
}

func (r *results) add(k cellKey, at time.Time) {
	r.mu.Lock()
	m := r.m[k]
	r.m[k] = mark{seq: m.seq + 1, at: at}
	r.mu.Unlock()
}

func (r *results) latest(k cellKey) (int, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.m[k]
	return m.seq, m.at
}

// pendingMarks counts, over the sampled browsers, results that never
// showed (the cell's latest result is newer than what the browser saw).
func (r *results) unseen(b *browser) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for k, m := range r.m {
		if m.seq > b.seen[k] && !m.at.IsZero() {
			n++
		}
	}
	return n
}

// short is an error as a failure table shows it: numbers (ids, ports,
// addresses) folded to N so that one cause is one row, at most 60 bytes.
func short(err error) string {
	if k := transportKind(err.Error()); k != "" {
		return k
	}
	return foldNumbers(err.Error(), 60)
}

// answerCode is the report's code for an answer: the API's error code, or
// for no answer (a transport error) what went wrong (transportKind, or the
// error's start).
func answerCode(a harness.Answer) string {
	if a.Status != 0 {
		return a.Code
	}
	if k := transportKind(a.Message); k != "" {
		return k
	}
	return short(errors.New(a.Message))
}

// transportKind names the cause of a transport error from its text, ""
// when it is none of those named: the report groups failures by it (an
// error's text holds its URL and addresses, and the cause at its end,
// which a cut at 60 characters lost: the 40× runs of 2026-12-07 reported
// client transport errors without one).
func transportKind(msg string) string {
	for _, k := range []struct{ in, kind string }{
		{"Client.Timeout", "timeout"},
		{"deadline exceeded", "timeout"},
		{"i/o timeout", "timeout"},
		{"connection reset", "connection reset"},
		{"connection refused", "connection refused"},
		{"broken pipe", "broken pipe"},
		{"unexpected EOF", "EOF"},
		{"EOF", "EOF"},
	} {
		if strings.Contains(msg, k.in) {
			return k.kind
		}
	}
	return ""
}

package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/periodic"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/internal/session"
	"github.com/verdict-oj/verdict/internal/wsconn"
)

// SessionCookie is the browser session cookie set by the web nodes.
const SessionCookie = session.CookieName

// Roles a session may carry (internal/session owns the names).
const (
	RoleAdmin   = session.RoleAdmin
	RoleSetter  = session.RoleSetter
	RoleStudent = session.RoleStudent
)

// Session is who a browser is.
type Session struct {
	UserID int64
	Role   string
}

// readSession reads the session a browser's cookie names, with the rules
// the web nodes write it by (internal/session): a session whose user's
// epoch moved on (a password change, a new role, a disabled account, a
// logout everywhere) is no session. The hub only reads (it never extends
// the session's TTL). No session is a session.ErrNotFound.
func readSession(ctx context.Context, c redis.UniversalClient, n rkeys.Names, cookie string) (Session, error) {
	r, err := session.Read(ctx, c, n, cookie)
	if err != nil {
		return Session{}, fmt.Errorf("hub: %w", err)
	}
	return Session{UserID: r.UserID, Role: r.Role}, nil
}

// checkSession re-reads the browser's session; false when it ended or now
// names another user or role, in which case the connection is closing.
// A Redis failure is not an ending: the caller decides (err).
func (c *browserConn) checkSession() (bool, error) {
	if c.cookie == "" {
		return true, nil // a visitor: no session to end (not checked)
	}
	var s Session
	err := c.h.reads.do(c.ctx, func() (err error) {
		s, err = readSession(c.ctx, c.h.cfg.Redis, c.h.n, c.cookie)
		return err
	})
	if errors.Is(err, session.ErrNotFound) || (err == nil && s != c.sess) {
		c.close(protocol.CloseSessionExpired, "session ended")
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// browserConn is one connected browser.
type browserConn struct {
	h      *Hub
	conn   *wsconn.Conn
	sess   Session
	cookie string
	log    *slog.Logger
	ctx    context.Context // conn.Context()
	checks *periodic.Task  // the session's re-reading (nil: a visitor); set before serve

	mu   sync.Mutex
	subs map[protocol.Channel]*subscription
}

// subscription is one browser's subscription to one channel.
type subscription struct {
	c   *browserConn
	ch  protocol.Channel
	key string

	mu      sync.Mutex
	pending bool // snapshot not sent yet: buffer events
	// resyncing: the pub/sub connection came back after a loss and the
	// resync's snapshot is not sent yet: buffer events (holdForResync).
	resyncing bool
	buf       []buffered
	overflow  bool
	lastSeq   uint64
}

type buffered struct {
	seq uint64
	b   []byte
}

const maxPendingEvents = 256

// deliver sends a pre-encoded event (or pushed snapshot) with sequence
// number seq, once, in order.
func (s *subscription) deliver(seq uint64, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resyncing && !s.pending && len(s.buf) == 0 && seq == s.lastSeq+1 && s.ch.Kind != protocol.ChannelStatus {
		// The first event since the pub/sub came back follows what the
		// browser has: this channel lost nothing, and its event need not
		// wait for the resync (a status channel's numbers are the hub's
		// own for a student: see onStatusEvent).
		s.resyncing = false
	}
	if s.pending || s.resyncing {
		if len(s.buf) >= maxPendingEvents {
			s.overflow = true
			return
		}
		s.buf = append(s.buf, buffered{seq, b})
		return
	}
	if seq <= s.lastSeq {
		return
	}
	s.lastSeq = seq
	s.c.enqueue(b)
}

// flushLocked ends the wait for a snapshot: the events held meanwhile go
// out, those newer than lastSeq, in order. Callers hold s.mu.
func (s *subscription) flushLocked() {
	for _, e := range s.buf {
		if e.seq > s.lastSeq {
			s.lastSeq = e.seq
			s.c.enqueue(e.b)
		}
	}
	s.pending, s.resyncing, s.overflow, s.buf = false, false, false, nil
}

// enqueue queues one message without blocking; a full queue drops the
// connection as a slow consumer.
func (c *browserConn) enqueue(b []byte) { c.conn.Send(b) }

func (c *browserConn) close(code protocol.CloseCode, reason string) { c.conn.Close(code, reason) }

// firstSessionCheck is when a browser's first session check runs after it
// connected: at a random point of the second half of every (a session
// that ends is still noticed within every). Browsers that connected
// together (a hub restart, a room's mass reconnect) so check apart, and
// stay apart, each every after its last; checked all at every, they came
// in a storm each minute and queued at the browsers' gate.
func firstSessionCheck(every time.Duration) time.Duration {
	return every/2 + rand.N(every/2+1)
}

// sessionCheck is one re-reading of the session, every SessionCheck (a
// periodic task: no goroutine waits in between) until the connection
// closes or the session ended; false ends the task. (Pings are the
// Conn's.)
func (c *browserConn) sessionCheck() bool {
	if c.conn.Closing() {
		return false
	}
	ok, err := c.checkSession()
	return ok || err != nil
}

// serveBrowser upgrades a browser's request, reads its session and
// returns: the connection is served by a goroutine of the hub's own
// (h.conns, joined by Run), not by net/http's handler goroutine. While a
// handler runs, net/http keeps the connection's 4 KiB reader and writer,
// the response's 2 KiB writer and the upgrade request with its headers
// (about 10 KiB a browser); a hijacked connection needs none of them once
// the handshake is over, and a browser stays connected for hours.
func (h *Hub) serveBrowser(w http.ResponseWriter, r *http.Request) {
	if h.draining.Load() {
		http.Error(w, "hub draining", http.StatusServiceUnavailable)
		return
	}
	h.conns.Add(1)
	c := h.acceptBrowser(w, r)
	if c == nil {
		h.conns.Done()
		return
	}
	go func() {
		defer h.conns.Done()
		c.serve()
	}()
}

// acceptBrowser does the handshake, reads the session and registers the
// browser; nil when the browser was refused (its connection is closed).
func (h *Hub) acceptBrowser(w http.ResponseWriter, r *http.Request) *browserConn {
	var c *browserConn
	conn, err := wsconn.Accept(w, r, wsconn.Config{
		Link: protocol.LinkLive, ReadLimit: protocol.MaxLiveInbound, Queue: h.cfg.SendQueue,
		WriteTimeout: h.cfg.WriteTimeout, PingInterval: h.cfg.PingInterval,
		OverflowCode: protocol.CloseSlowConsumer, WriteFailCode: protocol.CloseSlowConsumer,
		OnClose: func(code protocol.CloseCode, reason string) {
			if c != nil {
				c.log.Debug("closing browser connection", "code", code.String(), "reason", reason)
			}
		},
		OnDrop: func(d wsconn.Drop) {
			switch d {
			case wsconn.DropOverflow:
				h.m.droppedClients.WithLabelValues("slow_consumer").Inc()
			case wsconn.DropWriteFailed:
				h.m.droppedClients.WithLabelValues("write_failed").Inc()
			}
		},
	}, wsconn.AcceptOptions{OriginPatterns: h.cfg.OriginPatterns})
	if err != nil {
		return nil
	}
	var cookie string
	if ck, err := r.Cookie(SessionCookie); err == nil {
		cookie = strings.Clone(ck.Value) // not the request's header
	}
	// A browser without a session cookie is a visitor: the public
	// scoreboard updates live for it too (a projector in the hall, a
	// parent following the contest), and nothing else (authorize). A
	// cookie that names no session is refused, so that a logged-in page
	// whose session ended learns it and sends its user to log in.
	var sess Session
	if cookie != "" {
		err = h.reads.do(r.Context(), func() (err error) {
			sess, err = readSession(r.Context(), h.cfg.Redis, h.n, cookie)
			return err
		})
		if err != nil {
			code := protocol.CloseBadToken
			if !errors.Is(err, session.ErrNotFound) {
				code = protocol.CloseInternalError
			}
			conn.Close(code, "no session")
			conn.Wait()
			return nil
		}
	}
	c = &browserConn{
		h: h, conn: conn, sess: sess, cookie: cookie,
		log: h.log.With("user_id", sess.UserID),
		ctx: conn.Context(), subs: map[protocol.Channel]*subscription{},
	}
	h.mu.Lock()
	h.browsers[c] = struct{}{}
	h.m.browsers.Set(float64(len(h.browsers)))
	h.mu.Unlock()
	// Draining began after the check above: closeAll may have missed it.
	if h.draining.Load() {
		c.close(protocol.CloseHubShutdown, "hub shutting down")
	}
	conn.Start()
	if cookie != "" { // a visitor has no session to end
		c.checks = periodic.EveryFrom(firstSessionCheck(h.cfg.SessionCheck), h.cfg.SessionCheck, c.sessionCheck)
	}
	return c
}

// serve reads the browser's messages until its connection ends, then
// stops its session checks, ends its subscriptions and unregisters it.
func (c *browserConn) serve() {
	h := c.h
	c.reader()
	c.close(protocol.CloseNormal, "")
	c.conn.Wait()
	c.checks.Stop()
	c.unsubscribeAll()
	h.mu.Lock()
	delete(h.browsers, c)
	h.m.browsers.Set(float64(len(h.browsers)))
	h.mu.Unlock()
}

// reader handles the browser's messages until the connection ends.
func (c *browserConn) reader() {
	_ = c.conn.ReadLoop(c.ctx, func(env protocol.Envelope) error {
		switch env.Type {
		case protocol.TypeSubscribe:
			s, err := protocol.DecodeData[protocol.Subscribe](env)
			if err != nil {
				c.replyError(env.ID, protocol.ErrorBadRequest, err.Error(), nil)
				return nil
			}
			c.subscribe(env.ID, s.Channel)
		case protocol.TypeUnsubscribe:
			u, err := protocol.DecodeData[protocol.Unsubscribe](env)
			if err != nil {
				c.replyError(env.ID, protocol.ErrorBadRequest, err.Error(), nil)
				return nil
			}
			c.unsubscribe(u.Channel)
		default:
			c.replyError(env.ID, protocol.ErrorBadRequest, "browsers send subscribe and unsubscribe only", nil)
		}
		return nil
	})
}

func (c *browserConn) replyError(id string, code protocol.ErrorCode, msg string, ch *protocol.Channel) {
	if len(msg) > 200 {
		msg = msg[:200]
	}
	b, err := protocol.Marshal(protocol.TypeError, id, protocol.Error{Code: code, Message: msg, Channel: ch})
	if err == nil {
		c.enqueue(b)
	}
}

// authorize checks that the browser may watch ch. For a submission it also
// returns its live state (read for the owner).
func (c *browserConn) authorize(ch protocol.Channel) (protocol.ErrorCode, string) {
	admin := c.sess.Role == RoleAdmin
	if c.sess.UserID == 0 && ch.Kind != protocol.ChannelContest {
		// A visitor (no session) watches public scoreboards only.
		return protocol.ErrorForbidden, "log in to watch this channel"
	}
	switch ch.Kind {
	case protocol.ChannelSubmission:
		snap, err := c.h.q.Submission(c.ctx, ch.ID)
		if errors.Is(err, queue.ErrNoState) {
			return protocol.ErrorNotFound, "no live state for this submission"
		}
		if err != nil {
			return protocol.ErrorInternal, "state unavailable"
		}
		if snap.Owner != c.sess.UserID && !admin {
			return protocol.ErrorForbidden, "not your submission"
		}
	case protocol.ChannelUser:
		if ch.ID != c.sess.UserID && !admin {
			return protocol.ErrorForbidden, "not your submissions"
		}
	case protocol.ChannelStatus:
		// The site's status channel and a contest's: every logged-in
		// user, but a browser that is not staff gets only the events of
		// submissions everyone may list (practice on public problems,
		// contests that list everyone's verdicts), censored
		// (onStatusEvent, feedback.go).
	case protocol.ChannelBalloons:
		// A new balloon says a team solved a problem, which the freeze
		// hides from the public: staff only.
		if !staffRole(c.sess.Role) {
			return protocol.ErrorForbidden, "the balloon list is for staff"
		}
	case protocol.ChannelContest, protocol.ChannelQueue, protocol.ChannelClarifications:
		// Every logged-in user; the web nodes publish only what the
		// contest's rules let everyone see (clarification changes carry
		// ids, never text).
	}
	return "", ""
}

func (c *browserConn) subscribe(id string, ch protocol.Channel) {
	// The session is read again on every subscribe: a browser whose
	// session the web nodes ended (its user's epoch moved on) must not
	// open channels with its old role in the meantime.
	if ok, err := c.checkSession(); !ok {
		if err != nil {
			c.replyError(id, protocol.ErrorInternal, "session unavailable", &ch)
		}
		return
	}
	if code, msg := c.authorize(ch); code != "" {
		c.replyError(id, code, msg, &ch)
		return
	}
	c.mu.Lock()
	if old := c.subs[ch]; old != nil {
		delete(c.subs, ch)
		c.mu.Unlock()
		c.h.removeSub(old)
		c.mu.Lock()
	}
	if len(c.subs) >= c.h.cfg.MaxSubscriptions {
		c.mu.Unlock()
		c.replyError(id, protocol.ErrorRateLimited, "too many subscriptions", &ch)
		return
	}
	s := &subscription{c: c, ch: ch, key: c.h.n.Events(string(ch.Kind), ch.ID), pending: true}
	c.subs[ch] = s
	c.mu.Unlock()

	if err := c.h.addSub(c.ctx, s); err != nil {
		c.forget(s)
		c.replyError(id, protocol.ErrorInternal, "subscribe failed", &ch)
		return
	}
	for try := 0; ; try++ {
		var seq uint64
		var state json.RawMessage
		var compact bool
		err := c.h.reads.do(c.ctx, func() (err error) {
			seq, state, compact, err = c.h.snapshot(c.ctx, ch, c)
			return err
		})
		if err != nil || try == 3 {
			c.forget(s)
			c.h.removeSub(s)
			c.replyError(id, protocol.ErrorInternal, "snapshot unavailable", &ch)
			return
		}
		marshal := protocol.MarshalSnapshot
		if compact {
			marshal = protocol.MarshalCompactSnapshot
		}
		b, err := marshal(id, ch, seq, state)
		if err != nil {
			c.forget(s)
			c.h.removeSub(s)
			c.replyError(id, protocol.ErrorInternal, "snapshot too large", &ch)
			return
		}
		s.mu.Lock()
		if s.overflow { // too much happened while reading: read again
			s.overflow, s.buf = false, nil
			s.mu.Unlock()
			continue
		}
		c.enqueue(b)
		s.lastSeq = seq
		s.flushLocked()
		s.mu.Unlock()
		return
	}
}

func (c *browserConn) forget(s *subscription) {
	c.mu.Lock()
	if c.subs[s.ch] == s {
		delete(c.subs, s.ch)
	}
	c.mu.Unlock()
}

func (c *browserConn) unsubscribe(ch protocol.Channel) {
	c.mu.Lock()
	s := c.subs[ch]
	delete(c.subs, ch)
	c.mu.Unlock()
	if s != nil {
		c.h.removeSub(s)
	}
}

func (c *browserConn) unsubscribeAll() {
	c.mu.Lock()
	subs := c.subs
	c.subs = map[protocol.Channel]*subscription{}
	c.mu.Unlock()
	for _, s := range subs {
		c.h.removeSub(s)
	}
}

// submissionIDs lists the submissions the browser watches.
func (c *browserConn) submissionIDs() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ids []int64
	for ch := range c.subs {
		if ch.Kind == protocol.ChannelSubmission {
			ids = append(ids, ch.ID)
		}
	}
	return ids
}

func (c *browserConn) watchesQueue() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.subs[protocol.Channel{Kind: protocol.ChannelQueue}] != nil
}

// snapshot reads a channel's current state and sequence number.
// snapshot is a channel's state for c; compact says it is known
// protocol.CompactJSON (a contest's board, checked once when stored).
func (h *Hub) snapshot(ctx context.Context, ch protocol.Channel, c *browserConn) (seq uint64, state json.RawMessage, compact bool, err error) {
	if ch.Kind == protocol.ChannelContest {
		return h.contestSnapshot(ctx, ch)
	}
	seq, state, err = h.channelSnapshot(ctx, ch, c)
	return seq, state, false, err
}

func (h *Hub) channelSnapshot(ctx context.Context, ch protocol.Channel, c *browserConn) (uint64, json.RawMessage, error) {
	switch ch.Kind {
	case protocol.ChannelSubmission:
		s, err := h.q.Submission(ctx, ch.ID)
		if err != nil {
			return 0, nil, err
		}
		b, err := c.liveSnapshot(s) // censored for the browser: feedback.go
		return s.Seq, b, err
	case protocol.ChannelQueue:
		n, err := h.currentNotice(ctx)
		if err != nil {
			return 0, nil, err
		}
		pos, err := h.q.Positions(ctx, c.submissionIDs())
		if err != nil {
			return 0, nil, err
		}
		n.Position = bestPosition(pos)
		b, err := json.Marshal(n)
		return 0, b, err
	}
	if ch.Kind == protocol.ChannelUser {
		seq, st, err := h.q.UserState(ctx, ch.ID)
		if err != nil {
			return 0, nil, err
		}
		if st, err = c.userSnapshot(ctx, st); err != nil { // censored: feedback.go
			return 0, nil, err
		}
		b, err := json.Marshal(st)
		return seq, b, err
	}
	if ch.Kind == protocol.ChannelStatus && ch.ID == 0 && !staffRole(c.sess.Role) {
		return h.publicStatusSeq(), json.RawMessage(`{}`), nil // feedback.go
	}
	seq, state, err := h.q.Doc(ctx, ch)
	if err != nil {
		return 0, nil, err
	}
	if state == nil {
		state = json.RawMessage(`{}`)
	}
	return seq, state, nil
}

func bestPosition(pos []int) int {
	best := 0
	for _, p := range pos {
		if p > 0 && (best == 0 || p < best) {
			best = p
		}
	}
	return best
}

// topic is the local fan-out of one Redis events channel.
type topic struct {
	h    *Hub
	key  string
	kind protocol.ChannelKind
	ch   protocol.Channel

	mu        sync.Mutex
	subs      map[*subscription]struct{}
	scheduled bool // a push is due (its timer is set)
	pushing   bool // a push is reading the board or sending it
	again     bool // the board changed while pushing: push once more after
	failing   bool // the last push could not read the board (logged once)
	lastPush  time.Time
	board     board  // contest topics: the last scoreboard pushed
	publicSeq uint64 // the site's status topic: see onStatusEvent
}

func (h *Hub) addSub(ctx context.Context, s *subscription) error {
	if s.ch.Kind == protocol.ChannelQueue {
		return nil // the queue channel is always subscribed; see pushNotice
	}
	h.mu.Lock()
	t := h.topics[s.key]
	if t == nil {
		t = &topic{h: h, key: s.key, kind: s.ch.Kind, ch: s.ch, subs: map[*subscription]struct{}{}}
		h.topics[s.key] = t
	}
	t.mu.Lock()
	t.subs[s] = struct{}{}
	t.mu.Unlock()
	h.m.subscriptions.Inc()
	h.mu.Unlock()
	if err := h.ps.subscribe(ctx, s.key); err != nil {
		h.removeSubLocal(s)
		return err
	}
	return nil
}

// removeSub undoes addSub.
func (h *Hub) removeSub(s *subscription) {
	if s.ch.Kind == protocol.ChannelQueue {
		return
	}
	if h.removeSubLocal(s) {
		h.ps.unsubscribe(context.Background(), s.key)
	}
}

func (h *Hub) removeSubLocal(s *subscription) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topics[s.key]
	if t == nil {
		return false
	}
	t.mu.Lock()
	_, ok := t.subs[s]
	delete(t.subs, s)
	empty := len(t.subs) == 0
	t.mu.Unlock()
	if ok {
		h.m.subscriptions.Dec()
	}
	if empty {
		delete(h.topics, s.key)
	}
	return ok
}

func (t *topic) snapshotSubs() []*subscription {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*subscription, 0, len(t.subs))
	for s := range t.subs {
		out = append(out, s)
	}
	return out
}

// onEvent handles one message of the topic's Redis channel (on the pub/sub
// goroutine: no Redis calls here).
func (t *topic) onEvent(payload string) {
	if t.kind == protocol.ChannelContest {
		// The event only says the board changed (its body is not the
		// board): the push reads the stored state.
		t.scheduleContestPush()
		return
	}
	if t.kind == protocol.ChannelSubmission || t.kind == protocol.ChannelUser {
		t.onSubmissionEvent(payload) // censored per subscriber: feedback.go
		return
	}
	if t.kind == protocol.ChannelStatus {
		t.onStatusEvent(payload) // filtered and censored per subscriber: feedback.go
		return
	}
	var head struct {
		Seq uint64 `json:"seq"`
	}
	if err := json.Unmarshal([]byte(payload), &head); err != nil || head.Seq == 0 {
		t.h.log.Warn("bad event on channel", "channel", t.key, "err", err)
		return
	}
	// Encoded once, shared by every subscriber.
	b, err := protocol.Encode(protocol.LinkLive, protocol.Envelope{V: protocol.Version, Type: protocol.TypeEvent, Data: json.RawMessage(payload)})
	if err != nil {
		t.h.log.Warn("bad event on channel", "channel", t.key, "err", err)
		return
	}
	t.h.m.broadcasts.WithLabelValues(string(t.kind)).Inc()
	for _, s := range t.snapshotSubs() {
		s.deliver(head.Seq, b)
	}
}

// scheduleContestPush coalesces scoreboard changes: at most one snapshot
// push per Coalesce interval per contest, always of the latest state.
// Pushes of a topic run one at a time: two reads of the board in flight
// at once could end in the wrong order under a slow Redis, and the older
// board would be pushed last (and kept as the topic's board). A change
// during a push is pushed after it.
func (t *topic) scheduleContestPush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.scheduleLocked()
}

func (t *topic) scheduleLocked() {
	if t.pushing {
		t.again = true
		return
	}
	if t.scheduled {
		return
	}
	t.scheduled = true
	delay := max(0, time.Until(t.lastPush.Add(t.h.cfg.Coalesce)))
	t.h.timers.after(delay, t.pushContest) // stopped by Run
}

// pushContest pushes the board's latest state, then the next change if
// one came meanwhile. A board it could not read is read again a Coalesce
// later while the topic has subscribers: dropping it would leave every
// browser on the old board until the next change, which at a contest's
// end may never come.
func (t *topic) pushContest(ctx context.Context) {
	t.mu.Lock()
	t.scheduled, t.pushing, t.again = false, true, false
	t.lastPush = time.Now()
	t.mu.Unlock()
	read := t.pushLatest(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pushing = false
	if (t.again || !read) && len(t.subs) > 0 {
		t.scheduleLocked()
	}
}

// pushLatest reads the board and pushes what changed; false when the
// board could not be read.
func (t *topic) pushLatest(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	seq, state, err := t.h.q.Doc(ctx, t.ch)
	t.mu.Lock()
	changed := t.failing != (err != nil)
	t.failing = err != nil
	t.mu.Unlock()
	if err != nil {
		if t.h.timers.ctx.Err() != nil {
			return true // the hub stops
		}
		t.h.m.boardReadFailures.Inc()
		if changed {
			t.h.log.Warn("read scoreboard failed; reading it again until it works", "channel", t.key, "err", err)
		}
		return false
	}
	if changed {
		t.h.log.Info("read scoreboard again", "channel", t.key)
	}
	if state == nil {
		return true
	}
	t.mu.Lock()
	b, hseq, push, err := t.nextBoard(seq, state)
	t.mu.Unlock()
	if err != nil {
		t.h.log.Warn("scoreboard push failed", "channel", t.key, "err", err)
		return true // a board that cannot be pushed is not read again
	}
	if !push {
		return true
	}
	t.h.m.broadcasts.WithLabelValues(string(t.kind)).Inc()
	for _, s := range t.snapshotSubs() {
		s.deliver(hseq, b)
	}
	return true
}

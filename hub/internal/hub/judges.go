package hub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/judgestate"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/tokens"
	"github.com/verdict-oj/verdict/internal/wsconn"
)

// judgeSendQueue bounds the messages waiting for one judge. Judges are
// trusted and read fast; one that lets this fill is closed.
const judgeSendQueue = 1024

// assignment is a task this hub knows a judge holds.
type assignment struct {
	attempt int
	user    int64
	contest int64
	at      time.Time
	// problem and language of the task (unknown for a lease adopted after
	// a restart), for the policy's outcome reports.
	problem  int64
	language string
	hash     string // test data
	// inHeartbeat: the judge listed it in its last heartbeat.
	inHeartbeat bool
}

// judgeConn is one connected judge.
type judgeConn struct {
	h      *Hub
	id     string
	connID string
	conn   *wsconn.Conn
	hello  protocol.Hello
	langs  []string
	log    *slog.Logger
	// ctx ends once the connection is closed (conn.Context()); closing is
	// set as soon as closing starts (the close frame still goes out).
	ctx     context.Context
	closing atomic.Bool
	lastHB  atomic.Int64 // unix nanos

	// Guarded by h.mu.
	ready         bool // a heartbeat arrived
	hb            protocol.Heartbeat
	assigned      map[int64]*assignment
	draining      bool
	rejectedUntil time.Time

	cacheMu sync.RWMutex
	cached  map[string]bool

	// Warming, guarded by h.mu: the data the judge is known to hold (its
	// hello, the prefetches it reported, the results it returned), the
	// prefetches sent and not reported yet, and those reported failed.
	// Unlike cached (the affinity view, filled as soon as data is sent),
	// holds is only what the judge confirmed.
	holds          map[string]bool
	prefetchSent   map[string]time.Time
	prefetchFailed map[string]time.Time

	// cancelled: attempts withdrawn on this connection, or whose result
	// it recorded (the judge lists a sent result until its ack arrives:
	// finished, not lost, so never withdrawn). Reader goroutine only.
	cancelled map[protocol.TaskRef]bool
}

func (j *judgeConn) hasData(hash string) bool {
	j.cacheMu.RLock()
	defer j.cacheMu.RUnlock()
	return j.cached[hash]
}

func (j *judgeConn) addData(hash string) (added bool) {
	j.cacheMu.Lock()
	defer j.cacheMu.Unlock()
	if j.cached[hash] {
		return false
	}
	j.cached[hash] = true
	return true
}

// noteEvicted forgets the data a heartbeat says the judge dropped, except
// the data of a task assigned to it (the judge fetches that again for the
// task, so it holds it or soon will). Callers hold h.mu.
func (j *judgeConn) noteEvicted(hashes []string) {
	if len(hashes) == 0 {
		return
	}
	needed := make(map[string]bool, len(j.assigned))
	for _, a := range j.assigned {
		needed[a.hash] = true
	}
	j.cacheMu.Lock()
	defer j.cacheMu.Unlock()
	for _, hash := range hashes {
		if !needed[hash] {
			delete(j.cached, hash)
			delete(j.holds, hash)
		}
	}
}

// evict forgets cached data. The judge keeps no problem→hash index we
// know of, so a problem-wide evict forgets everything (affinity rebuilds).
func (j *judgeConn) evict(ev protocol.Evict) {
	j.cacheMu.Lock()
	defer j.cacheMu.Unlock()
	if ev.DataHash != "" {
		delete(j.cached, ev.DataHash)
		delete(j.holds, ev.DataHash)
		return
	}
	clear(j.cached)
	clear(j.holds)
}

// enqueue queues a message for the judge without blocking; a full queue
// closes the judge (CloseInternalError). Callers may hold h.mu.
func (j *judgeConn) enqueue(b []byte) bool { return j.conn.Send(b) }

// ackResult tells the judge its result is safe (recorded in the results
// stream, or known stale), so it can drop it from its outbox; slot is the
// result's way to its slot free (0: it freed none).
func (j *judgeConn) ackResult(ref protocol.TaskRef, slot time.Duration) {
	ack := protocol.ResultAck{TaskRef: ref, SlotMs: float64(slot.Microseconds()) / 1000}
	if b, err := protocol.Marshal(protocol.TypeResultAck, "", ack); err == nil {
		j.enqueue(b)
	}
}

// close starts closing the connection with code (once; it does not block).
func (j *judgeConn) close(code protocol.CloseCode, reason string) { j.conn.Close(code, reason) }

func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (h *Hub) serveJudge(w http.ResponseWriter, r *http.Request) {
	if h.draining.Load() {
		http.Error(w, "hub draining", http.StatusServiceUnavailable)
		return
	}
	h.conns.Add(1)
	defer h.conns.Done()
	var j *judgeConn
	conn, err := wsconn.Accept(w, r, wsconn.Config{
		Link: protocol.LinkJudge, Queue: judgeSendQueue, WriteTimeout: h.cfg.WriteTimeout,
		OverflowCode: protocol.CloseInternalError, WriteFailCode: protocol.CloseInternalError,
		Log: h.log,
		OnClose: func(code protocol.CloseCode, reason string) {
			if j != nil { // nil: refused at hello (logged there)
				j.log.Info("closing judge connection", "code", code.String(), "reason", reason)
				j.closing.Store(true)
			}
		},
	}, wsconn.AcceptOptions{AnyOrigin: true}) // judges are not browsers: no Origin to check
	switch {
	case errors.Is(err, wsconn.ErrSubprotocol):
		h.m.judgeConnections.WithLabelValues("bad_subprotocol").Inc()
		return
	case err != nil:
		h.m.judgeConnections.WithLabelValues("handshake_failed").Inc()
		return
	}
	j, code, reason := h.judgeHello(r.Context(), conn)
	if j == nil {
		h.m.judgeConnections.WithLabelValues(code.String()).Inc()
		h.log.Warn("judge refused", "reason", reason, "code", code.String(), "remote", r.RemoteAddr)
		conn.Close(code, reason)
		conn.Wait()
		return
	}
	h.m.judgeConnections.WithLabelValues("accepted").Inc()
	h.runJudge(j)
}

// judgeHello reads and checks hello. On refusal it returns a nil conn and
// the close code.
func (h *Hub) judgeHello(ctx context.Context, conn *wsconn.Conn) (*judgeConn, protocol.CloseCode, string) {
	rctx, cancel := context.WithTimeout(ctx, h.cfg.HelloTimeout)
	defer cancel()
	env, err := conn.Read(rctx)
	switch {
	case errors.Is(err, wsconn.ErrBinary):
		return nil, protocol.CloseUnsupportedData, "text frames only"
	case errors.Is(err, protocol.ErrUnsupportedVersion):
		return nil, protocol.CloseUnsupportedVersion, "unsupported protocol version"
	case errors.Is(err, wsconn.ErrBadMessage):
		return nil, protocol.CloseBadEnvelope, "bad hello"
	case err != nil:
		return nil, protocol.CloseBadEnvelope, "no hello"
	}
	if env.Type != protocol.TypeHello {
		return nil, protocol.CloseBadEnvelope, "first message must be hello"
	}
	hello, err := protocol.DecodeData[protocol.Hello](env)
	if err != nil {
		return nil, protocol.CloseBadEnvelope, "bad hello"
	}
	name, err := tokens.Lookup(ctx, h.cfg.Redis, h.n, hello.Token)
	switch {
	case errors.Is(err, tokens.ErrNotLoaded):
		// No table at all: a Redis that restarted empty holds no tokens
		// until a web node restores them from MySQL (within seconds).
		// Turning judges away for good then would lose every judge that
		// reconnects in that window.
		h.log.Warn("judge refused for now: the judge token table is not in Redis (no web node has synced it since Redis started)",
			obs.JudgeID(hello.JudgeID))
		return nil, protocol.CloseTryAgainLater, "judge tokens not loaded yet; retry"
	case errors.Is(err, tokens.ErrUnknown) || (err == nil && name != hello.JudgeID):
		h.refuse(ctx, conn, "bad token")
		return nil, protocol.CloseBadToken, "bad token"
	case err != nil:
		return nil, protocol.CloseInternalError, "token check failed"
	}
	if h.draining.Load() {
		return nil, protocol.CloseHubShutdown, "hub draining"
	}
	j := &judgeConn{
		h: h, id: hello.JudgeID, connID: randomID(), conn: conn, hello: hello,
		log: h.log.With(obs.JudgeID(hello.JudgeID)),
		ctx: conn.Context(), assigned: map[int64]*assignment{}, cached: map[string]bool{},
		cancelled: map[protocol.TaskRef]bool{},
		holds:     map[string]bool{}, prefetchSent: map[string]time.Time{}, prefetchFailed: map[string]time.Time{},
	}
	for _, l := range hello.Languages {
		j.langs = append(j.langs, l.ID)
	}
	for _, d := range hello.CachedData {
		j.cached[d] = true
		j.holds[d] = true
	}
	j.lastHB.Store(time.Now().UnixNano())
	return j, 0, ""
}

func (h *Hub) refuse(ctx context.Context, conn *wsconn.Conn, reason string) {
	b, err := protocol.Marshal(protocol.TypeWelcome, "", protocol.Welcome{Accepted: false, Reason: reason, HubID: h.cfg.HubID})
	if err == nil {
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		_ = conn.Write(wctx, b)
		cancel()
	}
}

func (h *Hub) runJudge(j *judgeConn) {
	// welcome is the first message out: queue it before the connection is
	// visible to anyone who may queue others (evict, prefetch, warming).
	welcome, err := protocol.Marshal(protocol.TypeWelcome, "", protocol.Welcome{
		Accepted: true, HubID: h.cfg.HubID, HeartbeatIntervalMs: h.cfg.HeartbeatInterval.Milliseconds(),
		ResultAcks: true,
	})
	if err == nil {
		j.enqueue(welcome)
	}
	h.mu.Lock()
	old := h.judges[j.id]
	h.judges[j.id] = j
	h.m.judges.Set(float64(len(h.judges)))
	h.mu.Unlock()
	if old != nil {
		old.close(protocol.CloseSuperseded, "judge connected again")
	}
	msg, _ := json.Marshal(judgeConnected{Judge: j.id, Hub: h.cfg.HubID, Conn: j.connID})
	if err := h.cfg.Redis.Publish(j.ctx, h.n.JudgeConnected(), msg).Err(); err != nil {
		j.log.Warn("announce judge connection failed", "err", err)
	}
	j.log.Info("judge connected", "hello", j.hello)
	signal(h.warmKick) // warm it for the contests in the window

	var wg sync.WaitGroup
	j.conn.Start()
	wg.Go(func() { h.judgeWatchdog(j) })
	h.judgeReader(j)
	j.close(protocol.CloseNormal, "")
	j.conn.Wait()
	wg.Wait()

	h.mu.Lock()
	if h.judges[j.id] == j {
		delete(h.judges, j.id)
	}
	h.m.judges.Set(float64(len(h.judges)))
	h.mu.Unlock()
	// Its leases stay: if the judge reconnects within the lease timeout,
	// its heartbeats renew them; otherwise the reaper requeues them.
	h.wakeDispatcher()
	j.log.Info("judge disconnected")
}

func (h *Hub) judgeWatchdog(j *judgeConn) {
	t := time.NewTicker(h.cfg.HeartbeatInterval / 2)
	defer t.Stop()
	limit := time.Duration(h.cfg.MissedHeartbeats) * h.cfg.HeartbeatInterval
	for {
		select {
		case <-j.conn.Done():
			return
		case <-t.C:
			if time.Since(time.Unix(0, j.lastHB.Load())) > limit {
				j.close(protocol.CloseHeartbeatTimeout, fmt.Sprintf("no heartbeat for %v", limit))
				return
			}
		}
	}
}

// judgeInbox bounds the messages read from a judge and not yet handled.
const judgeInbox = 256

// judgeBatch is the most of a judge's waiting messages handled together.
const judgeBatch = 64

// inbound is a judge's message and when it was read.
type inbound struct {
	env protocol.Envelope
	at  time.Time
}

// judgeReader reads the judge's messages and hands them, in order, to one
// handler goroutine. A heartbeat counts when it arrives, not when the
// handler reaches it: behind a burst of progress and results (each a
// Redis round trip) a healthy judge's heartbeat used to wait long enough
// for the watchdog to close the judge (the contest rehearsal saw it). The
// handler takes every message waiting (up to judgeBatch) at once, so that
// the progress and results among them cost a round trip or two, not one
// each (judgeMessages).
func (h *Hub) judgeReader(j *judgeConn) {
	in := make(chan inbound, judgeInbox)
	var handler sync.WaitGroup
	handler.Go(func() {
		batch := make([]inbound, 0, judgeBatch)
		for m := range in {
			batch = append(batch[:0], m)
			batch = drain(in, batch)
			h.judgeMessages(j, batch)
		}
	})
	defer handler.Wait()
	defer close(in)
	err := j.conn.ReadLoop(j.ctx, func(env protocol.Envelope) error {
		now := time.Now()
		if env.Type == protocol.TypeHeartbeat {
			j.lastHB.Store(now.UnixNano())
		}
		select {
		case in <- inbound{env, now}:
			return nil
		case <-j.ctx.Done():
			return j.ctx.Err()
		}
	})
	if err != nil && !j.closing.Load() {
		j.log.Info("judge read ended", "err", err)
	}
}

// drain appends to batch what waits in in, up to judgeBatch in all,
// without blocking.
func drain(in <-chan inbound, batch []inbound) []inbound {
	for len(batch) < judgeBatch {
		select {
		case m, ok := <-in:
			if !ok {
				return batch
			}
			batch = append(batch, m)
		default:
			return batch
		}
	}
	return batch
}

// judgeMessages handles a batch of one judge's messages in their order,
// but for this: a run of progress and results (of submissions; a custom
// run's are handled alone) is handled as its progress, in one round trip,
// then its results, in two (completions, then their live states). Within
// a run the judge sends an attempt's progress before its result, so the
// order that matters holds; a heartbeat, a reject or a drain ends a run,
// so each sees the results before it handled.
func (h *Hub) judgeMessages(j *judgeConn, batch []inbound) {
	var progress []protocol.Progress
	var results []protocol.Result
	var reads []time.Time // each result's read off the socket
	flush := func() {
		if len(progress) > 0 {
			if err := h.onProgress(j.ctx, j, progress); err != nil {
				j.log.Warn("handling judge message failed", "type", protocol.TypeProgress, "count", len(progress), "err", err)
			}
		}
		if len(results) > 0 {
			if err := h.onResults(j.ctx, j, results, reads); err != nil {
				j.log.Warn("handling judge message failed", "type", protocol.TypeResult, "count", len(results), "err", err)
			}
		}
		progress, results, reads = progress[:0], results[:0], reads[:0]
	}
	for _, m := range batch {
		if j.ctx.Err() != nil {
			return // closed: the judge resends what was not acknowledged
		}
		h.m.judgeMessageWait.Observe(time.Since(m.at).Seconds())
		var err error
		switch m.env.Type {
		case protocol.TypeProgress:
			var p protocol.Progress
			if p, err = protocol.DecodeData[protocol.Progress](m.env); err == nil {
				progress = append(progress, p)
				continue
			}
		case protocol.TypeResult:
			var r protocol.Result
			if r, err = protocol.DecodeData[protocol.Result](m.env); err == nil {
				results, reads = append(results, r), append(reads, m.at)
				continue
			}
		default:
			flush()
			err = h.judgeMessage(j, m.env)
		}
		if err == nil {
			continue
		}
		if errors.Is(err, protocol.ErrInvalidPayload) || errors.Is(err, protocol.ErrPayloadMismatch) {
			flush() // what came before it was well formed
			j.close(protocol.CloseBadEnvelope, "bad "+string(m.env.Type))
			return
		}
		j.log.Warn("handling judge message failed", "type", m.env.Type, "err", err)
	}
	flush()
}

func (h *Hub) judgeMessage(j *judgeConn, env protocol.Envelope) error {
	ctx := j.ctx
	switch env.Type {
	case protocol.TypeHeartbeat:
		hb, err := protocol.DecodeData[protocol.Heartbeat](env)
		if err != nil {
			return err
		}
		return h.onHeartbeat(ctx, j, hb)
	case protocol.TypeAccept:
		_, err := protocol.DecodeData[protocol.Accept](env)
		return err
	case protocol.TypeReject:
		rj, err := protocol.DecodeData[protocol.Reject](env)
		if err != nil {
			return err
		}
		return h.onReject(ctx, j, rj)
	case protocol.TypeProgress:
		p, err := protocol.DecodeData[protocol.Progress](env)
		if err != nil {
			return err
		}
		return h.onProgress(ctx, j, []protocol.Progress{p})
	case protocol.TypeResult:
		r, err := protocol.DecodeData[protocol.Result](env)
		if err != nil {
			return err
		}
		return h.onResults(ctx, j, []protocol.Result{r}, nil)
	case protocol.TypeDrain:
		h.mu.Lock()
		j.draining = true
		empty := len(j.assigned) == 0
		h.mu.Unlock()
		j.log.Info("judge draining")
		if empty {
			j.close(protocol.CloseDrained, "drained")
		}
		return nil
	case protocol.TypeHello:
		j.close(protocol.CloseBadEnvelope, "hello twice")
		return nil
	}
	j.log.Debug("ignoring message", "type", env.Type)
	return nil
}

func (h *Hub) onHeartbeat(ctx context.Context, j *judgeConn, hb protocol.Heartbeat) error {
	j.lastHB.Store(time.Now().UnixNano())
	held, err := h.q.Renew(ctx, j.id, hb.Tasks, h.cfg.LeaseTimeout)
	if err != nil {
		return err
	}
	h.cancelUnheld(j, hb.Tasks, held)
	listed := make(map[int64]int, len(hb.Tasks))
	for _, r := range hb.Tasks {
		listed[r.SubmissionID] = r.Attempt
	}
	now := time.Now()
	h.mu.Lock()
	j.hb = hb
	j.ready = true
	h.notePrefetched(j, hb.Prefetched, now)
	j.noteEvicted(hb.Evicted)
	for _, a := range held { // adopt leases this hub did not hand out (a restart)
		if cur, ok := j.assigned[a.Ref.SubmissionID]; !ok || cur.attempt != a.Ref.Attempt {
			j.assigned[a.Ref.SubmissionID] = &assignment{attempt: a.Ref.Attempt, user: a.UserID, contest: a.ContestID, at: now}
		}
	}
	for id, a := range j.assigned {
		a.inHeartbeat = listed[id] == a.attempt
		// Handed out long enough ago that the judge must have seen it, and
		// not listed: the judge lost it; its lease will expire.
		if !a.inHeartbeat && now.Sub(a.at) > h.cfg.LeaseTimeout {
			delete(j.assigned, id)
		}
	}
	empty := j.draining && len(j.assigned) == 0
	h.mu.Unlock()
	if empty {
		j.close(protocol.CloseDrained, "drained")
	}
	st := h.n.Judge(j.id)
	pipe := h.cfg.Redis.Pipeline()
	pipe.HSet(ctx, st, judgestate.State{Hub: h.cfg.HubID, Cores: hb.Cores, Running: hb.Running, Queued: hb.Queued,
		Load1: hb.Load1, MemUsedRatio: hb.MemUsedRatio, MaxParallel: j.hello.MaxParallel, AgentVersion: j.hello.AgentVersion,
		Languages: j.hello.Languages, LanguagesKnown: true, Capabilities: j.hello.Capabilities, SeenAt: now}.Fields()...)
	pipe.PExpire(ctx, st, time.Duration(h.cfg.MissedHeartbeats+1)*h.cfg.HeartbeatInterval)
	if _, err := pipe.Exec(ctx); err != nil {
		j.log.Warn("record judge state failed", "err", err)
	}
	h.wakeDispatcher()
	return nil
}

// cancelUnheld withdraws the attempts a judge lists but does not hold: its
// lease expired while it was silent (the task went back to the queue or was
// judged elsewhere), or a rejudge superseded it. Without this the judge
// would spend its slots on work whose result is stale, while its heartbeat
// counts them as busy. A judge ignores a cancel for an attempt it is not
// running (a result waiting for its ack, say). Each attempt is cancelled
// once per connection.
func (h *Hub) cancelUnheld(j *judgeConn, listed []protocol.TaskRef, held []queue.Held) {
	own := make(map[protocol.TaskRef]bool, len(held))
	for _, a := range held {
		own[a.Ref] = true
	}
	seen := make(map[protocol.TaskRef]bool, len(listed))
	for _, r := range listed {
		seen[r] = true
		if own[r] || j.cancelled[r] {
			continue
		}
		b, err := protocol.Marshal(protocol.TypeCancel, "", protocol.Cancel{TaskRef: r, Reason: protocol.CancelLeaseLost})
		if err != nil || !j.enqueue(b) {
			continue
		}
		j.cancelled[r] = true
		h.m.cancels.Inc()
		j.log.Info("attempt withdrawn: the judge no longer holds its lease",
			obs.SubmissionID(r.SubmissionID), obs.Attempt(r.Attempt))
	}
	for r := range j.cancelled {
		if !seen[r] {
			delete(j.cancelled, r)
		}
	}
}

// slotWait is how long a result took to free its slot at freed: from
// when its judge sent it, where it says (zero: it does not) and that is
// before its read, else from its read (the judge's clock is another).
func slotWait(sent, read, freed time.Time) time.Duration {
	from := read
	if !sent.IsZero() && sent.Before(read) {
		from = sent
	}
	return max(0, freed.Sub(from))
}

// forget drops the assignment of ref's attempt (or an older one) from
// j: a later attempt of the submission placed on j since (a rejudge,
// while this result was handled) stays.
func (h *Hub) forget(j *judgeConn, ref protocol.TaskRef) {
	h.mu.Lock()
	if a := j.assigned[ref.SubmissionID]; a != nil && a.attempt <= ref.Attempt {
		delete(j.assigned, ref.SubmissionID)
	}
	empty := j.draining && len(j.assigned) == 0
	h.mu.Unlock()
	if empty {
		j.close(protocol.CloseDrained, "drained")
	}
}

func (h *Hub) onReject(ctx context.Context, j *judgeConn, rj protocol.Reject) error {
	log := j.log.With(obs.SubmissionID(rj.SubmissionID), obs.Attempt(rj.Attempt))
	log.Info("task rejected", "reason", rj.Reason, "message", rj.Message)
	h.mu.Lock()
	// Give the judge one heartbeat interval before offering it more.
	j.rejectedUntil = time.Now().Add(h.cfg.HeartbeatInterval)
	if rj.Reason == protocol.RejectDraining {
		j.draining = true
	}
	h.mu.Unlock()
	h.forget(j, rj.TaskRef)
	err := h.q.Release(ctx, rj.TaskRef, j.id)
	if errors.Is(err, queue.ErrStale) {
		return nil
	}
	h.wakeDispatcher()
	return err
}

func (h *Hub) owner(j *judgeConn, id int64) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if a := j.assigned[id]; a != nil {
		return a.user
	}
	return 0
}

// onProgress publishes a judge's progress, in order: a custom run's to
// its owner's channel alone, the submissions' in one round trip.
func (h *Hub) onProgress(ctx context.Context, j *judgeConn, ps []protocol.Progress) error {
	updates := make([]queue.SubmissionUpdate, 0, len(ps))
	var errs []error
	for _, p := range ps {
		if !protocol.IsCustomRun(p.SubmissionID) {
			updates = append(updates, queue.SubmissionUpdate{
				SubmissionID: p.SubmissionID, Attempt: p.Attempt, Owner: h.owner(j, p.SubmissionID),
				Status: p.Status, Cases: p.Cases, Guard: queue.GuardLeased,
			})
			continue
		}
		h.mu.Lock() // a custom run: its owner's channel only
		var owner, problem int64
		if a := j.assigned[p.SubmissionID]; a != nil {
			owner, problem = a.user, a.problem
		}
		h.mu.Unlock()
		if owner == 0 {
			continue
		}
		errs = append(errs, h.q.PublishCustomRun(ctx, queue.CustomRunUpdate{Owner: owner, Attempt: p.Attempt, Guard: queue.GuardLeased,
			State: protocol.CustomRunState{RunID: p.SubmissionID, ProblemID: problem, Status: p.Status}}))
	}
	if len(updates) > 0 {
		_, err := h.q.PublishSubmissions(ctx, updates)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// onResults records a judge's results, in order: their completions in one
// round trip (a custom run's take one each), then the submissions' live
// states in another. A result is acknowledged once completed, found
// completed by an earlier send of it, or found stale; after a Redis error
// none is, and the judge sends them again.
//
// A result frees its slot in the hub's accounting here, once its handler
// reaches it: behind the judge's messages before it and the round trip of
// the progress among them. That is the hub's backpressure, and it stays:
// freeing the slot as soon as the result was read (tried on 2026-12-04)
// let the dispatcher push on while the handlers fell behind, and in the
// rehearsal's rush heartbeats waited behind results long enough for
// leases to expire (187 requeued, 3 submissions a system error after 3
// attempts, against none before). The hub times each result from its
// judge's sending (reads: when each was read, for a result without
// sent_ms; nil: now) to the slot free, which the scheduling simulator
// replays.
func (h *Hub) onResults(ctx context.Context, j *judgeConn, rs []protocol.Result, reads []time.Time) error {
	owners := make([]int64, len(rs))
	placed := make([]assignment, len(rs)) // each attempt's placement, for the policy
	h.mu.Lock()
	for i, r := range rs {
		if a := j.assigned[r.SubmissionID]; a != nil {
			owners[i] = a.user
			if a.attempt == r.Attempt {
				placed[i] = *a
			}
		}
	}
	h.mu.Unlock()
	freed := time.Now()
	slots := make([]time.Duration, len(rs)) // each result's way to its slot free, told in its ack
	for i, r := range rs {
		h.forget(j, r.TaskRef)
		if placed[i].attempt == 0 {
			continue // not this judge's current attempt: no slot of its freed
		}
		read := freed
		if i < len(reads) {
			read = reads[i]
		}
		slots[i] = slotWait(r.Sent(), read, freed)
		h.m.resultSlot.Observe(slots[i].Seconds())
	}
	defer h.wakeDispatcher()
	done, err := h.q.CompleteMany(ctx, j.id, rs)
	if err != nil {
		return err // no ack: the judge resends them
	}
	var errs []error
	updates := make([]queue.SubmissionUpdate, 0, len(rs))
	for i, r := range rs {
		log := j.log.With(obs.SubmissionID(r.SubmissionID), obs.Attempt(r.Attempt))
		switch {
		case errors.Is(done[i].Err, queue.ErrStale):
			h.m.results.WithLabelValues("stale").Inc()
			log.Info("stale result dropped")
			j.cancelled[r.TaskRef] = true    // answered: not withdrawn when a heartbeat lists it before the ack
			j.ackResult(r.TaskRef, slots[i]) // nothing more will come of it: the judge may forget it
			continue
		case done[i].Err != nil:
			errs = append(errs, done[i].Err) // no ack: the judge resends it
			continue
		case done[i].Again:
			// Recorded by an earlier send: its ack crossed this one, or
			// its answer was lost (Redis stopped) and then this hub never
			// published the final state either.
			h.m.results.WithLabelValues("again").Inc()
			log.Info("result recorded before: its final state is published again", "verdict", r.Verdict)
		default:
			h.m.results.WithLabelValues("recorded").Inc()
			log.Info("result recorded", "verdict", r.Verdict)
		}
		j.cancelled[r.TaskRef] = true // finished: not withdrawn when a heartbeat lists it before the ack
		p := placed[i]
		if p.hash != "" && r.Verdict != protocol.VerdictSE {
			h.mu.Lock()
			j.holds[p.hash] = true // it judged with that data
			h.mu.Unlock()
		}
		if !p.at.IsZero() {
			var run time.Duration
			for _, c := range r.Cases {
				run += time.Duration(c.WallMs) * time.Millisecond
			}
			h.observe(sched.Outcome{Judge: j.id, Latency: time.Since(p.at), Run: run,
				Task: sched.Task{SubmissionID: r.SubmissionID, ProblemID: p.problem, Language: p.language}})
		}
		j.ackResult(r.TaskRef, slots[i])
		if protocol.IsCustomRun(r.SubmissionID) {
			continue // Complete stored it and told its owner (queue/custom.go)
		}
		guard := queue.GuardAttempt
		if done[i].Again {
			guard = queue.GuardUnfinished // not over a final published since, nor an override
		}
		updates = append(updates, queue.SubmissionUpdate{
			SubmissionID: r.SubmissionID, Attempt: r.Attempt, Owner: owners[i], Status: r.Verdict, Score: r.Score,
			CompileMessage: r.CompileMessage, Cases: r.Cases, Guard: guard,
		})
	}
	if len(updates) > 0 {
		if _, err := h.q.PublishSubmissions(ctx, updates); err != nil {
			// Completed and acknowledged: the judge will not send them
			// again, and no one else publishes a final state.
			h.finals.add(updates, time.Now())
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// view builds the scheduler's picture of the judge. Callers hold h.mu.
func (j *judgeConn) view(now time.Time) sched.Judge {
	since := 0
	for _, a := range j.assigned {
		if !a.inHeartbeat {
			since++
		}
	}
	cores := j.hb.Cores
	if cores < 1 {
		cores = j.hello.Cores
	}
	return sched.Judge{
		ID: j.id, Cores: cores, Slots: j.hello.MaxParallel, Languages: j.langs, Capabilities: j.hello.Capabilities,
		Draining: j.draining || now.Before(j.rejectedUntil),
		Running:  j.hb.Running, Queued: j.hb.Queued, Load1: j.hb.Load1, MemUsedRatio: j.hb.MemUsedRatio,
		Assigned: len(j.assigned), SinceHeartbeat: since, Cached: j.hasData,
	}
}

package simjudge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/truncate"
)

// ErrStarted is returned by a second call of Run.
var ErrStarted = errors.New("simjudge: Run already called")

// Judge is one simulated judge. Use New, then Run.
type Judge struct {
	cfg   Config
	log   *slog.Logger
	model Model
	langs map[string]bool
	data  *dataCache

	mu      sync.Mutex
	tasks   map[int64]*task // held (queued or running), by submission id
	queue   chan *task
	queueOK bool
	running int
	queued  int
	// unacked: results produced, not yet acknowledged (the agent's
	// outbox, in memory); recent: the last acknowledged ones, to answer a
	// repeated push.
	unacked map[protocol.TaskRef]*pending
	recent  []protocol.Result
	records map[protocol.TaskRef]*TaskRecord
	order   []protocol.TaskRef
	c       counters
	// prefetched: prefetches ended since the last heartbeat, reported in
	// the next one (the hub counts the judge warm from them).
	prefetched []protocol.PrefetchOutcome
	// reported: the cached hashes the hub was last told of (hello, then
	// each heartbeat), so a heartbeat reports the evictions since.
	reported map[string]bool

	started     atomic.Bool
	draining    atomic.Bool
	hubDraining atomic.Bool  // the hub asked us to drain: reject until reconnect
	retryAfter  atomic.Int64 // ns the hub asked us to wait before reconnecting

	killed    chan struct{} // closed by Kill
	killOnce  sync.Once
	link      atomic.Pointer[link] // the current connection, nil when down
	sendMu    sync.Mutex           // one result flush at a time
	flushKick chan struct{}
	prefetch  chan struct{} // two prefetches at a time
	bg        sync.WaitGroup
}

// task is one accepted attempt.
type task struct {
	protocol.Task
	ctx    context.Context
	cancel context.CancelFunc
	// accepted is closed once the accept is written: no progress of the
	// task goes out before it.
	accepted chan struct{}
}

// pending is a result waiting for its result_ack.
type pending struct {
	res    protocol.Result
	link   *link // where it was last written, nil: not yet
	sentAt time.Time
}

const recentResults = 256

// New checks cfg and returns a judge that is not yet connected.
func New(cfg Config) (*Judge, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	j := &Judge{
		cfg: cfg, log: cfg.Logger.With(obs.Component("simjudge"), obs.JudgeID(cfg.ID)),
		model: Model{Speed: cfg.Speed, CompileTime: cfg.CompileTime, CaseTime: cfg.CaseTime, Sigma: cfg.Sigma, Seed: cfg.Seed},
		langs: map[string]bool{},
		tasks: map[int64]*task{}, queue: make(chan *task, cfg.Slots+cfg.Queue), queueOK: true,
		unacked: map[protocol.TaskRef]*pending{}, records: map[protocol.TaskRef]*TaskRecord{},
		c:         counters{rejectedBy: map[protocol.RejectReason]int64{}},
		flushKick: make(chan struct{}, 1), prefetch: make(chan struct{}, 2), killed: make(chan struct{}),
	}
	j.data = &dataCache{j: j, entries: map[string]*dataEntry{}}
	for _, l := range cfg.Languages {
		j.langs[l.ID] = true
	}
	return j, nil
}

// ID returns the judge id.
func (j *Judge) ID() string { return j.cfg.ID }

// Run connects to the hub and judges until ctx ends, then drains like the
// real agent: drain is sent to the hub, new tasks are rejected, every
// accepted task finishes, results are delivered (acknowledged) for up to
// DeliverTimeout, and Run returns nil. Every goroutine it started has
// ended when it returns. It returns a *StopError at once when the hub
// refuses the judge for good (bad token, superseded, ...), dropping the
// tasks it held.
func (j *Judge) Run(ctx context.Context) error {
	if !j.started.CompareAndSwap(false, true) {
		return ErrStarted
	}
	bgCtx, stopBg := context.WithCancel(context.WithoutCancel(ctx))
	defer func() {
		stopBg()
		j.bg.Wait()
	}()
	var workers sync.WaitGroup
	for range j.cfg.Slots {
		workers.Go(j.worker)
	}
	linkCtx, stopLink := context.WithCancel(context.WithoutCancel(ctx))
	defer stopLink()
	linkDone := make(chan error, 1)
	go func() { linkDone <- j.linkLoop(linkCtx, bgCtx) }()
	flushDone := make(chan struct{})
	go func() { defer close(flushDone); j.flusher(linkCtx) }()

	var fatal error
	linkEnded := false
	select {
	case <-ctx.Done():
	case fatal = <-linkDone:
		linkEnded = true
	case <-j.killed:
		return j.die(stopLink, linkDone, linkEnded, &workers, flushDone)
	}
	j.draining.Store(true)
	j.mu.Lock()
	held := len(j.tasks)
	if j.queueOK {
		j.queueOK = false
		close(j.queue)
	}
	if fatal != nil { // the hub will not take our results: stop now
		for _, t := range j.tasks {
			t.cancel()
		}
	}
	j.mu.Unlock()
	if fatal == nil {
		j.log.Info("draining: accepting nothing new, finishing held tasks", "tasks", held)
		j.send(protocol.TypeDrain, protocol.Drain{Reason: "judge shutting down"})
	}
	workers.Wait()
	if fatal == nil && !linkEnded {
		deadline := time.NewTimer(j.cfg.DeliverTimeout)
		tick := time.NewTicker(50 * time.Millisecond)
	wait:
		for j.unackedLen() > 0 {
			select {
			case <-deadline.C:
				j.log.Warn("drain: results not acknowledged in time; dropped", "results", j.unackedLen())
				break wait
			case fatal = <-linkDone:
				linkEnded = true
				break wait
			case <-tick.C:
				j.kickFlush()
			}
		}
		deadline.Stop()
		tick.Stop()
	}
	stopLink()
	if l := j.link.Load(); l != nil {
		l.close(protocol.CloseGoingAway, "judge drained")
	}
	if !linkEnded {
		fatal = <-linkDone
	}
	<-flushDone
	if fatal != nil {
		return fatal
	}
	j.log.Info("drained")
	return nil
}

// Kill stops the judge as kill -9 stops the real agent: the connection is
// dropped at once without a drain or a close handshake, every held task
// and every unacknowledged result is lost, and Run returns nil. The hub
// finds out only when the judge misses its heartbeats.
func (j *Judge) Kill() { j.killOnce.Do(func() { close(j.killed) }) }

// die is Run's end after Kill.
func (j *Judge) die(stopLink context.CancelFunc, linkDone chan error, linkEnded bool, workers *sync.WaitGroup, flushDone chan struct{}) error {
	j.draining.Store(true)
	if l := j.link.Load(); l != nil {
		l.closeNow()
	}
	stopLink()
	j.mu.Lock()
	for _, t := range j.tasks {
		t.cancel()
	}
	if j.queueOK {
		j.queueOK = false
		close(j.queue)
	}
	j.unacked = map[protocol.TaskRef]*pending{}
	j.mu.Unlock()
	workers.Wait()
	if !linkEnded {
		<-linkDone
	}
	<-flushDone
	j.mu.Lock()
	j.unacked = map[protocol.TaskRef]*pending{}
	j.mu.Unlock()
	j.log.Info("killed")
	return nil
}

func (j *Judge) unackedLen() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.unacked)
}

// handleTask takes or refuses one task from the hub, with the real
// agent's rules (docs/judge.md, "The link").
func (j *Judge) handleTask(t protocol.Task) {
	ref := t.TaskRef
	log := j.log.With(obs.SubmissionID(ref.SubmissionID), obs.Attempt(ref.Attempt))
	j.note(EventReceived, ref, "", func(r *TaskRecord, c *counters) {
		c.received++
		r.Pushes++
		r.ProblemID, r.DataHash, r.Language = t.ProblemID, t.TestData.Hash, t.Language
		if r.Received.IsZero() {
			r.Received = time.Now()
			r.Enqueued, r.Placed = t.Times()
			r.Noticed = t.Noticed()
			r.Held = t.Held
		}
	})
	reject := func(reason protocol.RejectReason, msg string) {
		log.Info("task rejected", "reason", reason, "message", msg)
		j.reject(ref, reason, msg)
	}
	j.mu.Lock()
	if cur, ok := j.tasks[ref.SubmissionID]; ok {
		switch {
		case cur.Attempt == ref.Attempt:
			j.mu.Unlock()
			log.Info("task received again; already held")
			j.accept(ref)
			return
		case cur.Attempt > ref.Attempt:
			j.mu.Unlock()
			reject(protocol.RejectInvalid, fmt.Sprintf("attempt %d is older than the held attempt %d", ref.Attempt, cur.Attempt))
			return
		default: // a newer attempt supersedes the one we hold
			log.Info("newer attempt supersedes the held one", "held_attempt", cur.Attempt)
			delete(j.tasks, ref.SubmissionID)
			cur.cancel()
		}
	}
	if r, ok := j.finishedLocked(ref); ok {
		j.mu.Unlock()
		log.Info("task received again; already judged, resending the result")
		j.accept(ref)
		j.resendNow(r)
		return
	}
	switch {
	case j.draining.Load() || j.hubDraining.Load() || !j.queueOK:
		j.mu.Unlock()
		reject(protocol.RejectDraining, "judge is draining")
		return
	case !j.langs[t.Language]:
		j.mu.Unlock()
		reject(protocol.RejectLanguage, fmt.Sprintf("language %q is not offered here", t.Language))
		return
	case j.running+j.queued >= j.cfg.Slots+j.cfg.Queue:
		j.mu.Unlock()
		reject(protocol.RejectBusy, "every slot is taken")
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	tk := &task{Task: t, ctx: ctx, cancel: cancel, accepted: make(chan struct{})}
	j.tasks[ref.SubmissionID] = tk
	j.queued++
	j.queue <- tk // never blocks: capacity is Slots+Queue
	j.mu.Unlock()
	log.Debug("task accepted", "problem_id", t.ProblemID, "language", t.Language)
	j.accept(ref)
	close(tk.accepted)
}

func (j *Judge) accept(ref protocol.TaskRef) {
	j.send(protocol.TypeAccept, protocol.Accept{TaskRef: ref})
	j.note(EventAccepted, ref, "", func(r *TaskRecord, c *counters) {
		c.accepted++
		if r.Accepted.IsZero() {
			r.Accepted = time.Now()
		}
	})
}

func (j *Judge) reject(ref protocol.TaskRef, reason protocol.RejectReason, msg string) {
	j.send(protocol.TypeReject, protocol.Reject{TaskRef: ref, Reason: reason, Message: truncate.Marked(msg, 512)})
	j.note(EventRejected, ref, reason, func(r *TaskRecord, c *counters) {
		c.rejected++
		c.rejectedBy[reason]++
		r.Rejected = reason
	})
}

// onCancel drops an attempt the hub says this judge no longer holds; a
// cancel for an attempt not held is ignored.
func (j *Judge) onCancel(cn protocol.Cancel) {
	j.mu.Lock()
	t, ok := j.tasks[cn.SubmissionID]
	held := ok && t.Attempt == cn.Attempt
	if held {
		delete(j.tasks, cn.SubmissionID)
		t.cancel()
	}
	j.mu.Unlock()
	log := j.log.With(obs.SubmissionID(cn.SubmissionID), obs.Attempt(cn.Attempt))
	if !held {
		log.Debug("cancel for an attempt not held; ignored", "reason", cn.Reason)
		return
	}
	log.Info("task cancelled by the hub", "reason", cn.Reason)
	j.note(EventCancelled, cn.TaskRef, "", func(r *TaskRecord, c *counters) {
		c.cancelled++
		r.Cancelled = true
	})
}

// finishedLocked finds a result already produced for ref.
func (j *Judge) finishedLocked(ref protocol.TaskRef) (protocol.Result, bool) {
	if p, ok := j.unacked[ref]; ok {
		return p.res, true
	}
	for _, r := range j.recent {
		if r.TaskRef == ref {
			return r, true
		}
	}
	return protocol.Result{}, false
}

// heldRefs lists every attempt held: queued, running, or judged with the
// result not yet acknowledged (so the hub keeps the lease).
func (j *Judge) heldRefs() (refs []protocol.TaskRef, running, queued int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	refs = []protocol.TaskRef{}
	seen := map[protocol.TaskRef]bool{}
	for _, t := range j.tasks {
		refs = append(refs, t.TaskRef)
		seen[t.TaskRef] = true
	}
	for ref := range j.unacked {
		if !seen[ref] {
			refs = append(refs, ref)
		}
	}
	return refs, j.running, j.queued
}

func (j *Judge) worker() {
	for t := range j.queue {
		select {
		case <-t.accepted:
		case <-t.ctx.Done():
		}
		j.mu.Lock()
		j.queued--
		j.running++
		j.mu.Unlock()
		j.note(EventStarted, t.TaskRef, "", func(r *TaskRecord, _ *counters) { r.Started = time.Now() })
		log := j.log.With(obs.SubmissionID(t.SubmissionID), obs.Attempt(t.Attempt))
		res, work, compile, err := j.judge(t, log)
		j.mu.Lock()
		j.running--
		if cur := j.tasks[t.SubmissionID]; cur == t {
			delete(j.tasks, t.SubmissionID)
		}
		j.mu.Unlock()
		t.cancel()
		var rj *rejectError
		switch {
		case errors.As(err, &rj):
			log.Warn("task given back", "reason", rj.reason, "err", rj.err)
			j.reject(t.TaskRef, rj.reason, rj.err.Error())
		case err != nil:
			log.Debug("task abandoned", "err", err)
		default:
			j.mu.Lock()
			j.unacked[res.TaskRef] = &pending{res: res}
			j.mu.Unlock()
			log.Debug("judged", "verdict", res.Verdict, "score", res.Score, "cases", len(res.Cases), "work", work)
			j.note(EventFinished, t.TaskRef, "", func(r *TaskRecord, c *counters) {
				c.judged++
				r.Finished, r.Work, r.Compile = time.Now(), work, compile
				r.Verdict, r.Score, r.Cases = res.Verdict, res.Score, len(res.Cases)
			})
			j.kickFlush()
		}
	}
}

// rejectError gives an accepted task back to the hub.
type rejectError struct {
	reason protocol.RejectReason
	err    error
}

func (e *rejectError) Error() string { return fmt.Sprintf("reject %s: %v", e.reason, e.err) }

// judge does the simulated work of one task: progress "compiling", the
// test data (downloaded and hash-checked, or cached), the compile time,
// progress "judging", every case's time with its progress batched like
// the agent's (the first finished case of a batch starts a
// ProgressBatchInterval timer; the rest goes out before the result). It
// returns the result, the time slept and the part of it compiling. An
// error means no result: the task was cancelled, or must go back to the
// hub (*rejectError).
func (j *Judge) judge(t *task, log *slog.Logger) (res protocol.Result, work, compile time.Duration, err error) {
	ctx := t.ctx
	res = protocol.Result{TaskRef: t.TaskRef, JudgeID: j.cfg.ID, Cases: []protocol.CaseResult{}}
	pg := &batch{j: j, ref: t.TaskRef}
	defer pg.stop()
	pg.status(protocol.VerdictCompiling)
	man, err := j.data.get(ctx, t.ProblemID, t.TestData.Hash, t.TestData.URL)
	switch {
	case ctx.Err() != nil:
		return res, 0, 0, ctx.Err()
	case errors.Is(err, ErrDownload):
		return res, 0, 0, &rejectError{protocol.RejectData, err}
	case err != nil: // hash mismatch, invalid package: retrying will not help
		log.Error("system error", "err", err)
		res.Verdict, res.CompileMessage = protocol.VerdictSE, truncate.Marked(fmt.Sprintf("test data %s: %v", t.TestData.Hash, err), protocol.MaxCompileMessage)
		return res, 0, 0, nil
	}
	plan := j.model.Plan(t.Task, man)
	if err := pg.sleep(ctx, plan.Compile); err != nil {
		return res, work, compile, err
	}
	work, compile = plan.Compile, plan.Compile
	if len(plan.Cases) == 0 {
		res.Verdict, res.Score, res.CompileMessage = plan.Verdict, plan.Score, plan.CompileMessage
		return res, work, compile, nil
	}
	pg.status(protocol.VerdictJudging)
	for _, c := range plan.Cases {
		if c.Result.Verdict == protocol.VerdictSkipped {
			res.Cases = append(res.Cases, c.Result)
			continue
		}
		if err := pg.sleep(ctx, c.Time); err != nil {
			return res, work, compile, err
		}
		work += c.Time
		res.Cases = append(res.Cases, c.Result)
		pg.add(c.Result)
	}
	res.Verdict, res.Score = plan.Verdict, plan.Score
	return res, work, compile, nil
}

// batch is the progress of one task: finished cases wait at most
// ProgressBatchInterval. It is driven by the worker's own sleeps (no
// goroutine of its own).
type batch struct {
	j       *Judge
	ref     protocol.TaskRef
	pending []protocol.CaseResult
	timer   *time.Timer
}

func (b *batch) status(v protocol.Verdict) {
	b.flush()
	b.j.send(protocol.TypeProgress, protocol.Progress{TaskRef: b.ref, Status: v, Cases: []protocol.CaseResult{}})
}

func (b *batch) add(c protocol.CaseResult) {
	b.pending = append(b.pending, c)
	if b.timer == nil {
		b.timer = time.NewTimer(protocol.ProgressBatchInterval)
	}
}

func (b *batch) flush() {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if len(b.pending) > 0 {
		b.j.send(protocol.TypeProgress, protocol.Progress{TaskRef: b.ref, Status: protocol.VerdictJudging, Cases: b.pending})
		b.pending = nil
	}
}

func (b *batch) stop() { b.flush() }

// sleep is the simulated work: d on a timer, sending the progress batch
// when its interval ends meanwhile. It returns ctx's error if the task is
// cancelled.
func (b *batch) sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		var due <-chan time.Time
		if b.timer != nil {
			due = b.timer.C
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-due:
			b.timer = nil
			b.flush()
		case <-t.C:
			return nil
		}
	}
}

func (j *Judge) kickFlush() {
	select {
	case j.flushKick <- struct{}{}:
	default:
	}
}

// flusher delivers results whenever kicked, and regularly resends those
// the hub has not acknowledged within ResendAfter.
func (j *Judge) flusher(ctx context.Context) {
	t := time.NewTicker(max(j.cfg.ResendAfter/5, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-j.flushKick:
			j.flush()
		case <-t.C:
			if j.unackedLen() > 0 {
				j.flush()
			}
		}
	}
}

// flush writes every pending result to the current connection: one not
// written on it yet at once, one written on it ResendAfter ago again.
// Against a hub that does not acknowledge, a result is forgotten once
// written.
func (j *Judge) flush() {
	j.sendMu.Lock()
	defer j.sendMu.Unlock()
	j.mu.Lock()
	list := make([]*pending, 0, len(j.unacked))
	for _, p := range j.unacked {
		list = append(list, p)
	}
	j.mu.Unlock()
	slices.SortFunc(list, func(a, b *pending) int {
		if a.res.SubmissionID != b.res.SubmissionID {
			return int(a.res.SubmissionID - b.res.SubmissionID)
		}
		return a.res.Attempt - b.res.Attempt
	})
	for _, p := range list {
		l := j.link.Load()
		if l == nil {
			return
		}
		j.mu.Lock()
		due := p.link != l || time.Since(p.sentAt) >= j.cfg.ResendAfter
		j.mu.Unlock()
		if due && !j.sendResultOn(l, p.res) {
			return
		}
	}
}

// resendNow writes a result again at once (a repeated push of a judged
// attempt).
func (j *Judge) resendNow(r protocol.Result) {
	j.sendMu.Lock()
	defer j.sendMu.Unlock()
	if l := j.link.Load(); l != nil {
		j.sendResultOn(l, r)
	}
}

// sendResultOn writes r on l (under sendMu) and records it.
func (j *Judge) sendResultOn(l *link, r protocol.Result) bool {
	r.SentMs = time.Now().UnixMilli()
	b, err := protocol.Marshal(protocol.TypeResult, "", r)
	if err != nil {
		j.log.Error("result does not encode; dropped", obs.SubmissionID(r.SubmissionID), "err", err)
		j.mu.Lock()
		delete(j.unacked, r.TaskRef)
		j.mu.Unlock()
		return true
	}
	if err := l.write(b); err != nil {
		return false
	}
	j.note(EventResultSent, r.TaskRef, "", func(rec *TaskRecord, c *counters) {
		c.resultsSent++
		if rec.Sends > 0 {
			c.resends++
		} else {
			rec.Sent = r.Sent()
		}
		rec.Sends++
		if p, ok := j.unacked[r.TaskRef]; ok {
			p.link, p.sentAt = l, time.Now()
			if !l.acks {
				delete(j.unacked, r.TaskRef)
				j.rememberLocked(r)
			}
		}
	})
	return true
}

// onResultAck forgets an acknowledged result. It waits for a flush in
// progress, so that the write of a result is recorded before its ack.
func (j *Judge) onResultAck(ack protocol.ResultAck) {
	ref := ack.TaskRef
	j.sendMu.Lock()
	defer j.sendMu.Unlock()
	j.mu.Lock()
	p, ok := j.unacked[ref]
	if ok {
		delete(j.unacked, ref)
		j.rememberLocked(p.res)
	}
	j.mu.Unlock()
	if !ok {
		j.log.Debug("result_ack for no pending result", obs.SubmissionID(ref.SubmissionID), obs.Attempt(ref.Attempt))
		return
	}
	j.note(EventAcked, ref, "", func(r *TaskRecord, c *counters) {
		c.acked++
		if !r.Acked {
			r.SlotMs = ack.SlotMs
		}
		r.Acked, r.AckedAt = true, time.Now()
	})
}

func (j *Judge) rememberLocked(r protocol.Result) {
	j.recent = append(j.recent, r)
	if len(j.recent) > recentResults {
		j.recent = j.recent[len(j.recent)-recentResults:]
	}
}

// send marshals and writes one message on the current connection, if any.
// Like the agent, nothing but results is kept while the link is down.
func (j *Judge) send(t protocol.Type, payload any) {
	l := j.link.Load()
	if l == nil {
		return
	}
	b, err := protocol.Marshal(t, "", payload)
	if err != nil {
		j.log.Error("message does not encode", "type", t, "err", err)
		return
	}
	_ = l.write(b)
}

// simMemory is the memory a simulated judge reports (8 GiB).
const simMemory = 8 << 30

func (j *Judge) hello() protocol.Hello {
	h := protocol.Hello{
		JudgeID: j.cfg.ID, Token: j.cfg.Token, AgentVersion: j.cfg.AgentVersion,
		Cores: j.cfg.Cores, MemoryBytes: simMemory, CachedData: j.data.hashes(),
		MaxParallel: j.cfg.Slots, Languages: slices.Clone(j.cfg.Languages),
	}
	if h.Languages == nil {
		h.Languages = []protocol.Language{}
	}
	j.mu.Lock()
	j.reported = make(map[string]bool, len(h.CachedData))
	for _, d := range h.CachedData {
		j.reported[d] = true
	}
	j.mu.Unlock()
	return h
}

// evicted returns the hashes reported to the hub and no longer cached,
// and remembers what is cached now (as the agent does). Callers hold j.mu.
func (j *Judge) evicted(cached []string) []string {
	now := make(map[string]bool, len(cached))
	for _, d := range cached {
		now[d] = true
	}
	var gone []string
	for d := range j.reported {
		if !now[d] {
			gone = append(gone, d)
		}
	}
	slices.Sort(gone)
	j.reported = now
	return gone
}

// heartbeat reports the held tasks; load1 is the number of tasks running
// (simulated work uses no CPU), memory a fixed small ratio.
func (j *Judge) heartbeat() protocol.Heartbeat {
	refs, running, queued := j.heldRefs()
	cached := j.data.hashes()
	j.mu.Lock()
	done := j.prefetched
	j.prefetched = nil
	gone := j.evicted(cached)
	j.mu.Unlock()
	return protocol.Heartbeat{Running: running, Queued: queued, Load1: float64(running),
		MemUsedRatio: 0.1, Cores: j.cfg.Cores, Tasks: refs, Prefetched: done, Evicted: gone}
}

// prefetchDone queues a prefetch's outcome for the next heartbeat.
func (j *Judge) prefetchDone(hash string, err error) {
	o := protocol.PrefetchOutcome{Hash: hash}
	if err != nil {
		o.Error = truncate.Marked(err.Error(), 200)
	}
	j.mu.Lock()
	j.prefetched = append(j.prefetched, o)
	j.mu.Unlock()
}

// onPrefetch downloads test data in the background (two at a time; more
// are skipped: the task will fetch).
func (j *Judge) onPrefetch(ctx context.Context, p protocol.Prefetch) {
	select {
	case j.prefetch <- struct{}{}:
	default:
		j.log.Info("prefetch skipped: two already running", "hash", p.TestData.Hash)
		j.prefetchDone(p.TestData.Hash, errors.New("busy: two prefetches already running"))
		return
	}
	j.count(func(c *counters) { c.prefetches++ })
	j.bg.Go(func() {
		defer func() { <-j.prefetch }()
		ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		defer cancel()
		_, err := j.data.get(ctx, p.ProblemID, p.TestData.Hash, p.TestData.URL)
		if err != nil && ctx.Err() == nil {
			j.log.Warn("prefetch failed", "problem_id", p.ProblemID, "hash", p.TestData.Hash, "err", err)
		}
		if ctx.Err() == nil {
			j.prefetchDone(p.TestData.Hash, err)
		}
	})
}

func (j *Judge) onEvict(ev protocol.Evict) {
	n := j.data.evict(ev.ProblemID, ev.DataHash)
	j.count(func(c *counters) { c.evicted += int64(n) })
	j.log.Info("test data evicted", "problem_id", ev.ProblemID, "hash", ev.DataHash, "packages", n)
}

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/truncate"
	"github.com/verdict-oj/verdict/judge/internal/cache"
	"github.com/verdict-oj/verdict/judge/internal/lang"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// ErrNotReady is what Ready returns while the agent is not connected to the
// hub, or draining.
var ErrNotReady = errors.New("agent: not connected to the hub")

// Agent is a judge agent: it dials the hub, takes tasks, judges them in the
// sandbox and reports. Use New, then Run.
type Agent struct {
	cfg    Config
	log    *slog.Logger
	langs  map[string]lang.Available
	cache  *cache.Cache
	outbox *outbox
	builds *buildCache
	cpus   []int // per slot, nil: not pinned
	m      *metrics

	mu       sync.Mutex
	tasks    map[int64]*task // held (queued or running), by submission id
	queue    chan *task
	queueOK  bool // queue open
	running  int
	queued   int
	recent   []protocol.Result           // last delivered results, to answer a repeated task
	sent     map[protocol.TaskRef]sentOn // outbox results written, not yet acknowledged
	draining atomic.Bool

	hubDraining atomic.Bool  // the hub asked us to drain: reject until reconnect
	retryAfter  atomic.Int64 // ns the hub asked us to wait before reconnecting

	link      atomic.Pointer[link] // the current connection, nil when down
	flushKick chan struct{}
	sendMu    sync.Mutex // one outbox flush at a time
	prefetch  chan struct{}
	// Guarded by mu: the hashes being prefetched, and the outcomes of
	// prefetches the next heartbeat reports.
	prefetching map[string]bool
	prefetched  []protocol.PrefetchOutcome
	// Guarded by mu: the cached hashes the hub was last told of (hello's
	// list, then each heartbeat's), so a heartbeat reports what has been
	// evicted since.
	reported map[string]bool
}

// task is one accepted attempt.
type task struct {
	protocol.Task
	ctx    context.Context
	cancel context.CancelFunc
}

const recentResults = 64

// New checks cfg, opens the test data cache and the outbox under cfg.Dir.
func New(cfg Config) (*Agent, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	for _, d := range []string{cfg.Dir, filepath.Join(cfg.Dir, "work")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("agent new: %w", err)
		}
	}
	// Work dirs (tmpfs mounts, workdir.go) a killed judge left mounted:
	// a directory with a mount in it could not be removed.
	if n, err := sandbox.UnmountWorkDirs(cfg.Dir); err != nil || n > 0 {
		cfg.Logger.Warn("work dirs left mounted", "unmounted", n, "err", err)
	}
	// Nobody else may look inside the state dir (token-authenticated data,
	// results). The sandbox reaches work/ through its own mounts.
	if err := os.Chmod(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("agent new: %w", err)
	}
	c, err := cache.New(cache.Config{
		Dir: filepath.Join(cfg.Dir, "cache"), MaxBytes: cfg.CacheBytes, Client: cfg.HTTPClient,
		Token: cfg.Token, URLFor: cfg.TestDataURL, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("agent new: %w", err)
	}
	ob, err := openOutbox(filepath.Join(cfg.Dir, "outbox"))
	if err != nil {
		return nil, fmt.Errorf("agent new: %w", err)
	}
	a := &Agent{
		cfg: cfg, log: cfg.Logger.With(obs.JudgeID(cfg.JudgeID)), langs: map[string]lang.Available{},
		cache: c, outbox: ob, builds: newBuildCache(filepath.Join(cfg.Dir, "buildcache"), cfg.BuildCacheBytes), cpus: slotCPUs(cfg.CPUs, cfg.MaxParallel),
		tasks: map[int64]*task{}, queue: make(chan *task, cfg.MaxParallel+cfg.QueueSize), queueOK: true,
		flushKick: make(chan struct{}, 1), prefetch: make(chan struct{}, 2), sent: map[protocol.TaskRef]sentOn{},
		prefetching: map[string]bool{},
	}
	a.m = newMetrics(cfg.Registry, a)
	for _, l := range cfg.Languages {
		a.langs[l.ID] = l
	}
	if n := ob.len(); n > 0 {
		a.log.Info("undelivered results from an earlier run", "results", n)
	}
	return a, nil
}

// Ready reports nil when the agent is connected to the hub and not
// draining: it can take work.
func (a *Agent) Ready(context.Context) error {
	if a.draining.Load() {
		return errors.New("agent: draining")
	}
	if a.link.Load() == nil {
		return ErrNotReady
	}
	return nil
}

// Run connects to the hub and judges until ctx ends, then drains: no new
// tasks, every accepted task finishes, its result is delivered (for up to
// DeliverTimeout after the last task; what is left stays in the outbox for
// the next start), and Run returns nil. It returns a *StopError at once
// when the hub refuses the judge for good (bad token, superseded, ...).
func (a *Agent) Run(ctx context.Context) error {
	var workers sync.WaitGroup
	for slot := range a.cfg.MaxParallel {
		workers.Go(func() { a.worker(slot) })
	}
	linkCtx, stopLink := context.WithCancel(context.WithoutCancel(ctx))
	defer stopLink()
	linkDone := make(chan error, 1)
	go func() { linkDone <- a.linkLoop(linkCtx) }()
	flushDone := make(chan struct{})
	go func() { defer close(flushDone); a.flusher(linkCtx) }()

	var fatal error
	select {
	case <-ctx.Done():
	case fatal = <-linkDone:
		linkDone <- fatal // for the wait below
	}
	a.draining.Store(true)
	a.mu.Lock()
	held := len(a.tasks)
	if a.queueOK {
		a.queueOK = false
		close(a.queue)
	}
	if fatal != nil { // the hub will not take our results: stop now
		for _, t := range a.tasks {
			t.cancel()
		}
	}
	a.mu.Unlock()
	if fatal == nil {
		a.log.Info("draining: accepting nothing new, finishing held tasks", "tasks", held)
		a.send(protocol.TypeDrain, protocol.Drain{Reason: "judge shutting down"})
	}
	workers.Wait()
	if fatal == nil {
		deadline := time.NewTimer(a.cfg.DeliverTimeout)
		tick := time.NewTicker(50 * time.Millisecond)
	wait:
		for a.outbox.len() > 0 {
			select {
			case <-deadline.C:
				a.log.Warn("drain: results not delivered; they stay in the outbox for the next start", "results", a.outbox.len())
				break wait
			case fatal = <-linkDone:
				linkDone <- fatal
				if fatal != nil {
					break wait
				}
			case <-tick.C:
				a.kickFlush()
			}
		}
		deadline.Stop()
		tick.Stop()
	}
	stopLink()
	if l := a.link.Load(); l != nil {
		l.close(protocol.CloseGoingAway, "judge drained")
	}
	err := <-linkDone
	<-flushDone
	a.cache.Close()
	if fatal != nil {
		return fatal
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		var stop *StopError
		if errors.As(err, &stop) && stop.Code == protocol.CloseDrained {
			return nil
		}
		return err
	}
	a.log.Info("drained")
	return nil
}

// handleTask takes or refuses one task from the hub.
func (a *Agent) handleTask(t protocol.Task) {
	ref := t.TaskRef
	log := a.log.With(obs.SubmissionID(ref.SubmissionID), obs.Attempt(ref.Attempt))
	reject := func(reason protocol.RejectReason, msg string) {
		log.Info("task rejected", "reason", reason, "message", msg)
		a.m.tasks.WithLabelValues("rejected_" + string(reason)).Inc()
		a.send(protocol.TypeReject, protocol.Reject{TaskRef: ref, Reason: reason, Message: msg})
	}
	a.mu.Lock()
	if cur, ok := a.tasks[ref.SubmissionID]; ok {
		switch {
		case cur.Attempt == ref.Attempt:
			a.mu.Unlock()
			log.Info("task received again; already held")
			a.send(protocol.TypeAccept, protocol.Accept{TaskRef: ref})
			return
		case cur.Attempt > ref.Attempt:
			a.mu.Unlock()
			reject(protocol.RejectInvalid, fmt.Sprintf("attempt %d is older than the held attempt %d", ref.Attempt, cur.Attempt))
			return
		default: // a newer attempt supersedes the one we hold
			log.Info("newer attempt supersedes the held one", "held_attempt", cur.Attempt)
			cur.cancel()
		}
	}
	if r, ok := a.finishedLocked(ref); ok {
		a.mu.Unlock()
		log.Info("task received again; already judged, resending the result")
		a.send(protocol.TypeAccept, protocol.Accept{TaskRef: ref})
		a.sendResult(r)
		return
	}
	switch {
	case a.draining.Load() || a.hubDraining.Load() || !a.queueOK:
		a.mu.Unlock()
		reject(protocol.RejectDraining, "judge is draining")
		return
	case a.langs[t.Language].ID == "" && t.Language != protocol.LanguageOutputs:
		a.mu.Unlock()
		reject(protocol.RejectLanguage, fmt.Sprintf("language %q is not installed here", t.Language))
		return
	case a.running+a.queued >= a.cfg.MaxParallel+a.cfg.QueueSize:
		a.mu.Unlock()
		reject(protocol.RejectBusy, "local queue full")
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	tk := &task{Task: t, ctx: ctx, cancel: cancel}
	a.tasks[ref.SubmissionID] = tk
	a.queued++
	a.queue <- tk // never blocks: capacity is MaxParallel+QueueSize
	a.mu.Unlock()
	attrs := []any{"problem_id", t.ProblemID, "language", t.Language}
	if enq, disp := t.Times(); !enq.IsZero() && !disp.IsZero() {
		// How long it waited in the hub's queue, and on its way here
		// (the two clocks may differ on different machines).
		attrs = append(attrs, "queued_ms", disp.Sub(enq).Milliseconds(), "in_flight_ms", time.Since(disp).Milliseconds())
	}
	log.Info("task accepted", attrs...)
	a.m.tasks.WithLabelValues("accepted").Inc()
	a.send(protocol.TypeAccept, protocol.Accept{TaskRef: ref})
}

// onCancel stops an attempt the hub says this judge no longer holds: a
// queued task is skipped, a running one killed (its sandbox run ends with
// the context); nothing is sent for it. A cancel for an attempt not held
// (already finished, its result waiting for an ack, or a newer attempt) is
// ignored.
func (a *Agent) onCancel(c protocol.Cancel) {
	a.mu.Lock()
	t, ok := a.tasks[c.SubmissionID]
	if ok && t.Attempt == c.Attempt {
		delete(a.tasks, c.SubmissionID)
		t.cancel()
	}
	a.mu.Unlock()
	log := a.log.With(obs.SubmissionID(c.SubmissionID), obs.Attempt(c.Attempt))
	if !ok || t.Attempt != c.Attempt {
		log.Debug("cancel for an attempt not held; ignored", "reason", c.Reason)
		return
	}
	a.m.tasks.WithLabelValues("cancelled").Inc()
	log.Info("task cancelled by the hub", "reason", c.Reason)
}

// heldTasks lists the attempts queued or running here.
func (a *Agent) heldTasks() []protocol.TaskRef {
	a.mu.Lock()
	defer a.mu.Unlock()
	refs := make([]protocol.TaskRef, 0, len(a.tasks))
	for _, t := range a.tasks {
		refs = append(refs, t.TaskRef)
	}
	return refs
}

// finishedLocked finds a result already produced for ref.
func (a *Agent) finishedLocked(ref protocol.TaskRef) (protocol.Result, bool) {
	if r, ok := a.outbox.get(ref); ok {
		return r, true
	}
	for _, r := range a.recent {
		if r.TaskRef == ref {
			return r, true
		}
	}
	return protocol.Result{}, false
}

// heldRefs lists every attempt the judge holds: queued, running, or judged
// with the result not yet delivered (so the hub keeps the lease).
func (a *Agent) heldRefs() (refs []protocol.TaskRef, running, queued int) {
	a.mu.Lock()
	for _, t := range a.tasks {
		refs = append(refs, t.TaskRef)
	}
	running, queued = a.running, a.queued
	a.mu.Unlock()
	seen := map[protocol.TaskRef]bool{}
	for _, r := range refs {
		seen[r] = true
	}
	for _, r := range a.outbox.refs() {
		if !seen[r] {
			refs = append(refs, r)
		}
	}
	return refs, running, queued
}

func (a *Agent) worker(slot int) {
	for t := range a.queue {
		a.mu.Lock()
		a.queued--
		a.running++
		a.mu.Unlock()
		log := a.log.With(obs.SubmissionID(t.SubmissionID), obs.Attempt(t.Attempt))
		start := time.Now()
		res, err := a.judge(t.ctx, slot, t, log)
		a.mu.Lock()
		a.running--
		if cur := a.tasks[t.SubmissionID]; cur == t {
			delete(a.tasks, t.SubmissionID)
		}
		a.mu.Unlock()
		t.cancel()
		var rj *rejectError
		switch {
		case errors.As(err, &rj):
			log.Warn("task given back", "reason", rj.reason, "err", rj.err)
			a.m.tasks.WithLabelValues("rejected_" + string(rj.reason)).Inc()
			a.send(protocol.TypeReject, protocol.Reject{TaskRef: t.TaskRef, Reason: rj.reason, Message: truncate.Marked(rj.err.Error(), 512)})
		case err != nil:
			log.Info("task abandoned", "err", err)
			a.m.tasks.WithLabelValues("abandoned").Inc()
		default:
			if perr := a.outbox.put(res); perr != nil {
				log.Error("result not persisted; sending it anyway", "err", perr)
				a.sendResult(res)
				break
			}
			log.Info("judged", "verdict", res.Verdict, "score", res.Score, "cases", len(res.Cases), "took", time.Since(start).Round(time.Millisecond))
			a.m.tasks.WithLabelValues("judged").Inc()
			a.m.verdicts.WithLabelValues(string(res.Verdict)).Inc()
			a.kickFlush()
		}
	}
}

// rejectError gives an accepted task back to the hub (e.g. test data that
// cannot be downloaded right now).
type rejectError struct {
	reason protocol.RejectReason
	err    error
}

func (e *rejectError) Error() string { return fmt.Sprintf("reject %s: %v", e.reason, e.err) }

func (a *Agent) kickFlush() {
	select {
	case a.flushKick <- struct{}{}:
	default:
	}
}

// flusher delivers outbox results whenever kicked, and every resendCheck
// resends results a hub that acknowledges has not acknowledged in time.
func (a *Agent) flusher(ctx context.Context) {
	t := time.NewTicker(resendCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.flushKick:
			a.flush()
		case <-t.C:
			if a.outbox.len() > 0 {
				a.flush()
			}
		}
	}
}

// Resending unacknowledged results: a result sent on the current link is
// sent again only after resendAfter (the hub failed to record it, e.g.
// Redis was down); on a new link at once. The hub knows a repeat of a
// recorded result, acknowledges it and publishes its final state again.
const (
	resendAfter = 10 * time.Second
	resendCheck = 2 * time.Second
)

// sentOn remembers where and when a result was last written.
type sentOn struct {
	link *link
	at   time.Time
}

// flush writes every pending result to the current connection. Against a
// hub that acknowledges, a result leaves the outbox on its result_ack;
// otherwise once written.
func (a *Agent) flush() {
	a.sendMu.Lock()
	defer a.sendMu.Unlock()
	for _, r := range a.outbox.list() {
		l := a.link.Load()
		if l == nil {
			return
		}
		a.mu.Lock()
		prev, sent := a.sent[r.TaskRef]
		a.mu.Unlock()
		if sent && prev.link == l && time.Since(prev.at) < resendAfter {
			continue
		}
		if !a.sendResultOn(l, r) {
			return
		}
	}
}

func (a *Agent) sendResult(r protocol.Result) {
	if l := a.link.Load(); l != nil {
		a.sendResultOn(l, r)
	}
}

// onResultAck forgets an acknowledged result.
func (a *Agent) onResultAck(ack protocol.ResultAck) {
	ref := ack.TaskRef
	a.outbox.done(ref)
	a.mu.Lock()
	delete(a.sent, ref)
	a.mu.Unlock()
	a.log.Debug("result acknowledged", obs.SubmissionID(ref.SubmissionID), obs.Attempt(ref.Attempt))
}

func (a *Agent) sendResultOn(l *link, r protocol.Result) bool {
	r.SentMs = time.Now().UnixMilli()
	b, err := protocol.Marshal(protocol.TypeResult, "", r)
	if err != nil {
		a.log.Error("result does not encode; dropped", obs.SubmissionID(r.SubmissionID), "err", err)
		a.outbox.done(r.TaskRef)
		return true
	}
	if err := l.write(b); err != nil {
		return false
	}
	if l.acks {
		a.mu.Lock()
		a.sent[r.TaskRef] = sentOn{link: l, at: time.Now()}
		a.mu.Unlock()
	} else {
		a.outbox.done(r.TaskRef)
	}
	a.mu.Lock()
	a.recent = append(a.recent, r)
	if len(a.recent) > recentResults {
		a.recent = a.recent[len(a.recent)-recentResults:]
	}
	a.mu.Unlock()
	a.log.Debug("result delivered", obs.SubmissionID(r.SubmissionID), obs.Attempt(r.Attempt))
	return true
}

// send marshals and writes one message on the current connection, if any.
// Messages other than results are not kept when the link is down: progress
// is superseded by the result, and accept/reject/heartbeat are renewed by
// the next heartbeat.
func (a *Agent) send(t protocol.Type, payload any) {
	l := a.link.Load()
	if l == nil {
		return
	}
	b, err := protocol.Marshal(t, "", payload)
	if err != nil {
		a.log.Error("message does not encode", "type", t, "err", err)
		return
	}
	_ = l.write(b)
}

func (a *Agent) hello() protocol.Hello {
	_, memTotal, _ := hostLoad()
	h := protocol.Hello{
		JudgeID: a.cfg.JudgeID, Token: a.cfg.Token, AgentVersion: a.cfg.AgentVersion,
		Cores: runtime.NumCPU(), MemoryBytes: memTotal, CachedData: a.cache.Hashes(),
		MaxParallel: a.cfg.MaxParallel,
		// The task kinds an older agent would misread (Task.Needs).
		Capabilities: []string{protocol.CapabilityInputValidation, protocol.CapabilityProgramLanguages, protocol.CapabilityICPCValidator,
			protocol.CapabilityBuildCheck, protocol.CapabilityGrading},
	}
	for _, l := range a.cfg.Languages {
		h.Languages = append(h.Languages, protocol.Language{ID: l.ID, Version: l.VersionText})
	}
	h.Languages = append(h.Languages, a.capabilities()...)
	if h.CachedData == nil {
		h.CachedData = []string{}
	}
	a.mu.Lock()
	a.reported = make(map[string]bool, len(h.CachedData))
	for _, d := range h.CachedData {
		a.reported[d] = true
	}
	a.mu.Unlock()
	return h
}

// evicted returns the hashes reported to the hub and no longer cached,
// and remembers what is cached now. Callers hold a.mu.
func (a *Agent) evicted(cached []string) []string {
	now := make(map[string]bool, len(cached))
	for _, d := range cached {
		now[d] = true
	}
	var gone []string
	for d := range a.reported {
		if !now[d] {
			gone = append(gone, d)
		}
	}
	slices.Sort(gone)
	a.reported = now
	return gone
}

func (a *Agent) heartbeat() protocol.Heartbeat {
	refs, running, queued := a.heldRefs()
	load1, _, memUsed := hostLoad()
	if refs == nil {
		refs = []protocol.TaskRef{}
	}
	cached := a.cache.Hashes()
	a.mu.Lock()
	done := a.prefetched
	a.prefetched = nil
	gone := a.evicted(cached)
	a.mu.Unlock()
	return protocol.Heartbeat{Running: running, Queued: queued, Load1: load1, MemUsedRatio: memUsed,
		Cores: runtime.NumCPU(), Tasks: refs, Prefetched: done, Evicted: gone}
}

// onPrefetch warms the cache in the background: it downloads the package
// and compiles its special judge, if it has one, as the first task would
// (at most two at a time; more are refused and reported failed, the hub
// retries; one for a hash already being prefetched is ignored). The
// outcome goes out with the next heartbeat.
func (a *Agent) onPrefetch(p protocol.Prefetch) {
	hash := p.TestData.Hash
	a.mu.Lock()
	if a.prefetching[hash] {
		a.mu.Unlock()
		return
	}
	select {
	case a.prefetch <- struct{}{}:
		a.prefetching[hash] = true
		a.mu.Unlock()
	default:
		a.prefetched = append(a.prefetched, protocol.PrefetchOutcome{Hash: hash, Error: "busy: two prefetches running"})
		a.mu.Unlock()
		a.log.Info("prefetch skipped: two already running", "hash", hash)
		return
	}
	go func() {
		defer func() { <-a.prefetch }()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		out := protocol.PrefetchOutcome{Hash: hash}
		if err := a.warm(ctx, p); err != nil {
			a.log.Warn("prefetch failed", "problem_id", p.ProblemID, "hash", hash, "err", err)
			out.Error = truncate.Marked(err.Error(), protocol.MaxCaseMessage)
		} else {
			a.log.Info("prefetched", "problem_id", p.ProblemID, "hash", hash)
		}
		a.mu.Lock()
		delete(a.prefetching, hash)
		a.prefetched = append(a.prefetched, out)
		a.mu.Unlock()
	}()
}

// warm makes sure a package is cached and its special judge (a package
// naming one in its manifest) compiled: what a task of a contest would
// otherwise do first, at the start.
func (a *Agent) warm(ctx context.Context, p protocol.Prefetch) error {
	data, err := a.cache.Get(ctx, p.ProblemID, p.TestData.Hash, p.TestData.URL)
	if err != nil {
		return err
	}
	defer data.Release()
	m := data.Manifest()
	if m.Checker == "" && !m.Interactive {
		return nil
	}
	// The sandbox slot after the agent's own (the first one when the
	// sandbox has no more): a slot runs one program at a time, whoever asks.
	at := a.placeIn(a.cfg.MaxParallel, a.spareCPU())
	if m.Checker != "" {
		if _, err := data.Build(ctx, checkerBuild, func(ctx context.Context, dir string) (string, error) {
			return a.buildChecker(ctx, at, data.Dir(), dir, m)
		}); err != nil {
			return fmt.Errorf("special judge: %w", err)
		}
	}
	if m.Interactive {
		if _, err := data.Build(ctx, interactorBuild, func(ctx context.Context, dir string) (string, error) {
			return a.buildInteractor(ctx, at, data.Dir(), dir, m)
		}); err != nil {
			return fmt.Errorf("interactor: %w", err)
		}
	}
	return nil
}

// spareCPU is a CPU no slot is pinned to, for work outside the slots
// (compiling a prefetched special judge), or nil: unpinned.
func (a *Agent) spareCPU() *int {
	if a.cpus == nil {
		return nil
	}
	for _, c := range a.cfg.CPUs {
		if !slices.Contains(a.cpus, c) {
			return &c
		}
	}
	return nil
}

// refOf extracts the task ref from a task payload that failed validation.
func refOf(data json.RawMessage) (protocol.TaskRef, bool) {
	var r protocol.TaskRef
	if json.Unmarshal(data, &r) != nil || r.Validate() != nil {
		return r, false
	}
	return r, true
}

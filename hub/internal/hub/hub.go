package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/internal/warmplan"
)

// ErrDraining is reported by Ready once the hub drains.
var ErrDraining = errors.New("hub: draining")

// Hub holds the WebSockets of judges and browsers, schedules the queue onto
// the judges and fans live events out to browsers.
type Hub struct {
	cfg Config
	q   *queue.Queue
	n   rkeys.Names
	log *slog.Logger
	m   *metrics
	// ps carries the browsers' topics (thousands of channels in a
	// contest) and the queue notice's; ctl the hub's own channels (the
	// queue's changes, judge evictions and connections, the warm plan) on a
	// connection and a reader of its own, so that the wake of an enqueue
	// never waits behind the browsers' events: on one connection an
	// enqueue's notice took 6 ms on average, p99 up to 100 ms, in the
	// 3,000-contestant rehearsal at 10× (2026-12-05 17:41), longer than
	// the dispatch wait it starts.
	ps, ctl *pubsub
	// reads bounds the browsers' Redis reads in flight
	// (Config.BrowserReads): the judges' work keeps the rest of the pool.
	reads *readGate

	runCtx   context.Context
	timers   timers // delayed work (coalesced scoreboard pushes): stopped by Run
	started  atomic.Bool
	draining atomic.Bool
	conns    sync.WaitGroup
	wake     chan struct{}
	// dispatchIdle: the dispatcher waits for a wake or its tick;
	// wokenAt (Unix ns, 0: none) is the first wake since it went idle,
	// for verdict_hub_dispatch_wake_seconds.
	dispatchIdle atomic.Bool
	wokenAt      atomic.Int64
	// noticed: when this hub read each enqueue's notice, for the push.
	noticed noticeTimes
	// passes: the dispatcher's last passes (Config.PassLog; nil: none).
	passes *passLog
	// held: how often each queued enqueue was held and why, for the push
	// (the dispatcher's own).
	held   holdTally
	notice chan struct{}
	// resync asks for fresh snapshots for every browser's channels: the
	// browsers' pub/sub lost its connection, and events with it (resync.go).
	resync chan struct{}
	// finals: final live states whose publish failed, published again
	// (republish.go).
	finals unpublished
	// warmKick asks the warm loop for a pass (a judge connected or
	// reported a prefetch); warmRead for a pass on a freshly read plan.
	warmKick, warmRead chan struct{}
	// warmPlan is the last plan read (warm loop only).
	warmPlan warmplan.Plan
	// policyMu serialises Pick (the dispatcher) and Observe (results and
	// lease expiries): a policy keeps state.
	policyMu sync.Mutex

	mu       sync.Mutex
	judges   map[string]*judgeConn
	browsers map[*browserConn]struct{}
	topics   map[string]*topic // by Redis channel
	// saturated: the last dispatch pass held tasks because every judge
	// that could run them was busy (or there were none).
	saturated bool
	noticeOn  bool
	trend     sched.QueueTrend // notice.go, the notice loop only
}

// New checks cfg and builds a Hub. Nothing runs until Run.
func New(cfg Config) (*Hub, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	q, err := queue.New(queue.Config{Client: cfg.Redis, Names: cfg.Names, MaxAttempts: cfg.MaxAttempts})
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	m, err := newMetrics(cfg.Metrics)
	if err != nil {
		return nil, err
	}
	m.reserve.Set(max(cfg.Reserve, 0))
	h := &Hub{
		cfg: cfg, q: q, n: cfg.Names, log: cfg.Logger.With("hub_id", cfg.HubID), m: m, passes: newPassLog(cfg.PassLog),
		wake: make(chan struct{}, 1), notice: make(chan struct{}, 1), resync: make(chan struct{}, 1),
		warmKick: make(chan struct{}, 1), warmRead: make(chan struct{}, 1),
		judges: map[string]*judgeConn{}, browsers: map[*browserConn]struct{}{}, topics: map[string]*topic{},
	}
	if e, ok := cfg.Policy.(sched.Estimator); ok {
		if err := cfg.Metrics.Register(policyCollector{mu: &h.policyMu, policy: e}); err != nil {
			return nil, fmt.Errorf("hub: register metrics: %w", err)
		}
	}
	h.reads = newReadGate(cfg.BrowserReads, m)
	h.ps = newPubSub(cfg.Redis, h.log, h.onMessage, func() {
		h.holdForResync()
		signal(h.resync)
	})
	// Control messages lost with a connection: an enqueue's notice (the
	// dispatcher looks again) and a changed warm plan (read it again).
	h.ctl = newPubSub(cfg.Redis, h.log, h.onMessage, func() { h.wakeDispatcher(); signal(h.warmRead) })
	h.timers.init()
	return h, nil
}

// ID returns the hub id.
func (h *Hub) ID() string { return h.cfg.HubID }

// Queue returns the hub's queue handle.
func (h *Hub) Queue() *queue.Queue { return h.q }

// Handler serves the two WebSocket endpoints: /judge (verdict.judge.v1)
// and /ws (verdict.live.v1). Mount /healthz, /readyz and /metrics beside it.
func (h *Hub) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /judge", h.serveJudge)
	mux.HandleFunc("GET /ws", h.serveBrowser)
	return mux
}

// Ready reports whether the hub serves: running, not draining, Redis
// answering and both pub/sub connections up.
func (h *Hub) Ready(ctx context.Context) error {
	if !h.started.Load() {
		return errors.New("hub: not started")
	}
	if h.draining.Load() {
		return ErrDraining
	}
	if err := h.cfg.Redis.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("hub: redis: %w", err)
	}
	if !h.ps.isHealthy() || !h.ctl.isHealthy() {
		return errors.New("hub: pubsub not connected")
	}
	return nil
}

// Run dispatches, reaps and fans out until ctx is done, then drains: it
// closes every judge (CloseHubShutdown: they reconnect elsewhere and keep
// their leases) and browser connection and waits for their goroutines.
// Stop the HTTP server from accepting first (or together). Every goroutine
// Run starts, the delayed scoreboard pushes included, has ended when it
// returns.
func (h *Hub) Run(ctx context.Context) error {
	if !h.started.CompareAndSwap(false, true) {
		return errors.New("hub: Run called twice")
	}
	h.runCtx = ctx
	defer h.timers.stop()
	if err := h.q.EnsureResultsGroup(ctx); err != nil {
		return err
	}
	// loops ends with ctx, or at once when Run fails to start.
	loops, stopLoops := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stopLoops(); wg.Wait() }() // before the timers stop: pub/sub schedules them
	wg.Go(func() { h.ps.run(loops) })
	wg.Go(func() { h.ctl.run(loops) })
	for _, ch := range []string{h.n.QueueChanged(), h.n.JudgeEvict(), h.n.JudgeConnected(), h.n.WarmPlanChanged()} {
		if err := h.ctl.subscribe(ctx, ch); err != nil {
			h.draining.Store(true)
			return err
		}
	}
	// The queue notice is the browsers' (and each connection's health
	// shows once it holds a subscription).
	if err := h.ps.subscribe(ctx, h.n.Events(string(protocol.ChannelQueue), 0)); err != nil {
		h.draining.Store(true)
		return err
	}
	h.log.Info("hub running", "policy", h.cfg.Policy.Name(), "heartbeat", h.cfg.HeartbeatInterval, "lease", h.cfg.LeaseTimeout)
	wg.Go(func() { h.dispatchLoop(loops) })
	wg.Go(func() { h.reapLoop(loops) })
	wg.Go(func() { h.noticeLoop(loops) })
	wg.Go(func() { h.resyncLoop(loops) })
	wg.Go(func() { h.republishLoop(loops) })
	if h.cfg.WarmBefore > 0 {
		wg.Go(func() { h.warmLoop(loops) })
	}
	<-ctx.Done()
	h.draining.Store(true)
	h.closeAll()
	wg.Wait()
	h.timers.stop()
	done := make(chan struct{})
	go func() { h.conns.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		h.log.Warn("connections did not finish within 10s")
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_ = h.cfg.Redis.HDel(dctx, h.n.HubCapacity(), h.cfg.HubID).Err()
	_ = h.cfg.Redis.HDel(dctx, h.n.WarmStatus(), h.cfg.HubID).Err()
	h.log.Info("hub stopped")
	return nil
}

// timers runs delayed work for the hub, each job on a timer of its own,
// and stops with Run: stop cancels the jobs' context, stops the timers not
// yet fired and waits for the jobs already running.
type timers struct {
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	stopped bool
	pending map[*time.Timer]struct{}
	running sync.WaitGroup // one per timer scheduled and neither stopped nor done
}

func (ts *timers) init() {
	ts.ctx, ts.cancel = context.WithCancel(context.Background())
	ts.pending = map[*time.Timer]struct{}{}
}

// after runs f in its own goroutine after d, with a context that ends when
// the timers stop; nothing once they have.
func (ts *timers) after(d time.Duration, f func(ctx context.Context)) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.stopped {
		return
	}
	ts.running.Add(1)
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		defer ts.running.Done()
		ts.mu.Lock() // after() has stored t by then: it held mu
		delete(ts.pending, t)
		ts.mu.Unlock()
		if ts.ctx.Err() == nil {
			f(ts.ctx)
		}
	})
	ts.pending[t] = struct{}{}
}

// stop cancels every job and waits for those running. Idempotent.
func (ts *timers) stop() {
	ts.mu.Lock()
	ts.stopped = true
	ts.cancel()
	for t := range ts.pending {
		if t.Stop() { // never fired: its func will not run
			ts.running.Done()
		}
		delete(ts.pending, t)
	}
	ts.mu.Unlock()
	ts.running.Wait()
}

func (h *Hub) closeAll() {
	h.mu.Lock()
	js := make([]*judgeConn, 0, len(h.judges))
	for _, j := range h.judges {
		js = append(js, j)
	}
	bs := make([]*browserConn, 0, len(h.browsers))
	for b := range h.browsers {
		bs = append(bs, b)
	}
	h.mu.Unlock()
	for _, j := range js {
		j.close(protocol.CloseHubShutdown, "hub shutting down")
	}
	for _, b := range bs {
		b.close(protocol.CloseHubShutdown, "hub shutting down")
	}
}

// wakeDispatcher asks for a dispatch pass. A wake that finds the
// dispatcher idle is timed to the pass it starts (the dispatcher's own
// wait for a core: the scheduling simulator starts that pass at once).
func (h *Hub) wakeDispatcher() {
	if h.dispatchIdle.Load() {
		h.wokenAt.CompareAndSwap(0, time.Now().UnixNano())
	}
	signal(h.wake)
}

// signal wakes the reader of a one-slot channel without blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// onMessage routes one pub/sub message. It runs on the pub/sub goroutine
// and must not block on Redis.
func (h *Hub) onMessage(channel, payload string) {
	switch channel {
	case h.n.QueueChanged():
		if sub, at, ok := queue.EnqueueNotice(payload); ok {
			// Clocks apart (Redis on another machine) can make it
			// negative: counted as at once.
			now := time.Now()
			h.m.noticeSeconds.Observe(max(0, now.Sub(at).Seconds()))
			h.noticed.add(sub, at, now)
		}
		h.wakeDispatcher()
		return
	case h.n.JudgeEvict():
		h.onEvict(payload)
		return
	case h.n.JudgeConnected():
		h.onJudgeConnected(payload)
		return
	case h.n.WarmPlanChanged():
		signal(h.warmRead)
		return
	case h.n.Events(string(protocol.ChannelQueue), 0):
		select {
		case h.notice <- struct{}{}:
		default:
		}
		return
	}
	h.mu.Lock()
	tp := h.topics[channel]
	h.mu.Unlock()
	if tp != nil {
		tp.onEvent(payload)
	}
}

func (h *Hub) onEvict(payload string) {
	ev, err := decodeEvict(payload)
	if err != nil {
		h.log.Warn("bad evict message", "err", err)
		return
	}
	b, err := protocol.Marshal(protocol.TypeEvict, "", ev)
	if err != nil {
		h.log.Warn("bad evict message", "err", err)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, j := range h.judges {
		j.evict(ev)
		j.enqueue(b)
	}
	signal(h.warmKick) // an evicted hash the plan still wants goes back
	h.log.Info("evict broadcast", "problem_id", ev.ProblemID, "data_hash", ev.DataHash, "judges", len(h.judges))
}

func decodeEvict(payload string) (protocol.Evict, error) {
	var ev protocol.Evict
	if err := json.Unmarshal([]byte(payload), &ev); err != nil {
		return ev, fmt.Errorf("evict %q: %w", payload, err)
	}
	if err := ev.Validate(); err != nil {
		return ev, fmt.Errorf("evict %q: %w", payload, err)
	}
	return ev, nil
}

// judgeConnected is published on rkeys.JudgeConnected.
type judgeConnected struct {
	Judge string `json:"judge"`
	Hub   string `json:"hub"`
	Conn  string `json:"conn"`
}

func (h *Hub) onJudgeConnected(payload string) {
	var jc judgeConnected
	if err := json.Unmarshal([]byte(payload), &jc); err != nil || jc.Judge == "" {
		return
	}
	h.mu.Lock()
	old := h.judges[jc.Judge]
	h.mu.Unlock()
	if old != nil && old.connID != jc.Conn {
		old.close(protocol.CloseSuperseded, "judge connected again at hub "+jc.Hub)
	}
}

// observe reports the end of a placement to a policy that learns from
// outcomes (the default policy learns judge speeds from run times, and
// what downloads cost: policyCollector exports it).
func (h *Hub) observe(o sched.Outcome) {
	obs, ok := h.cfg.Policy.(sched.Observer)
	if !ok {
		return
	}
	h.policyMu.Lock()
	obs.Observe(time.Now(), o)
	h.policyMu.Unlock()
}

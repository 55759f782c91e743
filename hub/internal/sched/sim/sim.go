package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/hub/internal/sched/lab"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// The references. None of the ideals is a bound: each is a strong,
// well-defined dispatcher a real policy can still beat (it keeps the queue
// in arrival order and decides greedily, one task at a time). Bound is
// the only lower bound.
const (
	// Ideal is the ideal reference: one central FIFO queue, perfect and
	// instant knowledge (true current speeds, every slot's state, the
	// judges' real caches, a crash seen at once, heartbeats ignored). It
	// binds the head task only when a slot is free, to the free slot that
	// would finish it first (the rest of its data download + size / true
	// speed), and pays every download like a policy does.
	Ideal = "ideal"
	// IdealWarm is Ideal with every test data download free (every judge
	// holds every problem's data): what the ideal would do if caching were
	// solved. It relaxes the download cost and nothing else.
	IdealWarm = "ideal-warm"
	// IdealDrop is the ideal reference bound by the hub's rule that a judge
	// whose heartbeats stop gets no more work and loses its tasks: it drops a
	// silent judge the moment it falls silent (no detection delay), requeues
	// its tasks at once and uses it again when its heartbeats resume. In
	// every other respect, and in every scenario without a silent judge, it
	// is the ideal. It is the best the ideal could do under the rule.
	IdealDrop = "ideal-drop"
	// IdealWarmDrop is IdealWarm under IdealDrop's rule.
	IdealWarmDrop = "ideal-warm-drop"
	// Bound is a lower bound on time to verdict that no schedule can beat
	// (see LowerBound): it is computed from the trace, not simulated.
	Bound = "bound"
)

// The hub's decision latency by default (Config.PassLatency,
// Config.DecisionCost): a pass on a quiet installation — the queue's
// publish reaching the hub, a Peek and a LeaseMany round trip to Redis and
// the push through the judge's socket — takes a few milliseconds, and each
// decision of the default policy some microseconds (BenchmarkPick).
const (
	DefaultPassLatency  = 0.005 // s
	DefaultDecisionCost = 20e-6 // s
)

// Config is one simulation run. Zero fields take the documented defaults.
type Config struct {
	// Policy is a sched policy name or a reference (Ideal, IdealWarm,
	// IdealDrop, IdealWarmDrop, Bound).
	Policy string
	// NewPolicy, if set, builds the policy instead of sched.NewWith.
	NewPolicy func(seed uint64) sched.Policy
	// Seed seeds the policy and the heartbeat phases (the trace has its
	// own seed).
	Seed    uint64
	Cluster []JudgeSpec
	// Heartbeat is the judges' heartbeat interval (s). Default 3.
	Heartbeat float64
	// MissedHeartbeats of silence close a judge; a lease lives
	// (MissedHeartbeats+1) × Heartbeat without renewal; the reaper runs
	// every Heartbeat/2. Default 3 (the hub's defaults).
	MissedHeartbeats int
	// MaxAttempts expired leases lose a task. Default 3.
	MaxAttempts int
	// PeekWindow tasks per dispatch pass. Default 64.
	PeekWindow int
	// CacheCapacity is how many problems' test data a judge keeps.
	// Default 100 (about 2.5 GB at the mean data size of 25 MB).
	CacheCapacity int
	// Warmup..End is the measured window (s): jobs arriving in it are
	// measured, time averages are taken over it.
	Warmup, End float64
	// MaxDrain bounds how long after End the run continues to finish the
	// measured jobs. Default End - Warmup.
	MaxDrain    float64
	Disturbance Disturbance
	// Faults are more disturbances, after Disturbance (a scenario file's
	// faults). Each begins at At and ends at At+Length.
	Faults []Disturbance
	// Hot and HotFrom..HotTo: count where the hot problem's tasks go
	// during the burst (HotSkew).
	Hot             int
	HotFrom, HotTo  float64
	RecoveryBucket  float64 // s, default 10
	RecoveryFrom    float64 // disturbance start for Recovery; 0: none
	MeasureDecision bool    // time every Pick with the wall clock
	// DispatchTick is the hub's dispatch tick (s): a pass runs this often
	// even when nothing wakes it. Default 0.25 (the hub's default).
	DispatchTick float64
	// OracleSpeed shows the policy every judge's true current per-core
	// speed in Judge.Speed — knowledge the hub does not have; for the
	// ablations only.
	OracleSpeed bool
	// CacheViewGrows: the hub's view of a judge's cache only grows (what
	// it dispatched there, what hello listed) instead of following the
	// cache each heartbeat reports — the hub before issue 18; for the
	// ablations.
	CacheViewGrows bool
	// Hubs is how many hubs share the queue (default 1). Judge i connects
	// to hub i mod Hubs; each hub has its own policy instance, its own
	// dispatch passes (each sees only its own judges and the head of the
	// shared queue) and its own tick phase; a task two hubs picked in
	// overlapping passes goes to the first to take its lease (the other's
	// placement fails: LeaseConflicts).
	Hubs int
	// PassLatency is how long a dispatch pass takes from its decisions to
	// its leases being taken and the tasks pushed (s): the wake-up
	// publish, the Peek and LeaseMany round trips to Redis, the push
	// through the judge's socket. A pass decides on the state at its start
	// and commits at its end; the hub's dispatcher runs one pass at a
	// time, so what wakes it meanwhile waits for the pass to end. Default
	// DefaultPassLatency; negative: instantaneous (the model before).
	PassLatency float64
	// DecisionCost is added to a pass's latency per policy decision (s).
	// Default DefaultDecisionCost; negative: none.
	DecisionCost float64
	// ResultLatency is how long a result that left its judge takes to be
	// handled by the hub (s): its slot counts as busy, and the hub learns
	// nothing of it, until then. 0 (the default): at once. A job's own
	// Job.Result replaces it (and LatencyWindows') for that job.
	ResultLatency float64
	// LatencyWindows, sorted by From, replace PassLatency and
	// ResultLatency from each window's From on: what a recorded hub
	// measured as its load varied (a replay of a schedtrace with
	// latency windows). The window in force when a pass starts, or when a
	// result leaves its judge, gives its latency; DecisionCost still adds.
	// A window's wake latency delays the start of a pass the idle
	// dispatcher was woken for (none outside the windows).
	LatencyWindows []LatencyWindow
	// PassMoment (s), where positive, draws the dispatch passes' latencies
	// (placing and idle) alike within each moment of this length: one
	// quantile per moment, taken of the window's spreads, instead of one
	// draw per pass (a loaded machine slows the passes of one moment
	// together). 0: independent draws.
	PassMoment float64
	// Passes, where set, are a recorded hub's dispatch passes in the order
	// they began: a pass that starts at t takes the latency of the
	// recorded pass of its kind (one that placed tasks, or one that placed
	// nothing) that began nearest t, instead of LatencyWindows' pass and
	// idle latencies (the passes as they came; DecisionCost still adds).
	// A kind with no recorded pass keeps the windows'.
	Passes []RecordedPass
	// RecordPasses keeps every pass the simulated hubs run (Passes):
	// what the replay sets beside the recorded hub's.
	RecordPasses bool
	// Reserve is the share of the judges' slots that rejudges (rejudge
	// priority) leave free for the rest, as the hub's --dispatch-reserve
	// (sched.Reserve). 0: the hub's default, sched.DefaultReserveShare;
	// negative: none. Untagged jobs are practice, never held for it.
	Reserve float64
	// StartConnected: the judges present from the start (JudgeSpec.Join
	// 0) are connected at time 0, as a recorded run's judges were before
	// its first task, instead of at their first heartbeat (a random phase
	// within the first interval). Replay sets it.
	StartConnected bool
}

// RecordedPass is one dispatch pass: its start (s), its start to its end
// (s), and the tasks it placed (0: none).
type RecordedPass struct {
	At, Took float64
	Placed   int
}

// passTimes is one kind of recorded pass (Config.Passes), by start.
type passTimes struct{ at, took []float64 }

// nearest is the latency of the pass that began nearest t (the earlier on
// a tie); ok false when there is none.
func (p *passTimes) nearest(t float64) (float64, bool) {
	n := len(p.at)
	if n == 0 {
		return 0, false
	}
	i := sort.SearchFloat64s(p.at, t) // the first at or after t
	switch {
	case i == n:
		i = n - 1
	case i > 0 && t-p.at[i-1] <= p.at[i]-t:
		i--
	}
	return p.took[i], true
}

// LatencyWindow is a pass latency and a result latency (s) in force from
// From (s) until the next window's From: each the mean, or, where the
// window has its spread (PassDist, ResultDist), drawn from it pass by pass
// and result by result.
type LatencyWindow struct {
	From, Pass, Result   float64
	PassDist, ResultDist *LatencyDist
	// Wake and WakeDist: how long the idle dispatcher, woken, takes to
	// start its pass (its wait for a core; 0 and nil: at once).
	Wake     float64
	WakeDist *LatencyDist
	// Idle and IdleDist: how long a pass that places nothing (the queue
	// empty, no judge connected, no free slot for the head of the queue)
	// holds the dispatcher, the mean or a draw from the spread. 0 and
	// nil: not recorded; a pass on an empty queue (or without a judge)
	// then takes no time, and one that places nothing takes a pass
	// latency (the model before 2026-12-05).
	Idle     float64
	IdleDist *LatencyDist
	// Notice and NoticeDist: how long an arrival's notice takes to reach
	// the hub (Redis pub/sub), the mean or a draw from the spread: the
	// task is in the queue at once (a pass meanwhile sees it), the wake it
	// sends comes that late. 0 and nil: at once.
	Notice     float64
	NoticeDist *LatencyDist
}

// LatencyDist is how a latency was spread over a window, as a histogram:
// Weights[i] of the observations above Bounds[i-1] (the first: from 0) and
// at most Bounds[i] (s), drawn uniformly within their bucket; the last
// weight, one more than the bounds, is of those above the last bound, all
// drawn as Over (s).
type LatencyDist struct {
	Bounds  []float64
	Weights []float64
	Over    float64
	total   float64 // of Weights, filled in by NewLatencyDist
}

// NewLatencyDist is the distribution of a histogram (bounds in s, counts
// per bucket, one more than the bounds) whose observations' mean was mean
// (s): what lies above the last bound is drawn as the value that makes
// the distribution's mean the observed one, within [last bound, 60 s]
// (the hub's histograms end at a second or ten, and its slowest passes
// are what a replay must not lose). Nil when the histogram is empty or
// malformed.
func NewLatencyDist(bounds []float64, counts []int64, mean float64) *LatencyDist {
	if len(counts) != len(bounds)+1 {
		return nil
	}
	d := &LatencyDist{Bounds: slices.Clone(bounds), Weights: make([]float64, len(counts))}
	var below float64 // the sum of the finite buckets' midpoints
	for i, c := range counts {
		if c < 0 || (i < len(bounds) && (bounds[i] <= 0 || (i > 0 && bounds[i] <= bounds[i-1]))) {
			return nil
		}
		d.Weights[i] = float64(c)
		d.total += float64(c)
		if i < len(bounds) {
			lo := 0.0
			if i > 0 {
				lo = bounds[i-1]
			}
			below += float64(c) * (lo + bounds[i]) / 2
		}
	}
	if d.total == 0 {
		return nil
	}
	last := 0.0
	if len(bounds) > 0 {
		last = bounds[len(bounds)-1]
	}
	d.Over = last
	if over := d.Weights[len(bounds)]; over > 0 {
		d.Over = min(60, max(last, (mean*d.total-below)/over))
	}
	return d
}

// draw is one value of d, from u and v uniform in [0, 1).
func (d *LatencyDist) draw(u, v float64) float64 {
	x := u * d.total
	for i, w := range d.Weights {
		if x < w || (i == len(d.Weights)-1) {
			if i == len(d.Bounds) {
				return d.Over
			}
			lo := 0.0
			if i > 0 {
				lo = d.Bounds[i-1]
			}
			return lo + v*(d.Bounds[i]-lo)
		}
		x -= w
	}
	return d.Over
}

// window is the latency window in force at t, nil before the first.
func (c *Config) window(t float64) *LatencyWindow {
	w := c.LatencyWindows
	i := sort.Search(len(w), func(i int) bool { return w[i].From > t }) - 1
	if i < 0 {
		return nil
	}
	return &w[i]
}

// passLatency is the latency of a pass that starts now: the recorded
// placing pass nearest now (Config.Passes), else the window's mean, or a
// draw from its spread.
func (s *sim) passLatency() float64 {
	if d, ok := s.placing.nearest(s.now()); ok {
		return d
	}
	w := s.cfg.window(s.now())
	switch {
	case w == nil:
		return s.cfg.PassLatency
	case w.PassDist != nil:
		return w.PassDist.draw(s.passDraw())
	}
	return max(0, w.Pass)
}

// passDraw is the two uniforms a pass that starts now draws its latency
// with: the latency stream's next, or, with Config.PassMoment, the
// moment's own (the same for every pass of the moment, by seed).
func (s *sim) passDraw() (u, v float64) {
	if m := s.cfg.PassMoment; m > 0 {
		r := rand.New(rand.NewPCG(s.cfg.Seed^0x9a55, uint64(math.Floor(s.now()/m))))
		return r.Float64(), r.Float64()
	}
	return s.latRng.Float64(), s.latRng.Float64()
}

// wakeLatency is how long an idle dispatcher woken now takes to start
// its pass (its wait for a core): the window's mean, or a draw from its
// spread; 0 without a window or a recorded wake.
func (s *sim) wakeLatency() float64 {
	return s.windowLatency(func(w *LatencyWindow) (float64, *LatencyDist) { return w.Wake, w.WakeDist })
}

// noticeLatency is how long the notice of an arrival now takes to wake
// the dispatchers: the window's mean, or a draw from its spread; 0 without
// a window or a recorded notice (no draw then: a replay without notices
// draws everything else as before).
func (s *sim) noticeLatency() float64 {
	return s.windowLatency(func(w *LatencyWindow) (float64, *LatencyDist) { return w.Notice, w.NoticeDist })
}

// arrivalNotice is how long the notice of job, arriving now, takes to
// wake the dispatchers: its own where recorded (Job.Notice), else the
// window's draw, no earlier than its Job.NoticeAfter.
func (s *sim) arrivalNotice(j *Job) float64 {
	if j.NoticeKnown {
		return max(0, j.Notice)
	}
	return max(s.noticeLatency(), j.NoticeAfter)
}

// windowLatency is one of the current window's latencies (of picks its
// mean and spread): a draw from the spread, else the mean; 0 without a
// window.
func (s *sim) windowLatency(of func(*LatencyWindow) (float64, *LatencyDist)) float64 {
	w := s.cfg.window(s.now())
	if w == nil {
		return 0
	}
	mean, dist := of(w)
	if dist != nil {
		return dist.draw(s.latRng.Float64(), s.latRng.Float64())
	}
	return max(0, mean)
}

// idleLatency is how long a pass that starts now and places nothing
// holds the dispatcher: the recorded pass that placed nothing nearest now
// (Config.Passes), else the window's mean, or a draw from its spread; ok
// false without either, or a window without an idle pass in it.
func (s *sim) idleLatency() (d float64, ok bool) {
	if d, ok := s.idle.nearest(s.now()); ok {
		return d, true
	}
	w := s.cfg.window(s.now())
	switch {
	case w == nil || (w.IdleDist == nil && w.Idle <= 0):
		return 0, false
	case w.IdleDist != nil:
		return w.IdleDist.draw(s.passDraw()), true
	}
	return w.Idle, true
}

// resultLatency is how long a result that leaves its judge now waits for
// the hub: the window's mean, or a draw from its spread (result takes a
// job's own Job.Result over it).
func (s *sim) resultLatency() float64 {
	w := s.cfg.window(s.now())
	switch {
	case w == nil:
		return s.cfg.ResultLatency
	case w.ResultDist != nil:
		return w.ResultDist.draw(s.latRng.Float64(), s.latRng.Float64())
	}
	return max(0, w.Result)
}

func (c *Config) defaults() {
	if c.Heartbeat <= 0 {
		c.Heartbeat = 3
	}
	if c.MissedHeartbeats <= 0 {
		c.MissedHeartbeats = 3
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 3
	}
	if c.CacheCapacity <= 0 {
		c.CacheCapacity = 100
	}
	if c.MaxDrain <= 0 {
		c.MaxDrain = c.End - c.Warmup
	}
	if c.RecoveryBucket <= 0 {
		c.RecoveryBucket = 10
	}
	if c.DispatchTick <= 0 {
		c.DispatchTick = sched.DefaultDispatchTick.Seconds()
	}
	if c.PeekWindow <= 0 {
		c.PeekWindow = sched.DefaultPeekWindow
	}
	if c.Hubs <= 0 {
		c.Hubs = 1
	}
	switch {
	case c.PassLatency == 0:
		c.PassLatency = DefaultPassLatency
	case c.PassLatency < 0:
		c.PassLatency = 0
	}
	switch {
	case c.DecisionCost == 0:
		c.DecisionCost = DefaultDecisionCost
	case c.DecisionCost < 0:
		c.DecisionCost = 0
	}
	switch {
	case c.Reserve == 0:
		c.Reserve = sched.DefaultReserveShare
	case c.Reserve < 0:
		c.Reserve = 0
	}
	if len(c.Cluster) == 0 {
		c.Cluster = DefaultCluster()
	}
}

type phase uint8

const (
	phNone  phase = iota // not on a judge
	phLocal              // in the judge's local queue
	phFetch              // holds a slot, waits for test data
	phRun                // computing
	phHold               // the work done, the slot still held (Job.Hold)
	phDead               // lost with a crashed judge
)

// attempt is one lease of a job.
type attempt struct {
	job   *jobState
	n     int
	judge int
	ver   uint32
	phase phase

	rate, rateSince, remaining float64
	runStart, runEnd           float64 // the work's start and end (runEnd: 0 until it ended)

	dispatched float64
	passStart  float64 // the start of the pass that placed it (dispatched: that pass's end)
	// early is how much earlier than its pass's end the recorded push
	// reached the judge (Job.Push shorter than the simulator's pass):
	// the work of an attempt started on delivery counts from then.
	early        float64
	reason       string // the policy's Decision.Reason
	hubAssigned  bool
	inHB         bool
	leaseActive  bool
	leaseExpires float64
	leaseIdx     int
	queued       bool // in the central queue
}

type jobState struct {
	job      *Job
	measured bool
	done     bool
	lost     bool
	// sent: the hub handed the job to a judge (the first attempt's
	// dispatch) to judge index sentTo, in the pass that started at
	// sentAt (as a recorded hub's placed_ms: the pass decided there).
	sent   bool
	sentAt float64
	sentTo int
	// holds counts the passes that held the job before its first
	// dispatch, by reason (sched.PassResult.Holds; AffinityMs: ms of
	// simulated time), which the replay sets beside the hub's.
	holds schedtrace.Holds
}

// hold counts a pass's hold of the job, begun at now (s), before its
// first dispatch.
func (js *jobState) hold(why sched.Hold, now float64) {
	if js.sent {
		return
	}
	h := &js.holds
	switch why {
	case sched.HoldBusy:
		h.Busy++
	case sched.HoldNoJudge:
		h.NoJudge++
	case sched.HoldAffinity:
		if h.Affinity == 0 {
			h.AffinityMs = max(1, int64(math.Round(now*1000)))
		}
		h.Affinity++
	case sched.HoldReserve:
		h.Reserve++
	}
}

type hubView struct {
	connected bool // link open and a heartbeat received (ready)
	lastHB    float64
	running   int
	queued    int
	load1     float64
	mem       float64
	assigned  int
	since     int
	data      map[string]bool
	leases    []*attempt
	// minExpiry is at most the earliest lease expiry (renewals only raise
	// expiries), so the reaper skips the judge until then.
	minExpiry float64
}

type judge struct {
	spec      JudgeSpec
	idx       int
	up        bool
	silent    bool
	factor    float64
	foreign   float64
	running   []*attempt
	local     []*attempt
	cache     *lru
	load1     float64
	computing int
	busy      float64 // core-seconds computing inside the window
	hub       hubView
	cached    func(string) bool
	hot       int
	hubIdx    int // the hub it connects to
	// outbox holds the results the judge finished while the hub had its
	// link closed (a silent judge): the agent keeps them unacknowledged
	// and resends them when it connects again.
	outbox []*attempt
}

// hubState is one hub: its policy and its dispatcher.
type hubState struct {
	idx    int
	policy sched.Policy
	obs    sched.Observer
	// busyUntil is when the pass in flight commits; woken meanwhile, the
	// dispatcher runs again right after it (pending).
	busyUntil float64
	inPass    bool
	pending   bool
	// waking: woken while idle, the pass starts after the dispatcher's
	// wait for a core (wakeLatency); wakes meanwhile join that pass.
	waking bool
	views  []sched.Judge
	conns  []*judge
	tasks  []sched.Task
	batch  []*attempt
}

type sim struct {
	cfg    Config
	tr     *Trace
	eng    Engine
	ideal  bool // one of the ideal references
	warm   bool // IdealWarm, IdealWarmDrop: downloads are free
	drop   bool // IdealDrop, IdealWarmDrop: a silent judge is dropped
	fast   float64
	hubs   []*hubState
	base   time.Time
	judges []*judge
	queue  []*attempt
	jobs   []jobState
	next   int // next job to arrive
	lease  float64

	// accounting
	pending    int // measured jobs not done nor lost
	inSystem   int
	lastT      float64
	res        Result
	waits      []float64
	ttvs       []float64
	slowdowns  []float64
	measured   []*Job // the measured jobs, in the order they finished
	arrivals   []float64
	inSysArea  float64
	overArea   float64
	starts     int
	hits       int
	decisionNs int64
	messages   int
	completedW int
	// latRng draws the latency windows' spreads: a stream of its own, so
	// that a replay without them draws everything else as before.
	latRng *rand.Rand
	// placing and idle are Config.Passes by kind; ran is every pass run
	// (Config.RecordPasses).
	placing, idle passTimes
	ran           []RecordedPass
}

// Run simulates cfg on trace tr and returns the measurements. With
// Policy Bound it simulates nothing and returns the lower bound
// (BoundResult).
func Run(cfg Config, tr *Trace) (*Result, error) {
	if cfg.Policy == Bound {
		cfg.defaults()
		r := BoundResult(cfg, tr)
		r.Rho = offeredLoad(cfg, tr)
		return r, nil
	}
	s, err := newSim(cfg, tr)
	if err != nil {
		return nil, err
	}
	s.run()
	s.res.Rho = offeredLoad(s.cfg, tr)
	// A copy: a pointer into s would keep the whole simulation (jobs,
	// events, judges, caches) alive as long as the result, megabytes per
	// run, which a grid of thousands of runs holds until its report.
	res := s.res
	return &res, nil
}

// offeredLoad is the realised offered load of the measured window: the
// work (at speed 1) of the jobs arriving in [Warmup, End), over the
// capacity (Σ cores × speed) times the window. The grid's nominal ρ sets
// the practice arrival rate from the expected job size; this is what the
// trace really offered (bursts and contests included).
func offeredLoad(cfg Config, tr *Trace) float64 {
	work := 0.0
	for i := range tr.Jobs {
		if j := &tr.Jobs[i]; j.Arrival >= cfg.Warmup && j.Arrival < cfg.End {
			work += j.Size
		}
	}
	c := Capacity(cfg.Cluster) * (cfg.End - cfg.Warmup)
	if c <= 0 {
		return math.NaN()
	}
	return work / c
}

// newSim sets up a run: the policy, the judges, the first events.
func newSim(cfg Config, tr *Trace) (*sim, error) {
	cfg.defaults()
	s := &sim{cfg: cfg, tr: tr, base: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), fast: fastest(cfg),
		latRng: rand.New(rand.NewPCG(cfg.Seed, 0x1a7))}
	for _, p := range cfg.Passes {
		k := &s.idle
		if p.Placed > 0 {
			k = &s.placing
		}
		k.at, k.took = append(k.at, p.At), append(k.took, max(0, p.Took))
	}
	switch cfg.Policy {
	case Ideal:
		s.ideal = true
	case IdealWarm:
		s.ideal, s.warm = true, true
	case IdealDrop:
		s.ideal, s.drop = true, true
	case IdealWarmDrop:
		s.ideal, s.warm, s.drop = true, true, true
	}
	s.lease = float64(cfg.MissedHeartbeats+1) * cfg.Heartbeat
	if !s.ideal {
		for k := range cfg.Hubs {
			seed := cfg.Seed + uint64(k)*0x9e3779b9
			h := &hubState{idx: k}
			if cfg.NewPolicy != nil {
				h.policy = cfg.NewPolicy(seed)
			} else {
				p, err := lab.NewWith(cfg.Policy, lab.Options{Seed: seed})
				if err != nil {
					return nil, fmt.Errorf("sim: policy: %w", err)
				}
				h.policy = p
			}
			h.obs, _ = h.policy.(sched.Observer)
			s.hubs = append(s.hubs, h)
		}
	}
	s.res.Policy = cfg.Policy
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x4b))
	problemOf := make(map[string]int, len(tr.Problems))
	for p, pr := range tr.Problems {
		if pr.Hash != "" {
			problemOf[pr.Hash] = p
		}
	}
	for i, spec := range cfg.Cluster {
		capacity := cfg.CacheCapacity
		if spec.Cache > 0 {
			capacity = spec.Cache
		}
		j := &judge{spec: spec, idx: i, up: true, factor: 1, cache: newLRU(capacity), hot: 0, hubIdx: i % cfg.Hubs}
		for _, h := range spec.Warm {
			if p, ok := problemOf[h]; ok {
				j.cache.put(p, 0) // held from the start: its hello lists it
			}
		}
		j.hub.data = map[string]bool{}
		h := &j.hub
		j.cached = func(hash string) bool { return h.data[hash] }
		s.judges = append(s.judges, j)
		switch {
		case spec.Join > 0: // connects (and starts its heartbeats) then
			j.up = false
			s.eng.schedule(event{t: spec.Join, kind: evJoin, idx: i})
		case !s.ideal:
			s.eng.schedule(event{t: rng.Float64() * cfg.Heartbeat, kind: evHeartbeat, idx: i})
		}
		if spec.Leave > 0 {
			s.eng.schedule(event{t: spec.Leave, kind: evLeave, idx: i})
		}
	}
	if cfg.StartConnected && !s.ideal {
		for _, j := range s.judges {
			if j.spec.Join <= 0 {
				s.heartbeat(j)
			}
		}
	}
	s.jobs = make([]jobState, len(tr.Jobs))
	for i := range tr.Jobs {
		s.jobs[i] = jobState{job: &tr.Jobs[i], measured: tr.Jobs[i].Arrival >= cfg.Warmup && tr.Jobs[i].Arrival < cfg.End}
		if s.jobs[i].measured {
			s.pending++
		}
	}
	if len(tr.Jobs) > 0 {
		s.eng.schedule(event{t: tr.Jobs[0].Arrival, kind: evArrival})
	}
	s.eng.schedule(event{t: 5, kind: evLoadTick})
	if !s.ideal {
		s.eng.schedule(event{t: cfg.Heartbeat / 2, kind: evReap})
		for k := range s.hubs { // each hub's ticker has its own phase
			s.eng.schedule(event{t: cfg.DispatchTick * float64(k+1) / float64(len(s.hubs)), kind: evTick, idx: k})
		}
	}
	for f, d := range cfg.faults() {
		s.eng.schedule(event{t: d.At, kind: evDisturb, idx: 2 * f})
		s.eng.schedule(event{t: d.At + d.Length, kind: evDisturb, idx: 2*f + 1})
	}
	return s, nil
}

// run runs the events until every measured job is done (or the drain
// runs out) and computes the result.
func (s *sim) run() {
	cfg, tr := &s.cfg, s.tr
	hardEnd := cfg.End + cfg.MaxDrain
	for {
		ev, ok := s.eng.next()
		if !ok || ev.t > hardEnd {
			break
		}
		s.integrate(ev.t)
		s.handle(ev)
		if s.next >= len(tr.Jobs) && s.pending == 0 && s.eng.now >= cfg.End {
			break
		}
	}
	s.integrate(math.Max(s.eng.now, cfg.End))
	s.finish()
}

func (s *sim) now() float64 { return s.eng.now }

// at is simulated time t as a wall-clock time.
func (s *sim) at(t float64) time.Time { return s.base.Add(time.Duration(t * float64(time.Second))) }

func (s *sim) inWindow(t float64) bool { return t >= s.cfg.Warmup && t < s.cfg.End }

// integrate advances the time averages to t.
func (s *sim) integrate(t float64) {
	lo, hi := math.Max(s.lastT, s.cfg.Warmup), math.Min(t, s.cfg.End)
	s.lastT = t
	if hi <= lo {
		return
	}
	dt := hi - lo
	over := false
	for _, j := range s.judges {
		j.busy += float64(j.computing) * dt
		over = over || len(j.local) > 0
	}
	s.inSysArea += float64(s.inSystem) * dt
	if over {
		s.overArea += dt
	}
}

func (s *sim) handle(ev event) {
	switch ev.kind {
	case evArrival:
		js := &s.jobs[s.next]
		s.next++
		if s.next < len(s.tr.Jobs) {
			s.eng.schedule(event{t: s.tr.Jobs[s.next].Arrival, kind: evArrival})
		}
		s.inSystem++
		s.enqueue(&attempt{job: js, n: 1, judge: -1})
		// The hubs hear of it when its notice reaches them (a pass
		// meanwhile, woken by something else, sees it in the queue).
		if d := s.arrivalNotice(js.job); d > 0 && !s.ideal {
			s.eng.At(s.now()+d, s.dispatch)
			break
		}
		s.dispatch()
	case evRunStart:
		if ev.a.ver == ev.ver && ev.a.phase == phFetch {
			s.runStart(ev.a)
		}
	case evComplete:
		if ev.a.ver == ev.ver && ev.a.phase == phRun {
			s.complete(ev.a)
		}
	case evHoldEnd:
		if ev.a.ver == ev.ver && ev.a.phase == phHold {
			s.release(ev.a)
		}
	case evHeartbeat:
		s.heartbeat(s.judges[ev.idx])
		s.eng.schedule(event{t: s.now() + s.cfg.Heartbeat, kind: evHeartbeat, idx: ev.idx})
	case evLoadTick:
		decay := math.Exp(-5.0 / 60)
		for _, j := range s.judges {
			if j.up {
				j.load1 = j.load1*decay + (float64(j.computing)+j.foreign)*(1-decay)
			}
		}
		s.eng.schedule(event{t: s.now() + 5, kind: evLoadTick})
	case evReap:
		s.reap()
		s.eng.schedule(event{t: s.now() + s.cfg.Heartbeat/2, kind: evReap})
	case evTick:
		if len(s.queue) > 0 {
			s.wake(s.hubs[ev.idx])
		}
		s.eng.schedule(event{t: s.now() + s.cfg.DispatchTick, kind: evTick, idx: ev.idx})
	case evDisturb:
		s.disturb(s.cfg.faults()[ev.idx/2], ev.idx%2 == 0)
	case evJoin:
		j := s.judges[ev.idx]
		j.up, j.load1 = true, 0
		if s.ideal {
			s.dispatch()
			break
		}
		s.heartbeat(j) // hello (an empty cache) and the first heartbeat
		s.eng.schedule(event{t: s.now() + s.cfg.Heartbeat, kind: evHeartbeat, idx: ev.idx})
	case evLeave:
		s.leave(s.judges[ev.idx])
	case evFunc:
		if ev.fn != nil {
			ev.fn()
		}
	}
}

// enqueue puts a into the central queue in priority, then arrival order
// (a requeued attempt keeps its job's place; untagged jobs are all
// practice).
func (s *sim) enqueue(a *attempt) {
	job := a.job.job
	i := len(s.queue)
	if i > 0 && job.queuedBefore(s.queue[i-1].job.job) {
		i = sort.Search(len(s.queue), func(k int) bool { return job.queuedBefore(s.queue[k].job.job) })
	}
	a.queued = true
	s.queue = slices.Insert(s.queue, i, a)
}

// language is a's language ("cpp" for an untagged job).
func (s *sim) language(a *attempt) string {
	if m := a.job.job.Meta; m != nil {
		return m.Language
	}
	return "cpp"
}

func (s *sim) task(a *attempt) sched.Task {
	j := a.job.job
	t := sched.Task{SubmissionID: int64(j.ID + 1), ProblemID: int64(j.Problem), DataHash: s.tr.Problems[j.Problem].Hash, Language: "cpp",
		EnqueuedAt: s.at(j.Arrival), Priority: j.priority()}
	if m := j.Meta; m != nil {
		t.SubmissionID, t.ProblemID, t.Language = m.SubmissionID, m.ProblemID, m.Language
	}
	return t
}

// sent records the job's first dispatch: to j, in the pass that started
// at a.passStart.
func (s *sim) sent(a *attempt, j *judge) {
	if js := a.job; !js.sent {
		js.sent, js.sentAt, js.sentTo = true, a.passStart, j.idx
	}
}

// dispatch wakes every hub's dispatcher (the queue or the judges
// changed).
func (s *sim) dispatch() {
	if s.ideal {
		s.dispatchIdeal()
		return
	}
	for _, h := range s.hubs {
		s.wake(h)
	}
}

// wake wakes hub h's dispatcher: a pass now, or right after the pass in
// flight (the hub's one-slot wake channel).
func (s *sim) wake(h *hubState) {
	switch {
	case h.inPass:
		h.pending = true
		return
	case h.waking:
		return
	}
	if d := s.wakeLatency(); d > 0 {
		h.waking = true
		s.eng.At(s.now()+d, func() {
			h.waking = false
			if h.inPass {
				h.pending = true
				return
			}
			s.pass(h)
		})
		return
	}
	s.pass(h)
}

// pass runs hub h's dispatch passes, as hub/internal/hub's dispatchOnce
// does: the hub's view of its connected judges, the head of the queue,
// sched.Pass (the very function the hub calls), then the leases and the
// pushes — at once, or PassLatency (+ DecisionCost per decision) later.
// A pass that places nothing takes the window's idle pass latency where
// recorded (idlePass for one that finds no task or no judge).
func (s *sim) pass(h *hubState) {
	for {
		if len(s.queue) == 0 {
			s.idlePass(h)
			return
		}
		h.views, h.conns = h.views[:0], h.conns[:0]
		for _, j := range s.judges {
			if !j.hub.connected || j.hubIdx != h.idx {
				continue
			}
			v := &j.hub
			h.conns = append(h.conns, j)
			h.views = append(h.views, sched.Judge{
				ID: j.spec.ID, Cores: j.spec.Cores, Slots: j.spec.Cores, Languages: j.spec.Languages,
				Running: v.running, Queued: v.queued, Load1: v.load1, MemUsedRatio: v.mem,
				Assigned: v.assigned, SinceHeartbeat: v.since, Cached: j.cached,
			})
			if s.cfg.OracleSpeed {
				h.views[len(h.views)-1].Speed = j.spec.Speed * j.factor
			}
		}
		if len(h.views) == 0 {
			s.idlePass(h)
			return
		}
		n := min(s.cfg.PeekWindow, len(s.queue))
		h.tasks, h.batch = h.tasks[:0], append(h.batch[:0], s.queue[:n]...)
		for _, a := range h.batch {
			h.tasks = append(h.tasks, s.task(a))
		}
		var t0 time.Time
		if s.cfg.MeasureDecision {
			t0 = time.Now()
		}
		r := sched.Pass(s.at(s.now()), h.policy, h.tasks, h.views, sched.RejudgeReserve(s.cfg.Reserve))
		if s.cfg.MeasureDecision {
			s.decisionNs += time.Since(t0).Nanoseconds()
		}
		s.res.Decisions += r.Asked
		for i, why := range r.Holds {
			if why != sched.HoldNone {
				h.batch[i].job.hold(why, s.now())
			}
		}
		again := r.Again(s.cfg.PeekWindow)
		lat, idle := 0.0, false
		if len(r.Placed) == 0 {
			lat, idle = s.idleLatency()
		}
		if !idle {
			lat = s.passLatency()
		}
		lat += s.cfg.DecisionCost * float64(r.Asked)
		s.record(max(lat, 0), len(r.Placed))
		if lat <= 0 {
			s.commit(h, h.batch, h.conns, r.Placed, s.now())
			if !again {
				return
			}
			continue
		}
		batch, conns, start := slices.Clone(h.batch), slices.Clone(h.conns), s.now()
		h.inPass, h.busyUntil = true, s.now()+lat
		s.eng.At(h.busyUntil, func() {
			s.commit(h, batch, conns, r.Placed, start)
			h.inPass = false
			if again || h.pending {
				h.pending = false
				s.pass(h)
			}
		})
		return
	}
}

// idlePass holds hub h's dispatcher for a pass that found no task or no
// judge, as long as the window's idle passes took (the hub's Peek); at
// once where none is recorded. What woke it meanwhile runs a pass after.
func (s *sim) idlePass(h *hubState) {
	d, ok := s.idleLatency()
	if !ok || d <= 0 {
		s.record(0, 0)
		return
	}
	s.record(d, 0)
	h.inPass, h.busyUntil = true, s.now()+d
	s.eng.At(h.busyUntil, func() {
		h.inPass = false
		if h.pending {
			h.pending = false
			s.pass(h)
		}
	})
}

// record keeps a pass that starts now, takes took (s) and places placed,
// where Config.RecordPasses asks.
func (s *sim) record(took float64, placed int) {
	if s.cfg.RecordPasses {
		s.ran = append(s.ran, RecordedPass{At: s.now(), Took: took, Placed: placed})
	}
}

// commit takes the leases of a pass's placements and pushes the tasks: a
// task another hub took meanwhile (or that left the queue) fails its
// lease, as does one for a judge whose link closed during the pass. The
// pass started at start.
func (s *sim) commit(h *hubState, batch []*attempt, conns []*judge, placed []sched.Placement, start float64) {
	took := 0
	for _, p := range placed {
		a, j := batch[p.Task], conns[p.Judge]
		if !a.queued || !j.hub.connected {
			s.res.LeaseConflicts++
			continue
		}
		a.queued = false
		a.reason = p.Reason
		s.place(a, j, start)
		if p.Prefetch {
			s.prefetch(a)
		}
		took++
	}
	if took > 0 {
		s.queue = slices.DeleteFunc(s.queue, func(a *attempt) bool { return !a.queued })
	}
}

func (s *sim) place(a *attempt, j *judge, passStart float64) {
	now := s.now()
	a.judge = j.idx
	a.dispatched, a.passStart = now, passStart
	a.early = 0
	if p := a.job.job.Push; p > 0 {
		a.early = max(0, now-passStart-p)
	}
	a.hubAssigned, a.inHB = true, false
	j.hub.assigned++
	j.hub.since++
	a.leaseActive = true
	a.leaseExpires = now + s.lease
	a.leaseIdx = len(j.hub.leases)
	j.hub.leases = append(j.hub.leases, a)
	j.hub.minExpiry = math.Min(j.hub.minExpiry, a.leaseExpires)
	j.hub.data[s.tr.Problems[a.job.job.Problem].Hash] = true
	s.messages++
	s.sent(a, j)
	s.countHot(a, j)
	s.deliver(a, j)
}

func (s *sim) countHot(a *attempt, j *judge) {
	if s.cfg.HotTo > 0 && a.job.job.Problem == s.cfg.Hot && s.now() >= s.cfg.HotFrom && s.now() < s.cfg.HotTo {
		j.hot++
	}
}

// prefetch sends a's test data to every connected judge the hub thinks
// lacks it; the download runs in the background.
func (s *sim) prefetch(a *attempt) {
	p := a.job.job.Problem
	hash := s.tr.Problems[p].Hash
	if hash == "" {
		return
	}
	for _, j := range s.judges {
		if !j.hub.connected || j.hub.data[hash] {
			continue
		}
		j.hub.data[hash] = true
		s.messages++
		s.res.Prefetches++
		if j.up && j.cache.get(p) == nil {
			j.cache.put(p, s.now()+s.tr.Problems[p].Download)
		}
	}
}

// deliver hands a to judge j (physically).
func (s *sim) deliver(a *attempt, j *judge) {
	a.remaining = a.job.job.Size
	if !j.up {
		a.phase = phDead
		return
	}
	if len(j.running) < j.spec.Cores {
		s.start(a, j)
		return
	}
	a.phase = phLocal
	a.early = 0 // it waits for a core: it starts when one frees
	j.local = append(j.local, a)
}

func (s *sim) start(a *attempt, j *judge) {
	now := s.now()
	p := a.job.job.Problem
	a.phase = phFetch
	j.running = append(j.running, a)
	var it *lruItem
	hit := true
	if s.tr.Problems[p].Hash != "" { // "": a custom run, no test data
		it = j.cache.get(p)
		hit = it != nil && it.readyAt <= now
		if it == nil {
			it = j.cache.put(p, now+s.download(p))
		}
	}
	if s.inWindow(now) {
		s.starts++
		r := s.res.Reasons[a.reason]
		r.Starts++
		if hit || s.download(p) == 0 {
			s.hits++
			r.Hits++
		}
		if s.res.Reasons == nil {
			s.res.Reasons = map[string]ReasonStat{}
		}
		s.res.Reasons[a.reason] = r
	}
	if it == nil || it.readyAt <= now {
		s.runStart(a)
		return
	}
	s.eng.schedule(event{t: it.readyAt, kind: evRunStart, a: a, ver: a.ver})
}

// runStart starts a's work now, or as far back as the recorded push had
// reached the judge before the simulator's pass ended (attempt.early):
// the slot is then taken the recorded way + the work, as in the hub,
// however long the simulator's own pass took. Work shorter than that
// ends now, as if it had started its own length ago, before anything
// else happens now (the pass that follows this one sees its slot free).
func (s *sim) runStart(a *attempt) {
	j := s.judges[a.judge]
	a.phase = phRun
	a.rate = j.spec.Speed * j.factor
	work := a.remaining / a.rate
	start := s.now() - min(a.early, work)
	a.early = 0
	a.runStart, a.runEnd = start, 0
	j.computing++
	a.rateSince = start
	if start+work <= s.now() && s.now() > start {
		s.complete(a)
		return
	}
	s.eng.schedule(event{t: start + work, kind: evComplete, a: a, ver: a.ver})
}

func (s *sim) removeRunning(j *judge, a *attempt) {
	i := slices.Index(j.running, a)
	j.running = slices.Delete(j.running, i, i+1)
}

// complete is a's work ending: its slot frees now, or after the judge's
// own delay (Job.Hold) and what of the push's recorded way (Job.Push)
// the pass that placed it did not already take.
func (s *sim) complete(a *attempt) {
	j := s.judges[a.judge]
	j.computing--
	a.runEnd = s.now()
	if h := a.job.job.Hold + max(0, a.job.job.Push-(a.dispatched-a.passStart)); h > 0 {
		a.phase = phHold
		s.eng.schedule(event{t: s.now() + h, kind: evHoldEnd, a: a, ver: a.ver})
		return
	}
	s.release(a)
}

// release frees a's slot and sends its result.
func (s *sim) release(a *attempt) {
	j := s.judges[a.judge]
	a.phase = phNone
	s.removeRunning(j, a)
	s.fill(j)
	s.result(a, j)
}

// fill starts locally queued tasks on free slots.
func (s *sim) fill(j *judge) {
	for len(j.running) < j.spec.Cores && len(j.local) > 0 {
		a := j.local[0]
		j.local = j.local[1:]
		s.start(a, j)
	}
	if len(j.local) == 0 {
		j.local = nil
	}
}

// result is a's result leaving judge j. The hub receives it only over an
// open link: a judge the hub has closed (a silent judge past its missed
// heartbeats) keeps it and resends it when it connects again (deliver).
func (s *sim) result(a *attempt, j *judge) {
	if s.ideal {
		s.done(a)
		s.dispatch()
		return
	}
	if !j.hub.connected {
		j.outbox = append(j.outbox, a)
		return
	}
	// Drawn even for a job with its own time, so that a seed's other
	// draws (passes, wakes) are the same with and without it.
	d := s.resultLatency()
	if job := a.job.job; job.Result > 0 {
		d = job.Result
	}
	if d > 0 {
		s.eng.schedule(event{t: s.now() + d, kind: evFunc, fn: func() { s.received(a, j) }})
		return
	}
	s.received(a, j)
}

// received is a's result reaching the hub: recorded if its lease still
// holds (queue.Complete), else dropped as stale.
func (s *sim) received(a *attempt, j *judge) {
	if !a.leaseActive { // the lease expired and the task was requeued
		s.res.Wasted++
		return
	}
	s.releaseLease(a)
	s.unassign(a)
	s.done(a)
	if h := s.hubOf(j); h.obs != nil {
		h.obs.Observe(s.at(s.now()), sched.Outcome{
			Judge: j.spec.ID, Task: s.task(a), Latency: time.Duration((s.now() - a.dispatched) * float64(time.Second)),
			Run: time.Duration(s.reportedRun(a) * float64(time.Second)),
		})
	}
	s.dispatch()
}

// reportedRun is the run time a's result reports (s), as the hub learns
// it: the sum of its cases' wall times — the compile step is not in it,
// and under ICPC rules nothing after the first failing case ran (the
// job's size already stops there).
func (s *sim) reportedRun(a *attempt) float64 {
	elapsed := a.runEnd - a.runStart
	job := a.job.job
	if job.Size <= 0 || job.Compile <= 0 {
		return elapsed
	}
	return elapsed * math.Max(job.Size-job.Compile, 0) / job.Size
}

func (s *sim) hubOf(j *judge) *hubState { return s.hubs[j.hubIdx] }

func (s *sim) done(a *attempt) {
	js := a.job
	if js.done || js.lost {
		return
	}
	js.done = true
	s.inSystem--
	now := s.now()
	if s.inWindow(now) {
		s.completedW++
	}
	if !js.measured {
		return
	}
	s.pending--
	job := js.job
	s.arrivals = append(s.arrivals, job.Arrival)
	s.waits = append(s.waits, a.runStart-job.Arrival)
	s.ttvs = append(s.ttvs, now-job.Arrival)
	s.slowdowns = append(s.slowdowns, (now-job.Arrival)/math.Max(job.Size/s.fast, 1e-9))
	s.measured = append(s.measured, job)
}

// download is what fetching problem p's test data costs (s): nothing for
// the warm references.
func (s *sim) download(p int) float64 {
	if s.warm {
		return 0
	}
	return s.tr.Problems[p].Download
}

func (s *sim) releaseLease(a *attempt) {
	if !a.leaseActive {
		return
	}
	a.leaseActive = false
	l := &s.judges[a.judge].hub.leases
	last := len(*l) - 1
	(*l)[a.leaseIdx] = (*l)[last]
	(*l)[a.leaseIdx].leaseIdx = a.leaseIdx
	(*l)[last] = nil
	*l = (*l)[:last]
}

func (s *sim) unassign(a *attempt) {
	if !a.hubAssigned {
		return
	}
	a.hubAssigned = false
	h := &s.judges[a.judge].hub
	h.assigned--
	if !a.inHB {
		h.since--
	}
}

func (s *sim) heartbeat(j *judge) {
	if !j.up || j.silent {
		return
	}
	h := &j.hub
	reconnect := false
	if !h.connected { // (re)connect: hello lists the cached data
		h.connected, reconnect = true, true
		clear(h.data)
		for _, p := range j.cache.ready(s.now()) {
			h.data[s.tr.Problems[p].Hash] = true
		}
		h.assigned, h.since = 0, 0
	} else if !s.cfg.CacheViewGrows {
		// The heartbeat reports the judge's cache (what it holds and what
		// it is fetching) and the hub's view is replaced by it: evictions
		// reach the hub (hub/internal/hub's onHeartbeat does the same).
		clear(h.data)
		for _, p := range j.cache.keys() {
			h.data[s.tr.Problems[p].Hash] = true
		}
	}
	h.lastHB = s.now()
	h.running, h.queued = len(j.running), len(j.local)
	h.load1 = j.load1
	h.mem = math.Min(1, 0.25+0.5*float64(len(j.running))/float64(j.spec.Cores))
	s.messages++
	held := func(a *attempt) {
		if !a.leaseActive || a.judge != j.idx {
			return
		}
		a.leaseExpires = s.now() + s.lease
		switch {
		case !a.hubAssigned: // adopt (after a reconnect)
			a.hubAssigned, a.inHB = true, true
			h.assigned++
		case !a.inHB:
			a.inHB = true
			h.since--
		}
	}
	for _, a := range j.running {
		held(a)
	}
	for _, a := range j.local {
		held(a)
	}
	if reconnect {
		s.reconnected(j)
	}
	s.dispatch()
}

// reconnected is what follows a judge's hello after the hub had closed
// it: the agent resends the results it kept (recorded only if their
// leases still hold), and the hub withdraws the attempts the judge lists
// but no longer holds (hub/internal/hub's cancelUnheld): their leases
// expired while it was silent, so their results would be stale.
func (s *sim) reconnected(j *judge) {
	out := j.outbox
	j.outbox = nil
	for _, a := range out {
		s.received(a, j)
	}
	cancel := func(list []*attempt) []*attempt {
		return slices.DeleteFunc(list, func(a *attempt) bool {
			if a.leaseActive && a.judge == j.idx {
				return false
			}
			if a.phase == phRun {
				j.computing--
			}
			a.phase = phDead
			a.ver++
			s.res.Cancelled++
			return true
		})
	}
	j.running = cancel(j.running)
	j.local = cancel(j.local)
	s.fill(j)
}

// reap is the hub's watchdog and lease reaper.
func (s *sim) reap() {
	now := s.now()
	changed := false
	for _, j := range s.judges {
		h := &j.hub
		if h.connected && now-h.lastHB > float64(s.cfg.MissedHeartbeats)*s.cfg.Heartbeat {
			h.connected = false // closed: heartbeat_timeout
			for _, a := range h.leases {
				a.hubAssigned = false
			}
			h.assigned, h.since = 0, 0
		}
		if now < h.minExpiry {
			continue
		}
		h.minExpiry = math.Inf(1)
		for i := 0; i < len(h.leases); {
			a := h.leases[i]
			if a.leaseExpires > now {
				h.minExpiry = math.Min(h.minExpiry, a.leaseExpires)
				i++
				continue
			}
			s.expire(a)
			changed = true
		}
	}
	if changed {
		s.dispatch()
	}
}

func (s *sim) expire(a *attempt) {
	s.releaseLease(a)
	s.unassign(a)
	if h := s.hubOf(s.judges[a.judge]); h.obs != nil {
		h.obs.Observe(s.at(s.now()), sched.Outcome{
			Judge: s.judges[a.judge].spec.ID, Task: s.task(a), Failed: true,
			Latency: time.Duration((s.now() - a.dispatched) * float64(time.Second)),
		})
	}
	s.requeue(a)
}

func (s *sim) requeue(a *attempt) {
	js := a.job
	if js.done || js.lost {
		return
	}
	if a.n >= s.cfg.MaxAttempts {
		js.lost = true
		s.inSystem--
		s.res.Lost++
		if js.measured {
			s.pending--
		}
		return
	}
	s.res.Requeues++
	s.enqueue(&attempt{job: js, n: a.n + 1, judge: -1})
}

// faults lists the run's disturbances: Disturbance (if any), then Faults.
func (c *Config) faults() []Disturbance {
	var ds []Disturbance
	if c.Disturbance.Kind != DisturbNone {
		ds = append(ds, c.Disturbance)
	}
	for _, d := range c.Faults {
		if d.Kind != DisturbNone {
			ds = append(ds, d)
		}
	}
	return ds
}

func (s *sim) disturb(d Disturbance, begin bool) {
	j := s.judges[d.Judge]
	switch d.Kind {
	case DisturbDrop:
		if begin {
			s.setFactor(j, d.Factor)
			j.foreign = float64(j.spec.Cores) * (1/d.Factor - 1)
		} else {
			s.setFactor(j, 1)
			j.foreign = 0
		}
	case DisturbGray:
		if begin {
			s.setFactor(j, d.Factor)
		} else {
			s.setFactor(j, 1)
		}
	case DisturbSilent:
		j.silent = begin
		if s.drop {
			if begin {
				s.crash(j, false)
			} else {
				j.up = true
				s.dispatch()
			}
		}
	case DisturbCrash:
		if begin {
			s.crash(j, true)
		} else {
			j.up = true
			j.load1 = 0
			s.dispatch()
		}
	}
}

// leave kills j for good: its link drops, so the hub closes it at once
// (no more work; its leases stay and expire, as in the hub, which keeps
// them for a reconnect within the lease), and its tasks and unfinished
// downloads are lost.
func (s *sim) leave(j *judge) {
	s.crash(j, true)
	if h := &j.hub; h.connected {
		h.connected = false
		for _, a := range h.leases {
			a.hubAssigned = false
		}
		h.assigned, h.since = 0, 0
	}
}

// crash stops j and loses its tasks (and, with lost, its unfinished
// downloads).
func (s *sim) crash(j *judge, lost bool) {
	j.up = false
	killed := append(slices.Clone(j.running), j.local...)
	for _, a := range killed {
		a.phase = phDead
		a.ver++
	}
	j.running, j.local, j.computing = nil, nil, 0
	j.outbox = nil // unacknowledged results die with the agent
	if lost {
		j.cache.dropPending(s.now())
	}
	if s.ideal { // perfect knowledge: requeue at once
		for _, a := range killed {
			s.requeue(a)
		}
		s.dispatch()
	}
}

// setFactor changes j's speed factor; computing attempts continue at the
// new rate.
func (s *sim) setFactor(j *judge, f float64) {
	now := s.now()
	j.factor = f
	for _, a := range j.running {
		if a.phase != phRun {
			continue
		}
		a.remaining -= (now - a.rateSince) * a.rate
		a.remaining = math.Max(a.remaining, 0)
		a.rate = j.spec.Speed * f
		a.rateSince = now
		a.ver++
		s.eng.schedule(event{t: now + a.remaining/a.rate, kind: evComplete, a: a, ver: a.ver})
	}
	if s.ideal {
		s.dispatch()
	}
}

// dispatchIdeal binds the head of the queue while a slot is free, to the
// free slot that would finish it first (data fetch + size / true speed).
func (s *sim) dispatchIdeal() {
	// A task whose language no free judge runs is passed over (it waits
	// for its own judges); the queue's order holds within a language.
	for i := 0; i < len(s.queue); {
		free := false
		for _, j := range s.judges {
			free = free || (j.up && len(j.running) < j.spec.Cores)
		}
		if !free {
			return
		}
		a := s.queue[i]
		p := a.job.job.Problem
		best, bestT := (*judge)(nil), math.Inf(1)
		for _, j := range s.judges {
			if !j.up || len(j.running) >= j.spec.Cores || !j.spec.speaks(s.language(a)) {
				continue
			}
			fetch := s.download(p)
			if it := j.cache.items[p]; it != nil {
				fetch = math.Max(0, it.readyAt-s.now())
			}
			if t := fetch + a.job.job.Size/(j.spec.Speed*j.factor); t < bestT {
				best, bestT = j, t
			}
		}
		if best == nil {
			i++
			continue
		}
		s.queue = slices.Delete(s.queue, i, i+1)
		a.queued = false
		s.res.Decisions++
		a.judge = best.idx
		a.reason = "ideal"
		a.dispatched, a.passStart = s.now(), s.now()
		s.messages++
		s.sent(a, best)
		s.countHot(a, best)
		s.deliver(a, best)
	}
}

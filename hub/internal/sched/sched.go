package sched

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrUnknownPolicy is returned by New for a name it does not know.
var ErrUnknownPolicy = errors.New("sched: unknown policy")

// Task is what a policy needs to know about one task.
type Task struct {
	SubmissionID int64
	ProblemID    int64
	// DataHash is the content hash of the problem's test data.
	DataHash string
	Language string
	// Needs lists the judge capabilities the task requires (hello's
	// capabilities, e.g. input validation): only a judge announcing
	// every one may take it. Empty: any judge of the language.
	Needs    []string
	Priority int
	// EnqueuedAt is when the task entered the queue; zero means unknown.
	// The default policy keeps its own clock per SubmissionID and reads
	// EnqueuedAt only for a task without one (or with DeferFromEnqueue).
	EnqueuedAt time.Time
}

// Judge is one judge as the caller sees it when asking for a decision.
type Judge struct {
	ID    string
	Cores int
	// Slots is how many tasks the judge runs at once (hello's
	// max_parallel); < 1 counts as Cores.
	Slots int
	// Languages the judge can run; empty means any.
	Languages []string
	// Capabilities the judge announced in hello (protocol.Capability*).
	Capabilities []string
	// Draining judges get nothing.
	Draining bool

	// From the last heartbeat (up to one interval old).
	Running      int
	Queued       int
	Load1        float64
	MemUsedRatio float64

	// The caller's own accounting, always current.
	//
	// Assigned is how many tasks the caller handed the judge that have not
	// finished (running, queued at the judge, or in flight).
	Assigned int
	// SinceHeartbeat is how many of Assigned were handed out after the
	// judge took its last heartbeat snapshot.
	SinceHeartbeat int

	// Cached tells whether the judge holds test data with this hash; nil
	// means nothing is cached.
	Cached func(hash string) bool
	// Speed is the judge's relative per-core speed if known; 0 means 1.
	Speed float64
}

// SlotCount is how many tasks j runs at once: Slots, or Cores (at least 1)
// when Slots is unset.
func (j *Judge) SlotCount() int {
	if j.Slots > 0 {
		return j.Slots
	}
	return max(j.Cores, 1)
}

func (j *Judge) cores() float64 { return float64(max(j.Cores, 1)) }

func (j *Judge) speed() float64 {
	if j.Speed > 0 {
		return j.Speed
	}
	return 1
}

// Speaks reports whether j runs lang (an empty Languages runs any).
func (j *Judge) Speaks(lang string) bool {
	return len(j.Languages) == 0 || slices.Contains(j.Languages, lang)
}

// Runs reports whether j may take t: it speaks t's language and has
// every capability t needs.
func (j *Judge) Runs(t Task) bool {
	if !j.Speaks(t.Language) {
		return false
	}
	for _, c := range t.Needs {
		if !slices.Contains(j.Capabilities, c) {
			return false
		}
	}
	return true
}

// Kind is what a busy or no-judge hold depends on: the task's language
// and the capabilities it needs (Pass holds the rest of a kind).
func (t Task) Kind() string {
	if len(t.Needs) == 0 {
		return t.Language
	}
	return t.Language + "\x00" + strings.Join(t.Needs, "\x00")
}

func (j *Judge) has(hash string) bool { return j.Cached != nil && hash != "" && j.Cached(hash) }

// Hold says why a task was not given to any judge.
type Hold int

// Hold reasons.
const (
	// HoldNone: the task was placed.
	HoldNone Hold = iota
	// HoldBusy: judges that could run the task exist, but none may take
	// more work now (full or overloaded). The overload notice counts these.
	// It depends only on the judges and the task's kind (Task.Kind: its
	// language and needs): Pass holds the rest of the pass's tasks of that
	// kind without asking.
	HoldBusy
	// HoldNoJudge: no connected judge runs the task's language with the
	// capabilities it needs at all (like HoldBusy, a matter of the judges
	// and the kind only).
	HoldNoJudge
	// HoldAffinity: judges are free, but the task waits (briefly, bounded
	// by BoundedConfig.MaxDefer) for a judge that holds or is home to its
	// test data. Not an overload.
	HoldAffinity
	// HoldReserve: background work (a rejudge) held to keep the reserve
	// of slots free (Reserve); Pass decides it without asking the policy.
	HoldReserve
)

// String names the hold reason.
func (h Hold) String() string {
	switch h {
	case HoldNone:
		return "none"
	case HoldBusy:
		return "busy"
	case HoldNoJudge:
		return "no_judge"
	case HoldAffinity:
		return "affinity"
	case HoldReserve:
		return "reserve"
	}
	return "hold(" + strconv.Itoa(int(h)) + ")"
}

// Decision is a policy's answer for one task.
type Decision struct {
	// Judge is the index of the chosen judge in the slice passed to Pick,
	// or -1 to hold the task.
	Judge int
	// Hold says why the task was held (Judge < 0).
	Hold Hold
	// Prefetch asks the caller to send the task's test data to every judge
	// that lacks it: the problem is hot and is being spread by load.
	Prefetch bool
	// Reason is a short word for logs and tests (e.g. "cached",
	// "ring", "least_loaded", "hot", "score").
	Reason string
}

// Policy chooses a judge for a task. Implementations are not safe for
// concurrent use: one dispatcher calls them.
type Policy interface {
	// Name is the configuration name of the policy.
	Name() string
	// Pick decides for task t among judges at time now. A policy with
	// memory (hot problem detection) records a placed task as dispatched
	// at now; the caller then hands t to judges[d.Judge] and counts it in
	// that judge's Assigned.
	Pick(now time.Time, t Task, judges []Judge) Decision
}

// Names of the policies the hub ships (New). The scheduling lab's
// baselines (random, wrr, chbl, pull, …) live in package lab, which only
// the simulator imports.
const (
	NameDefault = "default"
	NameGuide   = "guide"
)

// Names lists the policies New knows, the default first.
func Names() []string { return []string{NameDefault, NameGuide} }

// Options are the settings NewWith passes to a policy. Zero values take
// the documented defaults.
type Options struct {
	// Bounded configures the default policy.
	Bounded BoundedConfig
}

// New returns the policy called name ("" is the default) with its default
// settings.
func New(name string) (Policy, error) { return NewWith(name, Options{}) }

// NewWith returns the policy called name with o.
func NewWith(name string, o Options) (Policy, error) {
	switch name {
	case NameDefault, "":
		return NewBounded(o.Bounded), nil
	case NameGuide:
		return Guide{}, nil
	}
	return nil, fmt.Errorf("%w: %q (known: %s)", ErrUnknownPolicy, name, strings.Join(Names(), ", "))
}

func hold(h Hold, reason string) Decision { return Decision{Judge: -1, Hold: h, Reason: reason} }

// Guide is the guide's weighted score on heartbeat data, with its skip
// rules. It is stateless.
type Guide struct{}

// Guide thresholds.
const (
	GuideOverload   = 1.5 // skip when load1 > GuideOverload × cores
	GuideLocalQueue = 3   // skip when the reported local queue > this
)

// Name implements Policy.
func (Guide) Name() string { return NameGuide }

// Score is the guide's score of a judge (lower is better), from its
// heartbeat only.
func (Guide) Score(j Judge) float64 {
	c := j.cores()
	return float64(j.Running)/c*5 + j.Load1/c*3 + j.MemUsedRatio*2
}

// Pick implements Policy.
func (g Guide) Pick(_ time.Time, t Task, judges []Judge) Decision {
	best, bestScore, capable := -1, math.Inf(1), false
	for i := range judges {
		j := &judges[i]
		if j.Draining || !j.Runs(t) {
			continue
		}
		capable = true
		if j.Load1 > GuideOverload*j.cores() || j.Queued > GuideLocalQueue {
			continue
		}
		if s := g.Score(*j); s < bestScore {
			best, bestScore = i, s
		}
	}
	switch {
	case best >= 0:
		return Decision{Judge: best, Reason: "score"}
	case capable:
		return hold(HoldBusy, "all_skipped")
	}
	return hold(HoldNoJudge, "no_judge")
}

// Defaults of BoundedConfig that the hub's command line shows.
const (
	// DefaultLoadFactor is BoundedConfig.LoadFactor's (and the lab's chbl's) c.
	DefaultLoadFactor = 1.25
	// DefaultOverload is BoundedConfig.Overload's.
	DefaultOverload = 1.5
)

// BoundedConfig configures the default policy. Zero fields take the
// documented defaults.
type BoundedConfig struct {
	// LoadFactor is c of consistent hashing with bounded loads: a judge
	// may take a task for affinity only while its tasks stay within
	// c × its fair share of all assigned tasks. Default DefaultLoadFactor
	// (1.25).
	LoadFactor float64
	// LocalQueue is how many tasks beyond its slots a judge may hold
	// (waiting locally). Default 0: bind only to a free slot.
	LocalQueue int
	// Overload skips a judge whose load1 exceeds Overload × cores:
	// with late binding its own tasks cannot push it there, so something
	// else eats its CPU. Default DefaultOverload (1.5).
	Overload float64
	// HotWindow is the sliding window of hot problem detection. Default 60s.
	HotWindow time.Duration
	// HotBuckets splits the window. Default 6.
	HotBuckets int
	// HotShare: a problem is hot when it has at least this share of the
	// dispatches in the window... Default 0.1.
	HotShare float64
	// HotMinCount: ...and at least this many. Default 8.
	HotMinCount int
	// MaxTracked bounds the distinct problems counted per bucket (the rest
	// count only towards the total), so memory stays bounded. Default 4096.
	MaxTracked int
	// HomeJudges is the least number of judges a problem calls home (its
	// highest weights on the rendezvous ring). A problem with a larger
	// share of recent dispatches gets more homes: enough that their slots
	// cover LoadFactor × its share of all slots. Default 2.
	HomeJudges int
	// MaxDefer is how long a task may wait for a free slot on one of its
	// homes while judges elsewhere are free (delay scheduling), measured
	// from the first time the policy held it for that reason, so a task
	// that already waited in a long queue still gets its chance at a warm
	// cache. Default 2s; negative disables it.
	MaxDefer time.Duration
	// DeferFromEnqueue measures MaxDefer from Task.EnqueuedAt instead (the
	// earlier rule, kept for the scheduling lab's ablations: a task that
	// already waited in the queue gets no deferral, so affinity collapses
	// exactly when the queue is long).
	DeferFromEnqueue bool
	// SpeedAlpha is the step the judges' speed estimates (SpeedMeter)
	// settle at, learnt from results (Observe with Outcome.Run): a judge's
	// first 1/SpeedAlpha results are averaged, each counting in full, and
	// its estimate is used from its second. Default 0.05; negative: no
	// estimates (every judge counts as speed 1 unless the caller sets
	// Judge.Speed).
	SpeedAlpha float64
	// RingOrder ranks free judges of equal preference by ring weight and
	// falls back along the ring, ignoring speed (the earlier rule, kept
	// for the ablations; implies ClassOrder).
	RingOrder bool
	// ClassOrder ranks free judges by class first (home and holding the
	// data, home, holding the data), then speed, instead of by expected
	// time to verdict (the earlier rule, kept for the ablations).
	ClassOrder bool
	// WorkPrior is the run time on a speed-1 judge assumed for a task
	// before any result has taught one. Default 1s.
	WorkPrior time.Duration
	// FetchPrior is the download time assumed for test data a judge lacks
	// before any result has taught one. Default 1s.
	FetchPrior time.Duration
	// Pollution is the extra cost, as a share of the download time, of a
	// download onto a judge that is not a home of the problem (within the
	// bounded load): it evicts data the judge's own problems will miss.
	// Default 0.5; negative: none.
	Pollution float64
	// Congestion weighs a download's slot time by how busy the cluster
	// is: the download costs 1 + Congestion × u/(1−u) times its time, u
	// the share of all slots assigned. Default 1; negative: none.
	Congestion float64
	// Tie: expected times to verdict within this fraction of the best
	// count as equal and go to the judge holding the data, then a home,
	// then the higher ring weight. Default 0.05; negative: exact ties only.
	Tie float64
}

func (c *BoundedConfig) defaults() {
	if c.LoadFactor <= 1 {
		c.LoadFactor = DefaultLoadFactor
	}
	if c.LocalQueue < 0 {
		c.LocalQueue = 0
	}
	if c.Overload <= 0 {
		c.Overload = DefaultOverload
	}
	if c.HotWindow <= 0 {
		c.HotWindow = time.Minute
	}
	if c.HotBuckets <= 0 {
		c.HotBuckets = 6
	}
	if c.HotShare <= 0 {
		c.HotShare = 0.1
	}
	if c.HotMinCount <= 0 {
		c.HotMinCount = 8
	}
	if c.MaxTracked <= 0 {
		c.MaxTracked = 4096
	}
	if c.HomeJudges <= 0 {
		c.HomeJudges = 2
	}
	if c.MaxDefer == 0 {
		c.MaxDefer = 2 * time.Second
	}
	if c.SpeedAlpha == 0 {
		c.SpeedAlpha = 0.05
	}
	if c.RingOrder {
		c.ClassOrder = true
	}
	if c.WorkPrior <= 0 {
		c.WorkPrior = time.Second
	}
	if c.FetchPrior <= 0 {
		c.FetchPrior = time.Second
	}
	switch {
	case c.Pollution == 0:
		c.Pollution = 0.5
	case c.Pollution < 0:
		c.Pollution = 0
	}
	switch {
	case c.Congestion == 0:
		c.Congestion = 1
	case c.Congestion < 0:
		c.Congestion = 0
	}
	switch {
	case c.Tie == 0:
		c.Tie = 0.05
	case c.Tie < 0:
		c.Tie = 0
	}
}

// Bounded is the default policy (see the package doc).
type Bounded struct {
	cfg BoundedConfig
	hot *HeavyHitters
	// held: submission → when the policy first held it for affinity.
	held      map[int64]time.Time
	heldSwept time.Time
	speed     *SpeedMeter // nil: no estimates
	cost      *costModel
	// Scratch of one Pick: capacities, ring weights, home marks and
	// expected costs per judge, the eligible judges.
	caps  []float64
	w     []float64
	home  []bool
	costs []float64
	elig  []int
	util  float64 // the share of all slots assigned
}

// NewBounded returns the default policy with cfg.
func NewBounded(cfg BoundedConfig) *Bounded {
	cfg.defaults()
	b := &Bounded{cfg: cfg, hot: NewHeavyHitters(cfg.HotWindow, cfg.HotBuckets, cfg.MaxTracked), held: map[int64]time.Time{}, cost: newCostModel()}
	if cfg.SpeedAlpha > 0 {
		b.speed = NewSpeedMeter(cfg.SpeedAlpha)
	}
	return b
}

// Name implements Policy.
func (*Bounded) Name() string { return NameDefault }

// Config returns the effective configuration.
func (b *Bounded) Config() BoundedConfig { return b.cfg }

// Observe implements Observer: results with a run time teach the speed
// estimates.
func (b *Bounded) Observe(_ time.Time, o Outcome) {
	if b.speed != nil && !o.Failed && o.Run > 0 {
		b.speed.Observe(o.Judge, o.Task.ProblemID, o.Task.Language, o.Run)
	}
	s := 1.0
	if b.speed != nil {
		s = b.speed.Speed(o.Judge)
	}
	b.cost.observe(o, s)
}

// Estimates is what the policy has learnt so far of what downloads cost,
// and the range of the judges' speeds it assumes.
func (b *Bounded) Estimates() CostEstimates {
	e := b.cost.estimates()
	if b.speed != nil {
		e.SpeedLo, e.SpeedHi = b.speed.Range()
	}
	return e
}

// Estimator is implemented by policies that learn what downloads cost
// (the default policy): the hub exports it, the simulator's replay sets
// it beside the hub's.
type Estimator interface {
	Estimates() CostEstimates
}

// Speed is the speed the policy assumes for j: the caller's Judge.Speed if
// set, else its estimate from results, else 1.
func (b *Bounded) Speed(j *Judge) float64 {
	if j.Speed > 0 {
		return j.Speed
	}
	if b.speed != nil {
		return b.speed.Speed(j.ID)
	}
	return 1
}

// Hot reports whether problem is hot at now.
func (b *Bounded) Hot(now time.Time, problem int64) bool {
	n, total := b.hot.Count(now, problem)
	return n >= b.cfg.HotMinCount && float64(n) >= b.cfg.HotShare*float64(total)
}

// quantSpeed rounds a speed to a step of 1/8 in log2 (about 9 %), so the
// ring's capacity weights do not move with every result's noise (a moved
// weight re-homes problems and costs their caches).
func quantSpeed(s float64) float64 {
	return math.Exp2(math.Round(math.Log2(s)*8) / 8)
}

// capacity is j's weight on the ring and in the load bound: slots × its
// assumed speed (quantised).
func (b *Bounded) capacity(j *Judge) float64 {
	if b.cfg.RingOrder { // the earlier rule: slots, whatever the speed
		return float64(j.SlotCount())
	}
	return float64(j.SlotCount()) * quantSpeed(b.Speed(j))
}

// ringWeight is the weighted rendezvous hash of (problem, judge) for a
// judge of capacity c: the judge with the highest weight is the problem's
// home, and a judge's share of homes is proportional to c.
//
// The hash is FNV-1a finished with a 64-bit mixer: plain FNV-1a of
// (problem, judge) ranks judges almost identically for every problem (its
// high bits barely depend on the last bytes), which sent every problem
// home to the same judge; the scheduling simulator found it.
func ringWeight(problem int64, j *Judge, c float64) float64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := range 8 { // the problem id, little-endian, then the judge id
		h ^= uint64(byte(problem >> (8 * i)))
		h *= prime
	}
	for i := 0; i < len(j.ID); i++ {
		h ^= uint64(j.ID[i])
		h *= prime
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	u := (float64(h>>11) + 0.5) / (1 << 53) // (0,1)
	return c / -math.Log(u)
}

// Pick implements Policy.
func (b *Bounded) Pick(now time.Time, t Task, judges []Judge) Decision {
	b.sweep(now)
	eligible := b.elig[:0]
	defer func() { b.elig = eligible[:0] }()
	capable := false
	totalAssigned, totalSlots, totalCap := 0, 0, 0.0
	b.caps = slices.Grow(b.caps[:0], len(judges))[:len(judges)]
	for i := range judges {
		j := &judges[i]
		b.caps[i] = b.capacity(j)
		if j.Draining {
			continue
		}
		totalAssigned += j.Assigned
		totalSlots += j.SlotCount()
		totalCap += b.caps[i]
		if !j.Runs(t) {
			continue
		}
		capable = true
		if !b.free(j) {
			continue
		}
		eligible = append(eligible, i)
	}
	if len(eligible) == 0 {
		if capable {
			return hold(HoldBusy, "all_busy")
		}
		return hold(HoldNoJudge, "no_judge")
	}
	b.util = float64(totalAssigned) / float64(max(totalSlots, 1))
	d := b.choose(now, t, judges, eligible, totalAssigned, totalCap)
	if d.Judge >= 0 {
		b.hot.Add(now, t.ProblemID)
		delete(b.held, t.SubmissionID)
		b.cost.placed(now, t, judges[d.Judge].ID, !judges[d.Judge].has(t.DataHash))
	}
	return d
}

// free reports whether j may take a task now: a free slot (plus the
// allowed local queue) and no foreign load eating its CPU.
func (b *Bounded) free(j *Judge) bool {
	return j.Assigned < j.SlotCount()+b.cfg.LocalQueue && !b.overloaded(j)
}

func (b *Bounded) overloaded(j *Judge) bool { return j.Load1 > b.cfg.Overload*j.cores() }

// homes marks the problem's home judges: the capable judges of highest
// rendezvous weight (b.w, NaN for the others), at least HomeJudges of them
// and enough that their capacity covers LoadFactor × the problem's share
// of recent dispatches of totalCap. Pick fills b.caps first.
func (b *Bounded) homes(now time.Time, t Task, judges []Judge, totalCap float64) []bool {
	if len(b.caps) != len(judges) {
		b.caps = slices.Grow(b.caps[:0], len(judges))[:len(judges)]
		for i := range judges {
			b.caps[i] = b.capacity(&judges[i])
		}
	}
	b.weigh(t, judges)
	n, total := b.hot.Count(now, t.ProblemID)
	need := 0.0
	if total > 0 {
		need = b.cfg.LoadFactor * float64(n) / float64(total) * totalCap
	}
	b.home = slices.Grow(b.home[:0], len(judges))[:len(judges)]
	clear(b.home)
	c := 0.0
	for k := 0; k < b.cfg.HomeJudges || c < need; k++ {
		best := -1
		for i, w := range b.w {
			if !b.home[i] && !math.IsNaN(w) && (best < 0 || w > b.w[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		b.home[best] = true
		c += b.caps[best]
	}
	return b.home
}

// weigh fills b.w with every judge's ring weight for t (NaN for a judge
// that is draining or does not speak t's language).
func (b *Bounded) weigh(t Task, judges []Judge) {
	b.w = slices.Grow(b.w[:0], len(judges))[:len(judges)]
	for i := range judges {
		if j := &judges[i]; !j.Draining && j.Runs(t) {
			b.w[i] = ringWeight(t.ProblemID, j, b.caps[i])
		} else {
			b.w[i] = math.NaN()
		}
	}
}

// sweep forgets, now and then, the deferral clocks of tasks that went
// elsewhere (another hub, cancelled) and were never placed here, and the
// placements whose results never came.
func (b *Bounded) sweep(now time.Time) {
	b.cost.sweep(now)
	if len(b.held) == 0 || now.Sub(b.heldSwept) < 8*b.cfg.MaxDefer {
		return
	}
	for id, at := range b.held {
		if now.Sub(at) > 4*b.cfg.MaxDefer {
			delete(b.held, id)
		}
	}
	b.heldSwept = now
}

// mayDefer reports whether t may still wait for a busy judge, for at most
// limit since its first hold (and never beyond MaxDefer), and starts its
// clock if this is the first time.
func (b *Bounded) mayDefer(now time.Time, t Task, limit time.Duration) bool {
	if b.cfg.MaxDefer <= 0 || limit <= 0 {
		return false
	}
	limit = min(limit, b.cfg.MaxDefer)
	if b.cfg.DeferFromEnqueue || t.SubmissionID == 0 {
		// No identity to keep a clock for: the queue's own.
		return !t.EnqueuedAt.IsZero() && now.Sub(t.EnqueuedAt) < limit
	}
	first, ok := b.held[t.SubmissionID]
	if !ok {
		b.held[t.SubmissionID] = now
		return true
	}
	return now.Sub(first) < limit
}

// within reports whether judge i may take one more task within the
// bounded load: c × its capacity's share of all assigned tasks (this one
// included), plus one task of slack so that affinity survives a near-idle
// cluster, where the fair share of everyone rounds to zero.
func (b *Bounded) within(judges []Judge, i, totalAssigned int, totalCap float64) bool {
	bound := 1 + math.Ceil(b.cfg.LoadFactor*float64(totalAssigned+1)*b.caps[i]/totalCap)
	return float64(judges[i].Assigned+1) <= bound
}

func (b *Bounded) choose(now time.Time, t Task, judges []Judge, eligible []int, totalAssigned int, totalCap float64) Decision {
	if b.cfg.ClassOrder {
		return b.chooseByClass(now, t, judges, eligible, totalAssigned, totalCap)
	}
	hot := b.Hot(now, t.ProblemID)
	home := b.homes(now, t, judges, totalCap)
	work, fetch := b.cost.work(t, b.cfg.WorkPrior), b.cost.fetch(t, b.cfg.FetchPrior)
	// A download holds a slot: the busier the cluster, the more the slot
	// time it takes from the tasks queued behind costs them.
	u := min(b.util, 0.98)
	fetch *= 1 + b.cfg.Congestion*u/(1-u)
	// The expected time to verdict on each free judge: its run (the task's
	// expected work at the judge's speed) plus, if it lacks the data, the
	// download. A download onto a judge that is not a home within its
	// bounded load also costs the cache it evicts: the problems homed
	// there will miss it (Pollution). A hot problem's data is being sent
	// everywhere: no such cost.
	best, bestCost := -1, math.Inf(1)
	b.costs = slices.Grow(b.costs[:0], len(judges))[:len(judges)]
	for _, i := range eligible {
		j := &judges[i]
		c := work / b.Speed(j)
		if !j.has(t.DataHash) {
			f := fetch
			if !hot && !(home[i] && b.within(judges, i, totalAssigned, totalCap)) {
				f *= 1 + b.cfg.Pollution
			}
			c += f
		}
		b.costs[i] = c
		if c < bestCost {
			best, bestCost = i, c
		}
	}
	// Near-equal costs (within Tie) are a tie, broken towards the data,
	// then a home, then the ring: stable, so a problem keeps to the same
	// judges of a homogeneous cluster and their caches stay warm.
	limit := bestCost * (1 + b.cfg.Tie)
	for _, i := range eligible {
		if i == best || b.costs[i] > limit {
			continue
		}
		if hot { // spread by load: the data is going everywhere
			if ui, ub := utilisation(&judges[i]), utilisation(&judges[best]); ui != ub {
				if ui < ub {
					best = i
				}
				continue
			}
		}
		if prefer(&judges[i], &judges[best], home[i], home[best], b.w[i], b.w[best], t.DataHash) {
			best = i
		}
	}
	bestCost = b.costs[best]
	if !hot {
		// A busy judge that holds the data may still finish the task
		// first: wait for it (delay scheduling), for at most what waiting
		// is expected to save and at most MaxDefer.
		busyCost := math.Inf(1)
		for i := range judges {
			j := &judges[i]
			if j.Draining || !j.Runs(t) || b.free(j) || b.overloaded(j) || !j.has(t.DataHash) {
				continue
			}
			busyCost = min(busyCost, b.cost.wait(j, b.Speed(j), work)+work/b.Speed(j))
		}
		if gain := bestCost - busyCost; gain > 0 && b.mayDefer(now, t, time.Duration(gain*float64(time.Second))) {
			return hold(HoldAffinity, "affinity")
		}
	}
	d := Decision{Judge: best, Prefetch: hot}
	switch j := &judges[best]; {
	case hot:
		d.Reason = "hot"
	case j.has(t.DataHash) && home[best]:
		d.Reason = "cached"
	case j.has(t.DataHash):
		d.Reason = "cached_away"
	case home[best]:
		d.Reason = "home"
	default:
		d.Reason = "fastest"
	}
	return d
}

// prefer breaks a tie of expected cost between a and b: holding the data,
// then home, then the higher ring weight.
func prefer(a, b *Judge, homeA, homeB bool, wa, wb float64, hash string) bool {
	if ha, hb := a.has(hash), b.has(hash); ha != hb {
		return ha
	}
	if homeA != homeB {
		return homeA
	}
	return wa > wb
}

// chooseByClass is the ranking before expected time to verdict (class
// first: home and holding the data, home, holding the data; then speed),
// kept for the ablations (BoundedConfig.ClassOrder).
func (b *Bounded) chooseByClass(now time.Time, t Task, judges []Judge, eligible []int, totalAssigned int, totalCap float64) Decision {
	if b.Hot(now, t.ProblemID) {
		return Decision{Judge: b.leastUtilised(judges, eligible), Prefetch: true, Reason: "hot"}
	}
	home := b.homes(now, t, judges, totalCap)
	best, bestClass := -1, 0
	var bestS, bestW float64
	for _, i := range eligible {
		if !b.within(judges, i, totalAssigned, totalCap) {
			continue
		}
		j := &judges[i]
		class := 0
		if home[i] {
			class += 2
		}
		if j.has(t.DataHash) {
			class++
		}
		if class == 0 {
			continue
		}
		s, w := b.Speed(j), b.w[i]
		if b.cfg.RingOrder {
			s = 1
		}
		if best < 0 || class > bestClass || (class == bestClass && (s > bestS || (s == bestS && w > bestW))) {
			best, bestClass, bestS, bestW = i, class, s, w
		}
	}
	if best >= 0 && bestClass >= 2 {
		reason := "home"
		if bestClass == 3 {
			reason = "cached"
		}
		return Decision{Judge: best, Reason: reason}
	}
	if best >= 0 {
		return Decision{Judge: best, Reason: "cached_away"}
	}
	for i := range judges {
		if j := &judges[i]; home[i] && !b.free(j) && !b.overloaded(j) {
			if b.mayDefer(now, t, b.cfg.MaxDefer) {
				return hold(HoldAffinity, "affinity")
			}
			break
		}
	}
	if !b.cfg.RingOrder {
		return Decision{Judge: b.fastest(judges, eligible), Reason: "fastest"}
	}
	bestW = -1
	for _, i := range eligible {
		if !b.within(judges, i, totalAssigned, totalCap) {
			continue
		}
		if w := b.w[i]; w > bestW {
			best, bestW = i, w
		}
	}
	if best >= 0 {
		return Decision{Judge: best, Reason: "ring"}
	}
	return Decision{Judge: leastLoaded(judges, eligible), Reason: "least_loaded"}
}

// leastUtilised returns the candidate of lowest utilisation, then highest
// assumed speed (leastLoaded's order with the speed estimates).
func (b *Bounded) leastUtilised(judges []Judge, candidates []int) int {
	if b.cfg.RingOrder {
		return leastLoaded(judges, candidates)
	}
	best, bestS := candidates[0], b.Speed(&judges[candidates[0]])
	for _, i := range candidates[1:] {
		j, s := &judges[i], b.Speed(&judges[i])
		ua, ub := utilisation(j), utilisation(&judges[best])
		if ua < ub || (ua == ub && (s > bestS || (s == bestS && lessLoaded(j, &judges[best])))) {
			best, bestS = i, s
		}
	}
	return best
}

// fastest returns the candidate of highest assumed speed, then the lowest
// utilisation (leastLoaded's order).
func (b *Bounded) fastest(judges []Judge, candidates []int) int {
	if b.cfg.RingOrder {
		return leastLoaded(judges, candidates)
	}
	best, bestS := candidates[0], b.Speed(&judges[candidates[0]])
	for _, i := range candidates[1:] {
		s := b.Speed(&judges[i])
		if s > bestS || (s == bestS && lessLoaded(&judges[i], &judges[best])) {
			best, bestS = i, s
		}
	}
	return best
}

// leastLoaded returns the candidate with the lowest utilisation
// (Assigned/slots), then the fastest, then the lowest load1 per core, then
// the earliest in the slice.
func leastLoaded(judges []Judge, candidates []int) int {
	best := candidates[0]
	for _, i := range candidates[1:] {
		if lessLoaded(&judges[i], &judges[best]) {
			best = i
		}
	}
	return best
}

func lessLoaded(a, b *Judge) bool {
	ua := float64(a.Assigned) / float64(a.SlotCount())
	ub := float64(b.Assigned) / float64(b.SlotCount())
	if ua != ub {
		return ua < ub
	}
	if a.speed() != b.speed() {
		return a.speed() > b.speed()
	}
	return a.Load1/a.cores() < b.Load1/b.cores()
}

// HeavyHitters counts events per key over a sliding window split into
// buckets; each bucket tracks at most maxKeys distinct keys (further keys
// count only towards the total), so memory is bounded.
type HeavyHitters struct {
	width   time.Duration
	buckets []hhBucket
	maxKeys int
}

type hhBucket struct {
	start  int64 // bucket index (time / width); -1 unused
	total  int
	counts map[int64]int
}

// NewHeavyHitters returns a counter over window split into n buckets.
func NewHeavyHitters(window time.Duration, n, maxKeys int) *HeavyHitters {
	h := &HeavyHitters{width: max(window/time.Duration(n), time.Millisecond), buckets: make([]hhBucket, n), maxKeys: maxKeys}
	for i := range h.buckets {
		h.buckets[i].start = -1
	}
	return h
}

func (h *HeavyHitters) index(now time.Time) int64 { return now.UnixNano() / int64(h.width) }

// Add counts one event of key at now.
func (h *HeavyHitters) Add(now time.Time, key int64) {
	idx := h.index(now)
	b := &h.buckets[int(idx%int64(len(h.buckets)))]
	if b.start != idx {
		*b = hhBucket{start: idx, counts: map[int64]int{}}
	}
	b.total++
	if _, ok := b.counts[key]; ok || len(b.counts) < h.maxKeys {
		b.counts[key]++
	}
}

// Count returns key's events and all events within the window ending at now.
func (h *HeavyHitters) Count(now time.Time, key int64) (n, total int) {
	idx := h.index(now)
	for i := range h.buckets {
		b := &h.buckets[i]
		if b.start < 0 || b.start <= idx-int64(len(h.buckets)) || b.start > idx {
			continue
		}
		n += b.counts[key]
		total += b.total
	}
	return n, total
}

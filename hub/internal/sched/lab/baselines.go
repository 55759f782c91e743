package lab

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
)

// pushable reports whether a push balancer (one that never holds a task
// for capacity) may send t to j at all.
func pushable(j *sched.Judge, t sched.Task) bool { return !j.Draining && j.Speaks(t.Language) }

// candidates appends the indexes of the judges a push balancer may use.
func candidates(dst []int, t sched.Task, judges []sched.Judge) []int {
	dst = dst[:0]
	for i := range judges {
		if pushable(&judges[i], t) {
			dst = append(dst, i)
		}
	}
	return dst
}

func hold(h sched.Hold, reason string) sched.Decision {
	return sched.Decision{Judge: -1, Hold: h, Reason: reason}
}

func noJudge() sched.Decision { return hold(sched.HoldNoJudge, "no_judge") }

func cores(j *sched.Judge) float64 { return float64(max(j.Cores, 1)) }

// utilisation is Assigned per slot.
func utilisation(j *sched.Judge) float64 { return float64(j.Assigned) / float64(j.SlotCount()) }

// Random sends each task to a judge chosen uniformly at random. Like every
// push balancer below it never holds a task: a judge queues what exceeds
// its slots locally.
type Random struct {
	rng  *rand.Rand
	cand []int
}

// NewRandom returns the random balancer with a deterministic seed.
func NewRandom(seed uint64) *Random { return &Random{rng: rand.New(rand.NewPCG(seed, 0x5eed))} }

// Name implements Policy.
func (*Random) Name() string { return NameRandom }

// Pick implements Policy.
func (r *Random) Pick(_ time.Time, t sched.Task, judges []sched.Judge) sched.Decision {
	r.cand = candidates(r.cand, t, judges)
	if len(r.cand) == 0 {
		return noJudge()
	}
	return sched.Decision{Judge: r.cand[r.rng.IntN(len(r.cand))], Reason: "random"}
}

// WRR is static weighted round robin by cores in the interleaved form of
// LVS's wrr: the sequence steps through weight levels, so weights 4,2,1
// give a a b a b c a (not a smooth spread).
type WRR struct {
	i, cw int
}

// Name implements Policy.
func (*WRR) Name() string { return NameWRR }

// Pick implements Policy.
func (w *WRR) Pick(_ time.Time, t sched.Task, judges []sched.Judge) sched.Decision {
	n, maxW, g := len(judges), 0, 0
	for i := range judges {
		if pushable(&judges[i], t) {
			c := max(judges[i].Cores, 1)
			maxW = max(maxW, c)
			g = gcd(g, c)
		}
	}
	if maxW == 0 {
		return noJudge()
	}
	if w.cw == 0 || w.i >= n { // fresh, or judges left: start over
		w.i, w.cw = n-1, 0
	}
	for {
		w.i = (w.i + 1) % n
		if w.i == 0 {
			w.cw -= g
			if w.cw <= 0 {
				w.cw = maxW
			}
		}
		if j := &judges[w.i]; pushable(j, t) && max(j.Cores, 1) >= w.cw {
			return sched.Decision{Judge: w.i, Reason: "wrr"}
		}
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// SmoothWRR is nginx's smooth weighted round robin with weight = cores:
// every pick adds each judge's weight to its current value, takes the
// largest and subtracts the total from it.
type SmoothWRR struct {
	current map[string]int
}

// NewSmoothWRR returns nginx's smooth weighted round robin.
func NewSmoothWRR() *SmoothWRR { return &SmoothWRR{current: map[string]int{}} }

// Name implements Policy.
func (*SmoothWRR) Name() string { return NameSmoothWRR }

// Pick implements Policy.
func (s *SmoothWRR) Pick(_ time.Time, t sched.Task, judges []sched.Judge) sched.Decision {
	best, total := -1, 0
	for i := range judges {
		j := &judges[i]
		if !pushable(j, t) {
			continue
		}
		w := max(j.Cores, 1)
		s.current[j.ID] += w
		total += w
		if best < 0 || s.current[j.ID] > s.current[judges[best].ID] {
			best = i
		}
	}
	if best < 0 {
		return noJudge()
	}
	s.current[judges[best].ID] -= total
	return sched.Decision{Judge: best, Reason: "swrr"}
}

// LeastConn is nginx's least_conn: the lowest Assigned/cores wins; ties
// are broken round robin.
type LeastConn struct {
	next int
}

// Name implements Policy.
func (*LeastConn) Name() string { return NameLeastConn }

// Pick implements Policy.
func (l *LeastConn) Pick(_ time.Time, t sched.Task, judges []sched.Judge) sched.Decision {
	n, best := len(judges), -1
	for k := range n {
		i := (l.next + k) % n
		j := &judges[i]
		if !pushable(j, t) {
			continue
		}
		// conns/weight < best.conns/best.weight, in integers as nginx does.
		if best < 0 || j.Assigned*max(judges[best].Cores, 1) < judges[best].Assigned*max(j.Cores, 1) {
			best = i
		}
	}
	if best < 0 {
		return noJudge()
	}
	l.next = best + 1
	return sched.Decision{Judge: best, Reason: "least_conn"}
}

// twoChoices draws two distinct candidates (or the only one).
func twoChoices(rng *rand.Rand, cand []int) (int, int) {
	if len(cand) == 1 {
		return cand[0], cand[0]
	}
	a := rng.IntN(len(cand))
	b := rng.IntN(len(cand) - 1)
	if b >= a {
		b++
	}
	return cand[a], cand[b]
}

// P2C is the power of two choices: two judges at random, the one with the
// lower Assigned per slot wins.
type P2C struct {
	rng  *rand.Rand
	cand []int
}

// NewP2C returns the power of two choices with a deterministic seed.
func NewP2C(seed uint64) *P2C { return &P2C{rng: rand.New(rand.NewPCG(seed, 0x2c))} }

// Name implements Policy.
func (*P2C) Name() string { return NameP2C }

// Pick implements Policy.
func (p *P2C) Pick(_ time.Time, t sched.Task, judges []sched.Judge) sched.Decision {
	p.cand = candidates(p.cand, t, judges)
	if len(p.cand) == 0 {
		return noJudge()
	}
	a, b := twoChoices(p.rng, p.cand)
	if utilisation(&judges[b]) < utilisation(&judges[a]) {
		a = b
	}
	return sched.Decision{Judge: a, Reason: "p2c"}
}

// LeastRequest is Envoy's weighted least request with active request bias
// 1 (weight = cores). With equal weights it is the power of two choices on
// active requests. With unequal weights it is an earliest-deadline-first
// schedule in which a judge, each time it is picked, is scheduled again
// with the effective weight cores / (active + 1)^bias of that moment.
type LeastRequest struct {
	rng      *rand.Rand
	cand     []int
	now      float64
	deadline map[string]float64
}

// NewLeastRequest returns Envoy's weighted least request.
func NewLeastRequest(seed uint64) *LeastRequest {
	return &LeastRequest{rng: rand.New(rand.NewPCG(seed, 0x1e)), deadline: map[string]float64{}}
}

// Name implements Policy.
func (*LeastRequest) Name() string { return NameLeastRequest }

// Pick implements Policy.
func (l *LeastRequest) Pick(_ time.Time, t sched.Task, judges []sched.Judge) sched.Decision {
	l.cand = candidates(l.cand, t, judges)
	if len(l.cand) == 0 {
		return noJudge()
	}
	equal := true
	for _, i := range l.cand[1:] {
		equal = equal && judges[i].Cores == judges[l.cand[0]].Cores
	}
	if equal {
		a, b := twoChoices(l.rng, l.cand)
		if judges[b].Assigned < judges[a].Assigned {
			a = b
		}
		return sched.Decision{Judge: a, Reason: "least_request"}
	}
	eff := func(j *sched.Judge, active int) float64 { return float64(max(j.Cores, 1)) / float64(active+1) }
	best := -1
	for _, i := range l.cand {
		j := &judges[i]
		if _, ok := l.deadline[j.ID]; !ok { // a new judge joins the schedule
			l.deadline[j.ID] = l.now + 1/eff(j, j.Assigned)
		}
		if best < 0 || l.deadline[j.ID] < l.deadline[judges[best].ID] {
			best = i
		}
	}
	j := &judges[best]
	l.now = l.deadline[j.ID]
	l.deadline[j.ID] = l.now + 1/eff(j, j.Assigned+1)
	return sched.Decision{Judge: best, Reason: "least_request"}
}

// PeakEWMA is Finagle's/Linkerd's Peak-EWMA with two random choices: a
// judge's cost is its peak-sensitive moving average of latency times
// (Assigned + 1); a new latency above the average replaces it at once,
// lower ones decay in with time constant Tau.
type PeakEWMA struct {
	rng   *rand.Rand
	cand  []int
	tau   float64
	stats map[string]*peakStat
}

type peakStat struct {
	ewma  float64 // seconds
	stamp time.Time
}

// PeakEWMATau is Finagle's default decay time.
const PeakEWMATau = 10 * time.Second

// NewPeakEWMA returns Peak-EWMA power of two choices.
func NewPeakEWMA(seed uint64) *PeakEWMA {
	return &PeakEWMA{rng: rand.New(rand.NewPCG(seed, 0xe3)), tau: PeakEWMATau.Seconds(), stats: map[string]*peakStat{}}
}

// Name implements Policy.
func (*PeakEWMA) Name() string { return NamePeakEWMA }

// observe folds rtt (seconds) in at now; rtt 0 only decays.
func (p *PeakEWMA) observe(now time.Time, id string, rtt float64) float64 {
	s := p.stats[id]
	if s == nil {
		s = &peakStat{stamp: now}
		p.stats[id] = s
	}
	dt := max(now.Sub(s.stamp).Seconds(), 0)
	s.stamp = now
	if rtt > s.ewma {
		s.ewma = rtt
	} else {
		w := math.Exp(-dt / p.tau)
		s.ewma = s.ewma*w + rtt*(1-w)
	}
	return s.ewma
}

// Observe implements Observer.
func (p *PeakEWMA) Observe(now time.Time, o sched.Outcome) {
	if o.Failed {
		return
	}
	p.observe(now, o.Judge, o.Latency.Seconds())
}

// penalty is the cost of a judge that has work but no latency sample yet.
const peakPenalty = 1e6

func (p *PeakEWMA) cost(now time.Time, j *sched.Judge) float64 {
	e := p.observe(now, j.ID, 0)
	if e == 0 && j.Assigned > 0 {
		return peakPenalty + float64(j.Assigned)
	}
	return e * float64(j.Assigned+1)
}

// Pick implements Policy.
func (p *PeakEWMA) Pick(now time.Time, t sched.Task, judges []sched.Judge) sched.Decision {
	p.cand = candidates(p.cand, t, judges)
	if len(p.cand) == 0 {
		return noJudge()
	}
	a, b := twoChoices(p.rng, p.cand)
	if p.cost(now, &judges[b]) < p.cost(now, &judges[a]) {
		a = b
	}
	return sched.Decision{Judge: a, Reason: "peak_ewma"}
}

// Adaptive is Dubbo 3's adaptive balancer (AdaptiveLoadBalance): two
// random choices, the lower load wins, where
// load = cpu × (√ewma_rt + 1) × (inflight + 1) / (success_ratio × weight + 1),
// cpu is the judge's reported load1 per core (at least 0.05: Dubbo gets it
// from the provider's last response), ewma_rt averages latencies in
// milliseconds with β = 0.5, success_ratio = successes / (requests + 1),
// and weight = cores.
type Adaptive struct {
	rng   *rand.Rand
	cand  []int
	stats map[string]*adaptiveStat
}

type adaptiveStat struct {
	ewma              float64 // ms
	requests, success int
}

// NewAdaptive returns Dubbo's adaptive balancer.
func NewAdaptive(seed uint64) *Adaptive {
	return &Adaptive{rng: rand.New(rand.NewPCG(seed, 0xad)), stats: map[string]*adaptiveStat{}}
}

// Name implements Policy.
func (*Adaptive) Name() string { return NameAdaptive }

func (a *Adaptive) stat(id string) *adaptiveStat {
	s := a.stats[id]
	if s == nil {
		s = &adaptiveStat{}
		a.stats[id] = s
	}
	return s
}

// Observe implements Observer.
func (a *Adaptive) Observe(_ time.Time, o sched.Outcome) {
	s := a.stat(o.Judge)
	if o.Failed {
		return
	}
	s.success++
	s.ewma = 0.5*s.ewma + 0.5*float64(o.Latency.Milliseconds())
}

// Load is the adaptive load of j (lower is better).
func (a *Adaptive) Load(j *sched.Judge) float64 {
	s := a.stat(j.ID)
	cpu := max(j.Load1/cores(j), 0.05)
	ratio := float64(s.success) / float64(s.requests+1)
	return cpu * (math.Sqrt(s.ewma) + 1) * float64(j.Assigned+1) / (ratio*float64(max(j.Cores, 1)) + 1)
}

// Pick implements Policy.
func (a *Adaptive) Pick(_ time.Time, t sched.Task, judges []sched.Judge) sched.Decision {
	a.cand = candidates(a.cand, t, judges)
	if len(a.cand) == 0 {
		return noJudge()
	}
	x, y := twoChoices(a.rng, a.cand)
	if a.Load(&judges[y]) < a.Load(&judges[x]) {
		x = y
	}
	a.stat(judges[x].ID).requests++
	return sched.Decision{Judge: x, Reason: "adaptive"}
}

// CHBL is consistent hashing with bounded loads (Mirrokni, Thorup,
// Zadimoghaddam) on the problem id: a ring with virtual nodes in
// proportion to slots; a task walks clockwise from its problem's hash to
// the first judge whose Assigned + 1 stays within
// ceil(c × (all assigned + 1) × slots / all slots). It is a push balancer:
// it never holds a task for capacity.
type CHBL struct {
	c      float64
	sig    []string
	ring   []ringPoint
	vnodes int
}

type ringPoint struct {
	h  uint64
	id string
}

// NewCHBL returns consistent hashing with bounded loads with factor c
// (<= 1 means sched.DefaultLoadFactor).
func NewCHBL(c float64) *CHBL {
	if c <= 1 {
		c = sched.DefaultLoadFactor
	}
	return &CHBL{c: c, vnodes: 16}
}

// Name implements Policy.
func (*CHBL) Name() string { return NameCHBL }

func hash64(parts ...[]byte) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write(p)
	}
	// fnv's low bits mix poorly for short keys: finish with a 64-bit mixer.
	x := h.Sum64()
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

func problemKey(p int64) []byte {
	var b [8]byte
	for i := range 8 {
		b[i] = byte(p >> (8 * i))
	}
	return b[:]
}

func (c *CHBL) rebuild(judges []sched.Judge) {
	sig := make([]string, 0, len(judges))
	for i := range judges {
		sig = append(sig, judges[i].ID+"/"+itoa(judges[i].SlotCount()))
	}
	if slices.Equal(sig, c.sig) {
		return
	}
	c.sig = sig
	c.ring = c.ring[:0]
	for i := range judges {
		j := &judges[i]
		for v := range c.vnodes * j.SlotCount() {
			c.ring = append(c.ring, ringPoint{h: hash64([]byte(j.ID), []byte{'#'}, problemKey(int64(v))), id: j.ID})
		}
	}
	slices.SortFunc(c.ring, func(a, b ringPoint) int {
		switch {
		case a.h < b.h:
			return -1
		case a.h > b.h:
			return 1
		}
		return 0
	})
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// Pick implements Policy.
func (c *CHBL) Pick(_ time.Time, t sched.Task, judges []sched.Judge) sched.Decision {
	c.rebuild(judges)
	index := map[string]int{}
	totalAssigned, totalSlots := 0, 0
	for i := range judges {
		j := &judges[i]
		totalAssigned += j.Assigned
		totalSlots += j.SlotCount()
		if pushable(j, t) {
			index[j.ID] = i
		}
	}
	if len(index) == 0 {
		return noJudge()
	}
	h := hash64(problemKey(t.ProblemID))
	start, _ := slices.BinarySearchFunc(c.ring, h, func(p ringPoint, h uint64) int {
		switch {
		case p.h < h:
			return -1
		case p.h > h:
			return 1
		}
		return 0
	})
	fallback := -1
	for k := range len(c.ring) {
		i, ok := index[c.ring[(start+k)%len(c.ring)].id]
		if !ok {
			continue
		}
		if fallback < 0 {
			fallback = i
		}
		j := &judges[i]
		bound := math.Ceil(c.c * float64(totalAssigned+1) * float64(j.SlotCount()) / float64(totalSlots))
		if float64(j.Assigned+1) <= bound {
			reason := "ring"
			if i != fallback {
				reason = "ring_next"
			}
			return sched.Decision{Judge: i, Reason: reason}
		}
	}
	// Only reachable when judges that cannot run t hold most of the work.
	return sched.Decision{Judge: fallback, Reason: "ring_full"}
}

// Pull is join-idle-queue in its pull form: judges ask for work when a
// slot frees, the hub answers the longest-waiting ask with the head of the
// queue. A judge with a free slot (Assigned < slots) is an open ask; no
// free slot anywhere holds the task. It ignores data affinity.
type Pull struct {
	idleSince map[string]time.Time
}

// NewPull returns the pull (join-idle-queue) policy.
func NewPull() *Pull { return &Pull{idleSince: map[string]time.Time{}} }

// Name implements Policy.
func (*Pull) Name() string { return NamePull }

// Pick implements Policy.
func (p *Pull) Pick(now time.Time, t sched.Task, judges []sched.Judge) sched.Decision {
	best, capable := -1, false
	var bestSince time.Time
	for i := range judges {
		j := &judges[i]
		if !pushable(j, t) {
			continue
		}
		capable = true
		if j.Assigned >= j.SlotCount() {
			delete(p.idleSince, j.ID)
			continue
		}
		since, ok := p.idleSince[j.ID]
		if !ok {
			since = now
			p.idleSince[j.ID] = now
		}
		if best < 0 || since.Before(bestSince) {
			best, bestSince = i, since
		}
	}
	switch {
	case best >= 0:
		// The ask is answered; the judge asks again if a slot stays free.
		delete(p.idleSince, judges[best].ID)
		if judges[best].Assigned+1 < judges[best].SlotCount() {
			p.idleSince[judges[best].ID] = now
		}
		return sched.Decision{Judge: best, Reason: "pull"}
	case capable:
		return hold(sched.HoldBusy, "all_busy")
	}
	return noJudge()
}

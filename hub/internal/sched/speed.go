package sched

import (
	"math"
	"slices"
	"time"
)

// SpeedMeter estimates each judge's per-core speed, relative to the other
// judges, from the run times its results report. A task's run time is the
// work of its submission divided by the judge's speed, and the work of a
// problem's submissions varies a lot (lognormal, with time-limit
// outliers), so one result says little; many do. In log space the model is
//
//	log run = work(problem, language) − speed(judge) + noise
//
// and SpeedMeter fits it online: each result moves the problem's work
// estimate and the judge's speed estimate against the residual, the
// residual clamped so a time-limit outlier moves nothing far. Problems run
// on several judges (their homes, and wherever they overflow), which ties
// the judges' estimates together. Speeds are reported relative to the mean
// log speed of the judges seen often enough; a judge with fewer than
// MinSamples results reports 1.
//
// How fast it learns. A judge's n-th result moves its estimate by
// max(Alpha, 1/n) of the residual: a running mean of what its results say
// while n < 1/Alpha (every early result counts in full, so a judge 5×
// slower than its peers stands out after two or three results, not after
// dozens), then an EWMA of step Alpha, which forgets old noise. A judge
// that changes later (a gray failure) would take the EWMA a few dozen
// results to follow, so each judge's residuals also feed a short EWMA (its
// drift): when that strays further from 0 than noise would take it, the
// judge's running mean restarts (n back to 2), and its next results
// again count in full.
//
// A mean of a few noisy results is itself noisy, so Speed shrinks it
// toward the mean judge: it reports
// exp(n/(n+k) × log estimate), k = σ²/Spread², the posterior mean of a
// judge's log speed under a normal prior of spread Spread (how much the
// judges of one cluster differ) after n results whose residuals have
// variance σ². σ² is measured online (the residuals of judges already
// estimated, so it also counts what the estimates have still to learn):
// results of one program on the same tests (σ ≈ 0.1) give k ≈ 0 and the
// first results decide; a contest's mix of submissions (σ ≈ 0.5–1) gives
// k ≈ 1.5–6 and the first results count for a half or less. The
// shrinkage fades as n grows (n counts every result since the judge's
// first or its last restart, so a judge with hundreds is not biased
// toward the mean).
//
// A gray judge (slow but reporting healthy) shows up here: its results
// take longer than the same problems take elsewhere.
type SpeedMeter struct {
	// Alpha is the smallest step of a judge's estimate per result (the
	// EWMA weight it settles at once it has 1/Alpha results).
	Alpha float64
	// Clamp bounds a residual in log space.
	Clamp float64
	// MinSamples results before a judge's estimate is used.
	MinSamples int
	// Spread is the prior spread (standard deviation) of the judges' log
	// speeds the early estimates are shrunk with.
	Spread float64
	// MaxProblems bounds the problems tracked.
	MaxProblems int

	judges   map[string]*speedStat
	problems map[workKey]*workStat
	updates  int
	// resVar is the residuals' variance (σ² above), a running mean over
	// resN residuals that starts from a prior worth resPrior of them.
	resVar float64
	resN   int
	// restarts counts the estimates a drift restarted.
	restarts int
	// mid caches centre(); stale when dirty.
	mid   float64
	dirty bool
}

// The residual variance assumed before any result (σ = 0.5), worth
// resPrior results, and the smallest weight of a residual in it.
const (
	resVar0   = 0.25
	resPrior  = 4
	resMinW   = 1.0 / 256
	defSpread = 0.4
)

// A judge's drift is the EWMA of its residuals of weight driftW (about
// its last 7); for a judge that did not change its standard deviation is
// σ·√(driftW/(2−driftW)) ≈ 0.38σ, so beyond driftK of those (1.5σ: about
// one result in 15,000 for normal noise, a few more with time-limit
// outliers) the judge is taken to have changed and its estimate restarts
// as if it had driftRestart results: a judge 5× slower than it was
// crosses it within 3–4 results at σ 0.6.
const (
	driftW       = 0.25
	driftK       = 4
	driftRestart = 2
)

type speedStat struct {
	logSpeed float64
	n        int
	// drift is the EWMA (weight driftW) of the judge's residuals.
	drift float64
}

type workKey struct {
	problem  int64
	language string
}

type workStat struct {
	logWork float64
	n       int
}

// NewSpeedMeter returns a meter with step alpha (default 0.05 when ≤ 0),
// MinSamples 2 and Spread 0.4.
func NewSpeedMeter(alpha float64) *SpeedMeter {
	if alpha <= 0 {
		alpha = 0.05
	}
	return &SpeedMeter{Alpha: alpha, Clamp: 2, MinSamples: 2, Spread: defSpread, MaxProblems: 4096,
		judges: map[string]*speedStat{}, problems: map[workKey]*workStat{}, resVar: resVar0}
}

// Observe records that a task of problem in language took run on judge.
// Runs ≤ 0 are ignored.
func (m *SpeedMeter) Observe(judge string, problem int64, language string, run time.Duration) {
	if run <= 0 || judge == "" {
		return
	}
	x := math.Log(run.Seconds())
	js := m.judges[judge]
	if js == nil {
		js = &speedStat{}
		m.judges[judge] = js
	}
	k := workKey{problem, language}
	ps := m.problems[k]
	if ps == nil {
		if len(m.problems) >= m.MaxProblems {
			m.forgetProblems()
		}
		m.problems[k] = &workStat{logWork: x + js.logSpeed, n: 1}
		return
	}
	e := x + js.logSpeed - ps.logWork // > 0: slower here than the problem's usual
	e = math.Max(-m.Clamp, math.Min(m.Clamp, e))
	ps.n++
	ps.logWork += math.Max(1/float64(ps.n), 0.1) * e
	if ps.n <= 3 {
		return // the problem's work is not known well enough to judge the judge
	}
	if js.n > 0 { // a first residual is the judge's unknown speed, not noise
		m.resN++
		m.resVar += math.Max(1/float64(m.resN+resPrior), resMinW) * (e*e - m.resVar)
		// A judge that changed (a gray failure, a repaired one) shows as
		// residuals of one sign: their short mean drifts. Once the slow
		// EWMA has taken over, such a drift restarts the running mean.
		js.drift += driftW * (e - js.drift)
		if float64(js.n) >= 1/m.Alpha && math.Abs(js.drift) > driftK*math.Sqrt(m.resVar*driftW/(2-driftW)) {
			js.n, js.drift = driftRestart, 0
			m.restarts++
		}
	}
	js.n++
	js.logSpeed -= math.Max(m.Alpha, 1/float64(js.n)) * e
	m.dirty = true
	if m.updates++; m.updates%1024 == 0 {
		m.recentre()
	}
}

// forgetProblems drops the least observed half of the problems.
func (m *SpeedMeter) forgetProblems() {
	ns := make([]int, 0, len(m.problems))
	for _, p := range m.problems {
		ns = append(ns, p.n)
	}
	median := quickMedian(ns)
	for k, p := range m.problems {
		if p.n <= median {
			delete(m.problems, k)
		}
	}
}

func quickMedian(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// centre is the mean log speed of the judges with enough samples.
func (m *SpeedMeter) centre() float64 {
	sum, n := 0.0, 0
	for _, s := range m.judges {
		if s.n >= m.MinSamples {
			sum += s.logSpeed
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// recentre shifts every estimate so the judges' mean log speed is 0 (the
// model only knows speeds up to a common factor; this keeps the numbers
// from drifting).
func (m *SpeedMeter) recentre() {
	c := m.centre()
	for _, s := range m.judges {
		s.logSpeed -= c
	}
	for _, p := range m.problems {
		p.logWork -= c
	}
	m.dirty = true
}

// Speed returns judge's estimated per-core speed relative to the others
// (1 = the mean), shrunk toward 1 while it has few results, or 1 while it
// has fewer than MinSamples.
func (m *SpeedMeter) Speed(judge string) float64 {
	s := m.judges[judge]
	if s == nil || s.n < m.MinSamples {
		return 1
	}
	if m.dirty {
		m.mid, m.dirty = m.centre(), false
	}
	return math.Exp(math.Max(-3, math.Min(3, m.shrink(s.n)*(s.logSpeed-m.mid))))
}

// Range is the lowest and highest speed Speed gives the judges with an
// estimate (MinSamples results or more); 0 and 0 while none has one.
func (m *SpeedMeter) Range() (lo, hi float64) {
	for id, s := range m.judges {
		if s.n < m.MinSamples {
			continue
		}
		v := m.Speed(id)
		if lo == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	return lo, hi
}

// shrink is the weight n/(n+k) of a judge's estimate after n results,
// k = σ²/Spread² (see SpeedMeter).
func (m *SpeedMeter) shrink(n int) float64 {
	if m.Spread <= 0 {
		return 1
	}
	k := m.resVar / (m.Spread * m.Spread)
	return float64(n) / (float64(n) + k)
}

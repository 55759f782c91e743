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
// estimate and the judge's speed estimate against the residual (a
// stochastic gradient step, i.e. an EWMA), the residual clamped so a
// time-limit outlier moves nothing far. Problems run on several judges
// (their homes, and wherever they overflow), which ties the judges'
// estimates together. Speeds are reported relative to the mean log speed
// of the judges seen often enough; a judge with fewer than MinSamples
// results reports 1.
//
// A gray judge (slow but reporting healthy) shows up here: its results
// take longer than the same problems take elsewhere.
type SpeedMeter struct {
	// Alpha is the step of a judge's estimate per result (an EWMA weight).
	Alpha float64
	// Clamp bounds a residual in log space.
	Clamp float64
	// MinSamples results before a judge's estimate is used.
	MinSamples int
	// MaxProblems bounds the problems tracked.
	MaxProblems int

	judges   map[string]*speedStat
	problems map[workKey]*workStat
	updates  int
	// mid caches centre(); stale when dirty.
	mid   float64
	dirty bool
}

type speedStat struct {
	logSpeed float64
	n        int
}

type workKey struct {
	problem  int64
	language string
}

type workStat struct {
	logWork float64
	n       int
}

// NewSpeedMeter returns a meter with step alpha (default 0.05 when ≤ 0).
func NewSpeedMeter(alpha float64) *SpeedMeter {
	if alpha <= 0 {
		alpha = 0.05
	}
	return &SpeedMeter{Alpha: alpha, Clamp: 2, MinSamples: 10, MaxProblems: 4096,
		judges: map[string]*speedStat{}, problems: map[workKey]*workStat{}}
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
	js.logSpeed -= m.Alpha * e
	js.n++
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
// (1 = the mean), or 1 while it has fewer than MinSamples results.
func (m *SpeedMeter) Speed(judge string) float64 {
	s := m.judges[judge]
	if s == nil || s.n < m.MinSamples {
		return 1
	}
	if m.dirty {
		m.mid, m.dirty = m.centre(), false
	}
	return math.Exp(math.Max(-3, math.Min(3, s.logSpeed-m.mid)))
}

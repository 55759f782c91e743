package sched

import (
	"math"
	"time"
)

// costModel learns, from the outcomes of the default policy's own
// placements, what its ranking by expected time to verdict needs beyond
// the judges' speeds (SpeedMeter):
//
//   - the work of a problem's tasks: the mean of run × the judge's speed
//     (seconds on a speed-1 judge), per problem and over all problems;
//   - the download cost of a problem's test data: the overhead of a
//     result (latency from dispatch − run time) when the judge lacked the
//     data at dispatch, less the overhead when it held it (compile,
//     messages, the local queue are in both);
//   - each judge's mean run time, for how long a busy judge takes to free
//     a slot.
//
// Everything is an EWMA whose step starts at 1/n (a plain mean) and
// settles at a floor, so early estimates are means and later ones follow
// change. Memory is bounded: maxProblems problems, placements without a
// result forgotten after placementTTL.
type costModel struct {
	placements map[int64]placement
	swept      time.Time
	problems   map[int64]*problemCost
	allWork    ewma
	warm, cold ewma
	runs       map[string]*ewma
}

type placement struct {
	judge string
	cold  bool // the judge lacked the data (as the caller saw it)
	at    time.Time
}

type problemCost struct {
	work, fetch ewma
}

type ewma struct {
	v float64
	n int
}

func (e *ewma) add(x, floor float64) {
	e.n++
	e.v += math.Max(1/float64(e.n), floor) * (x - e.v)
}

const (
	maxProblems  = 4096
	placementTTL = time.Hour
)

func newCostModel() *costModel {
	return &costModel{placements: map[int64]placement{}, problems: map[int64]*problemCost{}, runs: map[string]*ewma{}}
}

// placed records that t went to judge, which lacked its data if cold.
func (m *costModel) placed(now time.Time, t Task, judge string, cold bool) {
	if t.SubmissionID != 0 {
		m.placements[t.SubmissionID] = placement{judge: judge, cold: cold, at: now}
	}
}

func (m *costModel) sweep(now time.Time) {
	if now.Sub(m.swept) < placementTTL/8 {
		return
	}
	m.swept = now
	for id, p := range m.placements {
		if now.Sub(p.at) > placementTTL {
			delete(m.placements, id)
		}
	}
}

func (m *costModel) problem(id int64) *problemCost {
	p := m.problems[id]
	if p == nil {
		if len(m.problems) >= maxProblems {
			for k, q := range m.problems { // forget the least observed
				if q.work.n+q.fetch.n <= 2 || len(m.problems) >= maxProblems {
					delete(m.problems, k)
				}
				if len(m.problems) < maxProblems/2 {
					break
				}
			}
		}
		p = &problemCost{}
		m.problems[id] = p
	}
	return p
}

// observe learns from o; speed is the judge's assumed speed.
func (m *costModel) observe(o Outcome, speed float64) {
	pl, ok := m.placements[o.Task.SubmissionID]
	if ok {
		delete(m.placements, o.Task.SubmissionID)
	}
	if o.Failed || o.Run <= 0 {
		return
	}
	run := o.Run.Seconds()
	p := m.problem(o.Task.ProblemID)
	p.work.add(run*speed, 0.1)
	m.allWork.add(run*speed, 0.01)
	r := m.runs[o.Judge]
	if r == nil {
		r = &ewma{}
		m.runs[o.Judge] = r
	}
	r.add(run, 0.05)
	if !ok || pl.judge != o.Judge || o.Latency <= 0 {
		return
	}
	overhead := math.Max(0, (o.Latency - o.Run).Seconds())
	if pl.cold {
		p.fetch.add(overhead, 0.2)
		m.cold.add(overhead, 0.02)
	} else {
		m.warm.add(overhead, 0.02)
	}
}

// work is t's expected run time on a speed-1 judge (s).
func (m *costModel) work(t Task, prior time.Duration) float64 {
	if p := m.problems[t.ProblemID]; p != nil && p.work.n > 0 {
		return p.work.v
	}
	if m.allWork.n > 0 {
		return m.allWork.v
	}
	return prior.Seconds()
}

// fetch is the expected download time of t's data on a judge that lacks
// it (s).
func (m *costModel) fetch(t Task, prior time.Duration) float64 {
	warm := 0.0
	if m.warm.n > 0 {
		warm = m.warm.v
	}
	if p := m.problems[t.ProblemID]; p != nil && p.fetch.n > 0 {
		return math.Max(0, p.fetch.v-warm)
	}
	if m.cold.n > 0 {
		return math.Max(0, m.cold.v-warm)
	}
	return prior.Seconds()
}

// wait is how long busy judge j (speed s) is expected to take before it
// starts a task of the given work sent now: the tasks ahead of it
// (beyond its slots) plus one, each freeing a slot in its mean run time
// over its slots.
func (m *costModel) wait(j *Judge, s, work float64) float64 {
	mean := work / s
	if r := m.runs[j.ID]; r != nil && r.n >= 5 {
		mean = r.v
	}
	ahead := max(j.Assigned-j.SlotCount(), 0) + 1
	return float64(ahead) * mean / float64(j.SlotCount())
}

// CostEstimates is what the default policy has learnt, so far, of what a
// download costs and of its judges' speeds (for comparing the hub's
// learning with the simulator's on the same trace).
type CostEstimates struct {
	// Warm and Cold are the mean overheads (latency − run) of results
	// placed on a judge that held the task's data and on one that lacked
	// it, and WarmN and ColdN how many results each learnt from (0: no
	// estimate).
	Warm, Cold   time.Duration
	WarmN, ColdN int
	// Fetch is the download cost the policy ranks judges by, the mean
	// over the problems whose downloads it has seen (cold − warm, each
	// problem's own), and Problems how many those are (0: the global
	// Cold − Warm, or the prior, is used for every problem).
	Fetch    time.Duration
	Problems int
	// SpeedLo and SpeedHi are the lowest and highest speed the policy
	// assumes for the judges it has learnt one for (1: the mean judge);
	// 0 while it has none. With every judge holding a task's data, the
	// policy holds the task for a busy judge only when it takes that
	// judge to be faster than the free ones.
	SpeedLo, SpeedHi float64
}

func (m *costModel) estimates() CostEstimates {
	e := CostEstimates{WarmN: m.warm.n, ColdN: m.cold.n}
	if m.warm.n > 0 {
		e.Warm = seconds(m.warm.v)
	}
	if m.cold.n > 0 {
		e.Cold = seconds(m.cold.v)
	}
	sum := 0.0
	for _, p := range m.problems {
		if p.fetch.n > 0 {
			e.Problems++
			sum += math.Max(0, p.fetch.v-m.warm.v)
		}
	}
	if e.Problems > 0 {
		e.Fetch = seconds(sum / float64(e.Problems))
	}
	return e
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

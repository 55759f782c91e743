package sim

import (
	"container/heap"
	"math"
	"slices"
)

// fastest is the highest per-core speed any judge of cfg can reach (its
// speed, times a disturbance factor above 1 if one is configured).
func fastest(cfg Config) float64 {
	f := 0.0
	for i, j := range cfg.Cluster {
		f = math.Max(f, j.Speed*boost(cfg, i))
	}
	if f <= 0 {
		return 1
	}
	return f
}

// capacity is the most work per second the whole cluster of cfg can do:
// Σ cores × the highest speed each judge can reach.
func capacity(cfg Config) float64 {
	c := 0.0
	for i, j := range cfg.Cluster {
		c += float64(j.Cores) * j.Speed * boost(cfg, i)
	}
	return c
}

// boost is the largest factor the disturbance can multiply judge i's
// speed by (faults slow judges down: 1 unless a factor above 1 is set).
func boost(cfg Config, i int) float64 {
	b := 1.0
	for _, d := range cfg.faults() {
		if (d.Kind == DisturbDrop || d.Kind == DisturbGray) && d.Judge == i && d.Factor > b {
			b = d.Factor
		}
	}
	return b
}

// LowerBound returns lower bounds on the time to verdict of jobs (their
// arrivals and sizes) on the cluster of cfg, under any schedule
// whatsoever — any order, preemption, migration, clairvoyance, free
// downloads, no faults:
//
//   - Quantiles (P50…P999): each job's own run time on the fastest judge,
//     size / fastest speed, with zero wait. A job's time to verdict is at
//     least that, so every quantile of the times to verdict is at least the
//     same quantile of these.
//   - Mean: (1/n) ∫ max(Nrun(t), Nsrpt(t)) dt. The mean time to verdict is
//     (1/n) ∫ N(t) dt, N(t) the jobs submitted and without a verdict at t,
//     and N(t) is at least both: Nrun(t), the jobs submitted less than
//     their own run time on the fastest judge before t; and Nsrpt(t), the
//     jobs in the system at t under SRPT on one machine whose speed is the
//     whole cluster's capacity (Σ cores × speed). That machine can mimic any
//     schedule of the cluster (the cluster never does more work per second),
//     and SRPT minimises the number of jobs in the system at every instant on
//     one machine (Schrage 1968). Nsrpt is what may reorder the queue; it
//     matters when the offered load exceeds the capacity (a flash crowd),
//     Nrun everywhere else.
//
// The bound holds for exactly the jobs given (any subset of a trace: the
// others can only take capacity away), so a run is compared with the bound
// of the jobs it measured (Result.Bound).
func LowerBound(cfg Config, jobs []*Job) Dist {
	if len(jobs) == 0 {
		return Summarise(nil)
	}
	fast, capa := fastest(cfg), capacity(cfg)
	js := slices.Clone(jobs)
	slices.SortStableFunc(js, func(a, b *Job) int {
		switch {
		case a.Arrival < b.Arrival:
			return -1
		case a.Arrival > b.Arrival:
			return 1
		}
		return 0
	})
	type step struct {
		t         float64
		run, srpt int
	}
	steps := make([]step, 0, 3*len(js))
	runs := make([]float64, len(js))
	arrivals, works := make([]float64, len(js)), make([]float64, len(js))
	for i, j := range js {
		runs[i] = j.Size / fast
		arrivals[i], works[i] = j.Arrival, j.Size
		steps = append(steps, step{j.Arrival, 1, 1}, step{j.Arrival + runs[i], -1, 0})
	}
	for _, c := range srptCompletions(arrivals, works, capa) {
		steps = append(steps, step{c, 0, -1})
	}
	slices.SortStableFunc(steps, func(a, b step) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	})
	area, nRun, nSrpt, last := 0.0, 0, 0, steps[0].t
	for _, s := range steps {
		area += float64(max(nRun, nSrpt)) * (s.t - last)
		last = s.t
		nRun += s.run
		nSrpt += s.srpt
	}
	d := Summarise(runs)
	// ∫ max ≥ ∫ Nrun = Σ runs; keep the float sum from undercutting it.
	d.Mean = math.Max(area/float64(len(js)), d.Mean)
	return d
}

// srptCompletions returns the completion times, in order, of jobs arriving
// at arrivals (ascending) with works under preemptive SRPT on one machine
// doing rate work per second.
func srptCompletions(arrivals, works []float64, rate float64) []float64 {
	h := &floatHeap{}
	out := make([]float64, 0, len(arrivals))
	t := 0.0
	for i := 0; i <= len(arrivals); i++ {
		next := math.Inf(1)
		if i < len(arrivals) {
			next = arrivals[i]
		}
		for h.Len() > 0 {
			d := (*h)[0] / rate
			if t+d > next {
				(*h)[0] -= (next - t) * rate // the least stays the least
				break
			}
			t += d
			heap.Pop(h)
			out = append(out, t)
		}
		if i < len(arrivals) {
			t = next
			heap.Push(h, works[i])
		}
	}
	return out
}

type floatHeap []float64

func (h floatHeap) Len() int           { return len(h) }
func (h floatHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h floatHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *floatHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *floatHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// BoundResult is the Result of the Bound reference for cfg on tr: the
// lower bounds (LowerBound) of the jobs arriving in the measured window,
// as if every one of them finished; zero wait, slowdown 1, and NaN for
// what the bound has no value for.
func BoundResult(cfg Config, tr *Trace) *Result {
	var jobs []*Job
	for i := range tr.Jobs {
		if j := &tr.Jobs[i]; j.Arrival >= cfg.Warmup && j.Arrival < cfg.End {
			jobs = append(jobs, j)
		}
	}
	nan := math.NaN()
	b := LowerBound(cfg, jobs)
	r := &Result{Policy: Bound, Jobs: len(jobs), TTV: b, Bound: b, SlowdownMean: 1, SlowdownP99: 1,
		Throughput: nan, UtilMaxMean: nan, UtilCV: nan, OverCores: nan, Recovery: nan, CacheHit: nan,
		DecisionNs: nan, MsgsPerJob: nan, HotSkew: nan, MeanInSystem: nan, LambdaW: nan}
	if len(jobs) == 0 {
		r.Wait = Summarise(nil)
	}
	return r
}

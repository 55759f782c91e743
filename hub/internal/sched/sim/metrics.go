package sim

import (
	"math"
	"slices"
)

// Dist summarises a sample.
type Dist struct {
	Mean, P50, P95, P99, P999 float64
}

// Result is what one run measured. Times are in seconds; NaN means "not
// applicable" (e.g. Recovery without a disturbance).
type Result struct {
	Policy string
	// Rho is the realised offered load of the window (offeredLoad), to
	// set beside the nominal one.
	Rho float64
	// Jobs measured (arrived in the window and finished); Lost after
	// MaxAttempts expired leases; Unfinished when the drain ran out.
	Jobs, Lost, Unfinished int
	// TTV, the time to verdict, the primary metric: submission (arrival)
	// → the final verdict reaching the hub. Wait, secondary: arrival →
	// the start of the program's run (hub queue, judge queue and test
	// data download).
	TTV, Wait Dist
	// Slowdown: time to verdict / the task's own run time on the fastest
	// judge (size / the cluster's highest per-core speed), so ≥ 1.
	SlowdownMean, SlowdownP99 float64
	// Bound holds lower bounds on the time to verdict of exactly the jobs
	// this run measured (LowerBound): Bound.Mean on the mean, the
	// quantiles on TTV's quantiles. No schedule can go below them.
	Bound Dist
	// Throughput: results per second inside the window.
	Throughput float64
	// Utilisation per judge (computing cores / cores) over the window,
	// its max/mean and coefficient of variation.
	Utilisation         []float64
	UtilMaxMean, UtilCV float64
	// OverCores: share of the window in which some judge held more tasks
	// than cores (a local queue).
	OverCores float64
	// Requeues of expired leases; Wasted results arriving after their
	// lease expired (work done twice).
	Requeues, Wasted int
	// Cancelled: attempts the hub withdrew from a judge that reconnected
	// holding tasks whose leases had expired. LeaseConflicts: placements
	// whose lease failed at commit (another hub took the task during the
	// pass, or the judge's link closed).
	Cancelled, LeaseConflicts int
	// Recovery: from the disturbance's start until the last 10 s bucket
	// (by arrival) whose mean wait exceeded max(2 × baseline, baseline +
	// 1 s), baseline being the mean wait before the disturbance.
	Recovery float64
	// CacheHit: share of task starts that found their data on disk.
	CacheHit float64
	// Decisions (Pick calls), DecisionNs per decision (wall clock, only
	// with MeasureDecision), Messages per job (tasks, prefetches,
	// heartbeats), Prefetches sent.
	Decisions  int
	DecisionNs float64
	MsgsPerJob float64
	Prefetches int
	// HotSkew: during the burst, the largest ratio of a judge's share of
	// the hot problem's tasks to its share of slots (1 = proportional);
	// HotTasks counts them per judge.
	HotSkew  float64
	HotTasks []int
	// Reasons counts task starts in the window by the policy's
	// Decision.Reason, with their cache hits.
	Reasons map[string]ReasonStat
	// Little's law: the time-average number of jobs in the system, and
	// the measured arrival rate × mean time to verdict.
	MeanInSystem, LambdaW float64
}

// ReasonStat counts task starts placed for one reason.
type ReasonStat struct{ Starts, Hits int }

// Percentile returns the p-quantile (0..1) of sorted by linear
// interpolation between closest ranks.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	x := p * float64(len(sorted)-1)
	i := int(x)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	f := x - float64(i)
	return sorted[i]*(1-f) + sorted[i+1]*f
}

// Summarise returns the distribution summary of xs (xs is sorted in place).
func Summarise(xs []float64) Dist {
	if len(xs) == 0 {
		n := math.NaN()
		return Dist{n, n, n, n, n}
	}
	slices.Sort(xs)
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return Dist{Mean: sum / float64(len(xs)), P50: Percentile(xs, 0.5), P95: Percentile(xs, 0.95), P99: Percentile(xs, 0.99), P999: Percentile(xs, 0.999)}
}

// MeanCV returns the mean, max/mean and coefficient of variation of xs.
func MeanCV(xs []float64) (mean, maxMean, cv float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	mx := math.Inf(-1)
	for _, x := range xs {
		mean += x
		mx = math.Max(mx, x)
	}
	mean /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(v / float64(len(xs)))
	if mean == 0 {
		return 0, math.NaN(), math.NaN()
	}
	return mean, mx / mean, sd / mean
}

// recovery computes Result.Recovery from arrivals and waits.
func recovery(arrivals, waits []float64, from, to, bucket float64) float64 {
	if from <= 0 {
		return math.NaN()
	}
	var bs, bn float64
	nb := int(math.Ceil((to - from) / bucket))
	sums, counts := make([]float64, nb), make([]float64, nb)
	for i, a := range arrivals {
		switch {
		case a < from:
			bs += waits[i]
			bn++
		case a < to:
			k := min(int((a-from)/bucket), nb-1)
			sums[k] += waits[i]
			counts[k]++
		}
	}
	if bn == 0 {
		return math.NaN()
	}
	base := bs / bn
	limit := math.Max(2*base, base+1)
	last := -1
	for k := range nb {
		if counts[k] > 0 && sums[k]/counts[k] > limit {
			last = k
		}
	}
	return float64(last+1) * bucket
}

func (s *sim) finish() {
	r := &s.res
	window := s.cfg.End - s.cfg.Warmup
	r.Jobs = len(s.waits)
	r.Unfinished = s.pending
	r.Recovery = recovery(s.arrivals, s.waits, s.cfg.RecoveryFrom, s.cfg.End, s.cfg.RecoveryBucket)
	r.Wait = Summarise(s.waits)
	r.TTV = Summarise(s.ttvs)
	r.Bound = LowerBound(s.cfg, s.measured)
	sd := Summarise(s.slowdowns)
	r.SlowdownMean, r.SlowdownP99 = sd.Mean, sd.P99
	r.Throughput = float64(s.completedW) / window
	for _, j := range s.judges {
		r.Utilisation = append(r.Utilisation, j.busy/(window*float64(j.spec.Cores)))
	}
	_, r.UtilMaxMean, r.UtilCV = MeanCV(r.Utilisation)
	r.OverCores = s.overArea / window
	r.CacheHit = math.NaN()
	if s.starts > 0 {
		r.CacheHit = float64(s.hits) / float64(s.starts)
	}
	r.DecisionNs = math.NaN()
	if s.cfg.MeasureDecision && r.Decisions > 0 {
		r.DecisionNs = float64(s.decisionNs) / float64(r.Decisions)
	}
	if r.Jobs > 0 {
		r.MsgsPerJob = float64(s.messages) / float64(max(s.completedW, 1))
	}
	r.HotSkew = math.NaN()
	if s.cfg.HotTo > 0 {
		total, slots := 0, 0
		for _, j := range s.judges {
			total += j.hot
			slots += j.spec.Cores
			r.HotTasks = append(r.HotTasks, j.hot)
		}
		if total > 0 {
			r.HotSkew = 0
			for _, j := range s.judges {
				r.HotSkew = math.Max(r.HotSkew, (float64(j.hot)/float64(total))/(float64(j.spec.Cores)/float64(slots)))
			}
		}
	}
	r.MeanInSystem = s.inSysArea / window
	if r.Jobs > 0 {
		r.LambdaW = float64(r.Jobs+r.Unfinished) / window * r.TTV.Mean
	}
}

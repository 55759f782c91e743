package sim

import (
	"fmt"
	"io"
	"slices"

	"github.com/verdict-oj/verdict/hub/internal/sched/lab"
)

// SweepRho is the offered load of the sensitivity sweeps.
const SweepRho = 0.85

// Sweep is one sensitivity sweep: the steady scenario with one parameter
// of the cluster or the workload varied, the default value among them.
type Sweep struct {
	// Param names the parameter; About says how it is varied.
	Param, About string
	// Values label the scenarios, in order.
	Values    []string
	Scenarios []Scenario
}

// Sweeps returns the sensitivity sweeps the issue asks for: cluster size,
// judge heterogeneity, test data size and number of problems, each around
// the steady scenario (DefaultCluster, DefaultWorkload); then the number
// of hubs and the decision latency.
func Sweeps() []Sweep {
	base := Scenarios()[0] // steady
	variant := func(name string, cluster []JudgeSpec, edit func(*Workload)) Scenario {
		sc := base
		sc.Name, sc.Title = name, base.Title+", "+name
		sc.Cluster = cluster
		w := base.workload()
		if w.Problems == 0 {
			w = DefaultWorkload()
		}
		if edit != nil {
			edit(&w)
		}
		sc.Workload = &w
		return sc
	}
	var out []Sweep

	// Cluster size: n judges cycling DefaultCluster's eight shapes.
	size := Sweep{Param: "cluster size", About: "judges cycling the default cluster's eight (slots, speed) shapes; capacity grows with them and the practice rate with it"}
	for _, n := range []int{4, 8, 16, 32} {
		var c []JudgeSpec
		for i := range n {
			j := DefaultCluster()[i%8]
			j.ID = fmt.Sprintf("j%d", i)
			c = append(c, j)
		}
		v := fmt.Sprint(n, " judges")
		size.Values = append(size.Values, v)
		size.Scenarios = append(size.Scenarios, variant(fmt.Sprintf("judges-%d", n), c, nil))
	}
	out = append(out, size)

	// Heterogeneity: speeds pulled towards 1 (0: homogeneous) or pushed
	// away from it; slots unchanged.
	het := Sweep{Param: "judge heterogeneity", About: "every per-core speed s becomes 1 + h × (s − 1) (h 0: all speed 1; 1: the default 0.5–1.5; 1.5: 0.25–1.75), slots unchanged"}
	for _, h := range []float64{0, 0.5, 1, 1.5} {
		var c []JudgeSpec
		for _, j := range DefaultCluster() {
			j.Speed = 1 + h*(j.Speed-1)
			c = append(c, j)
		}
		het.Values = append(het.Values, fmt.Sprintf("h %.1f", h))
		het.Scenarios = append(het.Scenarios, variant(fmt.Sprintf("hetero-%.1f", h), c, nil))
	}
	out = append(out, het)

	// Test data size: the median MB (a download costs 0.3 s + MB / 50).
	data := Sweep{Param: "test data size", About: "the median test data size (lognormal, σ 1); a download costs 0.3 s + MB / 50 MB/s and holds the slot"}
	for _, mb := range []float64{1, 15, 150, 600} {
		data.Values = append(data.Values, fmt.Sprintf("%g MB", mb))
		data.Scenarios = append(data.Scenarios, variant(fmt.Sprintf("data-%gmb", mb), nil, func(w *Workload) { w.DataMedianMB = mb }))
	}
	out = append(out, data)

	// Number of problems (the cache keeps 100 per judge).
	probs := Sweep{Param: "number of problems", About: "the practice catalogue (Zipf 1.1); each judge caches 100 problems, so from 400 on the working set no longer fits one judge"}
	for _, n := range []int{20, 100, 400, 2000} {
		probs.Values = append(probs.Values, fmt.Sprint(n))
		probs.Scenarios = append(probs.Scenarios, variant(fmt.Sprintf("problems-%d", n), nil, func(w *Workload) { w.Problems = n }))
	}
	out = append(out, probs)

	// Beyond the four: the hub's own shape.
	hubs := Sweep{Param: "hubs", About: "hubs sharing the queue, judge i on hub i mod hubs, each with its own policy and passes"}
	for _, n := range []int{1, 2, 4} {
		sc := variant(fmt.Sprintf("hubs-%d", n), nil, nil)
		sc.Hubs = n
		hubs.Values = append(hubs.Values, fmt.Sprint(n))
		hubs.Scenarios = append(hubs.Scenarios, sc)
	}
	out = append(out, hubs)
	lat := Sweep{Param: "decision latency", About: "a dispatch pass's time from its decisions to its placements (+ 20 µs per decision; 0: instantaneous, the model before)"}
	for _, l := range []float64{0, 0.005, 0.05, 0.2} {
		sc := variant(fmt.Sprintf("latency-%gms", l*1000), nil, nil)
		sc.PassLatency = l
		if l == 0 {
			sc.PassLatency, sc.DecisionCost = -1, -1
		}
		lat.Values = append(lat.Values, fmt.Sprintf("%g ms", l*1000))
		lat.Scenarios = append(lat.Scenarios, sc)
	}
	out = append(out, lat)
	return out
}

// SweepExperiment is the grid of the sensitivity sweeps: every sweep's
// scenarios at SweepRho under the bound, ideal, ideal-warm, the default
// and every baseline.
func SweepExperiment(tl Timeline, seeds int) *Experiment {
	var scs []Scenario
	for _, s := range Sweeps() {
		scs = append(scs, s.Scenarios...)
	}
	return &Experiment{Timeline: tl, Scenarios: scs, Loads: []float64{SweepRho},
		Policies: append([]string{Bound, Ideal, IdealWarm}, lab.Names()...), Seeds: seeds}
}

// WriteSweeps writes one table per sweep from the sweep grid's results:
// the default's mean and p99 time to verdict against ideal-warm and the
// best baseline, and its hit ratio.
func (r *Results) WriteSweeps(w io.Writer) {
	hs := r.Headlines()
	by := map[string]Headline{}
	for _, h := range hs {
		if h.Ref == IdealWarm {
			by[h.Scenario] = h
		}
	}
	total, best := 0, 0
	for _, s := range Sweeps() {
		fmt.Fprintf(w, "\n**%s** (%s), ρ %.2f:\n\n", s.Param, s.About, SweepRho)
		fmt.Fprintln(w, "| value | ρ realised | default mean TTV | ÷ ideal-warm | default p99 TTV | ÷ ideal-warm p99 | best baseline | its mean TTV | default ÷ best (≤ 1.03) | hit ratio |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
		for i, sc := range s.Scenarios {
			h, ok := by[sc.Name]
			if !ok {
				continue
			}
			total++
			best += b2i(h.MeetsBest)
			fmt.Fprintf(w, "| %s | %.3f | %s | %s %s | %s | %s %s | %s | %s | %s %s | %s |\n", s.Values[i], h.RhoReal.Mean,
				ci(h.Default), f2(h.MeanRatio), mark(h.MeetsMean), ci(h.DefaultP99), f2(h.P99Ratio), mark(h.MeetsP99),
				h.BestOther, f2(h.BestOtherMean.Mean), f2(h.BestRatio), mark(h.MeetsBest), f2(h.Hit.Mean))
		}
	}
	fmt.Fprintf(w, "\nThe default is within 3 %% of the best baseline's mean time to verdict in %d of %d sweep cells.\n", best, total)
}

// SweepNames lists the sweep grid's scenario names (for tests).
func SweepNames() []string {
	var ns []string
	for _, s := range Sweeps() {
		for _, sc := range s.Scenarios {
			ns = append(ns, sc.Name)
		}
	}
	return slices.Clip(ns)
}

// docSweeps opens the report's sensitivity section (%d: seeds).
const docSweeps = `
## Sensitivity sweeps

The steady scenario with one parameter varied at a time, at ρ 0.85, %d seeds per cell, every baseline
beside the default (the issue's "never worse than the best baseline by more than 3 %%" includes these
cells). ✓/✗ are the headline's targets at that load. The hubs and decision latency sweeps go beyond the
issue's list: they vary the hub model itself.
`

// docSweepsAfter follows the sweep tables: why cells miss, by mechanism
// (the figures are in the tables above it).
const docSweepsAfter = `
**Why sweep cells miss.** *Large test data:* ρ counts compute only. A download costs 0.3 s + MB / 50 MB/s and
holds its slot, so at a median of 150 MB a miss costs about 3.3 s (most of a mean job of 4.1 s) and at 600 MB
about 12 s: every policy that downloads at all carries a load well above the nominal ρ, and at 600 MB the
cluster is past saturation for all of them (the means are window-bounded, like ρ 1.1), while ideal-warm pays
no download at all — its ratio there measures the data, not the policy. There consistent hashing on the
problem (` + "`chbl`" + `), which never sends a problem elsewhere and so downloads least once the queue is long, can beat
the default: the default's deferral is bounded by the gain it expects and by ` + "`MaxDefer`" + ` (2 s), far less than a
12 s download, so past saturation it still spreads some misses; whether a larger cap closes that gap is not
measured. *Many problems (2000):* the working set no longer fits 100 problems per judge, the hit ratio falls
below 0.9 (the issue's hit target holds only where the cache can hold the working set) and downloads lengthen
the time to verdict against ideal-warm; the default still beats every baseline. *Larger clusters (16, 32
judges):* the default's mean drifts above 1.10 × ideal-warm because a problem's homes are a smaller share of
the cluster, so more tasks wait for (or download onto) a home while ideal-warm takes any fastest free slot.
*Four hubs:* each hub sees only its own two judges, so a problem's homes are picked among two judges per hub
and each hub's speed estimates learn from a quarter of the results: affinity (hit ratio) drops. *Decision
latency:* 50–200 ms per pass is added to every placement and a judge's slot stays idle for it; the
references decide instantly, so the ratio to ideal-warm grows with the latency, and so does the gap to the
push baselines: they place every task in the pass that first sees it, while the default holds some tasks
(late binding, deferral) and pays the pass latency again for each pass that looks at them.
`

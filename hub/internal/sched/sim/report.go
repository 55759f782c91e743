package sim

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
)

// Targets of issue 18, on the time to verdict against ideal-warm.
const (
	// TargetMean and TargetP99: the default's mean and p99 time to
	// verdict at most this × ideal-warm's at ρ ≤ TargetRhoLow.
	TargetMean = 1.10
	TargetP99  = 1.15
	// TargetMeanHigh and TargetP99High: the same above TargetRhoLow, up to
	// TargetRho.
	TargetMeanHigh = 1.25
	TargetP99High  = 1.25
	TargetRhoLow   = 0.85
	// TargetBest: the default's mean time to verdict at most this × the
	// best other policy's (references excluded).
	TargetBest = 1.03
	TargetHit  = 0.9
	// TargetRho is the highest load the headline covers.
	TargetRho = 0.95
)

func f2(x float64) string {
	switch {
	case math.IsNaN(x):
		return "–"
	case math.Abs(x) >= 100:
		return fmt.Sprintf("%.0f", x)
	case math.Abs(x) >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

func ci(s Stat) string {
	if math.IsNaN(s.CI) {
		return f2(s.Mean)
	}
	return f2(s.Mean) + " ± " + f2(s.CI)
}

var (
	meanTTV     = func(r *Result) float64 { return r.TTV.Mean }
	p99TTV      = func(r *Result) float64 { return r.TTV.P99 }
	meanWait    = func(r *Result) float64 { return r.Wait.Mean }
	p99Wait     = func(r *Result) float64 { return r.Wait.P99 }
	hitRatio    = func(r *Result) float64 { return r.CacheHit }
	slowdown    = func(r *Result) float64 { return r.SlowdownMean }
	slowdownP99 = func(r *Result) float64 { return r.SlowdownP99 }
)

// Headline is one row of the target table: the default policy's time to
// verdict against a reference.
type Headline struct {
	Scenario string
	// Rho is the nominal offered load, RhoReal the realised one
	// (Result.Rho over the seeds).
	Rho     float64
	RhoReal Stat
	// Ref is the reference the ratios are taken against: IdealWarm, or
	// IdealWarmDrop in the supplementary rows of the silent scenario.
	// Ideal is the matching reference that pays for downloads (Ideal or
	// IdealDrop).
	Ref, IdealName string
	// Mean and p99 time to verdict of the default and of Ref; mean time
	// to verdict of the ideal that pays downloads and of the bound.
	Default, RefMean       Stat
	DefaultP99, RefP99     Stat
	Ideal, Bound           Stat
	MeanRatio, P99Ratio    float64
	MeanTarget, P99Target  float64
	IdealRatio, BoundRatio float64
	BestOther              string // the best non-default, non-reference policy on mean time to verdict
	BestOtherMean          Stat
	BestRatio              float64 // default / best other, mean time to verdict
	Slowdown, SlowdownP99  Stat    // the default's
	Wait, RefWait          Stat    // mean wait, the default's and Ref's
	Hit                    Stat
	HotSkew                Stat
	MeetsMean, MeetsP99    bool
	MeetsBest, MeetsHit    bool
	Pass                   bool
}

// Headlines computes the target table for loads ≤ TargetRho: one row per
// scenario and load against IdealWarm (falling back to Ideal when the
// grid has no IdealWarm), and for a scenario with a silent judge a second
// row against IdealWarmDrop.
func (r *Results) Headlines() []Headline {
	var hs []Headline
	type ref struct{ warm, paid string }
	base := ref{IdealWarm, Ideal}
	if !slices.Contains(r.Exp.Policies, IdealWarm) {
		base.warm = Ideal
	}
	for _, sc := range r.Exp.Scenarios {
		refs := []ref{base}
		if sc.Silent() && slices.Contains(r.Exp.Policies, IdealWarmDrop) {
			refs = append(refs, ref{IdealWarmDrop, IdealDrop})
		}
		for _, l := range r.Exp.Loads {
			if l > TargetRho {
				continue
			}
			for _, rf := range refs {
				def, id := r.Cell(sc.Name, l, sched.NameDefault), r.Cell(sc.Name, l, rf.warm)
				if def == nil || id == nil {
					continue
				}
				h := Headline{Scenario: sc.Name, Rho: l, Ref: rf.warm, IdealName: rf.paid,
					Default: def.Stat(meanTTV), RefMean: id.Stat(meanTTV),
					DefaultP99: def.Stat(p99TTV), RefP99: id.Stat(p99TTV),
					Ideal: Stat{Mean: math.NaN(), CI: math.NaN()}, Bound: Stat{Mean: math.NaN(), CI: math.NaN()},
					Slowdown: def.Stat(slowdown), SlowdownP99: def.Stat(slowdownP99),
					Wait: def.Stat(meanWait), RefWait: id.Stat(meanWait),
					Hit: def.Stat(hitRatio), HotSkew: def.Stat(func(r *Result) float64 { return r.HotSkew }),
					RhoReal: def.Stat(func(r *Result) float64 { return r.Rho })}
				if c := r.Cell(sc.Name, l, rf.paid); c != nil {
					h.Ideal = c.Stat(meanTTV)
				}
				if c := r.Cell(sc.Name, l, Bound); c != nil {
					h.Bound = c.Stat(meanTTV)
				}
				h.MeanRatio = h.Default.Mean / h.RefMean.Mean
				h.P99Ratio = h.DefaultP99.Mean / h.RefP99.Mean
				h.IdealRatio = h.Default.Mean / h.Ideal.Mean
				h.BoundRatio = h.Default.Mean / h.Bound.Mean
				h.MeanTarget, h.P99Target = TargetMean, TargetP99
				if l > TargetRhoLow {
					h.MeanTarget, h.P99Target = TargetMeanHigh, TargetP99High
				}
				h.BestOtherMean = Stat{Mean: math.Inf(1)}
				for _, p := range r.Exp.Policies {
					if IsReference(p) || p == sched.NameDefault {
						continue
					}
					if s := r.Cell(sc.Name, l, p).Stat(meanTTV); s.Mean < h.BestOtherMean.Mean {
						h.BestOther, h.BestOtherMean = p, s
					}
				}
				h.BestRatio = h.Default.Mean / h.BestOtherMean.Mean
				h.MeetsMean = h.MeanRatio <= h.MeanTarget
				h.MeetsP99 = h.P99Ratio <= h.P99Target
				h.MeetsBest = h.BestRatio <= TargetBest
				h.MeetsHit = h.Hit.Mean >= TargetHit
				h.Pass = h.MeetsMean && h.MeetsP99 && h.MeetsBest && h.MeetsHit
				hs = append(hs, h)
			}
		}
	}
	return hs
}

// WriteHeadline writes the target table in Markdown. Times are time to
// verdict in seconds unless the column says wait.
func WriteHeadline(w io.Writer, hs []Headline) {
	fmt.Fprintf(w, "| scenario | ρ (realised) | default mean TTV | ideal-warm mean TTV | ratio (≤%.2f; ≤%.2f above ρ %.2f) | default p99 TTV | ideal-warm p99 TTV | ratio (≤%.2f; ≤%.2f) | ideal mean TTV | ratio | bound mean TTV | ratio | best other on mean TTV | ratio (≤%.2f) | default slowdown mean / p99 | mean wait default / ideal-warm | hit ratio (≥%.1f) | hot skew |\n",
		TargetMean, TargetMeanHigh, TargetRhoLow, TargetP99, TargetP99High, TargetBest, TargetHit)
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, h := range hs {
		name := h.Scenario
		if h.Ref != IdealWarm {
			name += " vs " + h.Ref
		}
		fmt.Fprintf(w, "| %s | %.2f (%.3f) | %s | %s | %s %s | %s | %s | %s %s | %s | %s | %s | %s | %s %s | %s %s | %s / %s | %s / %s | %s %s | %s |\n",
			name, h.Rho, h.RhoReal.Mean, ci(h.Default), ci(h.RefMean), f2(h.MeanRatio), mark(h.MeetsMean),
			ci(h.DefaultP99), ci(h.RefP99), f2(h.P99Ratio), mark(h.MeetsP99),
			f2(h.Ideal.Mean), f2(h.IdealRatio), f2(h.Bound.Mean), f2(h.BoundRatio),
			h.BestOther, f2(h.BestOtherMean.Mean), f2(h.BestRatio), mark(h.MeetsBest),
			f2(h.Slowdown.Mean), f2(h.SlowdownP99.Mean), f2(h.Wait.Mean), f2(h.RefWait.Mean),
			f2(h.Hit.Mean), mark(h.MeetsHit), f2(h.HotSkew.Mean))
	}
}

func mark(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

// Tally counts the headline rows (against ideal-warm) meeting each target,
// then the rows with the silent scenario judged against ideal-warm-drop.
func Tally(hs []Headline) string {
	var m, p, b, c, all, n int
	var dropAll, dropN int
	for _, h := range hs {
		if h.Ref == IdealWarmDrop {
			dropN++
			dropAll += b2i(h.Pass)
			continue
		}
		n++
		m += b2i(h.MeetsMean)
		p += b2i(h.MeetsP99)
		b += b2i(h.MeetsBest)
		c += b2i(h.MeetsHit)
		all += b2i(h.Pass)
	}
	ref := IdealWarm
	if len(hs) > 0 {
		ref = hs[0].Ref
	}
	out := fmt.Sprintf("of %d cells (scenario × ρ ≤ %.2f, time to verdict against %s): mean within target (≤ %.2f×, ≤ %.2f× above ρ %.2f) in %d, p99 within target (≤ %.2f×, ≤ %.2f×) in %d, within %.0f%% of the best other policy's mean in %d, hit ratio ≥ %.1f in %d; all four in %d",
		n, TargetRho, ref, TargetMean, TargetMeanHigh, TargetRhoLow, m, TargetP99, TargetP99High, p, (TargetBest-1)*100, b, TargetHit, c, all)
	if dropN > 0 {
		out += fmt.Sprintf("; the silent scenario against %s (ideal-warm bound by the hub's rule that a silent judge gets no work): all four in %d of %d", IdealWarmDrop, dropAll, dropN)
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// policiesFor lists the policies to show for scenario: all but the drop
// variants where they equal their undropped references.
func (r *Results) policiesFor(scenario string) []string {
	silent := false
	for _, sc := range r.Exp.Scenarios {
		if sc.Name == scenario {
			silent = sc.Silent()
		}
	}
	var ps []string
	for _, p := range r.Exp.Policies {
		if undropped(p) == "" || silent {
			ps = append(ps, p)
		}
	}
	return ps
}

// WriteLoadTable writes, for one scenario, each policy's mean and p99 of
// a metric (mean and p99 pick them from a Result) at every load.
func (r *Results) WriteLoadTable(w io.Writer, scenario string, mean, p99 func(*Result) float64) {
	fmt.Fprint(w, "| policy |")
	for _, l := range r.Exp.Loads {
		fmt.Fprintf(w, " ρ=%.2f (realised %s) mean / p99 |", l, r.realisedRho(scenario, l))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|")
	for range r.Exp.Loads {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, p := range r.policiesFor(scenario) {
		fmt.Fprintf(w, "| %s |", p)
		for _, l := range r.Exp.Loads {
			c := r.Cell(scenario, l, p)
			fmt.Fprintf(w, " %s / %s |", f2(c.Stat(mean).Mean), f2(c.Stat(p99).Mean))
		}
		fmt.Fprintln(w)
	}
}

// realisedRho is the realised offered load of a cell (the same trace for
// every policy: the first policy's runs), formatted.
func (r *Results) realisedRho(scenario string, load float64) string {
	if len(r.Exp.Policies) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f", r.Cell(scenario, load, r.Exp.Policies[0]).Stat(func(x *Result) float64 { return x.Rho }).Mean)
}

// WriteTTVTable writes WriteLoadTable of the time to verdict.
func (r *Results) WriteTTVTable(w io.Writer, scenario string) {
	r.WriteLoadTable(w, scenario, meanTTV, p99TTV)
}

// WriteWaitTable writes WriteLoadTable of the wait.
func (r *Results) WriteWaitTable(w io.Writer, scenario string) {
	r.WriteLoadTable(w, scenario, meanWait, p99Wait)
}

// WriteDetail writes every metric of one scenario and load.
func (r *Results) WriteDetail(w io.Writer, scenario string, load float64) {
	cols := []struct {
		name string
		f    func(*Result) float64
		ci   bool
	}{
		{"TTV mean", meanTTV, true},
		{"TTV p99", p99TTV, true},
		{"TTV p99.9", func(r *Result) float64 { return r.TTV.P999 }, false},
		{"slowdown mean", slowdown, false},
		{"slowdown p99", slowdownP99, false},
		{"wait mean", meanWait, true},
		{"wait p50", func(r *Result) float64 { return r.Wait.P50 }, false},
		{"wait p95", func(r *Result) float64 { return r.Wait.P95 }, false},
		{"wait p99", p99Wait, true},
		{"wait p99.9", func(r *Result) float64 { return r.Wait.P999 }, false},
		{"thru/s", func(r *Result) float64 { return r.Throughput }, false},
		{"util max/mean", func(r *Result) float64 { return r.UtilMaxMean }, false},
		{"util CV", func(r *Result) float64 { return r.UtilCV }, false},
		{"over cores", func(r *Result) float64 { return r.OverCores }, false},
		{"requeues", func(r *Result) float64 { return float64(r.Requeues) }, false},
		{"lost", func(r *Result) float64 { return float64(r.Lost) }, false},
		{"wasted", func(r *Result) float64 { return float64(r.Wasted) }, false},
		{"recovery s", func(r *Result) float64 { return r.Recovery }, false},
		{"hit ratio", hitRatio, false},
		{"hot skew", func(r *Result) float64 { return r.HotSkew }, false},
		{"ns/decision", func(r *Result) float64 { return r.DecisionNs }, false},
		{"decisions/job", func(r *Result) float64 { return float64(r.Decisions) / float64(max(r.Jobs, 1)) }, false},
		{"msgs/job", func(r *Result) float64 { return r.MsgsPerJob }, false},
	}
	fmt.Fprint(w, "| policy |")
	for _, c := range cols {
		fmt.Fprintf(w, " %s |", c.name)
	}
	fmt.Fprint(w, "\n|---|")
	for range cols {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, p := range r.policiesFor(scenario) {
		cell := r.Cell(scenario, load, p)
		fmt.Fprintf(w, "| %s |", p)
		for _, c := range cols {
			s := cell.Stat(c.f)
			if c.ci {
				fmt.Fprintf(w, " %s |", ci(s))
			} else {
				fmt.Fprintf(w, " %s |", f2(s.Mean))
			}
		}
		fmt.Fprintln(w)
	}
}

// Plot returns a metric-against-load plot of a scenario: what names the
// metric ("mean time to verdict"), f picks it from a Result.
func (r *Results) Plot(scenario, what string, f func(*Result) float64) *Plot {
	p := &Plot{Title: fmt.Sprintf("%s: %s against offered load", scenario, what), XLabel: "offered load ρ", YLabel: what + " (s, log)"}
	for _, name := range r.policiesFor(scenario) {
		s := Series{Name: name, Dash: IsReference(name)}
		for _, l := range r.Exp.Loads {
			s.X = append(s.X, l)
			s.Y = append(s.Y, r.Cell(scenario, l, name).Stat(f).Mean)
		}
		p.Series = append(p.Series, s)
	}
	return p
}

// Runs counts the simulation runs behind r (a cell copied from another
// counts once).
func (r *Results) Runs() int {
	seen := map[*Result]bool{}
	for _, s := range r.Cells {
		for _, l := range s {
			for _, c := range l {
				for _, run := range c.Runs {
					if run != nil {
						seen[run] = true
					}
				}
			}
		}
	}
	return len(seen)
}

// WriteAblation writes, for each scenario and load of an ablation grid,
// every variant's mean and p99 time to verdict, then its mean wait, p99
// wait and hit ratio.
func (r *Results) WriteAblation(w io.Writer) {
	vs := Ablations()
	fmt.Fprintln(w, "| variant | what differs |")
	fmt.Fprintln(w, "|---|---|")
	for _, p := range r.Exp.Policies {
		if v, ok := vs[p]; ok {
			fmt.Fprintf(w, "| %s | %s |\n", p, v.About)
		}
	}
	table := func(title string, fs ...func(*Result) float64) {
		fmt.Fprintf(w, "\n%s\n\n| scenario | ρ |", title)
		for _, p := range r.Exp.Policies {
			fmt.Fprintf(w, " %s |", p)
		}
		fmt.Fprint(w, "\n|---|---|")
		for range r.Exp.Policies {
			fmt.Fprint(w, "---|")
		}
		fmt.Fprintln(w)
		for _, sc := range r.Exp.Scenarios {
			for _, l := range r.Exp.Loads {
				fmt.Fprintf(w, "| %s | %.2f |", sc.Name, l)
				for _, p := range r.Exp.Policies {
					c := r.Cell(sc.Name, l, p)
					var parts []string
					for _, f := range fs {
						parts = append(parts, f2(c.Stat(f).Mean))
					}
					fmt.Fprintf(w, " %s |", strings.Join(parts, " / "))
				}
				fmt.Fprintln(w)
			}
		}
	}
	table("Time to verdict: mean / p99 (s).", meanTTV, p99TTV)
	table("Wait: mean / p99 (s) / hit ratio.", meanWait, p99Wait, hitRatio)
}

// WriteDoc writes the Markdown report to path and its plots next to it
// (in a directory named after the file without extension); ablation, if
// not nil, is the ablation grid's results.
func (r *Results) WriteDoc(path string, elapsed time.Duration, command string, ablation *Results) error {
	return r.WriteReport(path, Report{Elapsed: elapsed, Command: command, Ablation: ablation})
}

// Report is what WriteReport writes beside the main grid's results.
type Report struct {
	Elapsed time.Duration
	Command string
	// Machine and Date say where and when the grid ran (printed under the
	// title when set).
	Machine, Date string
	// Note, if set, follows them: what else ran on the machine, how the
	// grid was started.
	Note string
	// Ablation and Sweeps, if not nil, are the ablation grid's and the
	// sensitivity sweeps' results.
	Ablation, Sweeps *Results
}

// WriteReport writes the Markdown report to path and its plots next to it
// (in a directory named after the file without extension).
func (r *Results) WriteReport(path string, rep Report) error {
	elapsed, command, ablation := rep.Elapsed, rep.Command, rep.Ablation
	dir := strings.TrimSuffix(path, filepath.Ext(path))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sim: write doc: %w", err)
	}
	var b strings.Builder
	e := r.Exp
	hs := r.Headlines()
	runs := r.Runs()
	if ablation != nil {
		runs += ablation.Runs()
	}
	if rep.Sweeps != nil {
		runs += rep.Sweeps.Runs()
	}
	fmt.Fprintf(&b, docIntro, command, e.Seeds, runs, elapsed.Round(time.Second), r.boundLooseness(),
		e.Timeline.Warmup/60, e.Timeline.Measured/60, e.Timeline.DisturbAt/60)
	if rep.Machine != "" || rep.Date != "" {
		fmt.Fprintf(&b, "\nRun on %s, %s.", rep.Date, rep.Machine)
		if rep.Note != "" {
			fmt.Fprintf(&b, " %s", rep.Note)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## Headline: the hub's default policy against the targets (time to verdict)\n\n")
	fmt.Fprintf(&b, "%s.\n\n", Tally(hs))
	WriteHeadline(&b, hs)
	WriteMisses(&b, hs)
	b.WriteString(missesWhy(hs))
	b.WriteString(docMisses)
	b.WriteString(docReading)
	if rep.Sweeps != nil {
		fmt.Fprintf(&b, docSweeps, rep.Sweeps.Exp.Seeds)
		rep.Sweeps.WriteSweeps(&b)
		b.WriteString(docSweepsAfter)
	}
	b.WriteString(docFidelity)
	b.WriteString(docPolicy)
	b.WriteString(docReplay)
	b.WriteString(docScenarios)
	if ablation != nil {
		fmt.Fprintf(&b, docAblation, ablation.Exp.Seeds)
		ablation.WriteAblationSummary(&b)
		b.WriteString(docAblationAfter)
		ablation.WriteAblation(&b)
	}
	b.WriteString("\n## Scenarios\n\n")
	for _, sc := range e.Scenarios {
		fmt.Fprintf(&b, "### %s — %s\n\n", sc.Name, sc.Title)
		for _, what := range []struct {
			name string
			f    func(*Result) float64
		}{{"p99", p99TTV}, {"mean", meanTTV}} {
			file := fmt.Sprintf("%s-ttv-%s.svg", sc.Name, what.name)
			fh, err := os.Create(filepath.Join(dir, file))
			if err != nil {
				return fmt.Errorf("sim: write plot: %w", err)
			}
			err = r.Plot(sc.Name, what.name+" time to verdict", what.f).WriteSVG(fh)
			if cerr := fh.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("sim: write plot: %w", err)
			}
			fmt.Fprintf(&b, "![%s %s time to verdict](%s/%s)\n", sc.Name, what.name, filepath.Base(dir), file)
		}
		b.WriteString("\nMean / p99 time to verdict (s) by offered load:\n\n")
		r.WriteTTVTable(&b, sc.Name)
		b.WriteString("\nMean / p99 wait (s) by offered load:\n\n")
		r.WriteWaitTable(&b, sc.Name)
		detail := 0.85
		fmt.Fprintf(&b, "\nAll metrics at ρ = %.2f (mean over seeds; ± is the 95%% CI):\n\n", detail)
		r.WriteDetail(&b, sc.Name, detail)
		b.WriteString("\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("sim: write doc: %w", err)
	}
	return nil
}

const docIntro = "# Scheduling lab\n\n" +
	"Generated by `%s` (hub/internal/sched/sim). Do not edit by hand: rerun it. " +
	"%d seeds per cell, %d runs, %s wall time.\n\n" +
	`## Method

**What runs.** A discrete-event simulator (hub/internal/sched/sim) drives the *real* policy types of
hub/internal/sched through the same ` + "`sched.Judge`" + ` view the hub builds in hub/internal/hub:
heartbeat fields (running, local queue, load1, memory) as of the judge's *last heartbeat*, the hub's exact
` + "`Assigned`/`SinceHeartbeat`" + ` counts (the hub sees every dispatch and every result at once, so it knows
free slots exactly), and its affinity table (` + "`Cached`" + `: what the judge's last heartbeat reported it holds or
is fetching, plus what was sent or prefetched since — evictions reach the hub with the next heartbeat). The
hub model copies the hub's mechanics: one central queue (priority, then arrival order; a requeued task keeps
its place), dispatch passes over a window of 64 tasks woken by every arrival, result and heartbeat and by a
250 ms tick, each pass the hub's own ` + "`sched.Pass`" + ` and taking 5 ms + 20 µs per decision from its decisions to
its placements (decision latency), late binding only if the policy holds, leases of (missed+1) × heartbeat renewed by heartbeats, a reaper every heartbeat/2, a
judge closed after 3 silent intervals, at most 3 attempts, prefetch on ` + "`Decision.Prefetch`" + `, and
` + "`Observe`" + ` feedback (latency from dispatch, and the run time the result reports) for the policies that
learn, as the hub feeds them (see "What the hub feeds" below).

**Workload.** 400 practice problems with Zipf(1.1) popularity over a random permutation; 5–40 cases per
problem, per-case time lognormal (median 80 ms, σ 0.8 across problems, σ 0.6 per submission, ±25%% per
case, capped at the 1 s limit); 5%% of submissions run every case to the limit; + 0.3 s compile. A job's
size is that sum (mean ≈ 4.1 s on a speed-1 core, p99 ≈ 25 s: heavy-tailed). Arrivals are Poisson at
ρ × capacity / mean size, capacity = Σ cores × speed; ρ is the practice load (the flash crowd and the burst
come on top). Test data: lognormal, median 15 MB; a download costs 0.3 s + size / 50 MB/s (≈ 0.8 s on
average, a fifth of a mean job) and holds the task's slot; judges keep 100 problems (LRU; ≈ 2.5 GB).

**Cluster.** 8 judges: 16/12/8/8/6/4/4/2 cores at per-core speeds 1.3/0.7/1.0/1.5/0.5/1.2/0.8/1.0
(60 cores, capacity 62.2). A judge runs one task per core and queues the rest locally (FIFO). load1 is a
Linux-style 1-minute average updated every 5 s (it lags). Faults hit j2 (8 cores, speed 1).

**References.** None of the ideals is a bound; only ` + "`bound`" + ` is. Each is listed with what it knows and what it
relaxes:

| reference | knows | relaxes | a bound? |
|---|---|---|---|
| ` + "`ideal`" + ` | every judge's true current speed, free slots and real cache at every instant; a crash at once | heartbeats (ignored), decision and lease latency | no: it keeps the queue in arrival order, binds only the head task, greedily, to the free slot that would finish it first (rest of its download + size / true speed), and pays every download; it does not keep caches warm for later tasks, so at high load a policy with cache affinity can beat it (the headline's "ideal" ratio below 1) |
| ` + "`ideal-warm`" + ` | as ` + "`ideal`" + ` | also every download (all data everywhere, cache hit ratio 1) | no: still head-of-line and greedy; it is the headline's reference because it is what the ideal does once caching is solved |
| ` + "`ideal-drop`" + `, ` + "`ideal-warm-drop`" + ` | as ` + "`ideal`" + ` / ` + "`ideal-warm`" + ` | as theirs, but bound by the hub's rule that a judge that stops reporting gets no work: the silent judge is dropped the moment it falls silent (no detection delay), its tasks requeued at once, used again when it reports | no; they differ from their undropped references only in the silent scenario and are shown only there |
| ` + "`bound`" + ` | every job's arrival and size in advance (clairvoyant) | everything: order (it may reorder and preempt), downloads, faults, heartbeats, latency | **yes**, for any schedule: see below |

` + "`bound`" + ` is computed from the trace, not simulated (sim.LowerBound). Per job: no verdict comes sooner than the
job's own run time on the fastest judge (size / highest per-core speed) with zero wait; so every quantile of
the times to verdict is at least the same quantile of these run times (the p99 column of ` + "`bound`" + `). For the
mean: the mean time to verdict is (1/n) ∫ N(t) dt, N(t) the submitted jobs without a verdict, and N(t) is at
least the larger of the jobs still inside their own run time on the fastest judge and the jobs that SRPT would
still hold on one machine as fast as the whole cluster (Σ cores × speed): that machine can mimic any schedule
of the cluster, and SRPT minimises the jobs in system at every instant on one machine. The second term lets
the bound reorder the queue; it matters only when arrivals outrun the capacity (the flash crowd), the first
everywhere else. The bound holds for any subset of jobs, so every run is checked against the bound of exactly
the jobs it measured (` + "`Result.Bound`" + `): ` + "`TestBoundIsNeverBeaten`" + ` runs every policy, reference and ablation
variant on every scenario with fixed seeds and fails if any run goes below it on the mean or any quantile, or
any cell's mean plus its confidence interval goes below the bound's. It is loose — %s — because it
ignores that jobs contend for the fast cores: a tighter clairvoyant reference that may reorder the queue is
not built yet.

**Policies.** ` + "`default`" + ` is the hub's default (sched.Bounded); ` + "`guide`" + ` is the guide's score with its
thresholds on heartbeat data: the two the hub offers. The rest are the lab's baselines, real policy types in hub/internal/sched/lab (random,
LVS-style ` + "`wrr`" + ` by cores, nginx smooth ` + "`swrr`" + `, nginx ` + "`least_conn`" + `, ` + "`p2c`" + ` on assigned/slots, Envoy
` + "`least_request`" + ` (bias 1), ` + "`peak_ewma`" + ` P2C, Dubbo-style ` + "`adaptive`" + `, ` + "`chbl`" + ` (consistent hashing with
bounded loads on the problem id, c = 1.25), ` + "`pull`" + ` (join-idle-queue / pull), ` + "`window_swrr`" + ` (the guide's dynamic
weights: statistics per window → weights → smooth WRR, with the guide's overload protection)). All but guide,
default, pull and window_swrr are push balancers: they never hold a task, and a judge queues what exceeds its
cores.

**Metrics.** The primary metric is the **time to verdict** (TTV) = submission (arrival) → the final verdict
reaching the hub; the headline gives its mean, its p99 and the slowdown = time to verdict / the job's own run
time on the fastest judge (size / highest per-core speed; ≥ 1, 1 only for a job that waited for nothing and ran
on a fastest core). Wait, secondary = arrival → the program starts running (hub queue + judge queue + test
data download); it rewards putting a task on a slow judge that holds the data, which time to verdict does
not. Only jobs arriving in the measured window count;
the run continues after it until they finish. Time averages (utilisation, share of time any judge holds
more tasks than cores, number in system) are over the window. Recovery = time from the disturbance's start
to the end of the last 10 s arrival bucket whose mean wait exceeds max(2 × pre-disturbance mean, +1 s).
Hot skew = during the burst, max over judges of (share of the hot problem's tasks) / (share of slots).
ns/decision is wall-clock time per Pick on the machine that ran this (noisy).

**Statistics.** Every (scenario, ρ) cell replays the same generated trace for every policy (common random
numbers); seeds 1..N give independent traces. Tables show the mean over seeds, ± the 95%% Student-t
confidence half-width. Ratios are ratios of the seed means.

**Time scale.** Each run is %.0f min of warm-up (discarded) then %.0f min measured; disturbances start %.0f min
after the start. Job sizes, heartbeats, leases, downloads and fault lengths are real-time; only the
length of the measured window is shorter than a contest, which is why ρ = 1.1 (unstable) shows a
window-bounded, not steady-state, wait.
`

const docReading = `
How to read it: times are time to verdict (TTV) in seconds unless the column says wait. ✓/✗ mark the
targets of issue 18: mean TTV ≤ 1.10 × ideal-warm's and p99 ≤ 1.15 × at ρ ≤ 0.85 (≤ 1.25 × and 1.25 × at
ρ 0.95); mean TTV within 3 % of the best other policy (references excluded; "best other"); hit ratio ≥ 0.9.
The ideal (pays downloads) and the bound are shown beside, with the default's ratio to each: a ratio below
1 against the ideal is possible (it is not a bound: the default's cache affinity saves downloads the ideal
pays), one below 1 against the bound is not (a test fails). The rows "silent vs ideal-warm-drop" repeat the
silent scenario against ideal-warm bound by the hub's rule for a silent judge; the tally counts them apart.
Hot skew is not overload: the default binds a task only to a free slot, so no judge ever holds more tasks
than its cores ("over cores" is 0 by construction, see the detail tables); a skew above 1 says
the hot problem's tasks went where slots freed most often (small and fast judges).
`

const docPolicy = `
## The default policy

What ` + "`default`" + ` (sched.Bounded) does, as the code stands; the ablation below measures what each mechanism buys
in this run, the headline where it falls short.

1. **Late binding, exact accounting.** A task is bound only to a judge with a free slot; the hub counts what it
   dispatched since each judge's last heartbeat, so free slots are exact, and no judge ever holds more tasks
   than its slots ("over cores" is 0 by construction, see the detail tables).
2. **Homes and a bounded load on capacity.** Each problem's homes are its judges of highest weight on a
   rendezvous ring weighted by capacity (slots × learnt speed), at least two, more for a problem with a large
   share of recent dispatches; a judge takes a task for affinity only while its tasks stay within 1.25 × its
   capacity's share of all assigned tasks (consistent hashing with bounded loads, on capacity, not slots).
3. **Ranking by expected time to verdict.** Among the free judges it picks the least expected time to verdict:
   the task's expected work (learnt per problem from results) at the judge's learnt speed, plus, if
   the judge lacks the data, the learnt download time — weighted by how busy the cluster is (a download holds a
   slot the queue needs: × (1 + u/(1 − u)), u the share of slots assigned) and, off a home within its load
   bound, by the cache it evicts (× 1.5). Costs within 5 % count as equal and go to the judge holding the data,
   then a home, then the higher ring weight. Before issue 18 the class (home and cached, home, cached) came
   first and speed only broke ties: the variant ` + "`default-class`" + ` (not in the ablation grid below; run it with
   ` + "`-policies default,default-class`" + `).
4. **A deferral bounded by what it saves.** When a busy judge that holds the data is expected to finish the
   task sooner than the best free judge (its expected wait for a slot + the run), the task is held for at most
   that expected gain and never beyond ` + "`MaxDefer`" + ` (2 s), the clock starting the first time it declined a free
   slot for the task (so locality survives a long queue; ` + "`default-enq`" + ` measures from enqueue instead). A free
   judge that holds the data is taken at once: the deferral bug of issue 18 (waiting for a busy *home* while
   another free judge had the data) is fixed and ` + "`TestBoundedDeferral`" + ` holds it fixed.
5. **Speeds learnt from results.** ` + "`sched.SpeedMeter`" + ` fits log run = work(problem, language) − speed(judge)
   online from the summed case wall times each result reports (residuals clamped against time-limit
   outliers). A judge's n-th result moves its estimate by max(0.05, 1/n) of the residual: a running mean of its
   first 20 results, then an EWMA; the estimate is used from the second result, shrunk toward the mean judge
   by n/(n+k), k = the residuals' measured variance ÷ 0.4² (a normal prior on log speed), so a judge 5× slower
   ranks below the others after 3 results (` + "`TestSpeedMeterSpotsASlowJudgeFast`" + `) while noisy equal judges stay
   within what n results allow (` + "`TestSpeedMeterKeepsEqualJudgesClose`" + `). A judge whose residuals drift to one
   side later (a short EWMA beyond 4 of its standard deviations: a gray failure) restarts its running mean
   (` + "`TestSpeedMeterSeesAGrayJudge`" + `, ` + "`default-nospeed`" + `, ` + "`default-oracle`" + `).
6. **The cache view follows the heartbeat.** The hub's view of a judge's data is what its last heartbeat said
   it holds or is fetching, plus what was sent since, so evictions leave the view
   (hub/internal/hub ` + "`TestHeartbeatEvictionsPruneTheCacheView`" + `; the variant ` + "`default-growview`" + `, not in the ablation
   grid, is the old, only-growing view).
7. **Hot problems** (heavy hitters over a sliding minute) are spread by utilisation and their data is prefetched
   to every judge. Languages are matched; a judge whose load1 exceeds 1.5 × its cores (something else eats its
   CPU) gets nothing.
8. **The queue notice** (hub/internal/hub, pure parts in sched/notice.go) shows each user the ETA of their own
   position (` + "`sched.PositionETA`" + `, ` + "`TestPositionETA`" + `) and calls the queue overloaded only when it grows faster than
   it drains over a window (` + "`sched.QueueTrend`" + `, ` + "`TestQueueTrend`" + `, ` + "`TestOverloaded`" + `), not after one busy pass.

**Tests that fail if the policy breaks:** the bound is never beaten (` + "`TestBoundIsNeverBeaten`" + `); the default beats
` + "`pull`" + ` and ` + "`chbl`" + ` on mean time to verdict in three short scenarios with fixed seeds
(` + "`TestDefaultBeatsPullAndCHBL`" + `); switching speed learning off fails ` + "`TestSpeedLearningShortensTimeToVerdict`" + ` (sim)
and ` + "`TestDefaultLearnsSpeedFromResults`" + ` (sched); the deferral bug's case (` + "`TestBoundedDeferral`" + `); evictions
update the hub's view (` + "`TestHeartbeatEvictionsPruneTheCacheView`" + `); the ETA follows the position (` + "`TestPositionETA`" + `).

### What the hub feeds

Everything the default policy uses is in the ` + "`sched.Judge`" + ` view hub/internal/hub builds; the speed
estimates come from results, which the hub reports (hub/internal/hub, ` + "`TestPolicyLearnsOutcomes`" + `):

- On every recorded result (` + "`onResult`" + `, after ` + "`Complete`" + ` succeeds), if the policy implements
  ` + "`sched.Observer`" + `, call ` + "`Observe`" + ` with an ` + "`Outcome`" + ` of: the judge's id; the task's submission id,
  problem id and language; the latency from dispatch; and ` + "`Run`" + `, the sum of the cases' ` + "`wall_ms`" + `. The
  assignment must therefore remember the task's problem id and language at dispatch.
- On a lease that expires (` + "`onExpired`" + `), ` + "`Observe`" + ` with ` + "`Failed: true`" + ` (the default ignores it; peak_ewma
  and adaptive learn from it).
- Policies are not safe for concurrent use: ` + "`Observe`" + ` runs on a judge's reader goroutine while ` + "`Pick`" + `
  runs on the dispatcher, so both must hold one mutex (or the reader hands outcomes to the dispatcher).

Without this feed (another caller of the policy) the default still works: every judge counts as speed 1 (the ` + "`default-nospeed`" + ` column
below), which loses the gray-judge detection and the preference for fast judges, not the cache affinity.
`

// docReplay is the section on Replay (replay.go).
const docReplay = `
## Replaying a rehearsal

The contest rehearsal (deploy/internal/rehearsal) can export its run as a trace (package internal/schedtrace:
the judges with their slots, speed and when each connected and left; every task with its enqueue time,
problem, data hash, language, priority and work at speed 1; and when the hub first pushed it to which
judge). The simulator replays it with the same policy and puts both enqueue → dispatch waits side by side:

    go run ./hub/internal/sched/sim/cmd/sim -replay trace.json [-policy NAME] [-json [-tasks]]
        [-heartbeat 3s] [-download model|DURATION] [-seed N] [-pass-moment 500ms] [-window-passes]

It prints, per judge, per judge class (slots × speed) and over all judges, the count, mean and p99 of the
wait from enqueue to the first dispatch (not to the start of the run) as the hub recorded it — the start of
the pass that placed the task where the trace has it (` + "`" + `placed_ms` + "`" + `), else the first push at a judge — and as
the simulator produced it (the start of the pass that placed it, as the hub's ` + "`" + `placed_ms` + "`" + `), and the gap (sim − hub) / hub; ` + "`" + `!` + "`" + ` marks a gap over 10 % (issue 13) that is also at least 50 ms (a percentage of two near-zero waits says nothing). ` + "`" + `-json` + "`" + `
prints a ` + "`" + `sim.ReplayResult` + "`" + ` (with ` + "`" + `-tasks` + "`" + `, every task's two dispatches); from Go, ` + "`" + `sim.Replay` + "`" + `.
` + "`" + `-seed N` + "`" + ` changes the simulator's own draws (its policy's ties, the judges' heartbeat phases, the
latencies drawn from the hub's histograms): one replay is one draw of them, and the rehearsal replays
its trace with seeds 1 to 10 and reports the range of the simulator's all-judges mean and p99 beside the
hub's, and whether each hub figure lies within it (on the 10:29 rehearsal of 2026-12-04 the hub's p99
lay outside, +9 … +17 % over 20 seeds: the model's gap; on the 15:25 one both within; docs/rehearsal.md).
A trace of a rehearsal with ` + "`" + `--faults` + "`" + ` lists them (` + "`" + `faults` + "`" + `: when, what); the simulator models none (a
Redis restart stops the hub's dispatcher until Redis serves reads again, a killed judge's tasks wait for
their leases), so the table adds the row ` + "`" + `before the faults` + "`" + `: the tasks enqueued before the first, the
part of the run the model can be held to (on 2026-12-07 13:10 at 40×: −41 % / −49 % over all, the whole
gap in the window of the faults).

**What the replay assumes.** Exactly the trace's arrivals, taken in the hub's queue order (priority, then
enqueue time), its judges and its service times (work_ms / speed on one slot), through the simulator's
usual hub model above with the hub's defaults (heartbeat 3 s, leases of 4 heartbeats, 64-task window,
250 ms tick). A judge present from the start is connected at time 0 (its heartbeat phase is seeded); one
that joins sends hello with an empty cache and its first heartbeat at join_ms; one that leaves is killed:
the hub closes it at once, its tasks are lost and come back when their leases expire. A judge id that
appears twice is one judge that reconnected (one row). A judge that lacks a task's data downloads it
holding the slot: by default the simulator's model (` + "`" + `sim.ModelDownload` + "`" + `: 0.3 s + a lognormal size of median
15 MB over 50 MB/s, drawn once per hash, about 0.8 s), or a fixed ` + "`" + `-download 50ms` + "`" + ` — the rehearsal's
simulated judges fetch from the hub on a local network, far faster than the model — or ` + "`" + `-download 0s` + "`" + `;
a task without a data hash needs none. Judges speak every language and keep 100 problems. On the hub's
side only recorded pushes count; one seen before its recorded enqueue counts as 0. The rehearsal records
the enqueue the queue itself recorded (Redis's clock), which the hub sends with each push
(` + "`" + `protocol.Task.EnqueuedMs` + "`" + `), and when the pass that placed the task began (` + "`" + `DispatchedMs` + "`" + `, the trace's
` + "`" + `placed_ms` + "`" + `); the table is followed by the hub's wait split there: enqueue → pass start (the hub's own
queue, what the simulator's wait models and what the table compares) and pass start → the push at the
judge (the pass, the socket, the judge reading it). The replay holds each task's slot that delivery time
longer (the hub counts the slot taken from the placement; the judge starts the work when the push arrives),
less what of it the replay's own pass already took, and never longer for a pass of its own that ran longer
than that way (items 9 and 13). Its traces of the early hours of 2026-12-04 took
the submission row's created_at (760 ms before the enqueue on average in one collapsed run: the web
node's own wait for a core), and those before, when the POST's answer reached the browser, seconds after
the enqueue on a loaded machine, which started the replay's clock late.

**Where the two can differ**, what to look at when a row shows ` + "`" + `!` + "`" + `:

1. *Decision latency and Redis round trips.* The simulator dispatches at the instant of the event that
   wakes it. The hub learns of an arrival through Redis pub/sub, reads the window from Redis (` + "`" + `Peek` + "`" + `), and
   takes the pass's leases in one ` + "`" + `LeaseMany` + "`" + ` round trip before it writes the pushes; the rehearsal records
   when the judge received each.
2. *Result latency.* A slot frees in the hub only once the result reached it and its handler got to it:
   a judge's messages are handled in order, those waiting together (progress in one round trip, results
   in two), and a result waits behind the ones before it and the round trip of the progress before it.
   Until 2026-12-04 the replay took the handler's wait alone for that
   (` + "`" + `verdict_hub_judge_message_wait_seconds` + "`" + `, 75 ms on average in the 07:16 rehearsal of that day), while
   a result took 568 ms on average from leaving its judge to the hub's "result recorded": backlogged
   tasks waited about 40 % longer at the hub than in the replay. Each result now carries when its judge
   sent it (` + "`" + `sent_ms` + "`" + `, the judge's clock, which the rehearsal's judges share with the hub) and the hub
   times it from there to its slot free (` + "`" + `verdict_hub_result_slot_seconds` + "`" + `): that also sees the loaded
   hub's wait to read it, which no timer inside the hub can (415–623 ms on average in the 09:49, 10:08
   and 10:29 rehearsals of 2026-12-04; the replay's mean then came within 10 % of the hub's: −10 %, −3 %,
   −5 %). (Freeing the slot at the read instead was tried: it took away the hub's backpressure, and
   leases expired in the rush; docs/hub.md.) The
   rehearsal puts its mean over the run in the trace
   (` + "`" + `result_ms` + "`" + `), and its mean and histogram over each 5 s of the run (` + "`" + `latency` + "`" + `: ` + "`" + `result_ms` + "`" + `,
   ` + "`" + `result_hist` + "`" + `, read from the hub as it ran), and the replay holds each slot that much longer after
   its result leaves the judge (after the work and, where recorded, the judge's own time: item 7): a
   wait drawn from the histogram of the window it leaves in (uniform within a bucket;
   what lies above the last bound, as the value that keeps the window's mean), the window's mean where
   it has no histogram, the run's mean before the first window or without windows, at once when the
   trace has neither. A window lasts as long as the rehearsal's reads of the hub's metrics, which a
   loaded machine stretches (14 s and 49 s in the 10:29 rehearsal of 2026-12-04), and a result's way
   changes faster than that: in that run's burst the hub placed tasks on full judges a median 371 ms
   after their previous results left (196–202 s), while the window's histogram said 1,026 ms on
   average, and the replay drained the backlog too slowly. The hub therefore tells each result's own
   time in its ` + "`" + `result_ack` + "`" + ` (` + "`" + `slot_ms` + "`" + `), the rehearsal records it for every first attempt (the trace's
   task ` + "`" + `slot_ms` + "`" + `), and the replay frees that task's slot as late after its result leaves the judge,
   on whichever judge it runs it; a task without it draws from its window as above.
3. *The dispatch passes.* Since issue 14 both run ` + "`" + `sched.Pass` + "`" + ` and decide the next pass by
   ` + "`" + `PassResult.Again` + "`" + `: they no longer differ here. The replay's passes take as long as the hub's own
   took (` + "`" + `verdict_hub_dispatch_pass_seconds` + "`" + `, read by the rehearsal): drawn, pass by pass, from the
   histogram of the ` + "`" + `latency` + "`" + ` window the pass starts in (` + "`" + `pass_hist` + "`" + `, as above), the window's mean
   where it has none, the run's mean (` + "`" + `pass_ms` + "`" + `) before the first window or without windows,
   instantaneous when the trace has neither. A hub queued for a core in a rush and idle in between has
   passes of milliseconds and of seconds; one mean for the whole run made the replay too slow in the
   quiet windows and too fast in the rush, and a window's mean hides the slow passes within it that
   every task behind them waits for.
4. *Heartbeat timing.* The phases differ; heartbeats carry running, queued and load1. The default reads
   its exact assigned counts, so this moves mainly ` + "`" + `guide` + "`" + ` and the push baselines.
5. *Queue ties.* The hub orders a priority by submission time in ms and Redis breaks ties by member (the
   submission id as a string); the replay by enqueue time, ties in trace order.
6. *Judges and data.* Simulated judges reject a task beyond their slots where the simulator queues it
   (only the push baselines over-commit). The warm plan (the hub prefetches a contest's data before it
   starts) is taken from the trace: the rehearsal records the test data each judge had downloaded and
   verified by the start (a judge's ` + "`" + `warm` + "`" + ` list) and the replay starts that judge with it cached.
   A trace without ` + "`" + `warm` + "`" + ` (one recorded before it existed) starts every judge empty, and the default
   may then defer or download where the hub found the data warm.
7. *The judges' own time.* A slot frees in the hub when the result comes, and a judge's result leaves
   only after its work and the judge's own delays: on a loaded machine the rehearsal's simulated judges
   (one process beside the load generator) see their timers fire late and their results wait to be
   sent. The rehearsal records, for each first attempt, how long the judge first pushed it held its
   slot (a slot took it → its result left the judge: ` + "`" + `held_ms` + "`" + `); the replay holds the slot what exceeds
   the work at that judge's speed that much longer after the work, on whichever judge it runs the task.
   The run times the hub learns leave it out, as the case times a judge reports do. A trace without
   ` + "`" + `held_ms` + "`" + ` holds no slot beyond the work.
8. *The dispatcher's own wait for a core, and the push's way to the judge.* Woken while idle (a queue
   change, a freed slot), the hub's dispatcher starts its pass only when the machine gives it a core; the
   simulator started it at once. The hub now times it (` + "`" + `verdict_hub_dispatch_wake_seconds` + "`" + `: a wake that
   found it idle → the pass it started), the rehearsal samples it per window (` + "`" + `wake_ms` + "`" + `, ` + "`" + `wake_hist` + "`" + `), and
   the replay delays each pass it wakes the idle dispatcher for by a draw from the window's (wakes
   meanwhile join that pass, as in the hub). Measured, it is small even in a collapsed run (the 2026-12-04
   07:16 rehearsal: 0.4 ms mean over 7,353 wakes, p99 at most 10 ms). What was large is the push's way to
   the judge after the placement (709 ms mean in that run, p99 4 s): the hub counts the slot taken from
   the placement, so each task held its slot that much longer than the replay's; the replay now holds it
   (above). On that run's trace the replay's mean wait went from 364 ms to 846 ms, against the hub's
   1,231 ms to placement.
9. *The pass counted twice.* The push's recorded way (` + "`" + `placed_ms` + "`" + ` → ` + "`" + `dispatch_ms` + "`" + `) starts at the start
   of the pass, so the hub's own pass is part of it; the replay's pass (drawn as above) holds the slot
   from its start to its commit as well, and the replay added the whole recorded way after that, and it
   took the simulator's wait at the pass's commit while the hub's is at its start. Each task held its
   slot one pass too long and waited one pass too long. Since 2026-12-04 the replay's wait ends at the
   start of the pass that placed the task, and the slot stays taken for the recorded way or the pass,
   whichever is longer (` + "`" + `sim.Job.Push` + "`" + `; since 2026-12-07 the recorded way alone, item 13). Measured on the
   traces of 2026-12-04's rehearsals, seeds 1–10
   each, all judges, mean / p99 gap, before → after:

   | trace | contestants, change | before | after |
   |---|---|---|---|
   | 10:29 (no ` + "`" + `slot_ms` + "`" + ` yet) | 3,000 | −9 … −1 % / +11 … +18 % | −13 … −10 % / +7 … +13 % |
   | 15:25 (no ` + "`" + `slot_ms` + "`" + ` yet) | 3,000 | −6 … +4 % / −2 … +27 % | −18 … −14 % / −3 … +3 % |
   | 18:25 | 3,000 | −6 … −3 % / +1 … +6 % | −12 … −8 % / +0 … +3 % |
   | 21:10 | 3,000, admission and MySQL pools at 16 | +7 … +13 % / +0 … +11 % | −3 … +1 % / −2 … −1 % |
   | 21:26 | 3,000, board pushes every second | +5 … +11 % / −2 … −0 % | −4 … +5 % / −2 … −0 % |
   | 21:42 | 2,000, 15 judges | +37 … +63 % / +32 … +53 % | +16 … +42 % / +16 … +38 % |

   The p99 gaps are within ±13 % on every trace after it, mostly within ±5 %. The mean gaps show what the
   double count had been hiding: on the collapsed 3,000-contestant runs with the defaults the replay is
   now 8–18 % fast, and on the 2,000-contestant run, whose judges were the bottleneck in the last half hour,
   16–42 % slow. The slow one is the passes' draws: replayed with each window's mean pass instead of a
   draw per pass from the window's histogram (the trace's ` + "`" + `pass_hist` + "`" + ` removed), that trace gives −6 % /
   −3 % in every seed, while the collapsed ones go to −12 … −32 % on the mean. A pass drawn long blocks the
   dispatcher while slots free, whatever it places; in the hub the long passes seem to come together with
   everything else slow (in the 2,000 run's rush the hub's 286 passes placed 7.4 tasks each, one
   started every 140 ms on average, after a 1-task pass 97 ms, after a 20-or-more pass 168 ms), and in
   the collapsed runs something the replay does not have still makes the hub slower. In that rush every
   task held its slot as long in the replay as in the hub (2.23 s against 2.22 s from the pass's start),
   yet the replay kept 83–90 % of the slot-time busy where the hub kept 96 %. Tried offline, not kept:
   passes drawn from the same histograms but one draw per half second of the run (so that the passes of
   one moment take alike, as a loaded machine makes them) give −8 … −2 % / −4 … +1 % on the 2,000 trace
   (seeds 1–5), and −20 … −15 % (18:25), −28 … −23 % (15:25) and −11 … −10 % (21:10) on the mean on the
   3,000 ones: the better model of the passes, and it leaves the collapsed runs with 10–28 % of the hub's
   mean wait that the replay does not have at all (a candidate: the passes that placed nothing, whose
   Peek waited for a Redis connection — the hub's pool waits averaged 125–510 ms in those runs — and
   which the hub does not time). Not settled: the next step is to time the hub's empty passes and to
   record each pass (its start, its tasks, its end) in the trace, and replay the passes as they came.
10. *The passes that place nothing, and passes drawn by the moment.* Since 2026-12-05 the hub times
   every dispatch pass that places nothing — an empty queue, no judge ready, no free slot for the head of
   the queue — in ` + "`" + `verdict_hub_dispatch_idle_pass_seconds` + "`" + `; the rehearsal samples it per window
   (` + "`" + `idle_ms` + "`" + `, ` + "`" + `idle_hist` + "`" + `), and the replay holds its dispatcher that long for such a pass: one whose
   decisions place nothing, and one the tick or a freed slot starts on an empty queue (which took no time
   before; what wakes the dispatcher meanwhile waits for it, as in the hub). A trace without them replays
   as before. And the replay now draws the passes' latencies by the moment: the passes of each half
   second take theirs from one draw of the window's spreads (` + "`" + `sim.DefaultReplayPassMoment` + "`" + `,
   ` + "`" + `-pass-moment` + "`" + `; ` + "`" + `0` + "`" + ` draws pass by pass, as before). Measured on the rehearsal of 2026-12-04 23:54 UTC
   (3,000 contestants, 22 judges × 8 slots, on a VM of the same kind as before but a different one, where
   the stack did not collapse: 25,859 of 25,957 submissions acknowledged), mean / p99 gap, all judges:

   | replay | seeds | mean gap | p99 gap |
   |---|---|---|---|
   | passes drawn one by one, the idle passes as placing ones (the model before) | 1–5 | +17 … +22 % | +13 … +20 % |
   | passes drawn one by one, the idle passes timed | 1–10 | +11 … +25 % | +9 … +24 % |
   | passes drawn by the half second, the idle passes timed (the default now) | 1–10 | −6 … +1 % | −4 … +5 % |
   | the same, moments of 250 ms / 1 s / 2 s | 1–5 | −4 … +1 % / −9 … −0 % / −7 … +5 % | −1 … +2 % / −7 … +1 % / −7 … +7 % |

   The hub's 19,393 passes that placed nothing took 2.53 ms on average (p99 at most 50 ms), against
   11.95 ms for its 12,837 placing passes: on this run the idle passes hold the dispatcher little, and
   timing them made the replay slightly faster (such passes took a placing pass's draw before). They do
   not explain the collapsed runs of 2026-12-04 on the other VM, whose traces have no idle passes; that
   question stays open with those runs. The moments are what closed the gap on this trace, as they had
   on the 2,000-contestant trace of 2026-12-04 21:42 (−8 … −2 % / −4 … +1 %, seeds 1–5), on which the half
   second was chosen: the 23:54 trace came after it and was not used to choose it, and the two rehearsals
   after the default changed (2026-12-05 00:21 and 00:36, the same VM) gave −6 … −0 % / −3 … +3 % and
   −8 … +1 % / −6 … +9 % (seeds 1–10; both hub figures within the simulator's range in the latter). Why correlated draws
   wait less than independent ones from the same histograms is not settled; what the two traces show is
   that the hub's slow passes come together, and that a replay which scatters them one by one over the
   run blocks its dispatcher more often than the hub's was. Recording each pass in the trace and
   replaying the passes as they came would settle it: done since 2026-12-07 (item 13).
11. *The enqueue's way to the dispatcher.* The hub hears of an enqueue by Redis pub/sub; the simulator
   woke its dispatcher at the arrival. Since 2026-12-05 the notice carries the enqueue's time (Redis's
   clock) and the hub times its way (` + "`" + `verdict_hub_queue_notice_seconds` + "`" + `); the rehearsal samples it per
   window (` + "`" + `notice_ms` + "`" + `, ` + "`" + `notice_hist` + "`" + `), and the replay wakes its dispatcher for an arrival that long after it
   (the task is in the queue at once: a pass woken meanwhile by a freed slot or the tick sees it). At
   waits of milliseconds it is most of the wait: in the 3,000-contestant rehearsal at 10× of 2026-12-05
   17:41 (6 judges × 8 slots; the hub's mean wait 5 ms) the notices took 6.05 ms on average, queued on
   the hub's one pub/sub connection behind the browsers' events; the hub has since read its own channels
   on a connection of their own (4.15 ms at 18:38). Mean / p99 gap, all judges, seeds 1–10:

   | trace | without the notices | with them |
   |---|---|---|
   | 17:41 | −60 … −48 % / −42 … −34 % | −23 … −12 % / −41 … −31 % |
   | 18:38 | −55 … −49 % / −42 … −30 % | −19 … −10 % / −41 … −27 % |

   The p99 gap stays: the replay's p99 is 53–66 ms where the hub's is 91–100 ms; not settled. At 40×
   (waits of seconds) the notice is nothing beside the wait. Since 2026-12-05 23:30 each push also says
   when the hub read that task's own notice (` + "`" + `protocol.Task.NoticedMs` + "`" + `, the trace's ` + "`" + `noticed_ms` + "`" + `), and the
   replay wakes for each task as late as the hub was woken (one placed before its notice came draws its
   notice, no earlier than that placement): a stalled hub reads every notice of its stall late, and drawn
   notices fell on other moments. Rehearsals at 10× of 2026-12-05 23:32 and 12-06 00:16: mean gap
   −15 … −7 % and −16 … −8 %, p99 gap −26 … −13 % and −29 … −19 % (seeds 1–10): narrower, still over 10 %
   on the p99; the rest is passes that left a task while slots were free (the policy's deferral on a
   cluster the rejudge keeps busy) and passes the dispatcher did not start for 40 ms or more
   (docs/rehearsal-3000-10x.md). Since 2026-12-06 each push also says how often the hub's passes held the
   task before one placed it, and why (` + "`" + `protocol.Task.Held` + "`" + `: busy, no judge, affinity with the first such
   pass, reserve; the trace's ` + "`" + `holds` + "`" + `), and the replay counts its own passes' holds of the same task beside
   them (` + "`" + `Comparison.Holds` + "`" + `, printed under the table). The deferral is a small part of the slow waits: on the 10× rehearsal
   of 12-06 02:38 (a slower VM, waits ten times the 12-05 runs'), of the 4,826 first attempts the hub placed
   40 ms or more after their enqueue, 356 were held for affinity (the simulator held 208 of the same tasks
   so), 1,784 busy, and 2,690 by no pass at all, 1,978 of those because their notice reached the hub 40 ms
   or more late; on that VM the hub lay within the simulator's seed range on both figures (mean gap
   −11 … +49 %, p99 −14 … +50 %).
12. *What each side learnt.* Since 2026-12-07 the hub exports what its policy has learnt
   (` + "`" + `sched.CostEstimates` + "`" + `: the warm and cold overheads, the download cost it ranks by, the range of the
   judges' speeds it assumes; ` + "`" + `verdict_hub_policy_*` + "`" + `), the rehearsal records it every 5 s (the trace's
   ` + "`" + `learnt` + "`" + `), and the replay reads its own policy's at the same times (` + "`" + `Comparison.Learnt` + "`" + `, a table in the
   rehearsal's report). The lead it was built to test — that the hub holds more tasks for affinity, and
   longer, because it learns a dearer download — is refuted: in the 40× rehearsal of 12-07 08:18 neither
   side placed a task on a judge without its data (every judge is warmed before the start), so both ranked
   by the 1 s prior (` + "`" + `FetchPrior` + "`" + `) throughout, while the hub still held more tasks for affinity (1,192
   against 1,033) and longer (210 against 131 ms from the first hold to the placement). With every judge
   holding the data such a hold means the policy took a busy judge to be faster than the free ones. The
   08:50 run recorded the speeds: its 22 judges all run at speed 1, and the hub took them to range from
   about 0.70 to 1.5 (highest ÷ lowest 2.07 on average over the run), the replay from 0.86 to 1.3 (1.54).
   The difference was the replay's: the hub learns a run time from a result's case times, which leave the
   compile out (300 ms on every simulated judge), while the replay learnt from the task's whole work,
   compile included, which damps each run's relative noise and so the spread of the speeds fitted to it.
   The same compile is the difference between the warm overheads the two learnt (the hub's 340–440 ms,
   the replay's 30–110 ms). Since then the rehearsal records each task's compile (` + "`" + `compile_ms` + "`" + `, which
   ` + "`" + `export-trace` + "`" + ` always did) and the replay leaves it out of the run its policy learns from, as the hub
   does (` + "`" + `TestReplayLeavesTheCompileOutOfTheRun` + "`" + `; the short rehearsal checks that both learn the compile
   as overhead).
   Replayed again with each task's compile (the 08:50 trace with ` + "`" + `compile_ms` + "`" + ` set to the simulated judges'
   300 ms), the replay's speeds spread 2.01× (the hub's 2.07×), and its affinity holds lasted 150 ms on
   average from the first hold to the placement (the hub's 175 ms; 97 ms without the compile) for 1,085
   tasks (the hub's 1,109). The overall gap did not narrow: mean +4.5 … +21.6 %, p99 +5.8 … +23.2 % over
   seeds 1–10 (without the compile +3.0 … +19.9 % and +5.6 … +22.9 %), the hub below the replay's range
   on both. At 40× the affinity holds are too few to move it; what does — the replay waits longer than the
   hub in the rush and shorter in the flash (the rehearsal's table by 30 s windows) — is not settled.
   The rehearsal of 12-07 09:16, the first with the compile in its trace, shows the two learning alike:
   the speeds spread 2.055× in the hub and 2.058× in the replay, the warm overheads 435 and 398 ms, and
   the affinity holds match (1,139 and 1,122 tasks, 132 and 133 ms from the first hold to the placement);
   the overall gap stayed (mean +1 … +18 %, p99 +2 … +19 %, seeds 1–10, the hub below the range);
   item 13 found where it was.
13. *Each pass as it came, and the slot held for the pass.* Since 2026-12-07 the hub can keep its
   dispatcher's last passes (` + "`" + `--pass-log N` + "`" + `: when each began, how long it took, how many tasks it placed)
   and serve them at ` + "`" + `/debug/passes` + "`" + `; the rehearsal runs it with 65,536, reads the log with the metrics
   every 5 s, and writes every pass into the trace (` + "`" + `passes` + "`" + `, µs since the start; ` + "`" + `passes_lost` + "`" + ` for any the
   ring overwrote between two reads). The replay then takes each of its passes' latencies from the hub's
   pass of the same kind (one that placed tasks, or one that placed nothing) that began nearest in time,
   instead of drawing them from the windows' histograms (` + "`" + `-window-passes` + "`" + ` keeps the draws, to compare the
   two on one trace), and its comparison sets both sides' passes by 30 s (` + "`" + `Comparison.Passes` + "`" + `, a table in
   the rehearsal's report: placing passes, tasks per pass, their mean length, idle passes, the share of
   the window the dispatcher spent in a pass). The first 40× rehearsal with it (12-07 10:20, 32,246 passes
   recorded, none lost) made the gap worse, not better: +29 … +31 % on the mean (seeds 1–10), where the
   windows' draws gave +15 % (seed 1). The table showed why. In the rush (from 4h40m of contest time) both
   dispatchers spent 99 % of the window in passes of about 100 ms (the hub's 284, the replay's 289), so
   the tasks placed per pass set the throughput, and the replay placed fewer (10.9 against 11.6). Nearly every
   pass on both sides filled every slot its view showed free (the hub's reconstructed from the trace: its
   194 passes from 425 to 445 s placed exactly the slots free at their starts), so the replay's slots
   freed later: a replayed task held its slot 1,578 ms on average from its pass's start to its result
   handled, the hub's 1,522 ms (its recorded way + its judge's time + its result's way to the slot). The
   56 ms were item 9's rule, the slot held for the longer of the replay's own pass and the recorded way:
   in the hub a pass writes each push as soon as its leases are taken, so the recorded way includes the
   part of the hub's pass before that task and the push arrives whenever it arrives; the replay's pass for
   that task is another draw (from a histogram, or the hub's pass nearest in time, not the task's own),
   and the longer of two loosely related values is longer than either on average. With both sides at
   their throughput's edge, 4 % more time per slot was 6 % fewer tasks placed in the rush and a wait a
   third longer. Now the replay holds a slot for the recorded way and the work, whatever its own pass
   took: where its pass ran longer than the way, the work counts from where the push arrived (its start
   backdated; work that would have ended by the pass's end completes at once, before the next pass
   looks). Replayed again, seeds 1–10, all judges, mean / p99 gap:

   | trace (40×, 3,000 contestants, 22 judges × 8 slots) | the slot for the longer (before) | the recorded way (now) |
   |---|---|---|
   | 12-07 10:20, the hub's passes | +29 … +31 % / +27 … +28 % | +3.2 … +6.5 % / +2.8 … +5.4 % |
   | 12-07 10:20, the windows' draws (` + "`" + `-window-passes` + "`" + `) | +15 % / +13 % (seed 1) | −6.6 … +8.4 % / −4.7 … +9.0 % |
   | 12-07 09:16 (no passes recorded: the windows') | +1 … +18 % / +2 … +19 % | −6.3 … +3.6 % / −4.5 … +5.3 % |
   | 12-07 08:50 | +3 … +20 % / +6 … +23 % | −7.1 … +0.8 % / −5.1 … +2.1 % |
   | 12-07 08:18 | +2 … +29 % / +3 … +28 % | −17.4 … +0.4 % / −9.7 … +2.7 % |
   | 12-07 07:54 (the browsers' gate all but off) | +3 … +14 % / +5 … +17 % | −8.4 … −0.8 % / −8.0 … +0.6 % |
   | 12-07 07:38 | −6 … +27 % / −1 … +27 % | −18.1 … −0.8 % / −12.3 … +3.0 % |

   (The traces before 09:16 lack each task's compile, item 12.) With its own passes the replay of 10:20
   is within 7 % of the hub on both figures in every seed, and its spread over seeds is narrow (its
   passes no longer depend on the seed); by window it is within 7 % in the rush (3,462 against 3,251 ms
   on the mean, seed 1) and the flash (199 against 199 ms). With the windows' draws the hub lies within
   the simulator's range of p99s on every trace above and of means on four of the six (on 07:38 and
   07:54 every seed waited 1–18 % less than the hub on the mean). Why the hub's passes made the old rule worse than the draws did is not settled; with
   the rule gone it no longer moves the gap. The first rehearsals with the fix: at 40× (12-07 11:20 and
   12:00) the replay within 5 % on both figures in every seed (+1 … +2 % and +4 … +5 %; 5,011 against
   4,910 ms and 8,833 against 8,463 ms on the mean in the rush); at 10× (10:41) −5 … +6 % / −7 … +9 %, the hub within the range on both — where the old rule
   hardly bites (the same trace with the simulator before the fix: −4.5 … +6.9 % / −9.6 … +7.5 %).
`

const docAblation = `
## Ablation: what each mechanism buys

%d seeds per cell, the same traces as above; each variant undoes one mechanism of the default (the first
table says which).
`

// docAblationAfter follows the ablation summary: what the variants show,
// by mechanism (the figures are in the tables).
const docAblationAfter = `
How to read it. *Speed estimates* (` + "`default-nospeed`" + `, ` + "`default-ring`" + `, ` + "`default-prev`" + `): at low and moderate
load a fast free slot is usually available, and ranking by learnt speed sends work to it, so the estimates
shorten the time to verdict most there, and with the gray judge; the oracle's true speeds
(` + "`default-oracle`" + `) do a few per cent better still. Where the summary shows ` + "`default-nospeed`" + ` faster at high load, the estimates cost more than
they give once every slot is busy and there is rarely a choice: the likely mechanism — not isolated by a
test — is that the deferral's expected gain counts a busy fast judge as finishing sooner, so tasks wait for
fast judges while slow slots idle, and the capacity-weighted ring gives fast judges more homes. *The deferral*
(` + "`default-nodefer`" + `, ` + "`default-enq`" + `): without it, or with its clock started at enqueue, affinity collapses once the
queue is long (the hit ratio falls to that of a random spread, about 0.77), every miss holds a slot for its
download, and at ρ 0.95 the time to verdict doubles or triples; at low load the deferral costs a little
(waiting for a warm judge instead of downloading on an idle one). ` + "`default-prev`" + ` is the policy before issue 8's
round (1 s deferral from enqueue, ring order, no speeds). The wait table shows the trade: speed-aware
ranking and deferral raise the mean wait at low load (work waits for, or queues on, fast and warm judges)
while lowering the time to verdict.

`

// WriteMisses lists, per target, the headline cells that miss it and by
// how much (the ratio, or the hit ratio), so the report says plainly where
// a goal is missed whatever the run's figures.
func WriteMisses(w io.Writer, hs []Headline) {
	type target struct {
		name string
		miss func(Headline) bool
		val  func(Headline) string
	}
	targets := []target{
		{fmt.Sprintf("mean time to verdict (≤ %.2f × the reference at ρ ≤ %.2f, ≤ %.2f × at %.2f)", TargetMean, TargetRhoLow, TargetMeanHigh, TargetRho),
			func(h Headline) bool { return !h.MeetsMean }, func(h Headline) string { return fmt.Sprintf("%.3f×", h.MeanRatio) }},
		{fmt.Sprintf("p99 time to verdict (≤ %.2f ×, ≤ %.2f × at %.2f)", TargetP99, TargetP99High, TargetRho),
			func(h Headline) bool { return !h.MeetsP99 }, func(h Headline) string { return fmt.Sprintf("%.3f×", h.P99Ratio) }},
		{fmt.Sprintf("within %.0f %% of the best other policy", (TargetBest-1)*100),
			func(h Headline) bool { return !h.MeetsBest }, func(h Headline) string { return fmt.Sprintf("%.3f× %s", h.BestRatio, h.BestOther) }},
		{fmt.Sprintf("hit ratio ≥ %.1f", TargetHit),
			func(h Headline) bool { return !h.MeetsHit }, func(h Headline) string { return f2(h.Hit.Mean) }},
	}
	fmt.Fprintln(w, "\n**Where the goals are missed** (computed from the table above; the ratio is the default's to the row's reference):")
	fmt.Fprintln(w)
	for _, tg := range targets {
		var cells []string
		for _, h := range hs {
			if !tg.miss(h) {
				continue
			}
			c := fmt.Sprintf("%s %.2f (%s)", h.Scenario, h.Rho, tg.val(h))
			if h.Ref != IdealWarm {
				c = fmt.Sprintf("%s %.2f vs %s (%s)", h.Scenario, h.Rho, h.Ref, tg.val(h))
			}
			cells = append(cells, c)
		}
		if len(cells) == 0 {
			fmt.Fprintf(w, "- %s: met in every cell.\n", tg.name)
			continue
		}
		fmt.Fprintf(w, "- %s: missed in %d — %s.\n", tg.name, len(cells), strings.Join(cells, ", "))
	}
}

// boundLooseness says how far below ideal-warm the bound sits in this
// run: per load on the first scenario, and the lowest ratio of all cells.
func (r *Results) boundLooseness() string {
	e := r.Exp
	if !slices.Contains(e.Policies, Bound) || !slices.Contains(e.Policies, IdealWarm) || len(e.Scenarios) == 0 {
		return "not measured in this run"
	}
	ratio := func(s string, l float64) float64 {
		b, w := r.Cell(s, l, Bound), r.Cell(s, l, IdealWarm)
		if b == nil || w == nil {
			return math.NaN()
		}
		return b.Stat(meanTTV).Mean / w.Stat(meanTTV).Mean
	}
	first := e.Scenarios[0].Name
	var parts []string
	for _, l := range e.Loads {
		if l <= TargetRho {
			x := f2(ratio(first, l)) + "×"
			if len(parts) == 0 {
				x += " ideal-warm's"
			}
			parts = append(parts, fmt.Sprintf("%s at ρ %.2f", x, l))
		}
	}
	lo, at := math.Inf(1), ""
	for _, sc := range e.Scenarios {
		for _, l := range e.Loads {
			if x := ratio(sc.Name, l); x < lo && l <= TargetRho {
				lo, at = x, fmt.Sprintf("%s at ρ %.2f", sc.Name, l)
			}
		}
	}
	return fmt.Sprintf("in this run, in %s, its mean is %s; the lowest ratio of any cell at ρ ≤ %.2f is %s× (%s)", first, strings.Join(parts, ", "), TargetRho, f2(lo), at)
}

// WriteAblationSummary writes, per variant and load, the range over the
// ablation's scenarios of the default's mean time to verdict divided by
// the variant's (below 1: what the variant undoes helps), then lists the
// cells where a variant beats the default by more than 3 %.
func (r *Results) WriteAblationSummary(w io.Writer) {
	e := r.Exp
	var variants []string
	for _, p := range e.Policies {
		if !IsReference(p) && p != sched.NameDefault {
			variants = append(variants, p)
		}
	}
	ratio := func(s string, l float64, v string) float64 {
		d, x := r.Cell(s, l, sched.NameDefault), r.Cell(s, l, v)
		if d == nil || x == nil {
			return math.NaN()
		}
		return d.Stat(meanTTV).Mean / x.Stat(meanTTV).Mean
	}
	fmt.Fprint(w, "\nThe default's mean time to verdict ÷ the variant's, lowest–highest over the scenarios above (below 1: the default is faster, so what the variant undoes helps):\n\n| variant |")
	for _, l := range e.Loads {
		fmt.Fprintf(w, " ρ %.2f |", l)
	}
	fmt.Fprint(w, "\n|---|")
	for range e.Loads {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	var beaten []string
	for _, v := range variants {
		fmt.Fprintf(w, "| %s |", v)
		for _, l := range e.Loads {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, sc := range e.Scenarios {
				x := ratio(sc.Name, l, v)
				lo, hi = min(lo, x), max(hi, x)
				if x > TargetBest {
					beaten = append(beaten, fmt.Sprintf("%s in %s at ρ %.2f (%.3f×)", v, sc.Name, l, x))
				}
			}
			fmt.Fprintf(w, " %s–%s |", f2(lo), f2(hi))
		}
		fmt.Fprintln(w)
	}
	if len(beaten) == 0 {
		fmt.Fprintf(w, "\nNo variant beats the default by more than %.0f %% on mean time to verdict in any cell.\n", (TargetBest-1)*100)
		return
	}
	fmt.Fprintf(w, "\nA variant beats the default by more than %.0f %% on mean time to verdict in %d cells: %s.\n", (TargetBest-1)*100, len(beaten), strings.Join(beaten, ", "))
}

// missesWhy opens the explanation of the misses with this run's split of
// the steady scenario's gap to ideal-warm at ρ 0.5 and 0.85: what the
// downloads cost the ideal, and what the hub's view costs beyond that.
func missesWhy(hs []Headline) string {
	var parts []string
	for _, h := range hs {
		if h.Scenario != "steady" || h.Ref != IdealWarm || (h.Rho != 0.5 && h.Rho != 0.85) {
			continue
		}
		parts = append(parts, fmt.Sprintf("at ρ %.2f ideal-warm %s s, the ideal (paying downloads) %s s (+%.0f %%), the default %s s (+%.0f %% more)",
			h.Rho, f2(h.RefMean.Mean), f2(h.Ideal.Mean), 100*(h.Ideal.Mean/h.RefMean.Mean-1), f2(h.Default.Mean), 100*(h.Default.Mean/h.Ideal.Mean-1)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "\n**Why headline cells miss.** The steady scenario's mean time to verdict, " + strings.Join(parts, "; ") + ". "
}

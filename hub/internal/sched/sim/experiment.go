package sim

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/hub/internal/sched/lab"
)

// Timeline places a run: warm-up, the measured window and the moment the
// disturbance (if any) starts, all in seconds.
type Timeline struct {
	Warmup, Measured, DisturbAt float64
}

// Full is the timeline of the full run: 5 min warm-up, 20 min measured,
// disturbance 10 min after the start.
var Full = Timeline{Warmup: 300, Measured: 1200, DisturbAt: 600}

// Quick is the CI-sized timeline: 2 min warm-up, 10 min measured,
// disturbance 5 min after the start.
var Quick = Timeline{Warmup: 120, Measured: 600, DisturbAt: 300}

// Loads are the offered loads of the grid.
var Loads = []float64{0.5, 0.7, 0.85, 0.95, 1.1}

// References lists the references in the report's order: the lower bound,
// the ideal and its warm variant, then their rule-bound variants.
func References() []string { return []string{Bound, Ideal, IdealWarm, IdealDrop, IdealWarmDrop} }

// Policies returns the compared policies: the references first, the hub's
// default next, then the guide and the baselines.
func Policies() []string { return append(References(), lab.Names()...) }

// IsReference reports whether policy is one of the references.
func IsReference(policy string) bool { return slices.Contains(References(), policy) }

// undropped is the reference a drop variant equals without a silent
// judge ("" for any other policy).
func undropped(policy string) string {
	switch policy {
	case IdealDrop:
		return Ideal
	case IdealWarmDrop:
		return IdealWarm
	}
	return ""
}

// Variant is a policy variant for the ablations.
type Variant struct {
	// New builds the policy for a seed.
	New func(seed uint64) sched.Policy
	// OracleSpeed: see Config.OracleSpeed.
	OracleSpeed bool
	// CacheViewGrows: see Config.CacheViewGrows.
	CacheViewGrows bool
	// About says what differs, for the report.
	About string
}

// Ablations returns the variants of the default policy that each undo one
// of its mechanisms, by name.
func Ablations() map[string]Variant {
	bounded := func(c sched.BoundedConfig) func(uint64) sched.Policy {
		return func(uint64) sched.Policy { return sched.NewBounded(c) }
	}
	return map[string]Variant{
		"default-prev": {New: bounded(sched.BoundedConfig{MaxDefer: time.Second, DeferFromEnqueue: true, RingOrder: true, SpeedAlpha: -1}),
			About: "the default policy before issue 8's round: 1 s deferral from enqueue, ring order, no speeds"},
		"default-oracle": {New: bounded(sched.BoundedConfig{}), OracleSpeed: true,
			About: "the default policy told every judge's true current speed (the hub cannot know it)"},
		"default-nospeed": {New: bounded(sched.BoundedConfig{SpeedAlpha: -1}),
			About: "the default policy without speed estimates"},
		"default-enq": {New: bounded(sched.BoundedConfig{DeferFromEnqueue: true}),
			About: "the default policy with the deferral measured from enqueue"},
		"default-ring": {New: bounded(sched.BoundedConfig{RingOrder: true}),
			About: "the default policy ranking and falling back by ring weight, not speed"},
		"default-nodefer": {New: bounded(sched.BoundedConfig{MaxDefer: -1}),
			About: "the default policy without deferral"},
		"default-class": {New: bounded(sched.BoundedConfig{ClassOrder: true}),
			About: "the default policy ranking by class first (home and cached, home, cached), then speed, not by expected time to verdict (the rule before issue 18's item 6)"},
		"default-growview": {New: bounded(sched.BoundedConfig{}), CacheViewGrows: true,
			About: "the default policy with the hub's view of each judge's cache only growing (no evictions reported)"},
	}
}

// Experiment is a grid of runs.
type Experiment struct {
	Timeline  Timeline
	Scenarios []Scenario
	Loads     []float64
	Policies  []string
	Seeds     int
	Workers   int // default GOMAXPROCS
	// Workload and Cluster, if set, replace every scenario's.
	Workload *Workload
	Cluster  []JudgeSpec
	// Variants are extra policies, named in Policies, that are not sched
	// names: variants of a policy for the ablations.
	Variants map[string]Variant
	// Progress, if set, is called after each cell.
	Progress func(done, total int)
}

// Cell holds the runs of one (scenario, load, policy), one per seed.
type Cell struct {
	Runs []*Result
}

// Results are indexed [scenario][load][policy].
type Results struct {
	Exp   *Experiment
	Cells [][][]Cell
}

// Cell returns the cell of scenario s, load l, policy p (names), or nil.
func (r *Results) Cell(s string, load float64, p string) *Cell {
	for i, sc := range r.Exp.Scenarios {
		if sc.Name != s {
			continue
		}
		for k, l := range r.Exp.Loads {
			if l != load {
				continue
			}
			for m, name := range r.Exp.Policies {
				if name == p {
					return &r.Cells[i][k][m]
				}
			}
		}
	}
	return nil
}

// ConfigFor builds the trace traffic and run config of one cell. A nil
// cluster is the scenario's (or DefaultCluster).
func ConfigFor(tl Timeline, sc Scenario, rho float64, seed uint64, cluster []JudgeSpec) (Traffic, Config) {
	if len(cluster) == 0 {
		cluster = sc.cluster()
	}
	end := tl.Warmup + tl.Measured
	tr := Traffic{Rho: rho, Start: 0, End: end}
	ds := sc.resolve(tl, &tr)
	for i := range ds {
		if ds[i].At+ds[i].Length > end {
			ds[i].Length = end - ds[i].At
		}
	}
	cfg := Config{Seed: seed, Cluster: cluster, Heartbeat: sc.Heartbeat, CacheCapacity: sc.CacheCapacity, Warmup: tl.Warmup, End: end, MeasureDecision: true,
		Hubs: sc.Hubs, PassLatency: sc.PassLatency, DecisionCost: sc.DecisionCost, Reserve: sc.Reserve}
	if len(ds) == 1 {
		cfg.Disturbance = ds[0]
	} else {
		cfg.Faults = ds
	}
	if len(ds) > 0 || tr.BurstRank > 0 || tr.ContestProblems > 0 {
		cfg.RecoveryFrom = tl.DisturbAt
	}
	if tr.BurstRank > 0 {
		cfg.HotFrom, cfg.HotTo = tr.BurstAt, tr.BurstAt+tr.BurstLen
	}
	return tr, cfg
}

// cluster is the scenario's cluster, or DefaultCluster.
func (sc Scenario) cluster() []JudgeSpec {
	if len(sc.Cluster) > 0 {
		return sc.Cluster
	}
	return DefaultCluster()
}

// workload is the scenario's workload, or the zero Workload (the
// defaults).
func (sc Scenario) workload() Workload {
	if sc.Workload != nil {
		return *sc.Workload
	}
	return Workload{}
}

// Run runs the grid on Workers goroutines. Each (scenario, load, seed)
// generates one trace that every policy replays.
func (e *Experiment) Run() (*Results, error) {
	if e.Workers <= 0 {
		e.Workers = runtime.GOMAXPROCS(0)
	}
	res := &Results{Exp: e, Cells: make([][][]Cell, len(e.Scenarios))}
	type job struct{ s, l, seed int }
	var jobs []job
	for s := range e.Scenarios {
		res.Cells[s] = make([][]Cell, len(e.Loads))
		for l := range e.Loads {
			res.Cells[s][l] = make([]Cell, len(e.Policies))
			for p := range e.Policies {
				res.Cells[s][l][p].Runs = make([]*Result, e.Seeds)
			}
			for seed := range e.Seeds {
				jobs = append(jobs, job{s, l, seed})
			}
		}
	}
	ch := make(chan job)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		done     int
	)
	for range e.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for jb := range ch {
				sc := e.Scenarios[jb.s]
				seed := uint64(jb.seed + 1)
				tr, cfg := ConfigFor(e.Timeline, sc, e.Loads[jb.l], seed, e.Cluster)
				w := sc.workload()
				if e.Workload != nil {
					w = *e.Workload
				}
				trace := Generate(w, tr, Capacity(cfg.Cluster), seed)
				cfg.Hot = trace.Hot
				silent := sc.Silent()
				// copyOf: a drop variant without a silent judge is its
				// undropped reference: run once, copied below.
				copyOf := func(name string) int {
					if silent {
						return -1
					}
					return slices.Index(e.Policies, undropped(name))
				}
				for p, name := range e.Policies {
					if copyOf(name) >= 0 {
						continue
					}
					c := cfg
					c.Policy = name
					if v, ok := e.Variants[name]; ok {
						c.NewPolicy, c.OracleSpeed, c.CacheViewGrows = v.New, v.OracleSpeed, v.CacheViewGrows
					}
					r, err := Run(c, trace)
					mu.Lock()
					if err != nil && firstErr == nil {
						firstErr = fmt.Errorf("sim: %s ρ=%v %s seed %d: %w", sc.Name, e.Loads[jb.l], name, seed, err)
					}
					res.Cells[jb.s][jb.l][p].Runs[jb.seed] = r
					mu.Unlock()
				}
				for p, name := range e.Policies {
					if src := copyOf(name); src >= 0 {
						mu.Lock()
						res.Cells[jb.s][jb.l][p].Runs[jb.seed] = res.Cells[jb.s][jb.l][src].Runs[jb.seed]
						mu.Unlock()
					}
				}
				mu.Lock()
				done++
				if e.Progress != nil {
					e.Progress(done, len(jobs))
				}
				mu.Unlock()
			}
		}()
	}
	for _, jb := range jobs {
		ch <- jb
	}
	close(ch)
	wg.Wait()
	return res, firstErr
}

// Stat is a mean over seeds with the half-width of its 95% confidence
// interval (Student's t).
type Stat struct {
	Mean, CI float64
	N        int
}

var t975 = []float64{math.NaN(), 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
	2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// Mean95 returns the mean of xs (NaNs skipped) with its 95% CI.
func Mean95(xs []float64) Stat {
	var s Stat
	sum := 0.0
	for _, x := range xs {
		if !math.IsNaN(x) {
			sum += x
			s.N++
		}
	}
	if s.N == 0 {
		return Stat{Mean: math.NaN(), CI: math.NaN()}
	}
	s.Mean = sum / float64(s.N)
	if s.N < 2 {
		s.CI = math.NaN()
		return s
	}
	v := 0.0
	for _, x := range xs {
		if !math.IsNaN(x) {
			v += (x - s.Mean) * (x - s.Mean)
		}
	}
	t := 1.96
	if s.N-1 < len(t975) {
		t = t975[s.N-1]
	}
	s.CI = t * math.Sqrt(v/float64(s.N-1)/float64(s.N))
	return s
}

// Stat aggregates f over the cell's runs.
func (c *Cell) Stat(f func(*Result) float64) Stat {
	xs := make([]float64, 0, len(c.Runs))
	for _, r := range c.Runs {
		if r != nil {
			xs = append(xs, f(r))
		}
	}
	return Mean95(xs)
}

// AblationPolicies are the policies of the ablation grid: the references,
// the default and each of its variants, in the report's order.
var AblationPolicies = []string{Bound, Ideal, IdealWarm, sched.NameDefault, "default-prev", "default-enq", "default-nodefer", "default-ring", "default-nospeed", "default-oracle"}

// AblationExperiment is the grid that takes the default policy apart: the
// scenarios where its mechanisms matter (steady traffic, the burst, a gray
// judge), at the loads where they matter.
func AblationExperiment(tl Timeline, seeds int) *Experiment {
	var scs []Scenario
	for _, sc := range Scenarios() {
		switch sc.Name {
		case "steady", "burst", "gray":
			scs = append(scs, sc)
		}
	}
	return &Experiment{Timeline: tl, Scenarios: scs, Loads: []float64{0.5, 0.7, 0.85, 0.95}, Policies: AblationPolicies,
		Seeds: seeds, Variants: Ablations()}
}

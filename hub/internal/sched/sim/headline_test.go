package sim

import (
	"slices"
	"testing"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/hub/internal/sched/lab"
)

// shortTimeline is the tests' run: 1 min warm-up, 5 min measured, the
// disturbance 2 min after the start.
var shortTimeline = Timeline{Warmup: 60, Measured: 300, DisturbAt: 120}

func scenario(t *testing.T, name string) Scenario {
	t.Helper()
	for _, sc := range Scenarios() {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %q", name)
	return Scenario{}
}

func TestBoundIsNeverBeaten(t *testing.T) {
	// Every policy (the references, the default, the baselines and the
	// default's ablation variants) on every scenario with fixed seeds: no
	// run may go below the lower bound of the jobs it measured, on the
	// mean or on any quantile of the time to verdict, and no cell's mean
	// may go below the bound cell's by more than its confidence interval.
	seeds, loads := 2, []float64{0.5, 0.95}
	if testing.Short() {
		seeds, loads = 1, []float64{0.95}
	}
	policies := Policies()
	for name := range Ablations() {
		policies = append(policies, name)
	}
	slices.Sort(policies[len(Policies()):])
	e := &Experiment{Timeline: shortTimeline, Scenarios: Scenarios(), Loads: loads, Policies: policies, Seeds: seeds, Variants: Ablations()}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	const eps = 1e-9
	for _, sc := range e.Scenarios {
		for _, l := range e.Loads {
			bound := res.Cell(sc.Name, l, Bound).Stat(meanTTV)
			for _, p := range e.Policies {
				c := res.Cell(sc.Name, l, p)
				for seed, r := range c.Runs {
					if r.Jobs == 0 {
						t.Fatalf("%s ρ=%v %s seed %d: no jobs measured", sc.Name, l, p, seed+1)
					}
					b := r.Bound
					for _, q := range []struct {
						name     string
						got, min float64
					}{{"mean", r.TTV.Mean, b.Mean}, {"p50", r.TTV.P50, b.P50}, {"p95", r.TTV.P95, b.P95},
						{"p99", r.TTV.P99, b.P99}, {"p99.9", r.TTV.P999, b.P999}} {
						if !(q.got >= q.min*(1-eps)) {
							t.Errorf("%s ρ=%v %s seed %d: %s time to verdict %.4f below its bound %.4f", sc.Name, l, p, seed+1, q.name, q.got, q.min)
						}
					}
					if !(r.SlowdownMean >= 1-eps && r.SlowdownP99 >= 1-eps) {
						t.Errorf("%s ρ=%v %s seed %d: slowdown %.3f / p99 %.3f below 1", sc.Name, l, p, seed+1, r.SlowdownMean, r.SlowdownP99)
					}
				}
				s := c.Stat(meanTTV)
				ci := s.CI
				if ci != ci { // one seed: no interval
					ci = 0
				}
				if s.Mean+ci < bound.Mean*(1-eps) {
					t.Errorf("%s ρ=%v: %s's mean time to verdict %.3f ± %.3f beats the bound %.3f", sc.Name, l, p, s.Mean, ci, bound.Mean)
				}
			}
		}
	}
}

func TestLowerBound(t *testing.T) {
	cluster := []JudgeSpec{{ID: "a", Cores: 1, Speed: 2}, {ID: "b", Cores: 1, Speed: 1}}
	cfg := Config{Cluster: cluster}
	tests := []struct {
		name      string
		jobs      []Job
		mean, p50 float64
	}{
		{"apart: each its own run on the fastest judge", []Job{{Arrival: 0, Size: 2}, {Arrival: 10, Size: 4}}, 1.5, 1.5},
		// Capacity 3/s: SRPT on one machine of speed 3 finishes the three
		// jobs of size 3 at 1, 2, 3 (N = 3, 2, 1); each runs 1.5 s on the
		// fastest judge (N = 3 until 1.5). ∫max = 3×1.5 + 2×0.5 + 1×1 = 6.5
		// over 3 jobs, where either alone gives 2 or 1.5.
		{"an overload: the pooled machine's queue", []Job{{Size: 3}, {Size: 3}, {Size: 3}}, 6.5 / 3, 1.5},
		{"none", nil, nan, nan},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var js []*Job
			for i := range tc.jobs {
				js = append(js, &tc.jobs[i])
			}
			d := LowerBound(cfg, js)
			if !same(d.Mean, tc.mean) || !same(d.P50, tc.p50) {
				t.Fatalf("LowerBound = %+v, want mean %v p50 %v", d, tc.mean, tc.p50)
			}
		})
	}
}

var nan = func() float64 { var z float64; return z / z }()

func same(a, b float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	d := a - b
	return d < 1e-9 && d > -1e-9
}

func TestIdealWarmPaysNoDownloads(t *testing.T) {
	// ideal-warm is the ideal with free downloads and nothing else: on a
	// workload without test data the two are the same run.
	cluster := DefaultCluster()
	tr := Traffic{Rho: 0.8, End: 600}
	dry := Generate(Workload{Sizes: SizesExp}, tr, Capacity(cluster), 5)
	wet := Generate(Workload{}, tr, Capacity(cluster), 5)
	run := func(p string, trace *Trace) *Result {
		r, err := Run(Config{Policy: p, Seed: 1, Cluster: cluster, Warmup: 60, End: 600}, trace)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if a, b := run(Ideal, dry), run(IdealWarm, dry); a.TTV != b.TTV || a.Wait != b.Wait {
		t.Fatalf("without test data ideal and ideal-warm differ: %+v vs %+v", a.TTV, b.TTV)
	}
	id, warm := run(Ideal, wet), run(IdealWarm, wet)
	if warm.CacheHit != 1 || !(warm.TTV.Mean < id.TTV.Mean) || !(warm.Wait.Mean < id.Wait.Mean) {
		t.Fatalf("ideal-warm: hit %.2f, TTV %.3f (ideal %.3f), wait %.3f (ideal %.3f)", warm.CacheHit, warm.TTV.Mean, id.TTV.Mean, warm.Wait.Mean, id.Wait.Mean)
	}
}

// meanTTVs runs policies on scenario at load over seeds 1..seeds and
// returns each policy's mean time to verdict over the seeds.
func meanTTVs(t *testing.T, scenario Scenario, load float64, seeds int, policies ...string) map[string]float64 {
	t.Helper()
	e := &Experiment{Timeline: shortTimeline, Scenarios: []Scenario{scenario}, Loads: []float64{load}, Policies: policies, Seeds: seeds, Variants: Ablations()}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, p := range policies {
		out[p] = res.Cell(scenario.Name, load, p).Stat(meanTTV).Mean
	}
	return out
}

func TestDefaultBeatsPullAndCHBL(t *testing.T) {
	// The headline's claim, as a test: on mean time to verdict the default
	// beats join-idle-queue and consistent hashing with bounded loads, the
	// two baselines that come closest, in three scenarios (fixed seeds).
	for _, tc := range []struct {
		scenario string
		load     float64
	}{
		{"steady", 0.85},
		{"burst", 0.85},
		{"gray", 0.85},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			m := meanTTVs(t, scenario(t, tc.scenario), tc.load, 3, sched.NameDefault, lab.NamePull, lab.NameCHBL)
			t.Logf("mean TTV: %v", m)
			for _, other := range []string{lab.NamePull, lab.NameCHBL} {
				if !(m[sched.NameDefault] < m[other]) {
					t.Errorf("ρ=%v: default's mean time to verdict %.3f s, %s's %.3f s", tc.load, m[sched.NameDefault], other, m[other])
				}
			}
		})
	}
}

func TestSpeedLearningShortensTimeToVerdict(t *testing.T) {
	// The default policy learns judge speeds from the run times results
	// report (sched.SpeedMeter via Observe). Switched off, the default
	// sends work to slow judges as readily as to fast ones and misses a
	// gray judge: its time to verdict grows.
	for _, tc := range []struct {
		scenario string
		load     float64
		gain     float64 // least relative gain of default over default-nospeed
	}{
		{"steady", 0.5, 0.02},
		{"gray", 0.5, 0.02},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			m := meanTTVs(t, scenario(t, tc.scenario), tc.load, 3, sched.NameDefault, "default-nospeed")
			t.Logf("mean TTV: %v", m)
			if g := 1 - m[sched.NameDefault]/m["default-nospeed"]; !(g >= tc.gain) {
				t.Errorf("ρ=%v: default %.3f s, without speed estimates %.3f s: gain %.1f%%, want ≥ %.0f%%",
					tc.load, m[sched.NameDefault], m["default-nospeed"], 100*g, 100*tc.gain)
			}
		})
	}
}

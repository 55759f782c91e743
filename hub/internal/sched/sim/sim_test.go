package sim

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/verdict-oj/verdict/hub/internal/sched"
)

func TestEngineOrdersByTimeThenSchedule(t *testing.T) {
	var e Engine
	var got []int
	for i, at := range []float64{3, 1, 2, 1, 0.5} {
		e.At(at, func() { got = append(got, i) })
	}
	e.At(10, func() { t.Fatal("ran past until") })
	e.Run(5)
	if want := []int{4, 1, 3, 2, 0}; !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if e.Now() != 3 || e.Len() != 1 {
		t.Fatalf("now %v len %d", e.Now(), e.Len())
	}
}

func TestPercentileAndMeanCV(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	d := Summarise(xs)
	if d.Mean != 3 || d.P50 != 3 || math.Abs(d.P99-4.96) > 1e-9 {
		t.Fatalf("summary %+v", d)
	}
	if m, mm, cv := MeanCV([]float64{1, 1, 2}); math.Abs(m-4.0/3) > 1e-9 || math.Abs(mm-1.5) > 1e-9 || cv <= 0 {
		t.Fatalf("MeanCV %v %v %v", m, mm, cv)
	}
	s := Mean95([]float64{1, 2, 3, math.NaN()})
	if s.N != 3 || s.Mean != 2 || math.Abs(s.CI-4.303*1/math.Sqrt(3)) > 1e-9 {
		t.Fatalf("Mean95 %+v", s)
	}
}

func small(policy string, seed uint64) (*Result, error) {
	tl := Timeline{Warmup: 60, Measured: 240, DisturbAt: 150}
	sc := Scenarios()[0]
	tr, cfg := ConfigFor(tl, sc, 0.85, seed, DefaultCluster())
	cfg.MeasureDecision = false
	cfg.Policy = policy
	return Run(cfg, Generate(Workload{}, tr, Capacity(DefaultCluster()), seed))
}

func TestDeterministicForASeed(t *testing.T) {
	for _, p := range []string{Ideal, "default", "p2c", "peak_ewma"} {
		a, err := small(p, 3)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := small(p, 3)
		if fmt.Sprintf("%+v", a) != fmt.Sprintf("%+v", b) { // NaN-tolerant
			t.Fatalf("%s: two runs of seed 3 differ:\n%+v\n%+v", p, a, b)
		}
		c, _ := small(p, 4)
		if reflect.DeepEqual(a.Wait, c.Wait) {
			t.Fatalf("%s: seeds 3 and 4 gave the same waits", p)
		}
		if a.Jobs == 0 || a.Unfinished != 0 {
			t.Fatalf("%s: %d jobs, %d unfinished", p, a.Jobs, a.Unfinished)
		}
	}
}

// erlangCWait is the mean wait of M/M/c with arrival rate lambda and
// service rate 1 per server.
func erlangCWait(c int, lambda float64) float64 {
	a := lambda
	rho := a / float64(c)
	sum, term := 0.0, 1.0
	for k := range c {
		if k > 0 {
			term *= a / float64(k)
		}
		sum += term
	}
	last := term * a / float64(c)
	pc := last / (1 - rho) / (sum + last/(1-rho))
	return pc / (float64(c) - a)
}

func TestLittlesLawOnMMc(t *testing.T) {
	const c, rho = 4, 0.8
	cluster := []JudgeSpec{{ID: "m", Cores: c, Speed: 1}}
	tr := Traffic{Rho: rho, End: 20000}
	trace := Generate(Workload{Sizes: SizesExp}, tr, Capacity(cluster), 11)
	for _, p := range []string{Ideal, "pull"} {
		r, err := Run(Config{Policy: p, Seed: 1, Cluster: cluster, Heartbeat: 3, Warmup: 500, End: 20000}, trace)
		if err != nil {
			t.Fatal(err)
		}
		if rel := math.Abs(r.MeanInSystem-r.LambdaW) / r.LambdaW; rel > 0.03 {
			t.Fatalf("%s: L = %.3f but λW = %.3f", p, r.MeanInSystem, r.LambdaW)
		}
		// Load calibration: the trace offers the nominal load.
		if math.Abs(r.Rho-rho)/rho > 0.03 {
			t.Fatalf("%s: realised ρ %.3f, nominal %.2f", p, r.Rho, rho)
		}
		want := erlangCWait(c, rho*c)
		if rel := math.Abs(r.Wait.Mean-want) / want; rel > 0.15 {
			t.Fatalf("%s: mean wait %.3f, Erlang C %.3f", p, r.Wait.Mean, want)
		}
		if r.CacheHit != 1 || r.Lost != 0 || r.OverCores != 0 {
			t.Fatalf("%s: %+v", p, r)
		}
	}
}

// TestQueueingTheory checks the simulator against the analytic mean wait
// in queue: M/M/c (Erlang C, exact) and M/G/c (Allen–Cunneen: Erlang C ×
// (1 + Cs²)/2, an approximation, so a wider band), at the realised load
// of the trace (so calibration error and simulation error are told
// apart; the realised load must also be within 3 % of the nominal). The
// queue is ideal-warm on one judge of c cores at speed 1: a FIFO queue, c
// servers, no download cost, i.e. exactly M/·/c.
func TestQueueingTheory(t *testing.T) {
	for _, tc := range []struct {
		name  string
		w     Workload
		c     int
		rho   float64
		end   float64
		tol   float64
		exact bool
	}{
		{"M/M/1 ρ 0.7", Workload{Sizes: SizesExp}, 1, 0.7, 40000, 0.10, true},
		{"M/M/4 ρ 0.85", Workload{Sizes: SizesExp}, 4, 0.85, 40000, 0.10, true},
		{"M/M/16 ρ 0.9", Workload{Sizes: SizesExp}, 16, 0.9, 20000, 0.15, true},
		{"M/G/4 ρ 0.8 (heavy sizes)", Workload{}, 4, 0.8, 60000, 0.20, false},
		{"M/G/8 ρ 0.7 (heavy sizes)", Workload{}, 8, 0.7, 60000, 0.25, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cluster := []JudgeSpec{{ID: "m", Cores: tc.c, Speed: 1}}
			trace := Generate(tc.w, Traffic{Rho: tc.rho, End: tc.end}, Capacity(cluster), 7)
			cfg := Config{Policy: IdealWarm, Seed: 1, Cluster: cluster, Warmup: 1000, End: tc.end}
			r, err := Run(cfg, trace)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r.Rho-tc.rho)/tc.rho > 0.03 {
				t.Fatalf("realised ρ %.3f, nominal %.2f", r.Rho, tc.rho)
			}
			// Service-time moments of the measured jobs.
			var n, s1, s2 float64
			for _, j := range trace.Jobs {
				if j.Arrival >= cfg.Warmup && j.Arrival < cfg.End {
					n++
					s1 += j.Size
					s2 += j.Size * j.Size
				}
			}
			mean := s1 / n
			cs2 := (s2/n - mean*mean) / (mean * mean)
			// Erlang C in units of the mean service time, at the realised load.
			want := erlangCWait(tc.c, r.Rho*float64(tc.c)) * mean
			if !tc.exact {
				want *= (1 + cs2) / 2
			}
			rel := (r.Wait.Mean - want) / want
			t.Logf("realised ρ %.3f (nominal %.2f), Cs² %.2f: mean wait %.3f s, analytic %.3f s (%+.1f%%)", r.Rho, tc.rho, cs2, r.Wait.Mean, want, 100*rel)
			if math.Abs(rel) > tc.tol {
				t.Fatalf("mean wait %.3f s, analytic %.3f s: %+.1f%% (tolerance %.0f%%)", r.Wait.Mean, want, 100*rel, 100*tc.tol)
			}
		})
	}
}

func TestIdealBeatsRandomOnP99(t *testing.T) {
	e := &Experiment{Timeline: Timeline{Warmup: 60, Measured: 300, DisturbAt: 150}, Scenarios: Scenarios()[:1],
		Loads: []float64{0.7}, Policies: []string{Ideal, "random", "default"}, Seeds: 2}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	id := res.Cell("steady", 0.7, Ideal).Stat(p99Wait).Mean
	rnd := res.Cell("steady", 0.7, "random").Stat(p99Wait).Mean
	if !(id < rnd) {
		t.Fatalf("ideal p99 %.2f, random %.2f", id, rnd)
	}
	if hs := res.Headlines(); len(hs) != 1 || hs[0].BestOther != "random" {
		t.Fatalf("headlines %+v", hs)
	}
}

func TestFaultsRequeueAndRecover(t *testing.T) {
	tl := Timeline{Warmup: 60, Measured: 300, DisturbAt: 120}
	for _, name := range []string{"crash", "silent"} {
		var sc Scenario
		for _, s := range Scenarios() {
			if s.Name == name {
				sc = s
			}
		}
		requeues, wasted := 0, 0
		for seed := uint64(1); seed <= 4; seed++ {
			tr, cfg := ConfigFor(tl, sc, 0.85, seed, DefaultCluster())
			trace := Generate(Workload{}, tr, Capacity(DefaultCluster()), seed)
			cfg.Policy = "default"
			r, err := Run(cfg, trace)
			if err != nil {
				t.Fatal(err)
			}
			if r.Unfinished != 0 || r.Lost != 0 || math.IsNaN(r.Recovery) {
				t.Fatalf("%s: unfinished %d lost %d recovery %v", name, r.Unfinished, r.Lost, r.Recovery)
			}
			requeues += r.Requeues
			wasted += r.Wasted
		}
		// A crash loses everything on the judge; a silent judge keeps
		// working, so only its tasks longer than the lease are requeued
		// (and their late results wasted).
		if requeues == 0 || (name == "silent" && wasted == 0) {
			t.Fatalf("%s: requeues %d wasted %d", name, requeues, wasted)
		}
	}
}

func TestLRU(t *testing.T) {
	l := newLRU(2)
	l.put(1, 0)
	l.put(2, 5)
	l.get(1)
	l.put(3, 0) // evicts 2
	if l.items[2] != nil || l.items[1] == nil || l.items[3] == nil {
		t.Fatalf("eviction wrong: %v", l.items)
	}
	l.put(4, 10) // evicts 1
	if got := l.ready(6); !reflect.DeepEqual(got, []int{3}) {
		t.Fatalf("ready %v", got)
	}
	l.dropPending(6)
	if l.items[4] != nil {
		t.Fatal("pending download survived a crash")
	}
}

func TestDispatchTickEndsAffinityHold(t *testing.T) {
	// Three judges of one core; 40 tiny jobs of other problems dilute the
	// recent share of problem 0, two long jobs of problem 0 fill its two
	// homes, then job B of problem 0 arrives: the default holds it for
	// its homes. Nothing else happens for a long while (heartbeats every
	// 30 s), so only the hub's dispatch tick can place B once its 2 s
	// deferral ends.
	tr := &Trace{Hot: -1}
	for p := range 41 {
		tr.Problems = append(tr.Problems, Problem{Hash: fmt.Sprint("d", p)})
	}
	at := 31.0
	for p := 1; p <= 40; p++ {
		tr.Jobs = append(tr.Jobs, Job{Arrival: at, Problem: p, Size: 0.001})
		at += 0.01
	}
	tr.Jobs = append(tr.Jobs, Job{Arrival: 31.5, Problem: 0, Size: 100}, Job{Arrival: 31.6, Problem: 0, Size: 100},
		Job{Arrival: 32, Problem: 0, Size: 1})
	for i := range tr.Jobs {
		tr.Jobs[i].ID = i
	}
	cluster := []JudgeSpec{{ID: "a", Cores: 1, Speed: 1}, {ID: "b", Cores: 1, Speed: 1}, {ID: "c", Cores: 1, Speed: 1}}
	for _, tc := range []struct {
		tick     float64
		min, max float64 // B's wait
	}{
		{0.25, 2, 2.3}, // the hub's tick
		{60, 5, 60},    // (almost) no tick: B waits for the next heartbeat
	} {
		// The class-order variant holds a task for a busy home for the
		// whole MaxDefer whatever the download costs (here nothing, so the
		// default would not hold B at all): what is tested is the tick.
		class := func(uint64) sched.Policy { return sched.NewBounded(sched.BoundedConfig{ClassOrder: true}) }
		r, err := Run(Config{Policy: "default", NewPolicy: class, Seed: 1, Cluster: cluster, Heartbeat: 30, Warmup: 0, End: 100, MaxDrain: 200, DispatchTick: tc.tick}, tr)
		if err != nil {
			t.Fatal(err)
		}
		if r.Jobs != 43 || r.Unfinished != 0 {
			t.Fatalf("tick %v: %d jobs, %d unfinished", tc.tick, r.Jobs, r.Unfinished)
		}
		// Everyone else starts at once, so the total wait is B's.
		if w := r.Wait.Mean * 43; w < tc.min || w > tc.max {
			t.Fatalf("tick %v: B waited %.2f s, want %v..%v (reasons %v)", tc.tick, w, tc.min, tc.max, r.Reasons)
		}
		if r.Reasons["fastest"].Starts != 1 {
			t.Fatalf("tick %v: B not placed away from its homes: %v", tc.tick, r.Reasons)
		}
	}
}

func TestIdealDropDiffersOnlyWithASilentJudge(t *testing.T) {
	tl := Timeline{Warmup: 60, Measured: 300, DisturbAt: 120}
	for _, sc := range Scenarios() {
		if sc.Name != "steady" && sc.Name != "silent" {
			continue
		}
		tr, cfg := ConfigFor(tl, sc, 0.85, 2, DefaultCluster())
		trace := Generate(Workload{}, tr, Capacity(DefaultCluster()), 2)
		cfg.MeasureDecision = false
		cfg.Policy = Ideal
		id, _ := Run(cfg, trace)
		cfg.Policy = IdealDrop
		drop, err := Run(cfg, trace)
		if err != nil {
			t.Fatal(err)
		}
		switch sc.Silent() {
		case false:
			if !reflect.DeepEqual(id.Wait, drop.Wait) || drop.Requeues != 0 {
				t.Fatalf("%s: ideal-drop differs from the ideal: %+v vs %+v", sc.Name, drop.Wait, id.Wait)
			}
		case true:
			if drop.Requeues == 0 || drop.Lost != 0 || drop.Wait.Mean <= id.Wait.Mean || id.Requeues != 0 {
				t.Fatalf("%s: ideal-drop requeued %d (lost %d), wait %.3f vs the ideal's %.3f", sc.Name, drop.Requeues, drop.Lost, drop.Wait.Mean, id.Wait.Mean)
			}
		}
	}
}

func TestDefaultKeepsLocalityUnderLoad(t *testing.T) {
	// The regression of issue 8: with the deferral measured from enqueue,
	// a long queue turned the default into "head to any free slot" and its
	// hit ratio fell to a random spread's. Measured from the first hold,
	// locality survives, and so does the capacity downloads would eat.
	e := &Experiment{Timeline: Timeline{Warmup: 120, Measured: 300, DisturbAt: 200}, Scenarios: Scenarios()[:1],
		Loads: []float64{0.95}, Policies: []string{"default", "default-prev"}, Seeds: 2, Variants: Ablations()}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	now, prev := res.Cell("steady", 0.95, "default"), res.Cell("steady", 0.95, "default-prev")
	if h, hp := now.Stat(hitRatio).Mean, prev.Stat(hitRatio).Mean; h < 0.88 || h < hp+0.05 {
		t.Fatalf("hit ratio at ρ 0.95: default %.3f, before %.3f", h, hp)
	}
	if w, wp := now.Stat(meanWait).Mean, prev.Stat(meanWait).Mean; w > 0.8*wp {
		t.Fatalf("mean wait at ρ 0.95: default %.2f, before %.2f", w, wp)
	}
}

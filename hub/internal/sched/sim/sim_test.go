package sim

import (
	"fmt"
	"math"
	"reflect"
	"testing"
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
	cluster := []JudgeSpec{{"m", c, 1}}
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
		want := erlangCWait(c, rho*c)
		if rel := math.Abs(r.Wait.Mean-want) / want; rel > 0.15 {
			t.Fatalf("%s: mean wait %.3f, Erlang C %.3f", p, r.Wait.Mean, want)
		}
		if r.CacheHit != 1 || r.Lost != 0 || r.OverCores != 0 {
			t.Fatalf("%s: %+v", p, r)
		}
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

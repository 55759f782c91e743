package sched

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// feed sends n results to m: each picks a problem of 60 (lognormal work,
// its own per-language factor), runs it on one of the problem's two
// "homes" (or, one time in five, any judge), with lognormal noise per
// submission and a share of time-limit outliers (20× the work).
func feed(m *SpeedMeter, rng *rand.Rand, speeds map[string]float64, ids []string, n int, outliers float64) {
	const problems = 60
	for range n {
		p := rng.IntN(problems)
		work := math.Exp(float64(p%7)*0.4 - 1)
		lang := "cpp"
		if p%3 == 0 {
			lang, work = "py3", work*4
		}
		j := ids[(p*5+rng.IntN(2))%len(ids)]
		if rng.IntN(5) == 0 {
			j = ids[rng.IntN(len(ids))]
		}
		w := work * math.Exp(0.6*rng.NormFloat64())
		if rng.Float64() < outliers {
			w = work * 20
		}
		m.Observe(j, int64(p), lang, time.Duration(w/speeds[j]*float64(time.Second)))
	}
}

func TestSpeedMeterLearnsRelativeSpeeds(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e"}
	tests := []struct {
		name     string
		speeds   map[string]float64
		outliers float64
		// tol is the relative error allowed on a speed ratio: at step 0.05
		// an estimate averages about 40 results of σ 0.6 (log), about
		// ±10 % per judge, so a ratio of two is within ±25 % (2σ).
		tol float64
	}{
		{"equal", map[string]float64{"a": 1, "b": 1, "c": 1, "d": 1, "e": 1}, 0, 0.25},
		{"heterogeneous", map[string]float64{"a": 1.3, "b": 0.7, "c": 1, "d": 1.5, "e": 0.5}, 0, 0.25},
		{"with time-limit outliers", map[string]float64{"a": 1.3, "b": 0.7, "c": 1, "d": 1.5, "e": 0.5}, 0.05, 0.25},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewSpeedMeter(0)
			if lo, hi := m.Range(); lo != 0 || hi != 0 {
				t.Fatalf("Range before any result = %v, %v; want 0, 0", lo, hi)
			}
			feed(m, rand.New(rand.NewPCG(1, 2)), tc.speeds, ids, 20000, tc.outliers)
			// Range spans the judges' speeds as Speed gives them.
			lo, hi := math.Inf(1), 0.0
			for _, x := range ids {
				lo, hi = min(lo, m.Speed(x)), max(hi, m.Speed(x))
			}
			if gotLo, gotHi := m.Range(); gotLo != lo || gotHi != hi {
				t.Errorf("Range = %v, %v; want %v, %v", gotLo, gotHi, lo, hi)
			}
			for _, x := range ids {
				for _, y := range ids {
					want := tc.speeds[x] / tc.speeds[y]
					got := m.Speed(x) / m.Speed(y)
					if math.Abs(got/want-1) > tc.tol {
						t.Errorf("speed %s/%s = %.3f, want %.3f", x, y, got, want)
					}
					if want >= 1.4 && got <= 1 {
						t.Errorf("speed %s/%s = %.3f: order lost (want %.3f)", x, y, got, want)
					}
				}
			}
		})
	}
}

// TestSpeedMeterSeesAGrayJudge: judge b, known for thousands of results as
// equal to the others, turns 5× slower (reporting healthy); within 20 of
// its results it must be estimated below 0.45× what it was (it converges
// to about 0.3×: b is a quarter of the mean it is measured against; the
// EWMA alone, without the drift's restart, is at about 0.47× then and
// 0.63× after 10), and the healthy judges must not be dragged down.
func TestSpeedMeterSeesAGrayJudge(t *testing.T) {
	ids := []string{"a", "b", "c", "d"}
	for seed := range uint64(10) {
		speeds := map[string]float64{"a": 1, "b": 1, "c": 1, "d": 1}
		m := NewSpeedMeter(0)
		rng := rand.New(rand.NewPCG(seed, 4))
		feed(m, rng, speeds, ids, 8000, 0)
		before, n0 := m.Speed("b"), m.judges["b"].n
		speeds["b"] = 0.2 // 5× slower, reporting healthy
		for got := 0; got < 20; {
			feed(m, rng, speeds, ids, 1, 0)
			if js := m.judges["b"]; js.n != n0 {
				got++
				n0 = js.n
			}
		}
		if after := m.Speed("b"); after > 0.45*before {
			t.Errorf("seed %d: gray judge b: speed %.2f → %.2f after 20 of its results, want below %.2f", seed, before, after, 0.45*before)
		}
		if a := m.Speed("a"); a < 0.9 {
			t.Errorf("seed %d: healthy judge a dragged down to %.2f", seed, a)
		}
	}
}

// TestSpeedMeterRarelyRestarts: on judges that do not change, noise (σ 0.6,
// and 5 % of time-limit outliers 20× the work) seldom looks like a drift:
// at most one restart per 1000 results.
func TestSpeedMeterRarelyRestarts(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e"}
	speeds := map[string]float64{"a": 1.3, "b": 0.7, "c": 1, "d": 1.5, "e": 0.5}
	for _, outliers := range []float64{0, 0.05} {
		m := NewSpeedMeter(0)
		feed(m, rand.New(rand.NewPCG(5, 6)), speeds, ids, 20000, outliers)
		if m.restarts > 20 {
			t.Errorf("outliers %.2f: %d restarts in 20000 results of judges that did not change", outliers, m.restarts)
		}
		t.Logf("outliers %.2f: %d restarts", outliers, m.restarts)
	}
}

// TestSpeedMeterSpotsASlowJudgeFast: a judge 5× slower than its peers is
// ranked below every one of them, by more than the default policy's tie
// margin (5 %), once it has reported 3 results — whatever the seed (20
// fixed ones). "Quiet" is the chaos drill: one program on one problem, the
// meter cold, the judges taking turns (the problem's first 3 results teach
// only its work). "Noisy" is a contest's mix: lognormal run times of σ 0.5
// on 10 problems whose work the other judges' 60 results already taught.
func TestSpeedMeterSpotsASlowJudgeFast(t *testing.T) {
	const tie = 1.05
	for _, tc := range []struct {
		name               string
		sigma              float64
		judges, problems   int
		warmup             int // results of the fast judges first
		slowResults        int // then turns until the slow judge has reported this many
		wantBelowAfter     int
		wantUnknownAtFirst bool // 1 after its first result (MinSamples)
	}{
		{"quiet, one problem, cold start", 0.05, 3, 1, 0, 3, 3, true},
		{"noisy (σ 0.5), problems known", 0.5, 4, 10, 60, 3, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(20) {
				rng := rand.New(rand.NewPCG(seed, 5))
				m := NewSpeedMeter(0)
				var ids []string
				for i := range tc.judges {
					ids = append(ids, fmt.Sprint("j", i))
				}
				slow, fast := ids[len(ids)-1], ids[:len(ids)-1]
				observe := func(j string) {
					p := rng.IntN(tc.problems)
					w := math.Exp(float64(p)*0.3 + tc.sigma*rng.NormFloat64())
					if j == slow {
						w *= 5
					}
					m.Observe(j, int64(p), "cpp", time.Duration(w*float64(time.Second)))
				}
				for i := range tc.warmup {
					observe(fast[i%len(fast)])
				}
				for i, n := 0, 0; n < tc.slowResults; i++ {
					j := ids[i%len(ids)]
					observe(j)
					if j != slow {
						continue
					}
					n++
					if n == 1 && tc.wantUnknownAtFirst && m.Speed(slow) != 1 {
						t.Fatalf("seed %d: estimate used after one result: %.2f", seed, m.Speed(slow))
					}
					if n < tc.wantBelowAfter {
						continue
					}
					for _, x := range fast {
						if m.Speed(slow)*tie >= m.Speed(x) {
							t.Fatalf("seed %d: after %d results the slow judge's speed %.2f is not below %s's %.2f by %.0f %%",
								seed, n, m.Speed(slow), x, m.Speed(x), (tie-1)*100)
						}
					}
				}
			}
		})
	}
}

// TestSpeedMeterKeepsEqualJudgesClose: four equal judges whose results are
// lognormal (σ 0.5) are not told apart by more than the noise of n results
// allows. After the problems' work is known, a judge's estimate after n
// results is a mean of n residuals while n ≤ 1/α (variance σ²/n) and an
// EWMA of step α after (variance α/(2−α)·σ² ≤ α·σ²), so the log ratio of
// two judges has variance at most 2σ²·max(1/n, α), and Speed shrinks it by
// n/(n+k), k = σ²/Spread² or more (the meter's σ² also counts the
// estimates' own errors). Over 100 trials (fixed seeds) the root mean
// square of the pairwise log ratios must be within 1.25× that, and no pair
// beyond 5× (the widest of 100 draws of four normal estimates is about
// 3.1× the pairs' root mean square; the joint learning of problems and
// judges makes the tails a little heavier, 4× in these trials).
func TestSpeedMeterKeepsEqualJudgesClose(t *testing.T) {
	const sigma, problems, trials = 0.5, 5, 100
	for _, n := range []int{2, 3, 5, 10, 20, 50, 200} {
		t.Run(fmt.Sprint(n, " results each"), func(t *testing.T) {
			ids := []string{"a", "b", "c", "d"}
			sum, worst, pairs := 0.0, 0.0, 0
			for trial := range uint64(trials) {
				rng := rand.New(rand.NewPCG(trial, 9))
				m := NewSpeedMeter(0)
				observe := func(j string, p int) {
					w := math.Exp(float64(p)*0.3 + sigma*rng.NormFloat64())
					m.Observe(j, int64(p), "cpp", time.Duration(w*float64(time.Second)))
				}
				for i := range 3 * problems { // each problem's first 3 results teach only its work
					observe(ids[i%len(ids)], i%problems)
				}
				for i := range n * len(ids) {
					observe(ids[i%len(ids)], rng.IntN(problems))
				}
				for a := range ids {
					for _, y := range ids[a+1:] {
						d := math.Log(m.Speed(ids[a]) / m.Speed(y))
						sum += d * d
						worst = max(worst, math.Abs(d))
						pairs++
					}
				}
			}
			m := NewSpeedMeter(0)
			k := sigma * sigma / (m.Spread * m.Spread)
			bound := math.Sqrt(2*sigma*sigma*math.Max(1/float64(n), m.Alpha)) * float64(n) / (float64(n) + k)
			rms := math.Sqrt(sum / float64(pairs))
			t.Logf("rms log ratio %.3f (bound %.3f), worst %.3f (bound %.3f)", rms, 1.25*bound, worst, 5*bound)
			if rms > 1.25*bound {
				t.Errorf("rms log ratio of equal judges %.3f after %d results each, want ≤ %.3f", rms, n, 1.25*bound)
			}
			if worst > 5*bound {
				t.Errorf("worst log ratio of equal judges %.3f after %d results each, want ≤ %.3f", worst, n, 5*bound)
			}
		})
	}
}

func TestSpeedMeterDefaults(t *testing.T) {
	m := NewSpeedMeter(0)
	if s := m.Speed("nobody"); s != 1 {
		t.Fatalf("unknown judge: %v", s)
	}
	for range 2 {
		m.Observe("a", 1, "cpp", time.Second)
		m.Observe("b", 1, "cpp", 2*time.Second)
	}
	// Problem 1's first 3 results taught only its work; the 4th (b's
	// second) is b's first estimate: below MinSamples (2).
	if m.Speed("a") != 1 || m.Speed("b") != 1 {
		t.Fatalf("estimates used before MinSamples: %v %v", m.Speed("a"), m.Speed("b"))
	}
	m.Observe("a", 1, "cpp", time.Second)
	m.Observe("b", 1, "cpp", 2*time.Second)
	m.Observe("a", 1, "cpp", time.Second)
	if m.judges["a"].n != 2 || m.judges["b"].n != 2 {
		t.Fatalf("estimates counted %d and %d results, want 2 and 2", m.judges["a"].n, m.judges["b"].n)
	}
	if a, b := m.Speed("a"), m.Speed("b"); b >= 1 || a <= 1 {
		t.Fatalf("b, twice as slow as a on its results: speeds a %.2f, b %.2f", a, b)
	}
	m.Observe("a", 1, "cpp", 0)
	m.Observe("", 1, "cpp", time.Second)
	if m.judges["a"].n != 2 || len(m.judges) != 2 {
		t.Fatalf("bad observations counted: %+v", m.judges["a"])
	}
	// Bounded memory: the least observed problems are forgotten.
	m.MaxProblems = 8
	for p := range int64(100) {
		m.Observe("a", 1000+p, "cpp", time.Second)
	}
	if len(m.problems) > 8 {
		t.Fatalf("%d problems tracked, max 8", len(m.problems))
	}
}

func TestDefaultLearnsSpeedFromResults(t *testing.T) {
	// The default policy, as New builds it, learns judge speeds from the
	// run times its results report (Observe → SpeedMeter) and prefers the
	// faster of two free homes: judge "j1" is 4× slower than the rest, and
	// once results show it, no task goes there while its other home is
	// free. Without results (or with the learning switched off) the ring
	// breaks the tie and sends some of them to j1.
	//
	// "A few results": every judge reports 4 results of one problem in
	// turn (the problem's first 3 teach only its work), so the slow judge
	// is judged on 3 of its results.
	for _, tc := range []struct {
		name     string
		policy   func() Policy
		feed     int // results reported first
		few      bool
		wantSlow bool // some tasks still go to the slow judge
	}{
		{"default, fed results", func() Policy { p, _ := New(NameDefault); return p }, 4000, false, false},
		{"default, a few results", func() Policy { p, _ := New(NameDefault); return p }, 16, true, false},
		{"default, no results", func() Policy { p, _ := New(NameDefault); return p }, 0, false, true},
		{"learning off, fed results", func() Policy { return NewBounded(BoundedConfig{SpeedAlpha: -1}) }, 4000, false, true},
		{"learning off, a few results", func() Policy { return NewBounded(BoundedConfig{SpeedAlpha: -1}) }, 16, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.policy()
			obs, ok := p.(Observer)
			if !ok {
				t.Fatalf("%s does not learn from outcomes", p.Name())
			}
			speeds := map[string]float64{"j0": 1, "j1": 0.25, "j2": 1, "j3": 1}
			rng := rand.New(rand.NewPCG(7, 8))
			for i := range tc.feed {
				problem := int64(1000 + rng.IntN(30))
				id := fmt.Sprint("j", (int(problem)+i%2*(1+rng.IntN(3)))%4)
				if tc.few {
					problem, id = 999, fmt.Sprint("j", i%4)
				}
				work := (0.5 + float64(problem%5)) * math.Exp(0.5*rng.NormFloat64())
				obs.Observe(t0, Outcome{Judge: id, Task: Task{ProblemID: problem, Language: "cpp"},
					Run: time.Duration(work / speeds[id] * float64(time.Second))})
			}
			slow, asked := 0, 0
			b := NewBounded(BoundedConfig{HotMinCount: 1000}) // the homes of each problem (the ring only)
			for problem := int64(1); problem <= 200; problem++ {
				task := Task{SubmissionID: problem, ProblemID: problem, DataHash: fmt.Sprint("d", problem), Language: "cpp"}
				js := judgesOf(4, 4, 4, 4)
				if home := b.homes(t0, task, js, 16.0); !home[1] {
					continue // the slow judge is not a home of this problem
				}
				asked++
				if d := p.Pick(t0, task, js); d.Judge == 1 {
					slow++
				} else if d.Judge < 0 {
					t.Fatalf("problem %d held with every judge free: %+v", problem, d)
				}
			}
			if asked < 20 {
				t.Fatalf("the slow judge is a home of only %d problems", asked)
			}
			if (slow > 0) != tc.wantSlow {
				t.Fatalf("%d of %d tasks whose homes include the slow judge went there", slow, asked)
			}
		})
	}
}

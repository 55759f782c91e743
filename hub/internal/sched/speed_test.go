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
			feed(m, rand.New(rand.NewPCG(1, 2)), tc.speeds, ids, 20000, tc.outliers)
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

func TestSpeedMeterSeesAGrayJudge(t *testing.T) {
	ids := []string{"a", "b", "c", "d"}
	speeds := map[string]float64{"a": 1, "b": 1, "c": 1, "d": 1}
	m := NewSpeedMeter(0)
	rng := rand.New(rand.NewPCG(3, 4))
	feed(m, rng, speeds, ids, 8000, 0)
	before := m.Speed("b")
	speeds["b"] = 0.2                 // 5× slower, reporting healthy
	feed(m, rng, speeds, ids, 400, 0) // about 100 of b's results
	if after := m.Speed("b"); after > 0.4*before {
		t.Fatalf("gray judge b: speed %.2f → %.2f, want below %.2f", before, after, 0.4*before)
	}
	if a := m.Speed("a"); a < 0.9 {
		t.Fatalf("healthy judge a dragged down to %.2f", a)
	}
}

func TestSpeedMeterDefaults(t *testing.T) {
	m := NewSpeedMeter(0)
	if s := m.Speed("nobody"); s != 1 {
		t.Fatalf("unknown judge: %v", s)
	}
	for range 5 {
		m.Observe("a", 1, "cpp", time.Second)
		m.Observe("b", 1, "cpp", 2*time.Second)
	}
	if m.Speed("a") != 1 || m.Speed("b") != 1 {
		t.Fatalf("estimates used before MinSamples: %v %v", m.Speed("a"), m.Speed("b"))
	}
	m.Observe("a", 1, "cpp", 0)
	m.Observe("", 1, "cpp", time.Second)
	if m.judges["a"].n != 3 || len(m.judges) != 2 { // the first 3 results of problem 1 teach only its work
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
	for _, tc := range []struct {
		name     string
		policy   func() Policy
		feed     bool
		wantSlow bool // some tasks still go to the slow judge
	}{
		{"default, fed results", func() Policy { p, _ := New(NameDefault); return p }, true, false},
		{"default, no results", func() Policy { p, _ := New(NameDefault); return p }, false, true},
		{"learning off, fed results", func() Policy { return NewBounded(BoundedConfig{SpeedAlpha: -1}) }, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.policy()
			obs, ok := p.(Observer)
			if !ok {
				t.Fatalf("%s does not learn from outcomes", p.Name())
			}
			speeds := map[string]float64{"j0": 1, "j1": 0.25, "j2": 1, "j3": 1}
			if tc.feed {
				rng := rand.New(rand.NewPCG(7, 8))
				for i := range 4000 {
					problem := int64(1000 + rng.IntN(30))
					id := fmt.Sprint("j", (int(problem)+i%2*(1+rng.IntN(3)))%4)
					work := (0.5 + float64(problem%5)) * math.Exp(0.5*rng.NormFloat64())
					obs.Observe(t0, Outcome{Judge: id, Task: Task{ProblemID: problem, Language: "cpp"},
						Run: time.Duration(work / speeds[id] * float64(time.Second))})
				}
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

package sim

import (
	"math"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
)

// firstFree places every task on the first judge of the view with a free
// slot and records what results report.
type firstFree struct{ runs []time.Duration }

func (*firstFree) Name() string { return "first_free" }

func (f *firstFree) Pick(_ time.Time, _ sched.Task, js []sched.Judge) sched.Decision {
	for i := range js {
		if js[i].Assigned < js[i].Slots {
			return sched.Decision{Judge: i, Reason: "first"}
		}
	}
	return sched.Decision{Judge: -1, Hold: sched.HoldBusy}
}

func (f *firstFree) Observe(_ time.Time, o sched.Outcome) {
	if !o.Failed {
		f.runs = append(f.runs, o.Run)
	}
}

// two returns the smaller and the larger of a sample of two from its
// summary (P99 interpolates between them).
func two(d Dist) (lo, hi float64) {
	lo = (1.98*d.Mean - d.P99) / 0.98
	return lo, 2*d.Mean - lo
}

// handmade runs jobs (arrival, size) on cluster with heartbeats every
// second (closed after 3 missed, leases of 4 s) under firstFree.
func handmade(t *testing.T, cluster []JudgeSpec, jobs []Job, tune func(*Config)) (*Result, *firstFree) {
	t.Helper()
	tr := &Trace{Problems: []Problem{{Hash: "d"}}, Jobs: jobs}
	for i := range tr.Jobs {
		tr.Jobs[i].ID = i
	}
	pol := &firstFree{}
	cfg := Config{Policy: "first_free", NewPolicy: func(uint64) sched.Policy { return pol }, Cluster: cluster,
		Heartbeat: 1, MissedHeartbeats: 3, Warmup: 0, End: 10, MaxDrain: 200, StartConnected: true,
		PassLatency: -1, DecisionCost: -1}
	if tune != nil {
		tune(&cfg)
	}
	r, err := Run(cfg, tr)
	if err != nil {
		t.Fatal(err)
	}
	return r, pol
}

// TestSilentJudgesResultsAreRejected: a judge falls silent right after
// its first heartbeat; the hub closes it 3 s later (3.5 s, at the
// reaper), and its lease runs out at 4 s. Its result of 3.8 s comes after
// the close and before the lease expiry: the hub never receives it (the
// link is closed), the task is requeued at the expiry and judged again
// elsewhere; when the judge connects again its kept result is stale
// (Wasted) and its other task, whose lease expired too, is withdrawn
// (Cancelled). The simulator before issue 18's fidelity fix accepted the
// 3.8 s result.
func TestSilentJudgesResultsAreRejected(t *testing.T) {
	cluster := []JudgeSpec{{ID: "silent", Cores: 2, Speed: 1}, {ID: "ok", Cores: 2, Speed: 1}}
	jobs := func() []Job {
		return []Job{{Arrival: 0.002, Size: 3.8}, {Arrival: 0.003, Size: 30}}
	}
	tests := []struct {
		name                       string
		silent                     bool
		minTTV, maxTTV             float64 // of the first job = the run's min
		requeues, wasted, canceled int
	}{
		{"healthy", false, 3.79, 3.81, 0, 0, 0},
		{"silent", true, 8, 8.6, 2, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := handmade(t, cluster, jobs(), func(c *Config) {
				if tc.silent {
					c.Faults = []Disturbance{{Kind: DisturbSilent, Judge: 0, At: 0.001, Length: 15}}
				}
			})
			if r.Jobs != 2 || r.Lost != 0 {
				t.Fatalf("jobs %d lost %d", r.Jobs, r.Lost)
			}
			first, _ := two(r.TTV)
			if first < tc.minTTV || first > tc.maxTTV {
				t.Fatalf("first job's time to verdict %.3f, want in [%v, %v] (%+v)", first, tc.minTTV, tc.maxTTV, r.TTV)
			}
			if r.Requeues != tc.requeues || r.Wasted != tc.wasted || r.Cancelled != tc.canceled {
				t.Fatalf("requeues %d wasted %d cancelled %d, want %d %d %d", r.Requeues, r.Wasted, r.Cancelled, tc.requeues, tc.wasted, tc.canceled)
			}
		})
	}
}

// TestReportedRunIsTheCases: the policy learns the run time a result
// reports, the cases' wall times — the compile step is not in it.
func TestReportedRunIsTheCases(t *testing.T) {
	tests := []struct {
		name          string
		speed         float64
		size, compile float64
		want          time.Duration
	}{
		{"compile excluded", 1, 3, 1, 2 * time.Second},
		{"at the judge's speed", 2, 3, 1, time.Second},
		{"compile error: no cases ran", 1, 0.5, 0.5, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, pol := handmade(t, []JudgeSpec{{ID: "a", Cores: 1, Speed: tc.speed}}, []Job{{Arrival: 0.5, Size: tc.size, Compile: tc.compile}}, nil)
			if len(pol.runs) != 1 || (pol.runs[0]-tc.want).Abs() > time.Millisecond {
				t.Fatalf("reported runs %v, want [%v]", pol.runs, tc.want)
			}
		})
	}
}

// TestDecisionLatency: a pass decides at its start and places at its end;
// what arrives meanwhile waits for the next pass.
func TestDecisionLatency(t *testing.T) {
	tests := []struct {
		name     string
		latency  float64
		cost     float64
		wantWait []float64 // per job, in arrival order
	}{
		{"instantaneous", -1, -1, []float64{0, 0}},
		{"a pass of 0.5 s", 0.5, -1, []float64{0.5, 0.9}}, // the second arrives mid-pass: next pass at 1.0, placed at 1.5
		{"plus a cost per decision", 0.5, 0.1, []float64{0.6, 1.1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := handmade(t, []JudgeSpec{{ID: "a", Cores: 4, Speed: 1}},
				[]Job{{Arrival: 0.5, Size: 1}, {Arrival: 0.6, Size: 1}}, func(c *Config) {
					c.PassLatency, c.DecisionCost = tc.latency, tc.cost
				})
			sum := tc.wantWait[0] + tc.wantWait[1]
			if _, hi := two(r.Wait); math.Abs(r.Wait.Mean*2-sum) > 1e-6 || math.Abs(hi-max(tc.wantWait[0], tc.wantWait[1])) > 1e-6 {
				t.Fatalf("waits %+v, want %v", r.Wait, tc.wantWait)
			}
		})
	}
}

// TestSeveralHubs: judges split over the hubs (judge i on hub i mod
// Hubs); each hub places only on its own judges; two hubs deciding the
// same task in overlapping passes place it once (the second lease fails).
func TestSeveralHubs(t *testing.T) {
	cluster := []JudgeSpec{{ID: "a", Cores: 1, Speed: 1}, {ID: "b", Cores: 1, Speed: 1}}
	t.Run("one task, two hubs, overlapping passes", func(t *testing.T) {
		r, _ := handmade(t, cluster, []Job{{Arrival: 0.5, Size: 1}}, func(c *Config) {
			c.Hubs, c.PassLatency = 2, 0.01
		})
		if r.Jobs != 1 || r.LeaseConflicts != 1 || r.Wasted != 0 {
			t.Fatalf("jobs %d conflicts %d wasted %d", r.Jobs, r.LeaseConflicts, r.Wasted)
		}
	})
	t.Run("each hub fills its own judges", func(t *testing.T) {
		r, _ := handmade(t, cluster, []Job{{Arrival: 0.5, Size: 2}, {Arrival: 0.5, Size: 2}}, func(c *Config) {
			c.Hubs = 2
		})
		// One hub alone would place both on its one judge in turn (TTV 2
		// and 4); two hubs place one each.
		if _, hi := two(r.TTV); r.Jobs != 2 || math.Abs(hi-2) > 0.01 {
			t.Fatalf("jobs %d TTV %+v", r.Jobs, r.TTV)
		}
	})
}

// TestScenarioFileHubAndLanguages: a file's hub section and judge
// languages reach the run's config, and a task runs only on a judge of
// its language.
func TestScenarioFileHubAndLanguages(t *testing.T) {
	const file = `{"name": "x", "hub": {"hubs": 2, "pass_latency_s": 0, "decision_cost_s": 0.001},
  "cluster": {"judges": [{"id": "c", "slots": 2, "speed": 1, "languages": ["cpp"]}, {"id": "p", "slots": 2, "speed": 1, "languages": ["py3"]}]},
  "workload": {"languages": [{"name": "cpp", "share": 1}, {"name": "py3", "share": 1}]}}`
	sc, err := ParseScenario([]byte(file), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Hubs != 2 || sc.PassLatency != -1 || sc.DecisionCost != 0.001 {
		t.Fatalf("hub settings %d %v %v", sc.Hubs, sc.PassLatency, sc.DecisionCost)
	}
	if got := sc.Cluster[1].Languages; len(got) != 1 || got[0] != "py3" {
		t.Fatalf("languages %v", got)
	}
	tl := Timeline{Warmup: 10, Measured: 60, DisturbAt: 30}
	for _, policy := range []string{"default", "pull", "random", Ideal} {
		tr, cfg := ConfigFor(tl, sc, 0.5, 1, nil)
		if cfg.Hubs != 2 || cfg.PassLatency != -1 {
			t.Fatalf("config %+v", cfg)
		}
		cfg.Policy = policy
		trace := Generate(sc.workload(), tr, Capacity(sc.cluster()), 1)
		s, err := newSim(cfg, trace)
		if err != nil {
			t.Fatal(err)
		}
		wrong := 0
		for _, j := range s.judges {
			j := j
			check := func() {
				for _, a := range j.running {
					if !j.spec.speaks(s.language(a)) {
						wrong++
					}
				}
			}
			s.eng.At(20, check)
			s.eng.At(40, check)
		}
		s.run()
		if wrong > 0 || s.res.Jobs == 0 || s.res.Lost > 0 {
			t.Fatalf("%s: %d tasks on a judge without their language; %d jobs, %d lost", policy, wrong, s.res.Jobs, s.res.Lost)
		}
	}
}

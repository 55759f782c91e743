package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
)

// legacyScenarios are the built-in scenarios as they were written in Go
// before they became files: the files must give the same runs.
func legacyScenarios() map[string]struct {
	heartbeat float64
	set       func(tl Timeline, tr *Traffic, d *Disturbance)
} {
	const faultJudge = 2
	none := func(Timeline, *Traffic, *Disturbance) {}
	type legacy = struct {
		heartbeat float64
		set       func(tl Timeline, tr *Traffic, d *Disturbance)
	}
	return map[string]legacy{
		"steady": {3, none},
		"hb0.5":  {0.5, none},
		"hb10":   {10, none},
		"flash": {3, func(tl Timeline, tr *Traffic, _ *Disturbance) {
			tr.ContestProblems, tr.ContestAt, tr.ContestPeak, tr.ContestTau = 6, tl.DisturbAt, 2, 300
		}},
		"burst": {3, func(tl Timeline, tr *Traffic, _ *Disturbance) {
			tr.BurstRank, tr.BurstFactor, tr.BurstAt, tr.BurstLen = 8, 10, tl.DisturbAt, 300
		}},
		"drop": {3, func(tl Timeline, _ *Traffic, d *Disturbance) {
			*d = Disturbance{Kind: DisturbDrop, Judge: faultJudge, At: tl.DisturbAt, Length: 60, Factor: 0.5}
		}},
		"crash": {3, func(tl Timeline, _ *Traffic, d *Disturbance) {
			*d = Disturbance{Kind: DisturbCrash, Judge: faultJudge, At: tl.DisturbAt, Length: 120}
		}},
		"gray": {3, func(tl Timeline, _ *Traffic, d *Disturbance) {
			*d = Disturbance{Kind: DisturbGray, Judge: faultJudge, At: tl.DisturbAt, Length: 600, Factor: 0.2}
		}},
		"silent": {3, func(tl Timeline, _ *Traffic, d *Disturbance) {
			*d = Disturbance{Kind: DisturbSilent, Judge: faultJudge, At: tl.DisturbAt, Length: 120}
		}},
	}
}

// legacyConfigFor is ConfigFor as it was.
func legacyConfigFor(tl Timeline, heartbeat float64, set func(Timeline, *Traffic, *Disturbance), rho float64, seed uint64, cluster []JudgeSpec) (Traffic, Config) {
	end := tl.Warmup + tl.Measured
	tr := Traffic{Rho: rho, Start: 0, End: end}
	var d Disturbance
	set(tl, &tr, &d)
	if d.Kind != DisturbNone && d.At+d.Length > end {
		d.Length = end - d.At
	}
	cfg := Config{Seed: seed, Cluster: cluster, Heartbeat: heartbeat, Warmup: tl.Warmup, End: end, Disturbance: d, MeasureDecision: true}
	if d.Kind != DisturbNone || tr.BurstRank > 0 || tr.ContestProblems > 0 {
		cfg.RecoveryFrom = tl.DisturbAt
	}
	if tr.BurstRank > 0 {
		cfg.HotFrom, cfg.HotTo = tr.BurstAt, tr.BurstAt+tr.BurstLen
	}
	return tr, cfg
}

// TestBuiltinScenarioFilesMatchTheGoScenarios: every built-in file gives
// the traffic, the config and the trace the Go scenario gave, on the full
// and the quick timeline, and the same results on a short one.
func TestBuiltinScenarioFilesMatchTheGoScenarios(t *testing.T) {
	legacy := legacyScenarios()
	scs := Scenarios()
	if len(scs) != len(legacy) {
		t.Fatalf("%d built-in scenarios, want %d", len(scs), len(legacy))
	}
	for _, sc := range scs {
		old, ok := legacy[sc.Name]
		if !ok {
			t.Fatalf("built-in scenario %q is new", sc.Name)
		}
		for _, tl := range []Timeline{Full, Quick} {
			for _, rho := range []float64{0.5, 0.95} {
				wantTr, wantCfg := legacyConfigFor(tl, old.heartbeat, old.set, rho, 3, DefaultCluster())
				gotTr, gotCfg := ConfigFor(tl, sc, rho, 3, nil)
				wantCfg.defaults()
				gotCfg.defaults()
				if !reflect.DeepEqual(gotTr, wantTr) {
					t.Fatalf("%s %+v ρ %v: traffic\n%+v, want\n%+v", sc.Name, tl, rho, gotTr, wantTr)
				}
				if !reflect.DeepEqual(gotCfg, wantCfg) {
					t.Fatalf("%s %+v ρ %v: config\n%+v, want\n%+v", sc.Name, tl, rho, gotCfg, wantCfg)
				}
				if tl == Quick {
					got := Generate(sc.workload(), gotTr, Capacity(gotCfg.Cluster), 3)
					want := Generate(Workload{}, wantTr, Capacity(wantCfg.Cluster), 3)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s ρ %v: the traces differ", sc.Name, rho)
					}
				}
			}
		}
		// The same results on a short timeline, every kind of policy.
		tl := Timeline{Warmup: 30, Measured: 150, DisturbAt: 60}
		wantTr, wantCfg := legacyConfigFor(tl, old.heartbeat, old.set, 0.85, 2, DefaultCluster())
		gotTr, gotCfg := ConfigFor(tl, sc, 0.85, 2, nil)
		want := Generate(Workload{}, wantTr, Capacity(wantCfg.Cluster), 2)
		got := Generate(sc.workload(), gotTr, Capacity(gotCfg.Cluster), 2)
		for _, p := range []string{"default", "pull", Ideal, IdealWarmDrop, Bound} {
			wantCfg.Policy, gotCfg.Policy = p, p
			wantCfg.MeasureDecision, gotCfg.MeasureDecision = false, false
			a, err := Run(wantCfg, want)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Run(gotCfg, got)
			if err != nil {
				t.Fatal(err)
			}
			// %+v: NaN fields (Recovery, DecisionNs) compare equal.
			if ga, gb := fmt.Sprintf("%+v", a), fmt.Sprintf("%+v", b); ga != gb {
				t.Fatalf("%s %s: results differ:\n%s\n%s", sc.Name, p, gb, ga)
			}
		}
	}
}

// TestScenarioFileErrors: a bad file is refused with an error naming the
// field.
func TestScenarioFileErrors(t *testing.T) {
	steady, err := BuiltinScenarioFile("steady")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, field, msg string
	}{
		{"not json", `{"name": `, "", "not JSON"},
		{"not an object", `[1]`, "", "want a JSON object"},
		{"trailing data", `{"name": "x"} {}`, "", "data after"},
		{"no name", `{}`, "name", "non-empty"},
		{"name with a comma", `{"name": "a,b"}`, "name", "commas"},
		{"unknown field", `{"name": "x", "heartbeat": 3}`, "heartbeat", "unknown field"},
		{"case matters", `{"name": "x", "Title": "t"}`, "Title", "unknown field"},
		{"nested unknown", `{"name": "x", "cluster": {"judges": [{"id": "a", "slots": 1, "speed": 1, "cores": 2}]}}`, "cluster.judges[0].cores", "unknown field"},
		{"wrong type", `{"name": "x", "heartbeat_s": "3"}`, "heartbeat_s", `want a number, got the string "3"`},
		{"int not float", `{"name": "x", "cluster": {"judges": [{"id": "a", "slots": 1.5, "speed": 1}]}}`, "cluster.judges[0].slots", "want an integer"},
		{"no judges", `{"name": "x", "cluster": {"judges": []}}`, "cluster.judges", "at least one"},
		{"zero speed", `{"name": "x", "cluster": {"judges": [{"id": "a", "slots": 1, "speed": 0}]}}`, "cluster.judges[0].speed", "want > 0"},
		{"duplicate judge", `{"name": "x", "cluster": {"judges": [{"id": "a", "slots": 1, "speed": 1}, {"id": "a", "slots": 1, "speed": 1}]}}`, "cluster.judges[1].id", "used twice"},
		{"leave before join", `{"name": "x", "cluster": {"judges": [{"id": "a", "slots": 1, "speed": 1, "join_s": 10, "leave_s": 5}]}}`, "cluster.judges[0].leave_s", "after join_s"},
		{"bad sizes", `{"name": "x", "workload": {"sizes": "big"}}`, "workload.sizes", "heavy"},
		{"cases reversed", `{"name": "x", "workload": {"cases": {"min": 5, "max": 2}}}`, "workload.cases.max", "want 5 to"},
		{"share above 1", `{"name": "x", "workload": {"tle_share": 1.5}}`, "workload.tle_share", "[0, 1]"},
		{"tle share and verdicts", `{"name": "x", "workload": {"tle_share": 0.1, "verdicts": [{"verdict": "ok", "share": 1}]}}`, "workload.tle_share", "not with"},
		{"compile error that runs", `{"name": "x", "workload": {"verdicts": [{"verdict": "ce", "share": 1, "compile_error": true, "fails": true}]}}`, "workload.verdicts[0].compile_error", "runs nothing"},
		{"language twice", `{"name": "x", "workload": {"languages": [{"name": "c", "share": 1}, {"name": "c", "share": 1}]}}`, "workload.languages[1].name", "used once"},
		{"bad process", `{"name": "x", "arrivals": {"process": "bursty"}}`, "arrivals.process", "poisson"},
		{"burst rank", `{"name": "x", "arrivals": {"burst": {"problem_rank": 401, "factor": 2, "at": 0, "length_s": 1}}}`, "arrivals.burst.problem_rank", "want 1 to 400"},
		{"burst without at", `{"name": "x", "arrivals": {"burst": {"problem_rank": 1, "factor": 2, "length_s": 1}}}`, "arrivals.burst.at", "missing"},
		{"bad instant", `{"name": "x", "arrivals": {"burst": {"problem_rank": 1, "factor": 2, "at": "later", "length_s": 1}}}`, "arrivals.burst.at", "event"},
		{"negative instant", `{"name": "x", "arrivals": {"burst": {"problem_rank": 1, "factor": 2, "at": -1, "length_s": 1}}}`, "arrivals.burst.at", "≥ 0"},
		{"trace class", `{"name": "x", "arrivals": {"trace": {"jobs": [{"at_s": 1, "problem": 0, "class": "vip"}]}}}`, "arrivals.trace.jobs[0].class", "practice"},
		{"trace problem", `{"name": "x", "arrivals": {"trace": {"jobs": [{"at_s": 1, "problem": 400}]}}}`, "arrivals.trace.jobs[0].problem", "want 0 to 399"},
		{"fault kind", `{"name": "x", "faults": [{"kind": "flood", "judge": "j2", "at": 0, "length_s": 1}]}`, "faults[0].kind", "crash"},
		{"fault judge", `{"name": "x", "faults": [{"kind": "crash", "judge": "j9", "at": 0, "length_s": 1}]}`, "faults[0].judge", "no such judge"},
		{"fault factor", `{"name": "x", "faults": [{"kind": "gray", "judge": "j2", "at": 0, "length_s": 1}]}`, "faults[0].factor", "want > 0"},
		{"crash factor", `{"name": "x", "faults": [{"kind": "crash", "judge": "j2", "at": 0, "length_s": 1, "factor": 2}]}`, "faults[0].factor", "no factor"},
		{"overlap", `{"name": "x", "faults": [{"kind": "crash", "judge": "j2", "at": "event", "length_s": 10}, {"kind": "silent", "judge": "j2", "at": "event+5", "length_s": 10}]}`, "faults[1]", "overlaps faults[0]"},
		{"too many hubs", `{"name": "x", "hub": {"hubs": 65}}`, "hub.hubs", "want 0 to 64"},
		{"negative pass latency", `{"name": "x", "hub": {"pass_latency_s": -1}}`, "hub.pass_latency_s", "≥ 0"},
		{"negative decision cost", `{"name": "x", "hub": {"decision_cost_s": -0.1}}`, "hub.decision_cost_s", "≥ 0"},
		{"reserve of every slot", `{"name": "x", "hub": {"reserve": 1}}`, "hub.reserve", "below 1"},
		{"negative reserve", `{"name": "x", "hub": {"reserve": -0.5}}`, "hub.reserve", "at least 0"},
		{"empty judge language", `{"name": "x", "cluster": {"judges": [{"id": "a", "slots": 1, "speed": 1, "languages": ["cpp", " "]}]}}`, "cluster.judges[0].languages[1]", "empty"},
		{"trace compile above work", `{"name": "x", "arrivals": {"trace": {"jobs": [{"at_s": 1, "problem": 0, "work_s": 1, "compile_s": 2}]}}}`, "arrivals.trace.jobs[0].compile_s", "at most work_s"},
		{"trace negative case", `{"name": "x", "arrivals": {"trace": {"jobs": [{"at_s": 1, "problem": 0, "cases_s": [0.1, -0.2]}]}}}`, "arrivals.trace.jobs[0].cases_s[1]", "≥ 0"},
		{"trace cases above work", `{"name": "x", "arrivals": {"trace": {"jobs": [{"at_s": 1, "problem": 0, "work_s": 1, "compile_s": 0.5, "cases_s": [0.3, 0.3]}]}}}`, "arrivals.trace.jobs[0].cases_s", "more than work_s"},
		{"trace verdict", `{"name": "x", "arrivals": {"trace": {"jobs": [{"at_s": 1, "problem": 0, "work_s": 1, "verdict": "judging"}]}}}`, "arrivals.trace.jobs[0].verdict", "not a final verdict"},
		{"trace judge", `{"name": "x", "arrivals": {"trace": {"jobs": [{"at_s": 1, "problem": 0, "work_s": 1, "judge": "j99"}]}}}`, "arrivals.trace.jobs[0].judge", "no such judge"},
		{"trace negative recorded ttv", `{"name": "x", "arrivals": {"trace": {"jobs": [{"at_s": 1, "problem": 0, "work_s": 1, "recorded_ttv_s": -1}]}}}`, "arrivals.trace.jobs[0].recorded_ttv_s", "≥ 0"},
		{"builtin with a typo", strings.Replace(string(steady), `"speed"`, `"sped"`, 1), "cluster.judges[0].sped", "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScenario([]byte(tc.file), "t.json")
			var fe *FieldError
			if !errors.As(err, &fe) || !errors.Is(err, ErrScenario) {
				t.Fatalf("error %v (%T), want a *FieldError", err, err)
			}
			if fe.Field != tc.field || !strings.Contains(fe.Msg, tc.msg) || !strings.HasPrefix(err.Error(), "scenario t.json: ") {
				t.Fatalf("error %q (field %q), want field %q and %q", err, fe.Field, tc.field, tc.msg)
			}
		})
	}
}

// TestScenarioFileFeatures: what a file asks for reaches the trace and
// the config.
func TestScenarioFileFeatures(t *testing.T) {
	const file = `{
  "name": "mine", "heartbeat_s": 2,
  "cluster": {"cache_problems": 20, "judges": [
    {"id": "a", "slots": 4, "speed": 1, "cache_problems": 5},
    {"id": "b", "slots": 2, "speed": 2, "join_s": 30, "leave_s": 200}]},
  "workload": {"problems": 50, "icpc_early_stop": true,
    "languages": [{"name": "cpp", "share": 3, "compile_s": 0.5}, {"name": "python", "share": 1, "compile_s": 0, "run_factor": 4}],
    "verdicts": [{"verdict": "accepted", "share": 6}, {"verdict": "wrong_answer", "share": 3, "fails": true},
      {"verdict": "time_limit", "share": 1, "time_limit": true}, {"verdict": "compile_error", "share": 1, "compile_error": true, "compile_s": {"median": 0.2, "sigma": 0}}]},
  "arrivals": {"custom_share": 0.1, "rejudges": [{"at": "event+10", "problem_rank": 1, "count": 40, "over_s": 4}]},
  "faults": [{"kind": "gray", "judge": "a", "at": 100, "length_s": 50, "factor": 0.5}, {"kind": "crash", "judge": "b", "at": "event", "length_s": 20}]
}`
	sc, err := ParseScenario([]byte(file), "mine.json")
	if err != nil {
		t.Fatal(err)
	}
	tl := Timeline{Warmup: 30, Measured: 270, DisturbAt: 120}
	tr, cfg := ConfigFor(tl, sc, 0.7, 1, nil)
	if cfg.Heartbeat != 2 || cfg.CacheCapacity != 20 || len(cfg.Cluster) != 2 || cfg.Cluster[0].Cache != 5 || cfg.Cluster[1].Join != 30 {
		t.Fatalf("config %+v", cfg)
	}
	if len(cfg.Faults) != 2 || cfg.Faults[0].At != 100 || cfg.Faults[1].At != 120 || cfg.Faults[1].Judge != 1 {
		t.Fatalf("faults %+v", cfg.Faults)
	}
	if len(tr.Rejudges) != 1 || tr.Rejudges[0].At != 130 {
		t.Fatalf("rejudges %+v", tr.Rejudges)
	}
	trace := Generate(sc.workload(), tr, Capacity(cfg.Cluster), 1)
	count := map[string]int{}
	for _, j := range trace.Jobs {
		if j.Meta == nil || j.Meta.SubmissionID != int64(j.ID+1) {
			t.Fatalf("job %+v: no meta", j)
		}
		count[j.Meta.Language]++
		switch j.Meta.Priority {
		case 0:
			count["rejudge"]++
		case 3:
			count["custom"]++
			if trace.Problems[j.Problem].Hash != "" {
				t.Fatalf("custom run %+v with test data", j)
			}
		}
	}
	if count["rejudge"] != 40 || count["custom"] == 0 || count["python"] == 0 || count["cpp"] <= count["python"] {
		t.Fatalf("counts %v", count)
	}
	for _, p := range []string{"default", Ideal} {
		cfg.Policy = p
		r, err := Run(cfg, trace)
		if err != nil {
			t.Fatal(err)
		}
		if r.Jobs == 0 || r.Unfinished != 0 {
			t.Fatalf("%s: %d jobs, %d unfinished", p, r.Jobs, r.Unfinished)
		}
	}
}

// TestICPCStopShortensFailingRuns: the early stop cuts a failing
// verdict's run time, not an accepted one's.
func TestICPCStopShortensFailingRuns(t *testing.T) {
	p := Problem{Cases: 20, CaseTime: 0.1}
	mean := func(w Workload) float64 {
		rng := rand.New(rand.NewPCG(1, 2))
		s := 0.0
		for range 4000 {
			x, _ := w.draw(rng, &p)
			s += x
		}
		return s / 4000
	}
	base := DefaultWorkload()
	for _, tc := range []struct {
		name    string
		v       Verdict
		shorter bool
	}{
		{"accepted", Verdict{Name: "ok", Share: 1}, false},
		{"wrong answer", Verdict{Name: "wa", Share: 1, Fails: true}, true},
		{"time limit", Verdict{Name: "tle", Share: 1, TimeLimit: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := base
			w.Verdicts = []Verdict{tc.v}
			full := mean(w)
			w.ICPCStop = true
			stop := mean(w)
			if tc.shorter != (stop < 0.8*full) || stop > full*1.0001 {
				t.Fatalf("mean size %.3f with the early stop, %.3f without", stop, full)
			}
		})
	}
}

// checkScenarioBytes is the decoder's property: it never panics, and what
// it accepts is a usable scenario whose errors are FieldErrors.
func checkScenarioBytes(t *testing.T, b []byte) {
	sc, err := ParseScenario(b, "fuzz.json")
	if err != nil {
		var fe *FieldError
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "scenario fuzz.json") {
			t.Fatalf("error %v is not a FieldError", err)
		}
		return
	}
	if sc.Name == "" || sc.Heartbeat <= 0 || sc.Workload == nil {
		t.Fatalf("accepted %q as %+v", b, sc)
	}
	for _, j := range sc.cluster() {
		if j.Cores < 1 || !(j.Speed > 0) {
			t.Fatalf("accepted judge %+v", j)
		}
	}
	for _, f := range sc.Faults {
		if f.Judge < 0 || f.Judge >= len(sc.cluster()) || !(f.Length > 0) {
			t.Fatalf("accepted fault %+v", f)
		}
	}
}

func scenarioSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, name := range builtinOrder {
		b, err := BuiltinScenarioFile(name)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return append(seeds, []byte(`{"name":"x","arrivals":{"trace":{"jobs":[{"at_s":1,"problem":0,"work_s":2,"class":"contest"}]}}}`),
		[]byte(`{"name":"x","faults":[{"kind":"silent","judge":"j2","at":"event-5","length_s":1e3}]}`))
}

func FuzzParseScenario(f *testing.F) {
	for _, b := range scenarioSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(checkScenarioBytes)
}

// TestScenarioDecoderMutations runs the fuzz property on deterministic
// mutations of the seeds (byte flips, cuts, splices), so every test run
// fuzzes a little.
func TestScenarioDecoderMutations(t *testing.T) {
	seeds := scenarioSeeds(t)
	rng := rand.New(rand.NewPCG(18, 3))
	alphabet := []byte(`{}[]:,"0123456789.-+eE truefalsnl\`)
	for i := range 3000 {
		b := []byte(string(seeds[i%len(seeds)]))
		for range 1 + rng.IntN(4) {
			k := rng.IntN(len(b))
			switch rng.IntN(4) {
			case 0:
				b[k] = alphabet[rng.IntN(len(alphabet))]
			case 1:
				b = b[:k]
			case 2:
				b = append(b[:k:k], b[min(len(b), k+1+rng.IntN(20)):]...)
			case 3:
				o := seeds[rng.IntN(len(seeds))]
				s := rng.IntN(len(o))
				b = append(b[:k:k], append(o[s:min(len(o), s+1+rng.IntN(40))], b[k:]...)...)
			}
			if len(b) == 0 {
				b = []byte("{")
			}
		}
		checkScenarioBytes(t, b)
	}
}

// TestDocScenarioExampleRuns: the worked example of docs/scheduling.md
// parses and runs under the grid.
func TestDocScenarioExampleRuns(t *testing.T) {
	sc, err := ParseScenario([]byte(docScenarioExample), "contest4.json")
	if err != nil {
		t.Fatal(err)
	}
	e := &Experiment{Timeline: Timeline{Warmup: 60, Measured: 360, DisturbAt: 150}, Scenarios: []Scenario{sc},
		Loads: []float64{0.5}, Policies: []string{Bound, IdealWarm, "default", "pull"}, Seeds: 1}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range e.Policies {
		r := res.Cell("contest4", 0.5, p).Runs[0]
		t.Logf("%s: %d jobs, realised ρ %.3f, mean time to verdict %.2f s", p, r.Jobs, r.Rho, r.TTV.Mean)
		if r.Jobs == 0 || r.Unfinished != 0 || !(r.Rho > 0.5) {
			t.Fatalf("%s: %d jobs, %d unfinished, realised ρ %.3f (the contest and the rejudge come on top of 0.5)", p, r.Jobs, r.Unfinished, r.Rho)
		}
	}
	if hs := res.Headlines(); len(hs) != 1 || hs[0].RhoReal.Mean != res.Cell("contest4", 0.5, "default").Runs[0].Rho {
		t.Fatalf("headlines %+v", hs)
	}
}

// TestDocNamesEveryScenarioField: every field of the file format is in
// the doc's table.
func TestDocNamesEveryScenarioField(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] || ty == reflect.TypeFor[instantFile]() {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == "" {
				continue
			}
			if !strings.Contains(docScenarios, tag) {
				t.Errorf("field %s (%s.%s) is not documented", tag, ty.Name(), f.Name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[scenarioFile]())
}

func TestDocCarriesTheScenarioSection(t *testing.T) {
	b, err := os.ReadFile("../../../../docs/scheduling.md")
	if err != nil {
		t.Fatal("docs/scheduling.md beside the source:", err)
	}
	if !strings.Contains(string(b), docScenarios) {
		t.Fatal("docs/scheduling.md's \"Scenario files\" differs from docScenarios: rerun the lab or copy it")
	}
}

// TestScenarioReserve: hub.reserve reaches the scenario as Config takes
// it (absent: the hub's default; 0: none).
func TestScenarioReserve(t *testing.T) {
	for _, tc := range []struct {
		file string
		want float64
	}{
		{`{"name": "x"}`, 0},
		{`{"name": "x", "hub": {"reserve": 0}}`, -1},
		{`{"name": "x", "hub": {"reserve": 0.25}}`, 0.25},
	} {
		sc, err := ParseScenario([]byte(tc.file), "t.json")
		if err != nil || sc.Reserve != tc.want {
			t.Errorf("%s: reserve %v, %v; want %v", tc.file, sc.Reserve, err, tc.want)
		}
	}
}

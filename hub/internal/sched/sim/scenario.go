package sim

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/protocol"
)

// A scenario file (JSON, documented in docs/scheduling.md, "Scenario
// files") describes the cluster, the workload, the arrivals and the faults
// of one scenario. The built-in scenarios are such files (scenarios/*.json,
// embedded); ParseScenario reads one strictly: unknown fields, wrong types
// and out-of-range values are errors that name the field.

//go:embed scenarios/*.json
var builtinFiles embed.FS

// builtinOrder is the report's order of the built-in scenarios.
var builtinOrder = []string{"steady", "hb0.5", "hb10", "flash", "burst", "drop", "crash", "gray", "silent"}

// Scenarios returns the built-in scenarios, read from their embedded
// files.
func Scenarios() []Scenario {
	var scs []Scenario
	for _, name := range builtinOrder {
		file := "scenarios/" + name + ".json"
		b, err := builtinFiles.ReadFile(file)
		if err != nil {
			panic(err)
		}
		sc, err := ParseScenario(b, "builtin:"+path.Base(file))
		if err != nil {
			panic(err)
		}
		scs = append(scs, sc)
	}
	return scs
}

// BuiltinScenarioFile returns the embedded file of a built-in scenario.
func BuiltinScenarioFile(name string) ([]byte, error) {
	b, err := builtinFiles.ReadFile("scenarios/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("sim: no built-in scenario %q (have %s): %w", name, strings.Join(builtinOrder, ", "), err)
	}
	return b, nil
}

// Scenario is one row of the experiment: a cluster, a workload, a
// heartbeat interval, the arrivals and the faults. Times of the arrivals'
// events and of the faults are Instants, placed on a Timeline.
type Scenario struct {
	Name, Title string
	Heartbeat   float64
	// Cluster, if set, is the scenario's cluster; CacheCapacity, if > 0,
	// how many problems its judges keep (unless a judge says otherwise).
	// Experiment.Cluster, if set, overrides Cluster.
	Cluster       []JudgeSpec
	CacheCapacity int
	// Workload, if set, is the scenario's workload; Experiment.Workload,
	// if set, overrides it.
	Workload *Workload
	Arrivals Arrivals
	Faults   []Fault
	// Hubs, PassLatency, DecisionCost and Reserve are Config's (0: the
	// defaults; a negative latency, cost or reserve: none).
	Hubs                               int
	PassLatency, DecisionCost, Reserve float64
	// Source names where the scenario was read from.
	Source string
}

// Instant is a time in a scenario: Offset seconds from the start of the
// run, or, with FromEvent, from the timeline's event moment
// (Timeline.DisturbAt), so one file serves the full and the quick run.
type Instant struct {
	FromEvent bool
	Offset    float64
}

// At places the instant on tl.
func (i Instant) At(tl Timeline) float64 {
	if i.FromEvent {
		return tl.DisturbAt + i.Offset
	}
	return i.Offset
}

// Arrivals are a scenario's traffic beyond the practice Poisson stream
// (whose rate the grid's load sets).
type Arrivals struct {
	Periodic    bool
	CustomShare float64
	Classes     bool
	Burst       *Burst
	Contest     *Contest
	Rejudges    []RejudgeAt
	// Replay replaces the practice arrivals (see Traffic.Replay).
	Replay      []TraceJob
	ScaleToLoad bool
}

// Burst multiplies the arrival rate of the problem of popularity rank
// Rank by Factor for Length seconds from At.
type Burst struct {
	Rank           int
	Factor, Length float64
	At             Instant
}

// Contest: Problems new problems (no judge has their data) from At, their
// submissions at Peak × the practice rate decaying with time constant Tau
// (s), until At + 4 Tau.
type Contest struct {
	Problems  int
	Peak, Tau float64
	At        Instant
}

// RejudgeAt is a Rejudge at an Instant.
type RejudgeAt struct {
	At          Instant
	Over        float64
	Rank, Count int
}

// Fault is a Disturbance at an Instant (Disturbance.At is ignored).
type Fault struct {
	Disturbance
	At Instant
}

// resolve places the scenario's arrivals and faults on tl.
func (sc Scenario) resolve(tl Timeline, tr *Traffic) []Disturbance {
	a := sc.Arrivals
	tr.Periodic, tr.CustomShare, tr.Classes = a.Periodic, a.CustomShare, a.Classes
	tr.Replay, tr.ScaleToLoad = a.Replay, a.ScaleToLoad
	if b := a.Burst; b != nil {
		tr.BurstRank, tr.BurstFactor, tr.BurstAt, tr.BurstLen = b.Rank, b.Factor, b.At.At(tl), b.Length
	}
	if c := a.Contest; c != nil {
		tr.ContestProblems, tr.ContestAt, tr.ContestPeak, tr.ContestTau = c.Problems, c.At.At(tl), c.Peak, c.Tau
	}
	for _, r := range a.Rejudges {
		tr.Rejudges = append(tr.Rejudges, Rejudge{At: r.At.At(tl), Over: r.Over, Rank: r.Rank, Count: r.Count})
	}
	var ds []Disturbance
	for _, f := range sc.Faults {
		d := f.Disturbance
		d.At = f.At.At(tl)
		ds = append(ds, d)
	}
	return ds
}

// Silent reports whether the scenario silences a judge (where IdealDrop
// and IdealWarmDrop differ from Ideal and IdealWarm).
func (sc Scenario) Silent() bool {
	return slices.ContainsFunc(sc.Faults, func(f Fault) bool { return f.Kind == DisturbSilent })
}

// ReadScenario reads a scenario file from r; source names it in errors.
func ReadScenario(r io.Reader, source string) (Scenario, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return Scenario{}, fmt.Errorf("scenario %s: %w", source, err)
	}
	return ParseScenario(b, source)
}

// ErrScenario wraps every error of ParseScenario.
var ErrScenario = errors.New("bad scenario file")

// FieldError is a scenario file error at a field (a JSON path such as
// cluster.judges[2].speed).
type FieldError struct {
	Source, Field, Msg string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("scenario %s: %s", e.Source, e.Msg)
	}
	return fmt.Sprintf("scenario %s: %s: %s", e.Source, e.Field, e.Msg)
}

// Unwrap makes every FieldError an ErrScenario.
func (e *FieldError) Unwrap() error { return ErrScenario }

// ParseScenario decodes and checks a scenario file.
func ParseScenario(b []byte, source string) (Scenario, error) {
	fail := func(field, format string, args ...any) (Scenario, error) {
		return Scenario{}, &FieldError{Source: source, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return fail("", "not JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail("", "data after the scenario object")
	}
	if _, ok := raw.(map[string]any); !ok {
		return fail("", "want a JSON object, got %s", jsonKind(raw))
	}
	if fe := strictCheck(raw, reflect.TypeFor[scenarioFile](), ""); fe != nil {
		fe.Source = source
		return Scenario{}, fe
	}
	var f scenarioFile
	dec = json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil { // the check above lets through only what decodes
		return fail("", "%v", err)
	}
	sc, fe := f.scenario()
	if fe != nil {
		fe.Source = source
		return Scenario{}, fe
	}
	sc.Source = source
	return sc, nil
}

// The file's types. Every field is optional unless scenario() says
// otherwise; absent ones take the defaults of DefaultCluster,
// DefaultWorkload and Config.
type scenarioFile struct {
	Name      string        `json:"name"`
	Title     string        `json:"title"`
	Heartbeat *float64      `json:"heartbeat_s"`
	Hub       *hubFile      `json:"hub"`
	Cluster   *clusterFile  `json:"cluster"`
	Workload  *workloadFile `json:"workload"`
	Arrivals  *arrivalsFile `json:"arrivals"`
	Faults    []faultFile   `json:"faults"`
}

type hubFile struct {
	Hubs         int      `json:"hubs"`
	PassLatency  *float64 `json:"pass_latency_s"`
	DecisionCost *float64 `json:"decision_cost_s"`
	Reserve      *float64 `json:"reserve"`
}

type clusterFile struct {
	CacheProblems int         `json:"cache_problems"`
	Judges        []judgeFile `json:"judges"`
}

type judgeFile struct {
	ID            string   `json:"id"`
	Slots         int      `json:"slots"`
	Speed         float64  `json:"speed"`
	CacheProblems int      `json:"cache_problems"`
	Join          float64  `json:"join_s"`
	Leave         float64  `json:"leave_s"`
	Languages     []string `json:"languages"`
}

type lognormalFile struct {
	Median float64  `json:"median"`
	Sigma  *float64 `json:"sigma"`
}

type workloadFile struct {
	Sizes           string         `json:"sizes"`
	Problems        *int           `json:"problems"`
	Zipf            *float64       `json:"popularity_zipf"`
	Cases           *rangeFile     `json:"cases"`
	CaseTime        *lognormalFile `json:"case_time_s"`
	SubmissionSigma *float64       `json:"submission_sigma"`
	TimeLimit       *float64       `json:"time_limit_s"`
	Compile         *float64       `json:"compile_s"`
	TLEShare        *float64       `json:"tle_share"`
	TestData        *testDataFile  `json:"test_data"`
	Languages       []languageFile `json:"languages"`
	Verdicts        []verdictFile  `json:"verdicts"`
	ICPCStop        bool           `json:"icpc_early_stop"`
}

type rangeFile struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

type testDataFile struct {
	MedianMB      *float64 `json:"median_mb"`
	Sigma         *float64 `json:"sigma"`
	DownloadFixed *float64 `json:"download_fixed_s"`
	DownloadMBps  *float64 `json:"download_mbps"`
}

type languageFile struct {
	Name      string   `json:"name"`
	Share     float64  `json:"share"`
	Compile   *float64 `json:"compile_s"`
	RunFactor *float64 `json:"run_factor"`
}

type verdictFile struct {
	Verdict      string         `json:"verdict"`
	Share        float64        `json:"share"`
	Compile      *lognormalFile `json:"compile_s"`
	RunFactor    *lognormalFile `json:"run_factor"`
	Fails        bool           `json:"fails"`
	TimeLimit    bool           `json:"time_limit"`
	CompileError bool           `json:"compile_error"`
}

type arrivalsFile struct {
	Process     string        `json:"process"`
	CustomShare float64       `json:"custom_share"`
	Classes     bool          `json:"classes"`
	Burst       *burstFile    `json:"burst"`
	Contest     *contestFile  `json:"contest"`
	Rejudges    []rejudgeFile `json:"rejudges"`
	Trace       *traceFile    `json:"trace"`
}

type burstFile struct {
	ProblemRank int         `json:"problem_rank"`
	Factor      float64     `json:"factor"`
	At          instantFile `json:"at"`
	Length      float64     `json:"length_s"`
}

type contestFile struct {
	Problems int         `json:"problems"`
	At       instantFile `json:"at"`
	Peak     float64     `json:"peak"`
	Tau      float64     `json:"tau_s"`
}

type rejudgeFile struct {
	At          instantFile `json:"at"`
	ProblemRank int         `json:"problem_rank"`
	Count       int         `json:"count"`
	Over        float64     `json:"over_s"`
}

type traceFile struct {
	ScaleToLoad *bool          `json:"scale_to_load"`
	Jobs        []traceJobFile `json:"jobs"`
}

type traceJobFile struct {
	At       float64   `json:"at_s"`
	Problem  int       `json:"problem"`
	Work     float64   `json:"work_s"`
	Compile  float64   `json:"compile_s"`
	Language string    `json:"language"`
	Class    string    `json:"class"`
	Cases    []float64 `json:"cases_s"`
	Verdict  string    `json:"verdict"`
	Judge    string    `json:"judge"`
	TTV      float64   `json:"recorded_ttv_s"`
}

type faultFile struct {
	Kind   string      `json:"kind"`
	Judge  string      `json:"judge"`
	At     instantFile `json:"at"`
	Length float64     `json:"length_s"`
	Factor float64     `json:"factor"`
}

// instantFile is an Instant in a file: a number of seconds from the start,
// or "event", "event+N", "event-N" (N seconds).
type instantFile struct {
	Instant
	set bool
}

func (i *instantFile) UnmarshalJSON(b []byte) error {
	v, err := parseInstant(b)
	if err != nil {
		return err
	}
	*i = instantFile{Instant: v, set: true}
	return nil
}

func parseInstant(b []byte) (Instant, error) {
	var x float64
	if err := json.Unmarshal(b, &x); err == nil {
		if x < 0 || math.IsInf(x, 0) {
			return Instant{}, fmt.Errorf("%v s: want ≥ 0", x)
		}
		return Instant{Offset: x}, nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return Instant{}, fmt.Errorf(`want seconds or "event", "event+N", "event-N"`)
	}
	rest, ok := strings.CutPrefix(s, "event")
	if !ok {
		return Instant{}, fmt.Errorf(`%q: want seconds or "event", "event+N", "event-N"`, s)
	}
	if rest == "" {
		return Instant{FromEvent: true}, nil
	}
	if rest[0] != '+' && rest[0] != '-' {
		return Instant{}, fmt.Errorf(`%q: want "event+N" or "event-N"`, s)
	}
	off, err := strconv.ParseFloat(rest, 64)
	if err != nil || math.IsInf(off, 0) || math.IsNaN(off) {
		return Instant{}, fmt.Errorf(`%q: N is not a number of seconds`, s)
	}
	return Instant{FromEvent: true, Offset: off}, nil
}

var faultKinds = map[string]DisturbanceKind{"drop": DisturbDrop, "crash": DisturbCrash, "gray": DisturbGray, "silent": DisturbSilent}

// Limits that keep a file's run finite.
const (
	maxJudges, maxSlots, maxProblems, maxCases = 10000, 10000, 1_000_000, 100_000
	maxHubs                                    = 64
	maxRejudge                                 = 10_000_000
)

// scenario checks the file's values and builds the Scenario.
func (f *scenarioFile) scenario() (Scenario, *FieldError) {
	bad := func(field, format string, args ...any) *FieldError {
		return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	pos := func(field string, x float64) *FieldError {
		if !(x > 0) || math.IsInf(x, 0) {
			return bad(field, "%v: want > 0", x)
		}
		return nil
	}
	nonneg := func(field string, x float64) *FieldError {
		if !(x >= 0) || math.IsInf(x, 0) {
			return bad(field, "%v: want ≥ 0", x)
		}
		return nil
	}
	share := func(field string, x float64) *FieldError {
		if !(x >= 0 && x <= 1) {
			return bad(field, "%v: want a share in [0, 1]", x)
		}
		return nil
	}
	intIn := func(field string, x, lo, hi int) *FieldError {
		if x < lo || x > hi {
			return bad(field, "%d: want %d to %d", x, lo, hi)
		}
		return nil
	}
	first := func(errs ...*FieldError) *FieldError {
		for _, e := range errs {
			if e != nil {
				return e
			}
		}
		return nil
	}
	sc := Scenario{Name: f.Name, Title: f.Title, Heartbeat: 3}
	if strings.TrimSpace(f.Name) == "" || strings.ContainsAny(f.Name, " ,/\\\t\n") {
		return sc, bad("name", "%q: want a non-empty name without spaces, commas or slashes", f.Name)
	}
	if sc.Title == "" {
		sc.Title = sc.Name
	}
	if f.Heartbeat != nil {
		if e := pos("heartbeat_s", *f.Heartbeat); e != nil {
			return sc, e
		}
		sc.Heartbeat = *f.Heartbeat
	}
	if h := f.Hub; h != nil {
		if e := intIn("hub.hubs", h.Hubs, 0, maxHubs); e != nil {
			return sc, e
		}
		sc.Hubs = h.Hubs
		if h.PassLatency != nil {
			if e := nonneg("hub.pass_latency_s", *h.PassLatency); e != nil {
				return sc, e
			}
			sc.PassLatency = *h.PassLatency
			if sc.PassLatency == 0 {
				sc.PassLatency = -1 // instantaneous
			}
		}
		if h.DecisionCost != nil {
			if e := nonneg("hub.decision_cost_s", *h.DecisionCost); e != nil {
				return sc, e
			}
			sc.DecisionCost = *h.DecisionCost
			if sc.DecisionCost == 0 {
				sc.DecisionCost = -1
			}
		}
		if h.Reserve != nil {
			if err := (sched.Reserve{Share: *h.Reserve}).Validate(); err != nil {
				return sc, bad("hub.reserve", "%v", err)
			}
			sc.Reserve = *h.Reserve
			if sc.Reserve == 0 {
				sc.Reserve = -1 // none
			}
		}
	}

	// The cluster.
	ids := map[string]int{}
	cluster := DefaultCluster()
	if c := f.Cluster; c != nil {
		if e := intIn("cluster.cache_problems", c.CacheProblems, 0, maxProblems); e != nil {
			return sc, e
		}
		sc.CacheCapacity = c.CacheProblems
		if len(c.Judges) == 0 {
			return sc, bad("cluster.judges", "want at least one judge")
		}
		if len(c.Judges) > maxJudges {
			return sc, bad("cluster.judges", "%d judges: want at most %d", len(c.Judges), maxJudges)
		}
		cluster = nil
		for i, j := range c.Judges {
			at := fmt.Sprintf("cluster.judges[%d]", i)
			if j.ID == "" {
				return sc, bad(at+".id", "missing")
			}
			if _, dup := ids[j.ID]; dup {
				return sc, bad(at+".id", "%q used twice", j.ID)
			}
			ids[j.ID] = i
			if e := first(intIn(at+".slots", j.Slots, 1, maxSlots), pos(at+".speed", j.Speed),
				intIn(at+".cache_problems", j.CacheProblems, 0, maxProblems),
				nonneg(at+".join_s", j.Join), nonneg(at+".leave_s", j.Leave)); e != nil {
				return sc, e
			}
			if j.Leave > 0 && j.Leave <= j.Join {
				return sc, bad(at+".leave_s", "%v: want after join_s (%v)", j.Leave, j.Join)
			}
			for k, l := range j.Languages {
				if strings.TrimSpace(l) == "" {
					return sc, bad(fmt.Sprintf("%s.languages[%d]", at, k), "empty")
				}
			}
			cluster = append(cluster, JudgeSpec{ID: j.ID, Cores: j.Slots, Speed: j.Speed, Join: j.Join, Leave: j.Leave, Cache: j.CacheProblems,
				Languages: slices.Clone(j.Languages)})
		}
		sc.Cluster = cluster
	} else {
		for i, j := range cluster {
			ids[j.ID] = i
		}
	}

	// The workload, from DefaultWorkload.
	w := DefaultWorkload()
	if wf := f.Workload; wf != nil {
		switch wf.Sizes {
		case "", "heavy":
		case "exponential":
			w.Sizes, w.Problems = SizesExp, 1
		default:
			return sc, bad("workload.sizes", `%q: want "heavy" or "exponential"`, wf.Sizes)
		}
		if wf.Problems != nil {
			if e := intIn("workload.problems", *wf.Problems, 1, maxProblems); e != nil {
				return sc, e
			}
			w.Problems = *wf.Problems
		}
		if wf.Zipf != nil {
			if e := pos("workload.popularity_zipf", *wf.Zipf); e != nil {
				return sc, e
			}
			w.ZipfS = *wf.Zipf
		}
		if r := wf.Cases; r != nil {
			if e := first(intIn("workload.cases.min", r.Min, 1, maxCases), intIn("workload.cases.max", r.Max, r.Min, maxCases)); e != nil {
				return sc, e
			}
			w.CasesMin, w.CasesMax = r.Min, r.Max
		}
		if ct := wf.CaseTime; ct != nil {
			if e := pos("workload.case_time_s.median", ct.Median); e != nil {
				return sc, e
			}
			w.CaseMedian = ct.Median
			if ct.Sigma != nil {
				if e := nonneg("workload.case_time_s.sigma", *ct.Sigma); e != nil {
					return sc, e
				}
				w.CaseSigma = *ct.Sigma
			}
		}
		for _, x := range []struct {
			field string
			v     *float64
			dst   *float64
			check func(string, float64) *FieldError
		}{
			{"workload.submission_sigma", wf.SubmissionSigma, &w.SubSigma, nonneg},
			{"workload.time_limit_s", wf.TimeLimit, &w.TimeLimit, pos},
			{"workload.compile_s", wf.Compile, &w.Compile, nonneg},
			{"workload.tle_share", wf.TLEShare, &w.TLEShare, share},
		} {
			if x.v != nil {
				if e := x.check(x.field, *x.v); e != nil {
					return sc, e
				}
				*x.dst = *x.v
			}
		}
		if td := wf.TestData; td != nil {
			for _, x := range []struct {
				field string
				v     *float64
				dst   *float64
				check func(string, float64) *FieldError
			}{
				{"workload.test_data.median_mb", td.MedianMB, &w.DataMedianMB, pos},
				{"workload.test_data.sigma", td.Sigma, &w.DataSigma, nonneg},
				{"workload.test_data.download_fixed_s", td.DownloadFixed, &w.DownloadFixed, nonneg},
				{"workload.test_data.download_mbps", td.DownloadMBps, &w.DownloadMBps, pos},
			} {
				if x.v != nil {
					if e := x.check(x.field, *x.v); e != nil {
						return sc, e
					}
					*x.dst = *x.v
				}
			}
		}
		langs := map[string]bool{}
		for i, l := range wf.Languages {
			at := fmt.Sprintf("workload.languages[%d]", i)
			if l.Name == "" || langs[l.Name] {
				return sc, bad(at+".name", "%q: want a name used once", l.Name)
			}
			langs[l.Name] = true
			lang := Language{Name: l.Name, Share: l.Share, Compile: w.Compile, RunFactor: 1}
			if e := pos(at+".share", l.Share); e != nil {
				return sc, e
			}
			if l.Compile != nil {
				if e := nonneg(at+".compile_s", *l.Compile); e != nil {
					return sc, e
				}
				lang.Compile = *l.Compile
			}
			if l.RunFactor != nil {
				if e := pos(at+".run_factor", *l.RunFactor); e != nil {
					return sc, e
				}
				lang.RunFactor = *l.RunFactor
			}
			w.Languages = append(w.Languages, lang)
		}
		verdicts := map[string]bool{}
		for i, v := range wf.Verdicts {
			at := fmt.Sprintf("workload.verdicts[%d]", i)
			if v.Verdict == "" || verdicts[v.Verdict] {
				return sc, bad(at+".verdict", "%q: want a name used once", v.Verdict)
			}
			verdicts[v.Verdict] = true
			if e := pos(at+".share", v.Share); e != nil {
				return sc, e
			}
			vd := Verdict{Name: v.Verdict, Share: v.Share, Fails: v.Fails, TimeLimit: v.TimeLimit, CompileError: v.CompileError}
			if v.CompileError && (v.Fails || v.TimeLimit || v.RunFactor != nil) {
				return sc, bad(at+".compile_error", "a compile error runs nothing: not with fails, time_limit or run_factor")
			}
			for _, x := range []struct {
				field string
				v     *lognormalFile
				dst   *LogNormal
			}{{at + ".compile_s", v.Compile, &vd.Compile}, {at + ".run_factor", v.RunFactor, &vd.Run}} {
				if x.v == nil {
					continue
				}
				if e := pos(x.field+".median", x.v.Median); e != nil {
					return sc, e
				}
				*x.dst = LogNormal{Median: x.v.Median}
				if x.v.Sigma != nil {
					if e := nonneg(x.field+".sigma", *x.v.Sigma); e != nil {
						return sc, e
					}
					x.dst.Sigma = *x.v.Sigma
				}
			}
			w.Verdicts = append(w.Verdicts, vd)
		}
		if len(w.Verdicts) > 0 && wf.TLEShare != nil {
			return sc, bad("workload.tle_share", "not with workload.verdicts (give a time_limit verdict instead)")
		}
		w.ICPCStop = wf.ICPCStop
		if w.Sizes == SizesExp && (len(w.Languages) > 0 || len(w.Verdicts) > 0) {
			return sc, bad("workload.sizes", `"exponential" sizes take no languages or verdicts`)
		}
	}
	sc.Workload = &w

	// The arrivals.
	if a := f.Arrivals; a != nil {
		arr := &sc.Arrivals
		switch a.Process {
		case "", "poisson":
		case "periodic":
			arr.Periodic = true
		default:
			return sc, bad("arrivals.process", `%q: want "poisson" or "periodic"`, a.Process)
		}
		if !(a.CustomShare >= 0 && a.CustomShare < 1) {
			return sc, bad("arrivals.custom_share", "%v: want a share in [0, 1)", a.CustomShare)
		}
		arr.CustomShare, arr.Classes = a.CustomShare, a.Classes
		if b := a.Burst; b != nil {
			if e := first(intIn("arrivals.burst.problem_rank", b.ProblemRank, 1, w.Problems), pos("arrivals.burst.length_s", b.Length)); e != nil {
				return sc, e
			}
			if !(b.Factor > 1) || math.IsInf(b.Factor, 0) {
				return sc, bad("arrivals.burst.factor", "%v: want > 1", b.Factor)
			}
			if !b.At.set {
				return sc, bad("arrivals.burst.at", "missing")
			}
			arr.Burst = &Burst{Rank: b.ProblemRank, Factor: b.Factor, Length: b.Length, At: b.At.Instant}
		}
		if c := a.Contest; c != nil {
			if e := first(intIn("arrivals.contest.problems", c.Problems, 1, maxProblems), pos("arrivals.contest.peak", c.Peak), pos("arrivals.contest.tau_s", c.Tau)); e != nil {
				return sc, e
			}
			if !c.At.set {
				return sc, bad("arrivals.contest.at", "missing")
			}
			arr.Contest = &Contest{Problems: c.Problems, Peak: c.Peak, Tau: c.Tau, At: c.At.Instant}
		}
		total := 0
		for i, r := range a.Rejudges {
			at := fmt.Sprintf("arrivals.rejudges[%d]", i)
			if e := first(intIn(at+".problem_rank", r.ProblemRank, 1, w.Problems), intIn(at+".count", r.Count, 1, maxRejudge), nonneg(at+".over_s", r.Over)); e != nil {
				return sc, e
			}
			if total += r.Count; total > maxRejudge {
				return sc, bad(at+".count", "%d rejudged submissions in all: want at most %d", total, maxRejudge)
			}
			if !r.At.set {
				return sc, bad(at+".at", "missing")
			}
			arr.Rejudges = append(arr.Rejudges, RejudgeAt{At: r.At.Instant, Over: r.Over, Rank: r.ProblemRank, Count: r.Count})
		}
		if t := a.Trace; t != nil {
			if a.Process != "" {
				return sc, bad("arrivals.process", "not with arrivals.trace (the trace gives the arrivals)")
			}
			if a.CustomShare > 0 {
				return sc, bad("arrivals.custom_share", "not with arrivals.trace (the trace gives each job's class)")
			}
			if len(t.Jobs) == 0 {
				return sc, bad("arrivals.trace.jobs", "want at least one job")
			}
			arr.ScaleToLoad = t.ScaleToLoad == nil || *t.ScaleToLoad
			for i, j := range t.Jobs {
				at := fmt.Sprintf("arrivals.trace.jobs[%d]", i)
				if e := first(nonneg(at+".at_s", j.At), intIn(at+".problem", j.Problem, 0, w.Problems-1), nonneg(at+".work_s", j.Work),
					nonneg(at+".compile_s", j.Compile)); e != nil {
					return sc, e
				}
				if e := nonneg(at+".recorded_ttv_s", j.TTV); e != nil {
					return sc, e
				}
				cases := j.Compile
				for c, x := range j.Cases {
					if e := nonneg(fmt.Sprintf("%s.cases_s[%d]", at, c), x); e != nil {
						return sc, e
					}
					cases += x
				}
				switch {
				case j.Work == 0 && len(j.Cases) > 0:
					j.Work = cases // the work is its compile and its cases
				case len(j.Cases) > 0 && cases > j.Work+0.001*float64(len(j.Cases)+1):
					return sc, bad(at+".cases_s", "compile_s + the cases = %v: more than work_s (%v)", cases, j.Work)
				}
				if j.Compile > j.Work && j.Work > 0 {
					return sc, bad(at+".compile_s", "%v: want at most work_s (%v)", j.Compile, j.Work)
				}
				if j.Verdict != "" && !protocol.Verdict(j.Verdict).Final() {
					return sc, bad(at+".verdict", "%q: not a final verdict", j.Verdict)
				}
				if _, ok := ids[j.Judge]; !ok && j.Judge != "" {
					return sc, bad(at+".judge", "%q: no such judge in the cluster", j.Judge)
				}
				if _, ok := classPriority[j.Class]; !ok && j.Class != "" {
					return sc, bad(at+".class", `%q: want "practice", "contest", "rejudge" or "custom"`, j.Class)
				}
				arr.Replay = append(arr.Replay, TraceJob{At: j.At, Problem: j.Problem, Work: j.Work, Compile: j.Compile, Language: j.Language, Class: j.Class, Recorded: j.TTV})
			}
		}
	}

	// The faults.
	for i, ff := range f.Faults {
		at := fmt.Sprintf("faults[%d]", i)
		kind, ok := faultKinds[ff.Kind]
		if !ok {
			return sc, bad(at+".kind", `%q: want "drop", "crash", "gray" or "silent"`, ff.Kind)
		}
		judge, ok := ids[ff.Judge]
		if !ok {
			return sc, bad(at+".judge", "%q: no such judge in the cluster", ff.Judge)
		}
		if !ff.At.set {
			return sc, bad(at+".at", "missing")
		}
		if e := pos(at+".length_s", ff.Length); e != nil {
			return sc, e
		}
		switch kind {
		case DisturbDrop, DisturbGray:
			if e := pos(at+".factor", ff.Factor); e != nil {
				return sc, e
			}
		default:
			if ff.Factor != 0 {
				return sc, bad(at+".factor", "a %s takes no factor", ff.Kind)
			}
		}
		flt := Fault{Disturbance: Disturbance{Kind: kind, Judge: judge, Length: ff.Length, Factor: ff.Factor}, At: ff.At.Instant}
		for k, o := range sc.Faults {
			if o.Judge == judge && o.At.FromEvent == flt.At.FromEvent &&
				o.At.Offset < flt.At.Offset+flt.Length && flt.At.Offset < o.At.Offset+o.Length {
				return sc, bad(at, "overlaps faults[%d] on judge %s", k, ff.Judge)
			}
		}
		sc.Faults = append(sc.Faults, flt)
	}
	return sc, nil
}

// strictCheck walks the decoded JSON v against the file type t: every key
// must be a field (exactly as spelled), every value of the field's type.
// It returns the first mismatch with its path.
func strictCheck(v any, t reflect.Type, at string) *FieldError {
	bad := func(format string, args ...any) *FieldError {
		return &FieldError{Field: at, Msg: fmt.Sprintf(format, args...)}
	}
	if v == nil { // null: the zero value
		return nil
	}
	if t == reflect.TypeFor[instantFile]() {
		b, _ := json.Marshal(v)
		if _, err := parseInstant(b); err != nil {
			return bad("%v", err)
		}
		return nil
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return bad("want an object, got %s", jsonKind(v))
		}
		fields := map[string]reflect.Type{}
		var names []string
		for i := range t.NumField() {
			tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if tag != "" && tag != "-" {
				fields[tag] = t.Field(i).Type
				names = append(names, tag)
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			ft, ok := fields[k]
			sub := k
			if at != "" {
				sub = at + "." + k
			}
			if !ok {
				return &FieldError{Field: sub, Msg: fmt.Sprintf("unknown field (want one of %s)", strings.Join(names, ", "))}
			}
			if fe := strictCheck(m[k], ft, sub); fe != nil {
				return fe
			}
		}
	case reflect.Slice:
		xs, ok := v.([]any)
		if !ok {
			return bad("want an array, got %s", jsonKind(v))
		}
		for i, x := range xs {
			if fe := strictCheck(x, t.Elem(), fmt.Sprintf("%s[%d]", at, i)); fe != nil {
				return fe
			}
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return bad("want a string, got %s", jsonKind(v))
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return bad("want true or false, got %s", jsonKind(v))
		}
	case reflect.Int:
		n, ok := v.(json.Number)
		if !ok {
			return bad("want an integer, got %s", jsonKind(v))
		}
		if _, err := strconv.ParseInt(string(n), 10, 32); err != nil {
			return bad("%s: want an integer", n)
		}
	case reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			return bad("want a number, got %s", jsonKind(v))
		}
		if x, err := n.Float64(); err != nil || math.IsInf(x, 0) {
			return bad("%s: out of range", n)
		}
	default:
		return bad("unsupported field type %s", t)
	}
	return nil
}

func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return fmt.Sprintf("the string %q", v)
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return "the number " + string(v)
	}
	return fmt.Sprintf("%T", v)
}

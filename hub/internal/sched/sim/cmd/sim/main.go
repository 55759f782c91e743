// Command sim runs the scheduling lab: every policy of hub/internal/sched
// and the ideal reference over the scenario × load × seed grid. It prints
// the headline table and writes docs/scheduling.md with its plots.
//
//	go run ./hub/internal/sched/sim/cmd/sim            # full run
//	go run ./hub/internal/sched/sim/cmd/sim -quick     # CI-sized
//
// -save FILE keeps the grid's results (gob); -from FILE writes the report
// (-out) from them again without running the grid, e.g. after its prose
// changed:
//
//	go run ./hub/internal/sched/sim/cmd/sim -seeds 5 -save run.gob
//	go run ./hub/internal/sched/sim/cmd/sim -from run.gob [-note "..."]
//
// With -scenario it runs the grid on scenario files instead of the
// built-in scenarios (the format is in docs/scheduling.md, "Scenario
// files"; -show-scenario NAME prints a built-in one to start from), and
// writes no report unless -out is given:
//
//	go run ./hub/internal/sched/sim/cmd/sim -scenario mine.json[,other.json]
//	make sim SCENARIO=mine.json
//
// With -replay it instead replays a recorded trace (internal/schedtrace,
// written by the contest rehearsal) with the same policy and prints the
// hub's and the simulator's enqueue → dispatch waits side by side, as a
// table or (-json) as a sim.ReplayResult:
//
//	go run ./hub/internal/sched/sim/cmd/sim -replay trace.json [-policy NAME] [-json]
package main

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched/sim"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err == nil {
		switch {
		case o.show != "":
			var b []byte
			if b, err = sim.BuiltinScenarioFile(o.show); err == nil {
				_, err = os.Stdout.Write(b)
			}
		case o.replay != "":
			err = runReplay(o, os.Stdout)
		case o.from != "":
			err = runFrom(o)
		default:
			err = run(o)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sim:", err)
		os.Exit(1)
	}
}

// options are the command line.
type options struct {
	// The grid.
	quick                      bool
	seeds, workers             int
	out                        string
	scenarios, policies, loads string
	ablation, sweeps           bool
	files, show, trace         string
	save, from, note           string
	// The replay.
	replay, policy    string
	json, tasks       bool
	heartbeat, moment time.Duration
	windowPasses      bool
	download          time.Duration // < 0: the model
	seed              uint64
	reserve           float64 // with reserveSet: replaces the trace's
	reserveSet        bool
}

// replayOnly and gridOnly are the flags of one mode, refused in the other.
var (
	replayOnly = []string{"policy", "json", "tasks", "heartbeat", "download", "seed", "pass-moment", "reserve", "window-passes"}
	gridOnly   = []string{"quick", "seeds", "out", "workers", "scenarios", "policies", "loads", "ablation", "sweeps", "scenario", "show-scenario", "trace", "save", "from", "note"}
)

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.quick, "quick", false, "CI-sized run: 3 seeds, 12-minute runs, loads 0.5/0.85/0.95")
	fs.IntVar(&o.seeds, "seeds", 0, "seeds per cell (default 10, quick 3)")
	fs.StringVar(&o.out, "out", "docs/scheduling.md", "report to write (plots go to a directory beside it); empty: none")
	fs.IntVar(&o.workers, "workers", runtime.GOMAXPROCS(0), "parallel runs")
	fs.StringVar(&o.scenarios, "scenarios", "", "comma-separated scenario names (default all)")
	fs.StringVar(&o.policies, "policies", "", "comma-separated policies (default all; ablation variants allowed: "+strings.Join(variantNames(), ", ")+")")
	fs.StringVar(&o.loads, "loads", "", "comma-separated offered loads (default the grid's)")
	fs.BoolVar(&o.ablation, "ablation", true, "also run the ablation grid (the default policy's variants) for the report")
	fs.BoolVar(&o.sweeps, "sweeps", true, "also run the sensitivity sweeps (cluster size, heterogeneity, test data size, problems) for the report")
	fs.StringVar(&o.files, "scenario", "", "comma-separated scenario files (JSON, see docs/scheduling.md) to run instead of the built-in scenarios; no report unless -out is given")
	fs.StringVar(&o.trace, "trace", "", "run the grid on this recorded run (schedtrace JSON, as `rehearse --trace` writes it) at its recorded arrival times, under every policy; no report unless -out is given")
	fs.StringVar(&o.save, "save", "", "also write the grid's results (gob) to this file, for -from")
	fs.StringVar(&o.from, "from", "", "write the report (-out) from results saved by -save instead of running the grid")
	fs.StringVar(&o.note, "note", "", "a sentence for the report's \"Run on\" line (e.g. what else loaded the machine)")
	fs.StringVar(&o.show, "show-scenario", "", "print the file of this built-in scenario and exit")
	fs.StringVar(&o.replay, "replay", "", "replay this schedtrace JSON file instead of running the grid")
	fs.StringVar(&o.policy, "policy", "", "replay: the policy (default the trace's, then the hub's default)")
	fs.BoolVar(&o.json, "json", false, "replay: print a sim.ReplayResult as JSON instead of the table")
	fs.BoolVar(&o.tasks, "tasks", false, "replay: with -json, include every task's two dispatches")
	fs.DurationVar(&o.heartbeat, "heartbeat", 0, "replay: the judges' heartbeat interval (default the hub's, 3s)")
	download := fs.String("download", "model", `replay: a missing test data download: "model" (the simulator's) or a fixed duration`)
	fs.Uint64Var(&o.seed, "seed", 1, "replay: policy and heartbeat phase seed")
	fs.DurationVar(&o.moment, "pass-moment", sim.DefaultReplayPassMoment, "replay: draw the dispatch passes' latencies alike within each moment this long (0: pass by pass)")
	fs.BoolVar(&o.windowPasses, "window-passes", false, "replay: draw the dispatch passes' latencies from the trace's latency windows even where it has the hub's own passes (the model for a trace without them)")
	fs.Float64Var(&o.reserve, "reserve", 0, "replay: the share of the judges' slots rejudges leave free, in place of the trace's (the hub's --dispatch-reserve then; 0: none)")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	mode, other := "-replay", gridOnly
	if o.replay == "" {
		mode, other = "the grid", replayOnly
	}
	for _, name := range other {
		if set[name] {
			return options{}, fmt.Errorf("-%s does not apply to %s", name, mode)
		}
	}
	if (o.files != "" || o.trace != "") && !set["out"] {
		o.out = ""
	}
	if o.files != "" && o.trace != "" {
		return options{}, fmt.Errorf("-scenario and -trace: one or the other")
	}
	if o.from != "" && (o.save != "" || o.files != "" || o.trace != "" || o.quick || set["seeds"]) {
		return options{}, fmt.Errorf("-from: the grid comes from the file; -save, -scenario, -trace, -quick and -seeds do not apply")
	}
	if set["replay"] && o.replay == "" {
		return options{}, fmt.Errorf("-replay: empty file name")
	}
	if o.tasks && !o.json {
		return options{}, fmt.Errorf("-tasks needs -json")
	}
	if o.heartbeat < 0 {
		return options{}, fmt.Errorf("-heartbeat %v: negative", o.heartbeat)
	}
	if o.reserveSet = set["reserve"]; o.reserveSet {
		if !(o.reserve >= 0 && o.reserve < 1) {
			return options{}, fmt.Errorf("-reserve %v: want at least 0 and below 1", o.reserve)
		}
	}
	o.download = -1
	if *download != "model" {
		d, err := time.ParseDuration(*download)
		if err != nil || d < 0 {
			return options{}, fmt.Errorf(`-download %q: want "model" or a duration ≥ 0`, *download)
		}
		o.download = d
	}
	return o, nil
}

// runReplay replays o.replay and prints the comparison to w.
func runReplay(o options, w io.Writer) error {
	f, err := os.Open(o.replay)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	tr, err := schedtrace.Read(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("replay %s: %w", o.replay, err)
	}
	if o.reserveSet {
		tr.Reserve = o.reserve
	}
	opts := []sim.ReplayOption{sim.ReplaySeed(o.seed), sim.ReplayPassMoment(o.moment), sim.ReplayRecordedPasses(!o.windowPasses)}
	if o.heartbeat > 0 {
		opts = append(opts, sim.ReplayHeartbeat(o.heartbeat))
	}
	if o.download >= 0 {
		d := o.download
		opts = append(opts, sim.ReplayDownload(func(hash string) time.Duration {
			if hash == "" {
				return 0
			}
			return d
		}))
	}
	res, err := sim.Replay(tr, o.policy, opts...)
	if err != nil {
		return fmt.Errorf("replay %s: %w", o.replay, err)
	}
	if !o.json {
		return sim.WriteReplayTable(w, res)
	}
	if !o.tasks {
		res.Dispatches = nil
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return nil
}

// run runs the grid.
func run(o options) error {
	e := &sim.Experiment{Timeline: sim.Full, Scenarios: sim.Scenarios(), Loads: sim.Loads, Policies: sim.Policies(), Seeds: 10, Workers: o.workers}
	command := "go run ./hub/internal/sched/sim/cmd/sim"
	if o.quick {
		e.Timeline, e.Seeds, e.Loads = sim.Quick, 3, []float64{0.5, 0.85, 0.95}
		command += " -quick"
	}
	if o.seeds > 0 {
		e.Seeds = o.seeds
		command += " -seeds " + strconv.Itoa(o.seeds)
	}
	if o.files != "" {
		e.Scenarios = nil
		seen := map[string]string{}
		for _, file := range strings.Split(o.files, ",") {
			file = strings.TrimSpace(file)
			f, err := os.Open(file)
			if err != nil {
				return fmt.Errorf("-scenario: %w", err)
			}
			sc, err := sim.ReadScenario(f, file)
			f.Close()
			if err != nil {
				return err
			}
			if prev, dup := seen[sc.Name]; dup {
				return fmt.Errorf("-scenario: %s and %s both name scenario %q", prev, file, sc.Name)
			}
			seen[sc.Name] = file
			e.Scenarios = append(e.Scenarios, sc)
		}
		command += " -scenario " + o.files
	}
	if o.trace != "" {
		sc, tl, rho, err := traceScenario(o.trace)
		if err != nil {
			return err
		}
		e.Scenarios, e.Timeline, e.Loads = []sim.Scenario{sc}, tl, []float64{rho}
		command += " -trace " + o.trace
		if n, mean, p99 := recorded(sc); n > 0 {
			fmt.Printf("Recorded by the installation: time to verdict mean %.2f s, p99 %.2f s over %d submissions (rejudged ones excluded).\n\n", mean, p99, n)
		}
	}
	if o.scenarios != "" {
		keep := map[string]bool{}
		for _, s := range strings.Split(o.scenarios, ",") {
			keep[strings.TrimSpace(s)] = true
		}
		var sc []sim.Scenario
		for _, s := range e.Scenarios {
			if keep[s.Name] {
				sc = append(sc, s)
			}
		}
		e.Scenarios = sc
		if len(sc) == 0 {
			return fmt.Errorf("-scenarios %q: no such scenario", o.scenarios)
		}
	}
	if o.policies != "" {
		e.Policies, e.Variants = nil, sim.Ablations()
		for _, p := range strings.Split(o.policies, ",") {
			e.Policies = append(e.Policies, strings.TrimSpace(p))
		}
	}
	if o.loads != "" {
		e.Loads = nil
		for _, l := range strings.Split(o.loads, ",") {
			x, err := strconv.ParseFloat(strings.TrimSpace(l), 64)
			if err != nil {
				return fmt.Errorf("-loads: %w", err)
			}
			e.Loads = append(e.Loads, x)
		}
	}
	start := time.Now()
	last := time.Now()
	e.Progress = func(done, total int) {
		if time.Since(last) > 5*time.Second || done == total {
			last = time.Now()
			fmt.Fprintf(os.Stderr, "\r%d/%d traces (%s)", done, total, time.Since(start).Round(time.Second))
		}
	}
	res, err := e.Run()
	fmt.Fprintln(os.Stderr)
	if err != nil {
		return err
	}
	var abl *sim.Results
	if o.ablation && o.out != "" {
		a := sim.AblationExperiment(e.Timeline, e.Seeds)
		a.Workers, a.Progress = e.Workers, e.Progress
		fmt.Fprintln(os.Stderr, "ablation grid:")
		if abl, err = a.Run(); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr)
	}
	var sweeps *sim.Results
	if o.sweeps && o.out != "" {
		s := sim.SweepExperiment(e.Timeline, max(e.Seeds*3/10, 2))
		s.Workers, s.Progress = e.Workers, e.Progress
		fmt.Fprintln(os.Stderr, "sensitivity sweeps:")
		if sweeps, err = s.Run(); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr)
	}
	elapsed := time.Since(start)
	rep := sim.Report{Elapsed: elapsed, Command: command, Ablation: abl, Sweeps: sweeps,
		Machine: machine(e.Workers), Date: start.UTC().Format("2006-01-02 15:04 MST"), Note: o.note}
	if o.save != "" {
		if err := save(o.save, saved{Results: res, Report: rep, Quick: o.quick}); err != nil {
			return err
		}
	}
	return output(res, rep, o.quick, o.out)
}

// saved is what -save writes and -from reads: the grid's results and the
// report's metadata (ablation and sweeps inside it).
type saved struct {
	Results *sim.Results
	Report  sim.Report
	Quick   bool
}

func save(file string, s saved) error {
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("-save: %w", err)
	}
	err = gob.NewEncoder(f).Encode(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("-save %s: %w", file, err)
	}
	return nil
}

// runFrom writes the table and the report from results saved by -save.
func runFrom(o options) error {
	f, err := os.Open(o.from)
	if err != nil {
		return fmt.Errorf("-from: %w", err)
	}
	defer f.Close()
	var s saved
	if err := gob.NewDecoder(f).Decode(&s); err != nil {
		return fmt.Errorf("-from %s: %w", o.from, err)
	}
	if s.Results == nil || s.Results.Exp == nil || len(s.Results.Exp.Scenarios) == 0 {
		return fmt.Errorf("-from %s: no results", o.from)
	}
	if o.note != "" {
		s.Report.Note = o.note
	}
	return output(s.Results, s.Report, s.Quick, o.out)
}

// output prints the headline table and, if out is set, writes the report.
func output(res *sim.Results, rep sim.Report, quick bool, out string) error {
	e := res.Exp
	hs := res.Headlines()
	if quick {
		fmt.Println("QUICK RUN (-quick): shorter runs, fewer seeds and loads; not comparable to the full run (make sim).")
		fmt.Println()
	}
	fmt.Println("Headline: the hub's default policy against the targets of issue 18 (TTV = time to verdict, s)")
	fmt.Println()
	sim.WriteHeadline(os.Stdout, hs)
	fmt.Println()
	fmt.Println(sim.Tally(hs))
	fmt.Println()
	fmt.Printf("Mean / p99 time to verdict (s), %s:\n\n", e.Scenarios[0].Name)
	res.WriteTTVTable(os.Stdout, e.Scenarios[0].Name)
	fmt.Printf("\nMean / p99 wait (s), %s:\n\n", e.Scenarios[0].Name)
	res.WriteWaitTable(os.Stdout, e.Scenarios[0].Name)
	if out != "" {
		if err := res.WriteReport(out, rep); err != nil {
			return err
		}
		fmt.Printf("\nwrote %s (%s)\n", out, rep.Elapsed.Round(time.Second))
	}
	return nil
}

func variantNames() []string {
	var ns []string
	for n := range sim.Ablations() {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// machine describes the computer the grid ran on: the CPU model, its
// logical CPUs, the parallel runs and the Go version.
func machine(workers int) string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d logical CPUs, %d parallel runs, %s %s/%s", model, runtime.NumCPU(), workers,
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// traceScenario reads a recorded run as a scenario at its recorded times:
// a schedtrace (what `rehearse --trace` writes) or a scenario file whose
// arrivals are a trace (what `verdict-stack export-trace` writes). The
// timeline measures every task (no warm-up) and, as the grid's load, the
// run's realised offered load (a label: the arrivals are not scaled).
func traceScenario(file string) (sim.Scenario, sim.Timeline, float64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return sim.Scenario{}, sim.Timeline{}, 0, fmt.Errorf("-trace: %w", err)
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(b, &keys) == nil && keys["tasks"] == nil && keys["arrivals"] != nil {
		// A scenario file.
		sc, err := sim.ParseScenario(b, file)
		if err != nil {
			return sim.Scenario{}, sim.Timeline{}, 0, fmt.Errorf("-trace: %w", err)
		}
		if len(sc.Arrivals.Replay) == 0 {
			return sim.Scenario{}, sim.Timeline{}, 0, fmt.Errorf("-trace %s: a scenario without arrivals.trace: run it with -scenario", file)
		}
		if sc.Arrivals.ScaleToLoad {
			return sim.Scenario{}, sim.Timeline{}, 0, fmt.Errorf("-trace %s: arrivals.trace.scale_to_load is on: run it with -scenario (TRACE= replays the recorded times)", file)
		}
		tl, rho := traceTimeline(sc)
		return sc, tl, rho, nil
	}
	tr, err := schedtrace.Read(bytes.NewReader(b))
	if err != nil {
		return sim.Scenario{}, sim.Timeline{}, 0, fmt.Errorf("-trace %s: %w", file, err)
	}
	b, err = schedtrace.Scenario(tr, schedtrace.ScenarioOptions{Name: "trace"})
	if err != nil {
		return sim.Scenario{}, sim.Timeline{}, 0, fmt.Errorf("-trace %s: %w", file, err)
	}
	sc, err := sim.ParseScenario(b, file)
	if err != nil {
		return sim.Scenario{}, sim.Timeline{}, 0, fmt.Errorf("-trace %s: %w", file, err)
	}
	tl, rho := traceTimeline(sc)
	return sc, tl, rho, nil
}

// traceTimeline is the timeline and realised offered load of a scenario
// replaying a trace at its recorded times.
func traceTimeline(sc sim.Scenario) (sim.Timeline, float64) {
	span, work := 0.0, 0.0
	for _, j := range sc.Arrivals.Replay {
		span, work = max(span, j.At), work+j.Work
	}
	rho := 0.0
	if c := sim.Capacity(sc.Cluster); span > 0 && c > 0 {
		rho = math.Round(work/span/c*100) / 100
	}
	return sim.Timeline{Warmup: 0, Measured: span + 1, DisturbAt: span / 2}, rho
}

// recorded summarises the times to verdict a trace recorded (mean and
// p99 over the jobs that have one), for comparison with the simulated.
func recorded(sc sim.Scenario) (n int, mean, p99 float64) {
	var xs []float64
	for _, j := range sc.Arrivals.Replay {
		if j.Recorded > 0 {
			xs = append(xs, j.Recorded)
		}
	}
	if len(xs) == 0 {
		return 0, 0, 0
	}
	d := sim.Summarise(xs)
	return len(xs), d.Mean, d.P99
}

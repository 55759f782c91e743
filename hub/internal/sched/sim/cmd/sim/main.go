// Command sim runs the scheduling lab: every policy of hub/internal/sched
// and the ideal reference over the scenario × load × seed grid. It prints
// the headline table and writes docs/scheduling.md with its plots.
//
//	go run ./hub/internal/sched/sim/cmd/sim            # full run
//	go run ./hub/internal/sched/sim/cmd/sim -quick     # CI-sized
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched/sim"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "sim:", err)
		os.Exit(1)
	}
}

func run() error {
	quick := flag.Bool("quick", false, "CI-sized run: 3 seeds, 12-minute runs, loads 0.5/0.85/0.95")
	seeds := flag.Int("seeds", 0, "seeds per cell (default 10, quick 3)")
	out := flag.String("out", "docs/scheduling.md", "report to write (plots go to a directory beside it); empty: none")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "parallel runs")
	only := flag.String("scenarios", "", "comma-separated scenario names (default all)")
	policies := flag.String("policies", "", "comma-separated policies (default all; ablation variants allowed: "+strings.Join(variantNames(), ", ")+")")
	loads := flag.String("loads", "", "comma-separated offered loads (default the grid's)")
	ablate := flag.Bool("ablation", true, "also run the ablation grid (the default policy's variants) for the report")
	flag.Parse()

	e := &sim.Experiment{Timeline: sim.Full, Scenarios: sim.Scenarios(), Loads: sim.Loads, Policies: sim.Policies(), Seeds: 10, Workers: *workers}
	command := "go run ./hub/internal/sched/sim/cmd/sim"
	if *quick {
		e.Timeline, e.Seeds, e.Loads = sim.Quick, 3, []float64{0.5, 0.85, 0.95}
		command += " -quick"
	}
	if *seeds > 0 {
		e.Seeds = *seeds
	}
	if *only != "" {
		keep := map[string]bool{}
		for _, s := range strings.Split(*only, ",") {
			keep[strings.TrimSpace(s)] = true
		}
		var sc []sim.Scenario
		for _, s := range e.Scenarios {
			if keep[s.Name] {
				sc = append(sc, s)
			}
		}
		e.Scenarios = sc
	}
	if *policies != "" {
		e.Policies, e.Variants = nil, sim.Ablations()
		for _, p := range strings.Split(*policies, ",") {
			e.Policies = append(e.Policies, strings.TrimSpace(p))
		}
	}
	if *loads != "" {
		e.Loads = nil
		for _, l := range strings.Split(*loads, ",") {
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
	if *ablate && *out != "" {
		a := sim.AblationExperiment(e.Timeline, e.Seeds)
		a.Workers, a.Progress = e.Workers, e.Progress
		fmt.Fprintln(os.Stderr, "ablation grid:")
		if abl, err = a.Run(); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr)
	}
	elapsed := time.Since(start)
	hs := res.Headlines()
	fmt.Println("Headline: the hub's default policy against the targets of issue 8")
	fmt.Println()
	sim.WriteHeadline(os.Stdout, hs)
	fmt.Println()
	fmt.Println(sim.Tally(hs))
	fmt.Println()
	fmt.Println("Mean / p99 wait (s), steady traffic:")
	fmt.Println()
	res.WriteLoadTable(os.Stdout, e.Scenarios[0].Name)
	if *out != "" {
		if err := res.WriteDoc(*out, elapsed, command, abl); err != nil {
			return err
		}
		fmt.Printf("\nwrote %s (%s)\n", *out, elapsed.Round(time.Second))
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

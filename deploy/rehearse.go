package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/rehearsal"
	"github.com/verdict-oj/verdict/deploy/internal/stack"
)

// runRehearse is `verdict-stack rehearse` (make rehearsal): one whole
// contest through a fresh local stack with simulated judges. It prints the
// report and writes it to --out. Exit status 1 if the rehearsal could not
// run or a correctness check failed.
func runRehearse(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("rehearse", flag.ExitOnError)
	d := rehearsal.DefaultShape()
	var cfg rehearsal.Config
	fs.IntVar(&d.Contestants, "contestants", d.Contestants, "contestants, imported by CSV")
	fs.IntVar(&d.NATLab, "nat-lab", d.NATLab, "contestants sharing one source address (a lab behind NAT)")
	fs.DurationVar(&d.Length, "length", d.Length, "contest length (contest time)")
	fs.DurationVar(&d.FreezeLast, "freeze", d.FreezeLast, "frozen end of the contest (contest time; 0: no freeze)")
	fs.DurationVar(&d.Arrival, "arrival", d.Arrival, "login window before the start (contest time)")
	fs.Float64Var(&d.PerContestant, "per-contestant", d.PerContestant, "mean submissions per contestant")
	fs.BoolVar(&d.Faults, "faults", false, "kill -9 a web node and a judge in the rush, restart Redis once")
	fs.Uint64Var(&d.Seed, "seed", d.Seed, "seed of the plan and the simulated judges")
	fs.Float64Var(&cfg.Compress, "compress", 40, "contest time per real second (40: 5 hours in 7.5 minutes)")
	fs.Float64Var(&cfg.ArrivalCompress, "arrival-compress", 4, "compression of the login window before the start (4: 15 minutes in 3m45s)")
	fs.IntVar(&cfg.WebNodes, "web-nodes", 2, "web nodes (at least 2)")
	fs.IntVar(&cfg.Judges, "judges", 0, "simulated judges (0: sized so the busiest minute fills --capacity of their slots)")
	fs.IntVar(&cfg.Slots, "slots", 8, "slots per simulated judge")
	fs.Float64Var(&cfg.Speed, "speed", 1, "speed factor of the simulated judges (2: twice as fast)")
	fs.Float64Var(&cfg.CapacityTarget, "capacity", 0.8, "share of the judges' slots the busiest minute fills when --judges is 0")
	fs.IntVar(&cfg.RealJudges, "real-judges", 0, "real judge agents beside the simulated ones (root)")
	fs.BoolVar(&cfg.NoWarm, "no-warm", false, "turn off the hub's warming of the judges before the start")
	fs.IntVar(&cfg.Sample, "sample", 50, "browsers measuring scoreboard staleness")
	fs.IntVar(&cfg.CheckBoards, "check-boards", 100, "browsers whose whole board is compared with MySQL's at the end")
	fs.StringVar(&cfg.ProfileDir, "profile-dir", "bin", "where the CPU profiles of a web node and the hub taken in the rush go")
	fs.BoolVar(&cfg.NoProfile, "no-profile", false, "take no CPU profiles")
	fs.StringVar(&cfg.TraceFile, "trace", "bin/rehearsal-trace.json", "where the arrival trace for the scheduling simulator goes")
	fs.BoolVar(&cfg.NoReplay, "no-replay", false, "do not replay the trace in the scheduling simulator")
	rootFlag := fs.String("root", ".", "checkout whose components run")
	fs.StringVar(&cfg.Bin, "bin", "bin", "component binaries (make build); empty: build them from --root")
	logPath := fs.String("log", "bin/rehearsal-stack.log", "file receiving the stack's own output")
	out := fs.String("out", "docs/rehearsal.md", "where the report is written (empty: nowhere)")
	_ = fs.Parse(args)
	cfg.Shape = d
	root, err := filepath.Abs(*rootFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "verdict-stack rehearse:", err)
		return 1
	}
	cfg.Root = root
	logf, err := os.Create(*logPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "verdict-stack rehearse:", err)
		return 1
	}
	defer logf.Close()
	cfg.Out, cfg.StackOut = os.Stdout, logf
	fmt.Printf("rehearse: the stack's output goes to %s\n", *logPath)
	if os.Getenv("GOGC") == "" {
		// The load generator shares the cores with the stack it measures;
		// at Go's default its collector took over a quarter of its CPU in
		// the rush, at 400 a tenth (2026-12-03/04), for twice the memory
		// (2.1 GiB at 3,000 contestants). The hub gets stack.ServiceGOGC
		// the same way.
		if g, err := strconv.Atoi(stack.ServiceGOGC); err == nil {
			debug.SetGCPercent(g)
		}
	}
	rep, err := rehearsal.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "verdict-stack rehearse:", err)
		return 1
	}
	fmt.Println()
	rep.Print(os.Stdout)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(rep.Markdown()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "verdict-stack rehearse:", err)
			return 1
		}
		fmt.Printf("\nrehearse: report written to %s (%s)\n", *out, time.Now().Format(time.RFC3339))
	}
	if !rep.OK() {
		return 1
	}
	return 0
}

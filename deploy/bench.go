package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/bench"
)

// runBench is `verdict-stack bench`: the measurements of issue 9 beyond
// the sandbox's (make bench runs that one first). Every item is bounded in
// time and sends traffic only to 127.0.0.1. Exit status 1 if an item fails
// to measure.
func runBench(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	only := fs.String("only", "", "comma-separated items to run: e2e,push,web,sched,queue,similarity (default: all)")
	rootFlag := fs.String("root", ".", "checkout (for go test -bench of the hub's policies, and its components)")
	goBin := fs.String("go", "go", "the go tool")
	backlog := fs.Int("backlog", 100_000, "queued tasks behind the probes (queue item)")
	var sf stackFlags
	sf.register(fs)
	_ = fs.Parse(args)
	root, err := filepath.Abs(*rootFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "verdict-stack bench:", err)
		return 1
	}
	want := func(name string) bool { return *only == "" || strings.Contains(","+*only+",", ","+name+",") }
	failed := false
	fmt.Printf("bench: %s, %d CPUs, %s\n\n", time.Now().Format("2006-01-02 15:04 MST"), numCPU(), hostLoad())

	if want("e2e") || want("push") || want("web") {
		if err := runStackBench(ctx, root, sf, want); err != nil {
			fmt.Fprintln(os.Stderr, "verdict-stack bench:", err)
			failed = true
		}
	}

	if want("sched") {
		fmt.Println("== 5a. scheduler: decisions/s with 100 simulated judges (plain Go, no I/O; go test -bench)")
		rs, err := bench.Sched(ctx, root, *goBin)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			failed = true
		}
		byName := map[string]bench.SchedResult{}
		for _, r := range rs {
			byName[r.Policy] = r
			held := ""
			if r.PlacedPerOp < 1 {
				held = ", the rest held"
			}
			fmt.Printf("   %-8s %9.0f decisions/s  (%.2f µs each; %.0f %% placed%s)\n",
				r.Policy, 1e9/r.NsPerPick, r.NsPerPick/1e3, 100*r.PlacedPerOp, held)
		}
		if d, g := byName["default"], byName["guide"]; d.NsPerPick > 0 && g.NsPerPick > 0 {
			fmt.Printf("   ratio default/guide: %.3f (the default policy's affinity ring and hot-problem window cost %.0f× the guide's formula)\n",
				g.NsPerPick/d.NsPerPick, d.NsPerPick/g.NsPerPick)
		}
		fmt.Println()
	}
	if want("queue") {
		fmt.Printf("== 5b. queue: enqueue-to-dispatch through real Redis (queue Lua scripts), %d tasks queued\n", *backlog)
		dir, err := os.MkdirTemp("", "verdict-bench-redis-")
		if err == nil {
			defer os.RemoveAll(dir)
			var r bench.QueueResult
			r, err = bench.Queue(ctx, dir, *backlog, 200, 15*time.Second)
			if err == nil {
				fmt.Printf("   fill: %d practice tasks enqueued at %.0f/s (32 clients)\n", r.Backlog, r.FillRate)
				fmt.Printf("   dispatch (Peek %d + Lease, one dispatcher, %d judges round-robin): backlog drained in %.1f s = %.0f dispatches/s\n",
					r.PeekWindow, r.Judges, r.DrainElapsed.Seconds(), r.DrainRate)
				fmt.Printf("   ratio fill/dispatch: %.2f (the dispatcher keeps up with %.2f× the web nodes' enqueue rate)\n", r.FillRate/r.DrainRate, r.DrainRate/r.FillRate)
				fmt.Printf("   contest probes at %.0f/s (open loop), enqueue → lease\n", r.ProbeRate)
				fmt.Printf("     while backlog tasks were queued: %s\n", r.Probe)
				fmt.Printf("     after the backlog was drained:  %s\n", r.ProbeIdle)
				if r.ProbeIdle.P50 > 0 {
					fmt.Printf("   ratio p50 with backlog / p50 without: %.2f\n", float64(r.Probe.P50)/float64(r.ProbeIdle.P50))
				}
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "verdict-stack bench: queue:", err)
			failed = true
		}
		fmt.Println()
	}
	if want("similarity") {
		fmt.Println("== 6. similarity check: 3,000 sources of one problem, text to ranked pairs (plain Go, no I/O; go test -bench)")
		rs, err := bench.Similarity(ctx, root, *goBin)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			failed = true
		}
		for _, r := range rs {
			what := "default: fingerprints in over a tenth of the sources ignored"
			if r.Name != "Rank3000" {
				what = "no boilerplate cut: every fingerprint counts"
			}
			fmt.Printf("   %-14s %6.2f s for %d sources, %d candidate pairs, %.1f MB/s  (%s)\n",
				r.Name, r.Seconds, r.Sources, r.Candidates, r.MBPerSec, what)
		}
		fmt.Println()
	}
	if failed {
		return 1
	}
	return 0
}

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/chaos"
)

// runChaos is `verdict-stack chaos`: every fault drill against a fresh
// stack built from the checkout in the current directory. Exit status 1
// unless every drill passes.
func runChaos(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("chaos", flag.ExitOnError)
	only := fs.String("only", "", "comma-separated drill names to run (default: all)")
	logPath := fs.String("log", "bin/chaos-stack.log", "file receiving the stack's own output")
	rootFlag := fs.String("root", ".", "checkout whose components are built and run")
	bin := fs.String("bin", "", "use the component binaries in this directory instead of building them")
	_ = fs.Parse(args)
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "verdict-stack chaos: needs root (the judges' sandbox, network namespaces, cgroups)")
		return 1
	}
	logf, err := os.Create(*logPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "verdict-stack chaos:", err)
		return 1
	}
	defer logf.Close()
	root, err := filepath.Abs(*rootFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "verdict-stack chaos:", err)
		return 1
	}
	fmt.Printf("chaos: building and starting a stack on free loopback ports (its output: %s)\n", *logPath)
	t0 := time.Now()
	env, stop, err := chaos.Start(ctx, chaos.Options{Root: root, Bin: *bin, Out: logf})
	if err != nil {
		fmt.Fprintln(os.Stderr, "verdict-stack chaos:", err)
		return 1
	}
	defer stop()
	fmt.Printf("chaos: stack ready in %.1f s at %s\n\n", time.Since(t0).Seconds(), env.Base)
	var results []chaos.Result
	for _, d := range chaos.All() {
		if *only != "" && !strings.Contains(","+*only+",", ","+d.Name+",") {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		r := chaos.Run(ctx, env, d)
		r.Format(os.Stdout)
		fmt.Println()
		results = append(results, r)
	}
	fmt.Print(chaos.Summary(results))
	for _, r := range results {
		if !r.Passed() {
			return 1
		}
	}
	if len(results) == 0 {
		fmt.Fprintln(os.Stderr, "verdict-stack chaos: no drill matched --only")
		return 2
	}
	return 0
}

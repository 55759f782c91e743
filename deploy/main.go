package main

import (
	"fmt"
	"os"

	"github.com/verdict-oj/verdict/internal/lifecycle"
)

func main() {
	if len(os.Args) < 2 {
		printUsage(os.Stderr)
		os.Exit(2)
	}
	ctx, stop := lifecycle.Signals()
	defer stop()
	switch args := os.Args[2:]; os.Args[1] {
	case "up":
		os.Exit(runUp(ctx, args))
	case "with-services":
		os.Exit(runWithServices(ctx, args))
	case "chaos":
		os.Exit(runChaos(ctx, args))
	case "bench":
		os.Exit(runBench(ctx, args))
	case "rehearse":
		os.Exit(runRehearse(ctx, args))
	case "simjudge":
		os.Exit(runSimjudge(ctx, args))
	case "export-trace":
		os.Exit(runExportTrace(ctx, args))
	case "-h", "--help", "help":
		printUsage(os.Stdout)
	default:
		fmt.Fprintf(os.Stderr, "verdict-stack: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
}

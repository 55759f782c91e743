package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// runExportTrace is `verdict-stack export-trace`: a recorded run's
// scheduling trace (internal/schedtrace: what `verdict-stack rehearse
// --trace` writes) as an anonymised scenario file of the scheduling lab,
// which `make sim SCENARIO=file` (or `make sim TRACE=file`) runs under
// every policy.
func runExportTrace(_ context.Context, args []string) int {
	if err := exportTrace(args, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(os.Stderr, "verdict-stack export-trace:", err)
		return 2
	}
	return 0
}

func exportTrace(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export-trace", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "bin/rehearsal-trace.json", "the scheduling trace to read (schedtrace JSON, as `rehearse --trace` writes it)")
	out := fs.String("out", "-", `the scenario file to write ("-": standard output)`)
	var o schedtrace.ScenarioOptions
	fs.StringVar(&o.Name, "name", "trace", "the scenario's name (no spaces, commas or slashes)")
	fs.StringVar(&o.Title, "title", "", "the scenario's title (default: the run's size)")
	fs.BoolVar(&o.ScaleToLoad, "scale-to-load", false, "stretch the arrivals to the lab's load column instead of replaying their recorded times")
	fs.IntVar(&o.ExtraJudges, "extra-judges", 0, "add this many judges shaped like the run's most common one (what if I had N more?)")
	hb := fs.Duration("heartbeat", 0, "the judges' heartbeat interval in the scenario (default the lab's, 3s)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.ExtraJudges < 0 {
		return fmt.Errorf("-extra-judges %d: negative", o.ExtraJudges)
	}
	if *hb < 0 || (*hb > 0 && *hb < time.Millisecond) {
		return fmt.Errorf("-heartbeat %v: want 0 or at least 1ms", *hb)
	}
	o.HeartbeatSeconds = hb.Seconds()
	f, err := os.Open(*from)
	if err != nil {
		return err
	}
	tr, err := schedtrace.Read(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", *from, err)
	}
	b, err := schedtrace.Scenario(tr, o)
	if err != nil {
		return fmt.Errorf("%s: %w", *from, err)
	}
	if *out == "-" {
		_, err = stdout.Write(b)
		return err
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s: %d tasks, %d judges\n", *out, len(tr.Tasks), len(tr.Judges)+o.ExtraJudges)
	return nil
}

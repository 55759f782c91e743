package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// runExportTrace is `verdict-stack export-trace`: a recorded run's
// scheduling trace — a file (internal/schedtrace: what `verdict-stack
// rehearse --trace` writes) or, with --dsn, a real installation's
// submissions read from its MySQL (exportMySQL) — as an anonymised
// scenario file of the scheduling lab, which `make sim SCENARIO=file` or
// `make sim TRACE=file` runs under every policy.
func runExportTrace(ctx context.Context, args []string) int {
	if err := exportTrace(ctx, args, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(os.Stderr, "verdict-stack export-trace:", err)
		return 2
	}
	return 0
}

func exportTrace(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
	dsn := fs.String("dsn", "", "read a real installation's submissions from this MySQL DSN (go-sql-driver form, e.g. user:pass@tcp(host:3306)/verdict) instead of --from")
	since := fs.String("since", "", "with --dsn: submissions created at or after this time (RFC 3339 or \"2006-01-02 15:04\", UTC)")
	until := fs.String("until", "", "with --dsn: submissions created before this time")
	var m mysqlExport
	m.Judges = map[string]judgeShape{}
	fs.Int64Var(&m.Contest, "contest", 0, "with --dsn: only this contest's submissions (its id)")
	fs.DurationVar(&m.Compile, "compile", 0, "with --dsn: add this compile time to every task (MySQL keeps none; e.g. 300ms)")
	fs.Func("judge", "with --dsn: NAME=SLOTS or NAME=SLOTSxSPEED, a judge's slots and per-slot speed (repeat; default: slots estimated from the trace, speed 1)", func(v string) error {
		for _, part := range strings.Split(v, ",") {
			name, j, err := parseJudgeShape(strings.TrimSpace(part))
			if err != nil {
				return err
			}
			m.Judges[name] = j
		}
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *dsn == "" {
		for _, name := range []string{"since", "until", "contest", "compile", "judge"} {
			if set[name] {
				return fmt.Errorf("-%s needs -dsn", name)
			}
		}
	} else if set["from"] {
		return fmt.Errorf("-from and -dsn: one or the other")
	}
	var err error
	if m.Since, err = parseWhen("since", *since); err != nil {
		return err
	}
	if m.Until, err = parseWhen("until", *until); err != nil {
		return err
	}
	if !m.Since.IsZero() && !m.Until.IsZero() && !m.Until.After(m.Since) {
		return fmt.Errorf("-until %s is not after -since %s", *until, *since)
	}
	if m.Compile < 0 {
		return fmt.Errorf("-compile %v: negative", m.Compile)
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
	var tr schedtrace.Trace
	source := *from
	if *dsn != "" {
		source = "mysql"
		if tr, err = readMySQL(ctx, *dsn, m, stderr); err != nil {
			return err
		}
	} else {
		f, err := os.Open(*from)
		if err != nil {
			return err
		}
		tr, err = schedtrace.Read(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *from, err)
		}
	}
	b, err := schedtrace.Scenario(tr, o)
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
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

// readMySQL opens dsn and reads the trace (exportMySQL), reporting on
// stderr what was left out and estimated.
func readMySQL(ctx context.Context, dsn string, m mysqlExport, stderr io.Writer) (schedtrace.Trace, error) {
	d, err := exportDSN(dsn)
	if err != nil {
		return schedtrace.Trace{}, err
	}
	db, err := sql.Open("mysql", d)
	if err != nil {
		return schedtrace.Trace{}, fmt.Errorf("-dsn: %w", err)
	}
	defer db.Close()
	tr, st, err := exportMySQL(ctx, db, m)
	if err != nil {
		return schedtrace.Trace{}, err
	}
	fmt.Fprintf(stderr, "read %d judged submissions (%d without a final verdict skipped, %d rejudged: kept with the rejudge's run times)\n",
		st.Tasks, st.Unjudged, st.Rejudged)
	if len(st.Estimated) > 0 {
		fmt.Fprintf(stderr, "slots estimated (a lower bound; give them with -judge NAME=SLOTS[xSPEED]) for %d judges; speed 1 assumed for judges not given\n", len(st.Estimated))
	}
	return tr, nil
}

// parseWhen parses a -since/-until value: RFC 3339, or a UTC date and time.
func parseWhen(flagName, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("-%s %q: want RFC 3339 or \"2006-01-02 15:04\" (UTC)", flagName, v)
}

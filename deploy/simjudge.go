package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/simjudge"
	"github.com/verdict-oj/verdict/internal/envflag"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
)

// runSimjudge is `verdict-stack simjudge`: simulated judges that speak the
// real protocol to a real hub and only sleep instead of judging (package
// simjudge). It runs until SIGINT/SIGTERM, drains, prints each judge's
// counters and exits 0; 78 when the hub refuses a judge for good (bad
// token, superseded), like `judge agent`; 2 on bad flags.
func runSimjudge(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("simjudge", flag.ContinueOnError)
	// A lab tool: flags only, no environment variables (no Prefix).
	s := envflag.Set{FS: fs}
	var (
		hub, id, tokenFile, logLevel string
		count, slots, queue          int
		compileMs, caseMs            int
		speed, sigma                 float64
		seed                         uint64
		statsEvery                   time.Duration
		events                       bool
	)
	s.String(&hub, "hub", "", "hub judge endpoint, as judge agent --hub: ws://host:port/judge (nginx or the hub), wss://host/judge (required)")
	s.String(&id, "id", "", "judge id; with --count N > 1 the judges are ID-1 … ID-N (required)")
	s.String(&tokenFile, "token-file", "", "file holding the token, one per line for --count N: line i is judge i's (required)")
	s.Int(&count, "count", 1, "simulated judges to run in this process")
	s.Int(&slots, "slots", simjudge.DefaultSlots, "tasks each judge runs at once (hello max_parallel)")
	s.Int(&queue, "queue", 0, "accepted tasks that may wait for a slot (0: reject busy when every slot is taken)")
	s.Float64(&speed, "speed", simjudge.DefaultSpeed, "speed factor: simulated times are divided by it")
	s.Uint64(&seed, "seed", 1, "seed of the run-time model (same seed, same simulated work per attempt)")
	s.Int(&compileMs, "compile-ms", int(simjudge.DefaultCompileTime/time.Millisecond), "simulated compile time, ms before the speed factor")
	s.Int(&caseMs, "case-ms", int(simjudge.DefaultCaseTime/time.Millisecond), "mean simulated run time of a case without a marker ms, ms before the speed factor")
	s.Float64(&sigma, "sigma", simjudge.DefaultSigma, "lognormal spread of case times (negative: none)")
	s.Duration(&statsEvery, "stats", 0, "print every judge's counters this often (0: only at the end)")
	s.Bool(&events, "events", false, "write every task event (received, accepted, started, finished, result_sent, acked, …) as one JSON line on stdout, for a program that drives the judges (the counters then go to stderr)")
	s.LogLevel(&logLevel)
	fs.SetOutput(os.Stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "verdict-stack simjudge: "+format+"\n", a...)
		return 2
	}
	if hub == "" || id == "" || tokenFile == "" {
		return bad("--hub, --id and --token-file are required")
	}
	if count < 1 {
		return bad("--count %d: want ≥ 1", count)
	}
	if err := envflag.CheckLevel(logLevel); err != nil {
		return bad("%v", err)
	}
	tokens, err := readTokens(tokenFile)
	if err != nil {
		return bad("%v", err)
	}
	if len(tokens) < count {
		return bad("%s holds %d tokens, --count %d needs one per judge (one per line)", tokenFile, len(tokens), count)
	}
	log, err := obs.NewLogger(os.Stderr, obs.LogConfig{Level: logLevel, Format: obs.FormatText})
	if err != nil {
		return bad("%v", err)
	}
	statsOut := io.Writer(os.Stdout)
	var onEvent func(simjudge.Event)
	if events {
		statsOut = os.Stderr
		var mu sync.Mutex
		enc := json.NewEncoder(os.Stdout)
		onEvent = func(ev simjudge.Event) {
			mu.Lock()
			defer mu.Unlock()
			_ = enc.Encode(ev) // a reader that went away stops us anyway
		}
	}
	var judges []*simjudge.Judge
	for i := range count {
		name := id
		if count > 1 {
			name = id + "-" + strconv.Itoa(i+1)
		}
		j, err := simjudge.New(simjudge.Config{
			HubURL: hub, ID: name, Token: tokens[i], Slots: slots, Queue: queue, Speed: speed, Seed: seed,
			CompileTime: time.Duration(compileMs) * time.Millisecond, CaseTime: time.Duration(caseMs) * time.Millisecond,
			Sigma: sigma, Logger: log, OnEvent: onEvent,
		})
		if err != nil {
			return bad("%v", err)
		}
		judges = append(judges, j)
	}
	fmt.Fprintf(os.Stderr, "simjudge: %d judge(s) → %s, %d slots, speed %.2f, seed %d; Ctrl-C drains and stops\n", len(judges), hub, slots, speed, seed)

	errs := make([]error, len(judges))
	var wg sync.WaitGroup
	for i, j := range judges {
		wg.Go(func() { errs[i] = j.Run(ctx) })
	}
	done := make(chan struct{})
	var printer sync.WaitGroup
	if statsEvery > 0 {
		printer.Go(func() {
			t := time.NewTicker(statsEvery)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					printSimStats(statsOut, judges)
				}
			}
		})
	}
	wg.Wait()
	close(done)
	printer.Wait()
	printSimStats(statsOut, judges)
	code := 0
	for i, err := range errs {
		if err == nil {
			continue
		}
		fmt.Fprintf(os.Stderr, "verdict-stack simjudge: %s: %v\n", judges[i].ID(), err)
		var stop *simjudge.StopError
		switch {
		case !errors.As(err, &stop):
			code = 1
		case code == 0:
			code = 78
		}
	}
	return code
}

// readTokens reads one token per non-empty line.
func readTokens(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	var out []string
	for l := range strings.Lines(string(b)) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

func printSimStats(w io.Writer, judges []*simjudge.Judge) {
	for _, j := range judges {
		s := j.Stats()
		fmt.Fprintf(w, "%-16s connected=%-5v received=%d accepted=%d rejected=%d (busy %d) cancelled=%d judged=%d sent=%d resends=%d acked=%d reconnects=%d downloads=%d bytes=%d mismatches=%d\n",
			s.JudgeID, s.Connected, s.Received, s.Accepted, s.Rejected, s.RejectedBy[protocol.RejectBusy], s.Cancelled,
			s.Judged, s.ResultsSent, s.Resends, s.Acked, s.Reconnects, s.Downloads, s.BytesDownloaded, s.DataHashMismatches)
	}
}

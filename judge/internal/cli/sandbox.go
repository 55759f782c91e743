// Package cli implements the judge's command line: `judge agent` (the
// judge agent that dials the hub) and `judge sandbox ...` for admins and
// tests (run one command in the sandbox, describe the host, benchmark).
package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// Usage is printed for `judge` without a known command.
const Usage = `usage:
  judge agent --hub URL --id ID --token-file FILE [flags]
                                                   the judge agent (judge agent --help for every flag)
  judge sandbox run [flags] -- PROGRAM [ARGS...]   run one command in the sandbox, print the result as JSON
  judge sandbox info                               describe this host's sandbox support as JSON
  judge sandbox bench [--n N]                      compare bare fork+exec+wait with sandboxed runs

run flags:
  --time 1s      CPU time limit (cgroup CPU time)
  --wall 3s      wall-clock limit (default 2*time+1s)
  --mem 256M     memory limit (cgroup, swap off)
  --output 64M   output limit (stdout capture and RLIMIT_FSIZE)
  --procs N      processes+threads (cgroup pids; >1 allows fork/threads under run)
  --profile run|compile
  --dir WORKDIR  host directory mounted at /w, the current directory (default: a fresh temporary one)
  --stdin FILE   file given as standard input (default /dev/null)
  --cpu N        pin the run to CPU N
  --uid-base N   the run's uid and gid (a range of one id no other process uses; default 60000)

bench flags:
  --n 1000       runs per mode
  --uid-base N   the sandbox's uid and gid (default 60000)
`

// uidBaseDefault is the default of --uid-base (tests give their binary a
// range of its own).
var uidBaseDefault = sandbox.DefaultIDBase

// Main runs the command line and returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) >= 1 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			fmt.Fprint(stdout, Usage+"\n"+AgentUsage())
			return 0
		case "agent":
			return agentCmd(args[1:], stdout, stderr)
		}
	}
	if len(args) < 1 || args[0] != "sandbox" {
		fmt.Fprint(stderr, Usage)
		return 2
	}
	if len(args) < 2 {
		fmt.Fprint(stderr, Usage)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch args[1] {
	case "run":
		return runCmd(ctx, args[2:], stdout, stderr, log)
	case "info":
		return infoCmd(args[2:], stdout, stderr, log)
	case "bench":
		return benchCmd(ctx, args[2:], stdout, stderr, log)
	}
	fmt.Fprint(stderr, Usage)
	return 2
}

// sizeFlag is a flag.Value for "256M"-style sizes.
type sizeFlag struct{ v *int64 }

func (f sizeFlag) String() string {
	if f.v == nil {
		return ""
	}
	return fmt.Sprint(*f.v)
}
func (f sizeFlag) Set(s string) error {
	v, err := sandbox.ParseSize(s)
	if err != nil {
		return err
	}
	*f.v = v
	return nil
}

// runFlags is what `judge sandbox run` parsed.
type runFlags struct {
	spec    sandbox.Spec
	tmp     bool // dir was not given: create and remove one
	uidBase int
}

func parseRun(args []string, stderr io.Writer) (runFlags, error) {
	var rf runFlags
	fs := flag.NewFlagSet("judge sandbox run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, Usage) }
	lim := &rf.spec.Limits
	fs.DurationVar(&lim.CPU, "time", time.Second, "CPU time limit")
	fs.DurationVar(&lim.Wall, "wall", 0, "wall-clock limit (default 2*time+1s)")
	lim.Memory = 256 << 20
	fs.Var(sizeFlag{&lim.Memory}, "mem", "memory limit")
	lim.Output = 64 << 20
	fs.Var(sizeFlag{&lim.Output}, "output", "output limit")
	fs.IntVar(&lim.Procs, "procs", 0, "processes+threads (default 1 for run, 64 for compile)")
	profile := fs.String("profile", "run", "seccomp profile: run or compile")
	fs.StringVar(&rf.spec.Dir, "dir", "", "work directory (mounted at /w)")
	fs.StringVar(&rf.spec.StdinFile, "stdin", "", "standard input file")
	cpu := fs.Int("cpu", -1, "pin to this CPU")
	fs.IntVar(&rf.uidBase, "uid-base", uidBaseDefault, "uid and gid of the run (no other process may use it)")
	if err := fs.Parse(args); err != nil {
		return rf, err
	}
	rf.spec.Argv = fs.Args()
	if len(rf.spec.Argv) == 0 {
		return rf, errors.New("no program given (put it after --)")
	}
	switch sandbox.Profile(*profile) {
	case sandbox.ProfileRun, sandbox.ProfileCompile:
		rf.spec.Profile = sandbox.Profile(*profile)
	default:
		return rf, fmt.Errorf("unknown profile %q", *profile)
	}
	if *cpu >= 0 {
		rf.spec.CPU = cpu
	}
	rf.tmp = rf.spec.Dir == ""
	return rf, nil
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	rf, err := parseRun(args, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "judge sandbox run: %v\n", err)
		return 2
	}
	cfg := sandbox.Config{Slots: 1, Logger: log, UIDBase: rf.uidBase, GIDBase: rf.uidBase}
	sb, err := sandbox.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "judge sandbox run: %v\n", err)
		return 1
	}
	defer sb.Close()
	if rf.tmp {
		uid, gid := sb.SlotUser(0)
		dir, cleanup, err := tmpWorkDir(uid, gid)
		if err != nil {
			fmt.Fprintf(stderr, "judge sandbox run: %v\n", err)
			return 1
		}
		defer func() {
			if err := cleanup(); err != nil {
				log.Error("remove the work dir", "dir", dir, "err", err)
			}
		}()
		rf.spec.Dir = dir
	}
	res, runErr := sb.Run(ctx, rf.spec)
	if err := writeResult(stdout, res); err != nil {
		fmt.Fprintf(stderr, "judge sandbox run: %v\n", err)
		return 1
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "judge sandbox run: %v\n", runErr)
		return 1
	}
	return 0
}

// writeResult prints res as one JSON object and a newline, as
// json.Encoder would, but streams Stdout (up to the output limit) in
// pieces: the judge's memory for it stays the captured bytes themselves,
// not another encoded copy of them.
func writeResult(w io.Writer, res sandbox.Result) error {
	out := res.Stdout
	res.Stdout = ""
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	const key = `"stdout":""`
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return errors.New("encode result: no stdout field")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(b[:i+len(key)-1]) // up to the opening quote of the value
	const piece = 32 << 10
	// One encoder into one buffer: the pieces leave no garbage behind.
	var buf bytes.Buffer
	pe := json.NewEncoder(&buf)
	for len(out) > 0 {
		n := min(piece, len(out))
		// Never split a UTF-8 sequence (an invalid byte is replaced on its
		// own either way).
		for k := 0; k < 3 && n < len(out) && !utf8.RuneStart(out[n]); k++ {
			n--
		}
		if n <= 0 {
			n = min(piece, len(out))
		}
		buf.Reset()
		if err := pe.Encode(out[:n]); err != nil {
			return fmt.Errorf("encode result: %w", err)
		}
		enc := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		bw.Write(enc[1 : len(enc)-1])
		out = out[n:]
	}
	bw.Write(b[i+len(key)-1:])
	bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

func infoCmd(args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	if len(args) > 0 {
		fmt.Fprint(stderr, Usage)
		return 2
	}
	info := sandbox.HostInfo()
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(info); err != nil {
		fmt.Fprintf(stderr, "judge sandbox info: %v\n", err)
		return 1
	}
	return 0
}

func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	fs := flag.NewFlagSet("judge sandbox bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 1000, "runs per mode")
	uidBase := fs.Int("uid-base", uidBaseDefault, "uid and gid of the runs")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rep, err := sandbox.Bench(ctx, *n, *uidBase, log)
	if err != nil {
		fmt.Fprintf(stderr, "judge sandbox bench: %v\n", err)
		return 1
	}
	fmt.Fprint(stdout, rep.String())
	return 0
}

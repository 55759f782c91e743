package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// CompileCommand is the judges' cpp17 compile command
// (judge/internal/lang.Defaults; keep them equal): the physical limit
// compiles with exactly these flags.
var CompileCommand = []string{"g++", "-std=c++17", "-O2", "-pipe", "-DONLINE_JUDGE", "-o", "main", "main.cpp"}

// Limit is the physical limit of judging on this machine: the CPU time
// (user + sys of the child processes, from rusage) of compiling a
// submission and running it on every case bare — no sandbox, no hub, no
// web — spread over every core.
type Limit struct {
	Compile     time.Duration // CPU of one compile (median of the repetitions)
	CompileWall time.Duration // its wall time
	Run         time.Duration // CPU of running the binary on every case
	Cases       int
	Cores       int
}

// PerSubmission is the CPU one submission needs at the least.
func (l Limit) PerSubmission() time.Duration { return l.Compile + l.Run }

// Rate is the most submissions per second the cores could judge: cores
// divided by the CPU seconds one submission needs (0 when unknown).
func (l Limit) Rate() float64 {
	s := l.PerSubmission().Seconds()
	if s <= 0 || l.Cores <= 0 {
		return 0
	}
	return float64(l.Cores) / s
}

// Ratio is rate as a fraction of the limit (0 when the limit is unknown).
func (l Limit) Ratio(rate float64) float64 {
	if lr := l.Rate(); lr > 0 {
		return rate / lr
	}
	return 0
}

// cpu is the user + sys time of a finished command and of the children it
// waited for.
func cpu(cmd *exec.Cmd) time.Duration {
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// MeasureLimit compiles src with CompileCommand reps times in dir (the
// median CPU counts), then runs the binary on every case, checking each
// answer, and sums the runs' CPU time.
func MeasureLimit(ctx context.Context, dir, src string, cases []testpkg.Case, reps, cores int) (Limit, error) {
	l := Limit{Cases: len(cases), Cores: cores}
	if err := os.WriteFile(filepath.Join(dir, "main.cpp"), []byte(src), 0o644); err != nil {
		return l, fmt.Errorf("bench: limit: %w", err)
	}
	var cpus, walls []time.Duration
	for range max(reps, 1) {
		cmd := exec.CommandContext(ctx, CompileCommand[0], CompileCommand[1:]...)
		cmd.Dir = dir
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			return l, fmt.Errorf("bench: limit: compile: %w\n%s", err, out)
		}
		walls = append(walls, time.Since(t0))
		cpus = append(cpus, cpu(cmd))
	}
	l.Compile, l.CompileWall = Median(cpus), Median(walls)
	bin := filepath.Join(dir, "main")
	for i, c := range cases {
		cmd := exec.CommandContext(ctx, bin)
		cmd.Stdin = bytes.NewReader(c.In)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			return l, fmt.Errorf("bench: limit: case %d: %w", i+1, err)
		}
		if !bytes.Equal(bytes.TrimSpace(out.Bytes()), bytes.TrimSpace(c.Ans)) {
			return l, fmt.Errorf("bench: limit: case %d: output %q, want %q", i+1, out.Bytes(), c.Ans)
		}
		l.Run += cpu(cmd)
	}
	return l, nil
}

// Median of ds (0 for none); the lower middle for an even count.
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

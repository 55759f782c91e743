package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// BenchStats summarises one mode of the benchmark.
type BenchStats struct {
	Runs      int
	PerSecond float64
	P50, P99  time.Duration
	TotalWall time.Duration
}

// BenchReport compares a bare fork+exec+wait with a full sandboxed run of
// the same trivial static C program.
type BenchReport struct {
	Bare, Sandbox BenchStats
	Cgroup        string
}

// Ratio is sandboxed p50 latency over bare p50 latency.
func (r BenchReport) Ratio() float64 {
	if r.Bare.P50 == 0 {
		return 0
	}
	return float64(r.Sandbox.P50) / float64(r.Bare.P50)
}

func (r BenchReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "trivial static C program, %d runs each, one at a time, interleaved, cgroup %s\n", r.Bare.Runs, r.Cgroup)
	fmt.Fprintf(&b, "%-8s %10s %10s %10s\n", "mode", "runs/s", "p50", "p99")
	for _, m := range []struct {
		n string
		s BenchStats
	}{{"bare", r.Bare}, {"sandbox", r.Sandbox}} {
		fmt.Fprintf(&b, "%-8s %10.0f %10s %10s\n", m.n, m.s.PerSecond, m.s.P50.Round(time.Microsecond), m.s.P99.Round(time.Microsecond))
	}
	fmt.Fprintf(&b, "ratio (sandbox/bare, p50): %.2fx   throughput ratio: %.2fx\n", r.Ratio(), r.Bare.PerSecond/r.Sandbox.PerSecond)
	return b.String()
}

// stats summarises latencies; runs/s is runs over the time they took.
func stats(lat []time.Duration) BenchStats {
	var total time.Duration
	for _, d := range lat {
		total += d
	}
	slices.Sort(lat)
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	return BenchStats{Runs: len(lat), PerSecond: float64(len(lat)) / total.Seconds(), P50: q(0.50), P99: q(0.99), TotalWall: total}
}

// Bench builds a trivial static C program with gcc and runs it n times bare
// (fork+exec+wait) and n times through a Sandbox, one run at a time, the
// two modes interleaved so that both see the same machine.
func Bench(ctx context.Context, n, uidBase int, log *slog.Logger) (BenchReport, error) {
	var rep BenchReport
	if n < 1 {
		n = 1
	}
	dir, err := os.MkdirTemp("", "verdict-bench-")
	if err != nil {
		return rep, fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "t.c")
	bin := filepath.Join(dir, "t")
	if err := os.WriteFile(src, []byte("int main(void){return 0;}\n"), 0o644); err != nil {
		return rep, fmt.Errorf("bench: %w", err)
	}
	if out, err := exec.CommandContext(ctx, "gcc", "-O2", "-static", "-o", bin, src).CombinedOutput(); err != nil {
		return rep, fmt.Errorf("bench: gcc: %v: %s", err, out)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return rep, fmt.Errorf("bench: %w", err)
	}

	attr := &syscall.ProcAttr{Dir: dir, Files: []uintptr{0, 1, 2}}
	bare := func() (time.Duration, error) {
		s := time.Now()
		pid, err := syscall.ForkExec(bin, []string{bin}, attr)
		if err != nil {
			return 0, fmt.Errorf("bench: bare: %w", err)
		}
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
			return 0, fmt.Errorf("bench: bare wait: %w", err)
		}
		return time.Since(s), nil
	}

	sb, err := New(Config{Slots: 1, Logger: log, UIDBase: uidBase, GIDBase: uidBase})
	if err != nil {
		return rep, fmt.Errorf("bench: %w", err)
	}
	defer sb.Close()
	rep.Cgroup = sb.CgroupVersion()
	spec := Spec{Argv: []string{"./t"}, Dir: dir, Limits: Limits{CPU: time.Second, Memory: 64 << 20}}
	sandboxed := func() (time.Duration, error) {
		s := time.Now()
		r, err := sb.Run(ctx, spec)
		if err != nil {
			return 0, fmt.Errorf("bench: sandbox: %w", err)
		}
		if r.Status != StatusOK {
			return 0, fmt.Errorf("bench: sandbox run: %s %s", r.Status, r.Error)
		}
		return time.Since(s), nil
	}
	// Warm-up: page cache, the seccomp filter, the work dir mount.
	for _, f := range []func() (time.Duration, error){bare, sandboxed} {
		if _, err := f(); err != nil {
			return rep, err
		}
	}
	latBare := make([]time.Duration, 0, n)
	latSandbox := make([]time.Duration, 0, n)
	one := func(f func() (time.Duration, error), lat *[]time.Duration) error {
		d, err := f()
		*lat = append(*lat, d)
		return err
	}
	for i := 0; i < n; i++ {
		var err error
		if i%2 == 0 {
			err = errors.Join(one(bare, &latBare), one(sandboxed, &latSandbox))
		} else {
			err = errors.Join(one(sandboxed, &latSandbox), one(bare, &latBare))
		}
		if err != nil {
			return rep, err
		}
	}
	rep.Bare = stats(latBare)
	rep.Sandbox = stats(latSandbox)
	return rep, nil
}

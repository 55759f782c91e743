package sandbox

import (
	"context"
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
	fmt.Fprintf(&b, "trivial static C program, %d runs each, one at a time, cgroup %s\n", r.Bare.Runs, r.Cgroup)
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

func stats(lat []time.Duration, total time.Duration) BenchStats {
	slices.Sort(lat)
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	return BenchStats{Runs: len(lat), PerSecond: float64(len(lat)) / total.Seconds(), P50: q(0.50), P99: q(0.99), TotalWall: total}
}

// Bench builds a trivial static C program with gcc and runs it n times bare
// (fork+exec+wait) and n times through a Sandbox, sequentially.
func Bench(ctx context.Context, n int, log *slog.Logger) (BenchReport, error) {
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

	// bare
	lat := make([]time.Duration, 0, n)
	attr := &syscall.ProcAttr{Dir: dir, Files: []uintptr{0, 1, 2}}
	t0 := time.Now()
	for i := 0; i < n; i++ {
		s := time.Now()
		pid, err := syscall.ForkExec(bin, []string{bin}, attr)
		if err != nil {
			return rep, fmt.Errorf("bench: bare: %w", err)
		}
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
			return rep, fmt.Errorf("bench: bare wait: %w", err)
		}
		lat = append(lat, time.Since(s))
	}
	rep.Bare = stats(lat, time.Since(t0))

	sb, err := New(Config{Slots: 1, Logger: log})
	if err != nil {
		return rep, fmt.Errorf("bench: %w", err)
	}
	defer sb.Close()
	rep.Cgroup = sb.CgroupVersion()
	spec := Spec{Argv: []string{"./t"}, Dir: dir, Limits: Limits{CPU: time.Second, Memory: 64 << 20}}
	// one warm-up run builds and caches the seccomp filter
	if r, err := sb.Run(ctx, spec); err != nil || r.Status != StatusOK {
		return rep, fmt.Errorf("bench: warm-up run: %v %+v", err, r)
	}
	lat = lat[:0]
	t0 = time.Now()
	for i := 0; i < n; i++ {
		s := time.Now()
		r, err := sb.Run(ctx, spec)
		if err != nil {
			return rep, fmt.Errorf("bench: sandbox: %w", err)
		}
		if r.Status != StatusOK {
			return rep, fmt.Errorf("bench: sandbox run %d: %s %s", i, r.Status, r.Error)
		}
		lat = append(lat, time.Since(s))
	}
	rep.Sandbox = stats(lat, time.Since(t0))
	return rep, nil
}

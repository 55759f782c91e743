//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"
)

func TestPollPeak(t *testing.T) {
	for _, tc := range []struct {
		name                string
		sampled, now, limit int64
		reached             bool
		want                int64
	}{
		{"largest sample", 90, 10, 100, false, 90},
		{"usage at the end (pages left charged)", 20, 40, 100, false, 40},
		{"reached the limit between samples", 30, 5, 100, true, 100},
		{"reached, samples above the limit (kernel slack)", 104, 5, 100, true, 104},
		{"nothing", 0, 0, 100, false, 0},
	} {
		if got := pollPeak(tc.sampled, tc.now, tc.limit, tc.reached); got != tc.want {
			t.Errorf("%s: pollPeak = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// peakSrc holds argv[1] MiB (every page written) for argv[2] ms, in a
// child process when argv[3] is given, then exits 0.
const peakSrc = `#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
static void hold(long mib, long ms) {
	volatile char *p = malloc(mib << 20); if (!p) _exit(3);
	for (long i = 0; i < mib << 20; i += 4096) p[i] = 1;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L }; nanosleep(&ts, 0);
	free((void *)p);
}
int main(int argc, char **argv) {
	long mib = atol(argv[1]), ms = atol(argv[2]);
	if (argc > 3) {
		pid_t c = fork(); if (c < 0) return 4;
		if (c == 0) { hold(mib, ms); _exit(0); }
		int st; waitpid(c, &st, 0); return WIFEXITED(st) ? WEXITSTATUS(st) : 5;
	}
	hold(mib, ms); return 0;
}
`

// TestPolledMemoryPeak forces the measurement a v2 kernel without
// memory.peak (Linux < 5.19) uses, on whatever this host has, and checks
// it against the kernel's watermark (testSB) for the same programs: peaks
// held long or short, in the main process or a child, and a hog killed at
// its limit.
func TestPolledMemoryPeak(t *testing.T) {
	const base = 64950
	sb, err := New(Config{Slots: 1, CgroupParent: testCgroupParent, UIDBase: base, GIDBase: base, PollMemory: true,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	want := PeakV1Polled
	if sb.CgroupVersion() == "v2" {
		want = PeakV2Polled
	}
	if got := sb.MemoryPeakMethod(); got != want {
		t.Errorf("forced: MemoryPeakMethod = %q, want %q", got, want)
	}
	if got := testSB.MemoryPeakMethod(); os.Getenv(testPollEnv) == "" && got != HostInfo().MemoryPeak {
		t.Errorf("default sandbox measures with %q, HostInfo says %q", got, HostInfo().MemoryPeak)
	}
	dir := workDir(t)
	buildC(t, dir, "peak", peakSrc, true)
	ctx := context.Background()
	const mib = 1 << 10 // KiB
	for _, tc := range []struct {
		name string
		args []string
		lim  Limits
		min  int64 // KiB
	}{
		{"100 MiB held 200 ms", []string{"100", "200"}, Limits{Memory: 256 << 20}, 100 * mib},
		{"80 MiB held 10 ms in a child", []string{"80", fmt.Sprint(10 * emuScale()), "child"}, Limits{Memory: 256 << 20, Procs: 2}, 80 * mib},
	} {
		// Emulated page faults are slow (the cgroup v2 VM under TCG once
		// took 1019 ms of CPU to touch 100 MiB): CPU to spare.
		tc.lim.CPU = time.Second * emuScale()
		spec := Spec{Argv: append([]string{"./peak"}, tc.args...), Dir: dir, Limits: tc.lim}
		polled, err := sb.Run(ctx, spec)
		if err != nil || polled.Status != StatusOK {
			t.Fatalf("%s polled: %v %+v", tc.name, err, polled)
		}
		mark, err := testSB.Run(ctx, spec)
		if err != nil || mark.Status != StatusOK {
			t.Fatalf("%s watermark: %v %+v", tc.name, err, mark)
		}
		t.Logf("%s: polled %d KiB, watermark %d KiB", tc.name, polled.MemoryKB, mark.MemoryKB)
		if polled.MemoryKB < tc.min {
			t.Errorf("%s: polled peak %d KiB, want at least %d", tc.name, polled.MemoryKB, tc.min)
		}
		// Same program, same peak, up to what the kernel charges around
		// it (per-CPU charge batches, page tables, the sampling gap).
		if d := polled.MemoryKB - mark.MemoryKB; d > 8*mib || d < -8*mib {
			t.Errorf("%s: polled %d KiB vs watermark %d KiB: more than 8 MiB apart", tc.name, polled.MemoryKB, mark.MemoryKB)
		}
	}
	// A hog past its limit: a memory limit, the peak at the limit.
	r, err := sb.Run(ctx, Spec{Argv: []string{"./peak", "100", "0"}, Dir: dir, Limits: Limits{Memory: 64 << 20, CPU: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusMemoryLimit || r.MemoryKB < 64*mib {
		t.Errorf("hog: %s with %d KiB, want memory_limit at >= 64 MiB", r.Status, r.MemoryKB)
	}
	// The next run of the polled sandbox starts from zero again.
	r, err = sb.Run(ctx, Spec{Argv: []string{"./peak", "4", "0"}, Dir: dir})
	if err != nil || r.Status != StatusOK {
		t.Fatalf("small run: %v %+v", err, r)
	}
	if r.MemoryKB > 16*mib {
		t.Errorf("a 4 MiB run after the hog measured %d KiB: the last run's peak carried over", r.MemoryKB)
	}
}

func TestKernelAtLeast(t *testing.T) {
	for rel, want := range map[string]bool{
		"6.1.0-57-amd64": true, "5.19.0": true, "5.18.19-x": false, "5.4.0-150-generic": false,
		"4.19.0": false, "6.18.44-fc-v669": true, "": false, "x.y": false, "10.0": true,
	} {
		if got := kernelAtLeast(rel, 5, 19); got != want {
			t.Errorf("kernelAtLeast(%q, 5, 19) = %v, want %v", rel, got, want)
		}
	}
}

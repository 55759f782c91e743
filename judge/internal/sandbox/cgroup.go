//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/cgroups/v3"
	"golang.org/x/sys/unix"
)

// eintrTries bounds retryEINTR: a control-file write the kernel keeps
// interrupting is reported, not retried for ever.
const eintrTries = 100

// retryEINTR runs one raw system call (a pread or pwrite of a kept cgroup
// descriptor) again while it fails with EINTR. The Go runtime's signals
// (SIGURG preemption, a child's SIGCHLD) interrupt a v1
// memory.limit_in_bytes write while the kernel reclaims the cgroup's memory
// down to the new limit; os.File's methods retry that, the unix package's
// calls do not.
func retryEINTR(call func() (int, error)) (int, error) {
	for i := 1; ; i++ {
		n, err := call()
		if err != unix.EINTR || i == eintrTries {
			return n, err
		}
	}
}

// cgLimits are the cgroup-enforced limits of one run.
type cgLimits struct {
	memory int64
	pids   int64
	cpus   string // cpuset, "" = inherit
}

// cgDriver creates run cgroups on one hierarchy version.
type cgDriver interface {
	version() string // "v1" or "v2"
	// create makes a fresh cgroup without limits (spares are made ahead).
	create(name string) (runCgroup, error)
	// children lists the run cgroups currently under the parent.
	children() ([]string, error)
	remove(name string) error
	swapAccounting() bool
	// peakMethod names how a run's memory peak is measured (PeakV1,
	// PeakV2 or a Peak*Polled).
	peakMethod() string
}

// runCgroup measures one run at a time. A container keeps its runCgroup
// from run to run when it can be reset exactly (v1); otherwise (v2, or a v1
// cgroup a run left pages in) the next run gets a fresh one.
type runCgroup interface {
	// reset makes a used cgroup start the next run as if fresh: empty,
	// counters at zero, nothing of the last run charged to it. false: it
	// cannot be (the caller destroys it and takes a fresh one). A fresh
	// cgroup resets trivially.
	reset() (bool, error)
	// apply sets the run's limits (writing only what changed since the
	// last apply); called before anything joins.
	apply(l cgLimits) error
	// joinFds are descriptors, open for writing and owned by the cgroup, of
	// the cgroup.procs files a process writes "0" into to join it (one per
	// v1 hierarchy, cpuset only when pinned; one on v2).
	joinFds(pinned bool) ([]int, error)
	cpuUsage() (time.Duration, error)
	// memoryPeak is the run's peak memory: the kernel's watermark, or,
	// when the cgroup has none (pollsMemory), what pollPeak makes of the
	// samples, the usage now and whether the usage reached the limit.
	memoryPeak() (int64, error)
	// pollsMemory: there is no watermark; the judge calls sampleMemory
	// while the run lives (every memPollEvery).
	pollsMemory() bool
	sampleMemory()
	oomKilled() (bool, error)
	// kill SIGKILLs every process in the cgroup and waits until it is empty.
	kill() error
	destroy() error
}

// How the memory peak of a run is measured (Info.MemoryPeak,
// Sandbox.MemoryPeakMethod).
const (
	// PeakV1 is cgroup v1's watermark, reset exactly between runs.
	PeakV1 = "memory.max_usage_in_bytes"
	// PeakV2 is cgroup v2's watermark (Linux 5.19+) of a fresh cgroup.
	PeakV2 = "memory.peak"
	// PeakV2Polled: a v2 kernel without memory.peak (before 5.19), or
	// Config.PollMemory: memory.current sampled every memPollEvery, and
	// memory.events "max" (the usage reached the limit). (wait4's maximum
	// RSS is no help: it counts the container init's before execve.)
	PeakV2Polled = "poll memory.current"
	// PeakV1Polled: the same on v1 (memory.usage_in_bytes and
	// memory.failcnt), only with Config.PollMemory.
	PeakV1Polled = "poll memory.usage_in_bytes"
)

// memPollEvery is how often a polled cgroup's usage is sampled: of a
// burst between two samples only what is still charged at the next one
// is seen, unless it reached the limit (then the peak is the limit).
const memPollEvery = 2 * time.Millisecond

// pollPeak is the memory peak of a run without a kernel watermark: the
// larger of its largest sample and the usage at the end (pages still
// charged: files, tmpfs), or the limit itself when the usage reached it
// (it did at that moment, between two samples or not). Pure.
func pollPeak(sampled, now, limit int64, reachedLimit bool) int64 {
	p := max(sampled, now)
	if reachedLimit && limit > p {
		p = limit
	}
	return p
}

// newCgDriver detects the host's mode and returns the matching driver.
// poll forces the polled memory peak (Config.PollMemory).
func newCgDriver(parent string, poll bool) (cgDriver, error) {
	switch cgroups.Mode() {
	case cgroups.Unified:
		return newV2Driver("/sys/fs/cgroup", parent, poll)
	case cgroups.Legacy, cgroups.Hybrid:
		return newV1Driver("/sys/fs/cgroup", parent, poll)
	}
	return nil, fmt.Errorf("cgroups: no usable hierarchy mounted at /sys/fs/cgroup")
}

// CgroupMode reports the cgroup mode of this host as containerd sees it:
// "v1" (legacy or hybrid: the controllers are on v1) or "v2" (unified).
func CgroupMode() string {
	switch cgroups.Mode() {
	case cgroups.Unified:
		return "v2"
	case cgroups.Legacy, cgroups.Hybrid:
		return "v1"
	}
	return "none"
}

// parseUintFile parses a file holding one unsigned integer ("max" = -1).
func parseUintFile(b []byte) (int64, error) {
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return -1, nil
	}
	v, err := strconv.ParseUint(s, 10, 63)
	if err != nil {
		return 0, fmt.Errorf("parse %q: %w", s, err)
	}
	return int64(v), nil
}

// parseKeyed returns the value of key in a "key value" per line file
// (cpu.stat, memory.events, memory.oom_control, memory.stat).
func parseKeyed(b []byte, key string) (int64, bool, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 || f[0] != key {
			continue
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("parse %s %q: %w", key, f[1], err)
		}
		return v, true, nil
	}
	return 0, false, nil
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return parseUintFile(b)
}

func readKeyed(path, key string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	v, ok, err := parseKeyed(b, key)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if !ok {
		return 0, fmt.Errorf("%s: no %q", path, key)
	}
	return v, nil
}

// parsePids parses cgroup.procs.
func parsePids(b []byte) []int {
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if v, err := strconv.Atoi(f); err == nil && v > 0 {
			out = append(out, v)
		}
	}
	return out
}

// ownCgroup returns this process's path in the hierarchy named by ctrl
// ("" for the v2 unified line "0::").
func ownCgroup(procSelfCgroup []byte, ctrl string) (string, error) {
	for _, line := range strings.Split(string(procSelfCgroup), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if ctrl == "" && parts[0] == "0" && parts[1] == "" {
			return parts[2], nil
		}
		if ctrl != "" {
			for _, c := range strings.Split(parts[1], ",") {
				if c == ctrl {
					return parts[2], nil
				}
			}
		}
	}
	return "", fmt.Errorf("no %q line in /proc/self/cgroup", ctrl)
}

// runName is the cgroup name of one run: the judge's pid lets a restarted
// judge remove what a crashed one left.
func runName(pid int, seq uint64) string { return fmt.Sprintf("run-%d-%d", pid, seq) }

// runOwner parses the judge pid back out of a run cgroup name.
func runOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "run-")
	if !ok {
		return 0, false
	}
	p, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(p)
	return v, err == nil && v > 0
}

// listRunDirs lists run-* directories under dir.
func listRunDirs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), "run-") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// killPidsLoop SIGKILLs the pids procs lists until it lists none.
func killPidsLoop(procs func() ([]int, error), kill func(pid int) error, deadline time.Duration) error {
	end := time.Now().Add(deadline)
	for {
		pids, err := procs()
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		for _, p := range pids {
			_ = kill(p)
		}
		if time.Now().After(end) {
			return fmt.Errorf("cgroup still has %d processes", len(pids))
		}
		time.Sleep(200 * time.Microsecond)
	}
}

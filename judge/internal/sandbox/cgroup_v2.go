//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/cgroups/v3/cgroup2"
	"golang.org/x/sys/unix"
)

type v2Driver struct {
	mount  string // /sys/fs/cgroup
	parent string // relative to mount
	// poll: no memory.peak (Linux < 5.19) or Config.PollMemory; runs
	// sample memory.current instead.
	poll bool
}

// newV2Driver prepares parent for run cgroups. When parent is the judge's
// own cgroup (systemd Delegate=yes gives the service its cgroup to manage),
// the judge first moves itself into parent/supervisor: cgroup v2 forbids
// processes in a cgroup that distributes controllers to children.
func newV2Driver(mount, parent string, poll bool) (*v2Driver, error) {
	d := &v2Driver{mount: mount, parent: parent, poll: poll}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("cgroup v2: %w", err)
	}
	own, err := ownCgroup(self, "")
	if err != nil {
		return nil, fmt.Errorf("cgroup v2: %w", err)
	}
	if strings.Trim(own, "/") == parent {
		sup := filepath.Join(mount, parent, "supervisor")
		if err := os.MkdirAll(sup, 0o755); err != nil {
			return nil, fmt.Errorf("cgroup v2: supervisor leaf: %w", err)
		}
		if err := os.WriteFile(filepath.Join(sup, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
			return nil, fmt.Errorf("cgroup v2: move judge to supervisor leaf: %w", err)
		}
	}
	// Give the parent's children the controllers a run needs; containerd
	// writes cgroup.subtree_control from the root down to the parent.
	if err := os.MkdirAll(filepath.Join(mount, parent), 0o755); err != nil {
		return nil, fmt.Errorf("cgroup v2: parent: %w", err)
	}
	probe, err := cgroup2.Load("/"+path.Join(parent, "probe"), cgroup2.WithMountpoint(mount))
	if err != nil {
		return nil, fmt.Errorf("cgroup v2: %w", err)
	}
	if err := probe.ToggleControllers(v2Controllers, cgroup2.Enable); err != nil {
		return nil, fmt.Errorf("cgroup v2: enable controllers %v under %s (delegated?): %w", v2Controllers, parent, err)
	}
	// The parent has the memory controller (its parent enables it), so
	// it has memory.peak exactly when the kernel has (5.19+).
	if _, err := os.Stat(filepath.Join(mount, parent, "memory.peak")); err != nil {
		d.poll = true
	}
	return d, nil
}

func (d *v2Driver) peakMethod() string {
	if d.poll {
		return PeakV2Polled
	}
	return PeakV2
}

// v2Controllers are enabled for run cgroups.
var v2Controllers = []string{"cpu", "cpuset", "memory", "pids"}

func (d *v2Driver) version() string { return "v2" }

// swapAccounting: v2 always has memory.swap.max when swap is compiled in;
// it is set to 0 per run.
func (d *v2Driver) swapAccounting() bool {
	_, err := os.Stat(filepath.Join(d.mount, d.parent, "memory.swap.max"))
	return err == nil
}

// v2Resources builds the containerd resources of one run. Pure.
func v2Resources(l cgLimits, swap bool) *cgroup2.Resources {
	mem := l.memory
	r := &cgroup2.Resources{
		Memory: &cgroup2.Memory{Max: &mem},
		Pids:   &cgroup2.Pids{Max: l.pids},
	}
	if swap {
		zero := int64(0)
		r.Memory.Swap = &zero
	}
	if l.cpus != "" {
		r.CPU = &cgroup2.CPU{Cpus: l.cpus}
	}
	return r
}

func (d *v2Driver) create(name string) (runCgroup, error) {
	group := "/" + path.Join(d.parent, name)
	m, err := cgroup2.NewManager(d.mount, group, &cgroup2.Resources{})
	if err != nil {
		_ = os.Remove(filepath.Join(d.mount, group))
		return nil, fmt.Errorf("cgroup v2 create %s: %w", group, err)
	}
	r := &v2Run{mount: d.mount, dir: filepath.Join(d.mount, group), m: m, swap: d.swapAccounting(), join: -1, cur: -1, poll: d.poll}
	if d.poll {
		fd, err := unix.Open(filepath.Join(r.dir, "memory.current"), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			_ = r.destroy()
			return nil, fmt.Errorf("cgroup v2 create %s: %w", group, err)
		}
		r.cur = fd
	}
	return r, nil
}

func (d *v2Driver) children() ([]string, error) {
	return listRunDirs(filepath.Join(d.mount, d.parent))
}

func (d *v2Driver) remove(name string) error {
	r := &v2Run{mount: d.mount, dir: filepath.Join(d.mount, d.parent, name), join: -1, cur: -1}
	return r.destroy()
}

// v2Run is one fresh v2 cgroup, used by one run: v2 has no way to reset
// memory.peak before Linux 6.12, so every run gets a cgroup nobody used.
type v2Run struct {
	mount string
	dir   string
	m     *cgroup2.Manager
	swap  bool
	join  int // cgroup.procs, O_WRONLY; -1 until a run joins
	used  bool
	// Polled peak (no memory.peak): memory.current kept open, the largest
	// sample, the run's memory limit.
	poll    bool
	cur     int
	sampled int64
	limit   int64
	buf     [32]byte
}

// reset: a v2 cgroup is never reused.
func (r *v2Run) reset() (bool, error) { return !r.used, nil }

func (r *v2Run) joinFds(bool) ([]int, error) {
	r.used = true
	if r.join < 0 {
		fd, err := unix.Open(filepath.Join(r.dir, "cgroup.procs"), unix.O_WRONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("cgroup v2: %w", err)
		}
		r.join = fd
	}
	return []int{r.join}, nil
}

func (r *v2Run) apply(l cgLimits) error {
	r.limit = l.memory
	if err := r.m.Update(v2Resources(l, r.swap)); err != nil {
		return fmt.Errorf("cgroup v2 limits %s: %w", r.dir, err)
	}
	return nil
}

// parseCPUStatUsage returns usage_usec of a cpu.stat file. Pure.
func parseCPUStatUsage(b []byte) (time.Duration, error) {
	v, ok, err := parseKeyed(b, "usage_usec")
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errors.New("cpu.stat: no usage_usec")
	}
	return time.Duration(v) * time.Microsecond, nil
}

func (r *v2Run) cpuUsage() (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join(r.dir, "cpu.stat"))
	if err != nil {
		return 0, err
	}
	return parseCPUStatUsage(b)
}

func (r *v2Run) pollsMemory() bool { return r.poll }

// current reads memory.current through the kept descriptor.
func (r *v2Run) current() (int64, error) {
	n, err := retryEINTR(func() (int, error) { return unix.Pread(r.cur, r.buf[:], 0) })
	if err != nil {
		return 0, fmt.Errorf("cgroup v2 read %s/memory.current: %w", r.dir, err)
	}
	return parseUintFile(r.buf[:n])
}

func (r *v2Run) sampleMemory() {
	if !r.poll {
		return
	}
	if v, err := r.current(); err == nil && v > r.sampled {
		r.sampled = v
	}
}

func (r *v2Run) memoryPeak() (int64, error) {
	if !r.poll {
		return readInt(filepath.Join(r.dir, "memory.peak"))
	}
	now, err := r.current()
	if err != nil {
		return 0, err
	}
	// "max": how often the usage was about to go over memory.max (the
	// cgroup is fresh, so every one is this run's).
	hits, err := readKeyed(filepath.Join(r.dir, "memory.events"), "max")
	if err != nil {
		return 0, err
	}
	return pollPeak(r.sampled, now, r.limit, hits > 0), nil
}

func (r *v2Run) oomKilled() (bool, error) {
	v, err := readKeyed(filepath.Join(r.dir, "memory.events"), "oom_kill")
	return v > 0, err
}

func (r *v2Run) kill() error {
	procs := filepath.Join(r.dir, "cgroup.procs")
	b, err := os.ReadFile(procs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cgroup v2 kill: %w", err)
	}
	if len(parsePids(b)) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(r.dir, "cgroup.kill")); errors.Is(err, os.ErrNotExist) {
		return r.freezeKill(procs)
	}
	m := r.m
	if m == nil {
		m, err = cgroup2.Load(strings.TrimPrefix(r.dir, r.mount), cgroup2.WithMountpoint(r.mount))
		if err != nil {
			return fmt.Errorf("cgroup v2 kill: %w", err)
		}
	}
	if err := m.Kill(); err != nil {
		return fmt.Errorf("cgroup v2 kill: %w", err)
	}
	err = killPidsLoop(func() ([]int, error) {
		b, err := os.ReadFile(procs)
		return parsePids(b), err
	}, func(int) error { return nil }, 5*time.Second)
	if err != nil {
		return fmt.Errorf("cgroup v2 kill %s: %w", r.dir, err)
	}
	return nil
}

// freezeKill kills every process of the cgroup on a kernel without
// cgroup.kill (before Linux 5.14): frozen (a fork bomb stops forking; a
// fatal signal still reaches a frozen task), SIGKILL to each member until
// none is left, thawed. containerd's own fallback would do the same but
// log a warning on every kill.
func (r *v2Run) freezeKill(procs string) error {
	freeze := filepath.Join(r.dir, "cgroup.freeze")
	_ = os.WriteFile(freeze, []byte("1"), 0)
	err := killPidsLoop(func() ([]int, error) {
		b, err := os.ReadFile(procs)
		return parsePids(b), err
	}, func(pid int) error { return unix.Kill(pid, unix.SIGKILL) }, 5*time.Second)
	_ = os.WriteFile(freeze, []byte("0"), 0)
	if err != nil {
		return fmt.Errorf("cgroup v2 kill %s: %w", r.dir, err)
	}
	return nil
}

func (r *v2Run) destroy() error {
	if err := r.kill(); err != nil {
		return err
	}
	if r.join >= 0 {
		_ = unix.Close(r.join)
		r.join = -1
	}
	if r.cur >= 0 {
		_ = unix.Close(r.cur)
		r.cur = -1
	}
	var err error
	for i := 0; i < 50; i++ {
		err = os.Remove(r.dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("cgroup v2 destroy %s: %w", r.dir, err)
}

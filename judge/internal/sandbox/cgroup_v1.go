//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/cgroups/v3/cgroup1"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// v1Controllers are the hierarchies a run cgroup has on v1. A run joins
// cpuacct, memory, pids and freezer; cpuset only when it is pinned to a CPU
// (otherwise it stays in the judge's cpuset, which is what "any CPU" means).
var v1Controllers = []cgroup1.Name{cgroup1.Cpuacct, cgroup1.Memory, cgroup1.Pids, cgroup1.Cpuset, cgroup1.Freezer}

// memcgChargeBatch is the kernel's MEMCG_CHARGE_BATCH: a task charging one
// page to a memory cgroup charges this many and keeps the rest in a per-CPU
// cache, so usage (and the peak) of any cgroup, fresh or not, can read up to
// this many pages per CPU above what its tasks hold.
const memcgChargeBatch = 64

type v1Driver struct {
	root   string // /sys/fs/cgroup
	parent string // relative, no slashes at the ends
	memsw  bool
	hier   cgroup1.Hierarchy
	// slack is the memory usage a used cgroup may still show and be reset
	// (see v1Reusable): per-CPU kernel caches, memcgChargeBatch pages per CPU.
	slack int64
	// poll: Config.PollMemory, the peak is sampled as on a v2 kernel
	// without memory.peak (memory.usage_in_bytes, memory.failcnt).
	poll bool
}

func newV1Driver(root, parent string, poll bool) (*v1Driver, error) {
	for _, c := range v1Controllers {
		if _, err := os.Stat(filepath.Join(root, string(c), "cgroup.procs")); err != nil {
			return nil, fmt.Errorf("cgroup v1: controller %s not mounted at %s: %w", c, root, err)
		}
	}
	d := &v1Driver{root: root, parent: parent, poll: poll,
		slack: int64(memcgChargeBatch*os.Getpagesize()) * int64(runtime.NumCPU())}
	_, err := os.Stat(filepath.Join(root, "memory", "memory.memsw.limit_in_bytes"))
	d.memsw = err == nil
	d.hier = func() ([]cgroup1.Subsystem, error) {
		return []cgroup1.Subsystem{
			cgroup1.NewCpuacct(root),
			cgroup1.NewMemory(root, cgroup1.OptionalSwap()),
			cgroup1.NewPids(root),
			cgroup1.NewCpuset(root),
			cgroup1.NewFreezer(root),
		}, nil
	}
	return d, nil
}

func (d *v1Driver) version() string { return "v1" }

func (d *v1Driver) peakMethod() string {
	if d.poll {
		return PeakV1Polled
	}
	return PeakV1
}
func (d *v1Driver) swapAccounting() bool { return d.memsw }

func (d *v1Driver) create(name string) (runCgroup, error) {
	rel := "/" + path.Join(d.parent, name)
	// containerd makes the directories (and copies cpuset.cpus/mems from
	// the parent); limits are written per run through kept descriptors.
	if _, err := cgroup1.New(cgroup1.StaticPath(rel), &specs.LinuxResources{}, cgroup1.WithHierarchy(d.hier)); err != nil {
		// New may have created some of the directories.
		for _, c := range v1Controllers {
			_ = os.Remove(filepath.Join(d.root, string(c), rel))
		}
		return nil, fmt.Errorf("cgroup v1 create %s: %w", rel, err)
	}
	r, err := d.open(rel)
	if err != nil {
		_ = r.destroy()
		return nil, err
	}
	return r, nil
}

func (d *v1Driver) children() ([]string, error) {
	return listRunDirs(filepath.Join(d.root, "memory", d.parent))
}

func (d *v1Driver) remove(name string) error {
	r, err := d.open("/" + path.Join(d.parent, name))
	if err != nil {
		// A partial set (a crash between mkdirs): remove what is there.
		errs := []error{err}
		for _, c := range v1Controllers {
			if err := os.Remove(r.dir(c)); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		r.closeFds()
		return errors.Join(errs...)
	}
	return r.destroy()
}

// v1 control files a run cgroup keeps open, by role.
const (
	v1Join = iota // cgroup.procs, write "0" to join (one per hierarchy, below)
	v1CPUUsage
	v1MemMax
	v1MemUsage
	v1MemStat
	v1MemOOM
	v1MemLimit
	v1MemswLimit
	v1PidsMax
	v1PidsCurrent
	v1CpusetCpus
	v1FreezerState
	v1MemKmem
	v1MemFailcnt
	v1NumFiles
)

var v1Files = [v1NumFiles]struct {
	ctrl     cgroup1.Name
	name     string
	flags    int
	optional bool // memsw files exist only with swap accounting
}{
	v1Join:         {"", "cgroup.procs", unix.O_WRONLY, false},
	v1CPUUsage:     {cgroup1.Cpuacct, "cpuacct.usage", unix.O_RDWR, false},
	v1MemMax:       {cgroup1.Memory, "memory.max_usage_in_bytes", unix.O_RDWR, false},
	v1MemUsage:     {cgroup1.Memory, "memory.usage_in_bytes", unix.O_RDONLY, false},
	v1MemStat:      {cgroup1.Memory, "memory.stat", unix.O_RDONLY, false},
	v1MemOOM:       {cgroup1.Memory, "memory.oom_control", unix.O_RDONLY, false},
	v1MemLimit:     {cgroup1.Memory, "memory.limit_in_bytes", unix.O_WRONLY, false},
	v1MemswLimit:   {cgroup1.Memory, "memory.memsw.limit_in_bytes", unix.O_WRONLY, true},
	v1PidsMax:      {cgroup1.Pids, "pids.max", unix.O_WRONLY, false},
	v1PidsCurrent:  {cgroup1.Pids, "pids.current", unix.O_RDONLY, false},
	v1CpusetCpus:   {cgroup1.Cpuset, "cpuset.cpus", unix.O_WRONLY, false},
	v1FreezerState: {cgroup1.Freezer, "freezer.state", unix.O_RDWR, false},
	v1MemKmem:      {cgroup1.Memory, "memory.kmem.usage_in_bytes", unix.O_RDONLY, true},
	v1MemFailcnt:   {cgroup1.Memory, "memory.failcnt", unix.O_RDWR, false},
}

// v1Run is one set of v1 cgroups (one per controller, same name), used by
// one run at a time and reused after an exact reset. Its control files stay
// open: a pread/pwrite costs a few microseconds, an open+read+close of a
// cgroup file ten times that. Not cgroup.procs: on v1 an open cgroup.procs
// keeps serving the pid list it loaded first, so it is opened per listing.
type v1Run struct {
	d    *v1Driver
	rel  string
	fd   [v1NumFiles]int
	join [5]int // cgroup.procs per v1Controllers entry, O_WRONLY
	lim  cgLimits
	used bool  // a run has joined it since it was made or reset
	bad  bool  // a limit write or a thaw failed: never reuse
	oom0 int64 // oom_kill count when the current run started
	oom  int64 // oom_kill count last read
	// sampled is the largest usage sampled during the run (d.poll).
	sampled int64
	rdbuf   [8192]byte
}

func (r *v1Run) dir(c cgroup1.Name) string { return filepath.Join(r.d.root, string(c), r.rel) }

// open opens the control files of an existing set. On error the returned
// run still names the set (for removal) and holds no descriptors.
func (d *v1Driver) open(rel string) (*v1Run, error) {
	r := &v1Run{d: d, rel: rel, lim: cgLimits{memory: -1, pids: -1}}
	for i := range r.fd {
		r.fd[i] = -1
	}
	for i := range r.join {
		r.join[i] = -1
	}
	for i, c := range v1Controllers {
		fd, err := unix.Open(filepath.Join(r.dir(c), "cgroup.procs"), unix.O_WRONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			r.closeFds()
			return r, fmt.Errorf("cgroup v1 open %s: %w", rel, err)
		}
		r.join[i] = fd
	}
	for i, f := range v1Files {
		if i == v1Join || (f.optional && !d.memsw) {
			continue
		}
		fd, err := unix.Open(filepath.Join(r.dir(f.ctrl), f.name), f.flags|unix.O_CLOEXEC, 0)
		if err != nil {
			r.closeFds()
			return r, fmt.Errorf("cgroup v1 open %s: %w", rel, err)
		}
		r.fd[i] = fd
	}
	oom, err := r.oomCount()
	if err != nil {
		r.closeFds()
		return r, err
	}
	r.oom0 = oom
	return r, nil
}

func (r *v1Run) closeFds() {
	for i, fd := range r.fd {
		if fd >= 0 {
			_ = unix.Close(fd)
			r.fd[i] = -1
		}
	}
	for i, fd := range r.join {
		if fd >= 0 {
			_ = unix.Close(fd)
			r.join[i] = -1
		}
	}
}

// read returns the current content of a kept control file (a read at
// offset 0 regenerates it).
func (r *v1Run) read(f int) ([]byte, error) {
	n, err := retryEINTR(func() (int, error) { return unix.Pread(r.fd[f], r.rdbuf[:], 0) })
	if err != nil {
		return nil, fmt.Errorf("cgroup v1 read %s%s: %w", r.rel, "/"+v1Files[f].name, err)
	}
	return r.rdbuf[:n], nil
}

func (r *v1Run) readInt(f int) (int64, error) {
	b, err := r.read(f)
	if err != nil {
		return 0, err
	}
	return parseUintFile(b)
}

func (r *v1Run) write(f int, v string) error {
	if _, err := retryEINTR(func() (int, error) { return unix.Pwrite(r.fd[f], []byte(v), 0) }); err != nil {
		return fmt.Errorf("cgroup v1 write %q to %s/%s: %w", v, r.rel, v1Files[f].name, err)
	}
	return nil
}

// v1Write is one control-file write.
type v1Write struct {
	file  int
	value string
}

// v1LimitWrites returns the writes that take a v1 cgroup from limits cur
// to next, skipping what is unchanged, in an order the kernel accepts
// (memory.memsw.limit_in_bytes may never be below memory.limit_in_bytes).
// cur.memory and cur.pids are -1 for unlimited. Pure.
func v1LimitWrites(cur, next cgLimits, memsw bool) []v1Write {
	var w []v1Write
	if next.memory != cur.memory {
		mem := v1Write{v1MemLimit, strconv.FormatInt(next.memory, 10)}
		sw := v1Write{v1MemswLimit, mem.value}
		switch {
		case !memsw:
			w = append(w, mem)
		case cur.memory >= 0 && next.memory > cur.memory:
			// raising: memory+swap first
			w = append(w, sw, mem)
		default:
			// lowering (or from unlimited): memory first
			w = append(w, mem, sw)
		}
	}
	if next.pids != cur.pids {
		w = append(w, v1Write{v1PidsMax, strconv.FormatInt(next.pids, 10)})
	}
	if next.cpus != "" && next.cpus != cur.cpus {
		w = append(w, v1Write{v1CpusetCpus, next.cpus})
	}
	return w
}

func (r *v1Run) apply(l cgLimits) error {
	for _, w := range v1LimitWrites(r.lim, l, r.d.memsw) {
		if err := r.write(w.file, w.value); err != nil {
			// The kernel may have taken part of it: never reuse.
			r.bad = true
			return err
		}
	}
	cpus := r.lim.cpus
	if l.cpus != "" {
		cpus = l.cpus
	}
	r.lim = cgLimits{memory: l.memory, pids: l.pids, cpus: cpus}
	return nil
}

func (r *v1Run) joinFds(pinned bool) ([]int, error) {
	r.used = true
	out := make([]int, 0, len(r.join))
	for i, c := range v1Controllers {
		if c == cgroup1.Cpuset && !pinned {
			continue
		}
		out = append(out, r.join[i])
	}
	return out, nil
}

// memStatKept are the memory.stat counters of pages that outlive a run:
// page cache (files it wrote or read first), tmpfs, mapped files, swap.
var memStatKept = []string{"cache", "rss_huge", "shmem", "mapped_file", "swap", "dirty", "writeback", "unevictable"}

// v1KmemSlack is the kernel memory (memory.kmem.usage_in_bytes) a used
// cgroup may still have charged and be reused: a constant, not per CPU.
// memory.stat has no slab line on v1, so dentries and inodes a run made
// (e.g. by looking up thousands of missing names) would otherwise stay
// charged and show in the next run's peak, up to the per-CPU slack.
const v1KmemSlack = 64 << 10

// v1Reusable decides from memory.usage_in_bytes, memory.kmem.usage_in_bytes
// (kmem < 0: not accounted) and memory.stat whether a used, empty memory
// cgroup can start a run as if fresh: no page that outlives a run is
// charged to it, kernel memory left is at most v1KmemSlack, and all usage
// still shows is what the kernel caches per CPU, at most slack: the charge
// stock (which any cgroup's peak includes, fresh or not) and the last
// anonymous pages of the dead processes waiting in per-CPU LRU batches to
// be freed. Pure.
func v1Reusable(usage, kmem int64, stat []byte, slack int64) (bool, error) {
	if usage > slack || kmem > v1KmemSlack {
		return false, nil
	}
	for _, k := range memStatKept {
		v, _, err := parseKeyed(stat, k)
		if err != nil {
			return false, err
		}
		if v != 0 {
			return false, nil
		}
	}
	return true, nil
}

// reset makes a used set start over exactly: empty, thawed, no page left
// charged, the memory peak and the CPU counter back to zero. It reports
// false when that cannot be done (the caller then uses a fresh set).
func (r *v1Run) reset() (bool, error) {
	if r.bad {
		return false, nil
	}
	if !r.used {
		return true, nil
	}
	if n, err := r.readInt(v1PidsCurrent); err != nil || n != 0 {
		return false, err
	}
	usage, err := r.readInt(v1MemUsage)
	if err != nil {
		return false, err
	}
	stat, err := r.read(v1MemStat)
	if err != nil {
		return false, err
	}
	kmem := int64(-1)
	if r.fd[v1MemKmem] >= 0 {
		if kmem, err = r.readInt(v1MemKmem); err != nil {
			return false, err
		}
	}
	if ok, err := v1Reusable(usage, kmem, stat, r.d.slack); !ok || err != nil {
		return false, err
	}
	// "0" resets the watermark to the current usage (only the kernel's
	// per-CPU caches) and the CPU counter of every CPU to zero. The OOM
	// kill counter cannot be reset: the run compares with its value now
	// (as read at the end of the last run: nothing was left to kill since).
	if err := r.write(v1MemMax, "0"); err != nil {
		return false, err
	}
	if err := r.write(v1CPUUsage, "0"); err != nil {
		return false, err
	}
	if r.d.poll {
		if err := r.write(v1MemFailcnt, "0"); err != nil {
			return false, err
		}
		r.sampled = 0
	}
	r.oom0 = r.oom
	r.used = false
	return true, nil
}

func (r *v1Run) cpuUsage() (time.Duration, error) {
	v, err := r.readInt(v1CPUUsage)
	return time.Duration(v), err
}

func (r *v1Run) pollsMemory() bool { return r.d.poll }

func (r *v1Run) sampleMemory() {
	if !r.d.poll {
		return
	}
	if v, err := r.readInt(v1MemUsage); err == nil && v > r.sampled {
		r.sampled = v
	}
}

func (r *v1Run) memoryPeak() (int64, error) {
	if !r.d.poll {
		return r.readInt(v1MemMax)
	}
	now, err := r.readInt(v1MemUsage)
	if err != nil {
		return 0, err
	}
	// failcnt: how often the usage hit the limit (reset with the cgroup).
	fails, err := r.readInt(v1MemFailcnt)
	if err != nil {
		return 0, err
	}
	return pollPeak(r.sampled, now, r.lim.memory, fails > 0), nil
}

func (r *v1Run) oomCount() (int64, error) {
	b, err := r.read(v1MemOOM)
	if err != nil {
		return 0, err
	}
	v, ok, err := parseKeyed(b, "oom_kill")
	if err != nil || !ok {
		return 0, fmt.Errorf("cgroup v1 %s/memory.oom_control: no oom_kill (%v)", r.rel, err)
	}
	r.oom = v
	return v, nil
}

// oomKilled: the kernel's oom_kill counter cannot be reset, so it is
// compared with its value when the run started.
func (r *v1Run) oomKilled() (bool, error) {
	v, err := r.oomCount()
	return v > r.oom0, err
}

// kill freezes the cgroup so nothing can fork while it is being emptied,
// SIGKILLs every member, thaws (a frozen task cannot die), then waits.
func (r *v1Run) kill() error {
	// Fast path: pids.current counts every task not yet reaped.
	if r.fd[v1PidsCurrent] >= 0 {
		if n, err := r.readInt(v1PidsCurrent); err == nil && n == 0 {
			return nil
		}
	}
	procsFile := filepath.Join(r.dir(cgroup1.Freezer), "cgroup.procs")
	procs := func() ([]int, error) {
		b, err := os.ReadFile(procsFile)
		if err != nil {
			return nil, err
		}
		return parsePids(b), nil
	}
	pids, err := procs()
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cgroup v1 kill: %w", err)
	}
	if len(pids) == 0 {
		return nil
	}
	frozen := false
	if r.fd[v1FreezerState] >= 0 && r.write(v1FreezerState, "FROZEN") == nil {
		for i := 0; i < 200; i++ {
			s, err := r.read(v1FreezerState)
			if err != nil {
				break
			}
			if strings.TrimSpace(string(s)) == "FROZEN" {
				frozen = true
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	if pids, err := procs(); err == nil {
		for _, p := range pids {
			_ = unix.Kill(p, unix.SIGKILL)
		}
	}
	if r.fd[v1FreezerState] >= 0 && r.write(v1FreezerState, "THAWED") != nil {
		r.bad = true
	}
	err = killPidsLoop(procs, func(p int) error { return unix.Kill(p, unix.SIGKILL) }, 5*time.Second)
	if err != nil {
		return fmt.Errorf("cgroup v1 kill %s (frozen=%v): %w", r.rel, frozen, err)
	}
	return nil
}

func (r *v1Run) destroy() error {
	if err := r.kill(); err != nil {
		return err
	}
	r.closeFds()
	var errs []error
	for _, c := range v1Controllers {
		d := r.dir(c)
		var err error
		for i := 0; i < 50; i++ {
			err = os.Remove(d)
			if err == nil || errors.Is(err, os.ErrNotExist) {
				err = nil
				break
			}
			// EBUSY while the last task is being reaped.
			time.Sleep(time.Millisecond)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cgroup v1 destroy %s: %w", r.rel, err)
	}
	return nil
}

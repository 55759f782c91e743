//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// Sandbox runs programs in pre-forked containers, one run per container at
// a time, up to Config.Slots at once. Every slot has its own uid and gid
// (Config.UIDBase+slot) and at most one container, kept between runs.
// Safe for concurrent use.
type Sandbox struct {
	cfg Config
	log *slog.Logger
	cg  cgDriver

	// spare holds fresh, empty cgroups made ahead of time; used ones that
	// cannot be reset exactly are destroyed in the background. Both keep
	// cgroup mkdir/rmdir off a run's critical path.
	spare chan runCgroup
	bg    sync.WaitGroup

	mu     sync.Mutex
	slots  []*slot
	wake   chan struct{} // closed (and replaced) when a slot is freed
	closed bool
}

// slot is one run at a time under its own uid and gid.
type slot struct {
	idx      int
	uid, gid int
	busy     bool
	c        *container // kept between runs; nil: none yet
}

// cgroupSeq numbers run cgroups process-wide: two Sandboxes of one process
// never share a name.
var cgroupSeq atomic.Uint64

// New checks the host (root, cgroups, seccomp), removes run cgroups left by
// dead judges, and starts Config.Prewarm containers.
func New(cfg Config) (*Sandbox, error) {
	cfg = cfg.withDefaults()
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("sandbox new: %w: must run as root (namespaces, cgroups, mounts)", ErrSandbox)
	}
	if api, err := seccomp.GetAPI(); err != nil || api < 5 {
		return nil, fmt.Errorf("sandbox new: %w: libseccomp API level %d < 5 (user notification needs libseccomp >= 2.5 and Linux >= 5.0): %v", ErrSandbox, api, err)
	}
	cg, err := newCgDriver(cfg.CgroupParent, cfg.PollMemory)
	if err != nil {
		return nil, fmt.Errorf("sandbox new: %w: %w", ErrSandbox, err)
	}
	s := &Sandbox{cfg: cfg, log: cfg.Logger.With("component", "sandbox"), cg: cg,
		spare: make(chan runCgroup, cfg.Slots), wake: make(chan struct{})}
	ids := idRange{uid: cfg.UIDBase, gid: cfg.GIDBase, n: cfg.Slots}
	if err := claimIDs(s, ids); err != nil {
		return nil, fmt.Errorf("sandbox new: %w: %w", ErrSandbox, err)
	}
	for i := 0; i < cfg.Slots; i++ {
		s.slots = append(s.slots, &slot{idx: i, uid: cfg.UIDBase + i, gid: cfg.GIDBase + i})
	}
	s.removeStale()
	for i := 0; i < cfg.Slots; i++ {
		c, err := s.newCgroup()
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("sandbox new: %w: %w", ErrSandbox, err)
		}
		s.spare <- c
	}
	for i := 0; i < cfg.Prewarm; i++ {
		sl := s.slots[i]
		c, err := startContainer(cfg, sl.uid, sl.gid)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("sandbox new: %w: %w", ErrSandbox, err)
		}
		sl.c = c
	}
	if !cg.swapAccounting() && hostHasSwap() {
		s.log.Warn("host has swap but no swap accounting: runs could use swap beyond their memory limit (boot with swapaccount=1 or disable swap)")
	}
	s.log.Info("sandbox ready", "cgroup", cg.version(), "cgroup_mode", CgroupMode(),
		"swap_accounting", cg.swapAccounting(), "memory_peak", cg.peakMethod(), "cgroup_parent", cfg.CgroupParent,
		"slots", cfg.Slots, "ids", ids.String())
	return s, nil
}

// MemoryPeakMethod names how runs' memory peaks are measured: PeakV1,
// PeakV2, or PeakV2Polled / PeakV1Polled (no kernel watermark, or
// Config.PollMemory).
func (s *Sandbox) MemoryPeakMethod() string { return s.cg.peakMethod() }

// Slots is how many runs may execute at once (Config.Slots).
func (s *Sandbox) Slots() int { return len(s.slots) }

// SlotUser is the uid and gid slot's programs run as: a work dir a run
// pinned to the slot (Spec.Slot) may write must be writable by them.
func (s *Sandbox) SlotUser(slot int) (uid, gid int) {
	if slot < 0 || slot >= len(s.slots) {
		return -1, -1
	}
	return s.slots[slot].uid, s.slots[slot].gid
}

// hostHasSwap reports whether any swap area is active.
func hostHasSwap() bool {
	b, err := os.ReadFile("/proc/swaps")
	if err != nil {
		return false
	}
	lines := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.TrimSpace(l) != "" {
			lines++
		}
	}
	return lines > 1 // the header line
}

// removeStale deletes run cgroups whose judge process is gone.
func (s *Sandbox) removeStale() {
	names, err := s.cg.children()
	if err != nil {
		s.log.Warn("list run cgroups", "err", err)
		return
	}
	for _, n := range names {
		pid, ok := runOwner(n)
		if !ok || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
			continue
		}
		if err := s.cg.remove(n); err != nil {
			s.log.Warn("remove stale run cgroup", "cgroup", n, "err", err)
		} else {
			s.log.Info("removed stale run cgroup", "cgroup", n)
		}
	}
}

// Close waits for running runs to end (their wall limits bound that), kills
// the containers and removes every cgroup the sandbox made.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for {
		busy := false
		for _, sl := range s.slots {
			busy = busy || sl.busy
		}
		if !busy {
			break
		}
		w := s.wake
		s.mu.Unlock()
		<-w
		s.mu.Lock()
	}
	var idle []*container
	for _, sl := range s.slots {
		if sl.c != nil {
			idle = append(idle, sl.c)
			sl.c = nil
		}
	}
	s.mu.Unlock()
	for _, c := range idle {
		s.discard(c)
	}
	s.bg.Wait()
	releaseIDs(s)
	var errs []error
	for {
		select {
		case c := <-s.spare:
			errs = append(errs, c.destroy())
			continue
		default:
		}
		break
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sandbox close: %w", err)
	}
	return nil
}

func (s *Sandbox) newCgroup() (runCgroup, error) {
	return s.cg.create(runName(os.Getpid(), cgroupSeq.Add(1)))
}

// discard kills a container and recycles its cgroup.
func (s *Sandbox) discard(c *container) {
	c.close()
	if c.cg != nil {
		s.recycle(c.cg)
		c.cg = nil
	}
}

// takeCgroup returns a fresh cgroup, from the spares when there is one,
// and has a spare made in its place in the background.
func (s *Sandbox) takeCgroup() (runCgroup, error) {
	defer s.refill()
	select {
	case c := <-s.spare:
		return c, nil
	default:
		return s.newCgroup()
	}
}

// refill makes a spare cgroup in the background, unless there are enough.
func (s *Sandbox) refill() {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed || len(s.spare) == cap(s.spare) {
			return
		}
		c, err := s.newCgroup()
		if err != nil {
			s.log.Error("create spare cgroup", "err", err)
			return
		}
		select {
		case s.spare <- c:
		default:
			if err := c.destroy(); err != nil {
				s.log.Error("destroy spare cgroup", "err", err)
			}
		}
	}()
}

// recycle destroys a used cgroup in the background.
func (s *Sandbox) recycle(used runCgroup) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		if err := used.destroy(); err != nil {
			s.log.Error("destroy run cgroup", "err", err)
		}
	}()
}

// CgroupVersion is "v1" or "v2": what this sandbox measures with.
func (s *Sandbox) CgroupVersion() string { return s.cg.version() }

// acquire takes a free slot: want when >= 0 (waiting for it), else
// preferably one whose container has dir at /w already (then nothing is
// mounted for the run), else one with a container, else any.
func (s *Sandbox) acquire(ctx context.Context, want int, dir dirKey) (*slot, error) {
	s.mu.Lock()
	for {
		if s.closed {
			s.mu.Unlock()
			return nil, ErrClosed
		}
		var pick *slot
		if want >= 0 {
			if !s.slots[want].busy {
				pick = s.slots[want]
			}
		} else {
			rank := -1
			for _, sl := range s.slots {
				if sl.busy {
					continue
				}
				r := 0
				if sl.c != nil {
					r = 1
					if sl.c.dir == dir {
						r = 2
					}
				}
				if r > rank {
					pick, rank = sl, r
				}
			}
		}
		if pick != nil {
			pick.busy = true
			s.mu.Unlock()
			return pick, nil
		}
		w := s.wake
		s.mu.Unlock()
		select {
		case <-w:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
	}
}

// release frees sl after a run, keeping its container unless it is dead.
func (s *Sandbox) release(sl *slot) {
	var dead *container
	s.mu.Lock()
	if sl.c != nil && (sl.c.dead || s.closed) {
		dead, sl.c = sl.c, nil
	}
	s.mu.Unlock()
	if dead != nil {
		s.discard(dead)
	}
	s.mu.Lock()
	sl.busy = false
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
}

// statDir identifies a work directory.
func statDir(dir string) (dirKey, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return dirKey{}, fmt.Errorf("work dir %s: %w", dir, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return dirKey{}, fmt.Errorf("work dir %s: not a directory", dir)
	}
	return dirKey{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil
}

// rlimits derives the run's resource limits.
func rlimits(l Limits) []rlimit {
	inf := uint64(unix.RLIM_INFINITY)
	cpuSec := uint64((l.CPU+time.Second-1)/time.Second) + 1
	as := inf
	if l.AddressSpace > 0 {
		as = uint64(l.AddressSpace)
	}
	return []rlimit{
		{unix.RLIMIT_CPU, cpuSec, cpuSec + 1},
		{unix.RLIMIT_AS, as, as},
		{unix.RLIMIT_STACK, uint64(l.Stack), uint64(l.Stack)},
		{unix.RLIMIT_FSIZE, uint64(l.Output), uint64(l.Output)},
		{unix.RLIMIT_NOFILE, uint64(l.OpenFiles), uint64(l.OpenFiles)},
		// RLIMIT_CORE is the init's (coreLimit), inherited and pinned by
		// the filter.
		{unix.RLIMIT_MEMLOCK, 0, 0},
		{unix.RLIMIT_MSGQUEUE, 0, 0},
		// Per-uid quotas, counted for the slot's own uid (no other process
		// has it): processes and threads as the pids cgroup, queued
		// signals bounded, no real-time or raised priority.
		{unix.RLIMIT_NPROC, uint64(l.Procs), uint64(l.Procs)},
		{unix.RLIMIT_SIGPENDING, sigPendingLimit, sigPendingLimit},
		{unix.RLIMIT_RTPRIO, 0, 0},
		{unix.RLIMIT_RTTIME, 0, 0},
		{unix.RLIMIT_NICE, 0, 0},
	}
}

// sigPendingLimit is every run's RLIMIT_SIGPENDING: queued signals of the
// slot's uid (real-time signals, timers' overruns), enough for any
// solution, a few hundred KiB of kernel memory at most.
const sigPendingLimit = 1024

var defaultEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/w", "LANG=C.UTF-8"}

// Run runs spec to completion and reports it. The error is non-nil only
// for an invalid spec (ErrInvalidSpec), a closed sandbox (ErrClosed) or a
// sandbox failure (ErrSandbox, with Result.Status SandboxError); a program
// that misbehaves is a Result, not an error.
func (s *Sandbox) Run(ctx context.Context, spec Spec) (Result, error) {
	res := Result{Cgroup: s.cg.version(), ExitCode: -1}
	pl, err := s.plan(spec)
	if err != nil {
		return failed(res, err)
	}
	sl, err := s.acquire(ctx, pl.want, pl.dir)
	if err != nil {
		if errors.Is(err, ErrClosed) {
			return failed(res, err)
		}
		return failed(res, fmt.Errorf("sandbox run: %w", err))
	}
	defer s.release(sl)
	return s.runIn(ctx, sl, pl, nil)
}

// failed is res as a sandbox error.
func failed(res Result, err error) (Result, error) {
	res.Status = StatusSandboxError
	res.Error = err.Error()
	return res, err
}

// planned is a checked Spec with its defaults, limits, work dir and slot
// (-1: any).
type planned struct {
	spec Spec
	lim  Limits
	dir  dirKey
	want int
}

func (s *Sandbox) plan(spec Spec) (planned, error) {
	if err := spec.validate(); err != nil {
		return planned{}, err
	}
	if spec.Profile == "" {
		spec.Profile = ProfileRun
	}
	if spec.Env == nil {
		spec.Env = defaultEnv
	}
	pl := planned{spec: spec, lim: spec.Limits.withDefaults(spec.Profile), want: -1}
	dir, err := statDir(spec.Dir)
	if err != nil {
		return pl, fmt.Errorf("sandbox run: %w: %w", ErrSandbox, err)
	}
	pl.dir = dir
	if spec.Slot != nil {
		if pl.want = *spec.Slot; pl.want >= len(s.slots) {
			return pl, fmt.Errorf("sandbox run: %w: slot %d of %d", ErrInvalidSpec, pl.want, len(s.slots))
		}
	}
	return pl, nil
}

// runIn runs pl in sl (taken by the caller). pp, when not nil, holds the
// program's stdin and stdout (RunInteractive): runIn owns them and closes
// them once the program has them, or on failure; pp.end receives the
// moment the judge learnt that the program ended.
func (s *Sandbox) runIn(ctx context.Context, sl *slot, pl planned, pp *stdioPipes) (Result, error) {
	res := Result{Cgroup: s.cg.version(), ExitCode: -1}
	r := &runState{s: s, spec: pl.spec, lim: pl.lim, dir: pl.dir, pipes: [2]int{-1, -1}}
	if pp != nil {
		r.pipes, r.hold = pp.fds, pp.hold
	}
	defer r.cleanup()
	fail := func(err error) (Result, error) { return failed(res, err) }
	res.Slot, res.UID = sl.idx, sl.uid
	if sl.c == nil {
		var err error
		if sl.c, err = startContainer(s.cfg, sl.uid, sl.gid); err != nil {
			return fail(fmt.Errorf("sandbox run: %w: %w", ErrSandbox, err))
		}
	}
	c := sl.c
	c.runs++
	r.c = c
	lim := pl.lim

	if err := r.prepare(); err != nil {
		return fail(fmt.Errorf("sandbox run: %w: %w", ErrSandbox, err))
	}
	obs, err := r.execute(ctx)
	if pp != nil {
		pp.end = r.end
	}
	if err != nil {
		return fail(fmt.Errorf("sandbox run: %w: %w", ErrSandbox, err))
	}
	res.Status, res.Syscall = classify(obs, lim)
	res.CPU = obs.cpu
	res.CPUMs = obs.cpu.Milliseconds()
	res.Wall = r.wall
	res.WallMs = r.wall.Milliseconds()
	res.MemoryKB = obs.memPeak / 1024
	if res.Status == StatusMemoryLimit && obs.oomKilled {
		// The cgroup killed it on reaching the limit: its peak was the
		// limit at least, whatever the last sample of a polled peak
		// (sampled every few ms) had seen before the spike.
		res.MemoryKB = max(res.MemoryKB, lim.Memory/1024)
	}
	res.ExitCode = obs.exitCode
	if !obs.exited {
		res.ExitCode = -1
		res.Signal = int(obs.signal)
		res.SignalName = unix.SignalName(obs.signal)
	}
	if r.stdout != nil {
		res.Stdout, res.StdoutTruncated = r.stdout.result()
	}
	res.Stderr, res.StderrTruncated = r.stderr.result()
	if obs.sandboxErr != "" {
		res.Error = obs.sandboxErr
		return res, fmt.Errorf("sandbox run: %w: %s", ErrSandbox, obs.sandboxErr)
	}
	if obs.killed == killCancel {
		res.Error = ctx.Err().Error()
		return res, fmt.Errorf("sandbox run: %w", ctx.Err())
	}
	return res, nil
}

// runState holds one run's resources.
type runState struct {
	s    *Sandbox
	c    *container
	spec Spec
	lim  Limits

	dir      dirKey
	cg       runCgroup
	childFds []int      // sent to the init, closed after sending
	joinFds  []int      // sent to the init after childFds, owned by cg
	newDir   bool       // childFds[3] is the work dir to attach
	files    []*os.File // ours, closed at cleanup
	stdinW   *os.File
	stdout   *capture
	stderr   *capture
	wall     time.Duration
	end      time.Time // when the end of the program was learnt
	pipes    [2]int    // stdin, stdout given by RunInteractive; -1 once handed on
	hold     []int     // RunInteractive's copies of them, closed once the end is learnt
}

func (r *runState) cleanup() {
	closeFds(r.childFds)
	r.childFds = nil
	for i, fd := range r.pipes {
		if fd >= 0 {
			_ = unix.Close(fd)
			r.pipes[i] = -1
		}
	}
	closeFds(r.hold)
	r.hold = nil
	for _, f := range r.files {
		_ = f.Close()
	}
}

func (r *runState) addChild(fd int) { r.childFds = append(r.childFds, fd) }

func (r *runState) prepare() error {
	cpus := ""
	if r.spec.CPU != nil && *r.spec.CPU >= 0 {
		cpus = strconv.Itoa(*r.spec.CPU)
	}
	c := r.c
	if err := r.s.readyCgroup(c, cgLimits{memory: r.lim.Memory, pids: int64(r.lim.Procs), cpus: cpus}); err != nil {
		return err
	}
	r.cg = c.cg

	// stdin
	switch {
	case r.pipes[0] >= 0:
		r.addChild(r.pipes[0])
		r.pipes[0] = -1
	case r.spec.StdinFile != "":
		fd, err := unix.Open(r.spec.StdinFile, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("stdin %s: %w", r.spec.StdinFile, err)
		}
		// The program's stdin names no host path (see neutralReopen).
		if fd, err = neutralReopen(fd, unix.O_RDONLY|unix.O_CLOEXEC); err != nil {
			return fmt.Errorf("stdin %s: %w", r.spec.StdinFile, err)
		}
		r.addChild(fd)
	case r.spec.Stdin != nil:
		pw, fd, err := pipeTo(false)
		if err != nil {
			return fmt.Errorf("stdin pipe: %w", err)
		}
		r.addChild(fd)
		r.stdinW = pw
		r.files = append(r.files, pw)
	default:
		fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("stdin: %w", err)
		}
		r.addChild(fd)
	}
	// stdout
	if r.pipes[1] >= 0 {
		r.addChild(r.pipes[1])
		r.pipes[1] = -1
	} else if r.spec.StdoutFile != "" {
		fd, err := openOutputFile(r.spec.StdoutFile)
		if err != nil {
			return fmt.Errorf("stdout %s: %w", r.spec.StdoutFile, err)
		}
		r.addChild(fd)
	} else {
		fd, cap, err := r.newCapture(r.lim.Output, r.lim.Output)
		if err != nil {
			return err
		}
		r.addChild(fd)
		r.stdout = cap
	}
	// stderr: kept up to Limits.Stderr, and an output limit past
	// Limits.Output (at most stderrDrainMax): a flood ends at once instead
	// of being drained by the judge for the whole wall limit.
	fd, cap, err := r.newCapture(r.lim.Stderr, max(r.lim.Stderr, min(r.lim.Output, stderrDrainMax)))
	if err != nil {
		return err
	}
	r.addChild(fd)
	r.stderr = cap
	// work dir: unless the container has it at /w already, a detached
	// clone of the mount, attached at /w by the init
	if c.dir != r.dir {
		tree, err := unix.OpenTree(unix.AT_FDCWD, r.spec.Dir, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			return fmt.Errorf("work dir %s: %w", r.spec.Dir, err)
		}
		r.addChild(tree)
		r.newDir = true
	}
	join, err := r.cg.joinFds(cpus != "")
	if err != nil {
		return err
	}
	r.joinFds = join
	return nil
}

// readyCgroup gives c a cgroup for its next run with limits l: its own,
// reset exactly, or a fresh one.
func (s *Sandbox) readyCgroup(c *container, l cgLimits) error {
	if c.cg != nil {
		ok, err := c.cg.reset()
		if err != nil {
			s.log.Warn("reset run cgroup", "err", err)
		}
		if ok {
			err := c.cg.apply(l)
			if err == nil {
				return nil
			}
			// e.g. a memory limit below what the kernel still caches for
			// the cgroup: a fresh one has nothing charged.
			s.log.Warn("limits of a reset run cgroup", "err", err)
		}
		s.recycle(c.cg)
		c.cg = nil
	}
	cg, err := s.takeCgroup()
	if err != nil {
		return err
	}
	c.cg = cg
	return cg.apply(l)
}

// pipeTo makes a pipe between the judge and the program: the judge's end
// (the read end when read, else the write end) non-blocking for Go's
// poller, the program's end an ordinary blocking descriptor (close-on-exec
// here; the shim dups it to 0, 1 or 2).
func pipeTo(read bool) (*os.File, int, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, -1, err
	}
	ours, theirs := p[1], p[0]
	if read {
		ours, theirs = p[0], p[1]
	}
	if err := unix.SetNonblock(ours, true); err != nil {
		closeFds(p[:])
		return nil, -1, err
	}
	return os.NewFile(uintptr(ours), "sandbox-pipe"), theirs, nil
}

// stderrDrainMax bounds the stderr a run may write (kept or not) when its
// output limit is larger (a compile's file-size limit).
const stderrDrainMax = 64 << 20

// newCapture returns the write end for the child and a bounded reader
// (see capture).
func (r *runState) newCapture(keep, max int64) (int, *capture, error) {
	pr, fd, err := pipeTo(true)
	if err != nil {
		return -1, nil, fmt.Errorf("output pipe: %w", err)
	}
	r.files = append(r.files, pr)
	c := newCapture(pr, keep, max)
	return fd, c, nil
}

func (r *runState) execute(ctx context.Context) (observation, error) {
	var o observation
	req := runRequest{
		Argv:    r.spec.Argv,
		Env:     r.spec.Env,
		Rlimits: rlimits(r.lim),
		Profile: r.spec.Profile,
		Multi:   r.lim.Procs > 1,
		NewDir:  r.newDir,
		NCgroup: len(r.joinFds),
		Memory:  r.lim.Memory,
	}
	if err := r.c.send(req, append(r.childFds[:len(r.childFds):len(r.childFds)], r.joinFds...)); err != nil {
		return o, err
	}
	closeFds(r.childFds)
	r.childFds = nil
	start := time.Now()
	doneCh := r.c.await()
	if r.stdinW != nil {
		go func(w *os.File, src io.Reader) {
			_, _ = io.Copy(w, src)
			_ = w.Close()
		}(r.stdinW, r.spec.Stdin)
	}

	parallel := runtime.NumCPU()
	if r.spec.CPU != nil && *r.spec.CPU >= 0 {
		parallel = 1
	}
	wallTimer := time.NewTimer(r.lim.Wall)
	defer wallTimer.Stop()
	cpuTimer := time.NewTimer(cpuPollDelay(r.lim.CPU, 0, parallel))
	defer cpuTimer.Stop()
	// No memory watermark (v2 before Linux 5.19, or Config.PollMemory):
	// sample the usage while the run lives.
	var memTick <-chan time.Time
	if r.cg.pollsMemory() {
		t := time.NewTicker(memPollEvery)
		defer t.Stop()
		memTick = t.C
	}
	var hang <-chan time.Time
	var overflow <-chan struct{}
	if r.stdout != nil {
		overflow = r.stdout.overflow
	}
	errOverflow := r.stderr.overflow
	kill := func(why killReason) {
		if o.killed == killNone {
			o.killed = why
		}
		if err := r.cg.kill(); err != nil {
			r.s.log.Error("kill run cgroup", "err", err)
		}
		if hang == nil {
			hang = time.After(5 * time.Second)
		}
	}
	ctxDone := ctx.Done()
	var dm doneMsg
wait:
	for {
		select {
		case dm = <-doneCh:
			break wait
		case <-memTick:
			r.cg.sampleMemory()
		case <-cpuTimer.C:
			r.cg.sampleMemory()
			used, err := r.cg.cpuUsage()
			if err != nil {
				r.s.log.Error("read cpu usage", "err", err)
			}
			if used >= r.lim.CPU {
				kill(killCPU)
			} else {
				cpuTimer.Reset(cpuPollDelay(r.lim.CPU, used, parallel))
			}
		case <-wallTimer.C:
			kill(killWall)
		case <-overflow:
			overflow = nil
			kill(killOutput)
		case <-errOverflow:
			errOverflow = nil
			kill(killOutput)
		case <-ctxDone:
			ctxDone = nil
			kill(killCancel)
		case <-hang:
			r.c.interrupt()
			dm = <-doneCh
			o.sandboxErr = "container init did not report the end of the run"
			break wait
		}
	}
	r.wall = time.Since(start)
	r.end = time.Now()
	// Only now may the other program of an interaction see this one's end.
	closeFds(r.hold)
	r.hold = nil
	if dm.err != nil {
		r.c.dead = true
		if o.sandboxErr == "" {
			o.sandboxErr = fmt.Sprintf("container init: %v", dm.err)
		}
		_ = r.cg.kill()
		return o, nil
	}
	d := dm.d
	if d.Fatal {
		r.c.dead = true
	}
	if d.Attached {
		r.c.dir = r.dir
	}
	if d.Err != "" {
		o.sandboxErr = d.Err
	}
	if d.WallNs > 0 {
		r.wall = time.Duration(d.WallNs)
	}
	// Anything still in the cgroup is dead now; only then is the CPU
	// counter final.
	if err := r.cg.kill(); err != nil && o.sandboxErr == "" {
		o.sandboxErr = err.Error()
	}
	o.exited, o.exitCode, o.signal, o.forbidden = d.Exited, d.ExitCode, syscall.Signal(d.Signal), d.Forbidden
	var err error
	if o.cpu, err = r.cg.cpuUsage(); err != nil && o.sandboxErr == "" {
		o.sandboxErr = fmt.Sprintf("read cpu usage: %v", err)
	}
	if o.memPeak, err = r.cg.memoryPeak(); err != nil && o.sandboxErr == "" {
		o.sandboxErr = fmt.Sprintf("read memory peak: %v", err)
	}
	if o.oomKilled, err = r.cg.oomKilled(); err != nil && o.sandboxErr == "" {
		o.sandboxErr = fmt.Sprintf("read oom events: %v", err)
	}
	if r.stdout != nil {
		o.stdoutOvf = r.stdout.wait()
	}
	if r.stderr.wait() {
		o.stdoutOvf = true
	}
	return o, nil
}

// cpuPollDelay is how long the judge may sleep before the run could have
// used its remaining CPU time, running on `parallel` CPUs at most.
func cpuPollDelay(limit, used time.Duration, parallel int) time.Duration {
	if parallel < 1 {
		parallel = 1
	}
	d := (limit - used) / time.Duration(parallel)
	const lo, hi = time.Millisecond, 100 * time.Millisecond
	if d < lo {
		return lo
	}
	if d > hi {
		return hi
	}
	return d
}

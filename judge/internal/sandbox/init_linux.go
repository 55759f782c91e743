package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// MaybeInit turns this process into a container init when the judge
// re-executed itself for that purpose, and never returns then. Call it first
// thing in main (and in TestMain of packages whose tests run the sandbox).
func MaybeInit() {
	if os.Getenv(initEnv) != "1" {
		return
	}
	os.Exit(initMain())
}

// coreLimit is every run's RLIMIT_CORE (see setup).
const coreLimit = 1

// initCtlFd is the judge's socket inside the init (ExtraFiles[0]).
const initCtlFd = 3

type initState struct {
	cfg       initConfig
	ctl       int // the judge's socket, blocking
	buf       *msgBuf
	page      *execPage
	spawners  map[filterKey]*spawner
	wAttached bool // a work dir is attached at /w
	// meminfo is the /proc/meminfo a run sees (O_RDWR), rewritten when a
	// run's memory limit differs from memShown.
	meminfo  int
	memShown int64
}

func initMain() int {
	// Everything the init does happens on this one thread: the capability
	// bounding set and no_new_privs set below are per thread, and the
	// shim's child inherits them from the thread that clones it.
	runtime.LockOSThread()
	st := &initState{ctl: initCtlFd, buf: newMsgBuf(), spawners: map[filterKey]*spawner{}}
	if err := st.setup(); err != nil {
		_ = sendFd(st.ctl, initHello{Err: err.Error()}, nil)
		return 3
	}
	if err := sendFd(st.ctl, initHello{}, nil); err != nil {
		return 4
	}
	// The judge's end closing (the judge died or closed us) ends the init;
	// as PID 1 of the namespace, its exit kills every process left in it.
	for {
		var req runRequest
		fds, err := recvFd(st.ctl, st.buf, &req)
		if err != nil {
			return 0
		}
		done := st.run(req, fds)
		if err := sendFd(st.ctl, done, nil); err != nil || done.Fatal {
			return 5
		}
	}
}

func (st *initState) setup() error {
	cfgJSON := os.Getenv(initConfigEnv)
	if err := json.Unmarshal([]byte(cfgJSON), &st.cfg); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	os.Clearenv()
	st.meminfo = -1
	if err := buildRoot(st.cfg, &st.meminfo); err != nil {
		return err
	}
	if err := unix.Sethostname([]byte("verdict")); err != nil {
		return fmt.Errorf("sethostname: %w", err)
	}
	// A session of its own, away from the judge's; every program runs in
	// it, each in its own process group.
	if _, err := unix.Setsid(); err != nil {
		return fmt.Errorf("setsid: %w", err)
	}
	// Once for every program this init will start: an empty capability
	// bounding set (nothing can ever regain a capability) and no_new_privs
	// (no execve grants privileges). The init keeps its own capabilities.
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if err == unix.EINVAL {
				break // past the last capability this kernel knows
			}
			return fmt.Errorf("drop bounding capability %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	// Core dumps: RLIMIT_CORE is 1 byte for the init and so for every
	// program (inherited; the filters refuse to change it). Below a page no
	// core file is written, and the kernel never starts a core_pattern pipe
	// helper for a task whose limit is exactly 1 (its recursion guard),
	// which 0 would not prevent. The init itself is not dumpable (it holds
	// the judge's descriptors); execve makes a program dumpable again, so
	// the limit is what holds for programs.
	if err := unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{Cur: coreLimit, Max: coreLimit}); err != nil {
		return fmt.Errorf("rlimit core: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("dumpable: %w", err)
	}
	p, err := mapExecPage()
	if err != nil {
		return err
	}
	st.page = p
	return nil
}

// buildRoot assembles the container's root on a tmpfs and pivots into it.
// meminfo receives a descriptor of the synthetic /proc/meminfo.
func buildRoot(cfg initConfig, meminfo *int) error {
	must := func(op string, err error) error {
		if err != nil {
			return fmt.Errorf("root: %s: %w", op, err)
		}
		return nil
	}
	if err := must("make / private", unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "")); err != nil {
		return err
	}
	// Our mount namespace is private: a tmpfs over /tmp hides nothing of
	// the host and gives the new root a place to live.
	const root = "/tmp"
	if err := must("root tmpfs", unix.Mount("verdict", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=1m,mode=0755")); err != nil {
		return err
	}
	bindRO := func(src, dst string, flags uintptr) error {
		if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("root: bind %s: %w", src, err)
		}
		if err := unix.Mount("", dst, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|flags, ""); err != nil {
			return fmt.Errorf("root: read-only %s: %w", src, err)
		}
		return nil
	}
	place := func(src, dst string, flags uintptr) error {
		fi, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("root: %w", err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("root: %w", err)
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			t, err := os.Readlink(src)
			if err != nil {
				return fmt.Errorf("root: %w", err)
			}
			return must("symlink "+src, os.Symlink(t, dst))
		case fi.IsDir():
			if err := os.Mkdir(dst, 0o755); err != nil {
				return fmt.Errorf("root: %w", err)
			}
		default:
			if err := os.WriteFile(dst, nil, 0o644); err != nil {
				return fmt.Errorf("root: %w", err)
			}
		}
		return bindRO(src, dst, flags)
	}
	for _, b := range cfg.Binds {
		b = filepath.Clean("/" + b)
		if err := place(b, root+b, unix.MS_NOSUID|unix.MS_NODEV); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(root+"/etc", 0o755); err != nil {
		return fmt.Errorf("root: %w", err)
	}
	for _, e := range cfg.EtcFiles {
		e = filepath.Clean("/" + e)
		if err := place("/etc"+e, root+"/etc"+e, unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC); err != nil {
			return err
		}
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/:/usr/sbin/nologin\nsandbox:x:%d:%d:sandbox:/w:/usr/sbin/nologin\n", cfg.UID, cfg.GID)
	group := fmt.Sprintf("root:x:0:\nsandbox:x:%d:\n", cfg.GID)
	if err := os.WriteFile(root+"/etc/passwd", []byte(passwd), 0o644); err != nil {
		return fmt.Errorf("root: %w", err)
	}
	if err := os.WriteFile(root+"/etc/group", []byte(group), 0o644); err != nil {
		return fmt.Errorf("root: %w", err)
	}
	// Minimal /dev: no shm, no pts, nothing else. A tmpfs of its own with
	// the four device nodes made here (not binds of the host's devtmpfs,
	// whose mountinfo line shows the host's memory size), read-only once
	// made (writing a device node needs no writable file system).
	if err := os.Mkdir(root+"/dev", 0o755); err != nil {
		return fmt.Errorf("root: %w", err)
	}
	if err := must("dev", unix.Mount("verdict", root+"/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "size=64k,nr_inodes=16,mode=0755")); err != nil {
		return err
	}
	for _, d := range []struct {
		name  string
		minor uint32
	}{{"null", 3}, {"zero", 5}, {"random", 8}, {"urandom", 9}} {
		p := root + "/dev/" + d.name
		if err := unix.Mknod(p, unix.S_IFCHR|0o666, int(unix.Mkdev(1, d.minor))); err != nil {
			return fmt.Errorf("root: mknod /dev/%s: %w", d.name, err)
		}
		if err := os.Chmod(p, 0o666); err != nil { // past the umask
			return fmt.Errorf("root: %w", err)
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, root+"/dev/"+name); err != nil {
			return fmt.Errorf("root: %w", err)
		}
	}
	if err := must("read-only /dev", unix.Mount("", root+"/dev", "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NOEXEC, "")); err != nil {
		return err
	}
	for _, d := range []string{"/proc", "/tmp", "/w"} {
		if err := os.Mkdir(root+d, 0o755); err != nil {
			return fmt.Errorf("root: %w", err)
		}
	}
	// One size-capped /tmp for the container's life, emptied after every
	// run (cleanTmp): no mount and unmount per run (an unmount waits for an
	// RCU grace period).
	if err := must("tmp", unix.Mount("tmp", root+"/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, tmpOptions(cfg))); err != nil {
		return err
	}
	// /proc of our own PID namespace; other users' processes (the init) hidden.
	if err := must("proc", unix.Mount("proc", root+"/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "hidepid=2")); err != nil {
		return err
	}
	// Host facts a run has no business with, replaced by neutral files:
	// read-only binds of files on a small tmpfs of their own (root-only,
	// 0700; as LXCFS does), which stays writable for the init so that
	// meminfo can follow each run's memory limit.
	if err := os.Mkdir(root+"/.proc", 0o700); err != nil {
		return fmt.Errorf("root: %w", err)
	}
	if err := must("proc masks", unix.Mount("verdict", root+"/.proc", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=256k,nr_inodes=16,mode=0700")); err != nil {
		return err
	}
	masks := map[string]string{"meminfo": meminfoText(0), "cpuinfo": maskCPUInfo(readHostCPUInfo())}
	for name, content := range maskedProc {
		masks[name] = content
	}
	for name, content := range masks {
		f := root + "/.proc/" + name
		if err := os.WriteFile(f, []byte(content), 0o444); err != nil {
			return fmt.Errorf("root: %w", err)
		}
		if err := bindRO(f, root+"/proc/"+name, unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC); err != nil {
			return err
		}
	}
	fd, err := unix.Open(root+"/.proc/meminfo", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("root: meminfo: %w", err)
	}
	*meminfo = fd
	if err := must("chdir root", unix.Chdir(root)); err != nil {
		return err
	}
	if err := must("pivot_root", unix.PivotRoot(".", ".")); err != nil {
		return err
	}
	if err := must("detach old root", unix.Unmount(".", unix.MNT_DETACH)); err != nil {
		return err
	}
	if err := must("chdir /", unix.Chdir("/")); err != nil {
		return err
	}
	return must("read-only root", unix.Mount("", "/", "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""))
}

// maskedProc are the /proc files every run sees with this content instead
// of the host's: the kernel command line (boot parameters, root device,
// image paths), the load average (what else the machine runs) and the
// uptime. meminfo (the run's memory limit) and cpuinfo (maskCPUInfo) are
// made apart.
var maskedProc = map[string]string{
	"cmdline": "verdict\n",
	"loadavg": "0.00 0.00 0.00 1/1 1\n",
	"uptime":  "0.00 0.00\n",
}

// meminfoText is the /proc/meminfo of a run limited to limit bytes: all
// of it total, free and available, no swap. Pure.
func meminfoText(limit int64) string {
	kb := limit >> 10
	var b strings.Builder
	for _, f := range []struct {
		k string
		v int64
	}{{"MemTotal", kb}, {"MemFree", kb}, {"MemAvailable", kb}, {"Buffers", 0}, {"Cached", 0},
		{"SwapCached", 0}, {"Active", 0}, {"Inactive", 0}, {"SwapTotal", 0}, {"SwapFree", 0},
		{"Dirty", 0}, {"Shmem", 0}} {
		fmt.Fprintf(&b, "%-15s %8d kB\n", f.k+":", f.v)
	}
	return b.String()
}

// setMeminfo rewrites the run's /proc/meminfo for a memory limit.
func (st *initState) setMeminfo(limit int64) error {
	if limit == st.memShown || st.meminfo < 0 {
		return nil
	}
	text := meminfoText(limit)
	if err := unix.Ftruncate(st.meminfo, 0); err != nil {
		return fmt.Errorf("init: meminfo: %w", err)
	}
	if _, err := unix.Pwrite(st.meminfo, []byte(text), 0); err != nil {
		return fmt.Errorf("init: meminfo: %w", err)
	}
	st.memShown = limit
	return nil
}

func readHostCPUInfo() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return string(b)
}

// cpuInfoKept are the /proc/cpuinfo fields a run sees: what the CPU is and
// can do (a program may choose code paths by its flags), not the host's
// topology, clock, microcode or vulnerability state.
var cpuInfoKept = map[string]bool{
	"processor": true, "vendor_id": true, "cpu family": true, "model": true, "model name": true,
	"stepping": true, "fpu": true, "fpu_exception": true, "cpuid level": true, "wp": true,
	"flags": true, "cache size": true, "clflush size": true, "cache_alignment": true,
}

// maskCPUInfo keeps the cpuInfoKept fields of a /proc/cpuinfo. Pure.
func maskCPUInfo(host string) string {
	var b strings.Builder
	for _, line := range strings.Split(host, "\n") {
		k, _, ok := strings.Cut(line, ":")
		if !ok {
			if strings.TrimSpace(line) == "" && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n\n") {
				b.WriteString("\n")
			}
			continue
		}
		if cpuInfoKept[strings.TrimSpace(k)] {
			b.WriteString(line)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// lookPath resolves a bare program name against PATH inside the container.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, ".") {
				p = "./" + p
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found in PATH", name)
}

// run executes one request and closes its descriptors.
func (st *initState) run(req runRequest, fds []int) runDone {
	if len(fds) != req.nFds() {
		closeFds(fds)
		return runDone{Err: fmt.Sprintf("init: got %d descriptors, want %d", len(fds), req.nFds())}
	}
	stdio, cg := fds[:3], fds[3:]
	if req.NewDir {
		tree := fds[3]
		cg = fds[4:]
		err := st.attachDir(tree)
		_ = unix.Close(tree)
		if err != nil {
			closeFds(fds[:3])
			closeFds(cg)
			return runDone{Err: err.Error(), Fatal: true}
		}
	}
	attached := req.NewDir
	if !st.wAttached {
		closeFds(stdio)
		closeFds(cg)
		return runDone{Err: "init: no work dir attached", Fatal: true}
	}
	if err := st.setMeminfo(req.Memory); err != nil {
		closeFds(stdio)
		closeFds(cg)
		return runDone{Err: err.Error(), Fatal: true}
	}
	done := st.start(req, stdio, cg)
	done.Attached = attached
	// /tmp is empty before the judge is told, so that nothing the run wrote
	// there is still charged to its cgroup when the judge looks.
	if err := st.cleanTmp(); err != nil {
		done.Err = fmt.Sprintf("init: empty /tmp: %v", err)
		done.Fatal = true
	}
	return done
}

// attachDir makes tree the work dir at /w, detaching the previous one.
func (st *initState) attachDir(tree int) error {
	if st.wAttached {
		if err := unix.Unmount("/w", unix.MNT_DETACH); err != nil {
			return fmt.Errorf("init: detach old work dir: %w", err)
		}
		st.wAttached = false
	}
	if err := unix.MoveMount(tree, "", unix.AT_FDCWD, "/w", unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("init: mount work dir: %w", err)
	}
	st.wAttached = true
	return nil
}

// start spawns the program, waits for it and everything it started, and
// closes stdio and cg (the child has its own copies once it runs).
func (st *initState) start(req runRequest, stdio, cg []int) runDone {
	// Path lookup relative to the work dir, as the program will see it.
	if err := unix.Chdir("/w"); err != nil {
		closeFds(stdio)
		closeFds(cg)
		return runDone{Err: fmt.Sprintf("init: chdir: %v", err), Fatal: true}
	}
	path, err := lookPath(req.Argv[0], req.Env)
	_ = unix.Chdir("/")
	if err != nil {
		closeFds(stdio)
		closeFds(cg)
		return runDone{Err: err.Error()}
	}
	sw, err := st.spawnerFor(filterKey{profile: req.Profile, multi: req.Multi})
	if err != nil {
		closeFds(stdio)
		closeFds(cg)
		return runDone{Err: err.Error(), Fatal: true}
	}
	start := time.Now()
	pid, pidfd, err := sw.spawn(st.page, spawnParams{
		path: path, argv: req.Argv, env: req.Env, dir: "/w",
		fds:     [3]int{stdio[0], stdio[1], stdio[2]},
		cgFds:   cg,
		rlimits: req.Rlimits,
		uid:     st.cfg.UID, gid: st.cfg.GID,
	})
	// The program holds its own copies now (or never will): the judge's
	// pipes see end-of-file when the run's last process is gone.
	closeFds(stdio)
	closeFds(cg)
	if err != nil {
		if pid > 0 {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, 0, nil)
		}
		if pidfd >= 0 {
			_ = unix.Close(pidfd)
		}
		st.reapAll()
		return runDone{Err: err.Error(), Fatal: errors.Is(err, errSpawnerBroken)}
	}
	forbidden, ws, err := waitRun(pid, pidfd, sw.listener)
	wall := time.Since(start)
	st.reapAll()
	done := runDone{WallNs: int64(wall), Forbidden: forbidden}
	switch {
	case err != nil:
		done.Err = fmt.Sprintf("init: wait: %v", err)
		done.Fatal = true
	case ws.Exited():
		done.Exited, done.ExitCode = true, ws.ExitStatus()
	case ws.Signaled():
		done.ExitCode, done.Signal = -1, int(ws.Signal())
	}
	return done
}

// spawnerFor returns the profile's spawner, starting it on first use (on
// this, the init's locked thread).
func (st *initState) spawnerFor(k filterKey) (*spawner, error) {
	if sw, ok := st.spawners[k]; ok {
		return sw, nil
	}
	filter, err := buildFilter(k, spawnSecrets{execAddr: st.page.addr(), cloneTid: st.page.pidfdSlot(),
		uid: st.cfg.UID, gid: st.cfg.GID})
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	sw, err := startSpawner(st.page, filter)
	if err != nil {
		return nil, fmt.Errorf("init: %s profile: %w", k.profile, err)
	}
	st.spawners[k] = sw
	return sw, nil
}

// reapAll kills every other process of the namespace (the run's orphans)
// and reaps them. Every process of the namespace but the init descends
// from it (orphans are reparented to it), so "no child" means "nobody
// left". kill(-1) from PID 1 reaches all but itself, and a task with
// SIGKILL pending cannot fork, so nothing escapes the sweep.
func (st *initState) reapAll() {
	var ws unix.WaitStatus
	for {
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case err == unix.ECHILD:
			return
		case err == unix.EINTR || pid > 0:
			continue
		}
		_ = unix.Kill(-1, unix.SIGKILL)
		if _, err := unix.Wait4(-1, &ws, 0, nil); err == unix.ECHILD {
			return
		}
	}
}

// seccompNotif mirrors struct seccomp_notif (80 bytes on every arch).
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

const seccompIoctlNotifRecv = 0xc0502100 // _IOWR('!', 0, struct seccomp_notif)

// waitRun waits, on this thread, until the program (pid, whose pidfd is
// pidfd) has ended, serving its filter's listener meanwhile: the first
// notification names the forbidden call, and the whole run is killed on the
// spot (the call is never answered). It closes pidfd. The listener is the
// spawner's, shared by the runs of its profile one after the other: a
// notification of a task that died is withdrawn by the kernel, so none
// outlives its run.
func waitRun(pid, pidfd, listener int) (forbidden string, ws unix.WaitStatus, err error) {
	defer unix.Close(pidfd)
	pfds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}, {Fd: int32(listener), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(pfds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return forbidden, ws, fmt.Errorf("poll: %w", err)
		}
		if l := pfds[1]; l.Fd >= 0 && l.Revents != 0 {
			if l.Revents&unix.POLLIN != 0 {
				var req seccompNotif
				_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), seccompIoctlNotifRecv, uintptr(unsafe.Pointer(&req)))
				if e == 0 && forbidden == "" {
					forbidden = syscallName(req.Nr)
					// Not answered: the whole run dies now.
					_ = unix.Kill(-1, unix.SIGKILL)
				}
			} else {
				pfds[1].Fd = -1 // POLLERR/POLLNVAL: stop watching it
			}
		}
		if pfds[0].Revents != 0 {
			break
		}
	}
	for {
		_, err = unix.Wait4(pid, &ws, 0, nil)
		if err != unix.EINTR {
			return forbidden, ws, err
		}
	}
}

// cleanTmp empties /tmp without following symlinks and with two
// descriptors at most whatever the run left there (a directory chain as
// deep as the inode bound allows included). The run's processes are all
// gone, so nothing races with it. Should the walk fail anyway, the tmpfs
// is replaced by a fresh one (a lazy unmount frees the old one's pages).
func (st *initState) cleanTmp() error {
	err := EmptyDir("/tmp")
	if err == nil {
		return nil
	}
	if rerr := st.remountTmp(); rerr != nil {
		return fmt.Errorf("%w; and recreating the tmpfs: %w", err, rerr)
	}
	return nil
}

// remountTmp puts a fresh, empty tmpfs on /tmp.
func (st *initState) remountTmp() error {
	if err := unix.Unmount("/tmp", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("unmount /tmp: %w", err)
	}
	if err := unix.Mount("tmp", "/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, tmpOptions(st.cfg)); err != nil {
		return fmt.Errorf("mount /tmp: %w", err)
	}
	return nil
}

func tmpOptions(cfg initConfig) string {
	return fmt.Sprintf("size=%d,nr_inodes=%d,mode=1777", cfg.TmpSize, cfg.TmpInodes)
}

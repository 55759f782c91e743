package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
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

// Fixed descriptor numbers inside the init.
const (
	initCtlFd    = 3 // the judge's socket (ExtraFiles[0])
	notifySendFd = 100
)

type initState struct {
	cfg      initConfig
	ctl      *net.UnixConn
	page     *execPage
	notifyRx int // receives listener fds from the shim
	filters  map[filterKey][]byte
	mounted  []string // per-run mounts, detached by teardown
}

// teardown detaches the last run's work dir and /tmp.
func (st *initState) teardown() error {
	for _, m := range st.mounted {
		if err := unix.Unmount(m, unix.MNT_DETACH); err != nil {
			return fmt.Errorf("unmount %s: %w", m, err)
		}
	}
	st.mounted = st.mounted[:0]
	return nil
}

func initMain() int {
	f := os.NewFile(initCtlFd, "ctl")
	c, err := net.FileConn(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox init: control socket: %v\n", err)
		return 2
	}
	_ = f.Close()
	ctl, ok := c.(*net.UnixConn)
	if !ok {
		fmt.Fprintf(os.Stderr, "sandbox init: control socket is %T\n", c)
		return 2
	}
	st := &initState{ctl: ctl, filters: map[filterKey][]byte{}}
	if err := st.setup(); err != nil {
		_ = sendMsg(ctl, initHello{Err: err.Error()}, nil)
		return 3
	}
	if err := sendMsg(ctl, initHello{}, nil); err != nil {
		return 4
	}
	// The judge's end closing (the judge died or closed us) ends the init;
	// as PID 1 of the namespace, its exit kills every process left in it.
	for {
		var req runRequest
		fds, err := recvMsg(ctl, &req, time.Time{})
		if err != nil {
			return 0
		}
		done := st.run(req, fds)
		// Our copies of the run's pipes must be gone before the judge is
		// told, or its readers would wait for us.
		closeFds(fds)
		if err := sendMsg(ctl, done, nil); err != nil || done.Fatal {
			return 5
		}
		// Tear down after answering: off the run's critical path, and
		// before the next request is read.
		if err := st.teardown(); err != nil {
			fmt.Fprintf(os.Stderr, "sandbox init: %v\n", err)
			return 6
		}
	}
}

func (st *initState) setup() error {
	cfgJSON := os.Getenv(initConfigEnv)
	if err := json.Unmarshal([]byte(cfgJSON), &st.cfg); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	os.Clearenv()
	// Mounts, chdir and pivot_root act on the whole process; keep this
	// goroutine on one thread anyway so errors are attributable.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := buildRoot(st.cfg); err != nil {
		return err
	}
	if err := unix.Sethostname([]byte("verdict")); err != nil {
		return fmt.Errorf("sethostname: %w", err)
	}
	p, err := mapExecPage()
	if err != nil {
		return err
	}
	st.page = p
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("notify socketpair: %w", err)
	}
	if err := unix.Dup3(pair[1], notifySendFd, unix.O_CLOEXEC); err != nil {
		return fmt.Errorf("notify socket: %w", err)
	}
	_ = unix.Close(pair[1])
	st.notifyRx = pair[0]
	return nil
}

// buildRoot assembles the container's root on a tmpfs and pivots into it.
func buildRoot(cfg initConfig) error {
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
	// Minimal /dev: no shm, no pts, nothing else.
	if err := os.Mkdir(root+"/dev", 0o755); err != nil {
		return fmt.Errorf("root: %w", err)
	}
	for _, d := range []string{"null", "zero", "urandom", "random"} {
		if err := os.WriteFile(root+"/dev/"+d, nil, 0o666); err != nil {
			return fmt.Errorf("root: %w", err)
		}
		if err := unix.Mount("/dev/"+d, root+"/dev/"+d, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("root: bind /dev/%s: %w", d, err)
		}
		if err := unix.Mount("", root+"/dev/"+d, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_NOSUID|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("root: remount /dev/%s: %w", d, err)
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, root+"/dev/"+name); err != nil {
			return fmt.Errorf("root: %w", err)
		}
	}
	for _, d := range []string{"/proc", "/tmp", "/w"} {
		if err := os.Mkdir(root+d, 0o755); err != nil {
			return fmt.Errorf("root: %w", err)
		}
	}
	// /proc of our own PID namespace; other users' processes (the init) hidden.
	if err := must("proc", unix.Mount("proc", root+"/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "hidepid=2")); err != nil {
		return err
	}
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

// run executes one request; fds are closed by the caller.
func (st *initState) run(req runRequest, fds []int) runDone {
	if len(fds) != 4+req.NCgroup {
		return runDone{Err: fmt.Sprintf("init: got %d descriptors, want %d", len(fds), 4+req.NCgroup)}
	}
	if err := unix.MoveMount(fds[3], "", unix.AT_FDCWD, "/w", unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return runDone{Err: fmt.Sprintf("init: mount work dir: %v", err), Fatal: true}
	}
	st.mounted = append(st.mounted, "/w")
	if err := unix.Mount("tmp", "/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, fmt.Sprintf("size=%d,mode=1777", req.TmpSize)); err != nil {
		return runDone{Err: fmt.Sprintf("init: mount /tmp: %v", err), Fatal: true}
	}
	st.mounted = append(st.mounted, "/tmp")

	// Path lookup relative to the work dir, as the program will see it.
	if err := unix.Chdir("/w"); err != nil {
		return runDone{Err: fmt.Sprintf("init: chdir: %v", err), Fatal: true}
	}
	path, err := lookPath(req.Argv[0], req.Env)
	_ = unix.Chdir("/")
	if err != nil {
		return runDone{Err: err.Error()}
	}
	key := filterKey{profile: req.Profile, multi: req.Multi}
	filter, ok := st.filters[key]
	if !ok {
		filter, err = buildFilter(key, st.page.addr(), notifySendFd)
		if err != nil {
			return runDone{Err: err.Error(), Fatal: true}
		}
		st.filters[key] = filter
	}
	start := time.Now()
	pid, err := spawn(st.page, spawnParams{
		path: path, argv: req.Argv, env: req.Env, dir: "/w",
		fds:     [3]int{fds[0], fds[1], fds[2]},
		cgFds:   fds[4:],
		rlimits: req.Rlimits,
		uid:     st.cfg.UID, gid: st.cfg.GID,
		filter:   filter,
		notifyFd: notifySendFd,
	})
	listener := st.takeListener()
	if err != nil {
		if pid > 0 {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, 0, nil)
		}
		if listener >= 0 {
			_ = unix.Close(listener)
		}
		st.reapAll()
		return runDone{Err: err.Error()}
	}
	var n *notifier
	if listener >= 0 {
		n = startNotifier(listener)
	}
	var ws unix.WaitStatus
	for {
		_, err = unix.Wait4(pid, &ws, 0, nil)
		if err != unix.EINTR {
			break
		}
	}
	wall := time.Since(start)
	st.reapAll()
	done := runDone{WallNs: int64(wall)}
	if n != nil {
		done.Forbidden = n.stop()
	}
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

// takeListener receives the seccomp listener the shim sent before exec.
func (st *initState) takeListener() int {
	buf := make([]byte, 8)
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(st.notifyRx, buf, oob, unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
	if err != nil || n == 0 || oobn == 0 {
		return -1
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) == 0 {
		return -1
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) == 0 {
		return -1
	}
	closeFds(fds[1:])
	return fds[0]
}

// reapAll kills every other process of the namespace (the run's orphans)
// and reaps them. kill(-1) from PID 1 reaches all but itself, and a task
// with SIGKILL pending cannot fork, so nothing escapes the sweep.
func (st *initState) reapAll() {
	for {
		_ = unix.Kill(-1, unix.SIGKILL)
		var ws unix.WaitStatus
		_, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.ECHILD {
			return
		}
	}
}

// notifier serves the seccomp listener of one run: the first notification
// names the forbidden call, and the run is killed on the spot.
type notifier struct {
	fd     int
	wakeR  int
	wakeW  int
	name   atomic.Pointer[string]
	doneWG sync.WaitGroup
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

func startNotifier(fd int) *notifier {
	n := &notifier{fd: fd, wakeR: -1, wakeW: -1}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err == nil {
		n.wakeR, n.wakeW = p[0], p[1]
	}
	n.doneWG.Add(1)
	go n.loop()
	return n
}

func (n *notifier) loop() {
	defer n.doneWG.Done()
	for {
		pfds := []unix.PollFd{{Fd: int32(n.fd), Events: unix.POLLIN}, {Fd: int32(n.wakeR), Events: unix.POLLIN}}
		_, err := unix.Poll(pfds, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || pfds[1].Revents != 0 {
			return
		}
		if pfds[0].Revents&unix.POLLIN != 0 {
			var req seccompNotif
			_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(n.fd), seccompIoctlNotifRecv, uintptr(unsafe.Pointer(&req)))
			if e == 0 {
				name := syscallName(req.Nr)
				n.name.CompareAndSwap(nil, &name)
				// Not answered: the whole run dies now.
				_ = unix.Kill(-1, unix.SIGKILL)
			}
			continue
		}
		if pfds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
			return
		}
	}
}

// stop ends the loop and returns the forbidden call's name, if any.
func (n *notifier) stop() string {
	if n.wakeW >= 0 {
		_, _ = unix.Write(n.wakeW, []byte{1})
	}
	n.doneWG.Wait()
	_ = unix.Close(n.fd)
	if n.wakeR >= 0 {
		_ = unix.Close(n.wakeR)
		_ = unix.Close(n.wakeW)
	}
	if p := n.name.Load(); p != nil {
		return *p
	}
	return ""
}

//go:build linux

package sandbox

import (
	"fmt"
	"io"
	"os"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// runAllowed is the allow-list of the run profile (x86_64 names). Anything
// else is reported to the container init (SECCOMP_RET_USER_NOTIF), which
// records the name and kills the run: a forbidden syscall.
var runAllowed = []string{
	// I/O on descriptors the program already has or opens in its view
	"read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev",
	"preadv2", "pwritev2", "lseek", "close", "dup", "dup2", "dup3", "fcntl",
	"ioctl", "pipe", "pipe2", "poll", "ppoll", "select", "pselect6",
	"epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2",
	"eventfd", "eventfd2", "sendfile", "copy_file_range", "splice", "tee",
	"fsync", "fdatasync", "ftruncate", "truncate", "fadvise64", "readahead", "flock",
	// files
	"open", "openat", "creat", "stat", "fstat", "lstat", "newfstatat", "statx",
	"statfs", "fstatfs", "access", "faccessat", "faccessat2", "getdents", "getdents64",
	"getcwd", "chdir", "fchdir", "readlink", "readlinkat", "mkdir", "mkdirat",
	"rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "chmod",
	"fchmod", "fchmodat", "umask", "utimensat", "futimesat", "utime", "utimes",
	// memory
	"brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "mincore", "msync",
	"get_mempolicy",
	// signals
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending",
	"rt_sigtimedwait", "rt_sigsuspend", "rt_sigqueueinfo", "sigaltstack",
	"kill", "tkill", "tgkill", "pause", "alarm", "getitimer", "setitimer",
	// time
	"nanosleep", "clock_nanosleep", "clock_gettime", "clock_getres",
	"gettimeofday", "time", "times", "timer_create", "timer_settime",
	"timer_gettime", "timer_getoverrun", "timer_delete",
	"timerfd_create", "timerfd_settime", "timerfd_gettime",
	// identity and limits (read, or lower)
	"getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid",
	"getresuid", "getresgid", "getgroups", "getpgrp", "getpgid", "getsid",
	"uname", "sysinfo", "getrusage", "getrlimit", // setrlimit, prlimit64: below
	"getpriority", "getcpu", "sched_yield", "sched_getaffinity",
	"sched_getparam", "sched_getscheduler", "sched_get_priority_max",
	"sched_get_priority_min", "sched_rr_get_interval",
	// threads, runtime support
	"futex", "futex_waitv", "set_robust_list", "get_robust_list", "set_tid_address",
	"rseq", "membarrier", "arch_prctl", "getrandom", "wait4", "waitid",
	"exit", "exit_group", "restart_syscall",
}

// runProcessCalls are allowed under the run profile only when Procs > 1;
// the pids cgroup then bounds how many.
var runProcessCalls = []string{"clone", "fork", "vfork"}

// runPrctlOptions are the prctl options the run profile allows.
var runPrctlOptions = []uint64{
	unix.PR_GET_NAME, unix.PR_SET_NAME, unix.PR_GET_DUMPABLE,
	unix.PR_GET_SECCOMP, unix.PR_GET_NO_NEW_PRIVS, unix.PR_SET_VMA,
	unix.PR_CAPBSET_READ, unix.PR_GET_TIMERSLACK,
}

// compileMaxNr is the highest x86_64 syscall number the compile profile
// was reviewed against (450, set_mempolicy_home_node, Linux 5.17). The
// compile profile is an allow-list of numbers: every call numbered up to
// here that libseccomp names, except compileDenied (forbidden: the run is
// killed and the call reported). Anything else (a gap, a call newer than
// this such as cachestat, statmount, listmount, mseal or open_tree_attr,
// a number libseccomp does not know) fails with ENOSYS, as on an older
// kernel, whatever the libseccomp version: toolchains fall back, nothing
// new reaches the kernel. (x32 and i386 numbers kill, as under run.)
const compileMaxNr = 450

// compileDenied is what the compile profile forbids among the numbers it
// knows (the rest is allowed: compilers fork, exec, use threads and
// temporary files).
var compileDenied = []string{
	"modify_ldt", // segment descriptors: nothing a compiler needs, a long history of bugs
	"connect", "bind", "listen", "accept", "accept4",
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
	"mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
	"fsopen", "fsconfig", "fsmount", "fspick", "open_tree", "move_mount", "mount_setattr",
	"mlock", "mlock2", "mlockall", "personality",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	"reboot", "swapon", "swapoff", "acct", "settimeofday", "clock_settime",
	"adjtimex", "clock_adjtime", "syslog", "open_by_handle_at", "name_to_handle_at",
	"quotactl", "iopl", "ioperm", "fanotify_init", "vhangup", "uselib",
	"lookup_dcookie",
}

// compileRefused fail with EACCES under the compile profile, unreported.
// (socketpair is allowed: a connected pair reaches nothing outside the
// process tree, and the JDK's NIO — javac reads sources through it —
// fails to initialise without one.)
var compileRefused = []string{"socket",
	// SysV IPC: a container's IPC namespace lives for many runs, so a
	// segment or queue would carry data from one compile to the next.
	"shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
	"semget", "semop", "semtimedop", "semctl"}

// nsCloneFlags must never be passed to clone inside the sandbox.
const nsCloneFlags = unix.CLONE_NEWNS | unix.CLONE_NEWUSER | unix.CLONE_NEWPID |
	unix.CLONE_NEWNET | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP |
	unix.CLONE_NEWTIME

// filterKey identifies a cached BPF program inside one container.
type filterKey struct {
	profile Profile
	multi   bool // Procs > 1
}

// spawnSecrets are what the shim's own calls look like under the filter.
type spawnSecrets struct {
	// execAddr is the only filename pointer execve may take under the run
	// profile: the shim's, in a page at a random address.
	execAddr uintptr
	// cloneTid is the only parent_tid pointer clone may take under the run
	// profile with Procs 1: the spawner's (in the same page).
	cloneTid uintptr
	// uid and gid are the sandbox user the shim switches to.
	uid, gid int
}

// spawnCloneFlags are the flags of the spawner's clone.
const spawnCloneFlags = unix.CLONE_VM | unix.CLONE_VFORK | unix.CLONE_PIDFD | uint64(unix.SIGCHLD)

// buildFilter compiles the profile to classic BPF for SECCOMP_SET_MODE_FILTER.
// The filter is loaded once, on the profile's spawner thread (see
// spawn_linux.c), and every program inherits it; so it also lets through
// the few calls the shim makes between clone and execve, with the exact
// arguments the shim uses (sec), all harmless to an unprivileged program.
func buildFilter(k filterKey, sec spawnSecrets) ([]byte, error) {
	notify := seccomp.ActNotify
	var f *seccomp.ScmpFilter
	var err error
	if k.profile == ProfileCompile {
		f, err = seccomp.NewFilter(seccomp.ActErrno.SetReturnCode(int16(unix.ENOSYS)))
	} else {
		f, err = seccomp.NewFilter(notify)
	}
	if err != nil {
		return nil, fmt.Errorf("seccomp new filter: %w", err)
	}
	defer f.Release()
	// Other ABIs (i386 via int 0x80, x32) die with SIGSYS.
	if err := f.SetBadArchAction(seccomp.ActKillProcess); err != nil {
		return nil, fmt.Errorf("seccomp bad arch action: %w", err)
	}
	// The shim sets no_new_privs itself, before loading.
	if filterOptimize > 1 {
		if err := f.SetOptimize(filterOptimize); err != nil {
			return nil, err
		}
	}
	if err := f.SetNoNewPrivsBit(false); err != nil {
		return nil, fmt.Errorf("seccomp nnp bit: %w", err)
	}
	add := func(name string, act seccomp.ScmpAction, conds ...seccomp.ScmpCondition) error {
		sc, err := seccomp.GetSyscallFromName(name)
		if err != nil {
			return nil // unknown to this libseccomp: the default action applies
		}
		if len(conds) == 0 {
			err = f.AddRule(sc, act)
		} else {
			err = f.AddRuleConditional(sc, act, conds)
		}
		if err != nil {
			return fmt.Errorf("seccomp rule %s: %w", name, err)
		}
		return nil
	}
	cond := func(arg uint, op seccomp.ScmpCompareOp, v ...uint64) seccomp.ScmpCondition {
		c, err := seccomp.MakeCondition(arg, op, v...)
		if err != nil {
			panic(err) // static arguments: a bug, not input
		}
		return c
	}
	if k.profile == ProfileCompile {
		for _, n := range compileDenied {
			if n == "unshare" {
				continue // below
			}
			if err := add(n, notify); err != nil {
				return nil, err
			}
		}
		// The shim's own cgroup namespace (an unprivileged program gets
		// EPERM); any other unshare is forbidden.
		if err := add("unshare", seccomp.ActAllow, cond(0, seccomp.CompareEqual, unix.CLONE_NEWCGROUP)); err != nil {
			return nil, err
		}
		if err := add("unshare", notify, cond(0, seccomp.CompareNotEqual, unix.CLONE_NEWCGROUP)); err != nil {
			return nil, err
		}
		for _, n := range compileAllowed() {
			if err := f.AddRule(seccomp.ScmpSyscall(n), seccomp.ActAllow); err != nil {
				return nil, fmt.Errorf("seccomp rule %d: %w", n, err)
			}
		}
		// clone without any namespace flag (threads, fork); with one,
		// forbidden.
		if err := add("clone", seccomp.ActAllow, cond(0, seccomp.CompareMaskedEqual, nsCloneFlags, 0)); err != nil {
			return nil, err
		}
		for _, flag := range splitFlags(nsCloneFlags) {
			if err := add("clone", notify, cond(0, seccomp.CompareMaskedEqual, flag, flag)); err != nil {
				return nil, err
			}
		}
		// glibc's NSS probes nscd through an AF_UNIX socket: refuse quietly
		// (the network namespace is empty anyway).
		for _, n := range compileRefused {
			if err := add(n, seccomp.ActErrno.SetReturnCode(int16(unix.EACCES))); err != nil {
				return nil, err
			}
		}
		// clone3 (glibc falls back to clone, whose flags the filter can
		// see) is not allowed: ENOSYS, the default.
		if err := addRlimitRules(add, cond, true); err != nil {
			return nil, err
		}
		return exportBPF(f)
	}
	// The shim, between clone and execve: its own process group, stdio,
	// no other descriptor past exec, the sandbox user. For the program
	// these are no-ops or fail (it is not root).
	shim := []struct {
		name  string
		conds []seccomp.ScmpCondition
	}{
		{"setpgid", []seccomp.ScmpCondition{cond(0, seccomp.CompareEqual, 0), cond(1, seccomp.CompareEqual, 0)}},
		{"close_range", nil},
		{"unshare", []seccomp.ScmpCondition{cond(0, seccomp.CompareEqual, unix.CLONE_NEWCGROUP)}},
		{"setgroups", []seccomp.ScmpCondition{cond(0, seccomp.CompareEqual, 0)}},
		{"setresgid", []seccomp.ScmpCondition{cond(0, seccomp.CompareEqual, uint64(sec.gid)), cond(1, seccomp.CompareEqual, uint64(sec.gid)), cond(2, seccomp.CompareEqual, uint64(sec.gid))}},
		{"setresuid", []seccomp.ScmpCondition{cond(0, seccomp.CompareEqual, uint64(sec.uid)), cond(1, seccomp.CompareEqual, uint64(sec.uid)), cond(2, seccomp.CompareEqual, uint64(sec.uid))}},
	}
	for _, c := range shim {
		if err := add(c.name, seccomp.ActAllow, c.conds...); err != nil {
			return nil, err
		}
	}
	for _, n := range runAllowed {
		if err := add(n, seccomp.ActAllow); err != nil {
			return nil, err
		}
	}
	for _, o := range runPrctlOptions {
		if err := add("prctl", seccomp.ActAllow, cond(0, seccomp.CompareEqual, o)); err != nil {
			return nil, err
		}
	}
	// Exactly one execve: the shim's, whose filename lives at execAddr. The
	// program cannot read its filter, and a wrong guess is fatal.
	if err := add("execve", seccomp.ActAllow, cond(0, seccomp.CompareEqual, uint64(sec.execAddr))); err != nil {
		return nil, err
	}
	if !k.multi {
		// The spawner's clone only (same secret page; with Procs 1 the pids
		// cgroup would refuse a second process anyway).
		if err := add("clone", seccomp.ActAllow, cond(0, seccomp.CompareEqual, spawnCloneFlags),
			cond(2, seccomp.CompareEqual, uint64(sec.cloneTid))); err != nil {
			return nil, err
		}
	}
	if k.multi {
		if err := add("clone", seccomp.ActAllow, cond(0, seccomp.CompareMaskedEqual, nsCloneFlags, 0)); err != nil {
			return nil, err
		}
		for _, n := range runProcessCalls[1:] {
			if err := add(n, seccomp.ActAllow); err != nil {
				return nil, err
			}
		}
		// Managed runtimes (the JVM looking up user.name) probe nscd through
		// glibc's NSS with an AF_UNIX socket: refuse it quietly. Any other
		// socket is still a forbidden call.
		if err := add("socket", seccomp.ActErrno.SetReturnCode(int16(unix.EACCES)), cond(0, seccomp.CompareEqual, unix.AF_UNIX)); err != nil {
			return nil, err
		}
	}
	// clone3 hides its flags in memory; ENOSYS makes glibc use clone.
	if err := add("clone3", seccomp.ActErrno.SetReturnCode(int16(unix.ENOSYS))); err != nil {
		return nil, err
	}
	if err := addRlimitRules(add, cond, true); err != nil {
		return nil, err
	}
	return exportBPF(f)
}

// addRlimitRules pins RLIMIT_CORE at what the init set (coreLimit): it
// may be read, and other limits changed (lowered: the program is not
// privileged), but setting it fails with EPERM. With allow, the calls are
// also allowed otherwise (the run profile's allow-list).
func addRlimitRules(add func(string, seccomp.ScmpAction, ...seccomp.ScmpCondition) error,
	cond func(uint, seccomp.ScmpCompareOp, ...uint64) seccomp.ScmpCondition, allow bool) error {
	eperm := seccomp.ActErrno.SetReturnCode(int16(unix.EPERM))
	if err := add("setrlimit", eperm, cond(0, seccomp.CompareEqual, unix.RLIMIT_CORE)); err != nil {
		return err
	}
	if err := add("prlimit64", eperm, cond(1, seccomp.CompareEqual, unix.RLIMIT_CORE), cond(2, seccomp.CompareNotEqual, 0)); err != nil {
		return err
	}
	if !allow {
		return nil
	}
	if err := add("setrlimit", seccomp.ActAllow, cond(0, seccomp.CompareNotEqual, unix.RLIMIT_CORE)); err != nil {
		return err
	}
	if err := add("prlimit64", seccomp.ActAllow, cond(1, seccomp.CompareNotEqual, unix.RLIMIT_CORE)); err != nil {
		return err
	}
	return add("prlimit64", seccomp.ActAllow, cond(2, seccomp.CompareEqual, 0))
}

// compileSpecial are the calls the compile profile rules on by argument
// or refuses quietly (not in the plain allow-list).
var compileSpecial = []string{"clone", "clone3", "setrlimit", "prlimit64"}

// compileAllowed lists the numbers the compile profile allows outright:
// 0..compileMaxNr that libseccomp names, minus compileDenied,
// compileRefused and compileSpecial.
func compileAllowed() []int32 {
	skip := map[string]bool{}
	for _, l := range [][]string{compileDenied, compileRefused, compileSpecial} {
		for _, n := range l {
			skip[n] = true
		}
	}
	var out []int32
	for nr := int32(0); nr <= compileMaxNr; nr++ {
		name, err := seccomp.ScmpSyscall(nr).GetName()
		if err != nil || name == "" || skip[name] {
			continue
		}
		out = append(out, nr)
	}
	return out
}

func splitFlags(mask uint64) []uint64 {
	var out []uint64
	for b := uint64(1); b != 0; b <<= 1 {
		if mask&b != 0 {
			out = append(out, b)
		}
	}
	return out
}

func exportBPF(f *seccomp.ScmpFilter) ([]byte, error) {
	fd, err := unix.MemfdCreate("verdict-bpf", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("seccomp export: memfd: %w", err)
	}
	mf := os.NewFile(uintptr(fd), "verdict-bpf")
	defer mf.Close()
	if err := f.ExportBPF(mf); err != nil {
		return nil, fmt.Errorf("seccomp export: %w", err)
	}
	if _, err := mf.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("seccomp export: seek: %w", err)
	}
	b, err := io.ReadAll(mf)
	if err != nil {
		return nil, fmt.Errorf("seccomp export: read: %w", err)
	}
	if len(b) == 0 || len(b)%8 != 0 {
		return nil, fmt.Errorf("seccomp export: bad program length %d", len(b))
	}
	return b, nil
}

// syscallName names a native syscall number for reports.
func syscallName(nr int32) string {
	n, err := seccomp.ScmpSyscall(nr).GetName()
	if err != nil || n == "" {
		return fmt.Sprintf("syscall_%d", nr)
	}
	return n
}

var filterOptimize = 2

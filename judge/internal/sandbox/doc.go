// Package sandbox runs untrusted programs for the judge: isolated by
// namespaces, a read-only root, an unprivileged user and a seccomp filter;
// bounded and measured by a cgroup fresh or reset exactly for each run (v1
// or v2, through containerd/cgroups/v3). It owns everything between "run this argv in this
// directory with these limits" and a Result; the agent decides what to run.
//
// # Design: pre-forked containers plus a C fork/exec shim
//
// Go cannot run code between fork and exec, and a sandboxed process needs
// several steps there (join cgroups, rlimits, drop credentials, no_new_privs,
// load seccomp). Three ways were weighed:
//
//   - Re-exec the judge binary per run as a helper that builds namespaces and
//     mounts, then execs the program. Simple and fresh, but every run pays a Go
//     runtime start (a cgo binary with libseccomp), namespace creation and
//     teardown (mount-namespace teardown waits for an RCU grace period in the
//     exiting task), and the program would be PID 1 of its namespace, where
//     signals without handlers are dropped (abort() would not report SIGABRT).
//   - One container per run, built by Go's SysProcAttr: it cannot load seccomp
//     or set rlimits in the child.
//   - What this package does (as go-judge does in spirit): a pool of
//     pre-forked containers, one per concurrent slot. Each container is the
//     judge binary re-executed (MaybeInit) into new mount, PID, IPC, UTS and
//     network namespaces; it builds the root once (with one size-capped
//     /tmp), drops its capability bounding set and sets no_new_privs once,
//     and stays as PID 1. Per run the judge sends it a request over a
//     SOCK_SEQPACKET pair with the descriptors attached (stdio, the work dir
//     as a detached open_tree clone when it differs from the one at /w, the
//     run cgroup's cgroup.procs files). The init attaches the work dir at /w
//     (move_mount) if needed and has the profile's spawner (spawn_linux.c)
//     start the program: a thread of the init, outside Go, that loaded the
//     profile's seccomp filter once and clones every program of that
//     profile with CLONE_VM|CLONE_VFORK|CLONE_PIDFD. The child inherits the
//     filter, the empty bounding set and no_new_privs, and makes only raw
//     system calls: reset signal handlers, its own process group, write "0"
//     to each cgroup.procs (so it is in the run's cgroup before exec; CPU and
//     memory from the first instruction are counted), dup stdio, mark every
//     other fd close-on-exec (closes them before Linux 5.11), set rlimits,
//     chdir /w, setgroups/setresgid/setresuid to the sandbox user (which
//     clears every capability set), RLIMIT_NPROC (only now: before Linux
//     5.17 a set*uid to a uid at its limit makes the next execve fail),
//     execve. The init waits on the pidfd and the filter's
//     listener with one poll, on its one locked thread (GOMAXPROCS=1), kills
//     and reaps whatever is left, empties /tmp and answers.
//
// Costs of the choice: a long-lived init per slot (a few MiB each, one
// spawner thread per profile used); state could leak between runs of one
// container, so the init empties /tmp after every run (its pages are then
// uncharged before the judge reads the memory counters), /w is only ever the
// run's own directory, and kill(-1, SIGKILL) from PID 1 plus reaping leaves
// no process behind (a task with SIGKILL pending cannot fork, so the sweep
// is complete); the judge's cgroup kill is the second net. A work dir stays
// attached in an idle container until a run needs another: a deleted work
// dir's space is freed when its container moves on or closes. The shim is C
// and must stay async-signal-safe: no malloc, no glibc set*id wrappers (they
// signal the "other threads", which in a CLONE_VM child are the Go
// runtime's). The spawner thread runs under its profile's filter, which
// therefore lets through the shim's own calls with their exact arguments
// (see below); it keeps every signal blocked, and its children clear the
// mask only just before execve.
//
// # seccomp
//
// Profiles (profile.go): run is an allow-list; compile allows everything but
// a deny-list (network setup, mount, ptrace, bpf, io_uring, keyctl, module
// and clock calls...). Each is compiled to BPF once per container and loaded
// once, on its spawner thread: preparing a filter costs the kernel a few
// hundred microseconds (checks, translation, JIT, the per-syscall cache),
// inheriting it nothing. Anything denied is SECCOMP_RET_USER_NOTIF: the
// init reads the notification from the spawner's listener, names the
// syscall (libseccomp), and kills the run, which is then reported as a
// forbidden syscall with that name. The listener serves the runs of its
// profile one after the other; a notification of a task that died is
// withdrawn by the kernel, so none outlives its run. Other ABIs (x32, i386
// int 0x80) hit the filter's bad-arch action, SIGKILL-by-SIGSYS, reported as
// a forbidden syscall named "?".
//
// Exactly one execve under run: the filter allows execve only when its
// filename pointer equals the address of a page the init mapped at a random
// address (about 2^34 choices) into which the shim copies the path. After
// exec the program's address space is new; it cannot read its own filter
// (that needs CAP_SYS_ADMIN), and a wrong guess is itself fatal, so execve of
// /bin/sh (or anything) is denied. execveat is never allowed. clone3 returns
// ENOSYS (its flags live in memory the filter cannot see; glibc falls back
// to clone, whose flags are checked: no namespace flags). fork/clone are
// allowed only when Limits.Procs > 1, the pids cgroup bounding how many.
// The shim's own calls between clone and execve pass with their exact
// arguments only, all no-ops or failures for an unprivileged program: clone
// with the spawner's flags and parent_tid pointer (in the same secret page;
// with Procs 1 the pids cgroup would refuse a second process anyway),
// setpgid(0, 0), close_range, setgroups(0, ...), setresuid/setresgid to the
// sandbox user.
//
// # cgroups
//
// cgroups.Mode() picks the hierarchy: v2 when unified, else the v1
// controllers (cpuacct, memory, pids, freezer joined; cpuset too when the
// run is pinned to a CPU). Every run gets a cgroup nobody used or its
// container's cgroup reset exactly (v1 only: v2's memory.peak cannot be
// reset before Linux 6.12). A v1 cgroup is reset only when it is empty and
// nothing of the last run is charged to it but what the kernel caches per
// CPU (memory.stat: no page cache, tmpfs, mapped, huge, swap, dirty or
// writeback page; usage at most 64 pages per CPU, the kernel's charge batch,
// which any cgroup's peak includes, fresh or not): then the peak
// (memory.max_usage_in_bytes) and the CPU counter (cpuacct.usage) are set to
// zero and the oom_kill count taken as the run's baseline. Otherwise the
// container takes a fresh cgroup, made ahead in the background, and the old
// one is removed in the background. Control files are kept open and read
// with pread (cgroup.procs excepted: on v1 an open one keeps serving the pid
// list it loaded first); limits are written only when they change.
//
// CPU time is cpuacct.usage (v1) or cpu.stat usage_usec (v2), read after
// everything in the cgroup is dead; while the run lives the judge polls it,
// sleeping no longer than the remaining CPU time divided by the CPUs the run
// may use, so a time limit is enforced within about a millisecond
// (RLIMIT_CPU at limit+1 s is the backstop). The memory peak is memory.max_usage_in_bytes (v1) or
// memory.peak (v2, Linux 5.19+), or, on v2 kernels without memory.peak (or
// with Config.PollMemory), memory.current sampled every 2 ms with the limit
// taken when memory.events counts a "max" (Sandbox.MemoryPeakMethod says
// which); swap is off (v1: memsw limit = memory limit
// when swap accounting exists, else there is nothing to limit; v2:
// memory.swap.max 0). OOM kills are read from memory.oom_control or
// memory.events. Killing: v2 cgroup.kill; v1 freezer FROZEN, SIGKILL every
// member, THAWED, and wait until empty.
//
// v2 hosts: the judge needs a delegated subtree. Under systemd give the
// service Delegate=yes and set Config.CgroupParent to the service's own
// cgroup (e.g. system.slice/verdict-judge.service); the judge then moves
// itself into a "supervisor" leaf (cgroup v2 forbids processes in a cgroup
// that hands controllers to children) and enables cpu, cpuset, memory and
// pids for the runs. Without systemd, any parent works as root.
//
// # Limits and output
//
// Wall time is enforced by the judge (default 2×CPU+1 s). RLIMIT_AS is
// 2× the memory limit (-1: unlimited, for the JVM), RLIMIT_STACK the memory
// limit (glibc then gives new threads stacks of that size too: programs
// with Procs > 1 may want a smaller Limits.Stack), RLIMIT_NOFILE,
// RLIMIT_FSIZE = the output limit for files; memlock and msgqueue 0;
// core 1 byte, set in the init and pinned by the filters (no core file, and
// no core_pattern pipe helper: the kernel skips it for a limit of exactly
// 1). stdout is read through a bounded buffer: past Limits.Output the judge
// stops reading and kills the run as an output limit; stderr is kept up to
// Limits.Stderr and read on up to Limits.Output (at most 64 MiB), past
// which it is an output limit too. The judge's memory and CPU are bounded
// by these limits whatever the program prints.
//
// # Files in sandbox-writable directories
//
// safefs.go: the judge reads files there only beneath a trusted directory
// with openat2 (no symlinks, no magic links, no "..", no mount crossing),
// regular files only, bounded (OpenBeneath, ReadFileBeneath); a stdout file
// is created with O_NOFOLLOW and must be regular; trees are chowned and
// removed (ChownTree, RemoveAll, EmptyDir; /tmp after every run) with two
// descriptors at most whatever their depth, never through a symlink.
//
// # Work dirs and mountinfo
//
// A bind mount's line in /proc/self/mountinfo shows, as its root, the
// directory's path inside its file system: a work dir that is a plain
// directory on the host would show the host's layout (the judge's state
// dir, a /tmp path) to the run. MakeWorkDir (workdir.go) makes a work dir
// the root of a tmpfs of its own, so /w reads "/ /w ... - tmpfs w"; the
// judge's work dirs are all made so. RemoveAll empties such a dir (freeing
// its pages even while a container still has it attached), unmounts it
// and removes it. A tmpfs page is charged to the memory cgroup that writes
// it: what a run writes in /w counts against its memory limit, as /tmp
// does. The container's other mounts are its own file systems (the root,
// /dev with its four device nodes made by the init, /tmp, /proc and its
// masks) or binds shown at the path they bind.
package sandbox

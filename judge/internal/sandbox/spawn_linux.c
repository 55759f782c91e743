// spawn_linux.c — the only code that runs between fork and exec.
//
// Go cannot run code in a forked child, so the container init starts
// programs through this shim. Each seccomp profile has a spawner: a thread
// of the init, outside Go, that loaded the profile's filter once and then
// clones every program of that profile, which inherits the filter already
// prepared by the kernel (loading a filter costs a few hundred microseconds:
// the kernel checks, translates and JIT-compiles it and precomputes its
// per-syscall cache). The children are created with CLONE_VM|CLONE_VFORK
// (like posix_spawn): they borrow the init's memory on their own small
// stack, the spawner sleeps until the child has exec'd or died, and the
// child only makes raw system calls (no malloc, no locks, no glibc set*id
// wrappers, which would try to signal the Go runtime's other threads), all
// of which the filter allows it.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spawn_linux.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif

#define CHILD_STACK (256 * 1024)

static long raw(long nr, long a, long b, long c, long d, long e) {
	return syscall(nr, a, b, c, d, e, 0);
}

static int fail(struct vj_spawn *s, int stage) {
	s->err_stage = stage;
	s->err_no = errno;
	raw(SYS_exit, 127, 0, 0, 0, 0);
	return 127;
}

static int child(void *arg) {
	struct vj_spawn *s = arg;
	int i;

	// Every handler back to default while all signals are still blocked:
	// the init's handlers are Go's and must never run here.
	for (i = 1; i < 65; i++) {
		struct sigaction sa;
		if (i == SIGKILL || i == SIGSTOP)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_DFL;
		raw(SYS_rt_sigaction, i, (long)&sa, 0, 8, 0);
	}
	// Its own process group (kill(0, ...) reaches only the run), in the
	// init's session: setsid would make a scheduler autogroup per run.
	if (raw(SYS_setpgid, 0, 0, 0, 0, 0) < 0)
		return fail(s, VJ_STAGE_SETPGID);
	// Join the run's cgroups while still root: "0" means the writer.
	for (i = 0; i < s->n_cg; i++) {
		if (raw(SYS_write, s->cg_fds[i], (long)"0", 1, 0, 0) != 1)
			return fail(s, VJ_STAGE_CGROUP);
	}
	// A cgroup namespace rooted at the run's cgroups: /proc/self/cgroup
	// reads "/" (not the run cgroup's name, which holds the judge's pid),
	// and the program's cgroupfs view, were one mounted, starts there.
	if (raw(SYS_unshare, CLONE_NEWCGROUP, 0, 0, 0, 0) < 0)
		return fail(s, VJ_STAGE_CGROUP);
	for (i = 0; i < 3; i++) {
		if (s->fds[i] != i && raw(SYS_dup3, s->fds[i], i, 0, 0, 0) < 0)
			return fail(s, VJ_STAGE_DUP);
	}
	// Everything above 2 closes at exec (the seccomp listeners included).
	// CLOSE_RANGE_CLOEXEC is Linux 5.11+: before, close them now (this
	// child needs none of them past here: the cgroups are joined, stdio
	// is in place; a failure is reported through s, not a descriptor).
	if (raw(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC, 0, 0) < 0 &&
	    (errno != EINVAL || raw(SYS_close_range, 3, ~0U, 0, 0, 0) < 0))
		return fail(s, VJ_STAGE_CLOSE);
	struct rlimit64 { uint64_t cur, max; };
	int nproc = -1;
	for (i = 0; i < s->n_rlim; i++) {
		struct rlimit64 rl = {s->rlim[i].cur, s->rlim[i].max};
		// RLIMIT_NPROC is set once this child has the sandbox uid (below):
		// before Linux 5.17, set*uid under a limit the target uid has
		// reached already (another process of that uid) marks the task
		// and its execve then fails with EAGAIN, privileged or not.
		if (s->rlim[i].resource == RLIMIT_NPROC) {
			nproc = i;
			continue;
		}
		if (raw(SYS_prlimit64, 0, s->rlim[i].resource, (long)&rl, 0, 0) < 0)
			return fail(s, VJ_STAGE_RLIMIT);
	}
	if (raw(SYS_chdir, (long)s->dir, 0, 0, 0, 0) < 0)
		return fail(s, VJ_STAGE_CHDIR);
	// The init emptied the capability bounding set and set no_new_privs
	// on its thread once; the spawner and this child inherited both.
	if (raw(SYS_setgroups, 0, 0, 0, 0, 0) < 0)
		return fail(s, VJ_STAGE_CRED);
	if (raw(SYS_setresgid, s->gid, s->gid, s->gid, 0, 0) < 0)
		return fail(s, VJ_STAGE_CRED);
	// Leaving uid 0 for a non-zero uid clears the permitted, effective and
	// ambient capability sets.
	if (raw(SYS_setresuid, s->uid, s->uid, s->uid, 0, 0) < 0)
		return fail(s, VJ_STAGE_CRED);
	if (nproc >= 0) {
		// Lowered from the init's (no longer privileged: never above it).
		struct rlimit64 rl = {s->rlim[nproc].cur, s->rlim[nproc].max}, cur;
		if (raw(SYS_prlimit64, 0, RLIMIT_NPROC, 0, (long)&cur, 0) < 0)
			return fail(s, VJ_STAGE_RLIMIT);
		if (rl.max > cur.max)
			rl.max = cur.max;
		if (rl.cur > rl.max)
			rl.cur = rl.max;
		if (raw(SYS_prlimit64, 0, RLIMIT_NPROC, (long)&rl, 0, 0) < 0)
			return fail(s, VJ_STAGE_RLIMIT);
	}
	uint64_t empty = 0;
	raw(SYS_rt_sigprocmask, SIG_SETMASK, (long)&empty, 0, 8, 0);
	raw(SYS_execve, (long)s->path, (long)s->argv, (long)s->envp, 0, 0);
	return fail(s, VJ_STAGE_EXEC);
}

static char *stack_base;

// do_spawn runs on a spawner thread, all signals blocked, under the filter.
static void do_spawn(struct vj_spawner *sp, struct vj_spawn *s) {
	s->err_stage = 0;
	s->err_no = 0;
	s->pidfd = -1;
	*sp->pidfd_slot = -1;
	// CLONE_PIDFD writes the pidfd into the exec page: the run filter lets
	// clone take that parent_tid pointer only. The init waits on the pidfd
	// and the seccomp listener together with one poll.
	s->pid = clone(child, stack_base + CHILD_STACK, CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, s, sp->pidfd_slot);
	if (s->pid < 0) {
		s->pid = -errno;
		return;
	}
	s->pidfd = *sp->pidfd_slot;
}

static void *spawner_main(void *arg) {
	struct vj_spawner *sp = arg;
	struct sock_fprog prog = {(unsigned short)sp->filter_len, (struct sock_filter *)sp->filter};
	char c = 0;

	// From here on every system call of this thread passes the filter.
	long lfd = raw(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, (long)&prog, 0, 0);
	sp->listener = (int)lfd;
	sp->err_no = lfd < 0 ? errno : 0;
	raw(SYS_write, sp->done[1], (long)&c, 1, 0, 0);
	if (lfd < 0)
		return NULL;
	for (;;) {
		long n = raw(SYS_read, sp->req[0], (long)&c, 1, 0, 0);
		if (n != 1) {
			if (n < 0 && errno == EINTR)
				continue;
			// The init closed the request pipe: park forever (exiting
			// would make system calls the filter may not allow).
			for (;;)
				raw(SYS_ppoll, 0, 0, 0, 0, 0);
		}
		do_spawn(sp, sp->cur);
		raw(SYS_write, sp->done[1], (long)&c, 1, 0, 0);
	}
	return NULL;
}

int vj_spawner_start(struct vj_spawner *sp) {
	sigset_t all, old;
	pthread_attr_t attr;
	char c;
	int err;

	if (!stack_base) {
		stack_base = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack_base == MAP_FAILED) {
			stack_base = NULL;
			return errno;
		}
	}
	if (pipe2(sp->req, O_CLOEXEC) < 0)
		return errno;
	if (pipe2(sp->done, O_CLOEXEC) < 0) {
		err = errno;
		close(sp->req[0]);
		close(sp->req[1]);
		return err;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	// The thread starts (and stays) with every signal blocked; its
	// children inherit that mask and clear it just before execve.
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&sp->thread, &attr, spawner_main, sp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err != 0)
		return err;
	while (read(sp->done[0], &c, 1) < 0 && errno == EINTR)
		;
	return sp->err_no;
}

int vj_spawner_spawn(struct vj_spawner *sp, struct vj_spawn *s) {
	char c = 0;
	sp->cur = s;
	while (write(sp->req[1], &c, 1) < 0)
		if (errno != EINTR)
			return errno;
	while (read(sp->done[0], &c, 1) < 0)
		if (errno != EINTR)
			return errno;
	return 0;
}

void *vj_map_exec_page(uintptr_t hint) {
	void *p = mmap((void *)hint, VJ_EXEC_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	return p;
}

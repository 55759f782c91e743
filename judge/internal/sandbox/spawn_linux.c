// spawn_linux.c — the only code that runs between fork and exec.
//
// Go cannot run code in a forked child, so the container init calls
// vj_spawn through cgo. The child is created with CLONE_VM|CLONE_VFORK (like
// posix_spawn): it borrows the parent's memory on its own small stack, the
// calling thread sleeps until the child has exec'd or died, and the child only
// makes raw system calls (no malloc, no locks, no glibc set*id wrappers, which
// would try to signal the Go runtime's other threads).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
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
	// the parent's handlers are Go's and must never run here.
	for (i = 1; i < 65; i++) {
		struct sigaction sa;
		if (i == SIGKILL || i == SIGSTOP)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_DFL;
		raw(SYS_rt_sigaction, i, (long)&sa, 0, 8, 0);
	}
	if (raw(SYS_setsid, 0, 0, 0, 0, 0) < 0)
		return fail(s, VJ_STAGE_SETSID);
	// Join the run's cgroups while still root: "0" means the writer.
	for (i = 0; i < s->n_cg; i++) {
		if (raw(SYS_write, s->cg_fds[i], (long)"0", 1, 0, 0) != 1)
			return fail(s, VJ_STAGE_CGROUP);
	}
	for (i = 0; i < 3; i++) {
		if (s->fds[i] != i && raw(SYS_dup3, s->fds[i], i, 0, 0, 0) < 0)
			return fail(s, VJ_STAGE_DUP);
	}
	// Everything above 2 closes at exec; the notify socket is still needed.
	if (raw(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC, 0, 0) < 0)
		return fail(s, VJ_STAGE_CLOSE);
	for (i = 0; i < s->n_rlim; i++) {
		struct rlimit64 { uint64_t cur, max; } rl = {s->rlim[i].cur, s->rlim[i].max};
		if (raw(SYS_prlimit64, 0, s->rlim[i].resource, (long)&rl, 0, 0) < 0)
			return fail(s, VJ_STAGE_RLIMIT);
	}
	if (raw(SYS_chdir, (long)s->dir, 0, 0, 0, 0) < 0)
		return fail(s, VJ_STAGE_CHDIR);
	// Empty the bounding set too: nothing can ever regain a capability.
	for (i = 0; i < 64; i++) {
		if (raw(SYS_prctl, PR_CAPBSET_DROP, i, 0, 0, 0) < 0 && errno == EINVAL)
			break;
	}
	if (raw(SYS_setgroups, 0, 0, 0, 0, 0) < 0)
		return fail(s, VJ_STAGE_CRED);
	if (raw(SYS_setresgid, s->gid, s->gid, s->gid, 0, 0) < 0)
		return fail(s, VJ_STAGE_CRED);
	// Leaving uid 0 for a non-zero uid clears the permitted, effective and
	// ambient capability sets.
	if (raw(SYS_setresuid, s->uid, s->uid, s->uid, 0, 0) < 0)
		return fail(s, VJ_STAGE_CRED);
	if (raw(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(s, VJ_STAGE_NNP);
	if (s->filter_len > 0) {
		struct sock_fprog prog = {(unsigned short)s->filter_len, (struct sock_filter *)s->filter};
		long lfd = raw(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, (long)&prog, 0, 0);
		if (lfd < 0)
			return fail(s, VJ_STAGE_SECCOMP);
		// Hand the listener to the init (the filter allows sendmsg on this fd only).
		char cbuf[CMSG_SPACE(sizeof(int))];
		char byte = 'L';
		struct iovec iov = {&byte, 1};
		struct msghdr mh;
		memset(&mh, 0, sizeof mh);
		memset(cbuf, 0, sizeof cbuf);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof cbuf;
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		int ifd = (int)lfd;
		memcpy(CMSG_DATA(cm), &ifd, sizeof(int));
		if (raw(SYS_sendmsg, s->notify_fd, (long)&mh, 0, 0, 0) < 0)
			return fail(s, VJ_STAGE_SECCOMP);
		raw(SYS_close, lfd, 0, 0, 0, 0);
	}
	uint64_t empty = 0;
	raw(SYS_rt_sigprocmask, SIG_SETMASK, (long)&empty, 0, 8, 0);
	raw(SYS_execve, (long)s->path, (long)s->argv, (long)s->envp, 0, 0);
	return fail(s, VJ_STAGE_EXEC);
}

static char *stack_base;

int vj_spawn(struct vj_spawn *s) {
	sigset_t all, old;
	int pid;

	if (!stack_base) {
		stack_base = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack_base == MAP_FAILED) {
			stack_base = NULL;
			return -errno;
		}
	}
	s->err_stage = 0;
	s->err_no = 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = clone(child, stack_base + CHILD_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, s);
	int saved = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
		return -saved;
	return pid;
}

void *vj_map_exec_page(uintptr_t hint) {
	void *p = mmap((void *)hint, VJ_EXEC_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	return p;
}

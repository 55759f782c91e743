// spawn_linux.h — the contract between the Go container init and the C
// fork/exec shim in spawn_linux.c.
#ifndef VJ_SPAWN_H
#define VJ_SPAWN_H
#include <pthread.h>
#include <stdint.h>

#define VJ_EXEC_PAGE 4096
// The exec page holds the program path from offset 0 and, here, the pidfd
// clone writes (the only parent_tid the run filter lets clone take).
#define VJ_PIDFD_SLOT (VJ_EXEC_PAGE - 8)
#define VJ_MAX_CG 8
#define VJ_MAX_RLIM 16

enum {
	VJ_STAGE_OK = 0,
	VJ_STAGE_SETPGID,
	VJ_STAGE_CGROUP,
	VJ_STAGE_DUP,
	VJ_STAGE_CLOSE,
	VJ_STAGE_RLIMIT,
	VJ_STAGE_CHDIR,
	VJ_STAGE_CRED,
	VJ_STAGE_EXEC,
};

struct vj_rlim {
	int resource;
	uint64_t cur, max;
};

struct vj_spawn {
	// inputs
	const char *path; // inside the exec page: the filter allows execve of this pointer only
	char *const *argv;
	char *const *envp;
	const char *dir;
	int fds[3];
	int cg_fds[VJ_MAX_CG];
	int n_cg;
	struct vj_rlim rlim[VJ_MAX_RLIM];
	int n_rlim;
	unsigned int uid, gid;
	// outputs: the pid (-errno if clone failed) and pidfd, and what the
	// child writes before it dies (the memory is shared)
	int pid;
	int pidfd;
	int err_stage;
	int err_no;
};

// vj_spawner is one profile's spawner thread.
struct vj_spawner {
	// inputs
	const void *filter; // struct sock_filter[filter_len], loaded once
	int filter_len;
	int *pidfd_slot;    // in the exec page: the only parent_tid clone may take
	// state
	int req[2], done[2];
	struct vj_spawn *cur;
	pthread_t thread;
	// outputs of vj_spawner_start
	int listener;
	int err_no;
};

// vj_spawner_start starts the thread and waits until it has loaded the
// filter; it returns 0 or an errno.
int vj_spawner_start(struct vj_spawner *sp);
// vj_spawner_spawn has the spawner start s and waits until the child has
// exec'd or failed; it returns 0 or an errno (of the hand-over itself).
int vj_spawner_spawn(struct vj_spawner *sp, struct vj_spawn *s);
void *vj_map_exec_page(uintptr_t hint);
#endif

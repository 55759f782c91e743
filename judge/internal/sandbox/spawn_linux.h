// spawn_linux.h — the contract between the Go container init and the C
// fork/exec shim in spawn_linux.c.
#ifndef VJ_SPAWN_H
#define VJ_SPAWN_H
#include <stdint.h>

#define VJ_EXEC_PAGE 4096
#define VJ_MAX_CG 8
#define VJ_MAX_RLIM 12

enum {
	VJ_STAGE_OK = 0,
	VJ_STAGE_SETSID,
	VJ_STAGE_CGROUP,
	VJ_STAGE_DUP,
	VJ_STAGE_CLOSE,
	VJ_STAGE_RLIMIT,
	VJ_STAGE_CHDIR,
	VJ_STAGE_CRED,
	VJ_STAGE_NNP,
	VJ_STAGE_SECCOMP,
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
	const void *filter; // struct sock_filter[filter_len]
	int filter_len;
	int notify_fd;
	// outputs, written by the child before it dies (the memory is shared)
	int err_stage;
	int err_no;
};

int vj_spawn(struct vj_spawn *s);
void *vj_map_exec_page(uintptr_t hint);
#endif

package sandbox

/*
#cgo CFLAGS: -O2 -Wall
#include <stdlib.h>
#include <string.h>
#include "spawn_linux.h"
*/
import "C"

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"
	"unsafe"
)

// spawnStages names the shim's failure points (VJ_STAGE_*).
var spawnStages = [...]string{"ok", "setpgid", "join cgroup", "dup stdio", "close fds", "rlimit", "chdir", "drop credentials", "execve"}

// rlimit is one resource limit for the shim.
type rlimit struct {
	Resource int    `json:"r"`
	Cur      uint64 `json:"c"`
	Max      uint64 `json:"m"`
}

// spawnParams is what the init asks the shim to do.
type spawnParams struct {
	path      string
	argv, env []string
	dir       string
	fds       [3]int
	cgFds     []int
	rlimits   []rlimit
	uid, gid  int
}

// execPage is the page the execve filename is copied into, and where clone
// writes the pidfd. Its address is random and is the only filename pointer
// the run filter lets execve take, and the only parent_tid pointer it lets
// clone take.
type execPage struct{ p unsafe.Pointer }

// mapExecPage maps a page at a random address in the user half of the
// address space (about 2^34 possible pages).
func mapExecPage() (*execPage, error) {
	for i := 0; i < 16; i++ {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("exec page: %w", err)
		}
		// 0x100000000000 .. 0x6fffffffffff, page aligned.
		addr := (0x100000000000 + binary.LittleEndian.Uint64(b[:])%0x600000000000) &^ 0xfff
		if p := C.vj_map_exec_page(C.uintptr_t(addr)); p != nil {
			return &execPage{p: p}, nil
		}
	}
	return nil, fmt.Errorf("exec page: no free address found")
}

func (e *execPage) addr() uintptr { return uintptr(e.p) }

// pidfdSlot is the address clone writes the pidfd to.
func (e *execPage) pidfdSlot() uintptr { return uintptr(e.p) + C.VJ_PIDFD_SLOT }

// spawner is one profile's spawner thread (see spawn_linux.c): it loaded
// the profile's seccomp filter once, and the programs it starts inherit it.
type spawner struct {
	sp       *C.struct_vj_spawner
	listener int // the filter's user-notification descriptor
}

// startSpawner starts a spawner thread for filter. It must be called on
// the init's locked thread: the new thread inherits that thread's
// credentials, empty bounding set and no_new_privs.
func startSpawner(ep *execPage, filter []byte) (*spawner, error) {
	sp := (*C.struct_vj_spawner)(C.calloc(1, C.sizeof_struct_vj_spawner))
	f := C.CBytes(filter)
	defer C.free(f)
	sp.filter = f
	sp.filter_len = C.int(len(filter) / 8)
	sp.pidfd_slot = (*C.int)(unsafe.Add(ep.p, C.VJ_PIDFD_SLOT))
	if e := C.vj_spawner_start(sp); e != 0 {
		// The thread, if it started, has exited (no filter: nothing of it
		// remains); the pipes stay open, it is the init's end anyway.
		return nil, fmt.Errorf("spawner: %w", syscall.Errno(e))
	}
	return &spawner{sp: sp, listener: int(sp.listener)}, nil
}

// spawn starts the program through the spawner and returns its pid and a
// pidfd for it (-1 if the clone failed).
func (sw *spawner) spawn(ep *execPage, sp spawnParams) (int, int, error) {
	if len(sp.path)+1 > C.VJ_PIDFD_SLOT {
		return 0, -1, fmt.Errorf("spawn: path too long")
	}
	if len(sp.cgFds) > C.VJ_MAX_CG || len(sp.rlimits) > C.VJ_MAX_RLIM {
		return 0, -1, fmt.Errorf("spawn: too many cgroups or rlimits")
	}
	s := (*C.struct_vj_spawn)(C.calloc(1, C.sizeof_struct_vj_spawn))
	defer C.free(unsafe.Pointer(s))

	page := unsafe.Slice((*byte)(ep.p), C.VJ_PIDFD_SLOT)
	n := copy(page, sp.path)
	page[n] = 0
	s.path = (*C.char)(ep.p)

	argv := cStrings(sp.argv)
	defer freeCStrings(argv, len(sp.argv))
	env := cStrings(sp.env)
	defer freeCStrings(env, len(sp.env))
	s.argv = argv
	s.envp = env
	s.dir = C.CString(sp.dir)
	defer C.free(unsafe.Pointer(s.dir))
	for i := 0; i < 3; i++ {
		s.fds[i] = C.int(sp.fds[i])
	}
	for i, fd := range sp.cgFds {
		s.cg_fds[i] = C.int(fd)
	}
	s.n_cg = C.int(len(sp.cgFds))
	for i, r := range sp.rlimits {
		s.rlim[i].resource = C.int(r.Resource)
		s.rlim[i].cur = C.uint64_t(r.Cur)
		s.rlim[i].max = C.uint64_t(r.Max)
	}
	s.n_rlim = C.int(len(sp.rlimits))
	s.uid = C.uint(sp.uid)
	s.gid = C.uint(sp.gid)

	if e := C.vj_spawner_spawn(sw.sp, s); e != 0 {
		return 0, -1, fmt.Errorf("spawn: %w: %w", errSpawnerBroken, syscall.Errno(e))
	}
	pid := int(s.pid)
	if pid < 0 {
		return 0, -1, fmt.Errorf("spawn: clone: %w", syscall.Errno(-pid))
	}
	pidfd := int(s.pidfd)
	if st := int(s.err_stage); st != 0 {
		name := "?"
		if st < len(spawnStages) {
			name = spawnStages[st]
		}
		// The child has exited (vfork semantics); the caller reaps it.
		return pid, pidfd, &spawnError{Stage: name, Errno: syscall.Errno(s.err_no)}
	}
	return pid, pidfd, nil
}

// errSpawnerBroken: the hand-over to a spawner thread failed; the init
// cannot start programs of that profile any more.
var errSpawnerBroken = errors.New("spawner thread unreachable")

// spawnError says which step of the shim failed.
type spawnError struct {
	Stage string
	Errno syscall.Errno
}

func (e *spawnError) Error() string { return fmt.Sprintf("spawn: %s: %v", e.Stage, e.Errno) }

func cStrings(ss []string) **C.char {
	arr := (**C.char)(C.calloc(C.size_t(len(ss)+1), C.size_t(unsafe.Sizeof(uintptr(0)))))
	sl := unsafe.Slice(arr, len(ss)+1)
	for i, s := range ss {
		sl[i] = C.CString(s)
	}
	sl[len(ss)] = nil
	return arr
}

func freeCStrings(arr **C.char, n int) {
	sl := unsafe.Slice(arr, n+1)
	for i := 0; i < n; i++ {
		C.free(unsafe.Pointer(sl[i]))
	}
	C.free(unsafe.Pointer(arr))
}

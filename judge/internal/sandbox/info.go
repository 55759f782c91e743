//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/containerd/cgroups/v3"
	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// Info describes what this host offers the sandbox.
type Info struct {
	// Cgroup is the hierarchy runs are measured with: "v1" or "v2".
	Cgroup string `json:"cgroup"`
	// CgroupMode is containerd's view: legacy, hybrid or unified.
	CgroupMode string `json:"cgroup_mode"`
	// SwapAccounting: v1 memory.memsw.* exists (then memory+swap is capped
	// at the memory limit) or v2 memory.swap.max exists (set to 0).
	SwapAccounting bool   `json:"swap_accounting"`
	Kernel         string `json:"kernel"`
	Libseccomp     string `json:"libseccomp"`
	SeccompAPI     uint   `json:"seccomp_api"`
	Root           bool   `json:"root"`
}

// HostInfo inspects the host without changing anything.
func HostInfo() Info {
	var in Info
	switch cgroups.Mode() {
	case cgroups.Legacy:
		in.CgroupMode = "legacy"
	case cgroups.Hybrid:
		in.CgroupMode = "hybrid"
	case cgroups.Unified:
		in.CgroupMode = "unified"
	default:
		in.CgroupMode = "unavailable"
	}
	in.Cgroup = CgroupMode()
	switch in.Cgroup {
	case "v1":
		_, err := os.Stat("/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes")
		in.SwapAccounting = err == nil
	case "v2":
		// The root has no memory.swap.max; any child with memory on has.
		ents, _ := os.ReadDir("/sys/fs/cgroup")
		for _, e := range ents {
			if _, err := os.Stat(filepath.Join("/sys/fs/cgroup", e.Name(), "memory.swap.max")); err == nil {
				in.SwapAccounting = true
				break
			}
		}
	}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		in.Kernel = strings.TrimRight(string(u.Release[:]), "\x00")
	}
	ma, mi, mc := seccomp.GetLibraryVersion()
	in.Libseccomp = fmt.Sprintf("%d.%d.%d", ma, mi, mc)
	in.SeccompAPI, _ = seccomp.GetAPI()
	in.Root = os.Geteuid() == 0
	return in
}

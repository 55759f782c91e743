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
	SwapAccounting bool `json:"swap_accounting"`
	// MemoryPeak names how a run's memory peak is measured: PeakV1
	// ("memory.max_usage_in_bytes"), PeakV2 ("memory.peak", Linux 5.19+)
	// or PeakV2Polled (a v2 kernel without memory.peak: memory.current
	// sampled every 2 ms, and memory.events "max").
	MemoryPeak string `json:"memory_peak"`
	Kernel     string `json:"kernel"`
	Libseccomp string `json:"libseccomp"`
	SeccompAPI uint   `json:"seccomp_api"`
	Root       bool   `json:"root"`
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
		in.MemoryPeak = PeakV1
	case "v2":
		// The root has neither memory.swap.max nor memory.peak; any child
		// with the memory controller on has them when the kernel has
		// (memory.peak: Linux 5.19+, which decides when there is no child).
		in.MemoryPeak = PeakV2Polled
		if kernelAtLeast(kernelRelease(), 5, 19) {
			in.MemoryPeak = PeakV2
		}
		ents, _ := os.ReadDir("/sys/fs/cgroup")
		for _, e := range ents {
			dir := filepath.Join("/sys/fs/cgroup", e.Name())
			if _, err := os.Stat(filepath.Join(dir, "memory.swap.max")); err == nil {
				in.SwapAccounting = true
			}
			if _, err := os.Stat(filepath.Join(dir, "memory.peak")); err == nil {
				in.MemoryPeak = PeakV2
			}
		}
	}
	in.Kernel = kernelRelease()
	ma, mi, mc := seccomp.GetLibraryVersion()
	in.Libseccomp = fmt.Sprintf("%d.%d.%d", ma, mi, mc)
	in.SeccompAPI, _ = seccomp.GetAPI()
	in.Root = os.Geteuid() == 0
	return in
}

func kernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return strings.TrimRight(string(u.Release[:]), "\x00")
}

// kernelAtLeast reports whether a release string ("6.1.0-57-amd64") is
// major.minor or later. Pure.
func kernelAtLeast(release string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(release, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}

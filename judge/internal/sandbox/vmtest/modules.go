package vmtest

import (
	"fmt"
	"path/filepath"
	"strings"
)

// moduleName is the kernel's name of a module file ("9pnet_virtio" for
// .../9pnet_virtio.ko; dashes are underscores).
func moduleName(path string) string {
	return strings.ReplaceAll(strings.TrimSuffix(filepath.Base(path), ".ko"), "-", "_")
}

// loadOrder returns want and everything it depends on, each after its
// dependencies. deps maps a module to what it depends on. Pure.
func loadOrder(want []string, deps map[string][]string) ([]string, error) {
	var out []string
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(m string, path []string) error
	visit = func(m string, path []string) error {
		switch state[m] {
		case 2:
			return nil
		case 1:
			return fmt.Errorf("modules: dependency cycle %s", strings.Join(append(path, m), " -> "))
		}
		d, ok := deps[m]
		if !ok {
			return fmt.Errorf("modules: %s not found (needed by %s)", m, strings.Join(path, " -> "))
		}
		state[m] = 1
		for _, x := range d {
			if err := visit(x, append(path, m)); err != nil {
				return err
			}
		}
		state[m] = 2
		out = append(out, m)
		return nil
	}
	for _, m := range want {
		if err := visit(m, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// kernelPackage picks the linux-image-* package out of a Depends field
// ("linux-image-6.1.0-57-amd64 (= 6.1.192-3)"). Pure.
func kernelPackage(depends string) string {
	for _, alt := range strings.FieldsFunc(depends, func(r rune) bool { return r == ',' || r == '|' }) {
		f := strings.Fields(alt)
		if len(f) > 0 && strings.HasPrefix(f[0], "linux-image-") {
			return f[0]
		}
	}
	return ""
}

// wantPeak is the memory-peak method `judge sandbox info` names on a
// cgroup v2 kernel of this release (sandbox.PeakV2 from Linux 5.19 on,
// sandbox.PeakV2Polled before). Pure.
func wantPeak(release string) string {
	var major, minor int
	if _, err := fmt.Sscanf(release, "%d.%d", &major, &minor); err == nil && (major > 5 || major == 5 && minor >= 19) {
		return "memory.peak"
	}
	return "poll memory.current"
}

// cpuVirtualizes reports whether /proc/cpuinfo's flags name hardware
// virtualization (Intel's vmx, AMD's svm), without which no KVM guest
// runs: a host that is itself a VM without nested virtualization (this CI
// machine, a Firecracker VM) may still open /dev/kvm and create a VM and
// its vCPUs, but the guest never prints a line. Pure.
func cpuVirtualizes(cpuinfo string) bool {
	for _, line := range strings.Split(cpuinfo, "\n") {
		name, flags, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) != "flags" {
			continue
		}
		for _, f := range strings.Fields(flags) {
			if f == "vmx" || f == "svm" {
				return true
			}
		}
	}
	return false
}

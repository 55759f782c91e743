package agent

import "golang.org/x/sys/unix"

// allowedCPUs lists the CPUs this process may run on (its affinity mask),
// or nil when the kernel does not say.
func allowedCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for i := range 1024 {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

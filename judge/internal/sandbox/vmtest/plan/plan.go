// Package plan is what the cgroup v2 test VM's init (vmtest/vminit) and
// the test that boots it (package vmtest) exchange: the plan goes into the
// initramfs as /plan.json, the results come back on the "out" share and
// the serial console.
package plan

// EmulatedArg on the kernel command line says the VM runs under TCG; the
// init then gives every phase EmulatedEnv (the sandbox suite's knob).
const (
	EmulatedArg = "vmtest.emulated=1"
	EmulatedEnv = "VERDICT_SANDBOX_TEST_EMULATED=1"
)

// Plan is /plan.json.
type Plan struct {
	// Modules are the kernel modules to load, in order (files under
	// /modules in the initramfs).
	Modules []string `json:"modules"`
	Phases  []Phase  `json:"phases"`
	// Binds are host directories shown at the same path after the VM's
	// own tmpfs mounts (/tmp, /run, /root): a checkout under /tmp (a CI
	// clone) keeps its built binaries visible.
	Binds []string `json:"binds,omitempty"`
}

// Phase is one program the init runs in the host's root (read-only, with
// tmpfs on /tmp, /run, /var/tmp and /root).
type Phase struct {
	Name string   `json:"name"`
	Argv []string `json:"argv"`
	Env  []string `json:"env,omitempty"`
	// Cgroup, relative to /sys/fs/cgroup, is made as systemd makes a
	// Delegate=yes unit's and the program starts in it; "" = the root.
	Cgroup string `json:"cgroup,omitempty"`
}

// Result is one phase's outcome (<name>.json on the share; its output is
// <name>.log).
type Result struct {
	Name  string `json:"name"`
	Exit  int    `json:"exit"`
	Error string `json:"error,omitempty"`
	Ms    int64  `json:"ms"`
	// Tree lists the phase's cgroup and everything under it afterwards.
	Tree []Cgroup `json:"tree,omitempty"`
}

// Cgroup is one cgroup of a Result's Tree.
type Cgroup struct {
	Path           string   `json:"path"`
	Procs          []string `json:"procs"`
	SubtreeControl []string `json:"subtree_control"`
}

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/containerd/cgroups/v3/cgroup1"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// v1Controllers are the hierarchies a run joins.
var v1Controllers = []cgroup1.Name{cgroup1.Cpuacct, cgroup1.Memory, cgroup1.Pids, cgroup1.Cpuset, cgroup1.Freezer}

type v1Driver struct {
	root   string // /sys/fs/cgroup
	parent string // relative, no slashes at the ends
	memsw  bool
	hier   cgroup1.Hierarchy
}

func newV1Driver(root, parent string) (*v1Driver, error) {
	for _, c := range v1Controllers {
		if _, err := os.Stat(filepath.Join(root, string(c), "cgroup.procs")); err != nil {
			return nil, fmt.Errorf("cgroup v1: controller %s not mounted at %s: %w", c, root, err)
		}
	}
	d := &v1Driver{root: root, parent: parent}
	_, err := os.Stat(filepath.Join(root, "memory", "memory.memsw.limit_in_bytes"))
	d.memsw = err == nil
	d.hier = func() ([]cgroup1.Subsystem, error) {
		return []cgroup1.Subsystem{
			cgroup1.NewCpuacct(root),
			cgroup1.NewMemory(root, cgroup1.OptionalSwap()),
			cgroup1.NewPids(root),
			cgroup1.NewCpuset(root),
			cgroup1.NewFreezer(root),
		}, nil
	}
	return d, nil
}

func (d *v1Driver) version() string      { return "v1" }
func (d *v1Driver) swapAccounting() bool { return d.memsw }

// v1Resources builds the containerd resources of one run. Pure.
func v1Resources(l cgLimits, memsw bool) *specs.LinuxResources {
	mem, pids := l.memory, l.pids
	res := &specs.LinuxResources{
		Memory: &specs.LinuxMemory{Limit: &mem},
		Pids:   &specs.LinuxPids{Limit: &pids},
	}
	if memsw {
		// memory+swap = memory: no swap at all.
		sw := mem
		res.Memory.Swap = &sw
	}
	if l.cpus != "" {
		res.CPU = &specs.LinuxCPU{Cpus: l.cpus}
	}
	return res
}

func (d *v1Driver) create(name string) (runCgroup, error) {
	rel := "/" + path.Join(d.parent, name)
	cg, err := cgroup1.New(cgroup1.StaticPath(rel), &specs.LinuxResources{}, cgroup1.WithHierarchy(d.hier))
	if err != nil {
		// New may have created some of the directories.
		for _, c := range v1Controllers {
			_ = os.Remove(filepath.Join(d.root, string(c), rel))
		}
		return nil, fmt.Errorf("cgroup v1 create %s: %w", rel, err)
	}
	return &v1Run{d: d, rel: rel, cg: cg}, nil
}

func (d *v1Driver) children() ([]string, error) {
	return listRunDirs(filepath.Join(d.root, "memory", d.parent))
}

func (d *v1Driver) remove(name string) error {
	rel := "/" + path.Join(d.parent, name)
	r := &v1Run{d: d, rel: rel}
	if err := r.kill(); err != nil {
		return err
	}
	var errs []error
	for _, c := range v1Controllers {
		if err := os.Remove(filepath.Join(d.root, string(c), rel)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

type v1Run struct {
	d   *v1Driver
	rel string
	cg  cgroup1.Cgroup
}

func (r *v1Run) apply(l cgLimits) error {
	if err := r.cg.Update(v1Resources(l, r.d.memsw)); err != nil {
		return fmt.Errorf("cgroup v1 limits %s: %w", r.rel, err)
	}
	return nil
}

func (r *v1Run) dir(c cgroup1.Name) string { return filepath.Join(r.d.root, string(c), r.rel) }

func (r *v1Run) procsFiles() []string {
	out := make([]string, 0, len(v1Controllers))
	for _, c := range v1Controllers {
		out = append(out, filepath.Join(r.dir(c), "cgroup.procs"))
	}
	return out
}

func (r *v1Run) cpuUsage() (time.Duration, error) {
	v, err := readInt(filepath.Join(r.dir(cgroup1.Cpuacct), "cpuacct.usage"))
	return time.Duration(v), err
}

func (r *v1Run) memoryPeak() (int64, error) {
	return readInt(filepath.Join(r.dir(cgroup1.Memory), "memory.max_usage_in_bytes"))
}

func (r *v1Run) oomKilled() (bool, error) {
	v, err := readKeyed(filepath.Join(r.dir(cgroup1.Memory), "memory.oom_control"), "oom_kill")
	return v > 0, err
}

// kill freezes the cgroup so nothing can fork while it is being emptied,
// SIGKILLs every member, thaws (a frozen task cannot die), then waits.
func (r *v1Run) kill() error {
	procs := filepath.Join(r.dir(cgroup1.Freezer), "cgroup.procs")
	b, err := os.ReadFile(procs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cgroup v1 kill: %w", err)
	}
	if len(parsePids(b)) == 0 {
		return nil
	}
	state := filepath.Join(r.dir(cgroup1.Freezer), "freezer.state")
	frozen := false
	if os.WriteFile(state, []byte("FROZEN"), 0) == nil {
		for i := 0; i < 200; i++ {
			s, err := os.ReadFile(state)
			if err != nil {
				break
			}
			if strings.TrimSpace(string(s)) == "FROZEN" {
				frozen = true
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	if b, err := os.ReadFile(procs); err == nil {
		for _, p := range parsePids(b) {
			_ = unix.Kill(p, unix.SIGKILL)
		}
	}
	_ = os.WriteFile(state, []byte("THAWED"), 0)
	err = killPidsLoop(procs, func(p int) error { return unix.Kill(p, unix.SIGKILL) }, 5*time.Second)
	if err != nil {
		return fmt.Errorf("cgroup v1 kill (frozen=%v): %w", frozen, err)
	}
	return nil
}

func (r *v1Run) destroy() error {
	if err := r.kill(); err != nil {
		return err
	}
	var errs []error
	for _, c := range v1Controllers {
		d := r.dir(c)
		var err error
		for i := 0; i < 50; i++ {
			err = os.Remove(d)
			if err == nil || errors.Is(err, os.ErrNotExist) {
				err = nil
				break
			}
			// EBUSY while the last task is being reaped.
			time.Sleep(time.Millisecond)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cgroup v1 destroy %s: %w", r.rel, err)
	}
	return nil
}

//go:build linux

// Command vminit is PID 1 of the cgroup v2 test VM (see package vmtest):
// a static binary in the initramfs the test builds. It loads the 9p and
// virtio modules from the initramfs, mounts the host's root read-only
// (9p tag "hostroot") with tmpfs where programs write, mounts cgroup2
// alone at /sys/fs/cgroup, runs the phases of /plan.json one after the
// other in that root, writes each phase's output and result to the "out"
// share (mounted at /mnt), prints the results on the console, and powers
// the machine off.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/verdict-oj/verdict/judge/internal/sandbox/vmtest/plan"
)

func main() {
	err := run()
	if err != nil {
		fmt.Fprintf(os.Stderr, "vminit: %v\n", err)
		// Before the chroot or after it: the share is at one of these.
		_ = os.WriteFile("/newroot/mnt/init-error", []byte(err.Error()+"\n"), 0o644)
		_ = os.WriteFile("/mnt/init-error", []byte(err.Error()+"\n"), 0o644)
	}
	unix.Sync()
	_ = unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	select {}
}

func run() error {
	for _, m := range []struct{ src, dst, fs, opts string }{
		{"dev", "/dev", "devtmpfs", ""},
		{"proc", "/proc", "proc", ""},
		{"sys", "/sys", "sysfs", ""},
	} {
		if err := mount(m.src, m.dst, m.fs, 0, m.opts); err != nil {
			return err
		}
	}
	b, err := os.ReadFile("/plan.json")
	if err != nil {
		return err
	}
	var p plan.Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	for _, m := range p.Modules {
		if err := loadModule("/modules/" + m); err != nil {
			return err
		}
	}
	// The new root is a tmpfs holding the host's top-level directories
	// as bind mounts of the read-only 9p share, and its own /proc, /sys,
	// /dev, /tmp...: nothing is mounted over a 9p directory (a 9p dentry
	// that is revalidated away would take such a mount with it).
	if err := mount("hostroot", "/host", "9p", unix.MS_RDONLY, "trans=virtio,version=9p2000.L,msize=262144,cache=loose"); err != nil {
		return err
	}
	if err := mount("root", "/newroot", "tmpfs", 0, "mode=0755"); err != nil {
		return err
	}
	own := map[string]bool{"proc": true, "sys": true, "dev": true, "tmp": true, "run": true, "mnt": true, "root": true}
	ents, err := os.ReadDir("/host")
	if err != nil {
		return err
	}
	for _, e := range ents {
		src, dst := "/host/"+e.Name(), "/newroot/"+e.Name()
		switch {
		case own[e.Name()]:
		case e.Type()&os.ModeSymlink != 0:
			t, err := os.Readlink(src)
			if err != nil {
				return err
			}
			if err := os.Symlink(t, dst); err != nil {
				return err
			}
		case e.IsDir():
			if err := os.Mkdir(dst, 0o755); err != nil {
				return err
			}
			if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return fmt.Errorf("bind %s: %w", src, err)
			}
		}
	}
	if err := mount("out", "/newroot/mnt", "9p", 0, "trans=virtio,version=9p2000.L,msize=262144"); err != nil {
		return err
	}
	for _, d := range []string{"/tmp", "/run", "/root"} {
		if err := mount("tmpfs", "/newroot"+d, "tmpfs", 0, "mode=1777"); err != nil {
			return err
		}
	}
	for _, b := range p.Binds {
		if !filepath.IsAbs(b) || filepath.Clean(b) != b {
			return fmt.Errorf("bind %q: want a clean absolute path", b)
		}
		if err := os.MkdirAll("/newroot"+b, 0o755); err != nil {
			return err
		}
		if err := unix.Mount("/host"+b, "/newroot"+b, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", b, err)
		}
	}
	for _, m := range []struct{ src, dst, fs string }{
		{"dev", "/newroot/dev", "devtmpfs"},
		{"proc", "/newroot/proc", "proc"},
		{"sys", "/newroot/sys", "sysfs"},
		// cgroup2 alone: the kernel runs with cgroup_no_v1=all.
		{"cgroup2", "/newroot/sys/fs/cgroup", "cgroup2"},
	} {
		if err := mount(m.src, m.dst, m.fs, 0, ""); err != nil {
			return err
		}
	}
	if err := unix.Chroot("/newroot"); err != nil {
		return fmt.Errorf("chroot: %w", err)
	}
	if err := os.Chdir("/"); err != nil {
		return err
	}
	// The test says on the kernel command line when the VM is emulated
	// (TCG): the sandbox suite then widens its precision bounds.
	cmdline, _ := os.ReadFile("/proc/cmdline")
	emulated := strings.Contains(string(cmdline), plan.EmulatedArg)
	var results []plan.Result
	for _, ph := range p.Phases {
		if emulated {
			ph.Env = append(ph.Env, plan.EmulatedEnv)
		}
		r := runPhase(ph)
		results = append(results, r)
		line, _ := json.Marshal(r)
		// The console carries every result too (between markers).
		fmt.Fprintf(os.Stdout, "VMTEST-RESULT %s\n", line)
		_ = os.WriteFile("/mnt/"+ph.Name+".json", append(line, '\n'), 0o644)
	}
	all, _ := json.MarshalIndent(results, "", "  ")
	return os.WriteFile("/mnt/results.json", all, 0o644)
}

func mount(src, dst, fs string, flags uintptr, opts string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("mkdir %s: %w", dst, err)
	}
	if err := unix.Mount(src, dst, fs, flags, opts); err != nil {
		return fmt.Errorf("mount %s on %s (%s): %w", src, dst, fs, err)
	}
	return nil
}

func loadModule(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.FinitModule(int(f.Fd()), "", 0); err != nil && err != unix.EEXIST {
		return fmt.Errorf("load %s: %w", filepath.Base(path), err)
	}
	return nil
}

// runPhase runs one phase, in its cgroup when it names one (made as
// systemd makes a Delegate=yes unit's: the controllers enabled in every
// ancestor's cgroup.subtree_control, the unit's own left to the service).
func runPhase(ph plan.Phase) (r plan.Result) {
	r = plan.Result{Name: ph.Name, Exit: -1}
	start := time.Now()
	defer func() { r.Ms = time.Since(start).Milliseconds() }()
	cmd := exec.Command(ph.Argv[0], ph.Argv[1:]...)
	cmd.Env = append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root", "TMPDIR=/tmp"}, ph.Env...)
	cmd.Dir = "/tmp"
	// Straight to the share: a slow phase shows its progress on the host.
	log, err := os.Create("/mnt/" + ph.Name + ".log")
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if ph.Cgroup != "" {
		fd, err := delegate(ph.Cgroup)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		defer unix.Close(fd)
		cmd.SysProcAttr = &unix.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	}
	err = cmd.Run()
	if cmd.ProcessState != nil {
		r.Exit = cmd.ProcessState.ExitCode()
	}
	if err != nil {
		r.Error = err.Error()
	}
	if ph.Cgroup != "" {
		r.Tree = tree(filepath.Join("/sys/fs/cgroup", ph.Cgroup))
	}
	return r
}

// delegate makes cgroup (relative to /sys/fs/cgroup) with the controllers
// a run needs available in it, and returns a descriptor of it.
func delegate(cgroup string) (int, error) {
	parts := strings.Split(strings.Trim(cgroup, "/"), "/")
	dir := "/sys/fs/cgroup"
	for _, p := range parts {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+cpu +cpuset +memory +pids"), 0); err != nil {
			return -1, fmt.Errorf("enable controllers in %s: %w", dir, err)
		}
		dir = filepath.Join(dir, p)
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			return -1, err
		}
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", dir, err)
	}
	return fd, nil
}

// tree describes the cgroups under dir after a phase: each one's
// cgroup.procs and cgroup.subtree_control.
func tree(dir string) []plan.Cgroup {
	var out []plan.Cgroup
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		procs, _ := os.ReadFile(filepath.Join(p, "cgroup.procs"))
		ctl, _ := os.ReadFile(filepath.Join(p, "cgroup.subtree_control"))
		rel, _ := filepath.Rel("/sys/fs/cgroup", p)
		out = append(out, plan.Cgroup{Path: rel, Procs: strings.Fields(string(procs)), SubtreeControl: strings.Fields(string(ctl))})
		return nil
	})
	return out
}

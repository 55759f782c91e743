package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrNoField is returned when /proc/<pid>/status lacks a field.
var ErrNoField = errors.New("bench: field not in status")

// StatusField returns a field of a /proc/<pid>/status text: the number of
// a "kB" field in bytes (VmRSS), or the plain number (PPid).
func StatusField(status []byte, name string) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != name {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			break
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bench: %s %q: %w", name, v, err)
		}
		if len(f) > 1 && strings.EqualFold(f[1], "kB") {
			n *= 1024
		}
		return n, nil
	}
	return 0, fmt.Errorf("%w: %s", ErrNoField, name)
}

// RSS is a process's resident set in bytes (VmRSS).
func RSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("bench: rss: %w", err)
	}
	return StatusField(b, "VmRSS")
}

// Children lists the processes whose parent is pid.
func Children(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		if pp, err := StatusField(b, "PPid"); err == nil && int(pp) == pid {
			out = append(out, c)
		}
	}
	return out
}

// TreeRSS is the summed RSS of pid and its children.
func TreeRSS(pid int) (int64, error) {
	total, err := RSS(pid)
	if err != nil {
		return 0, err
	}
	for _, c := range Children(pid) {
		if r, err := RSS(c); err == nil {
			total += r
		}
	}
	return total, nil
}

// PidFile reads a pid file.
func PidFile(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("bench: pid file %s: %w", path, err)
	}
	return pid, nil
}

// RaiseNoFile raises this process's soft RLIMIT_NOFILE to its hard limit
// (the stack's processes, started later by this process, inherit it) and
// returns the new soft limit.
func RaiseNoFile() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, fmt.Errorf("bench: getrlimit: %w", err)
	}
	r.Cur = r.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, fmt.Errorf("bench: setrlimit: %w", err)
	}
	return r.Cur, nil
}

// NoFile is a process's soft RLIMIT_NOFILE as /proc/<pid>/limits says.
func NoFile(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	if err != nil {
		return 0, fmt.Errorf("bench: limits: %w", err)
	}
	return LimitsNoFile(b)
}

// LimitsNoFile parses the soft "Max open files" of a /proc/<pid>/limits
// text.
func LimitsNoFile(limits []byte) (int64, error) {
	for _, l := range strings.Split(string(limits), "\n") {
		if rest, ok := strings.CutPrefix(l, "Max open files"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				break
			}
			if f[0] == "unlimited" {
				return -1, nil
			}
			return strconv.ParseInt(f[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("%w: Max open files", ErrNoField)
}

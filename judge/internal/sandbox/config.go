package sandbox

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Exported sentinel errors.
var (
	// ErrInvalidSpec: the Spec or Config is malformed; nothing was run.
	ErrInvalidSpec = errors.New("sandbox: invalid spec")
	// ErrSandbox: the sandbox itself failed (cgroup, container, protocol).
	// The Result then has Status SandboxError.
	ErrSandbox = errors.New("sandbox: internal failure")
	// ErrClosed: Run was called after Close.
	ErrClosed = errors.New("sandbox: closed")
)

// Profile selects the seccomp policy.
type Profile string

const (
	// ProfileRun is for solutions and checkers: an allow-list; no sockets, no
	// execve after the program's own start, processes/threads only when
	// Limits.Procs > 1.
	ProfileRun Profile = "run"
	// ProfileCompile is for compilers: fork and execve allowed, dangerous
	// calls (network, mount, ptrace, bpf, ...) still forbidden.
	ProfileCompile Profile = "compile"
)

// Config configures a Sandbox. Zero values take the documented defaults.
type Config struct {
	// Slots is how many runs may execute at once (one pre-forked container
	// each). Default: runtime.NumCPU().
	Slots int
	// Prewarm containers started by New. Default: Slots. Negative: none.
	Prewarm int
	// UIDBase and GIDBase start the sandbox's id range: slot i runs its
	// programs as uid UIDBase+i and gid GIDBase+i, ids no other process may
	// use (New refuses to start when a process runs under one, or when
	// another Sandbox of this process holds one). Default 60000 for both
	// (as isolate), so the range is 60000..60000+Slots-1.
	UIDBase, GIDBase int
	// CgroupParent is the parent of the per-run cgroups, relative to the
	// cgroup mount ("/sys/fs/cgroup" on v2, each controller on v1).
	// Default "verdict-sandbox". On a systemd v2 host with Delegate=yes use the
	// service's own cgroup (see doc.go): the judge then moves itself into a
	// "supervisor" leaf.
	CgroupParent string
	// Binds are host paths bind-mounted read-only at the same place in the
	// container. Default: /usr /lib /lib64 /lib32 /bin /sbin (symlinks are
	// recreated as symlinks, missing paths skipped).
	Binds []string
	// EtcFiles are the /etc entries made visible. Default: ld.so.cache,
	// ld.so.conf, ld.so.conf.d, alternatives, localtime, java-17-openjdk.
	// /etc/passwd and /etc/group are generated (root and the sandbox user).
	EtcFiles []string
	// TmpSize caps each container's /tmp tmpfs (emptied after every run;
	// its pages are charged to the run that writes them). Default 16 MiB.
	TmpSize int64
	// TmpInodes caps the number of files and directories in /tmp, which
	// bounds the work of emptying it. Default 16384.
	TmpInodes int
	// Logger; default discards.
	Logger *slog.Logger
	// PollMemory measures memory peaks by sampling the cgroup's usage
	// every 2 ms (and taking the limit when the usage reached it) instead
	// of the kernel's watermark. Chosen
	// automatically on a cgroup v2 kernel without memory.peak (before
	// Linux 5.19); set it to use, and test, that method anywhere.
	PollMemory bool
	// InitPath is the binary re-executed as container init. Default
	// /proc/self/exe (the judge itself; its main must call MaybeInit first).
	InitPath string
}

func (c Config) withDefaults() Config {
	if c.Slots <= 0 {
		c.Slots = runtime.NumCPU()
	}
	if c.Prewarm == 0 {
		c.Prewarm = c.Slots
	}
	if c.Prewarm < 0 {
		c.Prewarm = 0
	}
	if c.Prewarm > c.Slots {
		c.Prewarm = c.Slots
	}
	if c.UIDBase <= 0 {
		c.UIDBase = DefaultIDBase
	}
	if c.GIDBase <= 0 {
		c.GIDBase = DefaultIDBase
	}
	if c.CgroupParent == "" {
		c.CgroupParent = "verdict-sandbox"
	}
	c.CgroupParent = strings.Trim(c.CgroupParent, "/")
	if c.Binds == nil {
		c.Binds = []string{"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin"}
	}
	if c.EtcFiles == nil {
		c.EtcFiles = []string{"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "java-17-openjdk"}
	}
	if c.TmpSize <= 0 {
		c.TmpSize = 16 << 20
	}
	if c.TmpInodes <= 0 {
		c.TmpInodes = 16384
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.InitPath == "" {
		c.InitPath = "/proc/self/exe"
	}
	return c
}

// Limits bound one run. Zero values take the documented defaults.
type Limits struct {
	// CPU time, read from the cgroup. Default 1 s.
	CPU time.Duration
	// Wall clock, enforced by the judge. Default 2×CPU + 1 s.
	Wall time.Duration
	// Memory: the cgroup limit (swap off). Default 256 MiB.
	Memory int64
	// AddressSpace: RLIMIT_AS. Default 2×Memory; -1 unlimited (the JVM).
	AddressSpace int64
	// Stack: RLIMIT_STACK. Default Memory.
	Stack int64
	// Output: RLIMIT_FSIZE for files and the stdout capture limit.
	// Default 64 MiB.
	Output int64
	// Stderr capture limit (truncated silently past it). Default 64 KiB.
	Stderr int64
	// Procs: the cgroup pids limit (processes + threads). Default 1 for the
	// run profile (no fork, no threads), 64 for compile. Under the run
	// profile Procs > 1 allows clone/fork up to the pids limit.
	Procs int
	// OpenFiles: RLIMIT_NOFILE. Default 64 (run), 256 (compile).
	OpenFiles int
}

func (l Limits) withDefaults(p Profile) Limits {
	if l.CPU <= 0 {
		l.CPU = time.Second
	}
	if l.Wall <= 0 {
		l.Wall = 2*l.CPU + time.Second
	}
	if l.Memory <= 0 {
		l.Memory = 256 << 20
	}
	if l.AddressSpace == 0 {
		l.AddressSpace = 2 * l.Memory
	}
	if l.Stack <= 0 {
		l.Stack = l.Memory
	}
	if l.Output <= 0 {
		l.Output = 64 << 20
	}
	if l.Stderr <= 0 {
		l.Stderr = 64 << 10
	}
	if l.Procs <= 0 {
		l.Procs = 1
		if p == ProfileCompile {
			l.Procs = 64
		}
	}
	if l.OpenFiles <= 0 {
		l.OpenFiles = 64
		if p == ProfileCompile {
			l.OpenFiles = 256
		}
	}
	return l
}

// Spec is one program to run.
type Spec struct {
	// Argv[0] is the program: a path inside the container (the work dir is
	// /w and is the current directory), or a bare name searched in PATH.
	Argv []string
	// Env; default PATH=/usr/local/bin:/usr/bin:/bin, HOME=/w, LANG=C.UTF-8.
	Env []string
	// Dir is the host directory mounted read-write at /w (required). The
	// program writes there only if Dir is writable by its slot's uid
	// (Sandbox.SlotUser; pin the slot with Slot to know it beforehand).
	Dir string
	// StdinFile is a host file given as stdin; else Stdin is copied in;
	// else stdin is /dev/null.
	StdinFile string
	Stdin     io.Reader
	// StdoutFile, when set, receives stdout directly (bounded by
	// RLIMIT_FSIZE); else stdout is captured in Result.Stdout up to
	// Limits.Output, and more is an output limit.
	StdoutFile string
	Limits     Limits
	Profile    Profile
	// CPU pins the run to one CPU (cpuset) when >= 0; -1 or nil: any.
	CPU *int
	// Slot runs the program in this slot (0..Slots-1), under that slot's
	// uid and gid, waiting for the slot to be free; nil: any free slot.
	Slot *int
}

func (s Spec) validate() error {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return fmt.Errorf("%w: empty argv", ErrInvalidSpec)
	}
	if s.Dir == "" {
		return fmt.Errorf("%w: no work dir", ErrInvalidSpec)
	}
	switch s.Profile {
	case ProfileRun, ProfileCompile, "":
	default:
		return fmt.Errorf("%w: unknown profile %q", ErrInvalidSpec, s.Profile)
	}
	if s.Slot != nil && *s.Slot < 0 {
		return fmt.Errorf("%w: slot %d", ErrInvalidSpec, *s.Slot)
	}
	if s.Limits.Procs > 4096 {
		return fmt.Errorf("%w: procs %d > 4096", ErrInvalidSpec, s.Limits.Procs)
	}
	return nil
}

// ParseSize parses "256M", "64MiB", "1G", "512k", "4096" (bytes) into bytes.
// Suffixes are binary (K=1024).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("parse size %q: empty", s)
	}
	up := strings.ToUpper(t)
	up = strings.TrimSuffix(up, "IB")
	up = strings.TrimSuffix(up, "B")
	mult := int64(1)
	if n := len(up); n > 0 {
		switch up[n-1] {
		case 'K':
			mult, up = 1<<10, up[:n-1]
		case 'M':
			mult, up = 1<<20, up[:n-1]
		case 'G':
			mult, up = 1<<30, up[:n-1]
		case 'T':
			mult, up = 1<<40, up[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(up), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("parse size %q: not a size", s)
	}
	b := v * float64(mult)
	if b > math.MaxInt64/2 {
		return 0, fmt.Errorf("parse size %q: too large", s)
	}
	return int64(b), nil
}

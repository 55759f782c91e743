package sandbox

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Status is the verdict of one run, as far as the sandbox can tell.
type Status string

const (
	StatusOK               Status = "ok"
	StatusTimeLimit        Status = "time_limit"
	StatusWallTimeLimit    Status = "wall_time_limit"
	StatusMemoryLimit      Status = "memory_limit"
	StatusOutputLimit      Status = "output_limit"
	StatusRuntimeError     Status = "runtime_error"
	StatusForbiddenSyscall Status = "forbidden_syscall"
	StatusSandboxError     Status = "sandbox_error"
)

func (s Status) String() string { return string(s) }

// Result is one run's outcome. It is JSON-encodable as the CLI prints it.
type Result struct {
	Status Status `json:"status"`
	// CPUMs is the cgroup's CPU time (all processes and threads of the run).
	CPUMs  int64 `json:"cpu_ms"`
	WallMs int64 `json:"wall_ms"`
	// MemoryKB is the cgroup's peak memory.
	MemoryKB int64 `json:"memory_kb"`
	// ExitCode of the main process (-1 when killed by a signal).
	ExitCode int `json:"exit_code"`
	// Signal that killed the main process (0 if it exited).
	Signal     int    `json:"signal,omitempty"`
	SignalName string `json:"signal_name,omitempty"`
	// Syscall names the forbidden system call ("?" if not identifiable, e.g.
	// a non-native ABI killed by the filter itself).
	Syscall         string `json:"syscall,omitempty"`
	Stdout          string `json:"stdout"`
	Stderr          string `json:"stderr"`
	StdoutTruncated bool   `json:"stdout_truncated,omitempty"`
	StderrTruncated bool   `json:"stderr_truncated,omitempty"`
	// Error details a sandbox error.
	Error string `json:"error,omitempty"`
	// Cgroup is "v1" or "v2": the hierarchy that measured this run.
	Cgroup string `json:"cgroup"`
	// Slot ran the program, as UID (its gid is GIDBase+Slot).
	Slot int `json:"slot"`
	UID  int `json:"uid"`

	// CPU and Wall at full resolution (not in JSON).
	CPU  time.Duration `json:"-"`
	Wall time.Duration `json:"-"`
}

// Interaction is the outcome of RunInteractive: each program's own
// Result (its CPU time, wall time and memory peak are its own cgroup's,
// whoever ended first), and which one ended first.
type Interaction struct {
	Solution   Result
	Interactor Result
	// InteractorFirst: the judge learnt of the interactor's end before the
	// solution's (an interactor that gave its verdict and exited, after
	// which the solution read EOF or was killed by SIGPIPE writing).
	InteractorFirst bool
}

// killReason records why the judge killed a run itself.
type killReason int

const (
	killNone killReason = iota
	killCPU
	killWall
	killOutput
	killCancel
)

// observation is everything classify needs; gathered after the run.
type observation struct {
	exited   bool // main process exited normally
	exitCode int
	signal   syscall.Signal

	cpu       time.Duration
	memPeak   int64
	oomKilled bool // the cgroup recorded an OOM kill

	killed     killReason
	forbidden  string // syscall name recorded by the notifier ("" none)
	stdoutOvf  bool   // stdout or stderr capture passed Limits.Output
	sandboxErr string
}

// classify turns an observation into a Status. Pure; order matters: a
// sandbox failure beats everything, a forbidden call beats the limits it
// may have caused, CPU beats memory (a TLE'd program that also hit memory
// is still too slow), and the judge's own kills say what they were for.
func classify(o observation, l Limits) (Status, string) {
	switch {
	case o.sandboxErr != "":
		return StatusSandboxError, ""
	case o.forbidden != "":
		return StatusForbiddenSyscall, o.forbidden
	case !o.exited && o.signal == unix.SIGSYS:
		// Killed by the filter itself (non-native ABI) or by a SIGSYS the
		// program raised: either way it tried something forbidden.
		return StatusForbiddenSyscall, "?"
	case o.killed == killCPU || o.cpu > l.CPU || (!o.exited && o.signal == unix.SIGXCPU):
		return StatusTimeLimit, ""
	case o.oomKilled && !(o.exited && o.exitCode == 0):
		return StatusMemoryLimit, ""
	case !(o.exited && o.exitCode == 0) && o.memPeak >= l.Memory:
		return StatusMemoryLimit, ""
	case o.killed == killOutput || o.stdoutOvf || (!o.exited && o.signal == unix.SIGXFSZ):
		return StatusOutputLimit, ""
	case o.killed == killWall:
		return StatusWallTimeLimit, ""
	case o.killed == killCancel:
		return StatusSandboxError, ""
	case !o.exited || o.exitCode != 0:
		return StatusRuntimeError, ""
	}
	return StatusOK, ""
}

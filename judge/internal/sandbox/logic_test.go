//go:build linux

package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

func TestClassify(t *testing.T) {
	l := Limits{CPU: time.Second, Memory: 64 << 20}.withDefaults(ProfileRun)
	tests := []struct {
		name string
		o    observation
		want Status
		sc   string
	}{
		{"clean exit", observation{exited: true, cpu: 10 * time.Millisecond}, StatusOK, ""},
		{"non-zero exit", observation{exited: true, exitCode: 3}, StatusRuntimeError, ""},
		{"segfault", observation{signal: unix.SIGSEGV}, StatusRuntimeError, ""},
		{"abort", observation{signal: unix.SIGABRT}, StatusRuntimeError, ""},
		{"judge killed for cpu", observation{signal: unix.SIGKILL, killed: killCPU, cpu: 1001 * time.Millisecond}, StatusTimeLimit, ""},
		{"exited after the cpu limit", observation{exited: true, cpu: 1100 * time.Millisecond}, StatusTimeLimit, ""},
		{"rlimit cpu", observation{signal: unix.SIGXCPU, cpu: 900 * time.Millisecond}, StatusTimeLimit, ""},
		{"oom kill", observation{signal: unix.SIGKILL, oomKilled: true, memPeak: 64 << 20}, StatusMemoryLimit, ""},
		{"oom of a child, main exit 0", observation{exited: true, oomKilled: true}, StatusOK, ""},
		{"bad_alloc at the limit", observation{signal: unix.SIGABRT, memPeak: 64 << 20}, StatusMemoryLimit, ""},
		{"file too large", observation{signal: unix.SIGXFSZ}, StatusOutputLimit, ""},
		{"stdout overflow", observation{signal: unix.SIGKILL, killed: killOutput, stdoutOvf: true}, StatusOutputLimit, ""},
		{"wall", observation{signal: unix.SIGKILL, killed: killWall, cpu: 5 * time.Millisecond}, StatusWallTimeLimit, ""},
		{"wall but cpu over", observation{signal: unix.SIGKILL, killed: killWall, cpu: 2 * time.Second}, StatusTimeLimit, ""},
		{"forbidden", observation{signal: unix.SIGKILL, forbidden: "socket"}, StatusForbiddenSyscall, "socket"},
		{"forbidden beats cpu", observation{signal: unix.SIGKILL, forbidden: "execve", cpu: 2 * time.Second}, StatusForbiddenSyscall, "execve"},
		{"bad arch", observation{signal: unix.SIGSYS}, StatusForbiddenSyscall, "?"},
		{"sandbox error beats all", observation{sandboxErr: "boom", forbidden: "x"}, StatusSandboxError, ""},
		{"cancelled", observation{signal: unix.SIGKILL, killed: killCancel}, StatusSandboxError, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, sc := classify(tc.o, l)
			if got != tc.want || sc != tc.sc {
				t.Errorf("classify = %s %q, want %s %q", got, sc, tc.want, tc.sc)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{"4096", 4096, false},
		{"256M", 256 << 20, false},
		{"256MiB", 256 << 20, false},
		{"64mb", 64 << 20, false},
		{"1G", 1 << 30, false},
		{"512k", 512 << 10, false},
		{"1.5K", 1536, false},
		{" 2 M ", 2 << 20, false},
		{"", 0, true},
		{"M", 0, true},
		{"-1M", 0, true},
		{"abc", 0, true},
		{"99999999999T", 0, true},
		{"NaN", 0, true},
	}
	for _, tc := range tests {
		got, err := ParseSize(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, err=%v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1", "256M", "1.5GiB", "k", "-3", "1e30T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSize(s)
		if err == nil && v < 0 {
			t.Fatalf("ParseSize(%q) = %d < 0", s, v)
		}
	})
}

func TestLimitsDefaults(t *testing.T) {
	l := Limits{}.withDefaults(ProfileRun)
	if l.CPU != time.Second || l.Wall != 3*time.Second || l.Memory != 256<<20 ||
		l.AddressSpace != 512<<20 || l.Stack != 256<<20 || l.Procs != 1 || l.OpenFiles != 64 {
		t.Errorf("run defaults: %+v", l)
	}
	c := Limits{CPU: 5 * time.Second}.withDefaults(ProfileCompile)
	if c.Wall != 11*time.Second || c.Procs != 64 || c.OpenFiles != 256 {
		t.Errorf("compile defaults: %+v", c)
	}
	j := Limits{AddressSpace: -1}.withDefaults(ProfileRun)
	for _, r := range rlimits(j) {
		if r.Resource == unix.RLIMIT_AS && r.Cur != unix.RLIM_INFINITY {
			t.Errorf("AddressSpace -1 gives RLIMIT_AS %d", r.Cur)
		}
	}
}

func TestRlimits(t *testing.T) {
	l := Limits{CPU: 1500 * time.Millisecond, Memory: 64 << 20, Output: 1 << 20}.withDefaults(ProfileRun)
	got := map[int]rlimit{}
	for _, r := range rlimits(l) {
		got[r.Resource] = r
	}
	want := map[int]uint64{
		unix.RLIMIT_CPU: 3, unix.RLIMIT_AS: 128 << 20, unix.RLIMIT_STACK: 64 << 20,
		unix.RLIMIT_FSIZE: 1 << 20, unix.RLIMIT_NOFILE: 64, unix.RLIMIT_MEMLOCK: 0,
	}
	// RLIMIT_CORE is the init's, inherited: the filter refuses to set it,
	// the shim's own prlimit64 included.
	if _, ok := got[unix.RLIMIT_CORE]; ok {
		t.Error("the shim sets RLIMIT_CORE")
	}
	for res, v := range want {
		if got[res].Cur != v {
			t.Errorf("rlimit %d = %d, want %d", res, got[res].Cur, v)
		}
	}
	if len(got) > 12 {
		t.Errorf("%d rlimits, the shim takes 12", len(got))
	}
}

func TestSpecValidate(t *testing.T) {
	bad := []Spec{
		{},
		{Argv: []string{""}, Dir: "/tmp"},
		{Argv: []string{"x"}},
		{Argv: []string{"x"}, Dir: "/tmp", Profile: "root"},
		{Argv: []string{"x"}, Dir: "/tmp", Limits: Limits{Procs: 100000}},
	}
	for i, s := range bad {
		if err := s.validate(); err == nil {
			t.Errorf("spec %d: no error", i)
		}
	}
	if err := (Spec{Argv: []string{"x"}, Dir: "/tmp"}).validate(); err != nil {
		t.Errorf("good spec: %v", err)
	}
}

func TestCPUPollDelay(t *testing.T) {
	tests := []struct {
		limit, used time.Duration
		par         int
		want        time.Duration
	}{
		{time.Second, 0, 2, 100 * time.Millisecond},
		{time.Second, 900 * time.Millisecond, 2, 50 * time.Millisecond},
		{time.Second, 900 * time.Millisecond, 1, 100 * time.Millisecond},
		{time.Second, 999 * time.Millisecond, 2, time.Millisecond},
		{time.Second, 2 * time.Second, 2, time.Millisecond},
		{100 * time.Millisecond, 0, 0, 100 * time.Millisecond},
	}
	for _, tc := range tests {
		if got := cpuPollDelay(tc.limit, tc.used, tc.par); got != tc.want {
			t.Errorf("cpuPollDelay(%v, %v, %d) = %v, want %v", tc.limit, tc.used, tc.par, got, tc.want)
		}
	}
}

func TestCgroupParsers(t *testing.T) {
	cpuStat := "usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\nnr_periods 0\n"
	if d, err := parseCPUStatUsage([]byte(cpuStat)); err != nil || d != 1234567*time.Microsecond {
		t.Errorf("cpu.stat: %v %v", d, err)
	}
	if _, err := parseCPUStatUsage([]byte("user_usec 1\n")); err == nil {
		t.Error("cpu.stat without usage_usec: no error")
	}
	if _, err := parseCPUStatUsage([]byte("usage_usec x\n")); err == nil {
		t.Error("cpu.stat garbage: no error")
	}
	events := "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n"
	if v, ok, err := parseKeyed([]byte(events), "oom_kill"); err != nil || !ok || v != 1 {
		t.Errorf("memory.events oom_kill: %d %v %v", v, ok, err)
	}
	oomControl := "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n"
	if v, _, _ := parseKeyed([]byte(oomControl), "oom_kill"); v != 3 {
		t.Errorf("memory.oom_control oom_kill = %d", v)
	}
	for in, want := range map[string]int64{"67108864\n": 64 << 20, "max\n": -1, "0": 0} {
		if v, err := parseUintFile([]byte(in)); err != nil || v != want {
			t.Errorf("parseUintFile(%q) = %d %v", in, v, err)
		}
	}
	if _, err := parseUintFile([]byte("-5")); err == nil {
		t.Error("parseUintFile(-5): no error")
	}
	if got := parsePids([]byte("12\n345\n\nx\n")); !slices.Equal(got, []int{12, 345}) {
		t.Errorf("parsePids = %v", got)
	}
	self := "12:pids:/user.slice\n4:memory:/process_api/abc\n3:cpu,cpuacct:/x\n0::/system.slice/judge.service\n"
	for ctrl, want := range map[string]string{"": "/system.slice/judge.service", "memory": "/process_api/abc", "cpuacct": "/x"} {
		if got, err := ownCgroup([]byte(self), ctrl); err != nil || got != want {
			t.Errorf("ownCgroup(%q) = %q %v, want %q", ctrl, got, err, want)
		}
	}
	if _, err := ownCgroup([]byte(self), "freezer"); err == nil {
		t.Error("ownCgroup(freezer): no error")
	}
	if p, ok := runOwner(runName(4242, 7)); !ok || p != 4242 {
		t.Errorf("runOwner(runName(4242,7)) = %d %v", p, ok)
	}
	for _, bad := range []string{"supervisor", "run-", "run-x-1", "run-12"} {
		if _, ok := runOwner(bad); ok {
			t.Errorf("runOwner(%q) ok", bad)
		}
	}
}

func TestCgroupResources(t *testing.T) {
	l := cgLimits{memory: 64 << 20, pids: 16, cpus: "1"}
	v2 := v2Resources(l, true)
	if *v2.Memory.Max != 64<<20 || *v2.Memory.Swap != 0 || v2.Pids.Max != 16 || v2.CPU.Cpus != "1" {
		t.Errorf("v2 resources: %+v %+v %+v", v2.Memory, v2.Pids, v2.CPU)
	}
	vals := map[string]bool{}
	for _, c := range v2.EnabledControllers() {
		vals[c] = true
	}
	for _, c := range []string{"memory", "pids", "cpuset"} {
		if !vals[c] {
			t.Errorf("v2 resources do not enable %s", c)
		}
	}
	if r := v2Resources(cgLimits{memory: 1, pids: 1}, false); r.Memory.Swap != nil || r.CPU != nil {
		t.Errorf("v2 without swap/cpus: %+v", r)
	}
}

func TestV1LimitWrites(t *testing.T) {
	const M = 1 << 20
	unl := cgLimits{memory: -1, pids: -1}
	w := func(f int, v string) v1Write { return v1Write{f, v} }
	tests := []struct {
		name      string
		cur, next cgLimits
		memsw     bool
		want      []v1Write
	}{
		{"fresh, swap accounting: memory before memsw", unl, cgLimits{memory: 64 * M, pids: 1}, true,
			[]v1Write{w(v1MemLimit, "67108864"), w(v1MemswLimit, "67108864"), w(v1PidsMax, "1")}},
		{"fresh, no swap accounting", unl, cgLimits{memory: 64 * M, pids: 1}, false,
			[]v1Write{w(v1MemLimit, "67108864"), w(v1PidsMax, "1")}},
		{"unchanged: nothing", cgLimits{memory: 64 * M, pids: 1}, cgLimits{memory: 64 * M, pids: 1}, true, nil},
		{"raise: memsw first", cgLimits{memory: 64 * M, pids: 1}, cgLimits{memory: 128 * M, pids: 1}, true,
			[]v1Write{w(v1MemswLimit, "134217728"), w(v1MemLimit, "134217728")}},
		{"lower: memory first", cgLimits{memory: 128 * M, pids: 64}, cgLimits{memory: 64 * M, pids: 1}, true,
			[]v1Write{w(v1MemLimit, "67108864"), w(v1MemswLimit, "67108864"), w(v1PidsMax, "1")}},
		{"pin a cpu", cgLimits{memory: M, pids: 1}, cgLimits{memory: M, pids: 1, cpus: "1"}, true,
			[]v1Write{w(v1CpusetCpus, "1")}},
		{"same pin: nothing", cgLimits{memory: M, pids: 1, cpus: "1"}, cgLimits{memory: M, pids: 1, cpus: "1"}, true, nil},
		{"unpinned after pinned: cpuset untouched (not joined)", cgLimits{memory: M, pids: 1, cpus: "1"}, cgLimits{memory: M, pids: 1}, true, nil},
	}
	for _, tc := range tests {
		if got := v1LimitWrites(tc.cur, tc.next, tc.memsw); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestV1Reusable(t *testing.T) {
	clean := "cache 0\nrss 0\nrss_huge 0\nshmem 0\nmapped_file 0\ndirty 0\nwriteback 0\nswap 0\npgpgin 812\npgpgout 812\nunevictable 0\nhierarchical_memory_limit 67108864\n"
	withCache := strings.Replace(clean, "cache 0", "cache 4096", 1)
	withShmem := strings.Replace(clean, "shmem 0", "shmem 8192", 1)
	const slack = 512 << 10
	tests := []struct {
		name  string
		usage int64
		kmem  int64
		stat  string
		want  bool
	}{
		{"empty", 0, 0, clean, true},
		{"only charge caches", 212992, 0, clean, true},
		{"anonymous pages waiting in per-CPU batches", 49152, 0, strings.Replace(clean, "rss 0", "rss 49152", 1), true},
		{"at the slack", slack, 0, clean, true},
		{"above the slack (kernel memory left)", slack + 4096, 0, clean, false},
		{"page cache left", 4096, 0, withCache, false},
		{"tmpfs pages left", 8192, 0, withShmem, false},
		{"kernel memory not accounted", 4096, -1, clean, true},
		{"a little kernel memory", 4096, v1KmemSlack, clean, true},
		{"dentries left charged (under the per-CPU slack)", 360 << 10, 356 << 10, clean, false},
	}
	for _, tc := range tests {
		got, err := v1Reusable(tc.usage, tc.kmem, []byte(tc.stat), slack)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v %v, want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := v1Reusable(0, 0, []byte("cache x\n"), slack); err == nil {
		t.Error("garbage memory.stat: no error")
	}
}

// The list of calls the run profile must never allow.
var runMustDeny = []string{
	"socket", "socketpair", "connect", "ptrace", "mount", "umount2", "mlock", "mlock2",
	"mlockall", "personality", "io_uring_setup", "io_uring_enter", "io_uring_register",
	"keyctl", "add_key", "request_key", "bpf", "perf_event_open", "execveat", "unshare",
	"setns", "process_vm_readv", "process_vm_writev", "pivot_root", "chroot", "userfaultfd",
}

func TestProfileTables(t *testing.T) {
	allowed := map[string]bool{}
	for _, n := range runAllowed {
		if allowed[n] {
			t.Errorf("%s listed twice", n)
		}
		allowed[n] = true
		if n != "futex_waitv" && n != "epoll_pwait2" {
			if _, err := seccomp.GetSyscallFromName(n); err != nil {
				t.Errorf("run allow-list: %s unknown to libseccomp", n)
			}
		}
	}
	for _, n := range append(runMustDeny, runProcessCalls...) {
		if allowed[n] {
			t.Errorf("run profile allows %s unconditionally", n)
		}
	}
	denied := map[string]bool{}
	for _, n := range compileDenied {
		denied[n] = true
	}
	for _, n := range []string{"ptrace", "mount", "bpf", "perf_event_open", "io_uring_setup", "keyctl", "unshare", "setns", "connect"} {
		if !denied[n] {
			t.Errorf("compile profile does not forbid %s", n)
		}
	}
	for _, n := range compileRefused {
		if denied[n] {
			t.Errorf("%s both refused and forbidden", n)
		}
	}
	if got := splitFlags(unix.CLONE_NEWNS | unix.CLONE_NEWNET); len(got) != 2 {
		t.Errorf("splitFlags = %v", got)
	}
}

// runBPF evaluates a classic BPF seccomp program on one call (x86_64
// seccomp_data: nr, arch, ip, args) and returns the action. It implements
// the instructions seccomp accepts.
func runBPF(t *testing.T, prog []byte, arch uint32, nr int32, args ...uint64) uint32 {
	t.Helper()
	var data [64]byte
	binary.LittleEndian.PutUint32(data[0:], uint32(nr))
	binary.LittleEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	type insn struct {
		code   uint16
		jt, jf uint8
		k      uint32
	}
	n := len(prog) / 8
	ins := make([]insn, n)
	for i := range ins {
		b := prog[8*i:]
		ins[i] = insn{binary.LittleEndian.Uint16(b), b[2], b[3], binary.LittleEndian.Uint32(b[4:])}
	}
	var a, x uint32
	var mem [16]uint32
	for pc := 0; pc < n; pc++ {
		in := ins[pc]
		switch in.code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			a = binary.LittleEndian.Uint32(data[in.k:])
		case unix.BPF_LD | unix.BPF_W | unix.BPF_LEN:
			a = 64
		case unix.BPF_LD | unix.BPF_IMM:
			a = in.k
		case unix.BPF_LDX | unix.BPF_IMM:
			x = in.k
		case unix.BPF_LD | unix.BPF_MEM:
			a = mem[in.k]
		case unix.BPF_LDX | unix.BPF_MEM:
			x = mem[in.k]
		case unix.BPF_ST:
			mem[in.k] = a
		case unix.BPF_STX:
			mem[in.k] = x
		case unix.BPF_MISC | unix.BPF_TAX:
			x = a
		case unix.BPF_MISC | unix.BPF_TXA:
			a = x
		case unix.BPF_ALU | unix.BPF_AND | unix.BPF_K:
			a &= in.k
		case unix.BPF_ALU | unix.BPF_OR | unix.BPF_K:
			a |= in.k
		case unix.BPF_ALU | unix.BPF_AND | unix.BPF_X:
			a &= x
		case unix.BPF_JMP | unix.BPF_JA:
			pc += int(in.k)
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, unix.BPF_JMP | unix.BPF_JGT | unix.BPF_K,
			unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K,
			unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_X, unix.BPF_JMP | unix.BPF_JGT | unix.BPF_X,
			unix.BPF_JMP | unix.BPF_JGE | unix.BPF_X, unix.BPF_JMP | unix.BPF_JSET | unix.BPF_X:
			v := in.k
			if in.code&unix.BPF_X != 0 {
				v = x
			}
			var ok bool
			switch in.code & 0xf0 {
			case unix.BPF_JEQ:
				ok = a == v
			case unix.BPF_JGT:
				ok = a > v
			case unix.BPF_JGE:
				ok = a >= v
			case unix.BPF_JSET:
				ok = a&v != 0
			}
			if ok {
				pc += int(in.jt)
			} else {
				pc += int(in.jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.k
		case unix.BPF_RET | unix.BPF_A:
			return a
		default:
			t.Fatalf("instruction %d: code %#x not interpreted", pc, in.code)
		}
	}
	t.Fatal("program fell off its end")
	return 0
}

func TestBuildFilter(t *testing.T) {
	const (
		x86_64 = 0xc000003e
		i386   = 0x40000003
		allow  = 0x7fff0000 // SECCOMP_RET_ALLOW
		notify = 0x7fc00000 // SECCOMP_RET_USER_NOTIF
		kill   = 0x80000000 // SECCOMP_RET_KILL_PROCESS
		enosys = 0x00050000 | uint32(unix.ENOSYS)
		eacces = 0x00050000 | uint32(unix.EACCES)
	)
	sec := spawnSecrets{execAddr: 0x3a5f12345000, cloneTid: 0x3a5f12345ff8, uid: 65534, gid: 65533}
	execAddr, cloneTid := uint64(sec.execAddr), uint64(sec.cloneTid)
	forkFlags := uint64(unix.CLONE_CHILD_SETTID | unix.CLONE_CHILD_CLEARTID | uint64(unix.SIGCHLD))
	type call struct {
		name string
		nr   int
		args []uint64
		want uint32
	}
	common := []call{
		{"read", unix.SYS_READ, nil, allow},
		{"execve of the shim's page", unix.SYS_EXECVE, []uint64{execAddr}, allow},
		{"execve of anything else", unix.SYS_EXECVE, []uint64{execAddr + 8}, notify},
		{"execveat", unix.SYS_EXECVEAT, nil, notify},
		{"socket", unix.SYS_SOCKET, []uint64{unix.AF_INET}, notify},
		{"ptrace", unix.SYS_PTRACE, nil, notify},
		{"mlock", unix.SYS_MLOCK, nil, notify},
		{"clone3", unix.SYS_CLONE3, nil, enosys},
		{"clone with a namespace flag", unix.SYS_CLONE, []uint64{unix.CLONE_NEWUSER | uint64(unix.SIGCHLD), 0, cloneTid}, notify},
		{"setpgid(0, 0)", unix.SYS_SETPGID, []uint64{0, 0}, allow},
		{"setpgid of another", unix.SYS_SETPGID, []uint64{7, 0}, notify},
		{"setresuid to the sandbox user", unix.SYS_SETRESUID, []uint64{65534, 65534, 65534}, allow},
		{"setresuid to root", unix.SYS_SETRESUID, []uint64{0, 0, 0}, notify},
		{"setresgid to the sandbox group", unix.SYS_SETRESGID, []uint64{65533, 65533, 65533}, allow},
		{"setgroups(0)", unix.SYS_SETGROUPS, []uint64{0, 0}, allow},
		{"setgroups(1, ...)", unix.SYS_SETGROUPS, []uint64{1, 0x1000}, notify},
		{"prctl(PR_SET_NAME)", unix.SYS_PRCTL, []uint64{unix.PR_SET_NAME}, allow},
		{"prctl(PR_SET_SECCOMP)", unix.SYS_PRCTL, []uint64{unix.PR_SET_SECCOMP}, notify},
		{"x32 getpid", 0x40000000 | unix.SYS_GETPID, nil, kill},
	}
	tests := []struct {
		k     filterKey
		calls []call
	}{
		{filterKey{ProfileRun, false}, append(common,
			call{"the spawner's clone", unix.SYS_CLONE, []uint64{spawnCloneFlags, 0x1000, cloneTid}, allow},
			call{"the same clone, another parent_tid", unix.SYS_CLONE, []uint64{spawnCloneFlags, 0x1000, cloneTid + 8}, notify},
			call{"fork", unix.SYS_CLONE, []uint64{forkFlags, 0, 0}, notify},
			call{"vfork", unix.SYS_VFORK, nil, notify},
			call{"socket(AF_UNIX)", unix.SYS_SOCKET, []uint64{unix.AF_UNIX}, notify},
		)},
		{filterKey{ProfileRun, true}, append(common,
			call{"the spawner's clone", unix.SYS_CLONE, []uint64{spawnCloneFlags, 0x1000, cloneTid}, allow},
			call{"fork", unix.SYS_CLONE, []uint64{forkFlags, 0, 0}, allow},
			call{"vfork", unix.SYS_VFORK, nil, allow},
			call{"socket(AF_UNIX): refused quietly", unix.SYS_SOCKET, []uint64{unix.AF_UNIX}, eacces},
		)},
		{filterKey{ProfileCompile, false}, []call{
			{"read", unix.SYS_READ, nil, allow},
			{"execve of anything", unix.SYS_EXECVE, []uint64{0x1234}, allow},
			{"the spawner's clone", unix.SYS_CLONE, []uint64{spawnCloneFlags, 0x1000, cloneTid}, allow},
			{"fork", unix.SYS_CLONE, []uint64{forkFlags, 0, 0}, allow},
			{"clone with a namespace flag", unix.SYS_CLONE, []uint64{unix.CLONE_NEWNS | uint64(unix.SIGCHLD)}, notify},
			{"clone3", unix.SYS_CLONE3, nil, enosys},
			{"socket: refused quietly", unix.SYS_SOCKET, []uint64{unix.AF_UNIX}, eacces},
			{"connect", unix.SYS_CONNECT, nil, notify},
			{"mount", unix.SYS_MOUNT, nil, notify},
			{"setresuid to root", unix.SYS_SETRESUID, []uint64{0, 0, 0}, allow}, // not root: EPERM
			{"x32 getpid", 0x40000000 | unix.SYS_GETPID, nil, kill},
			// issue 16, finding 6: an allow-list of numbers
			{"modify_ldt", unix.SYS_MODIFY_LDT, nil, notify},
			{"personality", unix.SYS_PERSONALITY, nil, notify},
			{"a gap in the table (335)", 335, nil, enosys},
			{"cachestat (451, newer than the profile)", 451, nil, enosys},
			{"statmount (457)", 457, nil, enosys},
			{"listmount (458)", 458, nil, enosys},
			{"mseal (462)", 462, nil, enosys},
			{"open_tree_attr (467)", 467, nil, enosys},
			{"number 1000", 1000, nil, enosys},
			{"setrlimit(RLIMIT_CORE)", unix.SYS_SETRLIMIT, []uint64{unix.RLIMIT_CORE}, 0x00050000 | uint32(unix.EPERM)},
			{"setrlimit(RLIMIT_NOFILE)", unix.SYS_SETRLIMIT, []uint64{unix.RLIMIT_NOFILE}, allow},
			{"prlimit64 read", unix.SYS_PRLIMIT64, []uint64{0, unix.RLIMIT_CORE, 0}, allow},
			{"futex_waitv (449)", 449, nil, allow},
			{"close_range", unix.SYS_CLOSE_RANGE, nil, allow},
		}},
	}
	for _, tc := range tests {
		b, err := buildFilter(tc.k, sec)
		if err != nil {
			t.Fatalf("buildFilter(%v): %v", tc.k, err)
		}
		if len(b) < 8*20 || len(b)%8 != 0 || len(b)/8 > 4096 {
			t.Errorf("buildFilter(%v): %d bytes", tc.k, len(b))
		}
		for _, c := range tc.calls {
			if got := runBPF(t, b, x86_64, int32(c.nr), c.args...); got != c.want {
				t.Errorf("%v: %s: action %#x, want %#x", tc.k, c.name, got, c.want)
			}
		}
		if got := runBPF(t, b, i386, 20); got != kill {
			t.Errorf("%v: i386 call: action %#x, want kill", tc.k, got)
		}
	}
	if name := syscallName(int32(unix.SYS_SOCKET)); name != "socket" {
		t.Errorf("syscallName(SYS_SOCKET) = %q", name)
	}
	if name := syscallName(99999); name == "" {
		t.Errorf("syscallName(99999) = %q", name)
	}
}

func TestResultJSON(t *testing.T) {
	r := Result{Status: StatusForbiddenSyscall, CPUMs: 3, WallMs: 4, MemoryKB: 256, ExitCode: -1,
		Signal: 9, SignalName: "SIGKILL", Syscall: "socket", Cgroup: "v1", CPU: time.Second}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"status", "cpu_ms", "wall_ms", "memory_kb", "exit_code", "signal", "syscall", "stdout", "stderr", "cgroup"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON has no %q: %s", k, b)
		}
	}
	if m["status"] != "forbidden_syscall" {
		t.Errorf("status = %v", m["status"])
	}
}

func TestLookPath(t *testing.T) {
	if p, err := lookPath("./a.out", nil); err != nil || p != "./a.out" {
		t.Errorf("lookPath(./a.out) = %q %v", p, err)
	}
	if p, err := lookPath("sh", []string{"PATH=/usr/bin:/bin"}); err != nil || !strings.HasSuffix(p, "/sh") {
		t.Errorf("lookPath(sh) = %q %v", p, err)
	}
	if _, err := lookPath("no-such-program-xyz", nil); err == nil {
		t.Error("lookPath(missing): no error")
	}
}

// TestV2NeverReused: a v2 cgroup serves one run (memory.peak cannot be
// reset before Linux 6.12): fresh, it resets trivially; once a run joined
// it, reset says no and the container takes a fresh one.
func TestV2NeverReused(t *testing.T) {
	dir := t.TempDir()
	procs := filepath.Join(dir, "cgroup.procs")
	if err := os.WriteFile(procs, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := &v2Run{dir: dir, join: -1}
	if ok, err := r.reset(); !ok || err != nil {
		t.Fatalf("fresh v2 cgroup: reset %v %v, want true", ok, err)
	}
	fds, err := r.joinFds(false)
	if err != nil || len(fds) != 1 || fds[0] < 0 {
		t.Fatalf("joinFds: %v %v", fds, err)
	}
	if ok, err := r.reset(); ok || err != nil {
		t.Fatalf("used v2 cgroup: reset %v %v, want false", ok, err)
	}
	if err := os.Remove(procs); err != nil {
		t.Fatal(err)
	}
	if err := r.destroy(); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if r.join != -1 {
		t.Errorf("destroy left the join descriptor open")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("destroy left %s: %v", dir, err)
	}
}

// TestRetryEINTR: a kept cgroup descriptor's pread/pwrite interrupted by a
// signal (a v1 memory.limit_in_bytes write reclaiming memory) is made
// again; any other error, or EINTR for ever, is returned.
func TestRetryEINTR(t *testing.T) {
	for _, tc := range []struct {
		name   string
		errs   []error // one per call; after them, success
		wantN  int
		want   error
		called int
	}{
		{"first time", nil, 7, nil, 1},
		{"interrupted twice", []error{unix.EINTR, unix.EINTR}, 7, nil, 3},
		{"another error", []error{unix.EINTR, unix.EBUSY}, 0, unix.EBUSY, 2},
		{"interrupted for ever", slices.Repeat([]error{unix.EINTR}, 2*eintrTries), 0, unix.EINTR, eintrTries},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			n, err := retryEINTR(func() (int, error) {
				calls++
				if calls <= len(tc.errs) {
					return 0, tc.errs[calls-1]
				}
				return 7, nil
			})
			if n != tc.wantN || err != tc.want || calls != tc.called {
				t.Fatalf("got (%d, %v) after %d calls, want (%d, %v) after %d", n, err, calls, tc.wantN, tc.want, tc.called)
			}
		})
	}
}

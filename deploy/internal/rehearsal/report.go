package rehearsal

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/bench"
	"github.com/verdict-oj/verdict/internal/localsvc"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// Report is what a rehearsal measured and checked.
type Report struct {
	Config       Config
	Plan         Totals
	Began, Ended time.Time
	Start        time.Time // the contest's start, real time

	Logins, LoginRetries int
	LoginSpan            time.Duration // first login due → last login done
	// WrittenAfterEnd is when, from the contest's end, the check found
	// every submission of the contest final in MySQL, or stopped waiting
	// with PendingAtCheck still not.
	WrittenAfterEnd time.Duration
	PendingAtCheck  int
	// Ready is when the stack, the accounts and the judges were ready;
	// EndAt the contest's end (real time): with Began and Ended they split
	// the wall time.
	Ready, EndAt time.Time
	// FreezeAt is when the board froze (real time; zero: no freeze). The
	// contest's freeze is whole minutes of real time, so the freeze as
	// played can be longer than the shape's (FrozenFor).
	FreezeAt   time.Time
	Submitted  int
	LateSubs   int            // planned, not sent or refused as over: the contestant was still behind at the end
	GoingAway  int            // sockets closed "going away" and reopened (not failures)
	Latency    []ClassSummary // open loop, from the due time
	OwnLatency []ClassSummary // from the send of the try that succeeded
	Split      []SplitSummary // OwnLatency split by the client's trace
	// StackLatency is nginx's own timings per class (its access log);
	// StackLatencyErr says why there are none.
	StackLatency    []StackLatency
	StackLatencyErr string
	// NginxErrors is nginx's error log (level warn and up) by kind;
	// NginxErrorsErr says why there is none.
	NginxErrors    []NginxError
	NginxErrorsErr string
	// HubDrops is the browser sockets the hub closed itself, by reason
	// (its /metrics at the end); HubDropsErr says why there are none.
	HubDrops    map[string]float64
	HubDropsErr string
	// Slowest are the seconds with the most requests over SlowRequest
	// (open loop), SlowTotal all of those requests.
	Slowest   []SlowSecond
	SlowTotal int
	// OverheadParts splits Overhead (see run.parts).
	OverheadParts [4]bench.Summary
	// OverheadTail is where the overheads above Overhead's p99 were due:
	// the windows of real time holding the most (overheadTail), of
	// OverheadTailN in all.
	OverheadTail         []TailWindow
	OverheadTailN        int
	Unexpected, Provoked []FailureCount
	Shed                 []FailureCount // 429/503 answered with Retry-After, retried
	VerdictAt, Overhead  bench.Summary
	FirstMinute          bench.Summary // VerdictAt of the first real minute
	Staleness            bench.Summary
	StaleUnseen          int // results a sampled browser never showed
	Dispatch             []JudgeDispatch
	Before, After        []Proc
	BeforeAt, AfterAt    time.Time // when Before and After were read
	// Gone are the lives of processes the faults ended (web-2, Redis, a
	// simulated judge), each read just before its end.
	Gone []Proc
	// MachineBefore and MachineAfter are the kernel's account of every
	// core's time (/proc/stat) when Before and After were read.
	MachineBefore, MachineAfter CPUTimes
	Checks                      []Check
	// Unacked submissions were created but their POST's answer never
	// reached the browser; Notes explain such findings under the checks.
	Unacked       int
	Notes         []string
	ZeroVerdicts  int
	TwoVerdicts   int
	BoardsChecked int
	Faults, Staff []string
	Profiles      []Profile
	ProfileFor    time.Duration // how long each profile ran
	// HeapProfiles are the hub's and a web node's heaps (in use, by
	// allocation site) when the CPU profiles end.
	HeapProfiles []Profile
	// HubMemory is the hub's memory read every latencyEvery.
	HubMemory []MemReading
	// Digests are MariaDB's statements that took it the most time over
	// the whole run (its performance_schema); DigestErr says why there
	// are none.
	Digests   []localsvc.StatementDigest
	DigestErr string
	// Redis is Redis's account of its commands since it started (nil:
	// not read, RedisErr says why).
	Redis    *RedisStats
	RedisErr string
	// Timeline is the login window's classes' latencies by timedEvery of
	// real time.
	Timeline []TimedSummary
	// Pools are the web nodes' and the hub's connection pool waits.
	Pools []Pool
	// PoolWindows are the hub's windows (of PoolWindowsRead read) with
	// the most waiting for its Redis pool, of PoolWindowsWaited that had
	// a wait.
	PoolWindows                        []PoolWindow
	PoolWindowsRead, PoolWindowsWaited int
	// TCP is what the kernel's TCP counters counted over the contest
	// (tcpstats.go); nil: not sampled.
	TCP *TCPReport
	// Replay is the scheduling simulator's replay of the trace written to
	// TraceFile (nil when it did not run: ReplayErr says why).
	Replay               *schedtrace.Comparison
	TraceFile, ReplayErr string
	// Faulted are the faults the trace holds (ms since Start), which
	// the replay does not model.
	Faulted []schedtrace.Fault
	// ReplaySpread is the replay's all-judges row over several seeds
	// (nil with one).
	ReplaySpread *SeedSpread
	// Passes is the hub's dispatch passes that placed tasks; PassErr why
	// their latency could not be read (the replay then has instantaneous
	// passes).
	Passes  int64
	PassErr string
	// PassLogErr is why the last read of the hub's pass log (its
	// /debug/passes, the trace's Passes) failed ("" when it did not).
	PassLogErr string
	// JudgeMsgWaitMs is the mean time the hub's JudgeMsgs judge messages
	// waited, read off the socket, to be handled.
	JudgeMsgWaitMs float64
	// ResultSlotMs is the mean time the hub's Results results took, from
	// their judges' sending, to free their slots in its accounting.
	ResultSlotMs float64
	Results      int64
	// HubWait is the hub's own histogram of its dispatches' waits
	// (verdict_hub_queue_wait_seconds), nil when it could not be read.
	HubWait *HubWait
	// HubWake is the hub's histogram of its dispatcher's waits for a core
	// (verdict_hub_dispatch_wake_seconds: a wake that found it idle → the
	// pass it started), in the same shape; nil when it could not be read.
	HubWake *HubWait
	// HubIdle is the hub's histogram of its dispatch passes that placed
	// nothing (verdict_hub_dispatch_idle_pass_seconds), in the same
	// shape; nil when it could not be read.
	HubIdle *HubWait
	// HubNotice is the hub's histogram of its enqueues' notices' ways to
	// it (verdict_hub_queue_notice_seconds: the enqueue, Redis's clock →
	// the hub read the notice), in the same shape; nil when it could not
	// be read.
	HubNotice *HubWait
	// ReserveHolds is how many times the hub's dispatch passes held a
	// rejudge task to keep its reserve of slots free
	// (verdict_hub_reserve_holds_total; each held task once per pass).
	ReserveHolds int64
	JudgeMsgs    int64
	// WarmJudges of StartJudges (the judges connected at the start) held
	// test data then, WarmHashes packages in all: the replay starts them
	// with those caches.
	WarmJudges, StartJudges, WarmHashes int
}

// JudgeDispatch is one judge class's dispatch waits: from the POST's
// answer to the task reaching the judge.
type JudgeDispatch struct {
	Class string
	Tasks int
	Wait  bench.Summary
	Mean  time.Duration
}

// Proc is one process's CPU time, time spent waiting for a core and peak
// memory.
type Proc struct {
	Name    string
	Pid     int
	CPU     time.Duration // user + system
	Waited  time.Duration // runnable but waiting for a core, its live threads summed (schedstat)
	PeakRSS int64         // VmHWM, bytes
}

// OK reports whether every check passed and nothing failed unexpectedly.
func (rep *Report) OK() bool {
	for _, c := range rep.Checks {
		if !c.OK {
			return false
		}
	}
	return len(rep.Unexpected) == 0
}

func (r *run) report(rep *Report) {
	rep.Logins, rep.LoginRetries = int(r.loginsDone.Load()), int(r.loginRetries.Load())
	rep.LateSubs = int(r.lateSubs.Load())
	rep.GoingAway = int(r.goingAway.Load())
	rep.LoginSpan = time.Duration(r.loginSpan.Load())
	rep.Start = r.start
	rep.Latency, rep.OwnLatency = r.m.summaries()
	rep.Split = r.m.splits()
	rep.Slowest, rep.SlowTotal = r.m.slowest(8)
	rep.Timeline = r.m.timeline()
	for i := range r.parts {
		rep.OverheadParts[i] = r.parts[i].Summary()
	}
	if f, err := os.Open(filepath.Join(r.env.Stack.Dir(), "nginx", "access.log")); err != nil {
		rep.StackLatencyErr = err.Error()
	} else {
		rep.StackLatency, err = readAccessLog(f, r.contest)
		f.Close()
		if err != nil {
			rep.StackLatencyErr = err.Error()
		}
	}
	if f, err := os.Open(filepath.Join(r.env.Stack.Dir(), "nginx", "error.log")); err != nil {
		rep.NginxErrorsErr = err.Error()
	} else {
		rep.NginxErrors, err = readErrorLog(f)
		f.Close()
		if err != nil {
			rep.NginxErrorsErr = err.Error()
		}
	}
	rep.Unexpected, rep.Provoked, rep.Shed = r.m.failures()
	rep.VerdictAt, rep.Overhead, rep.Staleness = r.verdictAt.Summary(), r.overhead.Summary(), r.staleness.Summary()
	rep.FirstMinute = r.firstMinute.Summary()
	r.overheadsMu.Lock()
	rep.OverheadTail, rep.OverheadTailN = overheadTail(r.overheads, rep.Overhead.P99, r.start, 8)
	r.overheadsMu.Unlock()
	rep.Dispatch = r.judges.dispatch()
	rep.Faults, rep.Staff = r.faultLog, r.staffLog
	rep.Config = r.cfg
}

// procStats reads CPU time and peak RSS of every process the stack runs
// (nginx with its workers, counted under "nginx").
func (r *run) procStats() []Proc {
	var out []Proc
	for name, pid := range r.env.Stack.Pids() {
		out = append(out, readProc(name, pid))
	}
	if pid, err := bench.PidFile(filepath.Join(r.env.Stack.Dir(), "nginx", "nginx.pid")); err == nil {
		p := readProc("nginx", pid)
		for _, c := range bench.Children(pid) {
			cp := readProc("", c)
			p.CPU += cp.CPU
			p.Waited += cp.Waited
			p.PeakRSS += cp.PeakRSS
		}
		out = append(out, p)
	}
	// The load generator shares the machine: the browsers, the staff and
	// the simulated judges all run in this process.
	gen := loadGenerator
	if r.cfg.JudgesInProcess {
		gen += ", with the simulated judges"
	}
	out = append(out, readProc(gen, os.Getpid()))
	if r.judges != nil && !r.cfg.JudgesInProcess {
		sims := Proc{Name: simJudges}
		for _, pid := range r.judges.pids() {
			p := readProc("", pid)
			sims.CPU += p.CPU
			sims.Waited += p.Waited
			sims.PeakRSS += p.PeakRSS
		}
		out = append(out, sims)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// procUse is each process's use over the contest: After less Before for
// the life that was running at both reads (Proc.Pid equal; a summed entry
// has Pid 0), plus each of its lives a fault ended (gone, read just before
// the end; its part before Before taken off when it is Before's), in
// After's order. Peak RSS is the largest of its lives'.
func procUse(before, gone, after []Proc) []Proc {
	at := map[string]Proc{}
	for _, p := range before {
		at[p.Name] = p
	}
	since := func(p Proc) Proc {
		if bp, ok := at[p.Name]; ok && bp.Pid == p.Pid {
			p.CPU = max(0, p.CPU-bp.CPU)
			p.Waited = max(0, p.Waited-bp.Waited)
		}
		return p
	}
	out := make([]Proc, 0, len(after))
	for _, p := range after {
		u := since(p)
		for _, g := range gone {
			if g.Name == p.Name {
				gu := since(g)
				u.CPU += gu.CPU
				u.Waited += gu.Waited
				u.PeakRSS = max(u.PeakRSS, gu.PeakRSS)
			}
		}
		out = append(out, u)
	}
	return out
}

// CPUTimes is the kernel's account of every core's time (/proc/stat's
// "cpu" line).
type CPUTimes struct {
	User   time.Duration // user and nice
	System time.Duration
	Idle   time.Duration // idle and iowait
	IRQ    time.Duration // irq and softirq
	Steal  time.Duration
}

// Sub is t less u, field by field.
func (t CPUTimes) Sub(u CPUTimes) CPUTimes {
	return CPUTimes{User: t.User - u.User, System: t.System - u.System, Idle: t.Idle - u.Idle,
		IRQ: t.IRQ - u.IRQ, Steal: t.Steal - u.Steal}
}

// Total is the time accounted, every field summed.
func (t CPUTimes) Total() time.Duration { return t.User + t.System + t.Idle + t.IRQ + t.Steal }

// parseCPUTimes reads /proc/stat's first line ("cpu  user nice system
// idle iowait irq softirq steal ...", in USER_HZ ticks, 100 a second).
func parseCPUTimes(b []byte) (CPUTimes, error) {
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return CPUTimes{}, fmt.Errorf("rehearsal: /proc/stat begins %q, want the cpu line with 8 counters", trim(line, 80))
	}
	var n [8]time.Duration
	for i := range n {
		v, err := strconv.ParseUint(f[i+1], 10, 63)
		if err != nil {
			return CPUTimes{}, fmt.Errorf("rehearsal: /proc/stat's cpu line, counter %d: %w", i+1, err)
		}
		n[i] = time.Duration(v) * time.Second / 100 // USER_HZ
	}
	return CPUTimes{User: n[0] + n[1], System: n[2], Idle: n[3] + n[4], IRQ: n[5] + n[6], Steal: n[7]}, nil
}

func readCPUTimes() (CPUTimes, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return CPUTimes{}, err
	}
	return parseCPUTimes(b)
}

// loadGenerator names this process in the process table.
const loadGenerator = "load generator (browsers, staff)"

// simJudges names the simulated judges' processes, summed (peak RSS: the
// sum of their peaks).
const simJudges = "simulated judges (one process each)"

func readProc(name string, pid int) Proc {
	p := Proc{Name: name, Pid: pid}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// Fields after the command's closing parenthesis: utime is the
		// 14th field of the line, stime the 15th.
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i > 0 {
			f := strings.Fields(s[i+1:])
			if len(f) > 13 {
				u, _ := strconv.ParseInt(f[11], 10, 64)
				st, _ := strconv.ParseInt(f[12], 10, 64)
				p.CPU = time.Duration(u+st) * time.Second / 100 // USER_HZ
			}
		}
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status"); err == nil {
		p.PeakRSS, _ = bench.StatusField(b, "VmHWM")
	}
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/schedstat")
	for _, t := range tasks {
		if b, err := os.ReadFile(t); err == nil {
			p.Waited += runDelay(b)
		}
	}
	return p
}

// runDelay reads a thread's schedstat line ("cpu_ns run_delay_ns
// timeslices"): how long it was runnable but waiting for a core. A thread
// that has exited takes its count with it, so a process's sum can fall
// between two reads; the report never shows less than zero.
func runDelay(schedstat []byte) time.Duration {
	f := strings.Fields(string(schedstat))
	if len(f) < 2 {
		return 0
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || ns < 0 {
		return 0
	}
	return time.Duration(ns)
}

// HubWait is the hub's measure of how long the tasks it dispatched
// waited: enqueue (Redis's clock) → the start of the pass that placed
// each; every dispatch of the run, rejudges and requeues included.
// P99AtMostMs is the bound of the histogram bucket holding the 99th
// percentile (+Inf: above the last bound).
type HubWait struct {
	N           int64
	MeanMs      float64
	P99AtMostMs float64
}

// Print writes the report as text.
func (rep *Report) Print(w io.Writer) {
	io.WriteString(w, rep.Markdown())
}

// passLine says how long the replay's dispatch passes took.
func passLine(rep *Report) string {
	if n := rep.Replay.Model.LatencyWindows; n > 0 {
		how := "as slow as the hub's own were, on average,"
		if k := rep.Replay.Model.LatencySpreads; k > 0 {
			how = fmt.Sprintf("each drawn from the hub's own histogram of its passes and of its results' ways to their slots (%d windows; the window's mean where it had none; a result whose own way the hub told takes that, below)", k)
			if m := rep.Replay.Model.PassMomentMs; m > 0 && rep.Replay.Model.RecordedPasses == 0 {
				how += fmt.Sprintf(", the passes of each %d ms alike (one draw: a loaded machine slows a moment's passes together)", m)
			}
		}
		if k := rep.Replay.Model.RecordedPasses; k > 0 {
			how += fmt.Sprintf("; but each dispatch pass as long as the hub's own pass of its kind (placing tasks, or placing nothing) that began nearest in time, of the %d it ran (%d missed by the reads of its pass log)", k, rep.Replay.Model.PassesLost)
		}
		return fmt.Sprintf("dispatch passes and results' ways to their slots %s over each of %d windows of %v "+
			"(the hub's means over the run: passes that placed tasks %.2f ms, %d of them; results' slots freed %.2f ms after their judges sent them)",
			how, n, latencyEvery, rep.Replay.Model.PassMs, rep.Passes, rep.ResultSlotMs)
	}
	if rep.Replay.Model.PassMs > 0 {
		return fmt.Sprintf("dispatch passes of %.2f ms, the mean of the hub's %d passes that placed tasks", rep.Replay.Model.PassMs, rep.Passes)
	}
	if rep.PassErr != "" {
		return "instantaneous dispatch passes (the hub's pass latency could not be read: " + rep.PassErr + ")"
	}
	return "instantaneous dispatch passes"
}

// contestClock is the contest time of real time t (negative before the
// start, with the login window's compression).
func contestClock(t time.Time, rep *Report) string {
	d := t.Sub(rep.Start)
	if d < 0 {
		return "-" + time.Duration(float64(-d)*rep.Config.ArrivalCompress).Round(time.Second).String()
	}
	return time.Duration(float64(d) * rep.Config.Compress).Round(time.Second).String()
}

func msf(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Millisecond)) }

// FrozenFor is the freeze as played, in contest time: the shape's
// FreezeLast, or what the contest's whole minutes of real time made of it
// ("1h0m0s, as played 1h20m0s: 2m0s of real time at 40×"), or "none".
func (rep *Report) FrozenFor() string {
	s := rep.Config.Shape
	if rep.FreezeAt.IsZero() || rep.EndAt.IsZero() {
		if s.FreezeLast > 0 {
			return s.FreezeLast.String()
		}
		return "none"
	}
	wall := rep.EndAt.Sub(rep.FreezeAt)
	played := time.Duration(float64(wall) * rep.Config.Compress).Round(time.Second)
	if played == s.FreezeLast.Round(time.Second) {
		return played.String()
	}
	return fmt.Sprintf("%v, as played %v: %v of real time at %.0f×", s.FreezeLast, played, wall.Round(time.Second), rep.Config.Compress)
}

// Markdown is the report as docs/rehearsal.md holds it.
func (rep *Report) Markdown() string {
	var b strings.Builder
	c := rep.Config
	host, _ := os.Hostname()
	fmt.Fprintf(&b, "# Contest rehearsal\n\n")
	fmt.Fprintf(&b, "`make rehearsal` (`verdict-stack rehearse`), %s on %s (%d CPUs, %s/%s), %s.\n\n",
		rep.Began.UTC().Format("2006-01-02 15:04 MST"), host, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, memTotal())
	fmt.Fprintf(&b, "## The contest\n\n")
	s := c.Shape
	realLen := time.Duration(float64(s.Length) / c.Compress)
	fmt.Fprintf(&b, "- %d contestants (%d of them in one lab behind NAT, source address %s; the rest from addresses of their own), %d web nodes, %d simulated judges × %d slots at speed %.2f, %d real judges.\n",
		s.Contestants, rep.Plan.NAT, NATAddr, c.WebNodes, c.Judges, c.Slots, c.Speed, c.RealJudges)
	fmt.Fprintf(&b, "- A %v ICPC contest with the board frozen for the last %v, played at compression %.0f× (%v of real time); logins over the %v before the start, compressed %.0f× (%v real).\n",
		s.Length, rep.FrozenFor(), c.Compress, realLen.Round(time.Second), s.Arrival, c.ArrivalCompress, time.Duration(float64(s.Arrival)/c.ArrivalCompress).Round(time.Second))
	fmt.Fprintf(&b, "- Planned: %d submissions (%.1f per contestant; %d in the first 20 minutes, %d in the middle, %d in the last 30), %d page reloads, %d clarifications. Verdicts: %s. Languages: %s.\n",
		rep.Plan.Submissions, float64(rep.Plan.Submissions)/float64(s.Contestants), rep.Plan.Flash, rep.Plan.Middle, rep.Plan.Rush,
		rep.Plan.Reloads, rep.Plan.Questions, mapLine(rep.Plan.ByVerdict), mapLine(rep.Plan.ByLanguage))
	fmt.Fprintf(&b, "- Acknowledged to browsers: %d submissions; %d planned ones were not sent, or were answered \"the contest is over\", because their contestant, slowed down by slow answers, was still behind when the contest ended. Wall time of the whole rehearsal: %v.\n",
		rep.Submitted, rep.LateSubs, rep.Ended.Sub(rep.Began).Round(time.Second))
	if !rep.Ready.IsZero() && !rep.EndAt.IsZero() {
		fmt.Fprintf(&b, "- Where the wall time went: the stack, the accounts and the judges ready in %v; the logins and the contest %v; after the end (the last verdicts, the unfreeze, the checks, the replay) %v.",
			rep.Ready.Sub(rep.Began).Round(time.Second), rep.EndAt.Sub(rep.Ready).Round(time.Second), rep.Ended.Sub(rep.EndAt).Round(time.Second))
		if rep.PendingAtCheck == 0 {
			fmt.Fprintf(&b, " Every verdict was in MySQL %v after the end.\n", rep.WrittenAfterEnd.Round(time.Second))
		} else {
			fmt.Fprintf(&b, " %d verdicts were still not in MySQL when the check stopped waiting, %v after the end.\n", rep.PendingAtCheck, rep.WrittenAfterEnd.Round(time.Second))
		}
	}
	if len(rep.Staff) > 0 {
		fmt.Fprintf(&b, "- Staff: %s.\n", strings.Join(rep.Staff, "; "))
	}
	if len(rep.Faults) > 0 {
		fmt.Fprintf(&b, "- Faults: %s.\n", strings.Join(rep.Faults, "; "))
	}

	fmt.Fprintf(&b, "\n## Correctness\n\n| check | result |\n|---|---|\n")
	for _, ch := range rep.Checks {
		res := "PASS"
		if !ch.OK {
			res = "FAIL: " + ch.Detail
		}
		fmt.Fprintf(&b, "| %s | %s |\n", ch.What, res)
	}
	fmt.Fprintf(&b, "\nSubmissions with zero final verdicts: %d; with two: %d (goal: 0 and 0).\n", rep.ZeroVerdicts, rep.TwoVerdicts)
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "\n%s\n", n)
	}

	fmt.Fprintf(&b, "\n## Failed requests and frames\n\n")
	failTable := func(title string, fs []FailureCount) {
		fmt.Fprintf(&b, "%s\n\n", title)
		if len(fs) == 0 {
			fmt.Fprintf(&b, "none\n\n")
			return
		}
		seen := !fs[0].First.IsZero()
		fmt.Fprintf(&b, "| class | request | status | code | count |")
		if seen {
			fmt.Fprintf(&b, " first / last seen (contest time) |\n|---|---|---|---|---|---|\n")
		} else {
			fmt.Fprintf(&b, "\n|---|---|---|---|---|\n")
		}
		for _, f := range fs {
			st := strconv.Itoa(f.Status)
			if f.Status == 0 {
				st = "transport"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %d |", f.Class, f.What, st, strings.ReplaceAll(f.Code, "|", "/"), f.N)
			if seen {
				fmt.Fprintf(&b, " %s / %s |", contestClock(f.First, rep), contestClock(f.Last, rep))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	failTable("Unexpected (goal: none):", rep.Unexpected)
	failTable("Provoked by the faults (within their windows):", rep.Provoked)
	failTable("Shed with Retry-After and retried by the browser (not failures: the browser got in on a later try; a 503 unavailable is a failure even with Retry-After, since something broke):", rep.Shed)
	fmt.Fprintf(&b, "\nSockets the server closed with 1001 going away, reopened by the browser (not counted as failures; the hub sends 1001 when a browser does not answer its ping within the write timeout, as a CPU-starved load generator does, and nginx's old workers and a draining hub send it too): %d.\n\n", rep.GoingAway)
	writeServerCloses(&b, rep)

	fmt.Fprintf(&b, "## Logins\n\n%d of %d contestants logged in; %d answers asked the browser to retry later; the last login finished %v after the first was due.\n\n",
		rep.Logins, s.Contestants, rep.LoginRetries, rep.LoginSpan.Round(100*time.Millisecond))
	writeTimeline(&b, rep)

	fmt.Fprintf(&b, "## Latency, open loop from the due time (ms)\n\n| class | n | p50 | p99 | max |\n|---|---|---|---|---|\n")
	for _, l := range rep.Latency {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", l.Class, l.N, msf(l.P50), msf(l.P99), msf(l.Max))
	}
	fmt.Fprintf(&b, "\nThe same requests from the send of the try that succeeded (the request's own time, as the client saw it), and as nginx logged them ($request_time, and $upstream_response_time: the web node's answer), successful answers only (ms):\n\n")
	stackOf := map[string]StackLatency{}
	for _, l := range rep.StackLatency {
		stackOf[l.Class] = l
	}
	fmt.Fprintf(&b, "| class | client p50 | client p99 | client max | nginx n | nginx p50 | nginx p99 | nginx max | web node p99 | web node max |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, l := range rep.OwnLatency {
		n := stackOf[l.Class]
		nginx := "| – | – | – | – | – | –"
		if n.Request.N > 0 {
			nginx = fmt.Sprintf("| %d | %s | %s | %s | %s | %s", n.Request.N, msf(n.Request.P50), msf(n.Request.P99), msf(n.Request.Max), msf(n.Upstream.P99), msf(n.Upstream.Max))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s %s |\n", l.Class, msf(l.P50), msf(l.P99), msf(l.Max), nginx)
	}
	if len(rep.Split) > 0 {
		fmt.Fprintf(&b, "\nThe client's own time split (its HTTP trace): getting a connection (from the pool, or dialling a new one — nginx's accept included), the request written → the answer's first byte (what nginx times, over loopback), the rest (reading the body, the client goroutine being scheduled), p99 and max, ms:\n\n")
		fmt.Fprintf(&b, "| class | new connections | connection p99 | connection max | to first byte p99 | to first byte max | rest p99 | rest max |\n|---|---|---|---|---|---|---|---|\n")
		for _, x := range rep.Split {
			fmt.Fprintf(&b, "| %s | %d of %d | %s | %s | %s | %s | %s | %s |\n", x.Class, x.Dialled, x.Server.N,
				msf(x.Conn.P99), msf(x.Conn.Max), msf(x.Server.P99), msf(x.Server.Max), msf(x.Rest.P99), msf(x.Rest.Max))
		}
	}
	if rep.StackLatencyErr != "" {
		fmt.Fprintf(&b, "\nnginx's access log could not be read: %s\n", rep.StackLatencyErr)
	}
	if rep.SlowTotal > 0 {
		fmt.Fprintf(&b, "\n%d requests took over %v open loop; the seconds most of them were due in (contest time):\n\n| due (contest time) | requests over %v |\n|---|---|\n", rep.SlowTotal, SlowRequest, SlowRequest)
		for _, s := range rep.Slowest {
			fmt.Fprintf(&b, "| %s | %d |\n", contestClock(s.At, rep), s.N)
		}
	}
	fmt.Fprintf(&b, "\n## Judging and live push (ms)\n\n| figure | n | p50 | p99 | max |\n|---|---|---|---|---|\n")
	for _, x := range []struct {
		name string
		s    bench.Summary
	}{
		{"submit due → final verdict on the owner's WebSocket", rep.VerdictAt},
		{"the same minus the simulated judge work (overhead)", rep.Overhead},
		{"submit due → final verdict, submissions of the first real minute (judges warmed before the start: " + onOff(!c.NoWarm) + ")", rep.FirstMinute},
		{"scoreboard staleness: result sent by the judge → a sampled browser shows it", rep.Staleness},
		{"overhead, part 1: submit due → the POST's answer", rep.OverheadParts[0]},
		{"overhead, part 2: the POST's answer → the task pushed to a judge", rep.OverheadParts[1]},
		{"overhead, part 3: on the judge, beyond the simulated work (protocol, download, the judge's own delays)", rep.OverheadParts[2]},
		{"overhead, part 4: the result sent by the judge → the verdict on the owner's WebSocket", rep.OverheadParts[3]},
	} {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", x.name, x.s.N, msf(x.s.P50), msf(x.s.P99), msf(x.s.Max))
	}
	if len(rep.OverheadTail) > 0 {
		fmt.Fprintf(&b, "\nThe %d overheads above the p99 (%s ms), by the %v of real time they were due in, the windows holding the most (contest time), with each part's mean over them (ms):\n\n| due from (contest time) | over p99 / due then | part 1 | part 2 | part 3 | part 4 |\n|---|---|---|---|---|---|\n",
			rep.OverheadTailN, msf(rep.Overhead.P99), TailWindowWidth)
		for _, w := range rep.OverheadTail {
			parts := "| – | – | – | – |"
			if w.PartsN > 0 {
				parts = fmt.Sprintf("| %s | %s | %s | %s |", msf(w.Parts[0]), msf(w.Parts[1]), msf(w.Parts[2]), msf(w.Parts[3]))
			}
			fmt.Fprintf(&b, "| %s | %d / %d %s\n", contestClock(w.At, rep), w.N, w.Of, parts)
		}
	}
	fmt.Fprintf(&b, "\nSampled browsers' cells whose latest result never changed what they showed: %d (a compile error, which ICPC does not count, changes nothing when its pending state was never shown; a sampled browser that missed any other result has a board that differs from MySQL's, which the correctness check catches).\n", rep.StaleUnseen)
	if len(rep.Dispatch) > 0 {
		fmt.Fprintf(&b, "\n### Dispatch waits (the POST's answer → the task on a judge, ms)\n\n| judges | tasks | mean | p50 | p99 | max |\n|---|---|---|---|---|---|\n")
		for _, d := range rep.Dispatch {
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s |\n", d.Class, d.Tasks, msf(d.Mean), msf(d.Wait.P50), msf(d.Wait.P99), msf(d.Wait.Max))
		}
	}

	fmt.Fprintf(&b, "\n## The hub against the scheduling simulator\n\n")
	switch {
	case rep.Replay != nil:
		x := rep.Replay
		fmt.Fprintf(&b, "The arrival trace (`%s`: %d first attempts, the judges' slots, speeds and connections) replayed by the scheduling simulator with the hub's policy (%s; heartbeat %d ms, dispatch tick %d ms, download model %s, %s). Enqueue (the queue's own time, Redis's clock, which the hub sends with each push) → dispatch: on the hub's side the start of the pass that placed the task (each push says when), on the simulator's its placement; ms:\n\n",
			rep.TraceFile, x.Tasks, x.Policy, x.Model.HeartbeatMs, x.Model.DispatchTickMs, x.Model.Download, passLine(rep))
		fmt.Fprintf(&b, "| judges | tasks (hub / sim) | hub mean | sim mean | hub p99 | sim p99 | gap mean / p99 |\n|---|---|---|---|---|---|---|\n")
		row := func(r schedtrace.ComparisonRow, name string) {
			flag := ""
			if r.Differs {
				flag = " **> 10 %**"
			}
			fmt.Fprintf(&b, "| %s | %d / %d | %.0f | %.0f | %.0f | %.0f | %s / %s%s |\n", name, r.Hub.Count, r.Sim.Count,
				r.Hub.MeanMs, r.Sim.MeanMs, r.Hub.P99Ms, r.Sim.P99Ms, gapPct(r.MeanGapPct), gapPct(r.P99GapPct), flag)
		}
		row(x.All, x.All.Name)
		for _, c := range x.Classes {
			row(c, c.Name)
		}
		var firstFault string
		if f := x.BeforeFaults; f != nil && len(rep.Faulted) > 0 {
			firstFault = contestClock(rep.Start.Add(time.Duration(rep.Faulted[0].AtMs)*time.Millisecond), rep)
			row(*f, "all, enqueued before the first fault ("+firstFault+")")
		}
		if sp := rep.ReplaySpread; sp != nil {
			b.WriteString("\n" + sp.Markdown())
		}
		if f := x.BeforeFaults; f != nil && firstFault != "" {
			fmt.Fprintf(&b, "\nThe faults (from contest time %s: %s) are not in the simulator's model: while Redis restarts and loads its data the hub's dispatcher cannot read the queue nor take a lease, a killed judge's tasks wait for their leases to expire, and the backlog they leave lasts into the windows after. The tasks enqueued before the first fault are the comparison that holds the model to the hub: %d of %d, gap %s on the mean and %s on the p99.\n",
				firstFault, faultKinds(rep.Faulted), f.Hub.Count, x.All.Hub.Count, gapPct(f.MeanGapPct), gapPct(f.P99GapPct))
		}
		if w := rep.HubWait; w != nil {
			p99 := fmt.Sprintf("at most %.0f ms", w.P99AtMostMs)
			if math.IsInf(w.P99AtMostMs, 1) {
				p99 = "above the histogram's last bound"
			}
			fmt.Fprintf(&b, "\nThe hub's own measure of the wait up to the start of the pass that placed the task (enqueue on Redis's clock → pass start, `verdict_hub_queue_wait_seconds`; all %d of its dispatches, the rejudge's and requeues included): mean %.0f ms, p99 %s. The table's hub column is the same wait for the first attempts only, read from each push.\n",
				w.N, w.MeanMs, p99)
		}
		if x.Placed.Count > 0 {
			gap := "–"
			if x.Placed.MeanMs > 0 {
				gap = fmt.Sprintf("%+.0f %%", (x.All.Sim.MeanMs-x.Placed.MeanMs)/x.Placed.MeanMs*100)
			}
			fmt.Fprintf(&b, "\nThe hub column split where each push says when the pass that placed it began (%d tasks): enqueue → that pass's start mean %.0f ms, p99 %.0f ms — the hub's own queue, which is what the simulator's wait models and what the table compares (sim mean %.0f ms: %s) — and the pass's start → the push at the judge mean %.0f ms, p99 %.0f ms (the pass, the hub's socket writer, the loopback, the simulated judge reading it), during which the hub counts the slot taken: the replay holds each task's slot for that way (its own pass is part of it: where the replay's pass ran longer, the work counts from where the push arrived).\n",
				x.Placed.Count, x.Placed.MeanMs, x.Placed.P99Ms, x.All.Sim.MeanMs, gap, x.Delivery.MeanMs, x.Delivery.P99Ms)
		}
		if w := rep.HubWake; w != nil {
			p99 := fmt.Sprintf("at most %.0f ms", w.P99AtMostMs)
			if math.IsInf(w.P99AtMostMs, 1) {
				p99 = "above the histogram's last bound"
			}
			fmt.Fprintf(&b, "\nThe hub's dispatcher, woken while idle (a queue change, a freed slot), started its pass %.1f ms later on average (p99 %s; %d wakes, `verdict_hub_dispatch_wake_seconds`): its own wait for a core, which the replay draws per window.\n",
				w.MeanMs, p99, w.N)
		}
		if w := rep.HubNotice; w != nil {
			p99 := fmt.Sprintf("at most %.1f ms", w.P99AtMostMs)
			if math.IsInf(w.P99AtMostMs, 1) {
				p99 = "above the histogram's last bound"
			}
			if m := x.Model; m.OwnNotices > 0 {
				fmt.Fprintf(&b, "\nAn enqueue's notice (Redis pub/sub) reached the hub %.2f ms after the enqueue on average (p99 %s; %d notices, `verdict_hub_queue_notice_seconds`). Each push said when the hub had read its task's notice: the replay wakes its dispatcher for each of %d first attempts as long after the enqueue as the hub read that very notice (%.1f ms on average); %d the hub placed before their notice came draw theirs from the window, no earlier than that placement; the rest (the rejudge's) draw theirs, per window (%d windows).\n",
					w.MeanMs, p99, w.N, m.OwnNotices, m.OwnNoticeMeanMs, m.NoticesAfterPlacing, m.NoticeWindows)
			} else {
				fmt.Fprintf(&b, "\nAn enqueue's notice (Redis pub/sub) reached the hub %.2f ms after the enqueue on average (p99 %s; %d notices, `verdict_hub_queue_notice_seconds`): the replay wakes its dispatcher for an arrival that long after it, per window (%d windows).\n",
					w.MeanMs, p99, w.N, x.Model.NoticeWindows)
			}
		}
		if w := rep.HubIdle; w != nil {
			p99 := fmt.Sprintf("at most %.1f ms", w.P99AtMostMs)
			if math.IsInf(w.P99AtMostMs, 1) {
				p99 = "above the histogram's last bound"
			}
			fmt.Fprintf(&b, "\nThe hub's %d dispatch passes that placed nothing (an empty queue, no free slot for the head of the queue; `verdict_hub_dispatch_idle_pass_seconds`) took %.2f ms on average (p99 %s), holding the dispatcher meanwhile: the replay holds its own as long, per window (%d windows).\n",
				w.N, w.MeanMs, p99, x.Model.IdleWindows)
		}
		if x.Model.Holds > 0 {
			fmt.Fprintf(&b, "\nThe judges' own time: %d of the first attempts held their slot beyond their simulated work (a slot took it → its result left the judge: the load generator's timers firing late, the result waiting to be sent), %.1f ms on average over them; the replay holds each slot that much longer after the work.\n",
				x.Model.Holds, x.Model.HoldMeanMs)
		}
		if x.Model.Reserve > 0 {
			fmt.Fprintf(&b, "\nThe hub's rejudges left %.3g of the judges' slots free for the contest (`--dispatch-reserve`); its passes held a rejudge task for it %d times (`verdict_hub_reserve_holds_total`, each held task once per pass); the replay keeps the same reserve.\n",
				x.Model.Reserve, rep.ReserveHolds)
		}
		if s := x.Holds.Summary(); s != "" {
			fmt.Fprintf(&b, "\n%s\n", s)
		}
		fmt.Fprintf(&b, "\nThe simulator lost %d tasks and requeued %d; %d recorded pushes came before the recorded enqueue (counted as 0). %d of the %d judges connected at the start held test data then (%d packages in all, recorded as each was downloaded and verified); the replay starts them with those caches. It also ran the %d later attempts (the rejudge's, requeues after a lost lease), each enqueued when the queue says, as background work, not compared.\n",
			x.Lost, x.Requeues, x.Early, rep.WarmJudges, rep.StartJudges, rep.WarmHashes, x.Background)
		if len(x.Windows) > 0 {
			fmt.Fprintf(&b, "\nThe same by %v of real time, by enqueue (contest time in brackets):\n\n| from | tasks (hub / sim) | hub mean | sim mean | hub p99 | sim p99 | gap mean / p99 |\n|---|---|---|---|---|---|---|\n",
				time.Duration(schedtrace.WindowMs)*time.Millisecond)
			for _, w := range x.Windows {
				from := time.Duration(w.FromMs) * time.Millisecond
				row(w, fmt.Sprintf("%v (%v)", from, time.Duration(float64(from)*c.Compress).Round(time.Minute)))
			}
		}
		writePassWindows(&b, x.Passes, c.Compress)
		if rep.PassLogErr != "" {
			fmt.Fprintf(&b, "\nThe last read of the hub's pass log failed: %s.\n", rep.PassLogErr)
		}
		writeLearnt(&b, x.Learnt, schedtrace.WindowMs, c.Compress)
		if rep.JudgeMsgs > 0 {
			fmt.Fprintf(&b, "\nThe hub handled the judges' %d messages (progress, results, heartbeats) %.1f ms on average after reading them. ",
				rep.JudgeMsgs, rep.JudgeMsgWaitMs)
		}
		if rep.Results > 0 {
			fmt.Fprintf(&b, "A result frees its judge's slot in the hub's accounting once handled: %.2f ms on average after its judge sent it (%d results; the judge's stamp, this machine's clock); ",
				rep.ResultSlotMs, rep.Results)
			if x.Model.OwnSlotTimes > 0 {
				fmt.Fprintf(&b, "the replay frees the slot of each of %d first attempts as long after its result left the judge as the hub took for that very result (its result_ack said: %.1f ms on average), and the rest's as a wait drawn from the hub's in the window it left in.\n",
					x.Model.OwnSlotTimes, x.Model.OwnSlotMeanMs)
			} else if x.Model.LatencySpreads > 0 {
				b.WriteString("the replay frees each slot as long after its result left the judge as a wait drawn from the hub's in the window it left in.\n")
			} else if x.Model.LatencyWindows > 0 {
				b.WriteString("the replay frees each slot as long after its result left the judge as the hub's mean in the window it left in.\n")
			} else {
				b.WriteString("the replay frees each slot that long, on average, after its result left the judge.\n")
			}
		} else if rep.JudgeMsgs > 0 {
			b.WriteString("\n")
		}
	case rep.ReplayErr != "":
		fmt.Fprintf(&b, "Not replayed: %s\n", rep.ReplayErr)
	}

	fmt.Fprintf(&b, "\n## Processes\n\n| process | CPU s during the contest | waited for a core s | CPU ms per contestant | peak RSS MiB | peak RSS KiB per contestant |\n|---|---|---|---|---|---|\n")
	var stackCPU, genCPU time.Duration
	for _, p := range procUse(rep.Before, rep.Gone, rep.After) {
		if strings.HasPrefix(p.Name, loadGenerator) || p.Name == simJudges {
			genCPU += p.CPU
		} else {
			stackCPU += p.CPU
		}
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.2f | %.0f | %.1f |\n", p.Name, p.CPU.Seconds(), p.Waited.Seconds(),
			float64(p.CPU)/float64(time.Millisecond)/float64(s.Contestants), float64(p.PeakRSS)/(1<<20), float64(p.PeakRSS)/1024/float64(s.Contestants))
	}
	b.WriteString("\nA process a fault ended counts both lives: up to the fault (read just before it) and from its restart. \"Waited for a core\" is the time its threads were runnable but queued behind others (/proc/PID/task/*/schedstat, the threads alive when read): on a saturated machine every round trip to a process waits this way.\n")
	if wall := rep.AfterAt.Sub(rep.BeforeAt); wall > 0 {
		avail := wall * time.Duration(runtime.NumCPU())
		fmt.Fprintf(&b, "\nOver those %s the machine had %.0f CPU s (%d cores): the stack used %.0f s (%.0f %%), the load generator and the simulated judges %.0f s (%.0f %%)",
			wall.Round(time.Second), avail.Seconds(), runtime.NumCPU(), stackCPU.Seconds(), 100*float64(stackCPU)/float64(avail),
			genCPU.Seconds(), 100*float64(genCPU)/float64(avail))
		if stackCPU+genCPU > avail*9/10 {
			b.WriteString(": the machine was saturated, so every latency above includes waiting for a core.\n")
		} else {
			b.WriteString(".\n")
		}
		if m := rep.MachineAfter.Sub(rep.MachineBefore); m.Total() > 0 {
			fmt.Fprintf(&b, "\nThe kernel's account of the same time (/proc/stat, every core): user %.0f s, system %.0f s, "+
				"interrupts %.0f s (irq and softirq: the loopback's packets are received in softirq), "+
				"idle %.0f s (waiting for I/O included), stolen by the hypervisor %.0f s.\n",
				m.User.Seconds(), m.System.Seconds(), m.IRQ.Seconds(), m.Idle.Seconds(), m.Steal.Seconds())
		}
	}

	writeMemory(&b, rep)
	writePools(&b, rep)
	writePoolWindows(&b, rep)
	writeCommandTimes(&b, rep)
	writeTCP(&b, rep)
	writeDigests(&b, rep)
	writeRedis(&b, rep)

	writeProfiles(&b, fmt.Sprintf("Where the CPU went in the rush (%.0f s CPU profiles)", rep.ProfileFor.Seconds()), rep.Profiles)
	writeProfiles(&b, "What the heap held after the rush's profiles (in use, by allocation site)", rep.HeapProfiles)

	fmt.Fprintf(&b, "\n## Goals\n\n| goal | target | measured | |\n|---|---|---|---|\n")
	goal := func(name, target, got string, ok bool) {
		res := "met"
		if !ok {
			res = "**missed**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, target, got, res)
	}
	lat := map[string]bench.Summary{}
	for _, l := range rep.Latency {
		lat[l.Class] = l.Summary
	}
	goal("unexpected errors", "0", strconv.Itoa(sumCounts(rep.Unexpected)), len(rep.Unexpected) == 0)
	for _, cl := range []string{ClassProblem, ClassSubmit, ClassScoreboard} {
		goal(cl+" p99", "≤ 300 ms", msf(lat[cl].P99)+" ms", lat[cl].N > 0 && lat[cl].P99 <= 300*time.Millisecond)
	}
	goal("submit → verdict overhead p99", "≤ 250 ms", msf(rep.Overhead.P99)+" ms", rep.Overhead.N > 0 && rep.Overhead.P99 <= 250*time.Millisecond)
	goal("scoreboard staleness p99", "≤ 1500 ms", msf(rep.Staleness.P99)+" ms", rep.Staleness.N > 0 && rep.Staleness.P99 <= 1500*time.Millisecond)
	goal("submissions lost or doubled", "0", strconv.Itoa(rep.ZeroVerdicts+rep.TwoVerdicts), rep.ZeroVerdicts+rep.TwoVerdicts == 0)
	goal("contestants logged in", strconv.Itoa(s.Contestants), strconv.Itoa(rep.Logins), rep.Logins == s.Contestants)
	return b.String()
}

// writeProfiles writes a section of profiles' tops under title (none:
// nothing).
func writeProfiles(b *strings.Builder, title string, ps []Profile) {
	if len(ps) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n", title)
	for _, p := range ps {
		if p.Err != "" {
			fmt.Fprintf(b, "%s: no profile (%s)\n\n", p.Process, p.Err)
			continue
		}
		fmt.Fprintf(b, "%s (`%s`):\n\n```\n%s\n```\n\n", p.Process, p.File, strings.Join(p.Top, "\n"))
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func sumCounts(fs []FailureCount) int {
	n := 0
	for _, f := range fs {
		n += f.N
	}
	return n
}

func mapLine[K ~string](m map[K]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[K(k)]))
	}
	return strings.Join(parts, ", ")
}

func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "memory unknown"
	}
	n, err := bench.StatusField(b, "MemTotal")
	if err != nil {
		return "memory unknown"
	}
	return fmt.Sprintf("%.0f GiB", float64(n)/(1<<30))
}

// writeDigests is MariaDB's profile: the statements that took it the most
// time over the whole run, per submission acknowledged.
func writeDigests(b *strings.Builder, rep *Report) {
	fmt.Fprintf(b, "\n## Where MariaDB's time went (statement digests, whole run)\n\n")
	if len(rep.Digests) == 0 {
		fmt.Fprintf(b, "None read: %s.\n", cmp.Or(rep.DigestErr, "none recorded"))
		return
	}
	var total time.Duration
	for _, d := range rep.Digests {
		total += d.Total
	}
	subs := max(rep.Submitted, 1)
	fmt.Fprintf(b, "The %d statements that took the server the most time (performance_schema, from its start to the checks; the checks' own reads included), %.1f s in all; runs per acknowledged submission (%d):\n\n", len(rep.Digests), total.Seconds(), rep.Submitted)
	b.WriteString("| statement | runs | per submission | total s | mean ms | rows read per run |\n|---|---|---|---|---|---|\n")
	for _, d := range rep.Digests {
		mean, rows := 0.0, 0.0
		if d.Count > 0 {
			mean = float64(d.Total) / float64(time.Millisecond) / float64(d.Count)
			rows = float64(d.RowsExamined) / float64(d.Count)
		}
		fmt.Fprintf(b, "| `%s` | %d | %.1f | %.1f | %.2f | %.1f |\n", strings.ReplaceAll(trim(strings.Join(strings.Fields(d.Text), " "), 110), "|", "\\|"),
			d.Count, float64(d.Count)/float64(subs), d.Total.Seconds(), mean, rows)
	}
}

// writeTimeline is the login window's latencies by timedEvery of real
// time, a class to a column pair.
func writeTimeline(b *strings.Builder, rep *Report) {
	if len(rep.Timeline) == 0 {
		return
	}
	type cell struct {
		n        int
		p50, p99 time.Duration
	}
	rows := map[int64]map[string]cell{}
	var at []int64
	for _, t := range rep.Timeline {
		w := t.At.Unix()
		if rows[w] == nil {
			rows[w] = map[string]cell{}
			at = append(at, w)
		}
		rows[w][t.Class] = cell{t.N, t.P50, t.P99}
	}
	slices.Sort(at)
	fmt.Fprintf(b, "By the %v of real time they were due in (open loop, ms):\n\n| due from (contest time) |", timedEvery)
	for _, c := range timedClasses {
		fmt.Fprintf(b, " %s n | %s p50 | %s p99 |", c, c, c)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|---|---|", len(timedClasses)) + "\n")
	for _, w := range at {
		fmt.Fprintf(b, "| %s |", contestClock(time.Unix(w, 0), rep))
		for _, c := range timedClasses {
			if x, ok := rows[w][c]; ok {
				fmt.Fprintf(b, " %d | %s | %s |", x.n, msf(x.p50), msf(x.p99))
			} else {
				b.WriteString(" 0 | – | – |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// gapPct is a comparison's gap, signed, or – when there is none.
func gapPct(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%+.0f %%", *p)
}

// faultKinds lists the faults a trace holds, in order.
func faultKinds(fs []schedtrace.Fault) string {
	kinds := make([]string, len(fs))
	for i, f := range fs {
		kinds[i] = f.Kind
	}
	return strings.Join(kinds, ", ")
}

package schedtrace

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("schedtrace: invalid trace")

// maxErrors bounds how many problems one validation error lists.
const maxErrors = 10

// MaxLatencyMs bounds every latency a trace holds (a pass, a result's
// way to its slot, a wake; a histogram's bounds): a recorder clamps to it
// (a handler stalled past a minute is not a latency the replay can use),
// and Validate refuses more.
const MaxLatencyMs = 60000

// Trace is one recorded run: the judges and every task, times in ms since Start.
type Trace struct {
	Start  time.Time `json:"start"`
	Policy string    `json:"policy"` // the hub's policy name ("" = the hub default)
	// Reserve is the share of the judges' slots the hub's rejudges left
	// free (its --dispatch-reserve, sched.Reserve); 0: none (every trace
	// recorded before the reserve, 2026-12-05).
	Reserve float64 `json:"reserve,omitempty"`
	// PassMs is the hub's mean dispatch pass latency over the run, ms
	// (its verdict_hub_dispatch_pass_seconds: a pass's start to its last
	// task handed to a judge's socket). The replay models passes of that
	// length; 0: instantaneous passes.
	PassMs float64 `json:"pass_ms,omitempty"`
	// ResultMs is how long a result took, on average, from its judge
	// (its sent_ms) to free its slot in the hub's accounting (the hub's
	// verdict_hub_result_slot_seconds), ms. A trace recorded before
	// 2026-12-04's hub holds the handler's wait alone
	// (verdict_hub_judge_message_wait_seconds).
	// The replay holds each slot that much longer after its result leaves
	// the judge (but a task's own Task.SlotMs, where recorded); 0: the
	// slot frees then.
	ResultMs float64 `json:"result_ms,omitempty"`
	// Latency is PassMs and ResultMs as they varied over the run: the
	// hub's means over each window of the recording, from the window's
	// AtMs until the next one's (the rehearsal reads the hub's metrics
	// every few seconds). The replay takes the window in force when a pass
	// starts or a result leaves its judge (a task with its own SlotMs
	// takes that instead); before the first window, and when there is
	// none, PassMs and ResultMs hold.
	Latency []LatencyWindow `json:"latency,omitempty"`
	// Learnt is what the hub's policy had learnt of what downloads cost,
	// read as the run went (the hub's verdict_hub_policy_* metrics, at
	// each window of the recording), in time order. The replay reads its
	// own policy's at the same times (Comparison.Learnt). Empty: not
	// recorded (a trace from before 2026-12-07, or a policy that learns
	// nothing).
	Learnt []Learnt `json:"learnt,omitempty"`
	Judges []Judge  `json:"judges"`
	Tasks  []Task   `json:"tasks"`
	// Background is judge work the run had beside Tasks and that is not
	// compared: later attempts (a rejudge), each with when it was enqueued
	// (the queue's own time, as for Tasks), its priority and its work.
	// A replay queues and runs them as the hub did; its comparison covers
	// Tasks only. Their submission ids may repeat Tasks' (the same
	// submission judged again).
	Background []Task `json:"background,omitempty"`
	// Passes is every dispatch pass of the hub, in the order it ran them
	// (a hub's --pass-log, read as the run went): when each began, how
	// long it took and how many tasks it placed. The replay takes each of
	// its own passes' latencies from the hub's pass nearest in time of
	// the same kind, placing or not, instead of drawing them from the
	// latency windows' spreads. Empty: not recorded (a trace from before
	// 2026-12-07).
	Passes []Pass `json:"passes,omitempty"`
	// PassesLost is how many of the hub's passes the recorder missed
	// (its ring overran between two reads): Passes has gaps there.
	PassesLost int64 `json:"passes_lost,omitempty"`
	// Faults are what the recording provoked (the rehearsal's --faults: a
	// web node or a judge killed, Redis restarted), in time order. The
	// simulator models none of them; its comparison then sets apart the
	// tasks enqueued before the first (Comparison.BeforeFaults). Empty:
	// none (or a trace from before 2026-12-07).
	Faults []Fault `json:"faults,omitempty"`
}

// Fault is one fault the recording provoked: when (ms since Start) and
// what.
type Fault struct {
	AtMs int64  `json:"at_ms"`
	Kind string `json:"kind"`
}

// Pass is one dispatch pass of the hub: its start (µs since
// Trace.Start), its start to its end (µs), and how many tasks it placed
// (0: it placed nothing — an empty queue, no judge ready, no free slot
// for the head of the queue).
type Pass struct {
	AtUs   int64 `json:"at_us"`
	TookUs int64 `json:"took_us"`
	Placed int   `json:"placed,omitempty"`
}

// PassLog is the hub's answer at /debug/passes?after=N (its --pass-log):
// the passes it still holds with sequence numbers from N on, oldest
// first, at most PassLogPage of them (a full page: read on from Next).
type PassLog struct {
	// Next is the sequence number of the pass after the last one listed:
	// the after of the next read.
	Next uint64 `json:"next"`
	// Lost is how many passes from N on the hub no longer held (its ring
	// overran since that read).
	Lost   uint64    `json:"lost,omitempty"`
	Passes []HubPass `json:"passes"`
}

// PassLogPage is the most passes one PassLog lists.
const PassLogPage = 20000

// HubPass is one pass as the hub logs it: its start in Unix µs (the
// hub's clock), its start to its end in µs, and the tasks it placed.
type HubPass struct {
	StartUs int64 `json:"start_us"`
	TookUs  int64 `json:"took_us"`
	Placed  int   `json:"placed,omitempty"`
}

// Learnt is what a policy had learnt by AtMs of what a download costs
// (sched.CostEstimates), ms: the mean overhead (dispatch → result, less
// the run) of tasks placed on a judge that held their data (WarmMs) and
// on one that lacked it (ColdMs), and the download cost it ranks judges
// by, the mean over the problems it has seen downloaded (FetchMs). 0: not
// learnt yet.
type Learnt struct {
	AtMs    int64   `json:"at_ms"`
	WarmMs  float64 `json:"warm_ms,omitempty"`
	ColdMs  float64 `json:"cold_ms,omitempty"`
	FetchMs float64 `json:"fetch_ms,omitempty"`
	// SpeedLo and SpeedHi are the lowest and highest speed the policy
	// assumed for the judges it had learnt one for (1: the mean judge);
	// 0: none learnt yet.
	SpeedLo float64 `json:"speed_lo,omitempty"`
	SpeedHi float64 `json:"speed_hi,omitempty"`
}

// LatencyWindow is the hub's mean dispatch pass latency and judge message
// wait (Trace.PassMs, Trace.ResultMs) from AtMs until the next window,
// and, where recorded, how they were spread: the hub's histograms of the
// passes and messages of the window (a mean hides the slow passes that
// everything behind them waits for).
type LatencyWindow struct {
	AtMs       int64   `json:"at_ms"`
	PassMs     float64 `json:"pass_ms"`
	ResultMs   float64 `json:"result_ms"`
	PassHist   *Hist   `json:"pass_hist,omitempty"`
	ResultHist *Hist   `json:"result_hist,omitempty"`
	// WakeMs and WakeHist are the hub's dispatcher's waits for a core in
	// the window (verdict_hub_dispatch_wake_seconds: a wake that found it
	// idle → the pass it started): the mean and the spread (0 and none:
	// not recorded; the replay then starts a pass at once).
	WakeMs   float64 `json:"wake_ms,omitempty"`
	WakeHist *Hist   `json:"wake_hist,omitempty"`
	// IdleMs and IdleHist are the hub's dispatch passes that placed
	// nothing in the window (verdict_hub_dispatch_idle_pass_seconds: an
	// empty queue, no judge ready, no free slot for the head of the
	// queue), their start to their end: the mean and the spread. The
	// replay holds its dispatcher that long for such a pass. 0 and none:
	// not recorded (or none in the window); the replay then runs a pass
	// on an empty queue in no time, and one that places nothing as long
	// as a placing one.
	IdleMs   float64 `json:"idle_ms,omitempty"`
	IdleHist *Hist   `json:"idle_hist,omitempty"`
	// NoticeMs and NoticeHist are the ways of the enqueues' notices to the
	// hub in the window (verdict_hub_queue_notice_seconds: an enqueue,
	// Redis's clock → the hub read its pub/sub notice): the mean and the
	// spread. The replay wakes the dispatcher for an arrival that long
	// after it (the task is in the queue at once: a pass meanwhile sees
	// it). 0 and none: not recorded; the replay wakes it at once.
	NoticeMs   float64 `json:"notice_ms,omitempty"`
	NoticeHist *Hist   `json:"notice_hist,omitempty"`
}

// Hist is a histogram of what the hub observed in one window: Counts[i]
// observations above BoundsMs[i-1] and at most BoundsMs[i] (the first:
// from 0), and the last count, one more than the bounds, above the last
// bound.
type Hist struct {
	BoundsMs []float64 `json:"bounds_ms"`
	Counts   []int64   `json:"counts"`
}

// N is how many observations h holds.
func (h *Hist) N() int64 {
	var n int64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// problems lists what is wrong with h (field names the field), at most a
// few.
func (h *Hist) problems(field string) []error {
	var errs []error
	if len(h.Counts) != len(h.BoundsMs)+1 {
		errs = append(errs, fmt.Errorf("%s.counts: %d for %d bounds (want one more than bounds_ms)", field, len(h.Counts), len(h.BoundsMs)))
	}
	for i, b := range h.BoundsMs {
		if !(b > 0 && b <= MaxLatencyMs) || (i > 0 && b <= h.BoundsMs[i-1]) {
			errs = append(errs, fmt.Errorf("%s.bounds_ms[%d]: %v not in (0, %d] and above the one before", field, i, b, MaxLatencyMs))
			break
		}
	}
	for i, c := range h.Counts {
		if c < 0 {
			errs = append(errs, fmt.Errorf("%s.counts[%d]: negative", field, i))
			break
		}
	}
	return errs
}

// Judge is one judge connection of the run.
type Judge struct {
	ID      string  `json:"id"`
	Slots   int     `json:"slots"`
	Speed   float64 `json:"speed"`    // run times are divided by it
	JoinMs  int64   `json:"join_ms"`  // connected (0: from the start)
	LeaveMs int64   `json:"leave_ms"` // killed/disconnected (0: never)
	// Warm is the test data (hashes) the judge held when it connected:
	// the rehearsal records what each judge had downloaded and verified
	// before the contest's start (the hub warms judges before it). Empty:
	// the connection starts with an empty cache.
	Warm []string `json:"warm,omitempty"`
}

// Holds counts the dispatch passes that held a task, by reason
// (sched.Hold): Busy, every judge that could run it full; NoJudge, none
// runs it; Affinity, a judge free but the policy waiting for one holding
// its test data, the first such pass at AffinityMs (ms since Start; 0
// when Affinity is 0); Reserve, background work held for the reserve.
type Holds struct {
	Busy       int   `json:"busy,omitempty"`
	NoJudge    int   `json:"no_judge,omitempty"`
	Affinity   int   `json:"affinity,omitempty"`
	Reserve    int   `json:"reserve,omitempty"`
	AffinityMs int64 `json:"affinity_ms,omitempty"`
}

// Any reports whether a pass held it for any reason.
func (h *Holds) Any() bool {
	return h != nil && h.Busy+h.NoJudge+h.Affinity+h.Reserve > 0
}

// validate reports what is wrong with h, "" when nothing.
func (h *Holds) validate() string {
	switch {
	case h == nil:
		return ""
	case h.Busy < 0 || h.NoJudge < 0 || h.Affinity < 0 || h.Reserve < 0 || h.AffinityMs < 0:
		return "negative"
	case (h.Affinity > 0) != (h.AffinityMs > 0):
		return "affinity_ms is set exactly when affinity > 0"
	}
	return ""
}

// Task is one submission of the run (its first attempt).
type Task struct {
	SubmissionID int64  `json:"submission_id"`
	AtMs         int64  `json:"at_ms"` // enqueued
	ProblemID    int64  `json:"problem_id"`
	DataHash     string `json:"data_hash,omitempty"`
	Language     string `json:"language"`
	Priority     int    `json:"priority"` // protocol.Priority
	WorkMs       int64  `json:"work_ms"`  // judge work at speed 1 (compile + cases run)
	// What the real hub did (empty when not recorded):
	DispatchMs int64  `json:"dispatch_ms,omitempty"` // first push to a judge
	JudgeID    string `json:"judge_id,omitempty"`
	// PlacedMs is when the hub's dispatch pass that placed that push
	// began (protocol.Task.DispatchedMs, ms since Start; 0: not
	// recorded): at_ms → placed_ms is the hub's own queue, placed_ms →
	// dispatch_ms the push's way to the judge.
	PlacedMs int64 `json:"placed_ms,omitempty"`
	// NoticedMs is when the hub that placed the task read the notice of
	// its enqueue (protocol.Task.NoticedMs, ms since Start; 0: not
	// recorded, or the hub placed it before the notice came): at_ms →
	// noticed_ms is the notice's way, which the replay gives this task's
	// arrival instead of a draw from its window.
	NoticedMs int64 `json:"noticed_ms,omitempty"`
	// Holds is how often the hub's dispatch passes held the task before
	// the one that placed it, and why (protocol.Task.Held; nil: none
	// held it, or not recorded). The replay sets them beside its own
	// holds of the same task (Dispatch.HubHolds, Dispatch.SimHolds).
	Holds *Holds `json:"holds,omitempty"`
	// HeldMs is how long that judge held the task's slot: a slot took it
	// → its result left the judge (the work at the judge's speed, and
	// the judge's own time: a loaded judge's timers firing late, its
	// result waiting to be sent). 0: not recorded. The replay holds the
	// slot what exceeds the work that much longer after the work.
	HeldMs int64 `json:"held_ms,omitempty"`
	// SlotMs is how long the hub took, for this task's result, from the
	// judge sending it to the slot freed in the hub's accounting (the
	// result handled; protocol.ResultAck.SlotMs), ms. 0: not recorded.
	// The replay holds the slot that long after the result leaves its
	// judge, instead of a draw from the window's spread.
	SlotMs float64 `json:"slot_ms,omitempty"`
	// What the installation recorded of the final result (empty when not
	// recorded; `verdict-stack export-trace --dsn` fills them from MySQL):
	// the part of work_ms spent compiling (0: unknown), each case's run
	// time in ms as measured on RanOn, in case order (only the cases that
	// ran: ICPC stops at the first failure), the final verdict, when it
	// was stored (ms since Start) and the judge that produced it.
	CompileMs int64   `json:"compile_ms,omitempty"`
	CasesMs   []int64 `json:"cases_ms,omitempty"`
	Verdict   string  `json:"verdict,omitempty"`
	VerdictMs int64   `json:"verdict_ms,omitempty"`
	RanOn     string  `json:"ran_on,omitempty"`
}

// Validate checks t against the rules of the package documentation. The
// error wraps ErrInvalid and lists up to ten problems, each naming its
// field and index.
func (t Trace) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}
	if len(t.Judges) == 0 {
		bad("judges: none")
	}
	if !(t.Reserve >= 0 && t.Reserve < 1) {
		bad("reserve: %v not in [0, 1)", t.Reserve)
	}
	if t.PassMs < 0 || math.IsNaN(t.PassMs) || t.PassMs > MaxLatencyMs {
		bad("pass_ms: %v not in [0, %d]", t.PassMs, MaxLatencyMs)
	}
	if t.ResultMs < 0 || math.IsNaN(t.ResultMs) || t.ResultMs > MaxLatencyMs {
		bad("result_ms: %v not in [0, %d]", t.ResultMs, MaxLatencyMs)
	}
	for i, w := range t.Latency {
		if w.AtMs < 0 {
			bad("latency[%d].at_ms: negative", i)
		} else if i > 0 && w.AtMs <= t.Latency[i-1].AtMs {
			bad("latency[%d].at_ms: %d not after latency[%d]'s %d", i, w.AtMs, i-1, t.Latency[i-1].AtMs)
		}
		if w.PassMs < 0 || math.IsNaN(w.PassMs) || w.PassMs > MaxLatencyMs {
			bad("latency[%d].pass_ms: %v not in [0, %d]", i, w.PassMs, MaxLatencyMs)
		}
		if w.ResultMs < 0 || math.IsNaN(w.ResultMs) || w.ResultMs > MaxLatencyMs {
			bad("latency[%d].result_ms: %v not in [0, %d]", i, w.ResultMs, MaxLatencyMs)
		}
		if w.PassHist != nil {
			errs = append(errs, w.PassHist.problems(fmt.Sprintf("latency[%d].pass_hist", i))...)
		}
		if w.ResultHist != nil {
			errs = append(errs, w.ResultHist.problems(fmt.Sprintf("latency[%d].result_hist", i))...)
		}
		if w.WakeMs < 0 || math.IsNaN(w.WakeMs) || w.WakeMs > MaxLatencyMs {
			bad("latency[%d].wake_ms: %v not in [0, %d]", i, w.WakeMs, MaxLatencyMs)
		}
		if w.WakeHist != nil {
			errs = append(errs, w.WakeHist.problems(fmt.Sprintf("latency[%d].wake_hist", i))...)
		}
		if w.IdleMs < 0 || math.IsNaN(w.IdleMs) || w.IdleMs > MaxLatencyMs {
			bad("latency[%d].idle_ms: %v not in [0, %d]", i, w.IdleMs, MaxLatencyMs)
		}
		if w.IdleHist != nil {
			errs = append(errs, w.IdleHist.problems(fmt.Sprintf("latency[%d].idle_hist", i))...)
		}
		if w.NoticeMs < 0 || math.IsNaN(w.NoticeMs) || w.NoticeMs > MaxLatencyMs {
			bad("latency[%d].notice_ms: %v not in [0, %d]", i, w.NoticeMs, MaxLatencyMs)
		}
		if w.NoticeHist != nil {
			errs = append(errs, w.NoticeHist.problems(fmt.Sprintf("latency[%d].notice_hist", i))...)
		}
	}
	for i, l := range t.Learnt {
		if l.AtMs < 0 {
			bad("learnt[%d].at_ms: negative", i)
		} else if i > 0 && l.AtMs <= t.Learnt[i-1].AtMs {
			bad("learnt[%d].at_ms: %d not after learnt[%d]'s %d", i, l.AtMs, i-1, t.Learnt[i-1].AtMs)
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"warm_ms", l.WarmMs}, {"cold_ms", l.ColdMs}, {"fetch_ms", l.FetchMs}} {
			if f.v < 0 || math.IsNaN(f.v) || f.v > MaxLatencyMs {
				bad("learnt[%d].%s: %v not in [0, %d]", i, f.name, f.v, MaxLatencyMs)
			}
		}
		if !(l.SpeedLo >= 0 && l.SpeedLo <= l.SpeedHi && l.SpeedHi <= 1e6) {
			bad("learnt[%d].speed_lo, speed_hi: %v, %v not 0 ≤ lo ≤ hi ≤ 1e6", i, l.SpeedLo, l.SpeedHi)
		}
	}
	byID := map[string][]int{}
	for i, j := range t.Judges {
		switch {
		case j.ID == "":
			bad("judges[%d].id: empty", i)
		default:
			for _, k := range byID[j.ID] {
				if overlap(t.Judges[k], j) {
					bad("judges[%d].id: %q overlaps judges[%d] in time", i, j.ID, k)
				}
			}
			byID[j.ID] = append(byID[j.ID], i)
		}
		if j.Slots < 1 {
			bad("judges[%d].slots: %d < 1", i, j.Slots)
		}
		if !(j.Speed > 0) || j.Speed > 1e6 {
			bad("judges[%d].speed: %v not in (0, 1e6]", i, j.Speed)
		}
		if j.JoinMs < 0 {
			bad("judges[%d].join_ms: negative", i)
		}
		seen := make(map[string]bool, len(j.Warm))
		for n, h := range j.Warm {
			switch {
			case h == "":
				bad("judges[%d].warm[%d]: empty", i, n)
			case seen[h]:
				bad("judges[%d].warm[%d]: %q repeats", i, n, h)
			}
			seen[h] = true
		}
		if j.LeaveMs < 0 {
			bad("judges[%d].leave_ms: negative", i)
		} else if j.LeaveMs != 0 && j.LeaveMs <= j.JoinMs {
			bad("judges[%d].leave_ms: %d not after join_ms %d", i, j.LeaveMs, j.JoinMs)
		}
	}
	subs := make(map[int64]int, len(t.Tasks))
	for i, k := range t.Tasks {
		if k.SubmissionID <= 0 {
			bad("tasks[%d].submission_id: %d not positive", i, k.SubmissionID)
		} else if first, dup := subs[k.SubmissionID]; dup {
			bad("tasks[%d].submission_id: %d repeats tasks[%d]", i, k.SubmissionID, first)
		} else {
			subs[k.SubmissionID] = i
		}
		if k.AtMs < 0 {
			bad("tasks[%d].at_ms: negative", i)
		}
		if k.ProblemID < 0 {
			bad("tasks[%d].problem_id: negative", i)
		}
		if k.Language == "" {
			bad("tasks[%d].language: empty", i)
		}
		if !protocol.Priority(k.Priority).Valid() {
			bad("tasks[%d].priority: %d unknown", i, k.Priority)
		}
		if k.WorkMs < 0 {
			bad("tasks[%d].work_ms: negative", i)
		}
		if k.DispatchMs < 0 {
			bad("tasks[%d].dispatch_ms: negative", i)
		}
		if k.HeldMs < 0 {
			bad("tasks[%d].held_ms: negative", i)
		}
		if k.PlacedMs < 0 {
			bad("tasks[%d].placed_ms: negative", i)
		}
		if k.NoticedMs < 0 {
			bad("tasks[%d].noticed_ms: negative", i)
		}
		if why := k.Holds.validate(); why != "" {
			bad("tasks[%d].holds: %s", i, why)
		}
		if k.SlotMs < 0 || math.IsNaN(k.SlotMs) || k.SlotMs > MaxLatencyMs {
			bad("tasks[%d].slot_ms: %v not in [0, %d]", i, k.SlotMs, MaxLatencyMs)
		}
		if k.CompileMs < 0 || (k.WorkMs >= 0 && k.CompileMs > k.WorkMs) {
			bad("tasks[%d].compile_ms: %d not in [0, work_ms %d]", i, k.CompileMs, k.WorkMs)
		}
		for c, ms := range k.CasesMs {
			if ms < 0 {
				bad("tasks[%d].cases_ms[%d]: negative", i, c)
				break
			}
		}
		if k.Verdict != "" && !protocol.Verdict(k.Verdict).Final() {
			bad("tasks[%d].verdict: %q is not a final verdict", i, k.Verdict)
		}
		if k.VerdictMs < 0 {
			bad("tasks[%d].verdict_ms: negative", i)
		}
		if k.RanOn != "" && byID[k.RanOn] == nil {
			bad("tasks[%d].ran_on: %q is not among the judges", i, k.RanOn)
		}
		if len(k.CasesMs) > 0 && k.WorkMs >= 0 {
			// The cases at speed 1 (as measured × the speed of the judge
			// that ran them) and the compile are part of the work.
			speed := 1.0
			if js := byID[k.RanOn]; k.RanOn != "" && js != nil {
				speed = t.Judges[js[0]].Speed
			}
			run := 0.0
			for _, ms := range k.CasesMs {
				run += float64(ms) * speed
			}
			if float64(k.CompileMs)+run > float64(k.WorkMs)+float64(len(k.CasesMs)+1) {
				bad("tasks[%d].cases_ms: compile_ms + the cases at speed 1 = %.0f ms: more than work_ms %d", i, float64(k.CompileMs)+run, k.WorkMs)
			}
		}
		switch {
		case k.JudgeID != "" && byID[k.JudgeID] == nil:
			bad("tasks[%d].judge_id: %q is not among the judges", i, k.JudgeID)
		case k.JudgeID == "" && k.DispatchMs != 0:
			bad("tasks[%d].dispatch_ms: set without judge_id", i)
		case k.JudgeID == "" && k.HeldMs != 0:
			bad("tasks[%d].held_ms: set without judge_id", i)
		case k.JudgeID == "" && k.PlacedMs != 0:
			bad("tasks[%d].placed_ms: set without judge_id", i)
		case k.JudgeID == "" && k.NoticedMs != 0:
			bad("tasks[%d].noticed_ms: set without judge_id", i)
		case k.JudgeID == "" && k.Holds != nil:
			bad("tasks[%d].holds: set without judge_id", i)
		case k.JudgeID == "" && k.SlotMs != 0:
			bad("tasks[%d].slot_ms: set without judge_id", i)
		}
	}
	for i, p := range t.Passes {
		switch {
		case p.AtUs < 0:
			bad("passes[%d].at_us: negative", i)
		case i > 0 && p.AtUs < t.Passes[i-1].AtUs:
			bad("passes[%d].at_us: %d before passes[%d]'s %d", i, p.AtUs, i-1, t.Passes[i-1].AtUs)
		case p.TookUs < 0 || p.TookUs > MaxLatencyMs*1000:
			bad("passes[%d].took_us: %d not in [0, %d]", i, p.TookUs, MaxLatencyMs*1000)
		case p.Placed < 0:
			bad("passes[%d].placed: negative", i)
		}
	}
	if t.PassesLost < 0 {
		bad("passes_lost: negative")
	}
	for i, f := range t.Faults {
		switch {
		case f.AtMs < 0:
			bad("faults[%d].at_ms: negative", i)
		case i > 0 && f.AtMs < t.Faults[i-1].AtMs:
			bad("faults[%d].at_ms: %d before faults[%d]'s %d", i, f.AtMs, i-1, t.Faults[i-1].AtMs)
		case f.Kind == "":
			bad("faults[%d].kind: empty", i)
		}
	}
	for i, k := range t.Background {
		switch {
		case k.SubmissionID <= 0:
			bad("background[%d].submission_id: %d not positive", i, k.SubmissionID)
		case k.AtMs < 0:
			bad("background[%d].at_ms: negative", i)
		case k.ProblemID < 0:
			bad("background[%d].problem_id: negative", i)
		case k.Language == "":
			bad("background[%d].language: empty", i)
		case !protocol.Priority(k.Priority).Valid():
			bad("background[%d].priority: %d unknown", i, k.Priority)
		case k.WorkMs < 0:
			bad("background[%d].work_ms: negative", i)
		case k.JudgeID != "" || k.DispatchMs != 0 || k.PlacedMs != 0 || k.NoticedMs != 0 || k.Holds != nil:
			bad("background[%d]: a background task has no recorded dispatch", i)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	if n := len(errs); n > maxErrors {
		errs = append(errs[:maxErrors], fmt.Errorf("and %d more", n-maxErrors))
	}
	return fmt.Errorf("%w: %w", ErrInvalid, errors.Join(errs...))
}

// overlap reports whether two connections' [join, leave) intervals
// intersect (leave 0 is never).
func overlap(a, b Judge) bool {
	end := func(j Judge) int64 {
		if j.LeaveMs == 0 {
			return 1<<63 - 1
		}
		return j.LeaveMs
	}
	return a.JoinMs < end(b) && b.JoinMs < end(a)
}

// Write validates t and writes it as one JSON object, one judge and one
// task per line (easy to diff and grep; any JSON reader takes it).
func Write(w io.Writer, t Trace) error {
	if err := t.Validate(); err != nil {
		return fmt.Errorf("schedtrace: write: %w", err)
	}
	bw := bufio.NewWriter(w)
	head, err := json.Marshal(struct {
		Start      time.Time       `json:"start"`
		Policy     string          `json:"policy"`
		Reserve    float64         `json:"reserve,omitempty"`
		PassMs     float64         `json:"pass_ms,omitempty"`
		ResultMs   float64         `json:"result_ms,omitempty"`
		Latency    []LatencyWindow `json:"latency,omitempty"`
		Learnt     []Learnt        `json:"learnt,omitempty"`
		PassesLost int64           `json:"passes_lost,omitempty"`
		Faults     []Fault         `json:"faults,omitempty"`
	}{t.Start, t.Policy, t.Reserve, t.PassMs, t.ResultMs, t.Latency, t.Learnt, t.PassesLost, t.Faults})
	if err != nil {
		return fmt.Errorf("schedtrace: write: %w", err)
	}
	bw.Write(head[:len(head)-1]) // without the closing brace
	if err := writeList(bw, "judges", t.Judges); err != nil {
		return err
	}
	if err := writeList(bw, "tasks", t.Tasks); err != nil {
		return err
	}
	if len(t.Background) > 0 {
		if err := writeList(bw, "background", t.Background); err != nil {
			return err
		}
	}
	if len(t.Passes) > 0 {
		if err := writeList(bw, "passes", t.Passes); err != nil {
			return err
		}
	}
	bw.WriteString("}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("schedtrace: write: %w", err)
	}
	return nil
}

func writeList[T any](bw *bufio.Writer, name string, xs []T) error {
	bw.WriteString(",\n\"" + name + "\":[")
	for i, x := range xs {
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Errorf("schedtrace: write: %s[%d]: %w", name, i, err)
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
		bw.Write(b)
	}
	bw.WriteString("]")
	return nil
}

// Read reads one JSON trace and validates it. Unknown fields and anything
// after the object are errors.
func Read(r io.Reader) (Trace, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var t Trace
	if err := dec.Decode(&t); err != nil {
		return Trace{}, fmt.Errorf("schedtrace: read: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Trace{}, fmt.Errorf("schedtrace: read: data after the trace")
	}
	if err := t.Validate(); err != nil {
		return Trace{}, fmt.Errorf("schedtrace: read: %w", err)
	}
	return t, nil
}

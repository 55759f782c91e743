package schedtrace

import "fmt"

// The answer of the simulator's replay of a trace (hub/internal/sched/sim
// Replay, `sim -replay F -json`), read by the rehearsal.

// Comparison is a replay beside the recorded run: the enqueue → dispatch
// wait (the first push of a task to a judge) per judge, per judge class and
// over all judges, as the hub did it (the trace's recorded dispatches) and
// as the simulator did it. It is also the JSON that `sim -replay -json`
// prints. Times are in milliseconds.
type Comparison struct {
	Policy string          `json:"policy"`
	Model  ComparisonModel `json:"model"`
	// Tasks in the trace; Recorded: those with a recorded dispatch; Early:
	// recorded pushes before at_ms (counted as 0 wait); Undispatched: tasks
	// the simulator never dispatched (every judge gone); Requeues and Lost:
	// the simulator's expired leases and tasks lost after the last attempt.
	Tasks int `json:"tasks"`
	// Background: the trace's background tasks, run but not compared.
	Background   int `json:"background,omitempty"`
	Recorded     int `json:"recorded"`
	Early        int `json:"early"`
	Undispatched int `json:"undispatched"`
	Requeues     int `json:"requeues"`
	Lost         int `json:"lost"`
	// All is every judge; Judges one row per judge id (a judge that
	// reconnected is one row), in trace order; Classes one row per (slots,
	// speed), fastest first.
	All     ComparisonRow   `json:"all"`
	Judges  []ComparisonRow `json:"judges"`
	Classes []ComparisonRow `json:"classes"`
	// Windows is All for the tasks enqueued in each WindowMs of the run
	// (FromMs its start), in time order: where in the run the two differ.
	Windows []ComparisonRow `json:"windows,omitempty"`
	// BeforeFaults is All for the tasks enqueued before the trace's first
	// fault (Trace.Faults), which the simulator does not model: the part
	// of the run the two can be held to. Nil: the trace has no fault.
	BeforeFaults *ComparisonRow `json:"before_faults,omitempty"`
	// Placed and Delivery split the hub's recorded waits where the trace
	// has Task.PlacedMs: enqueue → the start of the pass that placed the
	// task (the hub's own queue: what the simulator's wait models), and
	// that start → the push at the judge (the pass, the socket, the
	// judge reading it). Count 0 when not recorded.
	Placed   WaitStats `json:"placed,omitzero"`
	Delivery WaitStats `json:"delivery,omitzero"`
	// Holds sets the holds of the two sides' dispatch passes side by
	// side: why each waited while it waited.
	Holds HoldComparison `json:"holds,omitzero"`
	// Learnt sets what the replay's policy had learnt of what downloads
	// cost beside what the hub's had (Trace.Learnt), at each of the
	// trace's times: the same policy, learning from each side's own
	// results. Empty: the trace has none, or the policy learns nothing.
	Learnt []LearntPair `json:"learnt,omitempty"`
	// Passes sets the hub's dispatch passes (Trace.Passes) beside the
	// replay's, by the WindowMs they began in, in time order. Empty: the
	// trace has none.
	Passes []PassWindow `json:"passes,omitempty"`
	// Dispatches is every task's two dispatches, in trace order.
	Dispatches []Dispatch `json:"dispatches,omitempty"`
}

// PassWindow is the two sides' dispatch passes that began in the
// WindowMs from FromMs.
type PassWindow struct {
	FromMs int64     `json:"from_ms"`
	Hub    PassStats `json:"hub"`
	Sim    PassStats `json:"sim"`
}

// PassStats counts one side's passes: those that placed tasks (Placing,
// placing Tasks in all, TookMs their mean start → end) and those that
// placed nothing (Idle, IdleMs their mean).
type PassStats struct {
	Placing int     `json:"placing"`
	Tasks   int     `json:"tasks"`
	TookMs  float64 `json:"took_ms"`
	Idle    int     `json:"idle"`
	IdleMs  float64 `json:"idle_ms"`
}

// Add counts a pass that took tookMs and placed placed tasks.
func (p *PassStats) Add(tookMs float64, placed int) {
	if placed > 0 {
		p.Placing++
		p.Tasks += placed
		p.TookMs += (tookMs - p.TookMs) / float64(p.Placing)
		return
	}
	p.Idle++
	p.IdleMs += (tookMs - p.IdleMs) / float64(p.Idle)
}

// LearntPair is the hub's and the simulator's estimates at Hub.AtMs
// (Sim.AtMs is the same).
type LearntPair struct {
	Hub Learnt `json:"hub"`
	Sim Learnt `json:"sim"`
}

// SlowWaitMs is where HoldComparison.Slow starts: the hub's waits at
// least this long.
const SlowWaitMs = 40

// HoldComparison counts the compared tasks that each side's dispatch
// passes held before placing them, over all of them (All) and over those
// the hub placed SlowWaitMs or more after their enqueue (Slow). Told: the
// trace's hub told its holds (Task.Holds on some task; a trace from an
// older hub has none, and the hub's side is then empty).
type HoldComparison struct {
	Told bool      `json:"told"`
	All  HoldSides `json:"all"`
	Slow HoldSides `json:"slow"`
}

// HoldSides is one set of tasks, the hub's holds of them beside the
// simulator's.
type HoldSides struct {
	Tasks int       `json:"tasks"`
	Hub   HoldTasks `json:"hub"`
	Sim   HoldTasks `json:"sim"`
}

// HoldTasks counts tasks held at least once, by reason, and never held
// (Never: placed by the first pass that saw them). AffinityWaitMs is the
// mean, over the tasks held for affinity, from the first pass that held
// them so to the start of the pass that placed them.
type HoldTasks struct {
	Busy           int     `json:"busy"`
	NoJudge        int     `json:"no_judge"`
	Affinity       int     `json:"affinity"`
	Reserve        int     `json:"reserve"`
	Never          int     `json:"never"`
	AffinityWaitMs float64 `json:"affinity_wait_ms"`
}

// Add counts one task's holds (nil: never held), placed at placedMs (the
// same clock as h.AffinityMs).
func (t *HoldTasks) Add(h *Holds, placedMs float64) {
	if !h.Any() {
		t.Never++
		return
	}
	if h.Busy > 0 {
		t.Busy++
	}
	if h.NoJudge > 0 {
		t.NoJudge++
	}
	if h.Reserve > 0 {
		t.Reserve++
	}
	if h.Affinity > 0 {
		t.Affinity++
		w := max(0, placedMs-float64(h.AffinityMs))
		t.AffinityWaitMs += (w - t.AffinityWaitMs) / float64(t.Affinity)
	}
}

// ComparisonModel is what the simulator assumed.
type ComparisonModel struct {
	HeartbeatMs    int64  `json:"heartbeat_ms"`
	LeaseMs        int64  `json:"lease_ms"`
	DispatchTickMs int64  `json:"dispatch_tick_ms"`
	PeekWindow     int    `json:"peek_window"`
	CacheProblems  int    `json:"cache_problems"`
	Download       string `json:"download"` // "model" (ModelDownload) or "custom"
	// Reserve is the share of the slots the replay's rejudges left free
	// (Trace.Reserve; 0: none).
	Reserve float64 `json:"reserve,omitempty"`
	// PassMs is the dispatch pass latency modelled (Trace.PassMs).
	PassMs float64 `json:"pass_ms"`
	// ResultMs is the result latency modelled (Trace.ResultMs).
	ResultMs float64 `json:"result_ms"`
	// LatencyWindows is how many of Trace.Latency's windows the replay
	// took its pass and result latencies from (0: PassMs and ResultMs
	// throughout).
	LatencyWindows int `json:"latency_windows,omitempty"`
	// LatencySpreads is how many of those windows had the hub's
	// histograms, from which the replay drew each pass's and each
	// result's latency (but the results of OwnSlotTimes) instead of
	// taking the window's mean.
	LatencySpreads int `json:"latency_spreads,omitempty"`
	// WakeWindows is how many of those windows had the hub's dispatcher's
	// wake latency (LatencyWindow.WakeMs), by which the replay delayed
	// the passes the idle dispatcher was woken for.
	WakeWindows int `json:"wake_windows,omitempty"`
	// IdleWindows is how many of those windows had the hub's passes that
	// placed nothing (LatencyWindow.IdleMs), for which the replay held its
	// dispatcher as long.
	IdleWindows int `json:"idle_windows,omitempty"`
	// NoticeWindows is how many of those windows had the ways of the
	// enqueues' notices to the hub (LatencyWindow.NoticeMs), by which the
	// replay delayed the wake of each arrival.
	NoticeWindows int `json:"notice_windows,omitempty"`
	// PassMomentMs is how long a moment of the replay's passes was: the
	// passes of one moment took their latencies from one draw of the
	// window's spreads (0: each pass its own draw).
	PassMomentMs int64 `json:"pass_moment_ms,omitempty"`
	// Holds is how many tasks the replay held on their judge's slot
	// after their work (Task.HeldMs over the work), HoldMeanMs that
	// time's mean over them.
	Holds      int     `json:"holds,omitempty"`
	HoldMeanMs float64 `json:"hold_mean_ms,omitempty"`
	// Slots is how many tasks' results freed their slot as late as the
	// hub's own did for them (Task.SlotMs) rather than as a draw from
	// their window, OwnSlotMeanMs that time's mean over them.
	OwnSlotTimes  int     `json:"own_slot_times,omitempty"`
	OwnSlotMeanMs float64 `json:"own_slot_mean_ms,omitempty"`
	// OwnNotices tasks woke the dispatcher as late as the hub read their
	// own enqueue's notice (Task.NoticedMs) rather than a draw from their
	// window, OwnNoticeMeanMs that way's mean over them;
	// NoticesAfterPlacing tasks the hub placed before their notice came
	// drew theirs, no earlier than the hub's placement.
	OwnNotices          int     `json:"own_notices,omitempty"`
	OwnNoticeMeanMs     float64 `json:"own_notice_mean_ms,omitempty"`
	NoticesAfterPlacing int     `json:"notices_after_placing,omitempty"`
	// RecordedPasses is how many of the hub's passes (Trace.Passes) the
	// replay took its passes' latencies from, each from the one of its
	// kind nearest in time (0: from the windows); PassesLost how many the
	// recorder missed (Trace.PassesLost).
	RecordedPasses int    `json:"recorded_passes,omitempty"`
	PassesLost     int64  `json:"passes_lost,omitempty"`
	Seed           uint64 `json:"seed"`
}

// ComparisonRow is one row of the comparison. A gap is (sim − hub) / hub in
// percent, null when a side has no task or the hub's figure is 0 and the
// simulator's is not. Differs: both sides have tasks and a gap exceeds
// ReplayGapLimit (or is null for a zero hub figure) by at least
// ReplayGapFloorMs in absolute terms.
type ComparisonRow struct {
	Name       string    `json:"name"`
	Hub        WaitStats `json:"hub"`
	Sim        WaitStats `json:"sim"`
	MeanGapPct *float64  `json:"mean_gap_pct"`
	P99GapPct  *float64  `json:"p99_gap_pct"`
	Differs    bool      `json:"differs"`
	// FromMs is a window's start (Comparison.Windows), ms since Start.
	FromMs int64 `json:"from_ms,omitempty"`
}

// WindowMs is the width of Comparison.Windows.
const WindowMs = 30000

// WaitStats summarises enqueue → dispatch waits (ms; 0 when Count is 0).
// P99 interpolates between closest ranks (Percentile).
type WaitStats struct {
	Count  int     `json:"count"`
	MeanMs float64 `json:"mean_ms"`
	P99Ms  float64 `json:"p99_ms"`
}

// Dispatch is one task's dispatch in the hub (HubJudge "" when not
// recorded) and in the simulator (SimJudge "" when never dispatched).
type Dispatch struct {
	SubmissionID int64   `json:"submission_id"`
	AtMs         int64   `json:"at_ms"`
	HubJudge     string  `json:"hub_judge,omitempty"`
	HubWaitMs    float64 `json:"hub_wait_ms"`
	SimJudge     string  `json:"sim_judge,omitempty"`
	SimWaitMs    float64 `json:"sim_wait_ms"`
	// HubHolds and SimHolds: how often each side's passes held the task
	// before the one that placed it, and why (nil: none did, or, for the
	// hub, not told).
	HubHolds *Holds `json:"hub_holds,omitempty"`
	SimHolds *Holds `json:"sim_holds,omitempty"`
}

// Summary says in a sentence or two where the two sides' holds differ
// ("" when the hub did not tell its holds): of the compared tasks, and of
// the hub's waits of SlowWaitMs or more, how many each side held busy,
// for affinity (with the mean from that first hold to the placement) or
// for the reserve, and how many it placed at the first pass.
func (h HoldComparison) Summary() string {
	if !h.Told {
		return ""
	}
	side := func(t HoldTasks) string {
		s := fmt.Sprintf("%d busy, %d for affinity", t.Busy, t.Affinity)
		if t.Affinity > 0 {
			s += fmt.Sprintf(" (%.0f ms on average from that hold to the pass that placed it)", t.AffinityWaitMs)
		}
		if t.NoJudge > 0 {
			s += fmt.Sprintf(", %d for want of a judge", t.NoJudge)
		}
		if t.Reserve > 0 {
			s += fmt.Sprintf(", %d for the reserve", t.Reserve)
		}
		return s + fmt.Sprintf(", %d never held", t.Never)
	}
	s := fmt.Sprintf("Why they waited, by the dispatch passes that held them before the one that placed them (a task held for several reasons counts under each): of the %d tasks both placed, the hub held %s; the simulator held %s.",
		h.All.Tasks, side(h.All.Hub), side(h.All.Sim))
	if h.Slow.Tasks > 0 {
		s += fmt.Sprintf(" Of the %d the hub placed %d ms or more after their enqueue, the hub held %s; the simulator held the same tasks %s.",
			h.Slow.Tasks, SlowWaitMs, side(h.Slow.Hub), side(h.Slow.Sim))
	}
	return s
}

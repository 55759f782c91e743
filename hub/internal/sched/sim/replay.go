package sim

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// ReplayGapLimit is the gap (percent of the hub's figure) beyond which a
// replay row is marked as differing (issue 13).
const ReplayGapLimit = 10.0

// ReplayGapFloorMs is the absolute difference below which no gap counts:
// with both sides within a few milliseconds of each other (an idle
// cluster), a percentage of a near-zero figure says nothing.
const ReplayGapFloorMs = 50.0

// ReplayOption tunes Replay.
type ReplayOption func(*replayConfig)

type replayConfig struct {
	seed      uint64
	moment    time.Duration
	heartbeat time.Duration
	download  func(hash string) time.Duration
	custom    bool
	tune      func(*Config)
	// windowPasses: the passes' latencies from the windows even where the
	// trace has the hub's passes (ReplayRecordedPasses(false)).
	windowPasses bool
}

// ReplaySeed seeds the policy (the policies that draw random numbers) and
// the heartbeat phases of the judges present from the start. Default 1.
func ReplaySeed(seed uint64) ReplayOption { return func(c *replayConfig) { c.seed = seed } }

// DefaultReplayPassMoment is how long a moment of the replay's passes is
// by default (Config.PassMoment): the passes of each half second take
// their latencies alike, from one draw of the window's spreads. A loaded
// machine slows the hub's passes of one moment together; drawn pass by
// pass instead, the replay of the 2026-12-04 21:42 rehearsal (2,000
// contestants) waited 16–42 % longer than the hub on the mean, and that
// of the 2026-12-04 23:54 one (3,000 contestants, another VM) 11–25 %;
// with half-second moments −8 … −2 % and −6 … +1 % (docs/scheduling.md,
// "Replaying a rehearsal", item 10).
const DefaultReplayPassMoment = 500 * time.Millisecond

// ReplayPassMoment draws the passes' latencies alike within each moment
// of length d (Config.PassMoment); 0 draws them pass by pass. Default
// DefaultReplayPassMoment.
func ReplayPassMoment(d time.Duration) ReplayOption { return func(c *replayConfig) { c.moment = d } }

// ReplayRecordedPasses, true by default, takes each of the replay's
// passes' latencies from the hub's pass of its kind nearest in time where
// the trace has the hub's passes (Trace.Passes, Config.Passes); false
// draws them from the latency windows as for a trace without them, to
// compare the two models on one trace.
func ReplayRecordedPasses(on bool) ReplayOption {
	return func(c *replayConfig) { c.windowPasses = !on }
}

// ReplayHeartbeat is the judges' heartbeat interval; it also sets the lease
// ((3+1) × interval) and the reaper (interval / 2) as the hub derives them.
// Default protocol.DefaultHeartbeatInterval (3 s), the hub's default.
func ReplayHeartbeat(d time.Duration) ReplayOption {
	return func(c *replayConfig) { c.heartbeat = d }
}

// ReplayDownload replaces the test data model: f returns what fetching the
// data with hash costs a judge that lacks it (the download holds the
// task's slot). Default ModelDownload.
func ReplayDownload(f func(hash string) time.Duration) ReplayOption {
	return func(c *replayConfig) { c.download, c.custom = f, f != nil }
}

// ReplayTune edits the run's Config after Replay has filled it (the
// dispatch tick, the peek window, the cache size, missed heartbeats, …).
func ReplayTune(f func(*Config)) ReplayOption { return func(c *replayConfig) { c.tune = f } }

// ModelDownload is the simulator's usual test data model (DefaultWorkload)
// for one hash: a size drawn from the lognormal of median 15 MB (σ 1),
// seeded by the hash so that every replay draws the same, costing 0.3 s +
// size / 50 MB/s (about 0.8 s on average). An empty hash (no test data)
// costs nothing.
func ModelDownload(hash string) time.Duration {
	if hash == "" {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(hash))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0xda7a))
	w := DefaultWorkload()
	s := w.DownloadFixed + lognormal(rng, w.DataMedianMB, w.DataSigma)/w.DownloadMBps
	return time.Duration(s * float64(time.Second))
}

// The replay's answer crosses processes (the rehearsal under deploy/ reads
// the CLI's -json): its types live in internal/schedtrace.
type (
	ReplayResult   = schedtrace.Comparison
	ReplayModel    = schedtrace.ComparisonModel
	ReplayRow      = schedtrace.ComparisonRow
	WaitStats      = schedtrace.WaitStats
	ReplayDispatch = schedtrace.Dispatch
)

// Replay runs a hub policy on a recorded trace: exactly its arrivals (in
// the hub's queue order: priority, then enqueue time), its judges (slots,
// speed, join and leave; a judge present from the start is connected at
// time 0) and its service times (work_ms / speed, plus a download when the
// judge lacks the task's data: ModelDownload unless ReplayDownload), through
// the simulator's usual hub model (Run). policy "" takes the trace's, and
// "" there the hub's default; the ideal references and the ablation
// variants are accepted too. Everything else is as in Run with the hub's
// defaults: heartbeat 3 s, 64-task dispatch window, 250 ms tick, leases of
// 4 heartbeats, 100 problems per judge cache.
func Replay(tr schedtrace.Trace, policy string, opts ...ReplayOption) (ReplayResult, error) {
	if err := tr.Validate(); err != nil {
		return ReplayResult{}, fmt.Errorf("sim: replay: %w", err)
	}
	rc := replayConfig{seed: 1, heartbeat: protocol.DefaultHeartbeatInterval, download: ModelDownload, moment: DefaultReplayPassMoment}
	for _, o := range opts {
		o(&rc)
	}
	if rc.download == nil {
		rc.download = ModelDownload
	}
	if rc.heartbeat <= 0 {
		return ReplayResult{}, fmt.Errorf("sim: replay: heartbeat %v not positive", rc.heartbeat)
	}
	if rc.moment < 0 {
		return ReplayResult{}, fmt.Errorf("sim: replay: pass moment %v negative", rc.moment)
	}
	if policy == "" {
		policy = tr.Policy
	}
	if policy == "" {
		policy = sched.NameDefault
	}

	// Tasks and background tasks in arrival order (stable: the trace's
	// order breaks ties, tasks before background tasks). task is the
	// index in tr.Tasks, -1 for a background task (run, not compared).
	type entry struct {
		t    schedtrace.Task
		task int
	}
	order := make([]entry, 0, len(tr.Tasks)+len(tr.Background))
	for i, t := range tr.Tasks {
		order = append(order, entry{t, i})
	}
	for _, t := range tr.Background {
		order = append(order, entry{t, -1})
	}
	slices.SortStableFunc(order, func(a, b entry) int { return cmp.Compare(a.t.AtMs, b.t.AtMs) })
	type pkey struct {
		id   int64
		hash string
	}
	problems := map[pkey]int{}
	trace := &Trace{Hot: -1}
	minSpeed, work, last := math.Inf(1), 0.0, 0.0
	var holds, slots, notices runningMean // ms: the tasks' holds beyond the work, their own slot times and notices
	// Whether the hub told its notices (an older hub's trace has none),
	// and how many tasks it placed before their notice came.
	noticesTold := slices.ContainsFunc(tr.Tasks, func(t schedtrace.Task) bool { return t.NoticedMs > 0 })
	early := 0
	speedOf := map[string]float64{}
	for _, j := range tr.Judges {
		minSpeed = math.Min(minSpeed, j.Speed)
		if _, ok := speedOf[j.ID]; !ok {
			speedOf[j.ID] = j.Speed
		}
	}
	for n, e := range order {
		t := e.t
		k := pkey{t.ProblemID, t.DataHash}
		p, ok := problems[k]
		if !ok {
			p = len(trace.Problems)
			problems[k] = p
			trace.Problems = append(trace.Problems, Problem{Hash: t.DataHash, Download: rc.download(t.DataHash).Seconds()})
		}
		size := float64(t.WorkMs) / 1000
		// The judge's own time beyond the work, as the run recorded it
		// (schedtrace.Task.HeldMs): its slot stays taken that long after
		// the work, on whichever judge the replay runs it.
		hold := 0.0
		if t.HeldMs > 0 && t.JudgeID != "" {
			hold = max(0, float64(t.HeldMs)/1000-size/speedOf[t.JudgeID])
		}
		// And the push's way to the judge (placed_ms → dispatch_ms): the
		// hub counts the slot taken from the placement, the judge starts
		// the work only once the push arrived (Job.Push).
		push := 0.0
		if t.PlacedMs > 0 && t.DispatchMs > t.PlacedMs {
			push = float64(t.DispatchMs-t.PlacedMs) / 1000
		}
		// The compile, where recorded, is left out of the run time the
		// policy learns from, as a result's case times leave it out in
		// the hub (reportedRun).
		job := Job{ID: n, Arrival: float64(t.AtMs) / 1000, Problem: p, Size: size, Compile: float64(t.CompileMs) / 1000, Hold: hold, Push: push,
			Result: t.SlotMs / 1000,
			Meta:   &TaskMeta{SubmissionID: t.SubmissionID, ProblemID: t.ProblemID, Language: t.Language, Priority: t.Priority}}
		// The enqueue's notice, as late as it reached the hub for this
		// very task (Job.Notice); where the hub's pushes tell notices and
		// this one had none, the hub placed it before its notice came:
		// no earlier than that (Job.NoticeAfter).
		switch {
		case t.NoticedMs > 0:
			job.Notice, job.NoticeKnown = float64(max(0, t.NoticedMs-t.AtMs))/1000, true
			notices.add(job.Notice * 1000)
		case noticesTold && t.PlacedMs > 0 && e.task >= 0:
			job.NoticeAfter = float64(max(0, t.PlacedMs-t.AtMs)) / 1000
			early++
		}
		trace.Jobs = append(trace.Jobs, job)
		work += size + hold + push + trace.Problems[p].Download
		if hold > 0 {
			holds.add(hold * 1000)
		}
		if t.SlotMs > 0 {
			slots.add(t.SlotMs)
		}
		last = float64(t.AtMs) / 1000
	}
	cluster := make([]JudgeSpec, len(tr.Judges))
	for i, j := range tr.Judges {
		cluster[i] = JudgeSpec{ID: j.ID, Cores: j.Slots, Speed: j.Speed, Join: float64(j.JoinMs) / 1000, Leave: float64(j.LeaveMs) / 1000,
			Warm: j.Warm}
	}
	cfg := Config{Policy: policy, Seed: rc.seed, Cluster: cluster, Heartbeat: rc.heartbeat.Seconds(),
		Warmup: 0, End: last + 0.001, StartConnected: true,
		// Passes as long as the hub measured its own (Trace.PassMs),
		// instantaneous when it did not (ReplayTune may set a latency);
		// the measured pass includes its decisions.
		PassLatency: cmp.Or(tr.PassMs/1000, -1), DecisionCost: -1,
		// Results handled as late as the hub handled its judges' messages
		// on average (Trace.ResultMs).
		ResultLatency: tr.ResultMs / 1000,
		// And as they varied over the run, where the trace has windows.
		LatencyWindows: latencyWindows(tr.Latency), PassMoment: rc.moment.Seconds(),
		// And each pass as long as the hub's nearest in time, where the
		// trace has them; every pass the replay runs is kept beside them.
		RecordPasses: len(tr.Passes) > 0,
		// The hub's reserve of slots its rejudges left free (none in a
		// trace from before it).
		Reserve: cmp.Or(tr.Reserve, -1),
		// Enough to finish everything on the slowest single slot, and an
		// hour for leases to expire and judges to come back.
		MaxDrain: 3600 + work/minSpeed}
	if !rc.windowPasses {
		cfg.Passes = recordedPasses(tr.Passes)
	}
	if v, ok := Ablations()[policy]; ok {
		cfg.NewPolicy, cfg.OracleSpeed = v.New, v.OracleSpeed
	}
	if rc.tune != nil {
		rc.tune(&cfg)
	}
	cfg.Policy = policy
	s, err := newSim(cfg, trace)
	if err != nil {
		return ReplayResult{}, fmt.Errorf("sim: replay: %w", err)
	}
	// What the policy has learnt, read at the times the hub's was.
	learnt := make([]schedtrace.Learnt, len(tr.Learnt))
	probed := make([]bool, len(tr.Learnt))
	var est sched.Estimator
	learns := false
	if len(s.hubs) == 1 { // the hub's policy is one; several hubs' would be several
		est, learns = s.hubs[0].policy.(sched.Estimator)
	}
	if learns {
		for i, l := range tr.Learnt {
			s.eng.schedule(event{t: float64(l.AtMs) / 1000, kind: evFunc, fn: func() {
				learnt[i], probed[i] = learntAt(l.AtMs, est.Estimates()), true
			}})
		}
	}
	if len(trace.Jobs) > 0 {
		s.run()
	}
	c := &s.cfg // with the defaults filled in
	res := ReplayResult{Policy: policy, Tasks: len(tr.Tasks), Background: len(tr.Background), Requeues: s.res.Requeues, Lost: s.res.Lost,
		Model: ReplayModel{HeartbeatMs: ms(c.Heartbeat), LeaseMs: ms(s.lease), DispatchTickMs: ms(c.DispatchTick),
			PeekWindow: c.PeekWindow, CacheProblems: c.CacheCapacity, Download: "model", Seed: c.Seed, Reserve: c.Reserve,
			PassMs: c.PassLatency * 1000, ResultMs: c.ResultLatency * 1000, LatencyWindows: len(c.LatencyWindows),
			LatencySpreads: countWindows(c.LatencyWindows, hasSpread), WakeWindows: countWindows(c.LatencyWindows, hasWake),
			IdleWindows: countWindows(c.LatencyWindows, hasIdle), NoticeWindows: countWindows(c.LatencyWindows, hasNotice), PassMomentMs: ms(c.PassMoment), Holds: holds.n, HoldMeanMs: holds.mean,
			OwnSlotTimes: slots.n, OwnSlotMeanMs: slots.mean, OwnNotices: notices.n, OwnNoticeMeanMs: notices.mean, NoticesAfterPlacing: early,
			RecordedPasses: len(c.Passes), PassesLost: tr.PassesLost}}
	if rc.custom {
		res.Model.Download = "custom"
	}

	// Group both sides by judge id and by class.
	ids, classOf, classes := judgeGroups(tr.Judges)
	type sides struct{ hub, sim []float64 }
	all := &sides{}
	byID := make([]sides, len(ids))
	byClass := make([]sides, len(classes))
	idIdx := map[string]int{}
	for i, id := range ids {
		idIdx[id] = i
	}
	res.Dispatches = make([]ReplayDispatch, len(tr.Tasks))
	var placed, delivery []float64
	res.Holds.Told = slices.ContainsFunc(tr.Tasks, func(t schedtrace.Task) bool { return t.Holds != nil })
	for n, e := range order {
		i, t := e.task, e.t
		if i < 0 {
			continue // a background task: run, not compared
		}
		d := ReplayDispatch{SubmissionID: t.SubmissionID, AtMs: t.AtMs}
		if t.JudgeID != "" {
			res.Recorded++
			// The hub's dispatch: the start of the pass that placed the
			// task where recorded (the simulator's dispatch is its
			// placement too), else the push at the judge.
			end := t.DispatchMs
			if t.PlacedMs > 0 {
				end = t.PlacedMs
			}
			w := float64(end - t.AtMs)
			if w < 0 {
				res.Early++
				w = 0
			}
			d.HubJudge, d.HubWaitMs = t.JudgeID, w
			all.hub = append(all.hub, w)
			byID[idIdx[t.JudgeID]].hub = append(byID[idIdx[t.JudgeID]].hub, w)
			k := classOf[connection(tr.Judges, t.JudgeID, t.DispatchMs)]
			byClass[k].hub = append(byClass[k].hub, w)
			if t.PlacedMs > 0 {
				placed = append(placed, float64(max(0, t.PlacedMs-t.AtMs)))
				delivery = append(delivery, float64(max(0, t.DispatchMs-t.PlacedMs)))
			}
		}
		if js := &s.jobs[n]; js.sent {
			w := math.Round((js.sentAt*1000-float64(t.AtMs))*1000) / 1000 // µs: no float noise
			w = math.Max(w, 0)
			d.SimJudge, d.SimWaitMs = tr.Judges[js.sentTo].ID, w
			all.sim = append(all.sim, w)
			byID[idIdx[d.SimJudge]].sim = append(byID[idIdx[d.SimJudge]].sim, w)
			byClass[classOf[js.sentTo]].sim = append(byClass[classOf[js.sentTo]].sim, w)
			if js.holds.Any() {
				h := js.holds
				d.SimHolds = &h
			}
		} else {
			res.Undispatched++
		}
		if d.HubJudge != "" && d.SimJudge != "" {
			// Both placed it: each side's holds, to the start of the pass
			// that placed it.
			d.HubHolds = t.Holds
			hubPlaced := float64(cmp.Or(t.PlacedMs, t.DispatchMs))
			for _, set := range []*schedtrace.HoldSides{&res.Holds.All, &res.Holds.Slow} {
				if set == &res.Holds.Slow && d.HubWaitMs < schedtrace.SlowWaitMs {
					continue
				}
				set.Tasks++
				set.Hub.Add(d.HubHolds, hubPlaced)
				set.Sim.Add(d.SimHolds, s.jobs[n].sentAt*1000)
			}
		}
		res.Dispatches[i] = d
	}
	if learns {
		for i, l := range tr.Learnt {
			if !probed[i] { // after the replay's end: as it ended
				learnt[i] = learntAt(l.AtMs, est.Estimates())
			}
			res.Learnt = append(res.Learnt, schedtrace.LearntPair{Hub: l, Sim: learnt[i]})
		}
	}
	res.All = replayRow("all", all.hub, all.sim)
	res.Placed, res.Delivery = waitStats(placed), waitStats(delivery)
	res.Windows = replayWindows(res.Dispatches)
	if len(tr.Faults) > 0 {
		r := beforeFaults(res.Dispatches, tr.Faults[0].AtMs)
		res.BeforeFaults = &r
	}
	if len(tr.Passes) > 0 {
		res.Passes = passWindows(tr.Passes, s.ran)
	}
	for i, id := range ids {
		res.Judges = append(res.Judges, replayRow(id, byID[i].hub, byID[i].sim))
	}
	for k, name := range classes {
		res.Classes = append(res.Classes, replayRow(name, byClass[k].hub, byClass[k].sim))
	}
	return res, nil
}

// learntAt is a policy's estimates as the trace holds them.
func learntAt(atMs int64, e sched.CostEstimates) schedtrace.Learnt {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return schedtrace.Learnt{AtMs: atMs, WarmMs: ms(e.Warm), ColdMs: ms(e.Cold), FetchMs: ms(e.Fetch), SpeedLo: e.SpeedLo, SpeedHi: e.SpeedHi}
}

// replayWindows is the comparison of the tasks enqueued in each
// schedtrace.WindowMs of the run, in time order.
func replayWindows(ds []ReplayDispatch) []ReplayRow {
	by := map[int64]*struct{ hub, sim []float64 }{}
	for _, d := range ds {
		w := by[d.AtMs/schedtrace.WindowMs]
		if w == nil {
			w = &struct{ hub, sim []float64 }{}
			by[d.AtMs/schedtrace.WindowMs] = w
		}
		if d.HubJudge != "" {
			w.hub = append(w.hub, d.HubWaitMs)
		}
		if d.SimJudge != "" {
			w.sim = append(w.sim, d.SimWaitMs)
		}
	}
	keys := slices.Sorted(maps.Keys(by))
	rows := make([]ReplayRow, 0, len(keys))
	for _, k := range keys {
		r := replayRow(fmt.Sprint(time.Duration(k*schedtrace.WindowMs)*time.Millisecond), by[k].hub, by[k].sim)
		r.FromMs = k * schedtrace.WindowMs
		rows = append(rows, r)
	}
	return rows
}

// beforeFaults is the comparison of the tasks enqueued before atMs, the
// trace's first fault, which the simulator does not model.
func beforeFaults(ds []ReplayDispatch, atMs int64) ReplayRow {
	var hub, sim []float64
	for _, d := range ds {
		if d.AtMs >= atMs {
			continue
		}
		if d.HubJudge != "" {
			hub = append(hub, d.HubWaitMs)
		}
		if d.SimJudge != "" {
			sim = append(sim, d.SimWaitMs)
		}
	}
	return replayRow("before the faults", hub, sim)
}

// recordedPasses is a trace's passes as the simulator takes them (s).
func recordedPasses(ps []schedtrace.Pass) []RecordedPass {
	out := make([]RecordedPass, len(ps))
	for i, p := range ps {
		out[i] = RecordedPass{At: float64(p.AtUs) / 1e6, Took: float64(p.TookUs) / 1e6, Placed: p.Placed}
	}
	return out
}

// passWindows sets the hub's passes (the trace's) beside the replay's,
// by the schedtrace.WindowMs they began in, in time order.
func passWindows(hub []schedtrace.Pass, sim []RecordedPass) []schedtrace.PassWindow {
	by := map[int64]*schedtrace.PassWindow{}
	at := func(ms int64) *schedtrace.PassWindow {
		k := ms / schedtrace.WindowMs
		w := by[k]
		if w == nil {
			w = &schedtrace.PassWindow{FromMs: k * schedtrace.WindowMs}
			by[k] = w
		}
		return w
	}
	for _, p := range hub {
		at(p.AtUs/1000).Hub.Add(float64(p.TookUs)/1000, p.Placed)
	}
	for _, p := range sim {
		at(int64(p.At*1000)).Sim.Add(p.Took*1000, p.Placed)
	}
	out := make([]schedtrace.PassWindow, 0, len(by))
	for _, k := range slices.Sorted(maps.Keys(by)) {
		out = append(out, *by[k])
	}
	return out
}

func ms(s float64) int64 { return int64(math.Round(s * 1000)) }

// runningMean is the count and mean of the values added so far.
type runningMean struct {
	n    int
	mean float64
}

func (m *runningMean) add(v float64) {
	m.n++
	m.mean += (v - m.mean) / float64(m.n)
}

// judgeGroups returns the distinct judge ids in trace order, each
// connection's class index and the class names ("8 slots × 1.5"), fastest
// (then widest) first.
func judgeGroups(js []schedtrace.Judge) (ids []string, classOf []int, classes []string) {
	type class struct {
		slots int
		speed float64
	}
	seen := map[string]bool{}
	var cs []class
	for _, j := range js {
		if !seen[j.ID] {
			seen[j.ID] = true
			ids = append(ids, j.ID)
		}
		c := class{j.Slots, j.Speed}
		if !slices.Contains(cs, c) {
			cs = append(cs, c)
		}
	}
	slices.SortFunc(cs, func(a, b class) int {
		if c := cmp.Compare(b.speed, a.speed); c != 0 {
			return c
		}
		return cmp.Compare(b.slots, a.slots)
	})
	for _, c := range cs {
		classes = append(classes, fmt.Sprintf("%d slots × %g", c.slots, c.speed))
	}
	for _, j := range js {
		classOf = append(classOf, slices.Index(cs, class{j.Slots, j.Speed}))
	}
	return ids, classOf, classes
}

// connection is the index of judge id's connection at (or, for clock
// noise, nearest to) atMs.
func connection(js []schedtrace.Judge, id string, atMs int64) int {
	best, bestD := -1, int64(math.MaxInt64)
	for i, j := range js {
		if j.ID != id {
			continue
		}
		var d int64
		switch {
		case atMs < j.JoinMs:
			d = j.JoinMs - atMs
		case j.LeaveMs != 0 && atMs >= j.LeaveMs:
			d = atMs - j.LeaveMs + 1
		}
		if d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

func waitStats(xs []float64) WaitStats {
	if len(xs) == 0 {
		return WaitStats{}
	}
	d := Summarise(slices.Clone(xs))
	return WaitStats{Count: len(xs), MeanMs: d.Mean, P99Ms: d.P99}
}

func replayRow(name string, hub, sim []float64) ReplayRow {
	r := ReplayRow{Name: name, Hub: waitStats(hub), Sim: waitStats(sim)}
	both := r.Hub.Count > 0 && r.Sim.Count > 0
	gap := func(h, s float64) *float64 {
		switch {
		case !both || (h == 0 && s != 0):
			return nil
		case h == 0:
			return new(0.0)
		}
		return new((s - h) / h * 100)
	}
	r.MeanGapPct, r.P99GapPct = gap(r.Hub.MeanMs, r.Sim.MeanMs), gap(r.Hub.P99Ms, r.Sim.P99Ms)
	differs := func(g *float64, h, s float64) bool {
		return math.Abs(s-h) >= ReplayGapFloorMs && (g == nil || math.Abs(*g) > ReplayGapLimit)
	}
	r.Differs = both && (differs(r.MeanGapPct, r.Hub.MeanMs, r.Sim.MeanMs) || differs(r.P99GapPct, r.Hub.P99Ms, r.Sim.P99Ms))
	return r
}

// WriteReplayTable writes r as a plain-text table: per judge, then per
// class, then all; "!" marks a row whose gap exceeds ReplayGapLimit.
func WriteReplayTable(w io.Writer, r ReplayResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "judge\ttasks hub\ttasks sim\thub mean ms\thub p99 ms\tsim mean ms\tsim p99 ms\tgap mean %%\tgap p99 %%\t\n")
	row := func(x ReplayRow) {
		mark := ""
		if x.Differs {
			mark = "!"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", x.Name, x.Hub.Count, x.Sim.Count,
			msCell(x.Hub), p99Cell(x.Hub), msCell(x.Sim), p99Cell(x.Sim), pct(x.MeanGapPct), pct(x.P99GapPct), mark)
	}
	for _, x := range r.Judges {
		row(x)
	}
	if len(r.Classes) > 1 {
		for _, x := range r.Classes {
			row(x)
		}
	}
	row(r.All)
	if r.BeforeFaults != nil {
		row(*r.BeforeFaults) // the faults the simulator does not model
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("sim: replay table: %w", err)
	}
	m := r.Model
	lat := fmt.Sprintf("passes %.2f ms, results handled %.2f ms late", m.PassMs, m.ResultMs)
	if m.LatencyWindows > 0 {
		lat = fmt.Sprintf("passes and results handled as late as the hub's own over each of %d windows, %d of them drawn from the hub's histograms (before the first: %.2f ms and %.2f ms)",
			m.LatencyWindows, m.LatencySpreads, m.PassMs, m.ResultMs)
	}
	if m.WakeWindows > 0 {
		lat += fmt.Sprintf(", passes the idle dispatcher was woken for started as late as the hub's over %d windows", m.WakeWindows)
	}
	if m.NoticeWindows > 0 {
		lat += fmt.Sprintf(", arrivals woke the dispatcher as late as the hub's notices reached it over %d windows", m.NoticeWindows)
	}
	if m.OwnNotices > 0 {
		lat += fmt.Sprintf(", %d tasks' arrivals as late as the hub read their own notice, %.1f ms on average after the enqueue (%d the hub placed before their notice came drew theirs, no earlier than that placement)",
			m.OwnNotices, m.OwnNoticeMeanMs, m.NoticesAfterPlacing)
	}
	if m.IdleWindows > 0 {
		lat += fmt.Sprintf(", passes that placed nothing held the dispatcher as long as the hub's over %d windows", m.IdleWindows)
	}
	if m.PassMomentMs > 0 && m.LatencySpreads > 0 && m.RecordedPasses == 0 {
		lat += fmt.Sprintf(", the passes of each %d ms drawn alike", m.PassMomentMs)
	}
	if m.RecordedPasses > 0 {
		lat += fmt.Sprintf(", each pass as long as the hub's of its kind (placing, or placing nothing) nearest in time, of %d recorded (%d missed)", m.RecordedPasses, m.PassesLost)
	}
	if m.Holds > 0 {
		lat += fmt.Sprintf(", %d tasks' slots held %.1f ms on average after their work (the judge's own time, as recorded)", m.Holds, m.HoldMeanMs)
	}
	if m.OwnSlotTimes > 0 {
		lat += fmt.Sprintf(", %d tasks' results freed their slot as late as the hub's own did, %.1f ms on average after leaving the judge (the rest drew theirs from their window)", m.OwnSlotTimes, m.OwnSlotMeanMs)
	}
	if r.Placed.Count > 0 {
		if _, err := fmt.Fprintf(w, "\nthe hub's wait, split (%d tasks): enqueue → start of the pass that placed it mean %.1f ms, p99 %.1f ms "+
			"(what the simulator's wait models); that start → the push at the judge mean %.1f ms, p99 %.1f ms\n",
			r.Placed.Count, r.Placed.MeanMs, r.Placed.P99Ms, r.Delivery.MeanMs, r.Delivery.P99Ms); err != nil {
			return fmt.Errorf("sim: replay table: %w", err)
		}
	}
	if s := r.Holds.Summary(); s != "" {
		if _, err := fmt.Fprintf(w, "\n%s\n", s); err != nil {
			return fmt.Errorf("sim: replay table: %w", err)
		}
	}
	_, err := fmt.Fprintf(w, "\npolicy %s; %d tasks, %d with a recorded dispatch (%d pushed before their recorded enqueue: wait 0), "+
		"%d background tasks run but not compared; "+
		"simulator: %d never dispatched, %d requeued, %d lost; heartbeat %d ms, lease %d ms, tick %d ms, window %d, "+
		"cache %d problems, downloads %s, %s, reserve %g, seed %d\n",
		r.Policy, r.Tasks, r.Recorded, r.Early, r.Background, r.Undispatched, r.Requeues, r.Lost,
		m.HeartbeatMs, m.LeaseMs, m.DispatchTickMs, m.PeekWindow, m.CacheProblems, m.Download, lat, m.Reserve, m.Seed)
	if err != nil {
		return fmt.Errorf("sim: replay table: %w", err)
	}
	return nil
}

func msCell(s WaitStats) string {
	if s.Count == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", s.MeanMs)
}

func p99Cell(s WaitStats) string {
	if s.Count == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", s.P99Ms)
}

func pct(g *float64) string {
	if g == nil {
		return "–"
	}
	return fmt.Sprintf("%+.1f", *g)
}

// latencyWindows is a trace's latency windows in the simulator's seconds,
// with their spreads where the trace has the histograms.
func latencyWindows(ws []schedtrace.LatencyWindow) []LatencyWindow {
	if len(ws) == 0 {
		return nil
	}
	out := make([]LatencyWindow, len(ws))
	for i, w := range ws {
		out[i] = LatencyWindow{From: float64(w.AtMs) / 1000, Pass: w.PassMs / 1000, Result: w.ResultMs / 1000,
			PassDist: latencyDist(w.PassHist, w.PassMs), ResultDist: latencyDist(w.ResultHist, w.ResultMs),
			Wake: w.WakeMs / 1000, WakeDist: latencyDist(w.WakeHist, w.WakeMs),
			Idle: w.IdleMs / 1000, IdleDist: latencyDist(w.IdleHist, w.IdleMs),
			Notice: w.NoticeMs / 1000, NoticeDist: latencyDist(w.NoticeHist, w.NoticeMs)}
	}
	return out
}

// countWindows counts the windows for which has holds.
func countWindows(ws []LatencyWindow, has func(w *LatencyWindow) bool) int {
	n := 0
	for i := range ws {
		if has(&ws[i]) {
			n++
		}
	}
	return n
}

// The windows with a wake latency, with an idle pass latency, and with a
// pass or a result spread.
func hasWake(w *LatencyWindow) bool   { return w.Wake > 0 || w.WakeDist != nil }
func hasIdle(w *LatencyWindow) bool   { return w.Idle > 0 || w.IdleDist != nil }
func hasNotice(w *LatencyWindow) bool { return w.Notice > 0 || w.NoticeDist != nil }
func hasSpread(w *LatencyWindow) bool { return w.PassDist != nil || w.ResultDist != nil }

// latencyDist is a trace window's histogram (ms) whose mean was meanMs as
// the simulator's distribution (s); nil without one.
func latencyDist(h *schedtrace.Hist, meanMs float64) *LatencyDist {
	if h == nil {
		return nil
	}
	bounds := make([]float64, len(h.BoundsMs))
	for i, b := range h.BoundsMs {
		bounds[i] = b / 1000
	}
	return NewLatencyDist(bounds, h.Counts, meanMs/1000)
}

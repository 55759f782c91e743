package rehearsal

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// trace is the contest as the scheduling simulator replays it: every
// judge connection, and every submission's first attempt with when it
// was enqueued (the queue's time, sent by the hub with the push; from a
// hub that does not send it, the row's created_at from the POST's answer,
// MySQL's clock on this machine, just before the web node enqueues), its
// simulated work at speed 1, when and where the real hub first pushed it
// (and when the pass that placed it began) and how long that judge held
// its slot.
//
// Until 2026-12-04 the trace took the answer's arrival at the browser for
// the enqueue: on a loaded machine it came a median 11 s after the row
// (a retry's answer, the first lost, minutes after), while the hub had
// long pushed the task; the replay started those tasks' clocks late. Attempts after the first
// (rejudges, requeues after a fault) are left out.
func (r *run) trace() schedtrace.Trace {
	p := r.judges
	ms := func(t time.Time) int64 { return max(0, t.Sub(r.start).Milliseconds()) }
	tr := schedtrace.Trace{Start: r.start}
	r.logMu.Lock()
	tr.Faults = slices.Clone(r.faultsAt)
	r.logMu.Unlock()
	slices.SortFunc(tr.Faults, func(a, b schedtrace.Fault) int { return cmp.Compare(a.AtMs, b.AtMs) })
	p.mu.Lock()
	for _, s := range p.spans {
		j := schedtrace.Judge{ID: s.id, Slots: s.slots, Speed: s.speed, JoinMs: ms(s.joined), Warm: warmAt(s, r.start)}
		if !s.left.IsZero() {
			j.LeaveMs = max(ms(s.left), j.JoinMs+1)
		}
		tr.Judges = append(tr.Judges, j)
	}
	first := make(map[int64]firstAttempt, len(p.first))
	for id, f := range p.first {
		first[id] = *f
	}
	// Later attempts are background work, enqueued when the queue says
	// (the hub sends it with each push): a rejudge's at its priority, a
	// requeue's (a lease expired) at the contest's. From a hub that does
	// not send it, a rejudge's is enqueued when staff asked for it and a
	// requeue's when first pushed. Until 2026-12-04 every rejudge took the
	// staff's ask: 2,271 tasks at one instant, which the rejudge job had
	// enqueued over minutes.
	for ref, f := range p.later {
		if ref.Attempt < 2 || f.work == 0 {
			continue
		}
		at, prio := cmp.Or(f.enqueued, f.pushed), protocol.PriorityContest
		if !p.rejudgeAt.IsZero() && !f.pushed.Before(p.rejudgeAt) {
			at, prio = cmp.Or(f.enqueued, p.rejudgeAt), protocol.PriorityRejudge
		}
		tr.Background = append(tr.Background, schedtrace.Task{SubmissionID: ref.SubmissionID, AtMs: ms(at), ProblemID: f.problemID,
			DataHash: f.dataHash, Language: f.language, Priority: int(prio), WorkMs: max(1, f.work.Milliseconds()),
			CompileMs: compileMs(f.work, f.compile)})
	}
	p.mu.Unlock()
	slices.SortFunc(tr.Background, func(a, b schedtrace.Task) int {
		return cmp.Or(cmp.Compare(a.AtMs, b.AtMs), cmp.Compare(a.SubmissionID, b.SubmissionID))
	})
	r.subsMu.Lock()
	for id, s := range r.subs {
		f, ok := first[id]
		if !ok || f.work == 0 {
			continue
		}
		// The slot's time on the judge first pushed it, where that
		// judge ran it (one that refused it busy held no slot).
		// And the hub's time from that result's sending to its slot free
		// (its ack said).
		var held int64
		var slot float64
		if !f.started.IsZero() && f.result.After(f.started) && f.resultOn == f.judge {
			held = max(1, f.result.Sub(f.started).Milliseconds())
			slot = min(f.slotMs, schedtrace.MaxLatencyMs) // Validate's bound: a minute's stall is no way the replay can use
		}
		// Enqueued: the queue's own time, which the hub sends with the
		// push; from a hub that does not, just after the row was
		// created (the server's clock), or the answer's arrival where
		// the answer had no time.
		at := s.acked
		if !s.created.IsZero() && s.created.Before(at) {
			at = s.created
		}
		if !f.enqueued.IsZero() {
			at = f.enqueued
		}
		var placed, noticed int64
		if !f.placed.IsZero() {
			placed = max(1, ms(f.placed)) // 0 is "not recorded"
		}
		if !f.noticed.IsZero() {
			noticed = max(1, ms(f.noticed))
		}
		var holds *schedtrace.Holds
		if h := f.held; h != nil {
			holds = &schedtrace.Holds{Busy: h.Busy, NoJudge: h.NoJudge, Affinity: h.Affinity, Reserve: h.Reserve}
			if h.Affinity > 0 {
				holds.AffinityMs = max(1, ms(time.UnixMilli(h.AffinityMs)))
			}
		}
		tr.Tasks = append(tr.Tasks, schedtrace.Task{
			SubmissionID: id, AtMs: ms(at), ProblemID: f.problemID, DataHash: f.dataHash, Language: f.language,
			Priority: int(protocol.PriorityContest), WorkMs: max(1, f.work.Milliseconds()), CompileMs: compileMs(f.work, f.compile),
			DispatchMs: ms(f.pushed), JudgeID: f.judge, HeldMs: held, PlacedMs: placed, NoticedMs: noticed, SlotMs: slot, Holds: holds,
		})
	}
	r.subsMu.Unlock()
	sort.Slice(tr.Tasks, func(i, j int) bool {
		a, b := tr.Tasks[i], tr.Tasks[j]
		return a.AtMs < b.AtMs || (a.AtMs == b.AtMs && a.SubmissionID < b.SubmissionID)
	})
	return tr
}

// warmAt is the test data a judge's connection held at start: what it had
// downloaded and verified by then (the hub warms connected judges before a
// contest starts), sorted. A connection made after start lists what it
// held when it connected, which for a simulated judge (no disk cache) is
// nothing.
func warmAt(s judgeSpan, start time.Time) []string {
	at := start
	if s.joined.After(at) {
		at = s.joined
	}
	var hs []string
	for h, t := range s.ready {
		if !t.After(at) {
			hs = append(hs, h)
		}
	}
	sort.Strings(hs)
	return hs
}

// writeTrace writes the trace to path.
func (r *run) writeTrace(path string, tr schedtrace.Trace) error {
	var b bytes.Buffer
	if err := schedtrace.Write(&b, tr); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("rehearsal: trace: %w", err)
	}
	return nil
}

// simVersusHub writes the trace and has the scheduling simulator replay
// it, for the report's sim-versus-hub table.
func (r *run) simVersusHub(ctx context.Context, rep *Report) {
	if r.cfg.NoReplay {
		return
	}
	path := r.cfg.TraceFile
	if path == "" {
		path = filepath.Join(os.TempDir(), "rehearsal-trace.json")
	}
	tr := r.trace()
	rep.Faulted = tr.Faults
	// The hub's own dispatch pass latency, so the replay's passes take as
	// long as the hub's did (the hub's recorded waits include them).
	if m, err := r.hubMetrics(ctx); err != nil {
		rep.PassErr = err.Error()
	} else {
		if mean, n, err := obs.HistogramMean(strings.NewReader(m), obs.HubDispatchPassSeconds); err != nil {
			rep.PassErr = err.Error()
		} else if n > 0 {
			tr.PassMs, rep.Passes = mean*1000, n
		}
		// How long judges' messages waited for the hub's handler (the
		// report's), and how long a result took from its judge to free its
		// slot in the hub's accounting (the replay's: it frees the slot
		// that long after the result leaves its judge).
		if mean, n, err := obs.HistogramMean(strings.NewReader(m), obs.HubJudgeMessageWaitSeconds); err == nil && n > 0 {
			rep.JudgeMsgWaitMs, rep.JudgeMsgs = mean*1000, n
		}
		if mean, n, err := obs.HistogramMean(strings.NewReader(m), obs.HubResultSlotSeconds); err == nil && n > 0 {
			rep.ResultSlotMs, rep.Results = mean*1000, n
			tr.ResultMs = rep.ResultSlotMs
		}
		// The hub's own view of the wait the replay is compared on, up
		// to the start of the pass that placed each task.
		if h, err := obs.ReadHistogram(strings.NewReader(m), obs.HubQueueWaitSeconds); err == nil && h.Count > 0 {
			rep.HubWait = &HubWait{N: int64(h.Count), MeanMs: h.Mean() * 1000, P99AtMostMs: h.UpperQuantile(0.99) * 1000}
		}
		// And of its dispatcher's wait for a core: a wake that found it
		// idle → the pass it started (the simulator starts it at once).
		if h, err := obs.ReadHistogram(strings.NewReader(m), obs.HubDispatchWakeSeconds); err == nil && h.Count > 0 {
			rep.HubWake = &HubWait{N: int64(h.Count), MeanMs: h.Mean() * 1000, P99AtMostMs: h.UpperQuantile(0.99) * 1000}
		}
		// And of its enqueues' notices' way to it, which delays the wake.
		if h, err := obs.ReadHistogram(strings.NewReader(m), obs.HubQueueNoticeSeconds); err == nil && h.Count > 0 {
			rep.HubNotice = &HubWait{N: int64(h.Count), MeanMs: h.Mean() * 1000, P99AtMostMs: h.UpperQuantile(0.99) * 1000}
		}
		// The reserve of slots its rejudges left free (the replay keeps
		// the same), and how often it held one for it.
		v := metricValues(strings.NewReader(m))
		tr.Reserve = v[obs.HubDispatchReserve]
		rep.ReserveHolds = int64(v[obs.HubReserveHolds])
		// And of its passes that placed nothing, which hold it too.
		if h, err := obs.ReadHistogram(strings.NewReader(m), obs.HubDispatchIdlePassSeconds); err == nil && h.Count > 0 {
			rep.HubIdle = &HubWait{N: int64(h.Count), MeanMs: h.Mean() * 1000, P99AtMostMs: h.UpperQuantile(0.99) * 1000}
		}
	}
	// And both as they varied over the run.
	tr.Latency = latencyWindows(r.hubSamples, r.start, tr.PassMs, tr.ResultMs)
	tr.Learnt = learntSeries(r.hubSamples, r.start)
	// And every pass the hub ran, one by one.
	tr.Passes, tr.PassesLost = tracePasses(r.passes.passes, r.start), r.passes.lost
	if r.passes.err != nil {
		rep.PassLogErr = r.passes.err.Error()
	}
	for _, j := range tr.Judges {
		if j.JoinMs == 0 {
			rep.StartJudges++
			if len(j.Warm) > 0 {
				rep.WarmJudges++
			}
			rep.WarmHashes += len(j.Warm)
		}
	}
	if err := r.writeTrace(path, tr); err != nil {
		rep.ReplayErr = err.Error()
		return
	}
	rep.TraceFile = path
	cs, err := r.replay(ctx, path, spreadSeeds)
	if err != nil {
		rep.ReplayErr = err.Error()
		return
	}
	rep.Replay = &cs[0]
	rep.ReplaySpread = seedSpread(cs)
}

// spreadSeeds is how many seeds the trace is replayed with: the first's
// comparison is the report's table, all of them the spread of the
// simulator's own draws (its policy's ties, the judges' heartbeat phases,
// the latencies drawn from the hub's histograms) beside the gap.
const spreadSeeds = 10

// hubMetrics reads the hub's /metrics (the Prometheus text exposition).
func (r *run) hubMetrics(ctx context.Context) (string, error) {
	return metricsText(ctx, r.env.Stack.Config().HubPort)
}

// replay runs the scheduling simulator on the trace file with seeds 1 to
// seeds (the checkout's sim command, built once) and returns its
// comparisons, in seed order.
func (r *run) replay(ctx context.Context, path string, seeds int) ([]schedtrace.Comparison, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "verdict-rehearsal-sim-")
	if err != nil {
		return nil, fmt.Errorf("rehearsal: replay: %w", err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "sim")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./hub/internal/sched/sim/cmd/sim")
	build.Dir = r.cfg.Root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("rehearsal: build the simulator: %w: %s", err, out)
	}
	cs := make([]schedtrace.Comparison, 0, seeds)
	for seed := 1; seed <= seeds; seed++ {
		cmd := exec.CommandContext(ctx, bin, "-replay", path, "-json", "-seed", strconv.Itoa(seed))
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("rehearsal: replay in the simulator (seed %d): %w: %s", seed, err, errb.Bytes())
		}
		var c schedtrace.Comparison
		if err := json.Unmarshal(out.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("rehearsal: the simulator's answer (seed %d): %w", seed, err)
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// compileMs is the part of a task's work spent compiling, ms, within the
// work as the trace holds it: the replay leaves it out of the run time
// its policy learns from, as the hub's does (a result's case times leave
// the compile out).
func compileMs(work, compile time.Duration) int64 {
	return min(compile.Milliseconds(), max(1, work.Milliseconds()))
}

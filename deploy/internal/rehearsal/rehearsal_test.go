package rehearsal

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestShortRehearsal is the rehearsal make test runs: 200 contestants, 60
// of them behind one NAT address, a 5-hour contest in 90 seconds with the
// board frozen for its last minute (a contest's freeze is whole minutes),
// simulated judges, two web nodes, the faults of --faults. It asserts
// correctness only — no unexpected error (the faults' own failures are
// provoked), none lost or doubled, every verdict as planned and on its
// owner's socket, every browser's board equal to the one rebuilt from
// MySQL — never timings.
//
// Until 2026-12-02 it played the contest in 2.5 minutes (120×) with 10
// submissions and 6 reloads per contestant planned. At 200× a contestant
// plans 5 and 3.6, so that the stack gets about the same load per real
// second as before (planned submissions a second: 10.5 on average, 24 in
// the rush, 950 in all; before 11.5, 21 and 1,726; page reloads 8 a second
// both times) for 60 s less of it.
func TestShortRehearsal(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	s := DefaultShape()
	s.Contestants, s.NATLab = 200, 60
	s.PerContestant, s.Reloads = 5, 3.6
	// With the faults: a web node killed and started again 20 s later, a
	// judge killed, Redis restarted, all in the last 25 minutes (7.5 s).
	// Until 2026-12-07 no test played them; the first run found a judge's
	// kill and Redis's restart played after the end (behind the web
	// node's 20 s down), every socket cut by the edge's two reloads, and
	// six verdicts that never reached their owners (the hub's pub/sub
	// back after Redis's restart without what was published meanwhile).
	s.Faults = true
	var progress, stackOut syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Config{Shape: s, Compress: 200, ArrivalCompress: 60, Root: root, Out: &progress, StackOut: &stackOut,
		CheckBoards: 200, Sample: 50})
	if err != nil {
		t.Fatalf("%v\n%s", err, tail(stackOut.String(), 4000))
	}
	md := rep.Markdown()
	t.Log("\n" + progress.String() + "\n" + md)
	if rep.Submitted < rep.Plan.Submissions*9/10 {
		t.Errorf("%d submissions acknowledged of %d planned", rep.Submitted, rep.Plan.Submissions)
	}
	if rep.Logins != s.Contestants {
		t.Errorf("%d of %d contestants logged in", rep.Logins, s.Contestants)
	}
	questions := false
	for _, c := range rep.Checks {
		if !c.OK {
			t.Errorf("check failed: %s: %s", c.What, c.Detail)
		}
		questions = questions || strings.Contains(c.What, "questions acknowledged")
	}
	// The questions were posted with their keys and checked against MySQL.
	if !questions && rep.Plan.Questions > 0 {
		t.Errorf("no check of the %d planned questions", rep.Plan.Questions)
	}
	for _, f := range rep.Unexpected {
		t.Errorf("unexpected failure: %s × %d", f.Failure, f.N)
	}
	// Every fault was played, each before the contest's end, and none
	// failed to be provoked.
	if len(rep.Faults) != 4 || strings.Contains(strings.Join(rep.Faults, "; "), "failed") {
		t.Errorf("faults: %q, want the web node killed and started again, the judge killed and Redis restarted", rep.Faults)
	}
	for _, f := range rep.Faults {
		if strings.Contains(f, "contest time 5h") && !strings.Contains(f, "started again") {
			t.Errorf("a fault played after the contest's end: %s", f)
		}
	}
	for _, f := range rep.Shed {
		if f.Status == 429 {
			t.Errorf("the NAT lab was rate limited: %s × %d", f.Failure, f.N)
		}
	}
	// The replay ran, with the judges' caches at the start as recorded:
	// the hub warmed every judge before the start.
	// It held the slots the judges' own time beyond the work, as the
	// trace recorded it (a judge's timers never fire early: every task
	// takes its work and a little more).
	if rep.Replay == nil {
		t.Errorf("no replay: %s", rep.ReplayErr)
	} else {
		if rep.Replay.Model.Holds == 0 {
			t.Errorf("the replay held no slot beyond the work: the trace has no held_ms")
		}
		// And each first attempt's result freed its slot as late as the
		// hub took for it (the hub's result_ack says): every judged first
		// attempt the hub acknowledged has it (949 of 949 on 2026-12-04).
		if m := rep.Replay.Model; m.OwnSlotTimes < rep.Submitted*9/10 || m.OwnSlotMeanMs <= 0 {
			t.Errorf("the replay took the hub's own slot time for %d results (mean %v ms) of %d submissions: the trace's slot_ms is missing", m.OwnSlotTimes, m.OwnSlotMeanMs, rep.Submitted)
		}
		// The trace's enqueue is the queue's own, sent by the hub with
		// each push: no judge can have the task before it, on a clock
		// this machine shares with Redis. Each push also says when the
		// pass that placed it began: the hub's wait is split there.
		// Beside it, the hub's own measure of its dispatches' waits.
		if rep.HubWait == nil || rep.HubWait.N < int64(rep.Submitted) {
			t.Errorf("the hub's wait histogram: %+v, want one dispatch at least per submission (%d)", rep.HubWait, rep.Submitted)
		} else if !strings.Contains(md, "The hub's own measure of the wait") {
			t.Errorf("the report does not give the hub's own wait")
		}
		// The replay ran with several seeds: the report gives the
		// simulator's own spread beside the gap.
		if sp := rep.ReplaySpread; sp == nil || sp.Seeds != spreadSeeds {
			t.Errorf("the replay's seed spread: %+v, want %d seeds", sp, spreadSeeds)
		} else if !strings.Contains(md, "Replayed with seeds 1 to") {
			t.Errorf("the report does not give the replay's seed spread")
		}
		// Each push said when the hub read its enqueue's notice: the
		// replay woke its dispatcher as late for most first attempts
		// (those the hub placed before their notice came draw theirs).
		if m := rep.Replay.Model; m.OwnNotices < rep.Submitted/2 || m.OwnNotices+m.NoticesAfterPlacing < rep.Submitted*9/10 ||
			!strings.Contains(md, "as long after the enqueue as the hub read that very notice") {
			t.Errorf("the replay took the hub's own notice for %d tasks and a bound for %d of %d submissions; the report says so: %v",
				m.OwnNotices, m.NoticesAfterPlacing, rep.Submitted, strings.Contains(md, "as long after the enqueue as the hub read that very notice"))
		}
		// The holds of both sides' passes are set side by side for every
		// task both placed; where the hub's pushes told any (a pass held
		// a task), the report says why they waited.
		if h := rep.Replay.Holds; h.All.Tasks < rep.Submitted*9/10 || h.All.Hub.Never+h.All.Hub.Busy+h.All.Hub.Affinity+h.All.Hub.NoJudge < h.All.Tasks {
			t.Errorf("holds compared for %d tasks of %d submissions: %+v", h.All.Tasks, rep.Submitted, h)
		} else if h.Told != strings.Contains(md, "Why they waited") {
			t.Errorf("the hub told its holds: %v; the report says why they waited: %v", h.Told, strings.Contains(md, "Why they waited"))
		}
		// Where the overhead's tail was due, with its parts.
		if rep.OverheadTailN == 0 || len(rep.OverheadTail) == 0 || !strings.Contains(md, "overheads above the p99") {
			t.Errorf("the overhead's tail: %d above the p99 in %d windows; the report says so: %v", rep.OverheadTailN, len(rep.OverheadTail),
				strings.Contains(md, "overheads above the p99"))
		}
		// The faults, which the simulator does not model, reached the
		// trace: the comparison sets apart the tasks before the first.
		if b := rep.Replay.BeforeFaults; len(rep.Faulted) != 3 || b == nil || b.Hub.Count == 0 || b.Hub.Count >= rep.Replay.All.Hub.Count ||
			!strings.Contains(md, "enqueued before the first fault") {
			t.Errorf("faults in the trace %v; the comparison before them %+v of %d; the report says so: %v", rep.Faulted, b,
				rep.Replay.All.Hub.Count, strings.Contains(md, "enqueued before the first fault"))
		}
		if rep.Replay.Early != 0 {
			t.Errorf("%d tasks pushed before their enqueue: the trace's enqueue times are not the server's", rep.Replay.Early)
		}
		if rep.HubWake == nil || rep.HubWake.N == 0 {
			t.Errorf("the hub's wake histogram was not read: %+v", rep.HubWake)
		}
		// Its passes that placed nothing too, and the replay held its
		// dispatcher as long for its own, window by window.
		if rep.HubIdle == nil || rep.HubIdle.N == 0 {
			t.Errorf("the hub's idle pass histogram was not read: %+v", rep.HubIdle)
		} else if rep.Replay.Model.IdleWindows == 0 || !strings.Contains(md, "dispatch passes that placed nothing") {
			t.Errorf("the replay took the idle passes of %d windows; the report says so: %v", rep.Replay.Model.IdleWindows,
				strings.Contains(md, "dispatch passes that placed nothing"))
		}
		// Each result freed its slot when the hub read it, timed: the
		// replay's result latency is that wait.
		if rep.Results < int64(rep.Submitted) {
			t.Errorf("the hub timed %d results freeing their slots, want one at least per submission (%d)", rep.Results, rep.Submitted)
		}
		// The hub's reserve of slots for the contest reached the trace
		// and the replay, and the report says so.
		if m := rep.Replay.Model; m.Reserve != 0.125 || !strings.Contains(md, "`--dispatch-reserve`") {
			t.Errorf("the replay kept a reserve of %v (want the hub's default, 0.125); the report says so: %v", m.Reserve,
				strings.Contains(md, "`--dispatch-reserve`"))
		}
		// What the hub's policy learnt reached the trace, and the replay
		// set its own beside it. Both learn the compile (300 ms on the
		// simulated judges) as overhead, not as run time: a result's
		// case times leave it out in the hub, and the trace's compile_ms
		// in the replay.
		if n := len(rep.Replay.Learnt); n == 0 || !strings.Contains(md, "What the policy had learnt") {
			t.Errorf("%d learnt readings side by side; the report has them: %v", n, strings.Contains(md, "What the policy had learnt"))
		} else if last := rep.Replay.Learnt[n-1]; last.Hub.WarmMs < 290 || last.Sim.WarmMs < 290 {
			t.Errorf("the warm overheads learnt: hub %v ms, replay %v ms; want each at least the 300 ms compile", last.Hub.WarmMs, last.Sim.WarmMs)
		}
		// Every dispatch pass of the hub reached the trace (its pass
		// log), the replay took its passes' latencies from them, and the
		// report sets both sides' passes by window: the hub's placing
		// passes placed every first attempt, the rejudge's and the
		// requeues' tasks too.
		placed := 0
		for _, w := range rep.Replay.Passes {
			placed += w.Hub.Tasks
		}
		if m := rep.Replay.Model; m.RecordedPasses == 0 || m.PassesLost != 0 || rep.PassLogErr != "" || placed < rep.Replay.Recorded ||
			!strings.Contains(md, "The dispatch passes, the hub's (its pass log) beside the replay's") {
			t.Errorf("the replay took %d of the hub's passes (%d lost, last read's error %q), which placed %d tasks of %d recorded dispatches; the report sets them out: %v",
				m.RecordedPasses, m.PassesLost, rep.PassLogErr, placed, rep.Replay.Recorded,
				strings.Contains(md, "The dispatch passes, the hub's (its pass log) beside the replay's"))
		}
		if rep.Replay.Placed.Count != rep.Replay.Recorded || rep.Replay.Delivery.Count != rep.Replay.Recorded {
			t.Errorf("the hub's wait split for %d and %d of %d recorded dispatches, want all", rep.Replay.Placed.Count,
				rep.Replay.Delivery.Count, rep.Replay.Recorded)
		}
	}
	if rep.StartJudges == 0 || rep.WarmJudges != rep.StartJudges || rep.WarmHashes < rep.StartJudges*len(Problems) {
		t.Errorf("warm at the start: %d of %d judges, %d packages (want every judge with every one of the %d problems' data)",
			rep.WarmJudges, rep.StartJudges, rep.WarmHashes, len(Problems))
	}
	if rep.BoardsChecked != s.Contestants {
		t.Errorf("%d boards checked, want every contestant's", rep.BoardsChecked)
	}
	// The hub's memory was read through the contest, with its browsers,
	// and the rush's heap profiles were taken.
	most := 0.0
	for _, m := range rep.HubMemory {
		most = max(most, m.Browsers)
	}
	if len(rep.HubMemory) < 3 || most < float64(s.Contestants)/2 || !strings.Contains(md, "## The hub's memory") {
		t.Errorf("the hub's memory: %d readings, at most %v browsers; the report has it: %v", len(rep.HubMemory), most,
			strings.Contains(md, "## The hub's memory"))
	}
	for _, p := range rep.HeapProfiles {
		if p.Err != "" || !strings.Contains(strings.Join(p.Top, "\n"), "inuse_space") {
			t.Errorf("heap profile of %s: %s %q", p.Process, p.Err, p.Top)
		}
	}
	if len(rep.HeapProfiles) != 2 {
		t.Errorf("%d heap profiles, want the hub's and web-1's", len(rep.HeapProfiles))
	}
	// Redis's account of its commands: every submission went through a
	// script (the queue's), so evalsha is there.
	switch {
	case rep.Redis == nil:
		t.Errorf("Redis's command stats not read: %s", rep.RedisErr)
	case rep.Redis.CPU <= 0 || rep.Redis.NetOut <= 0 || !slices.ContainsFunc(rep.Redis.Commands,
		func(c RedisCommand) bool { return c.Name == "evalsha" && c.Calls >= int64(rep.Submitted) }):
		t.Errorf("Redis's command stats: %+v, want evalsha called at least once a submission (%d)", rep.Redis, rep.Submitted)
	}
	if t.Failed() {
		t.Log(tail(stackOut.String(), 8000))
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := strings.IndexByte(s[len(s)-n:], '\n')
	return s[len(s)-n+i+1:]
}

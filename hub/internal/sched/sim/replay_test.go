package sim

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// steadyTrace: one judge, tasks every gap ms of work ms each.
func steadyTrace(n int, gap, work int64, j schedtrace.Judge) schedtrace.Trace {
	tr := schedtrace.Trace{Judges: []schedtrace.Judge{j}}
	for i := range n {
		tr.Tasks = append(tr.Tasks, schedtrace.Task{SubmissionID: int64(i + 1), AtMs: int64(i) * gap, ProblemID: 1,
			Language: "cpp", Priority: 1, WorkMs: work})
	}
	return tr
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// simWaits returns the simulator's waits by submission id.
func simWaits(r ReplayResult) map[int64]float64 {
	m := map[int64]float64{}
	for _, d := range r.Dispatches {
		if d.SimJudge != "" {
			m[d.SubmissionID] = d.SimWaitMs
		}
	}
	return m
}

func TestReplayOneSlotQueue(t *testing.T) {
	// One slot, a task every 100 ms, each 150 ms of service: task k waits
	// 50·k ms (it starts when task k-1 ends, at 150·k).
	const n = 10
	want := make([]float64, n)
	for k := range want {
		want[k] = 50 * float64(k)
	}
	for _, tc := range []struct {
		name   string
		policy string
		speed  float64
		work   int64
		want   []float64 // nil: every wait 0
	}{
		{"default speed 1", "", 1, 150, want},
		{"default speed 2", "default", 2, 300, want},
		{"default speed 0.5", "default", 0.5, 75, want},
		{"pull", "pull", 1, 150, want},
		{"ideal", Ideal, 1, 150, want},
		// A push balancer never holds: every task is dispatched on arrival
		// and queues at the judge instead.
		{"least_conn pushes at once", "least_conn", 1, 150, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := steadyTrace(n, 100, tc.work, schedtrace.Judge{ID: "a", Slots: 1, Speed: tc.speed})
			r, err := Replay(tr, tc.policy)
			if err != nil {
				t.Fatal(err)
			}
			got := simWaits(r)
			sum := 0.0
			for k := range n {
				w := 0.0
				if tc.want != nil {
					w = tc.want[k]
				}
				sum += w
				if g, ok := got[int64(k+1)]; !ok || !near(g, w) {
					t.Fatalf("task %d: sim wait %v (dispatched %v), want %v", k+1, g, ok, w)
				}
			}
			if r.All.Sim.Count != n || !near(r.All.Sim.MeanMs, sum/n) || r.Undispatched != 0 || r.Requeues != 0 {
				t.Fatalf("all %+v, undispatched %d, requeues %d", r.All, r.Undispatched, r.Requeues)
			}
			if tc.want != nil && !near(r.All.Sim.P99Ms, 400+0.91*50) {
				t.Fatalf("p99 %v", r.All.Sim.P99Ms)
			}
			if len(r.Judges) != 1 || r.Judges[0].Sim != r.All.Sim || r.Judges[0].Name != "a" {
				t.Fatalf("judges %+v", r.Judges)
			}
		})
	}
}

func TestReplayHubSide(t *testing.T) {
	// The hub recorded twice the simulator's waits for the even tasks; the
	// odd ones are not recorded; task 1 was pushed before its POST answered.
	tr := steadyTrace(10, 100, 150, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	for k := range tr.Tasks {
		if k%2 == 0 {
			tr.Tasks[k].JudgeID, tr.Tasks[k].DispatchMs = "a", tr.Tasks[k].AtMs+100*int64(k)
		}
	}
	tr.Tasks[0].AtMs, tr.Tasks[0].DispatchMs = 5, 2
	r, err := Replay(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	// Hub waits 0, 200, 400, 600, 800.
	h := r.All.Hub
	if r.Recorded != 5 || r.Early != 1 || h.Count != 5 || !near(h.MeanMs, 400) || !near(h.P99Ms, 600+0.96*200) {
		t.Fatalf("recorded %d early %d hub %+v", r.Recorded, r.Early, h)
	}
	// The simulator: all ten, mean 225 (task 1 arrives at 5 ms: starts at once,
	// ends at 155; task 2 waits 55 and ends at 305 = 150·2 + 5, …).
	if r.All.Sim.Count != 10 || r.All.MeanGapPct == nil || !r.All.Differs {
		t.Fatalf("all %+v", r.All)
	}
	if g := *r.All.MeanGapPct; !near(g, (r.All.Sim.MeanMs-400)/400*100) {
		t.Fatalf("mean gap %v", g)
	}
	if d := r.Dispatches[0]; d.HubJudge != "a" || d.HubWaitMs != 0 || d.SimJudge != "a" || d.SimWaitMs != 0 {
		t.Fatalf("dispatch 0 %+v", d)
	}
	if d := r.Dispatches[1]; d.HubJudge != "" || d.SimJudge != "a" {
		t.Fatalf("dispatch 1 %+v", d)
	}
}

func TestReplayJoinLeave(t *testing.T) {
	task := func(id, at, work int64) schedtrace.Task {
		return schedtrace.Task{SubmissionID: id, AtMs: at, ProblemID: id, Language: "cpp", Priority: 1, WorkMs: work}
	}
	type want struct {
		judge string
		wait  float64
	}
	for _, tc := range []struct {
		name         string
		judges       []schedtrace.Judge
		tasks        []schedtrace.Task
		want         map[int64]want // by submission; absent: never dispatched
		requeues     int
		undispatched int
	}{
		{
			name:   "a judge joins",
			judges: []schedtrace.Judge{{ID: "a", Slots: 1, Speed: 1}, {ID: "b", Slots: 1, Speed: 1, JoinMs: 1000}},
			tasks:  []schedtrace.Task{task(1, 0, 2000), task(2, 0, 2000), task(3, 0, 2000), task(4, 0, 2000)},
			want:   map[int64]want{1: {"a", 0}, 2: {"b", 1000}, 3: {"a", 2000}, 4: {"b", 3000}},
		},
		{
			// a dies at 500 with task 1 (a free slot left); b (from 200)
			// takes everything after; task 1 comes back when its lease
			// expires (12 s).
			name:     "a judge leaves",
			judges:   []schedtrace.Judge{{ID: "a", Slots: 2, Speed: 1, LeaveMs: 500}, {ID: "b", Slots: 1, Speed: 1, JoinMs: 200}},
			tasks:    []schedtrace.Task{task(1, 0, 1000), task(2, 600, 1000), task(3, 700, 100)},
			want:     map[int64]want{1: {"a", 0}, 2: {"b", 0}, 3: {"b", 900}},
			requeues: 1,
		},
		{
			name:   "a judge reconnects",
			judges: []schedtrace.Judge{{ID: "a", Slots: 1, Speed: 1, LeaveMs: 500}, {ID: "a", Slots: 1, Speed: 1, JoinMs: 800}},
			tasks:  []schedtrace.Task{task(1, 0, 100), task(2, 600, 100)},
			want:   map[int64]want{1: {"a", 0}, 2: {"a", 200}},
		},
		{
			name:         "every judge gone",
			judges:       []schedtrace.Judge{{ID: "a", Slots: 1, Speed: 1, LeaveMs: 500}},
			tasks:        []schedtrace.Task{task(1, 0, 100), task(2, 600, 100)},
			want:         map[int64]want{1: {"a", 0}},
			undispatched: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Replay(schedtrace.Trace{Judges: tc.judges, Tasks: tc.tasks}, "default")
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range r.Dispatches {
				w, ok := tc.want[d.SubmissionID]
				if !ok {
					if d.SimJudge != "" {
						t.Fatalf("task %d dispatched to %s", d.SubmissionID, d.SimJudge)
					}
					continue
				}
				if d.SimJudge != w.judge || !near(d.SimWaitMs, w.wait) {
					t.Fatalf("task %d: %s after %v ms, want %s after %v", d.SubmissionID, d.SimJudge, d.SimWaitMs, w.judge, w.wait)
				}
			}
			if r.Requeues != tc.requeues || r.Undispatched != tc.undispatched || r.Lost != 0 {
				t.Fatalf("requeues %d undispatched %d lost %d", r.Requeues, r.Undispatched, r.Lost)
			}
			// One row per judge id, however often it connected.
			ids := map[string]bool{}
			for _, j := range tc.judges {
				ids[j.ID] = true
			}
			if len(r.Judges) != len(ids) {
				t.Fatalf("%d rows for %d ids", len(r.Judges), len(ids))
			}
		})
	}
}

func TestReplayPriorityOrder(t *testing.T) {
	// One slot busy until 1000: the contest task (priority 2) arriving
	// last goes first, the rejudge (0) last, as in the hub's queue.
	tr := schedtrace.Trace{Judges: []schedtrace.Judge{{ID: "a", Slots: 1, Speed: 1}}, Tasks: []schedtrace.Task{
		{SubmissionID: 1, AtMs: 0, ProblemID: 1, Language: "cpp", Priority: 1, WorkMs: 1000},
		{SubmissionID: 2, AtMs: 100, ProblemID: 1, Language: "cpp", Priority: 0, WorkMs: 1000},
		{SubmissionID: 3, AtMs: 200, ProblemID: 1, Language: "cpp", Priority: 1, WorkMs: 1000},
		{SubmissionID: 4, AtMs: 300, ProblemID: 1, Language: "cpp", Priority: 2, WorkMs: 1000},
	}}
	r, err := Replay(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	got := simWaits(r)
	for id, w := range map[int64]float64{1: 0, 4: 700, 3: 1800, 2: 2900} {
		if !near(got[id], w) {
			t.Fatalf("task %d waited %v, want %v (all %v)", id, got[id], w, got)
		}
	}
}

func TestReplayDownloads(t *testing.T) {
	// Two tasks of one problem on one slot: the first fetches the data
	// (holding the slot), so the second waits fetch + 100 ms of work.
	tr := steadyTrace(2, 0, 100, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	for k := range tr.Tasks {
		tr.Tasks[k].DataHash = "h1"
	}
	model := ModelDownload("h1")
	for _, tc := range []struct {
		name string
		opts []ReplayOption
		want float64
		dl   string
	}{
		{"model", nil, float64(model.Microseconds())/1000 + 100, "model"},
		{"fixed", []ReplayOption{ReplayDownload(func(string) time.Duration { return 500 * time.Millisecond })}, 600, "custom"},
		{"none", []ReplayOption{ReplayDownload(func(string) time.Duration { return 0 })}, 100, "custom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Replay(tr, "", tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got := simWaits(r)[2]; math.Abs(got-tc.want) > 0.002 || r.Model.Download != tc.dl {
				t.Fatalf("second task waited %v ms, want %v (%s)", got, tc.want, r.Model.Download)
			}
		})
	}
	// A judge that held the data when it connected (the rehearsal's judges,
	// warmed by the hub before the start) fetches nothing: the second task
	// waits the first one's work only. A warm hash of no task's problem is
	// ignored.
	warm := tr
	warm.Judges = []schedtrace.Judge{{ID: "a", Slots: 1, Speed: 1, Warm: []string{"h0", "h1"}}}
	r, err := Replay(warm, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := simWaits(r)[2]; math.Abs(got-100) > 0.002 {
		t.Fatalf("warm judge: second task waited %v ms, want 100", got)
	}
	// Warm on a judge that connects later too (its hello lists the data).
	warm.Judges = []schedtrace.Judge{{ID: "a", Slots: 1, Speed: 1, JoinMs: 50, Warm: []string{"h1"}}}
	for k := range warm.Tasks {
		warm.Tasks[k].AtMs = 60
	}
	if r, err = Replay(warm, ""); err != nil {
		t.Fatal(err)
	}
	if got := simWaits(r)[2]; math.Abs(got-100) > 0.002 {
		t.Fatalf("warm judge joining at 50 ms: second task waited %v ms, want 100", got)
	}
	if ModelDownload("") != 0 || ModelDownload("h1") != model || ModelDownload("h2") == model ||
		model < 300*time.Millisecond || model > 20*time.Second {
		t.Fatalf("ModelDownload: %v %v %v", ModelDownload(""), model, ModelDownload("h2"))
	}
}

func TestReplayOptionsAndErrors(t *testing.T) {
	good := steadyTrace(3, 100, 150, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	bad := good
	bad.Tasks = append([]schedtrace.Task{}, good.Tasks...)
	bad.Tasks[1].WorkMs = -1
	named := good
	named.Policy = "pull"
	for _, tc := range []struct {
		name    string
		tr      schedtrace.Trace
		policy  string
		opts    []ReplayOption
		wantErr error
		check   func(ReplayResult) bool
	}{
		{name: "invalid trace", tr: bad, wantErr: schedtrace.ErrInvalid},
		{name: "unknown policy", tr: good, policy: "nope", wantErr: sched.ErrUnknownPolicy},
		{name: "bad heartbeat", tr: good, opts: []ReplayOption{ReplayHeartbeat(-time.Second)}, wantErr: errAny},
		{name: "hub default", tr: good, check: func(r ReplayResult) bool { return r.Policy == "default" }},
		{name: "the trace's policy", tr: named, check: func(r ReplayResult) bool { return r.Policy == "pull" }},
		{name: "argument over trace", tr: named, policy: "guide", check: func(r ReplayResult) bool { return r.Policy == "guide" }},
		{name: "ablation variant", tr: good, policy: "default-nodefer", check: func(r ReplayResult) bool { return r.Policy == "default-nodefer" }},
		{name: "heartbeat and lease", tr: good, opts: []ReplayOption{ReplayHeartbeat(500 * time.Millisecond)},
			check: func(r ReplayResult) bool { return r.Model.HeartbeatMs == 500 && r.Model.LeaseMs == 2000 }},
		{name: "tune and seed", tr: good, opts: []ReplayOption{ReplaySeed(7), ReplayTune(func(c *Config) { c.DispatchTick, c.PeekWindow = 0.1, 8 })},
			check: func(r ReplayResult) bool {
				return r.Model.Seed == 7 && r.Model.DispatchTickMs == 100 && r.Model.PeekWindow == 8 && r.Model.CacheProblems == 100
			}},
		{name: "no tasks", tr: schedtrace.Trace{Judges: good.Judges},
			check: func(r ReplayResult) bool { return r.Tasks == 0 && r.All.Sim.Count == 0 && len(r.Judges) == 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Replay(tc.tr, tc.policy, tc.opts...)
			switch {
			case tc.wantErr == errAny && err != nil:
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			case tc.wantErr == nil && err != nil:
				t.Fatal(err)
			case tc.check != nil && !tc.check(r):
				t.Fatalf("result %+v", r)
			}
		})
	}
}

var errAny = errors.New("any error")

func TestReplayRow(t *testing.T) {
	for _, tc := range []struct {
		name          string
		hub, sim      []float64
		mean, p99     *float64
		differs       bool
		hubMean, simN float64
	}{
		{"equal", []float64{100, 100}, []float64{100, 100}, new(0.0), new(0.0), false, 100, 2},
		{"within 10 %", []float64{100}, []float64{109}, new(9.0), new(9.0), false, 100, 1},
		{"sim 20 % low", []float64{1000}, []float64{800}, new(-20.0), new(-20.0), true, 1000, 1},
		{"20 % but 20 ms", []float64{100}, []float64{80}, new(-20.0), new(-20.0), false, 100, 1},
		{"hub zero, sim not", []float64{0}, []float64{60}, nil, nil, true, 0, 1},
		{"hub zero, sim 5 ms", []float64{0}, []float64{5}, nil, nil, false, 0, 1},
		{"both zero", []float64{0}, []float64{0}, new(0.0), new(0.0), false, 0, 1},
		{"no hub record", nil, []float64{5}, nil, nil, false, 0, 1},
		{"no sim dispatch", []float64{5}, nil, nil, nil, false, 5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := replayRow("x", tc.hub, tc.sim)
			eq := func(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || near(*a, *b)) }
			if !eq(r.MeanGapPct, tc.mean) || !eq(r.P99GapPct, tc.p99) || r.Differs != tc.differs ||
				r.Hub.MeanMs != tc.hubMean || float64(r.Sim.Count) != tc.simN {
				t.Fatalf("%+v", r)
			}
			if _, err := json.Marshal(r); err != nil { // no NaN reaches JSON
				t.Fatal(err)
			}
		})
	}
}

func TestReplayTableAndJSON(t *testing.T) {
	tr := steadyTrace(4, 100, 150, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	tr.Judges = append(tr.Judges, schedtrace.Judge{ID: "b", Slots: 2, Speed: 1.5})
	tr.Tasks[0].JudgeID, tr.Tasks[0].DispatchMs = "b", 3
	r, err := Replay(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteReplayTable(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{"judge", "gap p99 %", "\na  ", "2 slots × 1.5", "all", "policy default; 4 tasks, 1 with a recorded dispatch"} {
		if !strings.Contains(out, s) {
			t.Fatalf("table lacks %q:\n%s", s, out)
		}
	}
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back ReplayResult
	if err := json.Unmarshal(js, &back); err != nil || back.All.Sim != r.All.Sim || len(back.Classes) != 2 || back.Classes[0].Name != "2 slots × 1.5" {
		t.Fatalf("JSON round trip: %v\n%s", err, js)
	}
}

// generated exports a generated workload as a trace (hashes, ms).
func generated(seconds float64, rho float64, seed uint64) schedtrace.Trace {
	cluster := DefaultCluster()
	gen := Generate(Workload{}, Traffic{Rho: rho, End: seconds}, Capacity(cluster), seed)
	tr := schedtrace.Trace{Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	for _, j := range cluster {
		tr.Judges = append(tr.Judges, schedtrace.Judge{ID: j.ID, Slots: j.Cores, Speed: j.Speed})
	}
	for _, j := range gen.Jobs {
		tr.Tasks = append(tr.Tasks, schedtrace.Task{SubmissionID: int64(j.ID + 1), AtMs: int64(j.Arrival * 1000),
			ProblemID: int64(j.Problem + 1), DataHash: gen.Problems[j.Problem].Hash, Language: "cpp", Priority: 1,
			WorkMs: int64(j.Size * 1000)})
	}
	return tr
}

func TestReplayOfItsOwnRecordAgrees(t *testing.T) {
	// A trace whose "hub" record is the simulator's own replay (to the
	// ms) replays with no gap: the replay is deterministic and the
	// comparison lines tasks up by judge.
	tr := generated(180, 0.85, 3)
	first, err := Replay(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	if first.Undispatched != 0 || first.All.Sim.Count != len(tr.Tasks) || len(tr.Tasks) < 1000 {
		t.Fatalf("first replay: %d tasks, %+v", len(tr.Tasks), first.All)
	}
	for i, d := range first.Dispatches {
		tr.Tasks[i].JudgeID, tr.Tasks[i].DispatchMs = d.SimJudge, tr.Tasks[i].AtMs+int64(math.Round(d.SimWaitMs))
	}
	again, err := Replay(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range append(again.Judges, again.All) {
		if r.Hub.Count != r.Sim.Count || math.Abs(r.Hub.MeanMs-r.Sim.MeanMs) > 0.5 || math.Abs(r.Hub.P99Ms-r.Sim.P99Ms) > 0.5 {
			t.Fatalf("%s: hub %+v sim %+v", r.Name, r.Hub, r.Sim)
		}
	}
	// Another policy does differ (else the comparison could not fail).
	other, err := Replay(tr, "least_conn")
	if err != nil {
		t.Fatal(err)
	}
	if !other.All.Differs {
		t.Fatalf("least_conn matches the default: %+v", other.All)
	}
}

func TestDocCarriesTheReplaySection(t *testing.T) {
	// docs/scheduling.md is generated; its replay section must be the one
	// WriteDoc writes, so that a rerun keeps it unchanged.
	b, err := os.ReadFile("../../../../docs/scheduling.md")
	if err != nil {
		t.Fatal("docs/scheduling.md beside the source:", err)
	}
	if !strings.Contains(string(b), docReplay+docScenarios+"\n## Ablation") {
		t.Fatal("docs/scheduling.md's \"Replaying a rehearsal\" differs from docReplay: rerun the lab or copy it")
	}
}

func TestReplayResultLatency(t *testing.T) {
	// One slot, a task every 100 ms of 50 ms. Results handled at once, or
	// 20 ms late (the slot frees at 70 ms), no task waits; 80 ms late the
	// slot frees 130 ms after each dispatch, and task k waits 30·k ms.
	for _, tc := range []struct {
		resultMs, perTask float64
	}{
		{0, 0},
		{20, 0},
		{80, 30},
	} {
		tr := steadyTrace(10, 100, 50, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
		tr.ResultMs = tc.resultMs
		r, err := Replay(tr, "")
		if err != nil {
			t.Fatal(err)
		}
		if r.Model.ResultMs != tc.resultMs {
			t.Errorf("result %v ms: model says %v", tc.resultMs, r.Model.ResultMs)
		}
		for id, w := range simWaits(r) {
			if want := tc.perTask * float64(id-1); !near(w, want) {
				t.Errorf("result %v ms: task %d waited %v ms, want %v", tc.resultMs, id, w, want)
			}
		}
	}
}

func TestReplayHeld(t *testing.T) {
	// One slot, a task every 100 ms of 50 ms of work. A judge that held
	// each slot 50 ms or 100 ms in all (no time of its own beyond the
	// work, or 50 ms: the next task still finds it free) keeps every wait
	// at 0; held 130 ms, the slot frees 130 ms after each dispatch and
	// task k waits 30·k ms. On a judge of speed 2 the work takes 25 ms:
	// held 130 ms is 105 ms of its own, and the slot again frees 130 ms
	// after each dispatch. held_ms 0 is not recorded: no hold.
	for _, tc := range []struct {
		name     string
		heldMs   int64
		speed    float64
		perTask  float64
		holds    int
		holdMean float64
	}{
		{"not recorded", 0, 1, 0, 0, 0},
		{"the work only", 50, 1, 0, 0, 0},
		{"fits between tasks", 100, 1, 0, 10, 50},
		{"longer than the gap", 130, 1, 30, 10, 80},
		{"recorded on a judge of speed 2", 130, 2, 30, 10, 105},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := steadyTrace(10, 100, 50, schedtrace.Judge{ID: "a", Slots: 1, Speed: tc.speed})
			for k := range tr.Tasks {
				tr.Tasks[k].JudgeID, tr.Tasks[k].DispatchMs, tr.Tasks[k].HeldMs = "a", tr.Tasks[k].AtMs, tc.heldMs
			}
			r, err := Replay(tr, "")
			if err != nil {
				t.Fatal(err)
			}
			if r.Model.Holds != tc.holds || !near(r.Model.HoldMeanMs, tc.holdMean) {
				t.Errorf("model: %d holds of %v ms, want %d of %v", r.Model.Holds, r.Model.HoldMeanMs, tc.holds, tc.holdMean)
			}
			for id, w := range simWaits(r) {
				if want := tc.perTask * float64(id-1); math.Abs(w-want) > 1e-3 {
					t.Errorf("task %d waited %v ms, want %v", id, w, want)
				}
			}
		})
	}
}

// TestReplaySlot: a task's own slot_ms (the hub's time from its result
// leaving the judge to its slot free) replaces the draw from its window.
// One slot, a task every 100 ms of 50 ms of work: a result that frees the
// slot 40 ms after leaving keeps every wait at 0; 80 ms frees it 130 ms
// after each dispatch, and task k waits 30·k ms. The trace's own result
// latency (80 ms) applies only to tasks without one.
func TestReplaySlot(t *testing.T) {
	for _, tc := range []struct {
		name     string
		resultMs float64 // the trace's, for every result without its own
		slotMs   float64 // each task's own; 0: not recorded
		perTask  float64
		slots    int
	}{
		{"not recorded, no latency", 0, 0, 0, 0},
		{"not recorded: the trace's", 80, 0, 30, 0},
		{"its own, within the gap", 0, 40, 0, 10},
		{"its own, longer than the gap", 0, 80, 30, 10},
		{"its own over the trace's", 80, 10, 0, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := steadyTrace(10, 100, 50, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
			tr.ResultMs = tc.resultMs
			for k := range tr.Tasks {
				tr.Tasks[k].JudgeID, tr.Tasks[k].DispatchMs, tr.Tasks[k].SlotMs = "a", tr.Tasks[k].AtMs, tc.slotMs
			}
			r, err := Replay(tr, "")
			if err != nil {
				t.Fatal(err)
			}
			if r.Model.OwnSlotTimes != tc.slots || (tc.slots > 0 && !near(r.Model.OwnSlotMeanMs, tc.slotMs)) {
				t.Errorf("model: %d own slot times of %v ms, want %d of %v", r.Model.OwnSlotTimes, r.Model.OwnSlotMeanMs, tc.slots, tc.slotMs)
			}
			for id, w := range simWaits(r) {
				if want := tc.perTask * float64(id-1); math.Abs(w-want) > 1e-3 {
					t.Errorf("task %d waited %v ms, want %v", id, w, want)
				}
			}
		})
	}
}

// TestReplaySplitsTheHubWait: where the trace has placed_ms, the hub's
// recorded wait is split into its own queue (at → placed) and the way to
// the judge (placed → dispatch); a task without it is left out of both.
func TestReplaySplitsTheHubWait(t *testing.T) {
	tr := steadyTrace(4, 100, 50, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	for k := range tr.Tasks {
		at := tr.Tasks[k].AtMs
		// Tasks 0-2: 5 + 20·k ms in the queue, then 10 ms to the judge.
		tr.Tasks[k].JudgeID, tr.Tasks[k].PlacedMs, tr.Tasks[k].DispatchMs = "a", at+5+20*int64(k), at+5+20*int64(k)+10
	}
	tr.Tasks[3].PlacedMs = 0 // not recorded
	r, err := Replay(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Placed.Count != 3 || !near(r.Placed.MeanMs, 25) || r.Delivery.Count != 3 || !near(r.Delivery.MeanMs, 10) {
		t.Fatalf("placed %+v, delivery %+v; want 3 of 25 ms and 3 of 10 ms", r.Placed, r.Delivery)
	}
	// The hub's side of the comparison is its placement where recorded
	// (5, 25, 45 ms), else the push at the judge (task 3: 75 ms).
	if r.All.Hub.Count != 4 || !near(r.All.Hub.MeanMs, 37.5) {
		t.Fatalf("the hub's waits %+v, want 4 of mean 37.5 ms", r.All.Hub)
	}
	var b strings.Builder
	if err := WriteReplayTable(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "the hub's wait, split (3 tasks)") {
		t.Fatalf("the table does not give the split:\n%s", b.String())
	}
	tr.Tasks[0].PlacedMs, tr.Tasks[1].PlacedMs, tr.Tasks[2].PlacedMs = 0, 0, 0
	if r, err = Replay(tr, ""); err != nil || r.Placed.Count != 0 {
		t.Fatalf("without placed_ms: %+v, %v", r.Placed, err)
	}
}

// TestReplayHoldsTheDelivery: the hub counts a slot taken from the
// placement, the judge starts the work when the push arrives: one slot, a
// task every 100 ms of 50 ms work, each push 60 ms on its way (placed at
// its enqueue): the slot is taken 110 ms per task, and in the replay task
// k waits 10·(k−1) ms. Without placed_ms, no delivery is known: no wait.
func TestReplayHoldsTheDelivery(t *testing.T) {
	for _, tc := range []struct {
		name    string
		placed  bool
		perTask float64
	}{{"recorded", true, 10}, {"not recorded", false, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			tr := steadyTrace(10, 100, 50, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
			for k := range tr.Tasks {
				at := tr.Tasks[k].AtMs
				tr.Tasks[k].JudgeID, tr.Tasks[k].DispatchMs = "a", at+60
				if tc.placed {
					tr.Tasks[k].PlacedMs = max(1, at)
				}
			}
			r, err := Replay(tr, "")
			if err != nil {
				t.Fatal(err)
			}
			for id, w := range simWaits(r) {
				want := tc.perTask * float64(id-1)
				if id == 1 {
					want = 0
				}
				if math.Abs(w-want) > 1.001 { // task 1 placed at 1 ms
					t.Errorf("task %d waited %v ms, want %v", id, w, want)
				}
			}
		})
	}
}

// TestReplayWakeLatency: one slot, a task every 100 ms of 10 ms work, so
// the dispatcher is idle at every arrival (the wake for the freed slot,
// 10 ms after each dispatch, has passed: a task arriving during such a
// wake would join its pass, as in the hub). With the hub's wake latency
// recorded (30 ms in the window; spread between 10 and 20 ms), each pass
// the arrival wakes starts that much later, and so does each dispatch;
// without it (wake_ms 0), at once.
func TestReplayWakeLatency(t *testing.T) {
	for _, tc := range []struct {
		name     string
		w        schedtrace.LatencyWindow
		min, max float64 // each task's wait, ms
		windows  int
	}{
		{"not recorded", schedtrace.LatencyWindow{}, 0, 0, 0},
		{"a mean", schedtrace.LatencyWindow{WakeMs: 30}, 30, 30, 1},
		{"a spread", schedtrace.LatencyWindow{WakeMs: 15, WakeHist: &schedtrace.Hist{BoundsMs: []float64{10, 20}, Counts: []int64{0, 5, 0}}}, 10, 20, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, waits := replaySteadyWindow(t, tc.w)
			if r.Model.WakeWindows != tc.windows {
				t.Errorf("model: %d wake windows, want %d", r.Model.WakeWindows, tc.windows)
			}
			for id, w := range waits {
				if w < tc.min-1e-3 || w > tc.max+1e-3 {
					t.Errorf("task %d waited %v ms, want [%v, %v]", id, w, tc.min, tc.max)
				}
			}
		})
	}
}

// TestReplayNoticeLatency: as TestReplayWakeLatency, with the way of
// each arrival's notice to the hub recorded instead (25 ms; spread
// between 5 and 10 ms): each dispatch waits that long, the wake latency
// adding to it; without it, at once. A pass woken meanwhile by something
// else would see the task: the task is in the queue from its arrival.
func TestReplayNoticeLatency(t *testing.T) {
	for _, tc := range []struct {
		name     string
		w        schedtrace.LatencyWindow
		min, max float64 // each task's wait, ms
		windows  int
	}{
		{"not recorded", schedtrace.LatencyWindow{}, 0, 0, 0},
		{"a mean", schedtrace.LatencyWindow{NoticeMs: 25}, 25, 25, 1},
		{"a spread", schedtrace.LatencyWindow{NoticeMs: 8, NoticeHist: &schedtrace.Hist{BoundsMs: []float64{5, 10}, Counts: []int64{0, 5, 0}}}, 5, 10, 1},
		// Task 1 arrives as the judge connects at 0, which wakes the
		// dispatcher: that pass, 30 ms later, sees the task before its
		// notice arrives.
		{"with the wake's", schedtrace.LatencyWindow{NoticeMs: 25, WakeMs: 30}, 55, 55, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, waits := replaySteadyWindow(t, tc.w)
			if r.Model.NoticeWindows != tc.windows {
				t.Errorf("model: %d notice windows, want %d", r.Model.NoticeWindows, tc.windows)
			}
			for id, w := range waits {
				lo, hi := tc.min, tc.max
				if id == 1 && tc.w.WakeMs > 0 {
					lo, hi = tc.w.WakeMs, tc.w.WakeMs
				}
				if w < lo-1e-3 || w > hi+1e-3 {
					t.Errorf("task %d waited %v ms, want [%v, %v]", id, w, lo, hi)
				}
			}
		})
	}
}

// TestReplayOwnNotice: a task whose push told when the hub read its
// enqueue's notice wakes the replay's dispatcher that late, whatever its
// window says; one the hub placed before its notice came draws from its
// window, no earlier than the hub's placement, where the hub told notices
// at all (task 1, enqueued at 0, cannot tell one: 0 is "not told"). The
// window's draws stay within the tick (250 ms), which would place them.
func TestReplayOwnNotice(t *testing.T) {
	for _, tc := range []struct {
		name    string
		window  float64 // the window's mean notice, ms
		noticed []int64 // per task, ms after its enqueue; -1: not told
		placed  int64   // every task's placed_ms − at_ms
		want    []float64
		own     int
		after   int
	}{
		{"its own", 25, []int64{-1, 7, 7, 7, 7, 7, 7, 7, 7, 7}, 50, []float64{50, 7, 7, 7, 7, 7, 7, 7, 7, 7}, 9, 1},
		{"its own of 0 ms over the window's", 25, []int64{-1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 50, []float64{50, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 9, 1},
		{"placed before its notice", 25, []int64{-1, 3, -1, 3, -1, 3, -1, 3, -1, 3}, 40, []float64{40, 3, 40, 3, 40, 3, 40, 3, 40, 3}, 5, 5},
		{"placed before its notice, the window later", 45, []int64{-1, 3, -1, 3, -1, 3, -1, 3, -1, 3}, 40, []float64{45, 3, 45, 3, 45, 3, 45, 3, 45, 3}, 5, 5},
		{"a hub that told no notices", 25, []int64{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1}, 40, []float64{25, 25, 25, 25, 25, 25, 25, 25, 25, 25}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := steadyTrace(10, 100, 10, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
			tr.Latency = []schedtrace.LatencyWindow{{NoticeMs: tc.window}}
			for k := range tr.Tasks {
				tk := &tr.Tasks[k]
				tk.JudgeID, tk.PlacedMs, tk.DispatchMs = "a", tk.AtMs+tc.placed, tk.AtMs+tc.placed+1
				if n := tc.noticed[k]; n >= 0 {
					tk.NoticedMs = tk.AtMs + n
				}
			}
			r, err := Replay(tr, "")
			if err != nil {
				t.Fatal(err)
			}
			if r.Model.OwnNotices != tc.own || r.Model.NoticesAfterPlacing != tc.after {
				t.Errorf("model: %d own notices, %d after placing; want %d, %d", r.Model.OwnNotices, r.Model.NoticesAfterPlacing, tc.own, tc.after)
			}
			waits := simWaits(r)
			for id, w := range waits {
				if want := tc.want[id-1]; math.Abs(w-want) > 1e-3 {
					t.Errorf("task %d waited %v ms, want %v", id, w, want)
				}
			}
		})
	}
}

// replaySteadyWindow replays one slot, a task every 100 ms of 10 ms work,
// under one latency window, and returns the replay and its 10 tasks'
// waits.
func replaySteadyWindow(t *testing.T, w schedtrace.LatencyWindow) (ReplayResult, map[int64]float64) {
	t.Helper()
	tr := steadyTrace(10, 100, 10, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	tr.Latency = []schedtrace.LatencyWindow{w}
	r, err := Replay(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	waits := simWaits(r)
	if len(waits) != 10 {
		t.Fatalf("%d tasks dispatched, want 10", len(waits))
	}
	return r, waits
}

func TestReplayRunsBackgroundTasks(t *testing.T) {
	// One slot, a contest task every 100 ms of 50 ms: none waits. A
	// rejudge of 250 ms enqueued at 0 goes after the first task (lower
	// priority) and holds the slot from 50 to 300 ms: the tasks of 100,
	// 200, 300 and 400 ms wait 200, 150, 100 and 50 ms. It is run, not
	// compared: the comparison still has the 10 tasks.
	tr := steadyTrace(10, 100, 50, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	for k := range tr.Tasks {
		tr.Tasks[k].Priority = int(protocol.PriorityContest)
	}
	plain, err := Replay(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	tr.Background = []schedtrace.Task{{SubmissionID: 1, AtMs: 0, ProblemID: 1, Language: "cpp", Priority: int(protocol.PriorityRejudge), WorkMs: 250}}
	r, err := Replay(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Tasks != 10 || r.Background != 1 || r.All.Sim.Count != 10 {
		t.Fatalf("tasks %d, background %d, compared %d; want 10, 1, 10", r.Tasks, r.Background, r.All.Sim.Count)
	}
	want := []float64{0, 200, 150, 100, 50, 0, 0, 0, 0, 0}
	got, before := simWaits(r), simWaits(plain)
	for k, w := range want {
		id := int64(k + 1)
		if !near(got[id], w) || !near(before[id], 0) {
			t.Errorf("task %d waited %v ms with the rejudge (want %v), %v without (want 0)", id, got[id], w, before[id])
		}
	}
}

func TestReplayWindows(t *testing.T) {
	// Tasks enqueued at 0, 29.999, 30 and 65 s: three windows of 30 s, in
	// time order, with the hub's and the simulator's waits of their tasks.
	tr := steadyTrace(4, 1, 10, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	for k, at := range []int64{0, 29999, 30000, 65000} {
		tr.Tasks[k].AtMs, tr.Tasks[k].JudgeID, tr.Tasks[k].DispatchMs = at, "a", at+int64(100*k)
	}
	r, err := Replay(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	type win struct {
		from      int64
		hub, sim  int
		hubMeanMs float64
	}
	var got []win
	for _, w := range r.Windows {
		got = append(got, win{w.FromMs, w.Hub.Count, w.Sim.Count, w.Hub.MeanMs})
	}
	want := []win{{0, 2, 2, 50}, {30000, 1, 1, 200}, {60000, 1, 1, 300}}
	if !slices.Equal(got, want) || r.Windows[1].Name != "30s" {
		t.Fatalf("windows %+v (first name %q), want %+v", got, r.Windows[0].Name, want)
	}
}

// A trace's faults (the rehearsal's --faults), which the simulator does not
// model, set apart the tasks enqueued before the first: the comparison
// that holds there. Without faults there is no such row.
func TestReplayBeforeFaults(t *testing.T) {
	tr := steadyTrace(4, 1, 10, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	for k, at := range []int64{0, 1000, 2000, 3000} {
		tr.Tasks[k].AtMs, tr.Tasks[k].JudgeID, tr.Tasks[k].DispatchMs = at, "a", at+int64(100*(k+1))
	}
	r, err := Replay(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.BeforeFaults != nil {
		t.Fatalf("a row before the faults of a trace without any: %+v", r.BeforeFaults)
	}
	tr.Faults = []schedtrace.Fault{{AtMs: 2000, Kind: "restart Redis"}, {AtMs: 2500, Kind: "kill -9 a judge"}}
	if r, err = Replay(tr, ""); err != nil {
		t.Fatal(err)
	}
	// The first two tasks, enqueued before 2 s: the hub's waits 100 and
	// 200 ms; the simulator placed each at once on the idle slot.
	b := r.BeforeFaults
	if b == nil || b.Hub.Count != 2 || b.Sim.Count != 2 || !near(b.Hub.MeanMs, 150) || b.Sim.MeanMs != 0 || r.All.Hub.Count != 4 {
		t.Fatalf("before the faults %+v (all %d), want the two tasks before 2 s", b, r.All.Hub.Count)
	}
	var out strings.Builder
	if err := WriteReplayTable(&out, r); err != nil || !strings.Contains(out.String(), "before the faults") {
		t.Fatalf("the replay's table has no row before the faults: %v\n%s", err, out.String())
	}
}

// The tests of pass latency queue their tasks at once on one slot: a
// task's wait ends when the pass that places it starts (as the hub's
// placed_ms), and the pass holds the slot from there until it commits.
// (Tasks that came one by one to a busy slot would each start a pass
// that places nothing and holds the dispatcher as long; so would the
// dispatch tick's passes and the heartbeats': quiet keeps them away.)
var quiet = []ReplayOption{ReplayHeartbeat(time.Hour), ReplayTune(func(c *Config) { c.DispatchTick = 3600 })}

func TestReplayPassLatency(t *testing.T) {
	// Ten tasks of 50 ms at once: with instantaneous passes task k waits
	// the k tasks before it (50 ms each); with the hub's measured pass
	// latency in the trace, their passes too.
	for _, passMs := range []float64{0, 20, 3.5} {
		tr := steadyTrace(10, 0, 50, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
		tr.PassMs = passMs
		r, err := Replay(tr, "", quiet...)
		if err != nil {
			t.Fatal(err)
		}
		if r.Model.PassMs != passMs {
			t.Errorf("pass %v ms: model says %v", passMs, r.Model.PassMs)
		}
		for id, w := range simWaits(r) {
			if want := float64(id-1) * (50 + passMs); !near(w, want) {
				t.Errorf("pass %v ms: task %d waited %v ms, want %v", passMs, id, w, want)
			}
		}
	}
}

// TestReplayPushWithinThePass: the push's recorded way (placed_ms →
// dispatch_ms) counts from the start of the pass that placed the task,
// and the simulator's own pass is part of it: a slot is held for the
// recorded way, then the work, never for both — and not for the
// simulator's pass where that ran longer than the recorded way (the work
// counts from where the push arrived; until 2026-12-07 the slot was held
// for the longer of the two, which the passes drawn apart from their
// tasks made 56 ms longer per task than the hub's in the 40× rush:
// docs/scheduling.md, item 13), but for work that would have ended
// before the simulator's pass did.
func TestReplayPushWithinThePass(t *testing.T) {
	for _, tc := range []struct {
		name           string
		passMs, pushMs int64
		hold           float64 // ms each task holds the slot beyond its work
	}{
		{"the push longer than the pass", 20, 30, 30},
		{"the pass longer than the push", 20, 5, 5},
		{"the pass longer than the push and the work", 100, 5, 50},
		{"no push recorded", 20, 0, 20},
		{"instantaneous passes", 0, 30, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := steadyTrace(10, 0, 50, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
			tr.PassMs = float64(tc.passMs)
			for i := range tr.Tasks {
				tk := &tr.Tasks[i]
				tk.JudgeID, tk.PlacedMs, tk.DispatchMs = "a", 1, 1+tc.pushMs
			}
			r, err := Replay(tr, "", quiet...)
			if err != nil {
				t.Fatal(err)
			}
			for id, w := range simWaits(r) {
				if want := float64(id-1) * (50 + tc.hold); !near(w, want) {
					t.Errorf("task %d waited %v ms, want %v", id, w, want)
				}
			}
		})
	}
}

func TestReplayLatencyWindows(t *testing.T) {
	// Ten tasks of 50 ms at once. The run-wide means say 10 ms passes and
	// results at once; the windows say instantaneous passes until 300 ms,
	// 60 ms passes from there, and from 600 ms results handled 80 ms late.
	tr := steadyTrace(10, 0, 50, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	tr.PassMs, tr.ResultMs = 10, 0
	tr.Latency = []schedtrace.LatencyWindow{{AtMs: 0}, {AtMs: 300, PassMs: 60}, {AtMs: 600, PassMs: 0, ResultMs: 80}}
	r, err := Replay(tr, "", quiet...)
	if err != nil {
		t.Fatal(err)
	}
	if r.Model.LatencyWindows != 3 || r.Model.PassMs != 10 {
		t.Errorf("model %+v: want 3 windows and the run-wide 10 ms pass", r.Model)
	}
	// Tasks 0-5 are placed every 50 ms. Task 6's pass starts at 300: 60
	// ms, then its work, the slot free at 410; task 7's at 410 frees it
	// at 520; task 8's at 520, its result leaves at 630, in the window of
	// results 80 ms late: free at 710; task 9's pass at 710.
	want := []float64{0, 50, 100, 150, 200, 250, 300, 410, 520, 710}
	got := simWaits(r)
	for k, w := range want {
		if id := int64(k + 1); !near(got[id], w) {
			t.Errorf("task %d waited %v ms, want %v", id, got[id], w)
		}
	}
	// The same trace without windows: the run-wide 10 ms pass each.
	tr.Latency = nil
	plain, err := Replay(tr, "", quiet...)
	if err != nil {
		t.Fatal(err)
	}
	for id, w := range simWaits(plain) {
		if want := 60 * float64(id-1); !near(w, want) {
			t.Errorf("without windows: task %d waited %v ms, want %v", id, w, want)
		}
	}
}

func TestReplayLatencySpreads(t *testing.T) {
	// Forty tasks of 50 ms at once: each waits its predecessor's pass, work
	// and result more than the one before. The windows' means say 35 ms
	// passes, the first one's histograms that every pass took 30-40 ms
	// (and every result was handled within 1 ms). Drawn from the
	// histograms, each pass takes its own time within the bucket, not the
	// mean; the model counts the windows drawn from. (Pass by pass:
	// TestReplayPassMoment has the moments.)
	tr := steadyTrace(40, 0, 50, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	tr.PassMs = 35
	spread := &schedtrace.Hist{BoundsMs: []float64{30, 40}, Counts: []int64{0, 9, 0}}
	tr.Latency = []schedtrace.LatencyWindow{
		{AtMs: 0, PassMs: 35, PassHist: spread, ResultHist: &schedtrace.Hist{BoundsMs: []float64{1}, Counts: []int64{5, 0}}},
		{AtMs: 2000, PassMs: 35},
	}
	r, err := Replay(tr, "", append([]ReplayOption{ReplayPassMoment(0)}, quiet...)...)
	if err != nil {
		t.Fatal(err)
	}
	if r.Model.LatencyWindows != 2 || r.Model.LatencySpreads != 1 {
		t.Errorf("model %+v: want 2 windows, 1 with a spread", r.Model)
	}
	got := simWaits(r)
	distinct := map[float64]bool{}
	late := 0
	for id := int64(1); id < 40; id++ {
		start := got[id]              // the pass that placed it (all came at 0)
		d := got[id+1] - got[id] - 50 // its pass and its result
		switch {
		case start < 2000 && (d <= 30 || d > 41):
			t.Errorf("task %d (its pass at %v ms, first window) held the slot %v ms beyond its work, want within the histogram's (30, 40] ms and up to 1 ms for its result", id, start, d)
		case start < 2000:
			distinct[math.Round(d)] = true
		case !near(d, 35):
			t.Errorf("task %d (its pass at %v ms, second window, no histogram) held the slot %v ms beyond its work, want its mean 35", id, start, d)
		default:
			late++
		}
	}
	if len(distinct) < 4 {
		t.Errorf("the first window's passes take %d distinct values (ms): drawn, they should spread over the bucket", len(distinct))
	}
	if late < 5 {
		t.Errorf("only %d passes in the second window: the test no longer reaches it", late)
	}
	// Drawn from a stream of its own: the same replay again draws the same.
	again, err := Replay(tr, "", append([]ReplayOption{ReplayPassMoment(0)}, quiet...)...)
	if err != nil {
		t.Fatal(err)
	}
	for id, w := range simWaits(again) {
		if w != got[id] {
			t.Fatalf("replayed again, task %d waited %v ms, first %v", id, w, got[id])
		}
	}
}

func TestNewLatencyDist(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bounds  []float64
		counts  []int64
		mean    float64
		nilDist bool
		over    float64
	}{
		{"empty", []float64{1}, []int64{0, 0}, 0.5, true, 0},
		{"counts short", []float64{1}, []int64{1}, 0.5, true, 0},
		{"negative count", []float64{1}, []int64{-1, 2}, 0.5, true, 0},
		{"bounds out of order", []float64{1, 1}, []int64{1, 1, 1}, 0.5, true, 0},
		{"nothing above the bounds", []float64{1, 2}, []int64{2, 2, 0}, 1, false, 2},
		// Two at 0.5 (the first bucket's midpoint) and two above 1 s with a
		// mean of 3 s: those two stand for (4·3 − 2·0.5)/2 = 5.5 s.
		{"above the bounds: the mean's remainder", []float64{1}, []int64{2, 2}, 3, false, 5.5},
		{"at least the last bound", []float64{1}, []int64{2, 2}, 0.3, false, 1},
		{"at most 60 s", []float64{1}, []int64{0, 1}, 600, false, 60},
		{"no bounds: all of them the mean", nil, []int64{3}, 0.25, false, 0.25},
	} {
		d := NewLatencyDist(tc.bounds, tc.counts, tc.mean)
		if (d == nil) != tc.nilDist {
			t.Errorf("%s: dist %+v, want nil %v", tc.name, d, tc.nilDist)
			continue
		}
		if d != nil && !near(d.Over, tc.over) {
			t.Errorf("%s: Over %v, want %v", tc.name, d.Over, tc.over)
		}
	}
	// Draws fall in their buckets, in proportion to the counts.
	d := NewLatencyDist([]float64{0.01, 0.1}, []int64{3, 1, 0}, 0.02)
	for _, tc := range []struct{ u, v, lo, hi float64 }{
		{0, 0.5, 0, 0.01}, {0.74, 0.99, 0, 0.01}, {0.76, 0, 0.01, 0.1}, {0.999, 0.999, 0.01, 0.1},
	} {
		if x := d.draw(tc.u, tc.v); x < tc.lo || x > tc.hi {
			t.Errorf("draw(%v, %v) = %v, want in [%v, %v]", tc.u, tc.v, x, tc.lo, tc.hi)
		}
	}
}

// TestReplayIdlePasses: a pass that places nothing holds the replay's
// dispatcher as long as the hub's idle passes took in the window, and
// what arrives meanwhile waits for it to end; where the trace has none,
// a pass on an empty queue takes no time and one that places nothing
// takes a placing pass's latency (the model before).
func TestReplayIdlePasses(t *testing.T) {
	placing := schedtrace.LatencyWindow{PassMs: 5}
	idle := func(w schedtrace.LatencyWindow, ms float64, h *schedtrace.Hist) schedtrace.LatencyWindow {
		w.IdleMs, w.IdleHist = ms, h
		return w
	}
	t.Run("an empty queue", func(t *testing.T) {
		// One slot, tasks of 10 ms at 100, 130, 300 and 350 ms, passes
		// in no time (the judge's connection at 0 woke the dispatcher on
		// an empty queue: held 0-60 ms). Each result frees the slot and
		// wakes the dispatcher on an empty queue: with idle passes of 60
		// ms it is held 110-170 and 310-370 ms, so the tasks of 130 and
		// 350 ms wait 40 and 20 ms.
		for _, tc := range []struct {
			name    string
			w       schedtrace.LatencyWindow
			want    []float64
			windows int
		}{
			{"not recorded", schedtrace.LatencyWindow{}, []float64{0, 0, 0, 0}, 0},
			{"a mean", idle(schedtrace.LatencyWindow{}, 60, nil), []float64{0, 40, 0, 20}, 1},
			{"a spread within one bucket", idle(schedtrace.LatencyWindow{}, 60, &schedtrace.Hist{BoundsMs: []float64{59.999, 60}, Counts: []int64{0, 4, 0}}),
				[]float64{0, 40, 0, 20}, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tr := steadyTrace(4, 0, 10, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
				for k, at := range []int64{100, 130, 300, 350} {
					tr.Tasks[k].AtMs = at
				}
				tr.Latency = []schedtrace.LatencyWindow{tc.w}
				r, err := Replay(tr, "", quiet...)
				if err != nil {
					t.Fatal(err)
				}
				if r.Model.IdleWindows != tc.windows {
					t.Errorf("model: %d idle windows, want %d", r.Model.IdleWindows, tc.windows)
				}
				got := simWaits(r)
				for k, w := range tc.want {
					if id := int64(k + 1); math.Abs(got[id]-w) > 0.01 {
						t.Errorf("task %d waited %v ms, want %v", id, got[id], w)
					}
				}
			})
		}
	})
	t.Run("no free slot", func(t *testing.T) {
		// One slot, a task of 100 ms at 200 ms and one at 210 ms (after
		// the idle pass the judge's connection started at 0); placing
		// passes take 5 ms (the first task's work runs 205-305 ms). The
		// second task's arrival runs a pass that places nothing: with idle
		// passes of 150 ms it holds the dispatcher until 360 ms, past the
		// slot freed at 305 ms, and the task waits 150 ms; without, that
		// pass takes a placing pass's 5 ms and the task waits for the
		// slot: 95.
		for _, tc := range []struct {
			name string
			w    schedtrace.LatencyWindow
			want float64
		}{
			{"not recorded", placing, 95},
			{"a mean", idle(placing, 150, nil), 150},
			{"shorter than the wait for the slot", idle(placing, 50, nil), 95},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tr := steadyTrace(2, 10, 100, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
				tr.Tasks[0].AtMs, tr.Tasks[1].AtMs = 200, 210
				tr.Latency = []schedtrace.LatencyWindow{tc.w}
				r, err := Replay(tr, "", quiet...)
				if err != nil {
					t.Fatal(err)
				}
				if got := simWaits(r); !near(got[1], 0) || math.Abs(got[2]-tc.want) > 1e-3 {
					t.Errorf("waits %v, want 0 and %v ms", got, tc.want)
				}
			})
		}
	})
}

// TestReplayPassMoment: with a pass moment, the passes of one moment
// take the same latency, drawn from the window's spread; moments apart
// draw apart.
func TestReplayPassMoment(t *testing.T) {
	// Twenty tasks of 50 ms at once on one slot, passes of 30-40 ms:
	// each task holds the slot its pass and its work, so the gaps between
	// the waits are the passes' latencies plus 50.
	tr := steadyTrace(20, 0, 50, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	tr.Latency = []schedtrace.LatencyWindow{{PassMs: 35, PassHist: &schedtrace.Hist{BoundsMs: []float64{30, 40}, Counts: []int64{0, 9, 0}}}}
	passes := func(moment time.Duration) (byMoment map[int64]map[float64]bool, all map[float64]bool) {
		t.Helper()
		r, err := Replay(tr, "", append([]ReplayOption{ReplayPassMoment(moment)}, quiet...)...)
		if err != nil {
			t.Fatal(err)
		}
		got := simWaits(r)
		byMoment, all = map[int64]map[float64]bool{}, map[float64]bool{}
		for id := int64(1); id < 20; id++ {
			d := math.Round((got[id+1]-got[id]-50)*100) / 100 // the waits are in µs
			if d <= 30 || d > 40 {
				t.Fatalf("moment %v: task %d's pass took %v ms, want within (30, 40]", moment, id, d)
			}
			k := int64(0)
			if moment > 0 {
				k = int64(got[id] / float64(moment.Milliseconds()))
			}
			if byMoment[k] == nil {
				byMoment[k] = map[float64]bool{}
			}
			byMoment[k][d], all[d] = true, true
		}
		return byMoment, all
	}
	if _, all := passes(0); len(all) < 10 {
		t.Errorf("pass by pass: %d distinct latencies among 19 passes, want them drawn apart", len(all))
	}
	if _, all := passes(time.Minute); len(all) != 1 {
		t.Errorf("one moment: %d distinct latencies, want one", len(all))
	}
	byMoment, all := passes(200 * time.Millisecond)
	for k, ds := range byMoment {
		if len(ds) != 1 {
			t.Errorf("moment %d: %d distinct latencies, want one", k, len(ds))
		}
	}
	if len(byMoment) < 5 || len(all) < 3 {
		t.Errorf("200 ms moments: %d moments, %d distinct latencies; want several of each", len(byMoment), len(all))
	}
	// By default, half-second moments.
	if r, err := Replay(tr, "", quiet...); err != nil || r.Model.PassMomentMs != 500 {
		t.Errorf("by default: pass moment %v ms (%v), want 500", r.Model.PassMomentMs, err)
	}
	if _, err := Replay(tr, "", ReplayPassMoment(-time.Second)); err == nil || !strings.Contains(err.Error(), "pass moment") {
		t.Errorf("a negative moment: %v, want an error naming it", err)
	}
}

// TestReplayReserve: the trace's reserve keeps slots free for the contest
// while a rejudge waits. One judge of 4 slots, a contest task every 100 ms
// of 250 ms (at most 3 at once) and a rejudge of 20 tasks of 1 s queued at
// the start. Without a reserve the rejudge takes every slot the contest
// leaves and contest tasks wait for one to free; with half the slots
// reserved it runs one task at a time beside the contest and no contest
// task waits.
func TestReplayReserve(t *testing.T) {
	tr := steadyTrace(40, 100, 250, schedtrace.Judge{ID: "a", Slots: 4, Speed: 1})
	for k := range tr.Tasks {
		tr.Tasks[k].Priority = int(protocol.PriorityContest)
	}
	for i := range 20 {
		tr.Background = append(tr.Background, schedtrace.Task{SubmissionID: int64(100 + i), AtMs: 0, ProblemID: 2, Language: "cpp",
			Priority: int(protocol.PriorityRejudge), WorkMs: 1000})
	}
	waited := func(reserve float64) (n int, max float64, r ReplayResult) {
		tr.Reserve = reserve
		r, err := Replay(tr, "")
		if err != nil {
			t.Fatal(err)
		}
		if r.Model.Reserve != reserve || r.Lost != 0 || r.Undispatched != 0 || r.All.Sim.Count != 40 {
			t.Fatalf("reserve %v: model %+v, lost %d, never dispatched %d, compared %d", reserve, r.Model, r.Lost, r.Undispatched, r.All.Sim.Count)
		}
		for _, w := range simWaits(r) {
			if w > 0 {
				n++
			}
			max = math.Max(max, w)
		}
		return n, max, r
	}
	n, most, _ := waited(0)
	if n < 10 || most < 100 {
		t.Fatalf("without a reserve %d contest tasks waited (at most %v ms): want the rejudge in their way", n, most)
	}
	if n, most, _ := waited(0.5); n != 0 {
		t.Fatalf("with half the slots reserved %d contest tasks waited (at most %v ms), want none", n, most)
	}
}

// TestReplayHolds: the replay counts its own passes' holds of each task
// beside the hub's (the trace's Task.Holds): one slot, a task every
// 100 ms of 150 ms work, so every task but the first finds the slot taken
// and is held busy at least by the pass its arrival woke; the hub's side
// is what the trace says, and the slow set is the hub's waits of 40 ms or
// more.
func TestReplayHolds(t *testing.T) {
	tr := steadyTrace(6, 100, 150, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	for k := range tr.Tasks {
		tk := &tr.Tasks[k]
		wait := int64(50 * k) // as the one slot serves them
		tk.JudgeID, tk.PlacedMs, tk.DispatchMs = "a", tk.AtMs+wait, tk.AtMs+wait+1
		if k > 0 {
			tk.Holds = &schedtrace.Holds{Busy: 1}
		}
	}
	// The hub held the last for affinity too, from 10 ms after its enqueue.
	last := &tr.Tasks[len(tr.Tasks)-1]
	last.Holds.Affinity, last.Holds.AffinityMs = 2, last.AtMs+10
	r, err := Replay(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	h := r.Holds
	if !h.Told || h.All.Tasks != 6 || h.All.Hub.Busy != 5 || h.All.Hub.Never != 1 || h.All.Hub.Affinity != 1 {
		t.Fatalf("holds %+v: want told, 6 tasks, the hub's 5 busy, 1 never, 1 for affinity", h)
	}
	if want := float64(last.PlacedMs - last.Holds.AffinityMs); !near(h.All.Hub.AffinityWaitMs, want) {
		t.Errorf("the hub's affinity wait %v ms, want %v", h.All.Hub.AffinityWaitMs, want)
	}
	if h.All.Sim.Busy != 5 || h.All.Sim.Never != 1 || h.All.Sim.Affinity != 0 {
		t.Errorf("the simulator's holds %+v: want 5 busy, 1 never, none for affinity", h.All.Sim)
	}
	if h.Slow.Tasks != 5 || h.Slow.Hub.Busy != 5 || h.Slow.Sim.Busy != 5 {
		t.Errorf("slow set %+v: want the 5 that waited 50 ms or more, each held busy on both sides", h.Slow)
	}
	for _, d := range r.Dispatches {
		if held := d.SubmissionID > 1; held != d.SimHolds.Any() || held != d.HubHolds.Any() {
			t.Errorf("task %d: hub holds %+v, sim holds %+v", d.SubmissionID, d.HubHolds, d.SimHolds)
		}
	}
	if s := h.Summary(); !strings.Contains(s, "of the 6 tasks both placed, the hub held 5 busy, 1 for affinity") ||
		!strings.Contains(s, "the simulator held 5 busy, 0 for affinity, 1 never held") {
		t.Errorf("summary %q", s)
	}

	// A trace whose hub did not tell its holds says nothing of them.
	for k := range tr.Tasks {
		tr.Tasks[k].Holds = nil
	}
	if r, err = Replay(tr, ""); err != nil {
		t.Fatal(err)
	}
	if r.Holds.Told || r.Holds.Summary() != "" {
		t.Errorf("holds %+v told for a trace without them", r.Holds)
	}
}

// The replay reads what its policy has learnt of what downloads cost at
// the times the trace's hub was read, and sets the two side by side. One
// slot, two tasks of one problem, a 500 ms download: the first fetches
// the data (overhead 500 ms, done at 600 ms), the second finds it.
func TestReplayLearnt(t *testing.T) {
	tr := steadyTrace(2, 0, 100, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	for k := range tr.Tasks {
		tr.Tasks[k].DataHash = "h1"
	}
	tr.Learnt = []schedtrace.Learnt{{AtMs: 0}, {AtMs: 650, ColdMs: 9, FetchMs: 7}, {AtMs: 60000, WarmMs: 1, ColdMs: 9, FetchMs: 8}}
	fixed := ReplayDownload(func(string) time.Duration { return 500 * time.Millisecond })
	r, err := Replay(tr, "", fixed)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Learnt) != 3 {
		t.Fatalf("learnt: %+v", r.Learnt)
	}
	for i, p := range r.Learnt {
		if p.Hub != tr.Learnt[i] || p.Sim.AtMs != tr.Learnt[i].AtMs {
			t.Fatalf("[%d] = %+v, want the hub's %+v beside the replay's at the same time", i, p, tr.Learnt[i])
		}
	}
	if s := r.Learnt[0].Sim; s != (schedtrace.Learnt{}) {
		t.Fatalf("at 0 the replay had learnt %+v, want nothing", s)
	}
	// At 650 ms the first result (cold) is in, the second (warm) not.
	if s := r.Learnt[1].Sim; math.Abs(s.ColdMs-500) > 1 || s.WarmMs != 0 || math.Abs(s.FetchMs-500) > 1 {
		t.Fatalf("at 650 ms: %+v, want cold and fetch 500 ms, no warm", s)
	}
	// After the end (read as the replay ended): both in; the warm
	// placement's overhead is none.
	if s := r.Learnt[2].Sim; math.Abs(s.ColdMs-500) > 1 || s.WarmMs > 1 || math.Abs(s.FetchMs-500) > 1 {
		t.Fatalf("at the end: %+v, want cold and fetch 500 ms, warm 0", s)
	}
	// A policy that learns nothing: no pairs.
	if r, err = Replay(tr, "least_conn", fixed); err != nil || len(r.Learnt) != 0 {
		t.Fatalf("least_conn: %+v, %v", r.Learnt, err)
	}
}

// A task's recorded compile is left out of the run its result reports, as
// a result's case times leave it out in the hub: the policy learns the
// compile as overhead, not as run time (the rehearsal's hub learnt runs
// without it; until 2026-12-07 the replay's learnt them with it).
func TestReplayLeavesTheCompileOutOfTheRun(t *testing.T) {
	tr := steadyTrace(2, 1000, 400, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1, Warm: []string{"h1"}})
	for k := range tr.Tasks {
		tr.Tasks[k].DataHash = "h1"
	}
	tr.Learnt = []schedtrace.Learnt{{AtMs: 60000}}
	for _, tc := range []struct {
		compile int64
		warm    float64 // ms: the overhead learnt
	}{{0, 0}, {300, 300}} {
		for k := range tr.Tasks {
			tr.Tasks[k].CompileMs = tc.compile
		}
		r, err := Replay(tr, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Learnt) != 1 || math.Abs(r.Learnt[0].Sim.WarmMs-tc.warm) > 1 {
			t.Fatalf("compile %d ms: learnt %+v, want a warm overhead of %v ms", tc.compile, r.Learnt, tc.warm)
		}
	}
}

// TestReplayRecordedPasses: where the trace has the hub's own passes, each
// of the replay's passes takes as long as the hub's pass of its kind that
// began nearest in time, not the windows' (which ReplayRecordedPasses(false)
// takes again); the replay's passes are set beside the hub's by window.
func TestReplayRecordedPasses(t *testing.T) {
	// Ten tasks of 50 ms at once on one slot: task k waits the k passes
	// and works before it. The hub's placing passes took 20 ms near the
	// start and 1 ms ten seconds on; its windows say 3 ms. The judge's
	// connection at 0 wakes the dispatcher on an empty queue: a pass that
	// places nothing, 0.7 ms as the hub's nearest such pass (none in the
	// windows), which every task waits for.
	tr := steadyTrace(10, 0, 50, schedtrace.Judge{ID: "a", Slots: 1, Speed: 1})
	tr.Latency = []schedtrace.LatencyWindow{{PassMs: 3}}
	tr.Passes = []schedtrace.Pass{{AtUs: 0, TookUs: 20000, Placed: 1}, {AtUs: 100, TookUs: 700}, {AtUs: 10_000_000, TookUs: 1000, Placed: 4},
		{AtUs: 40_000_000, TookUs: 300}}
	tr.PassesLost = 2
	for _, tc := range []struct {
		name           string
		opts           []ReplayOption
		passMs, idleMs float64
		recorded       int
	}{
		{"the hub's passes", nil, 20, 0.7, 4},
		{"the windows'", []ReplayOption{ReplayRecordedPasses(false)}, 3, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Replay(tr, "", append(slices.Clone(quiet), tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			if r.Model.RecordedPasses != tc.recorded || r.Model.PassesLost != 2 {
				t.Errorf("model: %d recorded passes, %d lost; want %d and 2", r.Model.RecordedPasses, r.Model.PassesLost, tc.recorded)
			}
			for id, w := range simWaits(r) {
				if want := tc.idleMs + float64(id-1)*(50+tc.passMs); math.Abs(w-want) > 1e-3 {
					t.Errorf("task %d waited %v ms, want %v", id, w, want)
				}
			}
			// The hub's passes by window beside the replay's: its two
			// windows (0 s and 30 s), the replay's ten placing passes in
			// the first.
			if len(r.Passes) != 2 || r.Passes[0].FromMs != 0 || r.Passes[1].FromMs != 30000 {
				t.Fatalf("pass windows %+v", r.Passes)
			}
			hub, sim := r.Passes[0].Hub, r.Passes[0].Sim
			if hub.Placing != 2 || hub.Tasks != 5 || !near(hub.TookMs, 10.5) || hub.Idle != 1 || !near(hub.IdleMs, 0.7) {
				t.Errorf("the hub's first window %+v", hub)
			}
			if r.Passes[1].Hub.Idle != 1 || r.Passes[1].Sim.Placing != 0 {
				t.Errorf("the second window %+v", r.Passes[1])
			}
			if sim.Placing != 10 || sim.Tasks != 10 || !near(sim.TookMs, tc.passMs) {
				t.Errorf("the replay's first window %+v: want 10 passes of one task, %v ms each", sim, tc.passMs)
			}
		})
	}
}

func TestPassTimesNearest(t *testing.T) {
	p := passTimes{at: []float64{1, 2, 2, 5}, took: []float64{0.1, 0.2, 0.3, 0.5}}
	for _, tc := range []struct {
		t, want float64
	}{
		{0, 0.1},   // before the first
		{1.4, 0.1}, // nearer the first
		{1.5, 0.1}, // a tie: the earlier
		{1.6, 0.2}, // the first of two at one time
		{3.5, 0.3}, // a tie between 2 and 5: the earlier (the later of the two at 2)
		{3.6, 0.5},
		{9, 0.5}, // after the last
	} {
		if got, ok := p.nearest(tc.t); !ok || got != tc.want {
			t.Errorf("nearest(%v) = %v, %v; want %v", tc.t, got, ok, tc.want)
		}
	}
	if _, ok := (&passTimes{}).nearest(1); ok {
		t.Error("an empty kind has a nearest pass")
	}
}

package schedtrace

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sample() Trace {
	return Trace{
		Start:  time.Date(2025, 3, 1, 9, 0, 0, 123456789, time.UTC),
		Policy: "default",
		PassMs: 1.25, ResultMs: 3.5,
		Judges: []Judge{
			{ID: "sim-01", Slots: 8, Speed: 1.5, Warm: []string{"abc", "def"}},
			{ID: "sim-02", Slots: 4, Speed: 0.75, JoinMs: 1000, LeaveMs: 60000},
			{ID: "sim-02", Slots: 4, Speed: 0.75, JoinMs: 65000}, // restarted
		},
		Tasks: []Task{
			{SubmissionID: 1, AtMs: 0, ProblemID: 7, DataHash: "abc", Language: "cpp", Priority: 2, WorkMs: 1500, DispatchMs: 3, JudgeID: "sim-01"},
			{SubmissionID: 2, AtMs: 10, ProblemID: 8, Language: "python3", Priority: 1, WorkMs: 0},
			{SubmissionID: 3, AtMs: 20, ProblemID: 0, DataHash: "def", Language: "cpp", WorkMs: 99, DispatchMs: 0, JudgeID: "sim-02",
				Holds: &Holds{Busy: 2, Affinity: 1, AffinityMs: 25}},
			{SubmissionID: 4, AtMs: 30, ProblemID: 7, Language: "cpp", Priority: 2, WorkMs: 450, CompileMs: 300,
				CasesMs: []int64{40, 0, 60}, Verdict: "WA", VerdictMs: 900, RanOn: "sim-01"},
		},
		Background: []Task{{SubmissionID: 4, AtMs: 2000, ProblemID: 7, Language: "cpp", Priority: 0, WorkMs: 400}},
	}
}

// same compares traces with Start by instant and empty lists as nil.
func same(a, b Trace) bool {
	if !a.Start.Equal(b.Start) {
		return false
	}
	a.Start, b.Start = time.Time{}, time.Time{}
	for _, t := range []*Trace{&a, &b} {
		if len(t.Judges) == 0 {
			t.Judges = nil
		}
		if len(t.Tasks) == 0 {
			t.Tasks = nil
		}
	}
	return reflect.DeepEqual(a, b)
}

func TestRoundTrip(t *testing.T) {
	noTasks := sample()
	noTasks.Tasks = nil
	local := sample()
	local.Start = time.Date(2025, 3, 1, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	reserve := sample()
	reserve.Reserve = 0.125
	windows := sample()
	windows.PassMs, windows.ResultMs = 30, 110
	windows.Latency = []LatencyWindow{{AtMs: 0, PassMs: 2.5, ResultMs: 0}, {AtMs: 5000, PassMs: 1700, ResultMs: 950.25,
		PassHist: &Hist{BoundsMs: []float64{0.5, 250, 1000}, Counts: []int64{3, 0, 1, 2}}, ResultHist: &Hist{BoundsMs: []float64{10}, Counts: []int64{7, 1}}}}
	learnt := sample()
	learnt.Learnt = []Learnt{{AtMs: 0}, {AtMs: 5000, WarmMs: 12.5, ColdMs: 80, FetchMs: 61.25, SpeedLo: 0.875, SpeedHi: 1.125}}
	passes := sample()
	passes.Passes = []Pass{{AtUs: 0, TookUs: 1250, Placed: 3}, {AtUs: 1250, TookUs: 80}, {AtUs: 1250, TookUs: 0, Placed: 1}}
	passes.PassesLost = 7
	faults := sample()
	faults.Faults = []Fault{{AtMs: 60000, Kind: "kill -9 a web node"}, {AtMs: 60000, Kind: "restart Redis"}, {AtMs: 75000, Kind: "kill -9 a judge"}}
	for _, tc := range []struct {
		name string
		tr   Trace
	}{
		{"sample", sample()},
		{"learnt", learnt},
		{"passes", passes},
		{"faults", faults},
		{"no tasks", noTasks},
		{"zone", local},
		{"latency windows", windows},
		{"reserve", reserve},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tc.tr); err != nil {
				t.Fatal(err)
			}
			got, err := Read(&buf)
			if err != nil {
				t.Fatalf("read back: %v\n%s", err, buf.String())
			}
			if !same(got, tc.tr) {
				t.Fatalf("round trip:\n got %+v\nwant %+v", got, tc.tr)
			}
		})
	}
}

func TestWriteOneLinePerItem(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	// head, judges key, 3 judges, tasks key, 4 tasks, background key, 1
	// background task (the last ends "]}")
	if len(lines) != 12 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	if !strings.Contains(lines[7], `"submission_id":2`) || strings.Contains(lines[7], "dispatch_ms") {
		t.Fatalf("task line %q", lines[7])
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Trace)
		want string // "" = valid
	}{
		{"sample", func(*Trace) {}, ""},
		{"dispatch before enqueue", func(t *Trace) { t.Tasks[0].AtMs = 10 }, ""},
		{"no judges", func(t *Trace) { t.Judges = nil; t.Tasks = nil }, "judges: none"},
		{"pass latency", func(t *Trace) { t.PassMs = 1.5 }, ""},
		{"negative pass latency", func(t *Trace) { t.PassMs = -1 }, "pass_ms: -1 not in"},
		{"negative reserve", func(t *Trace) { t.Reserve = -0.1 }, "reserve: -0.1 not in"},
		{"reserve of every slot", func(t *Trace) { t.Reserve = 1 }, "reserve: 1 not in"},
		{"result latency", func(t *Trace) { t.ResultMs = 40 }, ""},
		{"negative result latency", func(t *Trace) { t.ResultMs = -2 }, "result_ms: -2 not in"},
		{"latency windows", func(t *Trace) {
			t.Latency = []LatencyWindow{{AtMs: 0, PassMs: 3, ResultMs: 0}, {AtMs: 5000, PassMs: 250, ResultMs: 1200}}
		}, ""},
		{"latency window before the start", func(t *Trace) { t.Latency = []LatencyWindow{{AtMs: -1}} }, "latency[0].at_ms: negative"},
		{"latency windows out of order", func(t *Trace) {
			t.Latency = []LatencyWindow{{AtMs: 5000}, {AtMs: 5000}}
		}, "latency[1].at_ms: 5000 not after latency[0]'s 5000"},
		{"negative window pass", func(t *Trace) { t.Latency = []LatencyWindow{{PassMs: -1}} }, "latency[0].pass_ms: -1 not in"},
		{"NaN window result", func(t *Trace) { t.Latency = []LatencyWindow{{ResultMs: math.NaN()}} }, "latency[0].result_ms: NaN not in"},
		{"window result too long", func(t *Trace) { t.Latency = []LatencyWindow{{ResultMs: 60001}} }, "latency[0].result_ms: 60001 not in"},
		{"window histograms", func(t *Trace) {
			t.Latency = []LatencyWindow{{PassHist: &Hist{BoundsMs: []float64{1, 5}, Counts: []int64{0, 4, 1}}, ResultHist: &Hist{Counts: []int64{2}}}}
		}, ""},
		{"histogram counts short", func(t *Trace) {
			t.Latency = []LatencyWindow{{PassHist: &Hist{BoundsMs: []float64{1, 5}, Counts: []int64{0, 4}}}}
		}, "latency[0].pass_hist.counts: 2 for 2 bounds"},
		{"histogram bounds out of order", func(t *Trace) {
			t.Latency = []LatencyWindow{{}, {AtMs: 5, ResultHist: &Hist{BoundsMs: []float64{5, 5}, Counts: []int64{0, 4, 0}}}}
		}, "latency[1].result_hist.bounds_ms[1]: 5 not in (0, 60000]"},
		{"histogram bound zero", func(t *Trace) {
			t.Latency = []LatencyWindow{{PassHist: &Hist{BoundsMs: []float64{0}, Counts: []int64{0, 4}}}}
		}, "latency[0].pass_hist.bounds_ms[0]: 0 not in"},
		{"window wake", func(t *Trace) {
			t.Latency = []LatencyWindow{{WakeMs: 12.5, WakeHist: &Hist{BoundsMs: []float64{1, 50}, Counts: []int64{0, 3, 1}}}}
		}, ""},
		{"window wake negative", func(t *Trace) { t.Latency = []LatencyWindow{{WakeMs: -1}} }, "latency[0].wake_ms: -1 not in"},
		{"window wake histogram short", func(t *Trace) {
			t.Latency = []LatencyWindow{{WakeHist: &Hist{BoundsMs: []float64{1}, Counts: []int64{1}}}}
		}, "latency[0].wake_hist.counts: 1 for 1 bounds"},
		{"window idle passes", func(t *Trace) {
			t.Latency = []LatencyWindow{{IdleMs: 3.5, IdleHist: &Hist{BoundsMs: []float64{1, 5}, Counts: []int64{1, 2, 0}}}}
		}, ""},
		{"window idle passes too long", func(t *Trace) { t.Latency = []LatencyWindow{{IdleMs: 60001}} }, "latency[0].idle_ms: 60001 not in"},
		{"window idle histogram short", func(t *Trace) {
			t.Latency = []LatencyWindow{{IdleHist: &Hist{BoundsMs: []float64{1, 2}, Counts: []int64{1, 1}}}}
		}, "latency[0].idle_hist.counts: 2 for 2 bounds"},
		{"window notices", func(t *Trace) {
			t.Latency = []LatencyWindow{{NoticeMs: 0.8, NoticeHist: &Hist{BoundsMs: []float64{1, 5}, Counts: []int64{4, 1, 0}}}}
		}, ""},
		{"window notices NaN", func(t *Trace) { t.Latency = []LatencyWindow{{NoticeMs: math.NaN()}} }, "latency[0].notice_ms: NaN not in"},
		{"pass at a negative time", func(t *Trace) { t.Passes = []Pass{{AtUs: -1}} }, "passes[0].at_us: negative"},
		{"passes out of order", func(t *Trace) { t.Passes = []Pass{{AtUs: 5}, {AtUs: 4}} }, "passes[1].at_us: 4 before passes[0]'s 5"},
		{"pass took negative", func(t *Trace) { t.Passes = []Pass{{TookUs: -1}} }, "passes[0].took_us: -1 not in [0, 60000000]"},
		{"pass took beyond the bound", func(t *Trace) { t.Passes = []Pass{{TookUs: MaxLatencyMs*1000 + 1}} }, "passes[0].took_us: 60000001 not in"},
		{"pass placed negative", func(t *Trace) { t.Passes = []Pass{{Placed: -2}} }, "passes[0].placed: negative"},
		{"passes lost negative", func(t *Trace) { t.PassesLost = -1 }, "passes_lost: negative"},
		{"fault at a negative time", func(t *Trace) { t.Faults = []Fault{{AtMs: -1, Kind: "k"}} }, "faults[0].at_ms: negative"},
		{"faults out of order", func(t *Trace) { t.Faults = []Fault{{AtMs: 5, Kind: "k"}, {AtMs: 4, Kind: "k"}} }, "faults[1].at_ms: 4 before faults[0]'s 5"},
		{"fault without a kind", func(t *Trace) { t.Faults = []Fault{{AtMs: 5}} }, "faults[0].kind: empty"},
		{"learnt at a negative time", func(t *Trace) { t.Learnt = []Learnt{{AtMs: -1}} }, "learnt[0].at_ms: negative"},
		{"learnt out of order", func(t *Trace) { t.Learnt = []Learnt{{AtMs: 5}, {AtMs: 5}} }, "learnt[1].at_ms: 5 not after learnt[0]'s 5"},
		{"learnt warm negative", func(t *Trace) { t.Learnt = []Learnt{{WarmMs: -1}} }, "learnt[0].warm_ms: -1 not in"},
		{"learnt cold NaN", func(t *Trace) { t.Learnt = []Learnt{{ColdMs: math.NaN()}} }, "learnt[0].cold_ms: NaN not in"},
		{"learnt fetch beyond the bound", func(t *Trace) { t.Learnt = []Learnt{{FetchMs: MaxLatencyMs + 1}} }, "learnt[0].fetch_ms: 60001 not in"},
		{"learnt speeds out of order", func(t *Trace) { t.Learnt = []Learnt{{SpeedLo: 1.2, SpeedHi: 0.9}} }, "learnt[0].speed_lo, speed_hi: 1.2, 0.9 not"},
		{"learnt speed negative", func(t *Trace) { t.Learnt = []Learnt{{SpeedLo: -1, SpeedHi: 1}} }, "learnt[0].speed_lo, speed_hi: -1, 1 not"},
		{"window notice histogram short", func(t *Trace) {
			t.Latency = []LatencyWindow{{NoticeHist: &Hist{BoundsMs: []float64{1}, Counts: []int64{2}}}}
		}, "latency[0].notice_hist.counts: 1 for 1 bounds"},
		{"histogram negative count", func(t *Trace) {
			t.Latency = []LatencyWindow{{PassHist: &Hist{BoundsMs: []float64{1}, Counts: []int64{0, -4}}}}
		}, "latency[0].pass_hist.counts[1]: negative"},
		{"a rejudge of a task in the background", func(t *Trace) {
			t.Background = []Task{{SubmissionID: t.Tasks[0].SubmissionID, AtMs: 5, Language: "cpp17", Priority: 0, WorkMs: 10}}
		}, ""},
		{"background with a dispatch", func(t *Trace) {
			t.Background = []Task{{SubmissionID: 1, Language: "cpp17", WorkMs: 10, JudgeID: "sim-01", DispatchMs: 3}}
		}, "background[0]: a background task has no recorded dispatch"},
		{"background without language", func(t *Trace) { t.Background = []Task{{SubmissionID: 1, WorkMs: 10}} }, "background[0].language: empty"},
		{"background of negative work", func(t *Trace) {
			t.Background = []Task{{SubmissionID: 1, Language: "c", WorkMs: -1}}
		}, "background[0].work_ms: negative"},
		{"empty id", func(t *Trace) { t.Judges[0].ID = "" }, "judges[0].id: empty"},
		{"zero slots", func(t *Trace) { t.Judges[1].Slots = 0 }, "judges[1].slots: 0 < 1"},
		{"zero speed", func(t *Trace) { t.Judges[0].Speed = 0 }, "judges[0].speed"},
		{"negative speed", func(t *Trace) { t.Judges[0].Speed = -1 }, "judges[0].speed"},
		{"negative join", func(t *Trace) { t.Judges[0].JoinMs = -1 }, "judges[0].join_ms: negative"},
		{"negative leave", func(t *Trace) { t.Judges[0].LeaveMs = -1 }, "judges[0].leave_ms: negative"},
		{"leave before join", func(t *Trace) { t.Judges[1].LeaveMs = 1000 }, "judges[1].leave_ms: 1000 not after join_ms 1000"},
		{"overlapping reconnect", func(t *Trace) { t.Judges[2].JoinMs = 59999 }, `judges[2].id: "sim-02" overlaps judges[1]`},
		{"reconnect of a judge never left", func(t *Trace) { t.Judges[2].ID = "sim-01" }, `judges[2].id: "sim-01" overlaps judges[0]`},
		{"empty warm hash", func(t *Trace) { t.Judges[0].Warm[1] = "" }, "judges[0].warm[1]: empty"},
		{"repeated warm hash", func(t *Trace) { t.Judges[0].Warm[1] = "abc" }, `judges[0].warm[1]: "abc" repeats`},
		{"zero submission", func(t *Trace) { t.Tasks[1].SubmissionID = 0 }, "tasks[1].submission_id: 0 not positive"},
		{"duplicate submission", func(t *Trace) { t.Tasks[2].SubmissionID = 1 }, "tasks[2].submission_id: 1 repeats tasks[0]"},
		{"negative at", func(t *Trace) { t.Tasks[1].AtMs = -5 }, "tasks[1].at_ms: negative"},
		{"negative problem", func(t *Trace) { t.Tasks[1].ProblemID = -5 }, "tasks[1].problem_id: negative"},
		{"no language", func(t *Trace) { t.Tasks[0].Language = "" }, "tasks[0].language: empty"},
		{"priority", func(t *Trace) { t.Tasks[2].Priority = 9 }, "tasks[2].priority: 9 unknown"},
		{"negative work", func(t *Trace) { t.Tasks[3-1].WorkMs = -1 }, "tasks[2].work_ms: negative"},
		{"negative dispatch", func(t *Trace) { t.Tasks[0].DispatchMs = -1 }, "tasks[0].dispatch_ms: negative"},
		{"dispatch without judge", func(t *Trace) { t.Tasks[1].DispatchMs = 40 }, "tasks[1].dispatch_ms: set without judge_id"},
		{"negative held", func(t *Trace) { t.Tasks[0].HeldMs = -1 }, "tasks[0].held_ms: negative"},
		{"held without judge", func(t *Trace) { t.Tasks[1].HeldMs = 700 }, "tasks[1].held_ms: set without judge_id"},
		{"negative slot", func(t *Trace) { t.Tasks[0].SlotMs = -1 }, "tasks[0].slot_ms: -1 not in [0, 60000]"},
		{"slot NaN", func(t *Trace) { t.Tasks[0].SlotMs = math.NaN() }, "tasks[0].slot_ms: NaN not in [0, 60000]"},
		{"slot without judge", func(t *Trace) { t.Tasks[1].SlotMs = 412.5 }, "tasks[1].slot_ms: set without judge_id"},
		{"slot over a minute", func(t *Trace) { t.Tasks[0].SlotMs = 60000.5 }, "tasks[0].slot_ms: 60000.5 not in [0, 60000]"},
		{"negative placed", func(t *Trace) { t.Tasks[0].PlacedMs = -1 }, "tasks[0].placed_ms: negative"},
		{"placed without judge", func(t *Trace) { t.Tasks[1].PlacedMs = 700 }, "tasks[1].placed_ms: set without judge_id"},
		{"negative noticed", func(t *Trace) { t.Tasks[0].NoticedMs = -1 }, "tasks[0].noticed_ms: negative"},
		{"noticed without judge", func(t *Trace) { t.Tasks[1].NoticedMs = 690 }, "tasks[1].noticed_ms: set without judge_id"},
		{"negative holds", func(t *Trace) { t.Tasks[0].Holds = &Holds{Busy: -1} }, "tasks[0].holds: negative"},
		{"affinity hold without its time", func(t *Trace) { t.Tasks[0].Holds = &Holds{Affinity: 2} }, "tasks[0].holds: affinity_ms is set exactly when affinity > 0"},
		{"affinity time without a hold", func(t *Trace) { t.Tasks[0].Holds = &Holds{Busy: 1, AffinityMs: 700} }, "tasks[0].holds: affinity_ms is set exactly when affinity > 0"},
		{"holds without judge", func(t *Trace) { t.Tasks[1].Holds = &Holds{Busy: 1} }, "tasks[1].holds: set without judge_id"},
		{"background with holds", func(t *Trace) { t.Background = []Task{{SubmissionID: 9, Language: "cpp17", Holds: &Holds{Reserve: 1}}} }, "background[0]: a background task has no recorded dispatch"},
		{"unknown judge", func(t *Trace) { t.Tasks[0].JudgeID = "sim-99" }, `tasks[0].judge_id: "sim-99" is not among the judges`},
		{"negative compile", func(t *Trace) { t.Tasks[3].CompileMs = -1 }, "tasks[3].compile_ms: -1 not in [0, work_ms 450]"},
		{"compile beyond work", func(t *Trace) { t.Tasks[3].CompileMs = 451 }, "tasks[3].compile_ms: 451 not in"},
		{"negative case", func(t *Trace) { t.Tasks[3].CasesMs[1] = -2 }, "tasks[3].cases_ms[1]: negative"},
		{"not a final verdict", func(t *Trace) { t.Tasks[3].Verdict = "judging" }, `tasks[3].verdict: "judging" is not a final verdict`},
		{"unknown verdict", func(t *Trace) { t.Tasks[3].Verdict = "XX" }, `tasks[3].verdict: "XX"`},
		{"negative verdict time", func(t *Trace) { t.Tasks[3].VerdictMs = -1 }, "tasks[3].verdict_ms: negative"},
		{"ran on an unknown judge", func(t *Trace) { t.Tasks[3].RanOn = "sim-99" }, `tasks[3].ran_on: "sim-99" is not among the judges`},
		{"cases beyond the work", func(t *Trace) { t.Tasks[3].CasesMs[2] = 200 }, "tasks[3].cases_ms: compile_ms + the cases at speed 1 = 660 ms: more than work_ms 450"},
		{"cases within the work on a slow judge", func(t *Trace) { t.Tasks[3].RanOn = "sim-02"; t.Tasks[3].CasesMs = []int64{100, 100} }, ""},
		{"cases beyond the work on a slow judge", func(t *Trace) { t.Tasks[3].RanOn = "sim-01"; t.Tasks[3].CasesMs = []int64{100, 100} }, "tasks[3].cases_ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := sample()
			tc.edit(&tr)
			err := tr.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v, want one containing %q wrapping ErrInvalid", err, tc.want)
			}
			// Write refuses what Validate refuses.
			var buf bytes.Buffer
			if werr := Write(&buf, tr); werr == nil || !errors.Is(werr, ErrInvalid) {
				t.Fatalf("Write: %v", werr)
			}
		})
	}
}

func TestValidateListsAtMostTen(t *testing.T) {
	tr := sample()
	for i := range 30 {
		tr.Tasks = append(tr.Tasks, Task{SubmissionID: int64(100 + i), Language: "cpp", WorkMs: -1})
	}
	err := tr.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if n := strings.Count(msg, "work_ms: negative"); n != 10 || !strings.Contains(msg, "and 20 more") {
		t.Fatalf("%d listed:\n%s", n, msg)
	}
}

func TestRead(t *testing.T) {
	var good bytes.Buffer
	if err := Write(&good, sample()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, in, want string // want "" = ok
	}{
		{"written", good.String(), ""},
		{"compact", `{"start":"2025-01-01T00:00:00Z","policy":"","judges":[{"id":"a","slots":1,"speed":1,"join_ms":0,"leave_ms":0}],"tasks":[{"submission_id":1,"at_ms":5,"problem_id":1,"language":"c","priority":1,"work_ms":3}]}`, ""},
		{"trailing space", good.String() + "\n\n", ""},
		{"empty", "", "EOF"},
		{"not json", "hello", "invalid character"},
		{"two objects", good.String() + good.String(), "data after the trace"},
		{"unknown field", `{"start":"2025-01-01T00:00:00Z","judges":[{"id":"a","slots":1,"speed":1}],"tasks":[],"extra":1}`, `unknown field "extra"`},
		{"wrong type", `{"judges":[{"id":"a","slots":"1","speed":1}]}`, "cannot unmarshal"},
		{"invalid", `{"judges":[{"id":"a","slots":1,"speed":1}],"tasks":[{"submission_id":1,"at_ms":0,"problem_id":1,"language":"c","priority":1,"work_ms":-3}]}`, "tasks[0].work_ms: negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	var good bytes.Buffer
	if err := Write(&good, sample()); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add([]byte(`{"judges":[{"id":"a","slots":1,"speed":1}],"tasks":[{"submission_id":1,"language":"c","work_ms":1,"judge_id":"a","dispatch_ms":4}]}`))
	f.Add([]byte(`{"judges":[{"id":"a","slots":1,"speed":1,"join_ms":5,"leave_ms":9},{"id":"a","slots":2,"speed":2,"join_ms":9}]}`))
	f.Add([]byte(`{"judges":null,"tasks":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := Read(bytes.NewReader(b))
		if err != nil {
			return
		}
		// What Read accepts is valid, writes, and reads back the same.
		if err := tr.Validate(); err != nil {
			t.Fatalf("Read returned an invalid trace: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, tr); err != nil {
			t.Fatalf("Write of a read trace: %v", err)
		}
		back, err := Read(&buf)
		if err != nil {
			t.Fatalf("read back: %v\n%s", err, buf.String())
		}
		if !same(back, tr) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", back, tr)
		}
	})
}

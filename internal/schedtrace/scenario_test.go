package schedtrace

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
)

func sampleTrace() Trace {
	return Trace{
		Judges: []Judge{{ID: "a", Slots: 2, Speed: 1}, {ID: "b", Slots: 4, Speed: 2, JoinMs: 500}},
		Tasks: []Task{
			{SubmissionID: 7, AtMs: 2000, ProblemID: 9, Language: "cpp", Priority: int(protocol.PriorityPractice), WorkMs: 1000},
			{SubmissionID: 8, AtMs: 1000, ProblemID: 3, Language: "py3", Priority: int(protocol.PriorityContest), WorkMs: 500},
		},
	}
}

func TestScenario(t *testing.T) {
	b, err := Scenario(sampleTrace(), ScenarioOptions{Name: "run", ExtraJudges: 2, HeartbeatSeconds: 1.5, ScaleToLoad: true})
	if err != nil {
		t.Fatal(err)
	}
	var f scenarioFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if f.Name != "run" || f.Heartbeat != 1.5 || !f.Arrivals.Trace.ScaleToLoad || f.Workload.Problems != 2 {
		t.Fatalf("%+v", f)
	}
	js := f.Cluster.Judges
	if len(js) != 4 || js[0].ID != "judge-01" || js[1].Join != 0.5 || js[2].ID != "extra-01" || js[2].Slots != 2 {
		t.Fatalf("judges %+v", js)
	}
	jobs := f.Arrivals.Trace.Jobs
	if len(jobs) != 2 || !reflect.DeepEqual(jobs[0], scenarioJob{At: 0, Problem: 0, Work: 0.5, Language: "py3", Class: "contest"}) ||
		!reflect.DeepEqual(jobs[1], scenarioJob{At: 1, Problem: 1, Work: 1, Language: "cpp", Class: "practice"}) {
		t.Fatalf("jobs %+v", jobs)
	}
	if lines := strings.Count(string(b), "\n"); lines != 16 {
		t.Fatalf("%d lines, want one per judge and job:\n%s", lines, b)
	}
}

// A recorded result keeps its cases at speed 1, its verdict, its judge
// (anonymised) and its time to verdict.
func TestScenarioRecordedResult(t *testing.T) {
	tr := sampleTrace()
	tr.Tasks[0].CompileMs, tr.Tasks[0].WorkMs = 100, 700
	tr.Tasks[0].CasesMs, tr.Tasks[0].Verdict, tr.Tasks[0].VerdictMs, tr.Tasks[0].RanOn = []int64{100, 200}, "WA", 4500, "b"
	b, err := Scenario(tr, ScenarioOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"b"`) {
		t.Fatalf("the judge's id leaked:\n%s", b)
	}
	var f scenarioFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	want := scenarioJob{At: 1, Problem: 1, Work: 0.7, Compile: 0.1, Language: "cpp", Class: "practice",
		Cases: []float64{0.2, 0.4}, Verdict: "WA", Judge: "judge-02", TTV: 2.5}
	if got := f.Arrivals.Trace.Jobs[1]; !reflect.DeepEqual(got, want) {
		t.Fatalf("job %+v, want %+v", got, want)
	}
}

func TestScenarioErrors(t *testing.T) {
	tests := []struct {
		name    string
		trace   func(*Trace)
		opts    ScenarioOptions
		want    string
		invalid bool
	}{
		{"an invalid trace", func(t *Trace) { t.Judges[0].Slots = 0 }, ScenarioOptions{}, "slots", true},
		{"no tasks", func(t *Trace) { t.Tasks = nil }, ScenarioOptions{}, "no tasks", true},
		{"a name with a space", nil, ScenarioOptions{Name: "my run"}, "no spaces", false},
		{"negative extra judges", nil, ScenarioOptions{ExtraJudges: -1}, "negative", false},
		{"negative heartbeat", nil, ScenarioOptions{HeartbeatSeconds: -1}, "negative", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := sampleTrace()
			if tc.trace != nil {
				tc.trace(&tr)
			}
			_, err := Scenario(tr, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, ErrInvalid) != tc.invalid {
				t.Fatalf("error %v, want %q (invalid %v)", err, tc.want, tc.invalid)
			}
		})
	}
}

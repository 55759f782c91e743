package sim

import (
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// TestExportedTraceIsAScenario: what schedtrace.Scenario writes (the
// `verdict-stack export-trace` command) parses as a scenario file and
// replays the recorded arrivals, work and classes, anonymised.
func TestExportedTraceIsAScenario(t *testing.T) {
	tr := schedtrace.Trace{
		Judges: []schedtrace.Judge{
			{ID: "host-a", Slots: 4, Speed: 1},
			{ID: "host-b", Slots: 2, Speed: 0.5, JoinMs: 2000, LeaveMs: 5000},
			{ID: "host-b", Slots: 2, Speed: 0.5, JoinMs: 7000},
		},
		Tasks: []schedtrace.Task{
			{SubmissionID: 90, AtMs: 1500, ProblemID: 1234, DataHash: "secret", Language: "py3", Priority: int(protocol.PriorityContest), WorkMs: 2500},
			{SubmissionID: 91, AtMs: 1000, ProblemID: 777, Language: "cpp17", Priority: int(protocol.PriorityRejudge), WorkMs: 400},
			{SubmissionID: 92, AtMs: 3000, ProblemID: 1234, Language: "cpp17", Priority: int(protocol.PriorityCustom), WorkMs: 100},
			// A result as MySQL keeps it: cases measured on host-b (speed 0.5).
			{SubmissionID: 93, AtMs: 7500, ProblemID: 777, Language: "cpp17", Priority: int(protocol.PriorityContest), WorkMs: 450,
				CompileMs: 300, CasesMs: []int64{200, 100}, Verdict: "TLE", VerdictMs: 9000, RanOn: "host-b"},
		},
	}
	b, err := schedtrace.Scenario(tr, schedtrace.ScenarioOptions{Name: "mine", ExtraJudges: 1})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScenario(b, "export")
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if len(sc.Cluster) != 3 {
		t.Fatalf("cluster %+v", sc.Cluster)
	}
	if j := sc.Cluster[1]; j.ID != "judge-02" || j.Cores != 2 || j.Speed != 0.5 || j.Join != 2 || j.Leave != 0 {
		t.Fatalf("a reconnecting judge is one judge from its first join on: %+v", j)
	}
	if j := sc.Cluster[2]; j.ID != "extra-01" || j.Cores != 4 || j.Speed != 1 {
		t.Fatalf("extra judge %+v", j)
	}
	if sc.Workload.Problems != 2 || sc.Arrivals.ScaleToLoad {
		t.Fatalf("workload %+v arrivals %+v", sc.Workload, sc.Arrivals)
	}
	want := []TraceJob{
		{At: 0, Problem: 0, Work: 0.4, Language: "cpp17", Class: "rejudge"},
		{At: 0.5, Problem: 1, Work: 2.5, Language: "py3", Class: "contest"},
		{At: 2, Problem: 1, Work: 0.1, Language: "cpp17", Class: "custom"},
		{At: 6.5, Problem: 0, Work: 0.45, Compile: 0.3, Language: "cpp17", Class: "contest", Recorded: 1.5},
	}
	if len(sc.Arrivals.Replay) != len(want) {
		t.Fatalf("jobs %+v", sc.Arrivals.Replay)
	}
	for i, w := range want {
		if sc.Arrivals.Replay[i] != w {
			t.Fatalf("job %d: %+v, want %+v", i, sc.Arrivals.Replay[i], w)
		}
	}
	if !strings.Contains(string(b), `"cases_s":[0.1,0.05],"verdict":"TLE","judge":"judge-02"`) {
		t.Fatalf("the recorded result is not in the scenario:\n%s", b)
	}
	for _, secret := range []string{"host-a", "host-b", "secret", "1234", "777", "\"90\""} {
		if strings.Contains(string(b), secret) {
			t.Fatalf("the export leaks %q:\n%s", secret, b)
		}
	}
}

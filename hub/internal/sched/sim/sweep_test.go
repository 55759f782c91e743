package sim

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestSweepsVaryOneThing: every sweep holds the steady scenario with one
// parameter changed, its values distinct and named uniquely, and the
// default value among them.
func TestSweepsVaryOneThing(t *testing.T) {
	ns := SweepNames()
	seen := map[string]bool{}
	for _, n := range ns {
		if seen[n] {
			t.Fatalf("scenario %q twice", n)
		}
		seen[n] = true
	}
	base := Scenarios()[0]
	want := map[string]func(Scenario) bool{
		"cluster size":        func(sc Scenario) bool { return len(sc.cluster()) == 8 },
		"judge heterogeneity": func(sc Scenario) bool { return sc.cluster()[0].Speed == DefaultCluster()[0].Speed },
		"test data size":      func(sc Scenario) bool { return sc.workload().DataMedianMB == DefaultWorkload().DataMedianMB },
		"number of problems":  func(sc Scenario) bool { return sc.workload().Problems == DefaultWorkload().Problems },
		"hubs":                func(sc Scenario) bool { return sc.Hubs <= 1 },
		"decision latency":    func(sc Scenario) bool { return sc.PassLatency == DefaultPassLatency },
	}
	for _, s := range Sweeps() {
		isDefault, ok := want[s.Param]
		if !ok {
			t.Fatalf("unexpected sweep %q", s.Param)
		}
		delete(want, s.Param)
		if len(s.Values) != len(s.Scenarios) || len(s.Scenarios) < 3 {
			t.Fatalf("%s: %d values, %d scenarios", s.Param, len(s.Values), len(s.Scenarios))
		}
		defaults := 0
		for _, sc := range s.Scenarios {
			if isDefault(sc) {
				defaults++
			}
			if sc.Heartbeat != base.Heartbeat || len(sc.Faults) != 0 {
				t.Fatalf("%s: %s is not the steady scenario", s.Param, sc.Name)
			}
		}
		if defaults != 1 {
			t.Fatalf("%s: %d scenarios at the default value, want 1", s.Param, defaults)
		}
	}
	if len(want) > 0 {
		t.Fatalf("missing sweeps: %v", want)
	}
	e := SweepExperiment(Quick, 2)
	if !slices.Contains(e.Policies, IdealWarm) || !slices.Contains(e.Policies, "window_swrr") || !slices.Contains(e.Policies, "pull") {
		t.Fatalf("sweep policies %v", e.Policies)
	}
}

func TestDocCarriesTheSweepNotes(t *testing.T) {
	b, err := os.ReadFile("../../../../docs/scheduling.md")
	if err != nil {
		t.Fatal("docs/scheduling.md beside the source:", err)
	}
	for _, s := range []string{docSweepsAfter, docFidelity, docMisses} {
		if !strings.Contains(string(b), s) {
			t.Fatal("docs/scheduling.md lacks a section of the report's text: rerun the lab")
		}
	}
}

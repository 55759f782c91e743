package feedback

import (
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// TestSubtasksDependencies: as the judge scores it, a subtask whose
// dependency is not passed in full shows 0 points, with its own verdict.
func TestSubtasksDependencies(t *testing.T) {
	rules := []protocol.SubtaskRule{
		{Name: "samples", Points: 0, Cases: []int{1}},
		{Name: "small", Points: 30, Cases: []int{2}, Depends: []string{"samples"}},
		{Name: "large", Points: 70, Cases: []int{3}, Depends: []string{"small"}},
	}
	ac := func(i int, score float64) protocol.CaseResult {
		return protocol.CaseResult{Case: i, Verdict: protocol.VerdictAC, Score: score}
	}
	wa := protocol.CaseResult{Case: 2, Verdict: protocol.VerdictWA}
	for _, tc := range []struct {
		name   string
		cases  []protocol.CaseResult
		scores []float64
	}{
		{"all pass", []protocol.CaseResult{ac(1, 0), ac(2, 30), ac(3, 70)}, []float64{0, 30, 70}},
		{"small fails", []protocol.CaseResult{ac(1, 0), wa, ac(3, 70)}, []float64{0, 0, 0}},
		{"samples not judged yet", []protocol.CaseResult{ac(2, 30), ac(3, 70)}, []float64{0, 0, 0}},
		{"large fails alone", []protocol.CaseResult{ac(1, 0), ac(2, 30), {Case: 3, Verdict: protocol.VerdictWA}}, []float64{0, 30, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Subtasks(rules, tc.cases)
			for i, sc := range got {
				if sc.Score != tc.scores[i] {
					t.Fatalf("subtask %s scored %v, want %v (%+v)", sc.Name, sc.Score, tc.scores[i], got)
				}
			}
		})
	}
}

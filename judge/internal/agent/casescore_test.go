package agent

import (
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// TestCaseScoreIsScoresShare: the score a case carries in progress (as
// soon as it is judged) is the one Score gives it at the end, in every
// mode, so a live view shows the final case scores as they arrive.
func TestCaseScoreIsScoresShare(t *testing.T) {
	files := func(n int) []testpkg.CaseFile {
		out := make([]testpkg.CaseFile, n)
		for i := range out {
			out[i] = testpkg.CaseFile{Index: i + 1}
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		mode      protocol.Mode
		m         testpkg.Manifest
		fractions []float64
	}{
		{"icpc", protocol.ModeICPC, testpkg.Manifest{Cases: files(3)}, []float64{1, 1, 0}},
		{"ioi plain", protocol.ModeIOI, testpkg.Manifest{Cases: files(4)}, []float64{1, 0.5, 0, 1}},
		{"ioi subtasks", protocol.ModeIOI, testpkg.Manifest{Cases: files(4), Subtasks: []testpkg.Subtask{
			{Name: "a", Points: 10, Cases: []int{1, 2, 3}}, {Name: "b", Points: 90, Cases: []int{4}}}}, []float64{1, 0.5, 1, 1}},
		{"ioi case in no subtask", protocol.ModeIOI, testpkg.Manifest{Cases: files(2), Subtasks: []testpkg.Subtask{
			{Name: "a", Points: 100, Cases: []int{1}}}}, []float64{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cases := make([]protocol.CaseResult, len(tc.fractions))
			for i, f := range tc.fractions {
				cases[i] = protocol.CaseResult{Case: i + 1, Verdict: protocol.VerdictAC}
				if f == 0 {
					cases[i].Verdict = protocol.VerdictWA
				}
			}
			Score(tc.mode, tc.m, cases, tc.fractions)
			for i, f := range tc.fractions {
				if got := CaseScore(tc.mode, tc.m, i, f); got != cases[i].Score {
					t.Errorf("case %d: CaseScore %v, Score gave %v", i+1, got, cases[i].Score)
				}
			}
		})
	}
}

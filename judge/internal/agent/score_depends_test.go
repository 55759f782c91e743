package agent

import (
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// TestScoreDependencies: a subtask earns nothing unless every subtask it
// depends on is passed in full (Polygon's group dependencies); its cases
// keep their own scores.
func TestScoreDependencies(t *testing.T) {
	const (
		AC = protocol.VerdictAC
		WA = protocol.VerdictWA
	)
	m := testpkg.Manifest{Subtasks: []testpkg.Subtask{
		{Name: "samples", Points: 0, Cases: []int{1}},
		{Name: "small", Points: 30, Cases: []int{2}, Depends: []string{"samples"}},
		{Name: "large", Points: 70, Cases: []int{3}, Depends: []string{"small"}},
	}}
	for _, tc := range []struct {
		name      string
		verdicts  []protocol.Verdict
		fractions []float64
		score     float64
	}{
		{"all pass", []protocol.Verdict{AC, AC, AC}, []float64{1, 1, 1}, 100},
		{"sample fails: nothing (transitively)", []protocol.Verdict{WA, AC, AC}, []float64{0, 1, 1}, 0},
		{"small fails: large gated", []protocol.Verdict{AC, WA, AC}, []float64{1, 0, 1}, 0},
		{"small partial: large gated", []protocol.Verdict{AC, WA, AC}, []float64{1, 0.5, 1}, 15},
		{"large fails alone", []protocol.Verdict{AC, AC, WA}, []float64{1, 1, 0}, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cases := make([]protocol.CaseResult, len(tc.verdicts))
			for i, v := range tc.verdicts {
				cases[i] = protocol.CaseResult{Case: i + 1, Verdict: v}
			}
			if _, score := Score(protocol.ModeIOI, m, cases, tc.fractions); score != tc.score {
				t.Fatalf("score %v, want %v", score, tc.score)
			}
			if cases[2].Score != 70*tc.fractions[2] {
				t.Fatalf("case 3 scored %v: a gated subtask's cases keep their scores", cases[2].Score)
			}
		})
	}
}

package sim

import (
	"strings"
	"testing"
)

func TestWriteMisses(t *testing.T) {
	pass := Headline{Scenario: "steady", Rho: 0.5, Ref: IdealWarm, MeanRatio: 1.02, P99Ratio: 1.01, BestRatio: 0.9, BestOther: "pull",
		Hit: Stat{Mean: 0.95}, MeetsMean: true, MeetsP99: true, MeetsBest: true, MeetsHit: true}
	slow := pass
	slow.Scenario, slow.Rho, slow.MeanRatio, slow.MeetsMean = "gray", 0.85, 1.234, false
	cold := pass
	cold.Scenario, cold.Hit, cold.MeetsHit, cold.BestRatio, cold.MeetsBest = "flash", Stat{Mean: 0.81}, false, 1.05, false
	drop := slow
	drop.Scenario, drop.Ref = "silent", IdealWarmDrop
	for _, tc := range []struct {
		name      string
		hs        []Headline
		want, not []string
	}{
		{"every target met", []Headline{pass}, []string{"mean time to verdict (≤ 1.10", "met in every cell", "hit ratio ≥ 0.9: met in every cell"}, []string{"missed in"}},
		{"misses named with their ratio", []Headline{pass, slow, cold, drop},
			[]string{"missed in 2 — gray 0.85 (1.234×), silent 0.85 vs ideal-warm-drop (1.234×).", "p99 time to verdict (≤ 1.15 ×, ≤ 1.25 × at 0.95): met in every cell.",
				"within 3 % of the best other policy: missed in 1 — flash 0.50 (1.050× pull).", "hit ratio ≥ 0.9: missed in 1 — flash 0.50 (0.81)."},
			[]string{"steady"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			WriteMisses(&b, tc.hs)
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("no %q in:\n%s", w, b.String())
				}
			}
			for _, n := range tc.not {
				if strings.Contains(b.String(), n) {
					t.Errorf("%q in:\n%s", n, b.String())
				}
			}
		})
	}
}

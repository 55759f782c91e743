package rehearsal

import (
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/schedtrace"
)

func comparison(hubMean, hubP99, simMean, simP99 float64) schedtrace.Comparison {
	return schedtrace.Comparison{All: schedtrace.ComparisonRow{Name: "all",
		Hub: schedtrace.WaitStats{Count: 10, MeanMs: hubMean, P99Ms: hubP99},
		Sim: schedtrace.WaitStats{Count: 10, MeanMs: simMean, P99Ms: simP99}}}
}

func TestSeedSpread(t *testing.T) {
	cases := []struct {
		name string
		cs   []schedtrace.Comparison
		want []string // in the sentence; nil: no spread
	}{
		{"one seed is no spread", []schedtrace.Comparison{comparison(100, 1000, 90, 1100)}, nil},
		{"no tasks", []schedtrace.Comparison{{}, {}}, nil},
		{"the hub's p99 outside, its mean within",
			[]schedtrace.Comparison{comparison(100, 1000, 90, 1100), comparison(100, 1000, 110, 1150), comparison(100, 1000, 95, 1120)},
			[]string{"seeds 1 to 3", "sim mean 90–110 ms (gap -10 … +10 %), the hub's 100 ms within the simulator's range",
				"sim p99 1100–1150 ms (gap +10 … +15 %), the hub's 1000 ms outside it: the gap is the model's"}},
		{"a hub at 0",
			[]schedtrace.Comparison{comparison(0, 0, 5, 7), comparison(0, 0, 6, 8)},
			[]string{"sim mean 5–6 ms (gap –), the hub's 0 ms outside it", "sim p99 7–8 ms (gap –)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := seedSpread(tc.cs)
			if tc.want == nil {
				if s != nil {
					t.Fatalf("spread %+v, want none", s)
				}
				return
			}
			if s == nil {
				t.Fatal("no spread")
			}
			md := s.Markdown()
			for _, w := range tc.want {
				if !strings.Contains(md, w) {
					t.Errorf("%q\nlacks %q", md, w)
				}
			}
		})
	}
}

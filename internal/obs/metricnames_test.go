package obs

import (
	"math"
	"strings"
	"testing"
)

func TestHistogramMean(t *testing.T) {
	text := `# HELP verdict_hub_dispatch_pass_seconds x
# TYPE verdict_hub_dispatch_pass_seconds histogram
verdict_hub_dispatch_pass_seconds_bucket{le="0.001"} 3
verdict_hub_dispatch_pass_seconds_bucket{le="+Inf"} 4
verdict_hub_dispatch_pass_seconds_sum 0.01
verdict_hub_dispatch_pass_seconds_count 4
verdict_hub_queue_wait_seconds_sum 99
verdict_hub_queue_wait_seconds_count 1
`
	for _, tc := range []struct {
		text, name string
		mean       float64
		n          int64
		err        bool
	}{
		{text, HubDispatchPassSeconds, 0.0025, 4, false},
		{text, "verdict_hub_queue_wait_seconds", 99, 1, false},
		{text, "absent", 0, 0, false},
		{"x_sum 1\nx_count 0\n", "x", 0, 0, false},
		{"x_sum abc\nx_count 1\n", "x", 0, 0, true},
	} {
		mean, n, err := HistogramMean(strings.NewReader(tc.text), tc.name)
		if (err != nil) != tc.err || n != tc.n || math.Abs(mean-tc.mean) > 1e-12 {
			t.Errorf("HistogramMean(%s) = %v, %d, %v; want %v, %d, err %v", tc.name, mean, n, err, tc.mean, tc.n, tc.err)
		}
	}
}

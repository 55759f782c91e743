package obs

import (
	"math"
	"slices"
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

func TestReadHistogram(t *testing.T) {
	const name = "h"
	for _, tc := range []struct {
		what, text string
		want       Histogram
		err        string
	}{
		{"buckets, sum, count", "# TYPE h histogram\nh_bucket{le=\"0.001\"} 3\nh_bucket{le=\"0.5\"} 5\nh_bucket{le=\"+Inf\"} 6\nh_sum 2.5\nh_count 6\nhx_bucket{le=\"9\"} 1\n",
			Histogram{Bounds: []float64{0.001, 0.5}, Counts: []float64{3, 5, 6}, Sum: 2.5, Count: 6}, ""},
		{"absent", "other_sum 1\n", Histogram{}, ""},
		{"no +Inf", "h_bucket{le=\"1\"} 3\nh_sum 1\nh_count 3\n", Histogram{}, "1 buckets for 1 bounds"},
		{"+Inf not last", "h_bucket{le=\"+Inf\"} 3\nh_bucket{le=\"1\"} 3\n", Histogram{}, `le="1" after le="+Inf"`},
		{"bounds out of order", "h_bucket{le=\"1\"} 3\nh_bucket{le=\"0.5\"} 3\n", Histogram{}, "le 0.5 not above 1"},
		{"bad count", "h_bucket{le=\"1\"} x\n", Histogram{}, "h_bucket"},
		{"bad bound", "h_bucket{le=\"y\"} 1\n", Histogram{}, "h_bucket le"},
	} {
		got, err := ReadHistogram(strings.NewReader(tc.text), name)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want one saying %q", tc.what, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got.Bounds, tc.want.Bounds) || !slices.Equal(got.Counts, tc.want.Counts) ||
			got.Sum != tc.want.Sum || got.Count != tc.want.Count {
			t.Errorf("%s: %+v, %v; want %+v", tc.what, got, err, tc.want)
		}
	}
	if m := (Histogram{Sum: 3, Count: 4}).Mean(); m != 0.75 {
		t.Errorf("Mean = %v, want 0.75", m)
	}
	if m := (Histogram{}).Mean(); m != 0 {
		t.Errorf("Mean of nothing = %v, want 0", m)
	}
}

func TestReadGauges(t *testing.T) {
	text := "# HELP go_goroutines x\n# TYPE go_goroutines gauge\ngo_goroutines 42\n" +
		"process_resident_memory_bytes 1.2e+08\n" +
		"go_goroutines_total 7\n" + // a longer name sharing the prefix
		"verdict_hub_browsers_connected{hub=\"a\"} 3\n" // labelled: not read
	for _, tc := range []struct {
		what, text string
		names      []string
		want       map[string]float64
		err        string
	}{
		{"two of three", text, []string{"go_goroutines", "process_resident_memory_bytes", HubBrowsersConnected},
			map[string]float64{"go_goroutines": 42, "process_resident_memory_bytes": 1.2e8}, ""},
		{"none asked", text, nil, map[string]float64{}, ""},
		{"bad value", "g abc\n", []string{"g"}, nil, "obs: g"},
	} {
		got, err := ReadGauges(strings.NewReader(tc.text), tc.names...)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want one saying %q", tc.what, err, tc.err)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.what, got, err, tc.want)
			continue
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: %s = %v, want %v", tc.what, k, got[k], v)
			}
		}
	}
}

func TestUpperQuantile(t *testing.T) {
	h := Histogram{Bounds: []float64{0.01, 0.1, 1}, Counts: []float64{50, 90, 99, 100}, Count: 100}
	for _, tc := range []struct {
		h    Histogram
		q    float64
		want float64
	}{
		{h, 0.5, 0.01},
		{h, 0.51, 0.1},
		{h, 0.9, 0.1},
		{h, 0.99, 1},
		{h, 0.999, math.Inf(1)},
		{h, 1, math.Inf(1)},
		{Histogram{Bounds: []float64{1}, Counts: []float64{4, 4}, Count: 4}, 1, 1},
		{Histogram{}, 0.99, 0},
	} {
		if got := tc.h.UpperQuantile(tc.q); got != tc.want {
			t.Errorf("UpperQuantile(%v) of %v = %v, want %v", tc.q, tc.h.Counts, got, tc.want)
		}
	}
}

func TestReadHistograms(t *testing.T) {
	const name = "h"
	two := "# TYPE h histogram\n" +
		"h_bucket{command=\"get\",le=\"0.001\"} 3\nh_bucket{command=\"get\",le=\"+Inf\"} 4\nh_sum{command=\"get\"} 0.5\nh_count{command=\"get\"} 4\n" +
		"h_bucket{command=\"script:a \\\"q\\\" \\\\ b\\n\",le=\"0.001\"} 0\nh_bucket{command=\"script:a \\\"q\\\" \\\\ b\\n\",le=\"+Inf\"} 1\n" +
		"h_sum{command=\"script:a \\\"q\\\" \\\\ b\\n\"} 2\nh_count{command=\"script:a \\\"q\\\" \\\\ b\\n\"} 1\n" +
		"h_total{command=\"get\"} 9\nhx_sum{command=\"get\"} 9\nh_sum 7\n"
	for _, tc := range []struct {
		what, text string
		want       map[string]Histogram
		err        string
	}{
		{"two series, one with escapes", two, map[string]Histogram{
			"get":                   {Bounds: []float64{0.001}, Counts: []float64{3, 4}, Sum: 0.5, Count: 4},
			"script:a \"q\" \\ b\n": {Bounds: []float64{0.001}, Counts: []float64{0, 1}, Sum: 2, Count: 1},
		}, ""},
		{"other labels, spaces and a trailing comma", "h_bucket{ x=\"1\", command=\"c\" , le=\"+Inf\",} 2\nh_count{command=\"c\",} 2\n",
			map[string]Histogram{"c": {Counts: []float64{2}, Count: 2}}, ""},
		{"series without the label", "h_sum{other=\"x\"} 1\n", map[string]Histogram{}, ""},
		{"absent", "other_sum 1\n", map[string]Histogram{}, ""},
		{"no +Inf", "h_bucket{command=\"c\",le=\"1\"} 3\n", nil, `{command="c"}: 1 buckets for 1 bounds`},
		{"+Inf not last", "h_bucket{command=\"c\",le=\"+Inf\"} 3\nh_bucket{command=\"c\",le=\"1\"} 3\n", nil, `le="1" after le="+Inf"`},
		{"bounds out of order", "h_bucket{command=\"c\",le=\"1\"} 3\nh_bucket{command=\"c\",le=\"0.5\"} 3\n", nil, "le 0.5 not above 1"},
		{"a bucket without le", "h_bucket{command=\"c\"} 3\n", nil, "no le"},
		{"bad value", "h_sum{command=\"c\"} x\n", nil, `h_sum{command="c"}`},
		{"bad bound", "h_bucket{command=\"c\",le=\"y\"} 1\n", nil, "le:"},
		{"a NaN bound", "h_bucket{command=\"c\",le=\"NaN\"} 1\n", nil, "le: NaN"},
		{"an unclosed value", "h_sum{command=\"c} 1\n", nil, "not closed"},
		{"a bad escape", "h_sum{command=\"\\t\"} 1\n", nil, "bad escape"},
		{"no quotes", "h_sum{command=c} 1\n", nil, "bad label"},
		{"no comma", "h_sum{command=\"c\" le=\"1\"} 1\n", nil, "bad label list"},
	} {
		got, err := ReadHistograms(strings.NewReader(tc.text), name, "command")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want one saying %q", tc.what, err, tc.err)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("%s: %+v, %v; want %+v", tc.what, got, err, tc.want)
			continue
		}
		for k, w := range tc.want {
			g := got[k]
			if !slices.Equal(g.Bounds, w.Bounds) || !slices.Equal(g.Counts, w.Counts) || g.Sum != w.Sum || g.Count != w.Count {
				t.Errorf("%s: %q: %+v; want %+v", tc.what, k, g, w)
			}
		}
	}
}

// FuzzReadHistograms: any input reads without a panic, and what reads is
// a set of well-formed histograms.
func FuzzReadHistograms(f *testing.F) {
	f.Add("h_bucket{command=\"get\",le=\"0.001\"} 3\nh_bucket{command=\"get\",le=\"+Inf\"} 4\nh_sum{command=\"get\"} 0.5\n")
	f.Add("h_sum{command=\"a\\\\\\\"b\\n\",} 1\n")
	f.Add("h_bucket{ command = \"x\" , le=\"1\"} 1")
	f.Fuzz(func(t *testing.T, text string) {
		hs, err := ReadHistograms(strings.NewReader(text), "h", "command")
		if err != nil {
			return
		}
		for k, h := range hs {
			if len(h.Counts) > 0 && len(h.Counts) != len(h.Bounds)+1 {
				t.Fatalf("%q: %d counts for %d bounds", k, len(h.Counts), len(h.Bounds))
			}
			for i := 1; i < len(h.Bounds); i++ {
				if !(h.Bounds[i] > h.Bounds[i-1]) {
					t.Fatalf("%q: bounds %v not rising", k, h.Bounds)
				}
			}
		}
	})
}

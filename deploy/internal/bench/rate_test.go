package bench

import (
	"math"
	"testing"
	"time"
)

func secs(v ...float64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x * float64(time.Second))
	}
	return out
}

func TestThroughput(t *testing.T) {
	tests := []struct {
		name     string
		done     []time.Duration
		from, to time.Duration
		rate     float64
		n        int
	}{
		{"none", nil, 0, time.Minute, 0, 0},
		{"one completion has no rate", secs(5), 0, time.Minute, 0, 1},
		{"steady 2/s", secs(1, 1.5, 2, 2.5, 3), 0, time.Minute, 2, 5},
		{"unsorted input", secs(3, 1, 2.5, 1.5, 2), 0, time.Minute, 2, 5},
		// The pipeline filling (before 4 s) and the tail after 20 s are out.
		{"window drops warm-up and tail", secs(0.5, 1, 4, 6, 8, 10, 25), 4 * time.Second, 20 * time.Second, 0.5, 4},
		{"window bounds are inclusive", secs(4, 20), 4 * time.Second, 20 * time.Second, 1.0 / 16, 2},
		{"simultaneous completions have no span", secs(3, 3), 0, time.Minute, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rate, n := Throughput(tt.done, tt.from, tt.to)
			if math.Abs(rate-tt.rate) > 1e-9 || n != tt.n {
				t.Fatalf("Throughput = %v, %d; want %v, %d", rate, n, tt.rate, tt.n)
			}
		})
	}
}

func TestRates(t *testing.T) {
	got := Rates(0.8, []float64{0.5, 0.8, 1})
	want := []float64{0.4, 0.64, 0.8}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("Rates = %v, want %v", got, want)
		}
	}
}

func TestBelow(t *testing.T) {
	tests := []struct {
		maxes []float64
		frac  float64
		want  float64
	}{
		{[]float64{2993, 1997, 705, 604}, 0.5, 300},
		{[]float64{2993, 1997, 705, 604}, 0.8, 480},
		{[]float64{12345}, 0.5, 6100},
		{[]float64{0, 37}, 0.5, 18},
		{[]float64{3.3}, 0.5, 1.6},
		{[]float64{0, 0}, 0.5, 0},
		{nil, 0.5, 0},
	}
	for _, tt := range tests {
		if got := Below(tt.maxes, tt.frac); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Below(%v, %v) = %v, want %v", tt.maxes, tt.frac, got, tt.want)
		}
	}
}

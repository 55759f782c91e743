package bench

import (
	"context"
	"math"
	"os/exec"
	"testing"
	"time"
)

func TestLimitArithmetic(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name  string
		l     Limit
		per   time.Duration
		rate  float64
		at    float64 // a throughput
		ratio float64
	}{
		{"2 cores, 1 s per submission", Limit{Compile: 800 * ms, Run: 200 * ms, Cores: 2}, time.Second, 2, 0.5, 0.25},
		{"1 core", Limit{Compile: 400 * ms, Run: 100 * ms, Cores: 1}, 500 * ms, 2, 2, 1},
		{"8 cores, 250 ms", Limit{Compile: 240 * ms, Run: 10 * ms, Cores: 8}, 250 * ms, 32, 8, 0.25},
		{"nothing measured", Limit{Cores: 2}, 0, 0, 1, 0},
		{"no cores", Limit{Compile: time.Second}, time.Second, 0, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.l.PerSubmission(); got != tt.per {
				t.Errorf("PerSubmission = %v, want %v", got, tt.per)
			}
			if got := tt.l.Rate(); math.Abs(got-tt.rate) > 1e-9 {
				t.Errorf("Rate = %v, want %v", got, tt.rate)
			}
			if got := tt.l.Ratio(tt.at); math.Abs(got-tt.ratio) > 1e-9 {
				t.Errorf("Ratio(%v) = %v, want %v", tt.at, got, tt.ratio)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{secs(3), 3 * time.Second},
		{secs(3, 1, 2), 2 * time.Second},
		{secs(4, 1, 3, 2), 2 * time.Second},
	}
	for _, tt := range tests {
		in := append([]time.Duration(nil), tt.in...)
		if got := Median(tt.in); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", tt.in, got, tt.want)
		}
		for i := range in {
			if in[i] != tt.in[i] {
				t.Fatalf("Median reordered its input")
			}
		}
	}
}

// MeasureLimit against the real g++ (make deps installs it): it compiles,
// checks every answer and reports CPU time.
func TestMeasureLimit(t *testing.T) {
	if _, err := exec.LookPath("g++"); err != nil {
		t.Fatalf("g++ is needed (make deps installs it): %v", err)
	}
	cases := Cases()[:3]
	l, err := MeasureLimit(context.Background(), t.TempDir(), Solution(1), cases, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if l.Compile <= 0 || l.CompileWall <= 0 || l.Cases != 3 || l.Cores != 2 || l.Rate() <= 0 {
		t.Fatalf("limit %+v", l)
	}
	if _, err := MeasureLimit(context.Background(), t.TempDir(), WrongSolution(1), cases, 1, 2); err == nil {
		t.Fatal("a wrong solution passed the physical limit's answer check")
	}
}

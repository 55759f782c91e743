package bench

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	tests := []struct {
		name string
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"median of odd", ms(1, 2, 3), 50, 2 * time.Millisecond},
		{"median of even is the lower", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p99 of 1..100", ms(hundred...), 99, 99 * time.Millisecond},
		{"p100 is the max", ms(hundred...), 100, 100 * time.Millisecond},
		{"p1 of 1..100", ms(hundred...), 1, 1 * time.Millisecond},
		{"tiny p is the min", ms(5, 6), 0.001, 5 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.in, tt.p); got != tt.want {
				t.Fatalf("Percentile(%v, %v) = %v, want %v", tt.in, tt.p, got, tt.want)
			}
		})
	}
}

func TestRecorderSummary(t *testing.T) {
	var r Recorder
	for _, d := range []int{30, 10, 20} {
		r.Add(time.Duration(d) * time.Millisecond)
	}
	r.Fail()
	s := r.Summary()
	if s.N != 3 || s.Errors != 1 || s.P50 != 20*time.Millisecond || s.Max != 30*time.Millisecond {
		t.Fatalf("summary %+v", s)
	}
}

func TestSchedule(t *testing.T) {
	start := time.Unix(1000, 0)
	s := Schedule{Start: start, Rate: 200}
	tests := []struct {
		i    int
		want time.Duration
	}{{0, 0}, {1, 5 * time.Millisecond}, {200, time.Second}, {1001, 5005 * time.Millisecond}}
	for _, tt := range tests {
		if got := s.Due(tt.i).Sub(start); got != tt.want {
			t.Errorf("Due(%d) = +%v, want +%v", tt.i, got, tt.want)
		}
	}
	counts := []struct {
		rate float64
		d    time.Duration
		want int
	}{{200, time.Second, 200}, {3, time.Second, 3}, {2.5, time.Second, 3}, {1000, 0, 0}, {0.5, 3 * time.Second, 2}}
	for _, c := range counts {
		if got := (Schedule{Rate: c.rate}).Count(c.d); got != c.want {
			t.Errorf("Count(rate %v, %v) = %d, want %d", c.rate, c.d, got, c.want)
		}
	}
}

// Pace must keep the rate even when every call is slow (open loop): 50
// calls of 100 ms each at 500/s finish in about 0.2 s, not 5 s.
func TestPaceOpenLoop(t *testing.T) {
	var calls atomic.Int64
	var early atomic.Int64
	t0 := time.Now()
	n, _ := Pace(500, 100*time.Millisecond, func(i int, due time.Time) {
		if time.Now().Before(due) {
			early.Add(1)
		}
		calls.Add(1)
		time.Sleep(100 * time.Millisecond)
	})
	el := time.Since(t0)
	if n != 50 || calls.Load() != 50 {
		t.Fatalf("fired %d (calls %d), want 50", n, calls.Load())
	}
	if early.Load() != 0 {
		t.Fatalf("%d calls fired before they were due", early.Load())
	}
	if el > 2*time.Second {
		t.Fatalf("Pace took %v: it waited for slow calls (closed loop)", el)
	}
}

func TestParseSchedBench(t *testing.T) {
	out := `goos: linux
BenchmarkPick100Judges/default-2         	   61252	     17974 ns/op	         0.7661 placed/op
BenchmarkPick100Judges/guide-2           	 1757473	       681.5 ns/op	         1.000 placed/op
PASS
`
	got, err := ParseSchedBench(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []SchedResult{{"default", 17974, 0.7661}, {"guide", 681.5, 1}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if _, err := ParseSchedBench(strings.NewReader("FAIL\n")); err == nil {
		t.Fatal("no error for output without benchmark lines")
	}
}

func TestMedianSched(t *testing.T) {
	in := []SchedResult{{"default", 30, 1}, {"guide", 2, 1}, {"default", 10, 1}, {"guide", 1, 1}, {"default", 20, 1}, {"guide", 9, 1}}
	got := MedianSched(in)
	if len(got) != 2 || got[0].Policy != "default" || got[0].NsPerPick != 20 || got[1].NsPerPick != 2 {
		t.Fatalf("got %+v", got)
	}
}

package bench

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// Percentile returns the p-th percentile (0 < p ≤ 100) of sorted by the
// nearest-rank method: the smallest value with at least p % of the values
// at or below it. It returns 0 for an empty slice.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// Recorder collects latencies from many goroutines.
type Recorder struct {
	mu   sync.Mutex
	lat  []time.Duration
	errs int
}

// Add records one latency.
func (r *Recorder) Add(d time.Duration) {
	r.mu.Lock()
	r.lat = append(r.lat, d)
	r.mu.Unlock()
}

// Fail records one failed request.
func (r *Recorder) Fail() {
	r.mu.Lock()
	r.errs++
	r.mu.Unlock()
}

// Values returns a copy of the latencies recorded so far.
func (r *Recorder) Values() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lat)
}

// Summary is what a Recorder saw.
type Summary struct {
	N, Errors          int
	P50, P90, P99, Max time.Duration
}

// Summary sorts what was recorded and summarises it.
func (r *Recorder) Summary() Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	slices.Sort(r.lat)
	s := Summary{N: len(r.lat), Errors: r.errs}
	if len(r.lat) > 0 {
		s.P50, s.P90, s.P99 = Percentile(r.lat, 50), Percentile(r.lat, 90), Percentile(r.lat, 99)
		s.Max = r.lat[len(r.lat)-1]
	}
	return s
}

// String prints the summary in milliseconds.
func (s Summary) String() string {
	return fmt.Sprintf("n=%d errors=%d p50=%s p90=%s p99=%s max=%s", s.N, s.Errors, ms(s.P50), ms(s.P90), ms(s.P99), ms(s.Max))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

// Schedule is an open-loop constant-rate schedule: request i is due at
// Start + i/Rate, whatever happened to the earlier ones.
type Schedule struct {
	Start time.Time
	Rate  float64 // per second, > 0
}

// Due returns when request i is due.
func (s Schedule) Due(i int) time.Time {
	return s.Start.Add(time.Duration(float64(i) / s.Rate * float64(time.Second)))
}

// Count is how many requests fall due in [Start, Start+d).
func (s Schedule) Count(d time.Duration) int {
	return int(math.Ceil(d.Seconds()*s.Rate - 1e-9))
}

// Pace calls fire(i, due) in its own goroutine for every request due in
// [start, start+d), sleeping until each is due, then waits for them all.
// fire measures its latency from due, not from when it was called. Pace
// returns how many requests it fired and how late the pacer itself fell
// behind at worst (a large lag means the load generator, not the server,
// was the bottleneck).
func Pace(rate float64, d time.Duration, fire func(i int, due time.Time)) (int, time.Duration) {
	s := Schedule{Start: time.Now(), Rate: rate}
	n := s.Count(d)
	var wg sync.WaitGroup
	var lag time.Duration
	for i := range n {
		due := s.Due(i)
		if w := time.Until(due); w > 0 {
			time.Sleep(w)
		} else if -w > lag {
			lag = -w
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fire(i, due)
		}()
	}
	wg.Wait()
	return n, lag
}

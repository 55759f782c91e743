package sched

import (
	"math"
	"time"
)

// The queue notice's decisions (hub/internal/hub/notice.go), kept pure
// here: when the queue counts as overloaded, and the ETA shown to a user.

// QueueSample is the central queue's length at a moment.
type QueueSample struct {
	At     time.Time
	Length int64
}

// QueueTrend keeps the queue length over the last Window and says whether
// the queue is growing: tasks arrive faster than the judges drain them.
// The zero value is not usable; set Window and MinSpan.
type QueueTrend struct {
	// Window is how far back the trend looks; MinSpan is the least span
	// of samples it needs to say anything, so one busy dispatch pass (or
	// one burst of enqueues) never makes a trend.
	Window, MinSpan time.Duration
	samples         []QueueSample
}

// Add records a sample (in time order) and forgets those older than
// Window.
func (q *QueueTrend) Add(s QueueSample) {
	if n := len(q.samples); n > 0 && s.At.Before(q.samples[n-1].At) {
		q.samples = q.samples[:0] // the clock went back: start over
	}
	q.samples = append(q.samples, s)
	cut := 0
	for cut < len(q.samples)-1 && s.At.Sub(q.samples[cut].At) > q.Window {
		cut++
	}
	q.samples = append(q.samples[:0], q.samples[cut:]...)
}

// Reset forgets every sample (the hub lost the notice lock).
func (q *QueueTrend) Reset() { q.samples = q.samples[:0] }

// Growth is the queue's growth in tasks per second over the window: the
// least-squares slope of its length, so a single sample's spike weighs
// little. ok is false until the samples span MinSpan.
func (q *QueueTrend) Growth() (perSecond float64, ok bool) {
	n := len(q.samples)
	if n < 2 {
		return 0, false
	}
	t0 := q.samples[0].At
	if span := q.samples[n-1].At.Sub(t0); span < q.MinSpan || span <= 0 {
		return 0, false
	}
	var sx, sy, sxx, sxy float64
	for _, s := range q.samples {
		x, y := s.At.Sub(t0).Seconds(), float64(s.Length)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	fn := float64(n)
	den := fn*sxx - sx*sx
	if den <= 0 {
		return 0, false
	}
	return (fn*sxy - sx*sy) / den, true
}

// NoticeInput is what the notice decision looks at.
type NoticeInput struct {
	// Saturated: no live hub has a judge that can take work (every one is
	// busy or there are none), as of the last dispatch passes.
	Saturated bool
	// Length of the queue now; Growth of it (tasks/s) and whether the
	// trend is known yet (QueueTrend.Growth); Drain, the completion rate
	// (tasks/s) over the ETA window.
	Length  int64
	Growth  float64
	TrendOK bool
	Drain   float64
}

// Overloaded reports whether the queue is overloaded: it is not empty,
// no judge can take more, and it grows faster than it drains — its length
// has been rising over the trend window (arrivals outpace completions),
// or nothing drains at all. A queue that is long but shrinking, or one
// busy pass with no trend yet, is not overloaded.
func Overloaded(in NoticeInput) bool {
	if !in.Saturated || in.Length <= 0 {
		return false
	}
	if in.Drain <= 0 && in.TrendOK {
		return in.Growth >= 0 // nothing completes and the queue does not shrink
	}
	return in.TrendOK && in.Growth > 0
}

// PositionETA is the ETA (seconds, rounded up) of the task at 1-based
// position in the queue: the position over the drain rate. 0 when there
// is no position or no rate to go by.
func PositionETA(position int, drain float64) int {
	if position <= 0 || !(drain > 0) || math.IsInf(drain, 0) {
		return 0
	}
	eta := math.Ceil(float64(position) / drain)
	if eta > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(eta)
}

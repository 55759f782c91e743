package rehearsal

import (
	"cmp"
	"slices"
	"time"
)

// overheadSample is one submission's submit → verdict overhead, by when
// it was due, split in its four parts where they were timed (run.parts).
type overheadSample struct {
	due      time.Time
	total    time.Duration
	parts    [4]time.Duration
	hasParts bool
}

// TailWindow is one window of real time and the overheads of the
// submissions due in it that exceeded the run's p99: how many, of how
// many due then, and the mean of each part over them (over those whose
// parts were timed, PartsN).
type TailWindow struct {
	At     time.Time
	N, Of  int
	PartsN int
	Parts  [4]time.Duration
}

// TailWindowWidth is the width of the windows overheadTail groups by.
const TailWindowWidth = 10 * time.Second

// overheadTail groups the samples by the TailWindowWidth of real time
// (from start) they were due in and returns the n windows holding the
// most overheads above p99, most first (the earlier of a tie first), and
// how many were above p99 in all: where in the run the tail is, and which
// part of the way made it.
func overheadTail(samples []overheadSample, p99 time.Duration, start time.Time, n int) ([]TailWindow, int) {
	byWindow := map[int64]*TailWindow{}
	sums := map[int64]*[4]time.Duration{}
	total := 0
	for _, s := range samples {
		k := int64(s.due.Sub(start).Truncate(TailWindowWidth) / TailWindowWidth)
		if s.due.Before(start) {
			k = -int64((start.Sub(s.due) + TailWindowWidth - 1) / TailWindowWidth)
		}
		w := byWindow[k]
		if w == nil {
			w = &TailWindow{At: start.Add(time.Duration(k) * TailWindowWidth)}
			byWindow[k], sums[k] = w, &[4]time.Duration{}
		}
		w.Of++
		if s.total <= p99 {
			continue
		}
		w.N++
		total++
		if s.hasParts {
			w.PartsN++
			for i, d := range s.parts {
				sums[k][i] += d
			}
		}
	}
	out := make([]TailWindow, 0, len(byWindow))
	for k, w := range byWindow {
		if w.N == 0 {
			continue
		}
		if w.PartsN > 0 {
			for i, d := range sums[k] {
				w.Parts[i] = d / time.Duration(w.PartsN)
			}
		}
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b TailWindow) int { return cmp.Or(-cmp.Compare(a.N, b.N), a.At.Compare(b.At)) })
	return out[:min(n, len(out))], total
}

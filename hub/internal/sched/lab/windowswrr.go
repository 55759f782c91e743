package lab

import (
	"math"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
)

// WindowSWRR is the guide's dynamic weights (section 3.3) in the form the
// issue names: statistics per window → weights → smooth weighted round
// robin. Over each window (WindowSWRRWindow) it counts, per judge, the
// results and their run times (sched.Outcome.Run: the cases' wall times) and the
// expired leases; at the window's end each judge's weight becomes
//
//	slots × service rate × success ratio,
//
// the service rate being results per run-second (an exponential average
// over windows, step 0.5; a judge not yet measured takes the mean rate of
// the measured ones, and before any measurement every rate is 1, so the
// first weights are the slots). Between windows the weights stand still
// and nginx's smooth WRR spreads the tasks by them. The guide's overload
// protection applies: a judge whose load1 exceeds 1.5 × cores or whose
// local queue (reported, or the caller's own count beyond its slots)
// exceeds 3 is skipped, and when every judge that could run the task is
// skipped the task is held (sched.HoldBusy). It never holds for affinity and
// ignores test data.
type WindowSWRR struct {
	window  time.Duration
	start   time.Time
	stats   map[string]*windowStat
	rate    map[string]float64 // learnt results per run-second
	success map[string]float64
	current map[string]float64
}

type windowStat struct {
	results int
	run     float64 // seconds
	failed  int
}

// WindowSWRR settings.
const (
	// WindowSWRRWindow is the statistics window.
	WindowSWRRWindow = 10 * time.Second
	// windowSWRRStep is the step of the rate's average over windows.
	windowSWRRStep = 0.5
)

// NewWindowSWRR returns the windowed adaptive weights + SWRR baseline over
// window (<= 0: WindowSWRRWindow).
func NewWindowSWRR(window time.Duration) *WindowSWRR {
	if window <= 0 {
		window = WindowSWRRWindow
	}
	return &WindowSWRR{window: window, stats: map[string]*windowStat{}, rate: map[string]float64{},
		success: map[string]float64{}, current: map[string]float64{}}
}

// Name implements Policy.
func (*WindowSWRR) Name() string { return NameWindowSWRR }

// roll closes the windows that ended by now: their statistics become the
// weights' rates and success ratios.
func (w *WindowSWRR) roll(now time.Time) {
	if w.start.IsZero() {
		w.start = now
		return
	}
	if now.Sub(w.start) < w.window {
		return
	}
	for id, s := range w.stats {
		if s.results > 0 && s.run > 0 {
			r := float64(s.results) / s.run
			if old, ok := w.rate[id]; ok {
				r = old + windowSWRRStep*(r-old)
			}
			w.rate[id] = r
		}
		if n := s.results + s.failed; n > 0 {
			w.success[id] = float64(s.results) / float64(n)
		}
	}
	clear(w.stats)
	// Skip the windows that saw nothing at once.
	w.start = w.start.Add(now.Sub(w.start) / w.window * w.window)
}

func (w *WindowSWRR) stat(id string) *windowStat {
	s := w.stats[id]
	if s == nil {
		s = &windowStat{}
		w.stats[id] = s
	}
	return s
}

// Observe implements Observer.
func (w *WindowSWRR) Observe(now time.Time, o sched.Outcome) {
	w.roll(now)
	s := w.stat(o.Judge)
	switch {
	case o.Failed:
		s.failed++
	case o.Run > 0:
		s.results++
		s.run += o.Run.Seconds()
	}
}

// Weight is j's weight in the current window.
func (w *WindowSWRR) Weight(j *sched.Judge) float64 {
	r, ok := w.rate[j.ID]
	if !ok {
		r = 1
		if n := len(w.rate); n > 0 {
			sum := 0.0
			for _, x := range w.rate {
				sum += x
			}
			r = sum / float64(n)
		}
	}
	succ, ok := w.success[j.ID]
	if !ok {
		succ = 1
	}
	return float64(j.SlotCount()) * r * succ
}

// skipped applies the guide's overload protection.
func (w *WindowSWRR) skipped(j *sched.Judge) bool {
	local := max(j.Queued, j.Assigned-j.SlotCount())
	return j.Load1 > sched.GuideOverload*cores(j) || local > sched.GuideLocalQueue
}

// Pick implements Policy.
func (w *WindowSWRR) Pick(now time.Time, t sched.Task, judges []sched.Judge) sched.Decision {
	w.roll(now)
	best, total, capable := -1, 0.0, false
	for i := range judges {
		j := &judges[i]
		if !pushable(j, t) {
			continue
		}
		capable = true
		if w.skipped(j) {
			continue
		}
		wt := w.Weight(j)
		if !(wt > 0) || math.IsInf(wt, 0) {
			wt = 1e-9 // a judge that only failed still gets a trickle
		}
		w.current[j.ID] += wt
		total += wt
		if best < 0 || w.current[j.ID] > w.current[judges[best].ID] {
			best = i
		}
	}
	switch {
	case best >= 0:
		w.current[judges[best].ID] -= total
		return sched.Decision{Judge: best, Reason: "window_swrr"}
	case capable:
		return hold(sched.HoldBusy, "all_skipped")
	}
	return noJudge()
}

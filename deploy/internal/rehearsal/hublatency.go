package rehearsal

import (
	"context"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// latencyEvery is how often the rehearsal reads the hub's dispatch pass
// and judge message histograms, for the trace's latency windows.
const latencyEvery = 5 * time.Second

// hubSample is one reading of the hub's two cumulative histograms: its
// dispatch passes that placed tasks and its judges' message waits.
type hubSample struct {
	at             time.Time
	passSum, passN float64 // s, count
	msgSum, msgN   float64
}

// sampleHubLatency reads the hub's histograms every latencyEvery until
// stop or ctx is done, so that the scheduling simulator's replay can take
// the hub's pass latency and message wait as they varied over the run
// (the run-wide means hide a hub queued for a core in the rush and idle
// in between). A failed read is skipped: its window merges into the next.
func (r *run) sampleHubLatency(ctx context.Context, stop <-chan struct{}) {
	t := time.NewTicker(latencyEvery)
	defer t.Stop()
	for {
		if s, err := r.readHubSample(ctx); err == nil {
			r.hubSamples = append(r.hubSamples, s)
		}
		select {
		case <-ctx.Done():
			return
		case <-stop:
			return
		case <-t.C:
		}
	}
}

func (r *run) readHubSample(ctx context.Context) (hubSample, error) {
	ctx, cancel := context.WithTimeout(ctx, latencyEvery)
	defer cancel()
	m, err := r.hubMetrics(ctx)
	if err != nil {
		return hubSample{}, err
	}
	s := hubSample{at: time.Now()}
	mean, n, err := obs.HistogramMean(strings.NewReader(m), obs.HubDispatchPassSeconds)
	if err != nil {
		return hubSample{}, err
	}
	s.passSum, s.passN = mean*float64(n), float64(n)
	if mean, n, err = obs.HistogramMean(strings.NewReader(m), obs.HubJudgeMessageWaitSeconds); err != nil {
		return hubSample{}, err
	}
	s.msgSum, s.msgN = mean*float64(n), float64(n)
	return s, nil
}

// latencyWindows turns readings of the hub's cumulative histograms into a
// trace's latency windows: one from each reading to the next, holding the
// mean of what the hub observed between them, or the run-wide passMs
// (resultMs) when it observed no pass (no message) then. Windows that end
// by start are dropped but the last, which starts the list at 0. A
// counter that went down (the hub restarted) counts from zero again.
// Means are clamped to the trace's 60 s bound.
func latencyWindows(samples []hubSample, start time.Time, passMs, resultMs float64) []schedtrace.LatencyWindow {
	var out []schedtrace.LatencyWindow
	mean := func(dSum, dN, fallback float64) float64 {
		if dN <= 0 {
			return fallback
		}
		return min(60000, max(0, dSum/dN*1000))
	}
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		if !b.at.After(start) {
			continue
		}
		if b.passN < a.passN || b.msgN < a.msgN { // restarted: b's counts are all since then
			a = hubSample{at: a.at}
		}
		w := schedtrace.LatencyWindow{
			AtMs:     max(0, a.at.Sub(start).Milliseconds()),
			PassMs:   mean(b.passSum-a.passSum, b.passN-a.passN, passMs),
			ResultMs: mean(b.msgSum-a.msgSum, b.msgN-a.msgN, resultMs),
		}
		if n := len(out); n > 0 && w.AtMs <= out[n-1].AtMs {
			out[n-1] = w
			continue
		}
		out = append(out, w)
	}
	return out
}

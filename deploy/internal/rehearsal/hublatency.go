package rehearsal

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// latencyEvery is how often the rehearsal reads the hub's dispatch pass
// and judge message histograms, for the trace's latency windows.
const latencyEvery = 5 * time.Second

// hubSample is one reading of the hub's cumulative histograms: its
// dispatch passes that placed tasks, its judges' results' waits to free
// their slots (slot), its dispatcher's waits for a core (wake) and its
// passes that placed nothing (idle) and its enqueues' notices' ways to it
// (notice; wake, idle and notice are empty from a hub without them).
type hubSample struct {
	at                             time.Time
	pass, slot, wake, idle, notice obs.Histogram
	mem                            MemReading // RSS 0: not read
	// poolWaits and poolWaitSec are the hub's Redis pool's waits so far,
	// cmds its Redis commands' times so far by label (empty from a hub
	// without them).
	poolWaits, poolWaitSec float64
	// gateWaits and gateWaitSec are its browsers' reads' waits at its
	// gate so far (--browser-reads; 0 from a hub without it).
	gateWaits, gateWaitSec float64
	cmds                   map[string]obs.Histogram
	// learnt is what the hub's policy had learnt of what downloads cost
	// (its verdict_hub_policy_* gauges; AtMs unset), learnt.ok false when
	// it exported none.
	learnt learntReading
}

type learntReading struct {
	schedtrace.Learnt
	ok bool
}

// The hub's learnt overheads, as their series are named in its metrics.
var (
	learntWarmSeries = obs.HubPolicyOverheadSeconds + `{placement="warm"}`
	learntColdSeries = obs.HubPolicyOverheadSeconds + `{placement="cold"}`
	learntSpeedLo    = obs.HubPolicySpeed + `{bound="lowest"}`
	learntSpeedHi    = obs.HubPolicySpeed + `{bound="highest"}`
)

// sampleHubLatency reads the hub's histograms every latencyEvery until
// stop or ctx is done, so that the scheduling simulator's replay can take
// the hub's pass latency and results' slot waits as they varied over the run
// (the run-wide means hide a hub queued for a core in the rush and idle
// in between), and its passes one by one (hubPasses.read). A failed read is
// skipped: its window merges into the next, its passes come with the
// next read.
func (r *run) sampleHubLatency(ctx context.Context, stop <-chan struct{}) {
	t := time.NewTicker(latencyEvery)
	defer t.Stop()
	for {
		if s, err := r.readHubSample(ctx); err == nil {
			r.hubSamples = append(r.hubSamples, s)
		}
		// And its passes since the last read (the trace's Passes).
		r.passes.read(ctx, r.env.Stack.Config().HubPort)
		select {
		case <-ctx.Done():
			return
		case <-stop:
			r.passes.read(ctx, r.env.Stack.Config().HubPort) // up to the end
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
	if s.pass, err = obs.ReadHistogram(strings.NewReader(m), obs.HubDispatchPassSeconds); err != nil {
		return hubSample{}, err
	}
	if s.slot, err = obs.ReadHistogram(strings.NewReader(m), obs.HubResultSlotSeconds); err != nil {
		return hubSample{}, err
	}
	// A hub without the wake histogram: none recorded.
	s.wake, _ = obs.ReadHistogram(strings.NewReader(m), obs.HubDispatchWakeSeconds)
	s.idle, _ = obs.ReadHistogram(strings.NewReader(m), obs.HubDispatchIdlePassSeconds)
	s.notice, _ = obs.ReadHistogram(strings.NewReader(m), obs.HubQueueNoticeSeconds)
	s.mem, _ = readMem(m, s.at)
	if g, err := obs.ReadGauges(strings.NewReader(m), obs.RedisPoolWaits, obs.RedisPoolWaitSeconds,
		obs.HubBrowserReadWaits, obs.HubBrowserReadWaitSeconds); err == nil {
		s.poolWaits, s.poolWaitSec = g[obs.RedisPoolWaits], g[obs.RedisPoolWaitSeconds]
		s.gateWaits, s.gateWaitSec = g[obs.HubBrowserReadWaits], g[obs.HubBrowserReadWaitSeconds]
	}
	s.cmds, _ = obs.ReadHistograms(strings.NewReader(m), obs.RedisCommandSeconds, "command")
	if g, err := obs.ReadGauges(strings.NewReader(m), learntWarmSeries, learntColdSeries, obs.HubPolicyFetchSeconds,
		learntSpeedLo, learntSpeedHi); err == nil && len(g) > 0 {
		ms := func(v float64) float64 { return min(schedtrace.MaxLatencyMs, max(0, v*1000)) }
		s.learnt = learntReading{schedtrace.Learnt{WarmMs: ms(g[learntWarmSeries]), ColdMs: ms(g[learntColdSeries]),
			FetchMs: ms(g[obs.HubPolicyFetchSeconds])}, true}
		if lo, hi := g[learntSpeedLo], g[learntSpeedHi]; lo >= 0 && lo <= hi && hi <= 1e6 {
			s.learnt.SpeedLo, s.learnt.SpeedHi = lo, hi
		}
	}
	return s, nil
}

// learntSeries is what the hub's policy had learnt at each reading that
// said (the trace's Learnt): at its time since start (0 for the readings
// before it, of which the last is kept), in time order.
func learntSeries(samples []hubSample, start time.Time) []schedtrace.Learnt {
	var out []schedtrace.Learnt
	for _, s := range samples {
		if !s.learnt.ok {
			continue
		}
		l := s.learnt.Learnt
		l.AtMs = max(0, s.at.Sub(start).Milliseconds())
		if n := len(out); n > 0 && l.AtMs <= out[n-1].AtMs {
			out[n-1] = l
			continue
		}
		out = append(out, l)
	}
	return out
}

// latencyWindows turns readings of the hub's cumulative histograms into a
// trace's latency windows: one from each reading to the next, holding the
// mean of what the hub observed between them, or the run-wide passMs
// (resultMs; 0 for the wake, the idle passes and the notices) when it
// observed no pass (no message, no wake, no idle pass, no notice) then, and the
// histogram of those observations (none when there were none). Windows
// that end by start are dropped but the last, which starts the list at 0.
// A counter that went down (the hub restarted) counts from zero again.
// Means are clamped to the trace's 60 s bound.
func latencyWindows(samples []hubSample, start time.Time, passMs, resultMs float64) []schedtrace.LatencyWindow {
	var out []schedtrace.LatencyWindow
	mean := func(a, b obs.Histogram, fallback float64) float64 {
		dN := b.Count - a.Count
		if dN <= 0 {
			return fallback
		}
		return min(schedtrace.MaxLatencyMs, max(0, (b.Sum-a.Sum)/dN*1000))
	}
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		if !b.at.After(start) {
			continue
		}
		if b.pass.Count < a.pass.Count || b.slot.Count < a.slot.Count || b.wake.Count < a.wake.Count || b.idle.Count < a.idle.Count || b.notice.Count < a.notice.Count { // restarted: b's counts are all since then
			a = hubSample{at: a.at}
		}
		w := schedtrace.LatencyWindow{
			AtMs:       max(0, a.at.Sub(start).Milliseconds()),
			PassMs:     mean(a.pass, b.pass, passMs),
			ResultMs:   mean(a.slot, b.slot, resultMs),
			PassHist:   histBetween(a.pass, b.pass),
			ResultHist: histBetween(a.slot, b.slot),
			// No wake in the window: the pass starts at once.
			WakeMs:   mean(a.wake, b.wake, 0),
			WakeHist: histBetween(a.wake, b.wake),
			// No idle pass in the window: not recorded.
			IdleMs:   mean(a.idle, b.idle, 0),
			IdleHist: histBetween(a.idle, b.idle),
			// No notice in the window: an arrival wakes the dispatcher
			// at once.
			NoticeMs:   mean(a.notice, b.notice, 0),
			NoticeHist: histBetween(a.notice, b.notice),
		}
		if n := len(out); n > 0 && w.AtMs <= out[n-1].AtMs {
			out[n-1] = w
			continue
		}
		out = append(out, w)
	}
	return out
}

// histBetween is what a cumulative histogram counted from reading a to
// reading b, bucket by bucket (a without buckets: from zero); nil when it
// counted nothing, or the two readings' buckets differ, or a bound is
// beyond the trace's 60 s.
func histBetween(a, b obs.Histogram) *schedtrace.Hist {
	if len(b.Counts) == 0 || len(b.Counts) != len(b.Bounds)+1 {
		return nil
	}
	if len(a.Counts) == 0 {
		a = obs.Histogram{Bounds: b.Bounds, Counts: make([]float64, len(b.Counts))}
	}
	if !slices.Equal(a.Bounds, b.Bounds) || len(a.Counts) != len(b.Counts) {
		return nil
	}
	h := &schedtrace.Hist{BoundsMs: make([]float64, len(b.Bounds)), Counts: make([]int64, len(b.Counts))}
	for i, bound := range b.Bounds {
		if h.BoundsMs[i] = bound * 1000; !(h.BoundsMs[i] > 0 && h.BoundsMs[i] <= schedtrace.MaxLatencyMs) {
			return nil
		}
	}
	var below, n int64
	for i := range b.Counts {
		cum := int64(math.Round(b.Counts[i] - a.Counts[i]))
		h.Counts[i] = max(0, cum-below)
		below = max(below, cum)
		n += h.Counts[i]
	}
	if n == 0 {
		return nil
	}
	return h
}

package rehearsal

import (
	"fmt"

	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// SeedSpread is the all-judges row of the trace's replay over several
// seeds of the simulator: how far its own draws (its policy's ties, the
// judges' heartbeat phases, the latencies drawn from the hub's
// histograms) move its mean and p99 wait, and so the gap to the hub's.
type SeedSpread struct {
	Seeds int
	// The hub's figures (the same for every seed: the trace's).
	HubMeanMs, HubP99Ms float64
	// The simulator's, lowest and highest over the seeds.
	SimMeanMs, SimP99Ms [2]float64
}

// seedSpread is cs's spread (nil for fewer than two comparisons or none
// with tasks).
func seedSpread(cs []schedtrace.Comparison) *SeedSpread {
	if len(cs) < 2 || cs[0].All.Hub.Count == 0 {
		return nil
	}
	s := &SeedSpread{Seeds: len(cs), HubMeanMs: cs[0].All.Hub.MeanMs, HubP99Ms: cs[0].All.Hub.P99Ms}
	for i, c := range cs {
		m, p := c.All.Sim.MeanMs, c.All.Sim.P99Ms
		if i == 0 {
			s.SimMeanMs, s.SimP99Ms = [2]float64{m, m}, [2]float64{p, p}
			continue
		}
		s.SimMeanMs = [2]float64{min(s.SimMeanMs[0], m), max(s.SimMeanMs[1], m)}
		s.SimP99Ms = [2]float64{min(s.SimP99Ms[0], p), max(s.SimP99Ms[1], p)}
	}
	return s
}

// Markdown is the spread as the report's sentence: the ranges, and for
// the mean and the p99 whether the hub's figure lies within the
// simulator's range (the gap then is within its draws' luck) or outside
// it (the gap is the model's).
func (s *SeedSpread) Markdown() string {
	where := func(hub float64, sim [2]float64) string {
		if hub >= sim[0] && hub <= sim[1] {
			return "within the simulator's range"
		}
		return "outside it: the gap is the model's, not its draws'"
	}
	// The gaps (sim − hub) / hub in percent, lowest and highest.
	gap := func(hub float64, sim [2]float64) string {
		if hub == 0 {
			return "–"
		}
		return fmt.Sprintf("%+.0f … %+.0f %%", (sim[0]-hub)/hub*100, (sim[1]-hub)/hub*100)
	}
	return fmt.Sprintf("Replayed with seeds 1 to %d (the simulator's own draws: its policy's ties, the judges' heartbeat phases, the latencies drawn from the hub's histograms), all judges: sim mean %.0f–%.0f ms (gap %s), the hub's %.0f ms %s; sim p99 %.0f–%.0f ms (gap %s), the hub's %.0f ms %s.\n",
		s.Seeds, s.SimMeanMs[0], s.SimMeanMs[1], gap(s.HubMeanMs, s.SimMeanMs), s.HubMeanMs, where(s.HubMeanMs, s.SimMeanMs),
		s.SimP99Ms[0], s.SimP99Ms[1], gap(s.HubP99Ms, s.SimP99Ms), s.HubP99Ms, where(s.HubP99Ms, s.SimP99Ms))
}

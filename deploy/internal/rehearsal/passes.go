package rehearsal

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/harness"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// passLogSize is the hub's --pass-log in the rehearsal: at the 40× rush's
// few hundred passes a second, minutes of passes between two reads.
const passLogSize = 1 << 16

// hubPasses is what the rehearsal read of the hub's pass log
// (/debug/passes): every pass it got, how many it missed, and where the
// next read starts.
type hubPasses struct {
	passes []schedtrace.HubPass
	lost   int64
	next   uint64
	err    error // the last read's, nil once one succeeded after it
}

// read reads the hub's passes since the last read (page after
// page while they come full) into p. A hub that restarted (its sequence
// went back) is read from its start again.
func (p *hubPasses) read(ctx context.Context, port int) {
	for {
		pl, err := fetchPasses(ctx, port, p.next)
		if err != nil {
			p.err = err
			return
		}
		p.err = nil
		if pl.Next < p.next { // a new hub: its passes from its first
			p.next = 0
			continue
		}
		p.passes = append(p.passes, pl.Passes...)
		p.lost += int64(pl.Lost)
		p.next = pl.Next
		if len(pl.Passes) < schedtrace.PassLogPage {
			return // the rest comes with the next read
		}
	}
}

// fetchPasses reads one page of the hub's pass log from sequence after.
func fetchPasses(ctx context.Context, port int, after uint64) (schedtrace.PassLog, error) {
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/debug/passes?after=" + strconv.FormatUint(after, 10)
	var pl schedtrace.PassLog
	if err := harness.GetJSON(ctx, url, &pl); err != nil {
		return schedtrace.PassLog{}, fmt.Errorf("rehearsal: the hub's passes: %w", err)
	}
	return pl, nil
}

// tracePasses is the hub's passes as the trace holds them: from start on
// (earlier ones dropped), in µs since start, in the order they began.
func tracePasses(ps []schedtrace.HubPass, start time.Time) []schedtrace.Pass {
	from := start.UnixMicro()
	out := make([]schedtrace.Pass, 0, len(ps))
	for _, p := range ps {
		if p.StartUs < from {
			continue
		}
		out = append(out, schedtrace.Pass{AtUs: p.StartUs - from, TookUs: min(max(p.TookUs, 0), schedtrace.MaxLatencyMs*1000), Placed: max(p.Placed, 0)})
	}
	// The hub's clock is its wall clock: a step back would put a pass
	// before the one it followed.
	slices.SortStableFunc(out, func(a, b schedtrace.Pass) int { return cmp.Compare(a.AtUs, b.AtUs) })
	return out
}

// writePassWindows sets the hub's dispatch passes beside the replay's by
// the window they began in (contest time in brackets, compress: the
// compression): how many placed tasks, how many each placed on average,
// how long they took, the passes that placed nothing, and the share of
// the window the dispatcher spent in a pass. Nothing without windows.
func writePassWindows(b *strings.Builder, ws []schedtrace.PassWindow, compress float64) {
	if len(ws) == 0 {
		return
	}
	fmt.Fprintf(b, "\nThe dispatch passes, the hub's (its pass log) beside the replay's, by the %v they began in: those that placed tasks (how many, the tasks each placed on average, their mean start → end in ms), those that placed nothing, and the share of the window the dispatcher spent in a pass:\n\n",
		time.Duration(schedtrace.WindowMs)*time.Millisecond)
	b.WriteString("| from | placing passes hub / sim | tasks per pass hub / sim | ms hub / sim | idle passes hub / sim | idle ms hub / sim | in a pass hub / sim |\n|---|---|---|---|---|---|---|\n")
	per := func(p schedtrace.PassStats) string {
		if p.Placing == 0 {
			return "–"
		}
		return fmt.Sprintf("%.1f", float64(p.Tasks)/float64(p.Placing))
	}
	ms := func(n int, v float64) string {
		if n == 0 {
			return "–"
		}
		return fmt.Sprintf("%.1f", v)
	}
	busy := func(p schedtrace.PassStats) string {
		return fmt.Sprintf("%.0f %%", (float64(p.Placing)*p.TookMs+float64(p.Idle)*p.IdleMs)/schedtrace.WindowMs*100)
	}
	for _, w := range ws {
		from := time.Duration(w.FromMs) * time.Millisecond
		fmt.Fprintf(b, "| %v (%v) | %d / %d | %s / %s | %s / %s | %d / %d | %s / %s | %s / %s |\n",
			from, time.Duration(float64(from)*compress).Round(time.Minute), w.Hub.Placing, w.Sim.Placing, per(w.Hub), per(w.Sim),
			ms(w.Hub.Placing, w.Hub.TookMs), ms(w.Sim.Placing, w.Sim.TookMs), w.Hub.Idle, w.Sim.Idle,
			ms(w.Hub.Idle, w.Hub.IdleMs), ms(w.Sim.Idle, w.Sim.IdleMs), busy(w.Hub), busy(w.Sim))
	}
}

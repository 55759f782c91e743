package rehearsal

import (
	"fmt"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// writeLearnt sets out what the hub's policy and the replay's had learnt
// of what downloads cost and of the judges' speeds, as the run went: the last reading of each
// every ms of the run (contest time in brackets, compress: the
// compression), then the means over all readings. Nothing when there is
// no reading.
func writeLearnt(b *strings.Builder, pairs []schedtrace.LearntPair, every int64, compress float64) {
	if len(pairs) == 0 || every <= 0 {
		return
	}
	fmt.Fprintf(b, "\nWhat the policy had learnt of what a download costs, on each side from its own results (ms): the mean overhead, dispatch → result less the run, of tasks placed on a judge that held their data (warm) and on one that lacked it (cold), and the download cost the policy ranks judges by and weighs an affinity hold against (fetch: cold − warm, each problem's own, the mean over the problems seen downloaded). The last reading of every %v (the hub's metrics, read every %v; the replay's policy at the same times):\n\n",
		time.Duration(every)*time.Millisecond, latencyEvery)
	b.WriteString("| at | hub warm / cold / fetch | sim warm / cold / fetch | fetch hub − sim | speeds hub | speeds sim |\n|---|---|---|---|---|---|\n")
	speeds := func(l schedtrace.Learnt) string {
		if l.SpeedHi == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f–%.2f", l.SpeedLo, l.SpeedHi)
	}
	// 0: not learnt (no result of that kind yet).
	cell := func(v float64) string {
		if v == 0 {
			return "–"
		}
		return fmt.Sprintf("%.0f", v)
	}
	var hubFetch, simFetch, hubWarm, simWarm float64
	var fetched, warmN, spreadN int
	var hubSpread, simSpread float64 // highest ÷ lowest speed
	for i, p := range pairs {
		if p.Hub.SpeedLo > 0 && p.Sim.SpeedLo > 0 {
			hubSpread += p.Hub.SpeedHi / p.Hub.SpeedLo
			simSpread += p.Sim.SpeedHi / p.Sim.SpeedLo
			spreadN++
		}
		hubFetch += p.Hub.FetchMs
		simFetch += p.Sim.FetchMs
		if p.Hub.FetchMs > 0 || p.Sim.FetchMs > 0 {
			fetched++
		}
		if p.Hub.WarmMs > 0 && p.Sim.WarmMs > 0 {
			hubWarm += p.Hub.WarmMs
			simWarm += p.Sim.WarmMs
			warmN++
		}
		last := i == len(pairs)-1
		if !last && pairs[i+1].Hub.AtMs/every == p.Hub.AtMs/every {
			continue // not the window's last reading
		}
		at := time.Duration(p.Hub.AtMs) * time.Millisecond
		fmt.Fprintf(b, "| %v (%v) | %s / %s / %s | %s / %s / %s | %+.0f | %s | %s |\n", at.Round(time.Second),
			time.Duration(float64(at)*compress).Round(time.Minute),
			cell(p.Hub.WarmMs), cell(p.Hub.ColdMs), cell(p.Hub.FetchMs), cell(p.Sim.WarmMs), cell(p.Sim.ColdMs), cell(p.Sim.FetchMs),
			p.Hub.FetchMs-p.Sim.FetchMs, speeds(p.Hub), speeds(p.Sim))
	}
	n := float64(len(pairs))
	if fetched == 0 {
		fmt.Fprintf(b, "\nNeither side placed a task on a judge that lacked its data, so neither learnt a download cost: both ranked judges by the policy's prior (`FetchPrior`) throughout, and what they learnt of downloads cannot explain a gap between them.")
	} else {
		fmt.Fprintf(b, "\nOver all %d readings the hub's fetch was %.0f ms on average, the simulator's %.0f ms", len(pairs), hubFetch/n, simFetch/n)
		if simFetch > 0 {
			fmt.Fprintf(b, " (the hub's %.2f× the simulator's)", hubFetch/simFetch)
		}
		b.WriteString(". A larger fetch makes a free judge without the data look dearer, so the policy holds more tasks for a busy judge with it, and longer.")
	}
	if warmN > 0 {
		fmt.Fprintf(b, " The warm overhead, where both had one, was %.0f ms on the hub's side and %.0f ms on the simulator's on average over %d readings; the policy uses it only to take from the cold one.", hubWarm/float64(warmN), simWarm/float64(warmN), warmN)
	}
	if spreadN > 0 {
		fmt.Fprintf(b, " The judges' speeds as the policy took them (the table's last columns: the lowest and the highest, 1 the mean judge) spread by %.3f× on the hub's side and %.3f× on the simulator's (highest ÷ lowest, the mean over %d readings): with every judge holding a task's data, the policy holds the task for a busy judge only when it takes that judge to be faster than the free ones, so the wider the spread, the more such holds.",
			hubSpread/float64(spreadN), simSpread/float64(spreadN), spreadN)
	}
	b.WriteString("\n")
}

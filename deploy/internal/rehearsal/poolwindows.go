package rehearsal

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/redisconn"
)

// PoolWindow is what the hub's commands waited for a free connection of
// its Redis pool between two readings of its /metrics (latencyEvery
// apart), with what else the hub did then.
type PoolWindow struct {
	From, To       time.Time
	Waits, WaitSec float64
	// WakeMs is the dispatcher's mean wait for a core in the window (its
	// wakes found it idle): how starved the hub was; -1 without a wake.
	WakeMs   float64
	Browsers float64
	// BrowserWaits and BrowserWaitSec are the browsers' reads that waited
	// at the hub's gate (--browser-reads) in the window.
	BrowserWaits, BrowserWaitSec float64
	// Top are the Redis commands that took the hub the most time in the
	// window (their times as the hub saw them, pool waits included).
	Top []CommandTime
}

// CommandTime is one label of a process's Redis command times
// (obs.RedisCommandSeconds) over a span: its calls, their time in all,
// the calls over 100 ms and the bucket bound 99 % of the calls are
// within (s; +Inf above the last bound, LastBound).
type CommandTime struct {
	LastBound  float64
	Command    string
	Calls, Sec float64
	Over100ms  float64
	P99        float64
}

// poolWindowsKept is how many of the windows with the most waiting the
// report lists; topCommandsPerWindow how many commands each names.
const (
	poolWindowsKept      = 6
	topCommandsPerWindow = 3
)

// poolWindows turns the hub's readings into its windows that had a pool
// wait, the longest waiting first (at most poolWindowsKept), with the
// number of windows read and of those that had a wait. A counter that
// went down (the hub restarted) counts from zero again.
func poolWindows(samples []hubSample) (kept []PoolWindow, windows, waited int) {
	var all []PoolWindow
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		windows++
		if b.poolWaits < a.poolWaits || b.wake.Count < a.wake.Count {
			a = hubSample{at: a.at}
		}
		if b.poolWaits <= a.poolWaits {
			continue
		}
		w := PoolWindow{From: a.at, To: b.at, Waits: b.poolWaits - a.poolWaits,
			WaitSec: max(0, b.poolWaitSec-a.poolWaitSec), WakeMs: -1, Browsers: b.mem.Browsers,
			BrowserWaits: max(0, b.gateWaits-a.gateWaits), BrowserWaitSec: max(0, b.gateWaitSec-a.gateWaitSec)}
		if n := b.wake.Count - a.wake.Count; n > 0 {
			w.WakeMs = max(0, (b.wake.Sum-a.wake.Sum)/n*1000)
		}
		w.Top = commandTimes(a.cmds, b.cmds, topCommandsPerWindow)
		all = append(all, w)
	}
	slices.SortStableFunc(all, func(x, y PoolWindow) int { return cmp.Compare(y.WaitSec, x.WaitSec) })
	return all[:min(len(all), poolWindowsKept)], windows, len(all)
}

// commandTimes is what each label of the commands' histograms counted
// from reading a to reading b (a nil: from zero; a label whose count went
// down: from zero), the n that took the most time first (n ≤ 0: all),
// then every read sent with BLOCK (redisconn.BlockSuffix), also the most
// time first: its time is mostly its block, which no caller waits for
// as it waits for a reply, so it neither leads the list nor takes a
// place among the n.
func commandTimes(a, b map[string]obs.Histogram, n int) []CommandTime {
	var out []CommandTime
	for label, hb := range b {
		ha := a[label]
		if hb.Count < ha.Count || len(ha.Counts) != len(hb.Counts) {
			ha = obs.Histogram{}
		}
		calls := hb.Count - ha.Count
		if calls <= 0 {
			continue
		}
		d := obs.Histogram{Bounds: hb.Bounds, Counts: make([]float64, len(hb.Counts)), Sum: hb.Sum - ha.Sum, Count: calls}
		for i := range hb.Counts {
			d.Counts[i] = hb.Counts[i]
			if len(ha.Counts) > 0 {
				d.Counts[i] -= ha.Counts[i]
			}
		}
		c := CommandTime{Command: label, Calls: calls, Sec: max(0, d.Sum), P99: d.UpperQuantile(0.99)}
		if n := len(d.Bounds); n > 0 {
			c.LastBound = d.Bounds[n-1]
		}
		if i := slices.Index(d.Bounds, 0.1); i >= 0 {
			c.Over100ms = calls - d.Counts[i]
		}
		out = append(out, c)
	}
	byTime := func(x, y CommandTime) int {
		return cmp.Or(cmp.Compare(y.Sec, x.Sec), strings.Compare(x.Command, y.Command))
	}
	var blocked []CommandTime
	out = slices.DeleteFunc(out, func(c CommandTime) bool {
		if strings.HasSuffix(c.Command, redisconn.BlockSuffix) {
			blocked = append(blocked, c)
			return true
		}
		return false
	})
	slices.SortFunc(out, byTime)
	slices.SortFunc(blocked, byTime)
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return append(out, blocked...)
}

// fmtCommands writes command times as "label: calls, mean ms" joined.
func fmtCommands(cs []CommandTime) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("`%s`: %.0f, %.1f ms", c.Command, c.Calls, 1000*c.Sec/c.Calls))
	}
	return strings.Join(parts, "; ")
}

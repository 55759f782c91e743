package rehearsal

import (
	"fmt"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
)

// MemReading is where a Go process's memory was at one moment, from its
// /metrics (the Go and process collectors): what the peak RSS of the
// processes table is made of.
type MemReading struct {
	At time.Time
	// RSS is resident memory; HeapInuse the Go heap's spans in use (live
	// objects and garbage not yet swept); HeapHeld the heap's free spans
	// not returned to the kernel (idle − released, still resident);
	// Stacks the goroutines' stacks; NextGC the heap size at which the
	// next collection starts. Bytes.
	RSS, HeapInuse, HeapHeld, Stacks, NextGC float64
	Goroutines, Browsers                     float64
}

// memGauges are the samples a MemReading is read from.
var memGauges = []string{
	"process_resident_memory_bytes", "go_memstats_heap_inuse_bytes", "go_memstats_heap_idle_bytes",
	"go_memstats_heap_released_bytes", "go_memstats_stack_inuse_bytes", "go_memstats_next_gc_bytes",
	"go_goroutines", obs.HubBrowsersConnected,
}

// readMem reads a MemReading from a Prometheus text exposition; ok is
// false (and RSS 0) when it has no resident memory (not a Go process's,
// or cut).
func readMem(text string, at time.Time) (m MemReading, ok bool) {
	g, err := obs.ReadGauges(strings.NewReader(text), memGauges...)
	if err != nil || g["process_resident_memory_bytes"] <= 0 {
		return MemReading{}, false
	}
	return MemReading{
		At: at, RSS: g["process_resident_memory_bytes"], HeapInuse: g["go_memstats_heap_inuse_bytes"],
		HeapHeld: max(0, g["go_memstats_heap_idle_bytes"]-g["go_memstats_heap_released_bytes"]),
		Stacks:   g["go_memstats_stack_inuse_bytes"], NextGC: g["go_memstats_next_gc_bytes"],
		Goroutines: g["go_goroutines"], Browsers: g[obs.HubBrowsersConnected],
	}, true
}

// memMoment is a reading the report shows, with what makes it one.
type memMoment struct {
	What string
	MemReading
}

// memMoments picks the readings the report shows: the first, the one
// with the most browsers, the one with the highest RSS and the last, in
// time order, each once.
func memMoments(rs []MemReading) []memMoment {
	if len(rs) == 0 {
		return nil
	}
	first, most, peak, last := 0, 0, 0, len(rs)-1
	for i, m := range rs {
		if m.Browsers > rs[most].Browsers {
			most = i
		}
		if m.RSS > rs[peak].RSS {
			peak = i
		}
	}
	names := map[int][]string{}
	for _, x := range []struct {
		i    int
		what string
	}{{first, "first reading"}, {most, "most browsers"}, {peak, "highest RSS"}, {last, "last reading"}} {
		names[x.i] = append(names[x.i], x.what)
	}
	var out []memMoment
	for i := range rs {
		if n, ok := names[i]; ok {
			out = append(out, memMoment{strings.Join(n, ", "), rs[i]})
		}
	}
	return out
}

// writeMemory writes the hub's memory over the contest: what its RSS was
// made of at the moments memMoments picks, and per browser connected.
func writeMemory(b *strings.Builder, rep *Report) {
	ms := memMoments(rep.HubMemory)
	if len(ms) == 0 {
		return
	}
	mib := func(v float64) string { return fmt.Sprintf("%.0f", v/(1<<20)) }
	per := func(v, n float64) string {
		if n < 1 {
			return "–"
		}
		return fmt.Sprintf("%.0f", v/1024/n)
	}
	fmt.Fprintf(b, "\n## The hub's memory\n\nRead from its /metrics every %v (%d readings). Heap in use: spans holding objects, live or not yet swept; heap held: free spans not yet returned to the kernel; the collector lets the heap grow to the next-GC size before it collects.\n\n", latencyEvery, len(rep.HubMemory))
	b.WriteString("| moment | contest time | RSS MiB | heap in use MiB | heap held MiB | stacks MiB | next GC MiB | goroutines | browsers | RSS KiB per browser | heap in use KiB per browser |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range ms {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %.0f | %.0f | %s | %s |\n", m.What, contestClock(m.At, rep),
			mib(m.RSS), mib(m.HeapInuse), mib(m.HeapHeld), mib(m.Stacks), mib(m.NextGC), m.Goroutines, m.Browsers,
			per(m.RSS, m.Browsers), per(m.HeapInuse, m.Browsers))
	}
}

package sched

import (
	"strconv"
	"testing"
	"time"
)

// BenchmarkPick100Judges measures one scheduling decision with 100 judges
// of 4 slots each, kept about 75 % busy: every placed task is finished
// again 300 placements later, so the policy always sees a realistic mix of
// free and full judges. 40 problems, each judge caching 4 of them. This is
// the figure `verdict-stack bench` reports as decisions/s (item 5 of
// issue 9); it is plain Go, no I/O.
func BenchmarkPick100Judges(b *testing.B) {
	for _, name := range []string{NameDefault, NameGuide} {
		b.Run(name, func(b *testing.B) {
			p, err := New(name)
			if err != nil {
				b.Fatal(err)
			}
			const nJudges, problems, inflight = 100, 40, 300
			judges := make([]Judge, nJudges)
			for i := range judges {
				cache := map[string]bool{}
				for k := range 4 {
					cache["d"+strconv.Itoa((i+k*11)%problems)] = true
				}
				judges[i] = Judge{ID: "judge-" + strconv.Itoa(i), Cores: 4, Slots: 4,
					Languages: []string{"cpp17", "py3"}, Load1: 1, MemUsedRatio: 0.3,
					Cached: func(h string) bool { return cache[h] }}
			}
			ring := make([]int, 0, inflight)
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			placed := 0
			i := 0
			for b.Loop() {
				i++
				now = now.Add(time.Millisecond)
				prob := int64(i*7919%problems) + 1
				t := Task{SubmissionID: int64(i), ProblemID: prob, DataHash: "d" + strconv.FormatInt(prob-1, 10),
					Language: "cpp17", Priority: 1, EnqueuedAt: now}
				d := p.Pick(now, t, judges)
				if d.Judge < 0 {
					continue
				}
				placed++
				j := &judges[d.Judge]
				j.Assigned++
				j.Running = min(j.Assigned, 4)
				j.SinceHeartbeat++
				if len(ring) == inflight {
					o := &judges[ring[0]]
					o.Assigned--
					o.Running = min(o.Assigned, 4)
					o.SinceHeartbeat = 0
					ring = ring[1:]
				}
				ring = append(ring, d.Judge)
			}
			b.ReportMetric(float64(placed)/float64(i), "placed/op")
		})
	}
}

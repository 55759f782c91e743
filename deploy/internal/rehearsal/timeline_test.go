package rehearsal

import (
	"strings"
	"testing"
	"time"
)

// The login window's classes are timed by the timedEvery they were due
// in; the others are not.
func TestTimeline(t *testing.T) {
	m := newMetrics()
	start := time.Now().Truncate(timedEvery).Add(-10 * timedEvery)
	due := func(windows int, late time.Duration) time.Time {
		return start.Add(time.Duration(windows)*timedEvery + time.Second).Add(-late)
	}
	// ok measures from now: a request due d before now took d.
	m.ok(ClassLogin, time.Now().Add(-200*time.Millisecond), time.Now())
	m.ok(ClassLogin, due(0, 0), time.Now())
	m.ok(ClassRegister, due(0, 0), time.Now())
	m.ok(ClassLogin, due(3, 0), time.Now())
	m.ok(ClassProblem, due(3, 0), time.Now())
	tl := m.timeline()
	if len(tl) != 4 {
		t.Fatalf("timeline %+v, want 3 login windows and 1 register window", tl)
	}
	if tl[0].Class != ClassLogin || !tl[0].At.Equal(start) || tl[1].Class != ClassLogin || !tl[1].At.Equal(start.Add(3*timedEvery)) ||
		tl[3].Class != ClassRegister || !tl[3].At.Equal(start) || tl[0].N != 1 {
		t.Errorf("timeline %+v", tl)
	}
	if tl[2].N != 1 || tl[2].P99 < 150*time.Millisecond || tl[2].P99 > 5*time.Second {
		t.Errorf("the window of now: %+v", tl[2])
	}
	rep := &Report{Start: start.Add(4 * timedEvery), Config: Config{Compress: 10, ArrivalCompress: 4}, Timeline: tl}
	var b strings.Builder
	writeTimeline(&b, rep)
	for _, s := range []string{"| due from (contest time) | login n | login p50 | login p99 | register n |",
		"| -8m0s | 1 |", "| -2m0s | 1 |", " 0 | – | – |"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the timeline lacks %q:\n%s", s, b.String())
		}
	}
	var none strings.Builder
	writeTimeline(&none, &Report{})
	if none.Len() != 0 {
		t.Errorf("no timeline, yet %q", none.String())
	}
}

package rehearsal

import (
	"testing"
	"time"
)

// A failure within a fault's window is provoked, one outside it
// unexpected; each row says when its failures were first and last seen,
// so that one just past a window can be told from one in the middle of
// nowhere.
func TestFailuresByWindowAndWhen(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 13, 42, 0, 0, time.UTC)
	m := newMetrics()
	m.provoke(FaultRedis, t0, 15*time.Second)
	read := Failure{Class: ClassSocket, What: "read", Code: "EOF"}
	submit := Failure{Class: "submit", What: "POST /api/submissions", Status: 503, Code: "unavailable"}
	m.fail(submit, t0.Add(time.Second))
	m.fail(submit, t0.Add(14*time.Second))
	m.fail(read, t0.Add(20*time.Second))
	m.fail(read, t0.Add(-time.Second))
	m.fail(read, t0.Add(15*time.Second)) // the window's end is outside it
	m.retried(submit)
	unexpected, provoked, shed := m.failures()
	if len(provoked) != 1 || provoked[0].Failure != submit || provoked[0].N != 2 ||
		!provoked[0].First.Equal(t0.Add(time.Second)) || !provoked[0].Last.Equal(t0.Add(14*time.Second)) {
		t.Errorf("provoked %+v, want the two submits, seen from 1 s to 14 s in", provoked)
	}
	if len(unexpected) != 1 || unexpected[0].Failure != read || unexpected[0].N != 3 ||
		!unexpected[0].First.Equal(t0.Add(-time.Second)) || !unexpected[0].Last.Equal(t0.Add(20*time.Second)) {
		t.Errorf("unexpected %+v, want the three reads, seen from -1 s to 20 s", unexpected)
	}
	if len(shed) != 1 || shed[0].N != 1 || !shed[0].First.IsZero() {
		t.Errorf("shed %+v, want the one retried, with no times", shed)
	}
}

package harness

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

func TestVerdicts(t *testing.T) {
	tr := NewVerdicts()
	at := time.Unix(100, 0)
	// The verdict arrives before the POST's answer.
	tr.Done(1, Final{At: at, Verdict: protocol.VerdictAC})
	if f, err := tr.Wait(context.Background(), 1); err != nil || !f.At.Equal(at) || f.Verdict != protocol.VerdictAC {
		t.Fatalf("verdict first: %+v, %v", f, err)
	}
	// The POST's answer first, then the verdict; a repeat is ignored.
	got := make(chan Final, 1)
	go func() {
		f, _ := tr.Wait(context.Background(), 2)
		got <- f
	}()
	for {
		if tr.waiting() == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	tr.Done(2, Final{At: at.Add(time.Second), Verdict: protocol.VerdictWA})
	tr.Done(2, Final{At: at.Add(time.Hour), Verdict: protocol.VerdictAC})
	if f := <-got; f.Verdict != protocol.VerdictWA || !f.At.Equal(at.Add(time.Second)) {
		t.Fatalf("POST first: %+v", f)
	}
	// Never judged: the context ends the wait and nothing is left behind.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := tr.Wait(ctx, 3); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("no verdict: %v", err)
	}
	if n := tr.waiting(); n != 0 {
		t.Fatalf("%d waiters left", n)
	}
}

// The statuses before the final one say where a verdict that never came
// stopped; one after the final is not recorded.
func TestVerdictsLastStatus(t *testing.T) {
	tr := NewVerdicts()
	at := time.Unix(100, 0)
	if _, ok := tr.Last(4); ok {
		t.Fatal("a status for a submission never seen")
	}
	tr.Saw(4, Final{At: at, Verdict: protocol.VerdictQueued})
	tr.Saw(4, Final{At: at.Add(time.Second), Verdict: protocol.VerdictJudging})
	if f, ok := tr.Last(4); !ok || f.Verdict != protocol.VerdictJudging || !f.At.Equal(at.Add(time.Second)) {
		t.Fatalf("last status %+v, %v; want judging", f, ok)
	}
	tr.Done(4, Final{At: at.Add(2 * time.Second), Verdict: protocol.VerdictAC})
	tr.Saw(4, Final{At: at.Add(3 * time.Second), Verdict: protocol.VerdictJudging}) // a late event
	if f, _ := tr.Last(4); f.Verdict != protocol.VerdictJudging || !f.At.Equal(at.Add(time.Second)) {
		t.Fatalf("a status after the final replaced the last one before it: %+v", f)
	}
}

package queue_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
)

// TestCasesEventsCarryPrior: each cases event carries, for the hub, the
// cases the live state held before it in short (index, verdict, score, no
// message); a new attempt starts again from none.
func TestCasesEventsCarryPrior(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	ps := env.Client.Subscribe(ctx, env.Names.Events("submission", 4))
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	c := func(n int, v protocol.Verdict, score float64) protocol.CaseResult {
		return protocol.CaseResult{Case: n, Verdict: v, CPUMs: 9, Score: score, Message: "SECRET-MESSAGE"}
	}
	publish := func(attempt int, cs ...protocol.CaseResult) {
		if _, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: 4, Attempt: attempt, Owner: 7,
			Status: protocol.VerdictJudging, Cases: cs, Guard: queue.GuardNone}); err != nil {
			t.Fatal(err)
		}
	}
	// prior reads the next cases event's prior cases.
	prior := func() []protocol.CaseResult {
		t.Helper()
		for {
			m, err := ps.ReceiveMessage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var ev struct {
				Kind  protocol.EventKind       `json:"kind"`
				Prior []protocol.CaseResult    `json:"prior"`
				Body  protocol.SubmissionState `json:"body"`
			}
			if err := json.Unmarshal([]byte(m.Payload), &ev); err != nil {
				t.Fatalf("event %s: %v", m.Payload, err)
			}
			if ev.Kind != protocol.EventCases {
				continue
			}
			if i := strings.Index(m.Payload, `"prior"`); strings.Contains(m.Payload[i:], "SECRET") {
				t.Fatalf("prior carries a message: %s", m.Payload)
			}
			return ev.Prior
		}
	}
	publish(1, c(2, protocol.VerdictAC, 10), c(1, protocol.VerdictAC, 10))
	if p := prior(); len(p) != 0 {
		t.Fatalf("first batch: prior %+v", p)
	}
	publish(1, c(4, protocol.VerdictWA, 0), c(1, protocol.VerdictAC, 10)) // case 1 again: not new
	want := []protocol.CaseResult{{Case: 2, Verdict: protocol.VerdictAC, Score: 10}, {Case: 1, Verdict: protocol.VerdictAC, Score: 10}}
	if p := prior(); !slices.Equal(p, want) {
		t.Fatalf("second batch: prior %+v, want %+v", p, want)
	}
	publish(1, c(3, protocol.VerdictAC, 10))
	if p := prior(); len(p) != 3 || p[2] != (protocol.CaseResult{Case: 4, Verdict: protocol.VerdictWA}) {
		t.Fatalf("third batch: prior %+v", p)
	}
	publish(2, c(1, protocol.VerdictAC, 10)) // a rejudge: a new attempt
	if p := prior(); len(p) != 0 {
		t.Fatalf("new attempt: prior %+v", p)
	}
	snap, err := q.Submission(ctx, 4)
	if err != nil || len(snap.State.Cases) != 1 {
		t.Fatalf("snapshot %+v %v", snap, err)
	}
}

package rehearsal

import (
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// TestTraceBackground: later attempts are the trace's background tasks,
// enqueued when the queue said (the push's enqueue time); a rejudge's at
// the rejudge priority, a requeue's at the contest's; without the queue's
// time, a rejudge's when staff asked and a requeue's when first pushed.
func TestTraceBackground(t *testing.T) {
	start := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	at := secondsAfter(start)
	rejudgeAt := at(180)
	cases := []struct {
		name     string
		later    firstAttempt
		attempt  int
		wantAt   int64 // ms; -1: not in the trace
		wantPrio protocol.Priority
	}{
		{"rejudge, enqueued by the job later", firstAttempt{pushed: at(250), enqueued: at(249.5), work: time.Second}, 2, 249500, protocol.PriorityRejudge},
		{"rejudge from a hub that sends no enqueue", firstAttempt{pushed: at(250), work: time.Second}, 2, 180000, protocol.PriorityRejudge},
		{"requeue before the rejudge", firstAttempt{pushed: at(90), enqueued: at(88), work: time.Second}, 2, 88000, protocol.PriorityContest},
		{"requeue from a hub that sends no enqueue", firstAttempt{pushed: at(90), work: time.Second}, 2, 90000, protocol.PriorityContest},
		{"never judged (no work)", firstAttempt{pushed: at(250), enqueued: at(249)}, 2, -1, 0},
		{"a first attempt is no background", firstAttempt{pushed: at(250), enqueued: at(249), work: time.Second}, 1, -1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{start: start}
			f := tc.later
			r.judges = &judgePool{r: r, first: map[int64]*firstAttempt{}, rejudgeAt: rejudgeAt,
				later: map[protocol.TaskRef]*firstAttempt{{SubmissionID: 7, Attempt: tc.attempt}: &f}}
			tr := r.trace()
			if tc.wantAt < 0 {
				if len(tr.Background) != 0 {
					t.Fatalf("background %+v, want none", tr.Background)
				}
				return
			}
			if len(tr.Background) != 1 {
				t.Fatalf("background %+v, want one task", tr.Background)
			}
			if b := tr.Background[0]; b.AtMs != tc.wantAt || b.Priority != int(tc.wantPrio) || b.SubmissionID != 7 || b.WorkMs != 1000 {
				t.Errorf("background task %+v, want at_ms %d, priority %d, work 1000 ms", b, tc.wantAt, tc.wantPrio)
			}
		})
	}
}

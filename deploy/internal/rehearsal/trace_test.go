package rehearsal

import (
	"reflect"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/simjudge"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/schedtrace"
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
		{"rejudge, enqueued by the job later", firstAttempt{pushed: at(250), enqueued: at(249.5), work: time.Second, compile: 300 * time.Millisecond}, 2, 249500, protocol.PriorityRejudge},
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
			if b := tr.Background[0]; b.AtMs != tc.wantAt || b.Priority != int(tc.wantPrio) || b.SubmissionID != 7 || b.WorkMs != 1000 ||
				b.CompileMs != tc.later.compile.Milliseconds() {
				t.Errorf("background task %+v, want at_ms %d, priority %d, work 1000 ms", b, tc.wantAt, tc.wantPrio)
			}
		})
	}
}

// TestTraceFirstAttempts: a first attempt's task holds its slot time on
// the judge first pushed it (a slot took it → its result left) and the
// hub's time from that result's sending to its slot free (its ack); a
// result from another judge (the first refused it busy) records neither.
func TestTraceFirstAttempts(t *testing.T) {
	start := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	at := secondsAfter(start)
	cases := []struct {
		name        string
		first       firstAttempt
		wantHeld    int64
		wantSlot    float64
		wantNoticed int64
		wantHolds   *schedtrace.Holds
	}{
		{"judged where pushed", firstAttempt{judge: "a", pushed: at(10), enqueued: at(9), noticed: at(9.004), work: time.Second,
			compile: 300 * time.Millisecond, started: at(10.1), result: at(11.4), resultOn: "a", slotMs: 412.5}, 1300, 412.5, 9004, nil},
		{"judged where pushed, no ack yet", firstAttempt{judge: "a", pushed: at(10), enqueued: at(9), work: time.Second,
			started: at(10.1), result: at(11.4), resultOn: "a"}, 1300, 0, 0, nil},
		{"judged by another judge", firstAttempt{judge: "a", pushed: at(10), enqueued: at(9), work: time.Second,
			started: at(10.1), result: at(11.4), resultOn: "b", slotMs: 412.5}, 0, 0, 0, nil},
		{"held by the hub's passes", firstAttempt{judge: "a", pushed: at(10), enqueued: at(9), work: time.Second,
			held: &protocol.Held{Busy: 3, Affinity: 2, AffinityMs: at(9.25).UnixMilli()}},
			0, 0, 0, &schedtrace.Holds{Busy: 3, Affinity: 2, AffinityMs: 9250}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{start: start, subs: map[int64]submitted{7: {acked: at(9.5)}}}
			f := tc.first
			r.judges = &judgePool{r: r, first: map[int64]*firstAttempt{7: &f}, later: map[protocol.TaskRef]*firstAttempt{}}
			tr := r.trace()
			if len(tr.Tasks) != 1 {
				t.Fatalf("tasks %+v, want one", tr.Tasks)
			}
			if k := tr.Tasks[0]; k.HeldMs != tc.wantHeld || k.SlotMs != tc.wantSlot || k.AtMs != 9000 || k.DispatchMs != 10000 || k.NoticedMs != tc.wantNoticed {
				t.Errorf("task %+v, want held_ms %d, slot_ms %v, noticed_ms %d, at_ms 9000, dispatch_ms 10000", k, tc.wantHeld, tc.wantSlot, tc.wantNoticed)
			}
			// The compile, part of the work: the replay leaves it out of
			// the run its policy learns, as the hub does.
			if k := tr.Tasks[0]; k.CompileMs != tc.first.compile.Milliseconds() || k.WorkMs != 1000 {
				t.Errorf("task compile_ms %d of work_ms %d, want %d of 1000", k.CompileMs, k.WorkMs, tc.first.compile.Milliseconds())
			}
			if k := tr.Tasks[0]; !reflect.DeepEqual(k.Holds, tc.wantHolds) {
				t.Errorf("holds %+v, want %+v", k.Holds, tc.wantHolds)
			}
		})
	}
}

// TestSlotFromAck: a first attempt takes the slot time of the ack of its
// first send from the judge it was judged on; not another judge's, a later
// attempt's, a resend's, nor an ack without one, and never twice.
func TestSlotFromAck(t *testing.T) {
	ack := func(judge string, attempt, sends int, slot float64) simjudge.Event {
		return simjudge.Event{Kind: simjudge.EventAcked, JudgeID: judge,
			Task: simjudge.TaskRecord{SubmissionID: 7, Attempt: attempt, Sends: sends, SlotMs: slot}}
	}
	cases := []struct {
		name string
		acks []simjudge.Event
		want float64
	}{
		{"the judge that sent it", []simjudge.Event{ack("a", 1, 1, 300)}, 300},
		{"another judge", []simjudge.Event{ack("b", 1, 1, 300)}, 0},
		{"a later attempt", []simjudge.Event{ack("a", 2, 1, 300)}, 0},
		{"a resend's", []simjudge.Event{ack("a", 1, 2, 300)}, 0},
		{"no slot time", []simjudge.Event{ack("a", 1, 1, 0)}, 0},
		{"the first ack's", []simjudge.Event{ack("a", 1, 1, 300), ack("a", 1, 1, 900)}, 300},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &firstAttempt{judge: "a", resultOn: "a"}
			p := &judgePool{first: map[int64]*firstAttempt{7: f}, later: map[protocol.TaskRef]*firstAttempt{}}
			for _, ev := range tc.acks {
				p.onEvent(ev)
			}
			if f.slotMs != tc.want {
				t.Errorf("slot %v ms, want %v", f.slotMs, tc.want)
			}
		})
	}
}

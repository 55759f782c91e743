package hub

import (
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// TestForgetKeepsALaterAttempt: a result's handler drops its attempt's
// assignment (or an older one's), never a later attempt of the submission
// placed on the judge meanwhile (a rejudge).
func TestForgetKeepsALaterAttempt(t *testing.T) {
	for _, tc := range []struct {
		name     string
		held     int // the attempt of submission 1 assigned to the judge
		forget   protocol.TaskRef
		wantKept []int64
	}{
		{"its own attempt", 1, protocol.TaskRef{SubmissionID: 1, Attempt: 1}, []int64{2}},
		{"an older attempt's assignment", 1, protocol.TaskRef{SubmissionID: 1, Attempt: 2}, []int64{2}},
		{"a later attempt placed meanwhile stays", 2, protocol.TaskRef{SubmissionID: 1, Attempt: 1}, []int64{1, 2}},
		{"an unknown submission", 1, protocol.TaskRef{SubmissionID: 9, Attempt: 1}, []int64{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &Hub{}
			j := &judgeConn{h: h, assigned: map[int64]*assignment{1: {attempt: tc.held}, 2: {attempt: 1}}}
			h.forget(j, tc.forget)
			for _, id := range tc.wantKept {
				if j.assigned[id] == nil {
					t.Errorf("forget(%v) dropped %d", tc.forget, id)
				}
			}
			if len(j.assigned) != len(tc.wantKept) {
				t.Errorf("after forget(%v): %d assignments, want %d", tc.forget, len(j.assigned), len(tc.wantKept))
			}
			if a := j.assigned[1]; a != nil && a.attempt != tc.held {
				t.Errorf("forget(%v) left attempt %d, want %d", tc.forget, a.attempt, tc.held)
			}
		})
	}
}

// TestSlotWait: a result's wait for its slot counts from when its judge
// sent it, unless the judge did not say or its clock puts that after the
// read: then from the read.
func TestSlotWait(t *testing.T) {
	read := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	freed := read.Add(300 * time.Millisecond)
	for _, tc := range []struct {
		name string
		sent time.Time
		want time.Duration
	}{
		{"sent 2 s before the read", read.Add(-2 * time.Second), 2300 * time.Millisecond},
		{"not said", time.Time{}, 300 * time.Millisecond},
		{"after the read: another clock", read.Add(time.Hour), 300 * time.Millisecond},
		{"a second after the read", read.Add(time.Second), 300 * time.Millisecond},
	} {
		if got := slotWait(tc.sent, read, freed); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := slotWait(time.Time{}, freed, read); got != 0 {
		t.Errorf("freed before the read: %v, want 0", got)
	}
}

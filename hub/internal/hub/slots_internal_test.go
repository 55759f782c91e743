package hub

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
)

// TestResultFreesItsSlotWhenRead: a result read off the judge's socket
// frees its attempt's slot in the hub's view at once and wakes the
// dispatcher, before its handler's Redis work; the handler's forget then
// drops the assignment, but never a later attempt placed on the judge
// meanwhile.
func TestResultFreesItsSlotWhenRead(t *testing.T) {
	ref := func(id int64, attempt int) protocol.TaskRef {
		return protocol.TaskRef{SubmissionID: id, Attempt: attempt}
	}
	tests := []struct {
		name         string
		read         protocol.TaskRef // the result read
		wantAssigned int              // of the judge's 2 assignments (1#1, 2#1), in the view after the read
		wantWake     bool
		rejudged     bool    // then 1#2 is placed on the judge
		wantKept     []int64 // the assignments left after the result's handler forgets it
	}{
		{"its attempt's slot frees", ref(1, 1), 1, true, false, []int64{2}},
		{"an older attempt's result frees nothing", ref(1, 0), 2, false, false, []int64{1, 2}},
		{"an unknown submission frees nothing", ref(9, 1), 2, false, false, []int64{1, 2}},
		{"a later attempt placed meanwhile stays", ref(1, 1), 1, true, true, []int64{1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := newMetrics(prometheus.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			h := &Hub{wake: make(chan struct{}, 1), m: m}
			j := &judgeConn{h: h, assigned: map[int64]*assignment{
				1: {attempt: 1, inHeartbeat: true}, 2: {attempt: 1},
			}, hello: protocol.Hello{MaxParallel: 2}}
			h.resultRead(j, protocol.Result{TaskRef: tc.read}, time.Now())
			v := j.view(time.Time{})
			if v.Assigned != tc.wantAssigned {
				t.Errorf("view after the read: %d assigned, want %d", v.Assigned, tc.wantAssigned)
			}
			if v.SinceHeartbeat != 1 {
				t.Errorf("view after the read: %d since the heartbeat, want 1 (task 2)", v.SinceHeartbeat)
			}
			select {
			case <-h.wake:
				if !tc.wantWake {
					t.Error("the dispatcher was woken")
				}
			default:
				if tc.wantWake {
					t.Error("the dispatcher was not woken")
				}
			}
			h.resultRead(j, protocol.Result{TaskRef: tc.read}, time.Now()) // read again (a resend): nothing more
			if got := j.view(time.Time{}).Assigned; got != tc.wantAssigned {
				t.Errorf("after a resend: %d assigned, want %d", got, tc.wantAssigned)
			}
			if tc.rejudged {
				j.assigned[1] = &assignment{attempt: 2}
			}
			h.forget(j, tc.read)
			for _, id := range tc.wantKept {
				if j.assigned[id] == nil {
					t.Errorf("forget(%v) dropped %d", tc.read, id)
				}
			}
			if len(j.assigned) != len(tc.wantKept) {
				t.Errorf("after forget(%v): %d assignments, want %d", tc.read, len(j.assigned), len(tc.wantKept))
			}
			if tc.rejudged && j.assigned[1].attempt != 2 {
				t.Errorf("forget(%v) left attempt %d, want 2", tc.read, j.assigned[1].attempt)
			}
		})
	}
}

// TestResultSlotTimedFromItsSending: the hub times a result's way to its
// slot from when the judge says it sent it, on the judge's clock, unless
// that is after the read (another clock) or unset: then from the read.
func TestResultSlotTimedFromItsSending(t *testing.T) {
	read := time.Now()
	for _, tc := range []struct {
		name    string
		sentMs  int64
		atLeast time.Duration // the observed wait
		below   time.Duration
	}{
		{"sent 2 s before the read", read.Add(-2 * time.Second).UnixMilli(), 2 * time.Second, time.Minute},
		{"not said", 0, 0, time.Second},
		{"after the read: another clock", read.Add(time.Hour).UnixMilli(), 0, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			m, err := newMetrics(reg)
			if err != nil {
				t.Fatal(err)
			}
			h := &Hub{wake: make(chan struct{}, 1), m: m}
			j := &judgeConn{h: h, assigned: map[int64]*assignment{1: {attempt: 1}}}
			h.resultRead(j, protocol.Result{TaskRef: protocol.TaskRef{SubmissionID: 1, Attempt: 1}, SentMs: tc.sentMs}, read)
			mfs, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			var sum float64
			var n uint64
			for _, mf := range mfs {
				if mf.GetName() == obs.HubResultSlotSeconds {
					sum, n = mf.GetMetric()[0].GetHistogram().GetSampleSum(), mf.GetMetric()[0].GetHistogram().GetSampleCount()
				}
			}
			if got := time.Duration(sum * float64(time.Second)); n != 1 || got < tc.atLeast || got >= tc.below {
				t.Errorf("observed %d waits summing %v, want one in [%v, %v)", n, got, tc.atLeast, tc.below)
			}
		})
	}
}

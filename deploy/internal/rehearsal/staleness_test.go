package rehearsal

import (
	"slices"
	"testing"
	"time"
)

// A sampled browser measures a result from the judge's send to the push
// that changes its cell, once; a result that changes nothing visible is
// measured at the cell's next change, but not when that change is the
// unfreeze (which shows the freeze's unmeasured results at once), nor
// when a rejudge's result makes it.
func TestStalenessMeasure(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 14, 0, 0, 0, time.UTC)
	k := cellKey{1, "A"}
	board := func(frozen, full bool, c cell) *boardDoc {
		return &boardDoc{Frozen: frozen, Full: full, Rows: []row{{UserID: 1, Problems: map[string]cell{"A": c}}}}
	}
	type step struct {
		result  bool // a result for the cell is sent at the step's time
		rejudge bool // a rejudge's result for the cell is sent then
		doc     *boardDoc
		measure bool
	}
	for _, tc := range []struct {
		name  string
		steps []step
		want  []time.Duration // measured, in order
	}{
		{"a result shown", []step{
			{false, false, board(false, true, cell{}), false},
			{true, false, nil, false},
			{false, false, board(false, false, cell{Attempts: 1}), true},
		}, []time.Duration{time.Second}},
		{"shown twice, measured once", []step{
			{false, false, board(false, true, cell{}), false},
			{true, false, nil, false},
			{false, false, board(false, false, cell{Attempts: 1}), true},
			{false, false, board(false, true, cell{Attempts: 1}), true},
		}, []time.Duration{time.Second}},
		{"an invisible result measured at the cell's next change", []step{
			{false, false, board(false, true, cell{}), false},
			{true, false, nil, false}, // a compile error: the cell stays
			{false, false, board(false, false, cell{}), true},
			{true, false, nil, false},
			{false, false, board(false, false, cell{Attempts: 1}), true},
		}, []time.Duration{time.Second}},
		{"an invisible result before the freeze, shown by the unfreeze", []step{
			{false, false, board(false, true, cell{}), false},
			{true, false, nil, false}, // a compile error before the freeze
			{false, false, board(true, true, cell{}), true},
			{false, false, board(true, false, cell{Pending: 1}), true}, // frozen submissions
			{false, false, board(false, true, cell{Attempts: 1, Solved: true}), true},
			{true, false, nil, false}, // a result after the unfreeze
			{false, false, board(false, false, cell{Attempts: 2, Solved: true}), true},
		}, []time.Duration{time.Second}},
		{"an invisible result, then a rejudge's change", []step{
			{false, false, board(false, true, cell{}), false},
			{true, false, nil, false}, // a compile error
			{false, false, board(false, false, cell{}), true},
			{false, true, nil, false}, // the rejudge turns an earlier submission accepted
			{false, false, board(false, false, cell{Attempts: 1, Solved: true}), true},
			{true, false, nil, false}, // a later first attempt is measured again
			{false, false, board(false, false, cell{Attempts: 2, Solved: true}), true},
		}, []time.Duration{time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{stale: &results{m: map[cellKey]mark{}}}
			b := &browser{r: r, sample: true, seen: map[cellKey]int{}}
			now := t0
			for _, s := range tc.steps {
				now = now.Add(time.Second)
				if s.result {
					r.stale.add(k, now)
				}
				if s.rejudge {
					r.stale.add(k, time.Time{})
				}
				if s.doc != nil {
					b.applyDoc(s.doc, s.doc.Full, s.measure, now)
				}
			}
			if got := r.staleness.Values(); !slices.Equal(got, tc.want) {
				t.Errorf("measured %v, want %v", got, tc.want)
			}
		})
	}
}

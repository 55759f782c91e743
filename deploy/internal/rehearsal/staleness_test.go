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

// A result marks its cell by when its submission was made, as the public
// board decides what the freeze hides: a rejudge's result unmeasured, a
// first attempt's from its sending, nothing for a submission made in the
// freeze; a result that beat its POST's answer is marked when the answer
// comes.
func TestResultSentMarks(t *testing.T) {
	freeze := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	before, after := freeze.Add(-time.Second), freeze.Add(time.Second)
	for _, tc := range []struct {
		name       string
		created    time.Time // zero: the answer had none (acked then)
		acked      time.Time
		attempt    int
		sent       time.Time
		early      bool // the result came before the POST's answer
		wantSeq    int
		wantZeroAt bool
	}{
		{"first attempt before the freeze", before, before, 1, before, false, 1, false},
		{"first attempt's result after the freeze, made before", before, before, 1, after, false, 1, false},
		{"made in the freeze", after, after, 1, after.Add(time.Second), false, 0, false},
		{"rejudge before the freeze", before, before, 2, before, false, 1, true},
		{"rejudge's result after the freeze (the 637 s artefact)", before, before, 2, after, false, 1, true},
		{"rejudge of a submission made in the freeze", after, after, 2, after, false, 0, false},
		{"early result, made before the freeze", before, before, 1, before, true, 1, false},
		{"early result, made in the freeze", after, after, 1, after, true, 0, false},
		{"no created_at: acked decides", time.Time{}, before, 1, after, false, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{stale: &results{m: map[cellKey]mark{}}, subs: map[int64]submitted{}, early: map[int64]earlyEvent{}, freezeAt: freeze}
			s := submitted{user: 7, label: "B", created: tc.created, acked: tc.acked}
			if tc.early {
				r.resultSent(1, tc.attempt, tc.sent)
				if seq, _ := r.stale.latest(cellKey{7, "B"}); seq != 0 {
					t.Fatalf("marked before the answer came")
				}
				r.registerSub(1, s)
			} else {
				r.registerSub(1, s)
				r.resultSent(1, tc.attempt, tc.sent)
			}
			seq, at := r.stale.latest(cellKey{7, "B"})
			if seq != tc.wantSeq || (seq > 0 && at.IsZero() != tc.wantZeroAt) || (seq > 0 && !tc.wantZeroAt && !at.Equal(tc.sent)) {
				t.Errorf("marked %d at %v; want %d (unmeasured: %v)", seq, at, tc.wantSeq, tc.wantZeroAt)
			}
		})
	}
	// Without a freeze every result marks.
	r := &run{stale: &results{m: map[cellKey]mark{}}, subs: map[int64]submitted{}, early: map[int64]earlyEvent{}}
	r.registerSub(1, submitted{user: 7, label: "B", created: after})
	r.resultSent(1, 1, after)
	if seq, _ := r.stale.latest(cellKey{7, "B"}); seq != 1 {
		t.Errorf("no freeze: marked %d, want 1", seq)
	}
}

// A delta's left takes the rows of the users it names off the board (the
// frontend's applyEvent does the same); the other rows stay.
func TestBoardDeltaLeft(t *testing.T) {
	b := &browser{r: &run{}, keep: true}
	now := time.Date(2026, 12, 8, 2, 0, 0, 0, time.UTC)
	b.applyDoc(&boardDoc{Full: true, Rows: []row{{UserID: 1, User: "ann"}, {UserID: 2, User: "bob"}, {UserID: 3, User: "cat"}}}, true, false, now)
	b.applyDoc(&boardDoc{Rows: []row{{UserID: 4, User: "dan"}}, Left: []string{"bob", "eve"}}, false, false, now)
	var got []int64
	for id := range b.board {
		got = append(got, id)
	}
	slices.Sort(got)
	if want := []int64{1, 3, 4}; !slices.Equal(got, want) {
		t.Fatalf("board holds users %v, want %v", got, want)
	}
}

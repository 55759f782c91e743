package scoreboard

import (
	"context"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/testenv"
)

// A cell's entries and its view are two writes. A result merged into the
// entries whose view was never stored (the web node killed between the
// two, or Redis restarted: the contest rehearsal with faults, 2026-12-07,
// ended with two cells pending on the board while MySQL had them solved)
// is stored when the result is applied again, though the merge changes
// nothing then.
func TestViewStoredWhenTheMergeChangesNothing(t *testing.T) {
	rd := testenv.Redis(t)
	b := New(rd.Client, rd.Names)
	ctx := context.Background()
	c := Contest{ID: 1, Params: Params{Rule: RuleICPC, Start: t0}}
	k := CellKey{UserID: 1, ProblemID: 1}
	u := User{ID: 1, Username: "u1", DisplayName: "User 1"}
	pending := Entry{SubmissionID: 1, Attempt: 1, At: t0.Add(10 * time.Minute)}
	if _, err := b.ApplyCell(ctx, c, k, u, pending); err != nil {
		t.Fatal(err)
	}
	ac := pending
	ac.Verdict, ac.Score = "AC", 100
	if res, err := b.merge(ctx, c, cellName(k), u, ac); err != nil || res[0] != int64(1) {
		t.Fatalf("merge: %v, %v", res, err)
	}
	view := func() View {
		t.Helper()
		vs, _, err := b.Views(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		return vs[k]
	}
	if v := view(); v.Live.Solved {
		t.Fatal("the view was stored by the merge alone: the test cannot test")
	}

	// The result taken again (its stream entry claimed, or retried).
	changed, err := b.ApplyCell(ctx, c, k, u, ac)
	if err != nil {
		t.Fatal(err)
	}
	if !changed {
		t.Error("the stored view changed, and ApplyCell said nothing changed (the board would not be published)")
	}
	if v, want := view(), Derive(c.Params, []Entry{ac}); v != want {
		t.Fatalf("the cell shows %+v, want %+v", v, want)
	}
	if changed, err := b.ApplyCell(ctx, c, k, u, ac); err != nil || changed {
		t.Errorf("the same result a third time: changed %v, %v; want nothing changed", changed, err)
	}
}

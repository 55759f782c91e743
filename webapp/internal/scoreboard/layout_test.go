package scoreboard

import (
	"context"
	"reflect"
	"testing"

	"github.com/verdict-oj/verdict/internal/testenv"
)

// A board is whole (Exists) only while both of its hashes are: losing
// either (an eviction, a Redis that lost one) means a rebuild, and the
// rebuild makes the same board. A board made before the views had a hash
// of their own (views and users among the entries, the built mark there
// only) is made again, and the old fields are dropped.
func TestBoardLayout(t *testing.T) {
	rd := testenv.Redis(t)
	ctx := context.Background()
	b := New(rd.Client, rd.Names)
	c := Contest{ID: 8, Params: Params{Rule: RuleICPC, Start: t0, FreezeAt: at(240)}}
	users := map[int64]User{1: {ID: 1, Username: "ann"}, 2: {ID: 2, Username: "ben"}}
	truth := []CellEntry{
		{CellKey{UserID: 1, ProblemID: 1}, Entry{1, 1, at(10), "WA", 0}},
		{CellKey{UserID: 1, ProblemID: 1}, Entry{2, 1, at(20), "AC", 0}},
		{CellKey{UserID: 2, ProblemID: 1}, Entry{3, 1, at(250), "AC", 0}},
	}
	entries, views := rd.Names.Scoreboard(c.ID), rd.Names.ScoreboardViews(c.ID)
	exists := func(want bool, when string) {
		t.Helper()
		if ok, err := b.Exists(ctx, c.ID); err != nil || ok != want {
			t.Fatalf("%s: Exists %v, %v; want %v", when, ok, err, want)
		}
	}
	rebuild := func() map[CellKey]View {
		t.Helper()
		if err := b.Rebuild(ctx, c, users, truth); err != nil {
			t.Fatal(err)
		}
		exists(true, "rebuilt")
		got, gotUsers, err := New(rd.Client, rd.Names).Views(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotUsers, users) {
			t.Fatalf("users %v, want %v", gotUsers, users)
		}
		return got
	}

	exists(false, "nothing yet")
	want := rebuild()
	if !want[CellKey{UserID: 1, ProblemID: 1}].Live.Solved || want[CellKey{UserID: 2, ProblemID: 1}].Public.Solved {
		t.Fatalf("views %+v", want)
	}
	// The views are in their own hash, none among the entries.
	if n, err := rd.Client.HLen(ctx, views).Result(); err != nil || n != 2+2+1+2 { // 2 cells, 2 users, built, seq and gen
		t.Fatalf("views hash: %d fields, %v", n, err)
	}
	if old, err := rd.Client.HKeys(ctx, entries).Result(); err != nil || len(old) != 2+2+1 { // 2 cells' entries and versions, built
		t.Fatalf("entries hash: %v, %v", old, err)
	}

	for _, lost := range []string{entries, views} {
		if err := rd.Client.Del(ctx, lost).Err(); err != nil {
			t.Fatal(err)
		}
		// A result comes before the next read: its cell alone.
		if _, err := b.Apply(ctx, c, users[2], 1, truth[2].Entry); err != nil {
			t.Fatal(err)
		}
		exists(false, lost+" lost")
		if got := rebuild(); !reflect.DeepEqual(got, want) {
			t.Fatalf("rebuilt after %s was lost: %+v, want %+v", lost, got, want)
		}
	}

	// The old layout: views and users among the entries.
	if err := b.Delete(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	exists(false, "deleted")
	if n, _ := rd.Client.Exists(ctx, entries, views).Result(); n != 0 {
		t.Fatalf("Delete left %d of the two hashes", n)
	}
	if err := rd.Client.HSet(ctx, entries, fieldViews+"1:1", `{"l":{"a":9},"p":{"a":9}}`, fieldUser+"1", `{"id":1,"n":"old"}`,
		fieldBuilt, 1).Err(); err != nil {
		t.Fatal(err)
	}
	exists(false, "the old layout")
	if got := rebuild(); !reflect.DeepEqual(got, want) {
		t.Fatalf("rebuilt from the old layout: %+v, want %+v", got, want)
	}
	for _, f := range []string{fieldViews + "1:1", fieldUser + "1"} {
		if ok, _ := rd.Client.HExists(ctx, entries, f).Result(); ok {
			t.Errorf("the old field %s is still among the entries", f)
		}
	}
}

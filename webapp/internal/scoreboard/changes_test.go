package scoreboard

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/testenv"
)

// A board read again is read by its changes since, and comes out as a
// fresh read of the whole hash would: new cells, rejudged ones, renamed
// users, a cell gone. A board lost and made anew, too many changes, or a
// writer that files no change make the next read a whole one.
func TestViewsByChanges(t *testing.T) {
	rd := testenv.Redis(t)
	ctx := context.Background()
	b := New(rd.Client, rd.Names)
	b.fullReadEvery = time.Hour
	c := Contest{ID: 4, Params: Params{Rule: RuleICPC, Start: t0, FreezeAt: at(240)}}
	user := func(id int64, name string) User { return User{ID: id, Username: "u" + itoa(id), DisplayName: name} }
	apply := func(u User, problem, sub int64, attempt int, min int, verdict string) {
		t.Helper()
		if _, err := b.Apply(ctx, c, u, problem, Entry{SubmissionID: sub, Attempt: attempt, At: at(min), Verdict: verdict}); err != nil {
			t.Fatal(err)
		}
	}
	dec := func() *decodedBoard { return b.decoded.boards[c.ID] }
	// check reads the board and compares it with a fresh whole read; whole
	// says which kind of read b made.
	check := func(when string, whole bool) map[CellKey]View {
		t.Helper()
		var w0, c0 int
		if d := dec(); d != nil {
			w0, c0 = d.wholeReads, d.changeReads
		}
		got, gotUsers, err := b.Views(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		fresh := New(rd.Client, rd.Names)
		want, wantUsers, err := fresh.Views(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotUsers, wantUsers) {
			t.Fatalf("%s: the board read by changes differs from a whole read:\n%v\n%v\n%v\n%v", when, got, want, gotUsers, wantUsers)
		}
		if d := dec(); (d.wholeReads-w0 == 1) != whole || d.wholeReads-w0+d.changeReads-c0 != 1 {
			t.Errorf("%s: %d whole and %d change reads, want whole %v", when, d.wholeReads-w0, d.changeReads-c0, whole)
		}
		// The maps are the caller's: changing them changes no later read.
		for k := range got {
			delete(got, k)
		}
		clear(gotUsers)
		return want
	}
	for id := int64(1); id <= 30; id++ {
		apply(user(id, "User"), 1+id%3, id, 1, int(id), "WA")
	}
	check("first read", true)
	check("nothing changed", false)
	apply(user(5, "User"), 1+5%3, 5, 2, 5, "AC")     // rejudged: accepted
	apply(user(6, "User"), 1+6%3, 100, 1, 250, "AC") // frozen
	apply(user(7, "Renamed"), 1+7%3, 101, 1, 7, "")  // pending, a new name
	apply(user(31, "Newcomer"), 2, 102, 1, 31, "AC") // a new row
	decodes := dec().decodes
	views := check("four cells, a user renamed, a new user", false)
	if !views[CellKey{UserID: 5, ProblemID: 3}].Live.Solved {
		t.Error("user 5's rejudged AC is not on the board read by changes")
	}
	if n := dec().decodes - decodes; n != 6 { // 4 views, 2 users
		t.Errorf("%d fields decoded for the changes, want 6", n)
	}

	// A field gone (filed as a change, as a writer that deletes does).
	vf := fieldViews + cellName(CellKey{UserID: 9, ProblemID: 1})
	if err := rd.Client.HDel(ctx, rd.Names.ScoreboardViews(c.ID), vf).Err(); err != nil {
		t.Fatal(err)
	}
	seq, err := rd.Client.HIncrBy(ctx, rd.Names.ScoreboardViews(c.ID), fieldSeq, 1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := rd.Client.ZAdd(ctx, rd.Names.ScoreboardChanges(c.ID), redis.Z{Score: float64(seq), Member: vf}).Err(); err != nil {
		t.Fatal(err)
	}
	if views := check("a cell gone", false); len(views) != 30 {
		t.Errorf("%d cells after one of 31 went, want 30", len(views))
	}

	// Lost and made anew: a new generation.
	if err := rd.Client.Del(ctx, rd.Names.ScoreboardViews(c.ID)).Err(); err != nil {
		t.Fatal(err)
	}
	apply(user(1, "User"), 2, 1, 2, 1, "AC")
	check("the views lost, one cell written since", true)
	check("nothing since", false)

	// More changes than a read applies: read whole.
	b.maxChanges = 5
	for id := int64(40); id < 46; id++ {
		apply(user(id, "User"), 1, id, 1, int(id), "WA")
	}
	n := len(check("six new cells, five at most by changes", true))
	b.maxChanges = 0

	// A writer that files no change (an earlier release): missed by the
	// reads of changes until the next whole read.
	direct := fieldViews + cellName(CellKey{UserID: 50, ProblemID: 1})
	if err := rd.Client.HSet(ctx, rd.Names.ScoreboardViews(c.ID), direct, `{"live":{"solved":true},"public":{"solved":true}}`).Err(); err != nil {
		t.Fatal(err)
	}
	if got, _, err := b.Views(ctx, c.ID); err != nil || len(got) != n {
		t.Fatalf("read by changes: %d cells, %v; want the %d filed", len(got), err, n)
	}
	b.fullReadEvery = time.Nanosecond
	if got := check("a whole read after fullReadEvery", true); len(got) != n+1 {
		t.Errorf("the whole read: %d cells, want %d", len(got), n+1)
	}
}

// A read's Version orders it against other reads of the board: a change
// between two reads (by changes or whole, on two nodes) gives the later a
// higher Seq, the same board the same Seq and a later At; CurrentVersion
// is a read's without the views.
func TestVersionOrdersReads(t *testing.T) {
	rd := testenv.Redis(t)
	ctx := context.Background()
	node1, node2 := New(rd.Client, rd.Names), New(rd.Client, rd.Names)
	c := Contest{ID: 5, Params: Params{Rule: RuleICPC, Start: t0, FreezeAt: at(240)}}
	u := User{ID: 1, Username: "u1", DisplayName: "One"}
	apply := func(sub int64, verdict string) {
		t.Helper()
		if _, err := node1.Apply(ctx, c, u, 1, Entry{SubmissionID: sub, Attempt: 1, At: at(int(sub)), Verdict: verdict}); err != nil {
			t.Fatal(err)
		}
	}
	read := func(b *Board) Version {
		t.Helper()
		_, _, v, err := b.VersionedViews(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	apply(1, "WA")
	v1 := read(node1) // a whole read
	if v1.Gen == "" || v1.Seq < 1 {
		t.Fatalf("first read: %+v", v1)
	}
	apply(2, "AC")
	v2 := read(node1)  // by changes
	v2b := read(node2) // whole, another node
	if v2.Gen != v1.Gen || v2.Seq <= v1.Seq || v2b.Seq != v2.Seq || !v2b.At.After(v1.At) {
		t.Fatalf("after a change: node 1 %+v then %+v, node 2 %+v", v1, v2, v2b)
	}
	if v := read(node1); v.Seq != v2.Seq || v.At.Before(v2b.At) {
		t.Fatalf("the same board read again: %+v after %+v", v, v2b)
	}
	cur, err := node2.CurrentVersion(ctx, c.ID)
	if err != nil || cur.Gen != v2.Gen || cur.Seq != v2.Seq {
		t.Fatalf("CurrentVersion = %+v, %v; want %+v", cur, err, v2)
	}
}

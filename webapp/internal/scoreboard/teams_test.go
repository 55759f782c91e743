package scoreboard

import (
	"context"
	"testing"

	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestCellNames(t *testing.T) {
	for _, k := range []CellKey{{UserID: 7, ProblemID: 3}, {TeamID: 12, ProblemID: 3}} {
		got, ok := parseCell(cellName(k))
		if !ok || got != k {
			t.Errorf("%+v → %q → %+v %v", k, cellName(k), got, ok)
		}
	}
	for _, bad := range []string{"t:3", "t0:3", "tx:3", "7", "7:x", "t7"} {
		if _, ok := parseCell(bad); ok {
			t.Errorf("parseCell(%q) ok", bad)
		}
	}
}

// Two members' submissions land in their team's cell: one row, every
// member's rejected tries in its penalty; user cells of the same board
// are rows of their own.
func TestTeamCellsOnTheLiveBoard(t *testing.T) {
	rd := testenv.Redis(t)
	b := New(rd.Client, rd.Names)
	ctx := context.Background()
	c := Contest{ID: 41, Params: Params{Rule: RuleICPC, Start: t0}}
	ann, ben := User{ID: 1, Username: "ann"}, User{ID: 2, Username: "ben"}
	team := CellKey{TeamID: 9, ProblemID: 100}
	for _, a := range []struct {
		u User
		e Entry
	}{{ann, Entry{1, 1, at(10), "WA", 0}}, {ben, Entry{2, 1, at(20), "WA", 0}}, {ann, Entry{3, 1, at(30), "AC", 0}}} {
		if _, err := b.ApplyCell(ctx, c, team, a.u, a.e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Apply(ctx, c, User{ID: 5, Username: "solo"}, 100, Entry{4, 1, at(35), "AC", 0}); err != nil {
		t.Fatal(err)
	}
	views, users, err := b.Views(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := users[0]; ok || len(users) != 1 {
		t.Errorf("users %v: a team's cell names no user", users)
	}
	doc := AssembleTeams(RuleICPC, views, users, map[int64]Team{9: {ID: 9, Key: "t9", Name: "Hacks", Affiliation: "UvA"}},
		map[int64]string{100: "A"}, false, false)
	if len(doc.Rows) != 2 {
		t.Fatalf("rows %+v", doc.Rows)
	}
	r := doc.Rows[1] // solo has less penalty; the team solved first
	if r.User != "t9" || r.TeamID != "t9" || r.UserID != 0 || r.DisplayName != "Hacks" || r.Affiliation != "UvA" ||
		r.Penalty != 30+2*PenaltyPerTry || r.Problems["A"].Attempts != 3 || !r.Problems["A"].FirstBlood {
		t.Errorf("team row %+v", r)
	}
	if doc.Rows[0].User != "solo" || doc.Rows[0].Penalty != 35 || doc.Rows[0].Problems["A"].FirstBlood {
		t.Errorf("user row %+v", doc.Rows[0])
	}
	// The same from scratch.
	re := Recompute(c.Params, []CellEntry{{team, Entry{3, 1, at(30), "AC", 0}}, {team, Entry{1, 1, at(10), "WA", 0}},
		{team, Entry{2, 1, at(20), "WA", 0}}})
	if re[team] != views[team] {
		t.Errorf("recomputed %+v, live %+v", re[team], views[team])
	}
	// A team missing from the names is shown by its id; Filter re-ranks.
	doc = AssembleTeams(RuleICPC, views, users, nil, map[int64]string{100: "A"}, false, false)
	f := Filter(doc, func(r *Row) bool { return r.TeamID != "" || r.User == "#9" })
	if len(f.Rows) != 1 || f.Rows[0].User != "#9" || f.Rows[0].Rank != 1 {
		t.Errorf("filtered %+v", f.Rows)
	}
}

// TestViewsFillUsersTheScanMissed: a view whose user the scan did not
// return (a field added during HSCAN) gets its user from Redis, so its
// row keeps its name from one document to the next.
func TestViewsFillUsersTheScanMissed(t *testing.T) {
	rd := testenv.Redis(t)
	b := New(rd.Client, rd.Names)
	ctx := context.Background()
	c := Contest{ID: 42, Params: Params{Rule: RuleICPC, Start: t0}}
	if _, err := b.Apply(ctx, c, User{ID: 5, Username: "solo", DisplayName: "Solo"}, 100, Entry{4, 1, at(35), "AC", 0}); err != nil {
		t.Fatal(err)
	}
	views, users, err := b.Views(ctx, c.ID)
	if err != nil || users[5].Username != "solo" {
		t.Fatalf("users %v %v", users, err)
	}
	delete(users, 5) // as a scan that passed the user's bucket before it was written
	views[CellKey{TeamID: 9, ProblemID: 100}] = View{}
	if err := b.fillUsers(ctx, rd.Names.ScoreboardViews(c.ID), views, users); err != nil {
		t.Fatal(err)
	}
	if u := users[5]; u.Username != "solo" || u.DisplayName != "Solo" || len(users) != 1 {
		t.Fatalf("users after the fill: %v", users)
	}
	doc := Assemble(RuleICPC, views, users, map[int64]string{100: "A"}, false, false)
	for _, r := range doc.Rows {
		if r.UserID == 5 && r.User != "solo" {
			t.Fatalf("row named %q", r.User)
		}
	}
}

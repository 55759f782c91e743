package ccs

import (
	"bytes"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestHeldFirstSolves: a first to solve waits while a submission made
// before the winning one, by a team of the board, is pending judgement
// (or a system error); later or off-board pending submissions do not
// hold it.
func TestHeldFirstSolves(t *testing.T) {
	doc := board(team(1, "a", 10, map[string]int{"A": 5}, "A"), team(2, "b", 0, nil))
	ids := map[string]int64{"A": 11, "B": 12}
	acc := []store.Accepted{{ID: 50, UserID: 1, ProblemID: 11}}
	for _, tc := range []struct {
		name     string
		accepted []store.Accepted
		unjudged []store.Unjudged
		want     []string
	}{
		{"nothing pending", acc, nil, nil},
		{"an earlier submission pending", acc, []store.Unjudged{{ID: 40, UserID: 2, ProblemID: 11, Verdict: "queued"}}, []string{"A"}},
		{"an earlier system error", acc, []store.Unjudged{{ID: 40, UserID: 2, ProblemID: 11, Verdict: "SE"}}, []string{"A"}},
		{"a later submission pending", acc, []store.Unjudged{{ID: 60, UserID: 2, ProblemID: 11}}, nil},
		{"pending on another problem", acc, []store.Unjudged{{ID: 40, UserID: 2, ProblemID: 12}}, nil},
		{"pending by someone off the board", acc, []store.Unjudged{{ID: 40, UserID: 9, ProblemID: 11}}, nil},
		{"the winner is the first on the board", []store.Accepted{{ID: 30, UserID: 9, ProblemID: 11}, {ID: 50, UserID: 1, ProblemID: 11}},
			[]store.Unjudged{{ID: 40, UserID: 2, ProblemID: 11}}, []string{"A"}},
		{"nobody solved it", nil, []store.Unjudged{{ID: 40, UserID: 2, ProblemID: 11}}, nil},
		{"a team contest's team", []store.Accepted{{ID: 50, UserID: 1, TeamExtID: sql.NullString{String: "t1", Valid: true}, ProblemID: 11}},
			[]store.Unjudged{{ID: 40, UserID: 7, TeamExtID: sql.NullString{String: "t2", Valid: true}, ProblemID: 11}}, nil}, // t1, t2 not on the board
	} {
		t.Run(tc.name, func(t *testing.T) {
			held := HeldFirstSolves(doc, ids, tc.accepted, tc.unjudged)
			var got []string
			for l := range held {
				got = append(got, l)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("held %v, want %v", got, tc.want)
			}
			as := ComputeAwards(doc, []string{"A", "B"}, ids, DefaultAwardSettings, nil, nil, held)
			if fts := awardsOf(as)["first-to-solve-11"]; (len(fts) == 0) != held["A"] || fts == nil {
				t.Errorf("first-to-solve-11 %v with held %v", fts, held)
			}
		})
	}
}

// TestApplyAwardEdits: staff's edits add and remove teams and replace a
// citation on top of the computed awards; awards of staff's own follow
// the computed ones; teams off the viewer's board are never added.
func TestApplyAwardEdits(t *testing.T) {
	computed := []Award{
		{ID: "winner", Citation: "Contest winner", TeamIDs: []string{"1"}},
		{ID: "gold-medal", Citation: "Gold medal winner", TeamIDs: []string{"1", "2"}},
		{ID: "silver-medal", Citation: "Silver medal winner", TeamIDs: []string{}},
	}
	onBoard := map[string]bool{"1": true, "2": true, "3": true}
	cit := func(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }
	for _, tc := range []struct {
		name  string
		edits []store.AwardEdit
		want  []string // "id|citation|teams"
	}{
		{"no edits", nil, []string{"winner|Contest winner|1", "gold-medal|Gold medal winner|1,2", "silver-medal|Silver medal winner|"}},
		{"move a team from gold to silver", []store.AwardEdit{{AwardID: "gold-medal", Remove: []string{"2"}}, {AwardID: "silver-medal", Add: []string{"2"}}},
			[]string{"winner|Contest winner|1", "gold-medal|Gold medal winner|1", "silver-medal|Silver medal winner|2"}},
		{"a citation, a team twice, a team off the board", []store.AwardEdit{{AwardID: "winner", Citation: cit("Champions"), Add: []string{"1", "9", "3"}}},
			[]string{"winner|Champions|1,3", "gold-medal|Gold medal winner|1,2", "silver-medal|Silver medal winner|"}},
		{"awards of staff's own, by id, after the computed", []store.AwardEdit{
			{AwardID: "team-spirit", Citation: cit("Team spirit"), Add: []string{"3"}}, {AwardID: "best-newcomer", Add: []string{"2"}}},
			[]string{"winner|Contest winner|1", "gold-medal|Gold medal winner|1,2", "silver-medal|Silver medal winner|",
				"best-newcomer|best-newcomer|2", "team-spirit|Team spirit|3"}},
		{"a computed award this viewer does not get is left out", []store.AwardEdit{{AwardID: "group-winner-hidden", Add: []string{"1"}}},
			[]string{"winner|Contest winner|1", "gold-medal|Gold medal winner|1,2", "silver-medal|Silver medal winner|"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, a := range ApplyAwardEdits(computed, tc.edits, onBoard) {
				if a.TeamIDs == nil {
					t.Errorf("%s: team_ids null", a.ID)
				}
				got = append(got, a.ID+"|"+a.Citation+"|"+strings.Join(a.TeamIDs, ","))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
	if computed[1].TeamIDs[1] != "2" {
		t.Error("the computed awards were changed")
	}
	for id, ok := range map[string]bool{"team-spirit": true, "a.b_c-1": true, "": false, "-x": false, "x.": false, "a b": false,
		strings.Repeat("x", 37): false} {
		if AwardIDOK(id) != ok {
			t.Errorf("AwardIDOK(%q) = %v", id, !ok)
		}
	}
}

// TestStateFinalized: finalized is the finalisation; the end of updates
// is it too without a freeze, else the later of it and the thaw (none
// while the freeze holds).
func TestStateFinalized(t *testing.T) {
	start := time.Date(2026, 6, 25, 10, 0, 0, 0, time.UTC)
	end := start.Add(5 * time.Hour)
	fin := sql.NullTime{Time: end.Add(10 * time.Minute), Valid: true}
	thaw := sql.NullTime{Time: end.Add(30 * time.Minute), Valid: true}
	early := sql.NullTime{Time: end.Add(5 * time.Minute), Valid: true}
	now := end.Add(time.Hour)
	str := func(p *string) string {
		if p == nil {
			return "null"
		}
		return *p
	}
	for _, tc := range []struct {
		name           string
		freeze         int
		finalized, thw sql.NullTime
		want           [2]string // finalized, end_of_updates
	}{
		{"not finalized", 60, sql.NullTime{}, thaw, [2]string{"null", "null"}},
		{"no freeze", 0, fin, sql.NullTime{}, [2]string{AbsTime(fin.Time), AbsTime(fin.Time)}},
		{"finalized frozen", 60, fin, sql.NullTime{}, [2]string{AbsTime(fin.Time), "null"}},
		{"then thawed", 60, fin, thaw, [2]string{AbsTime(fin.Time), AbsTime(thaw.Time)}},
		{"thawed before finalizing", 60, fin, early, [2]string{AbsTime(fin.Time), AbsTime(fin.Time)}},
	} {
		c := &store.Contest{StartAt: start, EndAt: end, FreezeMinutes: tc.freeze, FinalizedAt: tc.finalized, UnfrozenAt: tc.thw}
		st := StateObject(c, now)
		if got := [2]string{str(st.Finalized), str(st.EndOfUpdates)}; got != tc.want {
			t.Errorf("%s: finalized, end_of_updates %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestNamesByUnicodeCollation: teams tied on everything are ordered by
// name as the Unicode Collation Algorithm (en-US) orders them, in the
// standings and both upload files: accents and case do not put a name
// after "Z".
func TestNamesByUnicodeCollation(t *testing.T) {
	names := []string{"Zeta", "émile", "Ångström", "beta", "Éclair", "alpha"}
	var rows []Standing
	doc := board()
	for i, n := range names {
		doc.Rows = append(doc.Rows, team(int64(i+1), n, 0, nil))
	}
	rows = Standings(doc, DefaultAwardSettings, nil)
	var got []string
	for _, r := range rows {
		got = append(got, r.Row.DisplayName)
	}
	want := []string{"alpha", "Ångström", "beta", "Éclair", "émile", "Zeta"}
	if !slices.Equal(got, want) {
		t.Errorf("standings %v, want %v", got, want)
	}
	var buf bytes.Buffer
	info := func(id string) (string, string) {
		for _, r := range rows {
			if r.TeamID == id {
				return r.Row.DisplayName, r.Row.DisplayName
			}
		}
		return id, id
	}
	for name, write := range map[string]func() error{
		"results.tsv":    func() error { return WriteResultsTSV(&buf, rows, info) },
		"scoreboard.tsv": func() error { return WriteScoreboardTSV(&buf, rows, nil, info) },
	} {
		buf.Reset()
		if err := write(); err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n")[1:] {
			f := strings.Split(l, "\t")
			if name == "results.tsv" {
				order = append(order, f[0])
			} else {
				order = append(order, f[1])
			}
		}
		if !slices.Equal(order, want) {
			t.Errorf("%s: %v, want %v", name, order, want)
		}
	}
}

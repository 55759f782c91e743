package ccs

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
)

func ip(v int) *int { return &v }

// team is a board row: id, solved problems as label → minute, penalty.
func team(id int64, name string, penalty int, solved map[string]int, firstBlood ...string) scoreboard.Row {
	r := scoreboard.Row{UserID: id, User: name, DisplayName: name, Penalty: penalty, Problems: map[string]scoreboard.DocCell{}}
	for l, m := range solved {
		r.Problems[l] = scoreboard.DocCell{Solved: true, Attempts: 1, TimeMin: ip(m), FirstBlood: slices.Contains(firstBlood, l)}
		r.Solved++
	}
	return r
}

func board(rows ...scoreboard.Row) scoreboard.Doc { return scoreboard.Doc{Rule: "icpc", Rows: rows} }

func awardsOf(as []Award) map[string][]string {
	out := map[string][]string{}
	for _, a := range as {
		out[a.ID] = a.TeamIDs
	}
	return out
}

func TestStandingsMedalsAndTies(t *testing.T) {
	set := AwardSettings{Gold: 1, Silver: 1, Bronze: 1, HonorableBelowMedian: true}
	tests := []struct {
		name string
		doc  scoreboard.Doc
		set  AwardSettings
		// want per team id: position, rank, award
		want map[int64][3]any
	}{
		{"one medal each", board(
			team(1, "a", 10, map[string]int{"A": 5, "B": 5}),
			team(2, "b", 20, map[string]int{"A": 5, "B": 15}),
			team(3, "c", 30, map[string]int{"A": 30}),
			team(4, "d", 40, map[string]int{"A": 40}),
			team(5, "e", 0, nil),
		), set, map[int64][3]any{
			1: {1, 1, AwardGold}, 2: {2, 2, AwardSilver}, 3: {3, 3, AwardBronze},
			// median (index 5/2 = 2) solved 1: d is ranked by solved only
			4: {4, 4, AwardRanked}, 5: {5, 0, AwardHonorable},
		}},
		{"a tie at the gold cut: both gold; the silver band (position 2) is left empty", board(
			team(1, "a", 10, map[string]int{"A": 10}),
			team(2, "b", 10, map[string]int{"A": 10}),
			team(3, "c", 20, map[string]int{"A": 20}),
			team(4, "d", 30, map[string]int{"A": 30}),
		), set, map[int64][3]any{
			1: {1, 1, AwardGold}, 2: {1, 1, AwardGold}, 3: {3, 3, AwardBronze}, 4: {4, 4, AwardRanked},
		}},
		{"the last accepted time breaks a tie on solved and penalty", board(
			team(1, "a", 50, map[string]int{"A": 10, "B": 40}),
			team(2, "b", 50, map[string]int{"A": 20, "B": 30}),
		), set, map[int64][3]any{2: {1, 1, AwardGold}, 1: {2, 2, AwardSilver}}},
		{"nobody solved: no medal, nobody ranked", board(team(1, "a", 0, nil), team(2, "b", 0, nil)), set,
			map[int64][3]any{1: {1, 0, AwardHonorable}, 2: {1, 0, AwardHonorable}}},
		{"below the median: honourable; ranked teams share a rank by solved", board(
			team(1, "a", 10, map[string]int{"A": 1, "B": 1, "C": 1}),
			team(2, "b", 10, map[string]int{"A": 1, "B": 1}),
			team(3, "c", 20, map[string]int{"A": 1, "B": 1}),
			team(4, "d", 30, map[string]int{"A": 1, "B": 1}),
			team(5, "e", 5, map[string]int{"A": 1}),
		), AwardSettings{Gold: 1, HonorableBelowMedian: true}, map[int64][3]any{
			1: {1, 1, AwardGold}, 2: {2, 2, AwardRanked}, 3: {3, 2, AwardRanked}, 4: {4, 2, AwardRanked}, 5: {5, 0, AwardHonorable},
		}},
		{"without the median rule every solver is ranked", board(
			team(1, "a", 10, map[string]int{"A": 1, "B": 1}),
			team(2, "b", 10, map[string]int{"A": 1}),
			team(3, "c", 20, map[string]int{"A": 1}),
			team(4, "d", 30, nil),
		), AwardSettings{}, map[int64][3]any{
			1: {1, 1, AwardRanked}, 2: {2, 2, AwardRanked}, 3: {3, 2, AwardRanked}, 4: {4, 0, AwardHonorable},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Standings(tc.doc, tc.set, nil)
			if len(got) != len(tc.want) {
				t.Fatalf("%d standings, want %d", len(got), len(tc.want))
			}
			for _, st := range got {
				w := tc.want[st.Row.UserID]
				if st.Position != w[0] || st.Rank != w[1] || st.Award != w[2] {
					t.Errorf("team %d: position %d rank %d %q, want %v", st.Row.UserID, st.Position, st.Rank, st.Award, w)
				}
			}
		})
	}
}

func TestComputeAwards(t *testing.T) {
	doc := board(
		team(1, "a", 10, map[string]int{"A": 5}, "A"),
		team(2, "b", 10, map[string]int{"A": 5}, "A"),
		team(3, "c", 40, map[string]int{"B": 40}, "B"),
		team(4, "d", 0, nil),
	)
	north, south := Group{ID: "n", Name: "North"}, Group{ID: "s", Name: "South"}
	groupsOf := map[string][]Group{"1": {north}, "3": {north, south}, "4": {south}}
	as := ComputeAwards(doc, []string{"A", "B", "C"}, map[string]int64{"A": 11, "B": 12, "C": 13},
		AwardSettings{Gold: 1, Silver: 1, Bronze: 1, HonorableBelowMedian: true}, []Group{north, south}, groupsOf, nil)
	got := awardsOf(as)
	want := map[string][]string{
		"winner": {"1", "2"}, "gold-medal": {"1", "2"}, "silver-medal": {}, "bronze-medal": {"3"},
		"honorable-mention": {"4"}, "first-to-solve-11": {"1", "2"}, "first-to-solve-12": {"3"}, "first-to-solve-13": {},
		"group-winner-n": {"1"}, "group-winner-s": {"3"},
	}
	if len(got) != len(want) {
		t.Errorf("awards %v, want %v", got, want)
	}
	for id, ids := range want {
		if !slices.Equal(got[id], ids) || got[id] == nil {
			t.Errorf("%s: %v, want %v (never null)", id, got[id], ids)
		}
	}
	for _, a := range as {
		if !IdentifierPattern.MatchString(a.ID) || a.Citation == "" {
			t.Errorf("award %+v", a)
		}
	}
	// The team ids of an award are its teams in position order.
	if as := ComputeAwards(board(), nil, nil, DefaultAwardSettings, nil, nil, nil); len(as) != 5 || as[0].TeamIDs == nil {
		t.Errorf("an empty board: %+v", as)
	}
}

func TestResultsAndScoreboardTSV(t *testing.T) {
	doc := board(
		team(1, "zeta", 10, map[string]int{"A": 10}),
		team(2, "Alpha", 10, map[string]int{"A": 10}),
		team(3, "beta\tx", 0, nil),
	)
	doc.Rows[2].Problems["A"] = scoreboard.DocCell{Attempts: 2, Pending: 1}
	st := Standings(doc, AwardSettings{Gold: 1, HonorableBelowMedian: true}, map[string][]Group{"1": {{ID: "g", Name: "Group G"}}})
	var buf bytes.Buffer
	if err := WriteResultsTSV(&buf, st, DefaultTeamInfo(st)); err != nil {
		t.Fatal(err)
	}
	want := "results\t1\n" +
		"2\t1\tGold Medal\t1\t10\t10\t\n" + // tied at rank 1: Alpha before zeta (by name, Unicode collation)
		"1\t1\tGold Medal\t1\t10\t10\tGroup G\n" +
		"3\t\tHonorable\t0\t0\t0\t\n" // results.tsv has no -1 (scoreboard.tsv has)
	if buf.String() != want {
		t.Errorf("results.tsv:\n%q\nwant\n%q", buf.String(), want)
	}
	for i, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")[1:] {
		if n := len(strings.Split(line, "\t")); n != 7 {
			t.Errorf("results line %d has %d fields, want 7", i+1, n)
		}
	}
	buf.Reset()
	info := func(id string) (string, string) {
		return "ext-" + id, map[string]string{"1": "Uni Z", "2": "Uni A", "3": "Uni\tB"}[id]
	}
	if err := WriteScoreboardTSV(&buf, st, []string{"A", "B"}, info); err != nil {
		t.Fatal(err)
	}
	want = "scoreboard\t1\n" +
		"Uni A\text-2\t1\t1\t10\t10\t1\t10\t0\t-1\n" +
		"Uni Z\text-1\t1\t1\t10\t10\t1\t10\t0\t-1\n" +
		"Uni B\text-3\t3\t0\t0\t-1\t3\t-1\t0\t-1\n"
	if buf.String() != want {
		t.Errorf("scoreboard.tsv:\n%q\nwant\n%q", buf.String(), want)
	}
	for i, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")[1:] {
		if n := len(strings.Split(line, "\t")); n != 6+2*2 {
			t.Errorf("scoreboard line %d has %d fields, want 6 + 2 per problem", i+1, n)
		}
	}
}

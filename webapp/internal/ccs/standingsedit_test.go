package ccs

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestEditStandings: results.tsv's award, rank and group winner follow
// staff's award edits as the Contest API's awards do; without edits the
// standings are as computed.
func TestEditStandings(t *testing.T) {
	// 1 solves two, 2 and 3 one each (3 slower), 4 nothing: with one gold
	// and one silver, 1 gold, 2 silver, 3 ranked 3rd, 4 honorable.
	doc := board(team(1, "a", 10, map[string]int{"A": 5, "B": 5}), team(2, "b", 10, map[string]int{"A": 5}),
		team(3, "c", 50, map[string]int{"A": 50}), team(4, "d", 0, nil))
	g := Group{ID: "g", Name: "Group G"}
	st := Standings(doc, AwardSettings{Gold: 1, Silver: 1}, map[string][]Group{"2": {g}, "3": {g}})
	edit := func(award string, add, remove []string) store.AwardEdit {
		return store.AwardEdit{AwardID: award, Add: add, Remove: remove}
	}
	type row struct {
		award string
		rank  int
		group bool
	}
	for _, tc := range []struct {
		name  string
		edits []store.AwardEdit
		want  map[string]row
	}{
		{"no edits", nil, map[string]row{"1": {AwardGold, 1, false}, "2": {AwardSilver, 2, true}, "3": {AwardRanked, 3, false}, "4": {AwardHonorable, 0, false}}},
		{"an edit of another award", []store.AwardEdit{edit("first-to-solve-1", []string{"4"}, nil), {AwardID: "winner", Citation: sql.NullString{String: "x", Valid: true}}},
			map[string]row{"1": {AwardGold, 1, false}, "2": {AwardSilver, 2, true}, "3": {AwardRanked, 3, false}, "4": {AwardHonorable, 0, false}}},
		{"a bronze added", []store.AwardEdit{edit("bronze-medal", []string{"3"}, nil)},
			map[string]row{"1": {AwardGold, 1, false}, "2": {AwardSilver, 2, true}, "3": {AwardBronze, 3, false}, "4": {AwardHonorable, 0, false}}},
		{"a silver taken away: ranked after the last medal", []store.AwardEdit{edit("silver-medal", nil, []string{"2"})},
			map[string]row{"1": {AwardGold, 1, false}, "2": {AwardRanked, 2, true}, "3": {AwardRanked, 2, false}, "4": {AwardHonorable, 0, false}}},
		{"the honourable mention moved up to silver", []store.AwardEdit{edit("silver-medal", []string{"4"}, nil), edit("honorable-mention", nil, []string{"4"})},
			map[string]row{"1": {AwardGold, 1, false}, "2": {AwardSilver, 2, true}, "3": {AwardRanked, 5, false}, "4": {AwardSilver, 4, false}}},
		{"the honourable mention taken away: ranked", []store.AwardEdit{edit("honorable-mention", nil, []string{"4"})},
			map[string]row{"1": {AwardGold, 1, false}, "2": {AwardSilver, 2, true}, "3": {AwardRanked, 3, false}, "4": {AwardRanked, 4, false}}},
		{"gold and silver both: gold", []store.AwardEdit{edit("gold-medal", []string{"2"}, nil)},
			map[string]row{"1": {AwardGold, 1, false}, "2": {AwardGold, 2, true}, "3": {AwardRanked, 3, false}, "4": {AwardHonorable, 0, false}}},
		{"a group winner moved", []store.AwardEdit{edit("group-winner-g", []string{"3"}, []string{"2"})},
			map[string]row{"1": {AwardGold, 1, false}, "2": {AwardSilver, 2, false}, "3": {AwardRanked, 3, true}, "4": {AwardHonorable, 0, false}}},
		{"a team off the board is not added", []store.AwardEdit{edit("gold-medal", []string{"99"}, nil)},
			map[string]row{"1": {AwardGold, 1, false}, "2": {AwardSilver, 2, true}, "3": {AwardRanked, 3, false}, "4": {AwardHonorable, 0, false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := EditStandings(doc.Rule, st, []Group{g}, tc.edits)
			if len(got) != len(tc.want) {
				t.Fatalf("%d standings, want %d", len(got), len(tc.want))
			}
			for _, s := range got {
				r := row{s.Award, s.Rank, len(s.GroupWinner) == 1 && s.GroupWinner[0] == g}
				if w := tc.want[s.TeamID]; r != w {
					t.Errorf("team %s: %+v, want %+v", s.TeamID, r, w)
				}
			}
			if fmt.Sprint(st) != fmt.Sprint(Standings(doc, AwardSettings{Gold: 1, Silver: 1}, map[string][]Group{"2": {g}, "3": {g}})) {
				t.Error("EditStandings changed its argument")
			}
		})
	}
}

package ccs

import (
	"slices"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// EditStandings makes the standings' award, rank and group winner (the
// columns of results.tsv) follow staff's award edits as the Contest
// API's awards do (ApplyAwardEdits on the awards computed from st): a
// team in the edited gold-, silver- or bronze-medal award has that medal
// (the best, if several) and its position as its rank; else one in the
// edited honorable-mention is Honorable, unranked; else it is Ranked,
// ranked as Standings ranks (after the last medallist, by problems
// solved). A group's winners are its edited group-winner-<id> award's.
// Without edits the standings are as computed. rule is the board's;
// groups every group of the contest (an edit may give a group with no
// computed winner one).
func EditStandings(rule string, st []Standing, groups []Group, edits []store.AwardEdit) []Standing {
	out := slices.Clone(st)
	if len(edits) == 0 {
		return out
	}
	medals := []struct{ id, award string }{
		{"gold-medal", AwardGold}, {"silver-medal", AwardSilver}, {"bronze-medal", AwardBronze},
		{"honorable-mention", AwardHonorable},
	}
	onBoard := make(map[string]bool, len(st))
	var computed []Award
	for _, m := range medals {
		a := Award{ID: m.id, TeamIDs: []string{}}
		for i := range st {
			onBoard[st[i].TeamID] = true
			if st[i].Award == m.award {
				a.TeamIDs = append(a.TeamIDs, st[i].TeamID)
			}
		}
		computed = append(computed, a)
	}
	for _, g := range groups {
		a := Award{ID: "group-winner-" + g.ID, TeamIDs: []string{}}
		for i := range st {
			if slices.ContainsFunc(st[i].GroupWinner, func(w Group) bool { return w.ID == g.ID }) {
				a.TeamIDs = append(a.TeamIDs, st[i].TeamID)
			}
		}
		computed = append(computed, a)
	}
	has := map[string]map[string]bool{} // award id → its teams, edited
	for _, a := range ApplyAwardEdits(computed, edits, onBoard) {
		has[a.ID] = map[string]bool{}
		for _, t := range a.TeamIDs {
			has[a.ID][t] = true
		}
	}
	lastMedal := 0
	for i := range out {
		s := &out[i]
		s.Award, s.Rank = AwardRanked, 0
		for _, m := range medals {
			if has[m.id][s.TeamID] {
				s.Award = m.award
				break
			}
		}
		if s.Award != AwardRanked && s.Award != AwardHonorable {
			s.Rank = s.Position
			lastMedal = max(lastMedal, s.Position)
		}
		s.GroupWinner = nil
		for _, g := range groups {
			if has["group-winner-"+g.ID][s.TeamID] {
				s.GroupWinner = append(s.GroupWinner, g)
			}
		}
	}
	for i := range out {
		if s := &out[i]; s.Award == AwardRanked {
			more := 0
			for j := range out {
				if solvedOrScore(rule, &out[j].Row) > solvedOrScore(rule, &s.Row) {
					more++
				}
			}
			s.Rank = max(lastMedal+1, more+1)
		}
	}
	return out
}

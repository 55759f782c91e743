package ccs

import (
	"slices"
	"strings"

	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
	"github.com/verdict-oj/verdict/webapp/internal/teamfmt"
)

// HeldFirstSolves are the problems (by label) whose first-to-solve award
// is held back: a submission on the problem by a team of the board is
// still pending judgement (no final verdict, or a system error: the
// CLICS Judging Error) and was made before the accepted submission that
// would win it (the CCS requirements: submissions are numbered in the
// order they arrive, so "before" is a lower id). accepted are the
// contest's accepted submissions and unjudged its pending ones, each in
// id order (store.ContestAccepted, store.ContestUnjudged).
func HeldFirstSolves(doc scoreboard.Doc, problemIDs map[string]int64, accepted []store.Accepted, unjudged []store.Unjudged) map[string]bool {
	onBoard := make(map[string]bool, len(doc.Rows))
	for i := range doc.Rows {
		onBoard[RowTeamID(&doc.Rows[i])] = true
	}
	team := func(user int64, ext string, valid bool) string {
		if valid && ext != "" {
			return ext
		}
		return ID(user)
	}
	firstAC := map[int64]int64{} // problem → the winning accepted submission
	for _, a := range accepted {
		if _, ok := firstAC[a.ProblemID]; !ok && onBoard[team(a.UserID, a.TeamExtID.String, a.TeamExtID.Valid)] {
			firstAC[a.ProblemID] = a.ID
		}
	}
	held := map[string]bool{}
	for label, pid := range problemIDs {
		ac, solved := firstAC[pid]
		if !solved {
			continue
		}
		for _, u := range unjudged {
			if u.ProblemID == pid && u.ID < ac && onBoard[team(u.UserID, u.TeamExtID.String, u.TeamExtID.Valid)] {
				held[label] = true
				break
			}
		}
	}
	return held
}

// computedAwardID reports whether id is of an award Verdict computes
// (ComputeAwards), as opposed to one staff made up.
func computedAwardID(id string) bool {
	switch id {
	case "winner", "gold-medal", "silver-medal", "bronze-medal", "honorable-mention":
		return true
	}
	return strings.HasPrefix(id, "first-to-solve-") || strings.HasPrefix(id, "group-winner-")
}

// ApplyAwardEdits applies staff's edits to the computed awards: an
// edited award loses the teams removed, gains the teams added (after its
// own, in the order given) and, when the edit has one, takes its
// citation. An edit of an award Verdict computes but this viewer does not
// get (a hidden group's winner, for the public) is left out; an edit of
// any other id is an award of staff's own (its citation, else its id),
// listed after the computed ones by id. Only teams of the viewer's board
// (onBoard) are added, so the public never sees a hidden team.
func ApplyAwardEdits(as []Award, edits []store.AwardEdit, onBoard map[string]bool) []Award {
	out := make([]Award, 0, len(as)+len(edits))
	byID := map[string]int{}
	for _, a := range as {
		byID[a.ID] = len(out)
		out = append(out, Award{ID: a.ID, Citation: a.Citation, TeamIDs: slices.Clone(a.TeamIDs)})
	}
	var own []Award
	for _, e := range edits {
		i, ok := byID[e.AwardID]
		if !ok && computedAwardID(e.AwardID) {
			continue
		}
		var a *Award
		if ok {
			a = &out[i]
		} else {
			own = append(own, Award{ID: e.AwardID, Citation: e.AwardID, TeamIDs: []string{}})
			a = &own[len(own)-1]
		}
		if e.Citation.Valid && e.Citation.String != "" {
			a.Citation = e.Citation.String
		}
		a.TeamIDs = slices.DeleteFunc(a.TeamIDs, func(t string) bool { return slices.Contains(e.Remove, t) })
		for _, t := range e.Add {
			if onBoard[t] && !slices.Contains(a.TeamIDs, t) && !slices.Contains(e.Remove, t) {
				a.TeamIDs = append(a.TeamIDs, t)
			}
		}
	}
	slices.SortFunc(own, func(x, y Award) int { return strings.Compare(x.ID, y.ID) })
	return append(out, own...)
}

// AwardIDOK reports whether id may name an award of staff's own: a CLICS
// identifier (teamfmt.ValidID) that does not end in ".".
func AwardIDOK(id string) bool { return teamfmt.ValidID(id) && !strings.HasSuffix(id, ".") }

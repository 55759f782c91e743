package ccs

import (
	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Balloon is one first accepted submission of a team on a problem, as the
// balloon page lists it.
type Balloon struct {
	// Team is the board row's CLICS team id, TeamName its shown name.
	Team      string `json:"team"`
	TeamName  string `json:"team_name"`
	ProblemID int64  `json:"problem_id"`
	Label     string `json:"label"`
	// Color and RGB are the problem's balloon colour ("" when unset).
	Color        string `json:"color"`
	RGB          string `json:"rgb"`
	SubmissionID int64  `json:"submission_id"`
	// Submitter is the user who submitted it (a member, in a team
	// contest).
	Submitter   string `json:"submitter"`
	Time        string `json:"time"`
	ContestTime string `json:"contest_time"`
	// FirstInContest: the contest's first solve; FirstForProblem: the
	// problem's.
	FirstInContest  bool    `json:"first_in_contest"`
	FirstForProblem bool    `json:"first_for_problem"`
	Delivered       bool    `json:"delivered"`
	DeliveredAt     *string `json:"delivered_at"`
}

// acceptedTeam is the board row an accepted submission counts for.
func acceptedTeam(a *store.Accepted) string {
	if a.TeamExtID.Valid && a.TeamExtID.String != "" {
		return a.TeamExtID.String
	}
	return ID(a.UserID)
}

// Balloons lists the first accepted submission of each team of the board
// (the live one: staff's) on each of the contest's problems, in the order
// they were submitted, with the first solve of the contest and of each
// problem flagged and the delivered marks. accepted are the contest's
// accepted submissions in id order.
func Balloons(c *store.Contest, doc scoreboard.Doc, cps []store.ContestProblem, accepted []store.Accepted,
	colors map[int64]store.ProblemColor, marks map[store.BalloonKey]store.BalloonMark) []Balloon {
	names := map[string]string{}
	for i := range doc.Rows {
		names[RowTeamID(&doc.Rows[i])] = doc.Rows[i].DisplayName
	}
	labels := map[int64]string{}
	for _, p := range cps {
		labels[p.ProblemID] = p.Label
	}
	out := []Balloon{}
	seen := map[store.BalloonKey]bool{}
	firstFor := map[int64]bool{}
	for i := range accepted {
		a := &accepted[i]
		team := acceptedTeam(a)
		name, onBoard := names[team]
		label, inContest := labels[a.ProblemID]
		k := store.BalloonKey{Team: team, ProblemID: a.ProblemID}
		if !onBoard || !inContest || seen[k] {
			continue
		}
		seen[k] = true
		b := Balloon{Team: team, TeamName: name, ProblemID: a.ProblemID, Label: label, SubmissionID: a.ID,
			Submitter: a.Username, Time: AbsTime(a.CreatedAt), ContestTime: RelTime(a.CreatedAt.Sub(c.StartAt)),
			FirstInContest: len(out) == 0, FirstForProblem: !firstFor[a.ProblemID]}
		firstFor[a.ProblemID] = true
		if col, ok := colors[a.ProblemID]; ok {
			b.Color, b.RGB = col.Color, col.RGB
		}
		if m, ok := marks[k]; ok {
			b.Delivered = true
			b.DeliveredAt = AbsTimePtr(m.DeliveredAt)
		}
		out = append(out, b)
	}
	return out
}

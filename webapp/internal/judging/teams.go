package judging

import (
	"context"
	"errors"
	"fmt"

	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// ErrNoGroup: no such group in the contest (or not a team contest).
var ErrNoGroup = errors.New("judging: no such group")

// BoardKey is the scoreboard cell of a contest submission: its team's in
// a team contest (a submission made for a team), else its user's.
func BoardKey(c *store.Contest, sub *store.Submission) scoreboard.CellKey {
	if c.TeamMode && sub.TeamID.Valid {
		return scoreboard.CellKey{TeamID: sub.TeamID.Int64, ProblemID: sub.ProblemID}
	}
	return scoreboard.CellKey{UserID: sub.UserID, ProblemID: sub.ProblemID}
}

// boardTeams are a team contest's teams as the board names them, and
// which of them the board lists: every team but, for the public, those
// of a hidden group.
func (s *Service) boardTeams(ctx context.Context, c *store.Contest, public bool) (map[int64]scoreboard.Team, error) {
	ts, err := s.st.ContestTeams(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]scoreboard.Team, len(ts))
	for i := range ts {
		t := &ts[i]
		if public && t.Hidden {
			continue
		}
		out[t.ID] = scoreboard.Team{ID: t.ID, Key: t.ExtID, Name: t.ShownName(), Affiliation: t.OrgName.String}
	}
	return out, nil
}

// GroupScoreboard is Scoreboard of one group's teams (a team contest's
// board per region or category), ranked among themselves. ErrNoGroup
// when the contest has no such group (or, for the public, it is hidden).
func (s *Service) GroupScoreboard(ctx context.Context, c *store.Contest, public bool, group string) (scoreboard.Doc, error) {
	gs, err := s.st.ContestGroups(ctx, c.ID)
	if err != nil {
		return scoreboard.Doc{}, err
	}
	found := false
	for _, g := range gs {
		if g.ExtID == group && !(public && g.Hidden) {
			found = true
		}
	}
	if !found || !c.TeamMode {
		return scoreboard.Doc{}, fmt.Errorf("%w: %q", ErrNoGroup, group)
	}
	doc, err := s.Scoreboard(ctx, c, public)
	if err != nil {
		return scoreboard.Doc{}, err
	}
	ts, err := s.st.ContestTeams(ctx, c.ID)
	if err != nil {
		return scoreboard.Doc{}, err
	}
	in := map[string]bool{}
	for _, t := range ts {
		for _, g := range t.Groups {
			if g == group {
				in[t.ExtID] = true
			}
		}
	}
	return scoreboard.Filter(doc, func(r *scoreboard.Row) bool { return in[r.TeamID] }), nil
}

package ccs

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// AwardSettings are a contest's medal counts and honourable-mention rule
// (store.AwardSettings, migration 0011).
type AwardSettings struct {
	Gold, Silver, Bronze int
	// HonorableBelowMedian: teams that solved fewer problems than the
	// median team are not ranked (the ICPC World Finals rule); false:
	// every team that solved a problem is ranked.
	HonorableBelowMedian bool
}

// DefaultAwardSettings are DOMjudge's and the World Finals' defaults:
// 4 gold, 4 silver, 4 bronze, the median rule.
var DefaultAwardSettings = AwardSettings{Gold: 4, Silver: 4, Bronze: 4, HonorableBelowMedian: true}

// AwardSettingsOf maps the stored settings.
func AwardSettingsOf(a store.AwardSettings) AwardSettings {
	return AwardSettings{Gold: a.Gold, Silver: a.Silver, Bronze: a.Bronze, HonorableBelowMedian: a.HonorableBelowMedian}
}

// MaxMedals bounds each medal count.
const MaxMedals = 1000

// Results award names (results.tsv's Award column).
const (
	AwardGold      = "Gold Medal"
	AwardSilver    = "Silver Medal"
	AwardBronze    = "Bronze Medal"
	AwardRanked    = "Ranked"
	AwardHonorable = "Honorable"
)

// Group is a group (category, region) of teams, for group winners.
type Group struct {
	ID   string
	Name string
}

// Standing is one team of the final standings with what the awards and
// the results upload say of it.
type Standing struct {
	Row scoreboard.Row
	// TeamID is the CLICS team id (the row's id).
	TeamID string
	// Position: 1-based, ICPC order (solved desc, penalty asc, time of the
	// last accepted submission asc); teams tied on all three share it.
	Position int
	// LastAC is the contest minute of the team's last solve, -1 for none.
	LastAC int
	// Rank is results.tsv's rank, 0 for an unranked team.
	Rank int
	// Award is results.tsv's award (AwardGold … AwardHonorable).
	Award string
	// GroupWinner lists the groups the team won.
	GroupWinner []Group
}

// RowTeamID is a board row's CLICS team id: the team's on a team
// contest's board (Row.TeamID), else the user's id (a team of one in an
// individual contest).
func RowTeamID(r *scoreboard.Row) string {
	if r.TeamID != "" {
		return r.TeamID
	}
	return ID(r.UserID)
}

// lastAC is the minute of a row's last solve, -1 for none.
func lastAC(r *scoreboard.Row) int {
	last := -1
	for _, c := range r.Problems {
		if c.Solved && c.TimeMin != nil {
			last = max(last, *c.TimeMin)
		}
	}
	return last
}

// scored reports whether a row solved a problem (ICPC) or scored (IOI).
func scored(rule string, r *scoreboard.Row) bool {
	if rule == scoreboard.RuleIOI {
		return r.Score > 0
	}
	return r.Solved > 0
}

func better(rule string, a, b *Standing) int {
	if rule == scoreboard.RuleIOI {
		return cmp.Compare(b.Row.Score, a.Row.Score)
	}
	return cmp.Or(cmp.Compare(b.Row.Solved, a.Row.Solved), cmp.Compare(a.Row.Penalty, b.Row.Penalty),
		cmp.Compare(lastOrMax(a.LastAC), lastOrMax(b.LastAC)))
}

func lastOrMax(m int) int {
	if m < 0 {
		return int(^uint(0) >> 1)
	}
	return m
}

// Standings orders a board's rows as the ICPC scores them and assigns
// medals, ranks and honourable mentions:
//
//   - Position: solved (desc), total time (asc), time of the last
//     accepted submission (asc); a tie on all three shares the position
//     (1, 2, 2, 4). Within a tie, by display name (Unicode collation,
//     nameOrder). IOI: by score.
//   - Medals go by position to teams that solved a problem: gold to
//     positions 1..G, silver to G+1..G+S, bronze to G+S+1..G+S+B. Teams
//     tied at a cut share the better medal (the ICPC rule: tied teams get
//     the same medal); the next band then starts at the next position,
//     so it has fewer medals (ranks 1,2,3,4,4 with 4 gold: five golds,
//     silver from position 6).
//   - The rank of a medallist is its position. Other teams are ranked
//     by problems solved only (rank = the larger of the first position
//     after the medals and 1 + the number of teams that solved more);
//     with HonorableBelowMedian, a team that solved fewer problems than
//     the median team (the team at 0-based index n/2 in position order)
//     is not ranked, and without it a team that solved nothing is not.
//     Unranked teams get AwardHonorable.
//   - Group winners: in each group the best-placed team(s) that solved a
//     problem.
//
// groupsOf maps a team id to its groups (nil: no groups).
func Standings(doc scoreboard.Doc, set AwardSettings, groupsOf map[string][]Group) []Standing {
	rule := doc.Rule
	out := make([]Standing, 0, len(doc.Rows))
	for _, r := range doc.Rows {
		out = append(out, Standing{Row: r, TeamID: RowTeamID(&r), LastAC: lastAC(&r)})
	}
	names := nameOrder()
	slices.SortStableFunc(out, func(a, b Standing) int {
		return cmp.Or(better(rule, &a, &b), names(a.Row.DisplayName, b.Row.DisplayName), cmp.Compare(a.TeamID, b.TeamID))
	})
	for i := range out {
		if i > 0 && better(rule, &out[i-1], &out[i]) == 0 {
			out[i].Position = out[i-1].Position
		} else {
			out[i].Position = i + 1
		}
	}
	g, s, b := max(0, set.Gold), max(0, set.Silver), max(0, set.Bronze)
	median := 0
	if n := len(out); n > 0 {
		median = out[n/2].Row.Solved
	}
	lastMedal := 0
	for i := range out {
		st := &out[i]
		if !scored(rule, &st.Row) {
			continue
		}
		switch p := st.Position; {
		case p <= g:
			st.Award = AwardGold
		case p <= g+s:
			st.Award = AwardSilver
		case p <= g+s+b:
			st.Award = AwardBronze
		default:
			continue
		}
		st.Rank = st.Position
		lastMedal = max(lastMedal, st.Position)
	}
	for i := range out {
		st := &out[i]
		if st.Award != "" {
			continue
		}
		ranked := scored(rule, &st.Row)
		if set.HonorableBelowMedian && rule != scoreboard.RuleIOI {
			ranked = st.Row.Solved >= median && st.Row.Solved > 0
		}
		if !ranked {
			st.Award = AwardHonorable
			continue
		}
		st.Award = AwardRanked
		more := 0
		for j := range out {
			if solvedOrScore(rule, &out[j].Row) > solvedOrScore(rule, &st.Row) {
				more++
			}
		}
		st.Rank = max(lastMedal+1, more+1)
	}
	if groupsOf != nil {
		best := map[string]int{} // group id → best position of a scoring member
		for i := range out {
			if !scored(rule, &out[i].Row) {
				continue
			}
			for _, gr := range groupsOf[out[i].TeamID] {
				if p, ok := best[gr.ID]; !ok || out[i].Position < p {
					best[gr.ID] = out[i].Position
				}
			}
		}
		for i := range out {
			for _, gr := range groupsOf[out[i].TeamID] {
				if p, ok := best[gr.ID]; ok && p == out[i].Position && scored(rule, &out[i].Row) {
					out[i].GroupWinner = append(out[i].GroupWinner, gr)
				}
			}
		}
	}
	return out
}

func solvedOrScore(rule string, r *scoreboard.Row) float64 {
	if rule == scoreboard.RuleIOI {
		return r.Score
	}
	return float64(r.Solved)
}

// ComputeAwards derives the CLICS awards from a board: winner, gold-,
// silver- and bronze-medal, honorable-mention, first-to-solve-<problem>
// and group-winner-<group> (the spec's known award ids), each with its
// team ids in position order. Every award Verdict manages is present,
// with an empty team list while nobody has it. labels are the contest's
// problems in order; groups lists every group (for its award); held are
// the problems whose first to solve is held back (HeldFirstSolves: an
// earlier submission is still pending judgement), awarded to nobody yet.
func ComputeAwards(doc scoreboard.Doc, labels []string, problemIDs map[string]int64, set AwardSettings,
	groups []Group, groupsOf map[string][]Group, held map[string]bool) []Award {
	st := Standings(doc, set, groupsOf)
	ids := func(keep func(*Standing) bool) []string {
		out := []string{}
		for i := range st {
			if keep(&st[i]) {
				out = append(out, st[i].TeamID)
			}
		}
		return out
	}
	out := []Award{
		{ID: "winner", Citation: "Contest winner", TeamIDs: ids(func(s *Standing) bool { return s.Position == 1 && scored(doc.Rule, &s.Row) })},
		{ID: "gold-medal", Citation: "Gold medal winner", TeamIDs: ids(func(s *Standing) bool { return s.Award == AwardGold })},
		{ID: "silver-medal", Citation: "Silver medal winner", TeamIDs: ids(func(s *Standing) bool { return s.Award == AwardSilver })},
		{ID: "bronze-medal", Citation: "Bronze medal winner", TeamIDs: ids(func(s *Standing) bool { return s.Award == AwardBronze })},
		{ID: "honorable-mention", Citation: "Honorable mention", TeamIDs: ids(func(s *Standing) bool { return s.Award == AwardHonorable })},
	}
	for _, l := range labels {
		out = append(out, Award{ID: "first-to-solve-" + ID(problemIDs[l]), Citation: "First to solve problem " + l,
			TeamIDs: ids(func(s *Standing) bool { return !held[l] && s.Row.Problems[l].FirstBlood })})
	}
	for _, g := range groups {
		out = append(out, Award{ID: "group-winner-" + g.ID, Citation: "Winner(s) of group " + g.Name,
			TeamIDs: ids(func(s *Standing) bool {
				return slices.ContainsFunc(s.GroupWinner, func(w Group) bool { return w.ID == g.ID })
			})})
	}
	return out
}

// AwardFeed tracks the awards one event-feed connection was sent: awards
// are derived from the board, not facts of the stream, so the feed sends
// the ones that changed after the entries that change them.
type AwardFeed struct {
	sent map[string]string
}

// NewAwardFeed starts a connection's award tracking.
func NewAwardFeed() *AwardFeed { return &AwardFeed{sent: map[string]string{}} }

// Events are the award events of the awards that changed since the last
// call (all of them the first time), and a delete event (data null) for
// an award that is gone.
func (f *AwardFeed) Events(as []Award) []Event {
	var out []Event
	now := map[string]bool{}
	for _, a := range as {
		now[a.ID] = true
		b, _ := json.Marshal(a)
		if f.sent[a.ID] == string(b) {
			continue
		}
		f.sent[a.ID] = string(b)
		out = append(out, NewEvent(TypeAwards, a.ID, a))
	}
	gone := []string{}
	for id := range f.sent {
		if !now[id] {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone)
	for _, id := range gone {
		delete(f.sent, id)
		out = append(out, NewEvent(TypeAwards, id, nil))
	}
	return out
}

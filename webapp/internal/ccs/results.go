package ccs

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
)

// The ICPC results upload files (CCS System Requirements, appendix
// "Output files"): results.tsv and scoreboard.tsv, UTF-8, tab-separated,
// a version line first.

// TeamInfo names a team in the upload files: its external id (the ICPC
// CMS id; the CLICS team id when it has none) and its institution (the
// team's name when it has none).
type TeamInfo func(teamID string) (externalID, institution string)

// DefaultTeamInfo uses the team id and the row's display name.
func DefaultTeamInfo(rows []Standing) TeamInfo {
	names := make(map[string]string, len(rows))
	for i := range rows {
		names[rows[i].TeamID] = rows[i].Row.DisplayName
	}
	return func(id string) (string, string) { return id, names[id] }
}

// tsvField makes a value safe for one tab-separated field: tabs and line
// breaks become spaces.
func tsvField(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\t', '\n', '\r':
			return ' '
		}
		return r
	}, s)
}

// WriteResultsTSV writes results.tsv: "results\t1", then one line per
// team — external id, rank (empty when unranked), award, problems solved,
// total time, time of the last accepted submission (0 for none), group
// winner (the group names, comma-separated, or empty) — ranked teams by
// rank, then unranked ones, each by team name (Unicode collation,
// nameOrder).
func WriteResultsTSV(w io.Writer, rows []Standing, info TeamInfo) error {
	sorted := slices.Clone(rows)
	names := nameOrder()
	slices.SortStableFunc(sorted, func(a, b Standing) int {
		ar, br := a.Rank, b.Rank
		if ar == 0 {
			ar = int(^uint(0) >> 1)
		}
		if br == 0 {
			br = int(^uint(0) >> 1)
		}
		return cmp.Or(cmp.Compare(ar, br), names(a.Row.DisplayName, b.Row.DisplayName),
			cmp.Compare(a.TeamID, b.TeamID))
	})
	bw := bufio.NewWriter(w)
	bw.WriteString("results\t1\n")
	for i := range sorted {
		st := &sorted[i]
		ext, _ := info(st.TeamID)
		rank := ""
		if st.Rank > 0 {
			rank = strconv.Itoa(st.Rank)
		}
		groups := make([]string, 0, len(st.GroupWinner))
		for _, g := range st.GroupWinner {
			groups = append(groups, g.Name)
		}
		// The requirements give results.tsv's "time of the last
		// submission" no -1 (only scoreboard.tsv's "time of the last
		// accepted submission" is -1 for a team that solved nothing), and
		// need it for the medallists only: a team without a solve has 0,
		// as its total time.
		rec := []string{tsvField(ext), rank, st.Award, strconv.Itoa(st.Row.Solved), strconv.Itoa(st.Row.Penalty),
			strconv.Itoa(max(st.LastAC, 0)), tsvField(strings.Join(groups, ", "))}
		bw.WriteString(strings.Join(rec, "\t"))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// WriteScoreboardTSV writes scoreboard.tsv: "scoreboard\t1", then one
// line per team in position order (team name breaking ties, Unicode
// collation) —
// institution, external id, position, problems solved, total time, time
// of the last accepted submission (-1 for none), then per problem (in
// label order) the number of submissions and the minute it was solved
// (-1 when not).
func WriteScoreboardTSV(w io.Writer, rows []Standing, labels []string, info TeamInfo) error {
	sorted := slices.Clone(rows)
	names := nameOrder()
	slices.SortStableFunc(sorted, func(a, b Standing) int {
		return cmp.Or(cmp.Compare(a.Position, b.Position), names(a.Row.DisplayName, b.Row.DisplayName),
			cmp.Compare(a.TeamID, b.TeamID))
	})
	bw := bufio.NewWriter(w)
	bw.WriteString("scoreboard\t1\n")
	for i := range sorted {
		st := &sorted[i]
		ext, inst := info(st.TeamID)
		rec := []string{tsvField(inst), tsvField(ext), strconv.Itoa(st.Position), strconv.Itoa(st.Row.Solved),
			strconv.Itoa(st.Row.Penalty), strconv.Itoa(st.LastAC)}
		for _, l := range labels {
			c := st.Row.Problems[l]
			solved := "-1"
			if c.Solved && c.TimeMin != nil {
				solved = strconv.Itoa(*c.TimeMin)
			}
			rec = append(rec, strconv.Itoa(submissions(c)), solved)
		}
		bw.WriteString(strings.Join(rec, "\t"))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// submissions is a cell's number of submissions: its judged tries (up to
// and including the accepted one) and those pending.
func submissions(c scoreboard.DocCell) int { return c.Attempts + c.Pending }

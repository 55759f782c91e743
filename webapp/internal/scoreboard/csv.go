package scoreboard

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// BOM is the UTF-8 byte order mark a CSV export starts with: without it
// Excel reads the file in the system's legacy code page and garbles
// non-ASCII names (Chinese display names, say).
const BOM = "\uFEFF"

// CSVRecords turns a scoreboard document into the records of its CSV
// export: a header, then one record per row in the document's order (rank
// order, as Assemble leaves it). labels are the contest's problems in
// label order; each gets its columns whether or not anyone tried it.
//
//	ICPC: rank,username,display_name,solved,penalty, per label X:
//	      X_solved (1/0), X_attempts, X_time_min (empty when unsolved)
//	IOI:  rank,username,display_name,score, per label X:
//	      X_score (empty when nothing of X was judged)
//
// Every cell is made safe for spreadsheets (SafeCell).
func CSVRecords(doc Doc, labels []string) [][]string {
	ioi := doc.Rule == RuleIOI
	header := []string{"rank", "username", "display_name"}
	if ioi {
		header = append(header, "score")
	} else {
		header = append(header, "solved", "penalty")
	}
	for _, l := range labels {
		if ioi {
			header = append(header, l+"_score")
		} else {
			header = append(header, l+"_solved", l+"_attempts", l+"_time_min")
		}
	}
	out := make([][]string, 0, len(doc.Rows)+1)
	out = append(out, safeRecord(header))
	for _, r := range doc.Rows {
		rec := []string{strconv.Itoa(r.Rank), r.User, r.DisplayName}
		if ioi {
			rec = append(rec, formatScore(r.Score))
		} else {
			rec = append(rec, strconv.Itoa(r.Solved), strconv.Itoa(r.Penalty))
		}
		for _, l := range labels {
			// A problem the user never submitted has no cell: the zero
			// DocCell reads as unsolved, 0 attempts, no score.
			c := r.Problems[l]
			if ioi {
				s := ""
				if c.Score != nil {
					s = formatScore(*c.Score)
				}
				rec = append(rec, s)
				continue
			}
			solved, tm := "0", ""
			if c.Solved {
				solved = "1"
				if c.TimeMin != nil {
					tm = strconv.Itoa(*c.TimeMin)
				}
			}
			rec = append(rec, solved, strconv.Itoa(c.Attempts), tm)
		}
		out = append(out, safeRecord(rec))
	}
	return out
}

// WithAbsent returns doc with a row for every registered user who is not on
// the board (nothing submitted, so the live board has no row for them): a
// teacher grading from the export needs the whole class, zeros included.
// They rank with the board's users who scored nothing (their rank is the
// last row's when that row scored nothing — no solve and no penalty under
// ICPC, no points under IOI — else the next one), by username. doc is not
// modified.
func WithAbsent(doc Doc, registered []Row) Doc {
	type who struct {
		user int64
		team string
	}
	on := make(map[who]bool, len(doc.Rows))
	for _, r := range doc.Rows {
		on[who{r.UserID, r.TeamID}] = true
	}
	var absent []Row
	for _, r := range registered {
		if !on[who{r.UserID, r.TeamID}] {
			on[who{r.UserID, r.TeamID}] = true
			absent = append(absent, r)
		}
	}
	if len(absent) == 0 {
		return doc
	}
	slices.SortFunc(absent, func(a, b Row) int { return strings.Compare(a.User, b.User) })
	rank := len(doc.Rows) + 1
	if n := len(doc.Rows); n > 0 {
		last := doc.Rows[n-1]
		if (doc.Rule == RuleIOI && last.Score == 0) || (doc.Rule != RuleIOI && last.Solved == 0 && last.Penalty == 0) {
			rank = last.Rank
		}
	}
	rows := make([]Row, 0, len(doc.Rows)+len(absent))
	rows = append(rows, doc.Rows...)
	for _, r := range absent {
		rows = append(rows, Row{Rank: rank, User: r.User, UserID: r.UserID, DisplayName: r.DisplayName})
	}
	doc.Rows = rows
	return doc
}

// formatScore writes a score with the fewest digits that read back as the
// same float64, as the JSON board does (no exponent, no trailing zeros).
func formatScore(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func safeRecord(rec []string) []string {
	for i, c := range rec {
		rec[i] = SafeCell(c)
	}
	return rec
}

// SafeCell defuses CSV formula injection: a spreadsheet evaluates a cell
// that begins with = + - @ (or a tab or CR, which some strip before
// looking) as a formula, so a display name like =HYPERLINK(...) would run
// on the staff member's machine. Such a cell gets a leading single quote,
// which spreadsheets take as "text" and do not show. Numbers written here
// are never negative, so no number is changed.
func SafeCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

// WriteCSV writes the CSV export of doc (see CSVRecords) to w: the UTF-8
// BOM, then RFC 4180 records with CRLF line ends.
func WriteCSV(w io.Writer, doc Doc, labels []string) error {
	if _, err := io.WriteString(w, BOM); err != nil {
		return fmt.Errorf("scoreboard: write csv: %w", err)
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.WriteAll(CSVRecords(doc, labels)); err != nil {
		return fmt.Errorf("scoreboard: write csv: %w", err)
	}
	return nil
}

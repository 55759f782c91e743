package boarddoc

import "maps"

// Doc is the scoreboard document. Rule and Frozen come first, in that
// order: the web node reads a published board's freeze from its head.
type Doc struct {
	Rule   string `json:"rule"`
	Frozen bool   `json:"frozen"`
	// Full marks the document as the whole board (a live event body
	// replaces the browser's board instead of merging rows).
	Full bool  `json:"full"`
	Rows []Row `json:"rows"`
}

// Row is one contestant.
type Row struct {
	Rank        int                `json:"rank"`
	User        string             `json:"user"`
	UserID      int64              `json:"user_id"`
	DisplayName string             `json:"display_name"`
	Solved      int                `json:"solved"`
	Penalty     int                `json:"penalty"`
	Score       float64            `json:"score"`
	Problems    map[string]DocCell `json:"problems"`
	// TeamID is the team's CLICS id on a team contest's board (then
	// User is the same id and UserID 0); Affiliation its organisation's
	// name.
	TeamID      string `json:"team_id,omitempty"`
	Affiliation string `json:"affiliation,omitempty"`
}

// DocCell is one problem of a row, keyed by the problem's label.
type DocCell struct {
	Solved     bool     `json:"solved,omitempty"`
	Attempts   int      `json:"attempts"`
	TimeMin    *int     `json:"time_min,omitempty"`
	Pending    int      `json:"pending,omitempty"`
	FirstBlood bool     `json:"first_blood,omitempty"`
	Score      *float64 `json:"score,omitempty"`
}

// DeltaBody is the body of a scoreboard event that is not the whole board:
// its rows replace the rows of the same users (matched by user name, as
// the browser keys them) and the browser ranks the board again. It has no
// rule and no full flag, which is how the browser tells it from a whole
// board.
type DeltaBody struct {
	Frozen bool  `json:"frozen"`
	Rows   []Row `json:"rows"`
}

// Delta returns what changed from prev to next as a delta body, or ok =
// false when only the whole board can say it: the rule changed, or a
// contestant left the board (a delta cannot remove a row). A row counts as
// changed when anything but its rank differs. The freeze is the delta's
// own flag (the browser takes it from every delta): the board that froze
// is a delta of no rows but the flag, not the whole board again (at 3,000
// contestants the whole board to every browser at the freeze was the
// slowest moment of the 10× rehearsal), and the unfreeze one of the rows
// it reveals. Changed reports whether a delta says anything.
func Delta(prev, next Doc) (DeltaBody, bool) {
	if prev.Rule != next.Rule {
		return DeltaBody{}, false
	}
	old := make(map[string]*Row, len(prev.Rows))
	for i := range prev.Rows {
		old[prev.Rows[i].User] = &prev.Rows[i]
	}
	seen := 0
	d := DeltaBody{Frozen: next.Frozen, Rows: []Row{}}
	for _, r := range next.Rows {
		o, ok := old[r.User]
		if ok {
			seen++
		}
		if !ok || !SameRow(*o, r) {
			d.Rows = append(d.Rows, r)
		}
	}
	if seen != len(old) {
		return DeltaBody{}, false
	}
	return d, true
}

// Changed reports whether the delta, taken from prev, changes anything the
// browser shows: a row, or the freeze.
func (d DeltaBody) Changed(prev Doc) bool { return len(d.Rows) > 0 || d.Frozen != prev.Frozen }

// SameRow reports whether two rows show the same, rank aside.
func SameRow(a, b Row) bool {
	return a.User == b.User && a.UserID == b.UserID && a.DisplayName == b.DisplayName &&
		a.TeamID == b.TeamID && a.Affiliation == b.Affiliation &&
		a.Solved == b.Solved && a.Penalty == b.Penalty && a.Score == b.Score &&
		maps.EqualFunc(a.Problems, b.Problems, sameCell)
}

func sameCell(a, b DocCell) bool {
	return a.Solved == b.Solved && a.Attempts == b.Attempts && a.Pending == b.Pending && a.FirstBlood == b.FirstBlood &&
		eqPtr(a.TimeMin, b.TimeMin) && eqPtr(a.Score, b.Score)
}

func eqPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

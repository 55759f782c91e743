package scoreboard

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/verdict-oj/verdict/internal/boarddoc"
)

// Rules of contests.
const (
	RuleICPC = "icpc"
	RuleIOI  = "ioi"
)

// PenaltyPerTry is the ICPC penalty of one rejected try before the AC.
const PenaltyPerTry = 20

// Entry is one submission of a user on a problem, as the board knows it.
type Entry struct {
	SubmissionID int64
	Attempt      int
	// At is when the submission was made (ms precision).
	At time.Time
	// Verdict is the final outcome ("AC", "WA", …), or "" while pending.
	Verdict string
	Score   float64
}

// Pending reports whether the entry has no outcome yet.
func (e Entry) Pending() bool { return e.Verdict == "" }

// Supersedes reports whether e replaces old (same submission) in a cell: a
// later attempt, or a final verdict for the attempt old is pending on.
// Every other combination keeps old, which makes merging commutative and
// idempotent. The Lua upsert in board.go implements the same rule.
func (e Entry) Supersedes(old Entry) bool {
	return e.Attempt > old.Attempt || (e.Attempt == old.Attempt && old.Pending() && !e.Pending())
}

// Params are the contest facts a cell's view depends on.
type Params struct {
	Rule  string
	Start time.Time
	// FreezeAt is when the public board stops changing; zero: no freeze.
	FreezeAt time.Time
	// Penalty is the ICPC penalty rule (penalty.go); the zero value is
	// the default.
	Penalty Penalty
}

// CellState is one view of a cell.
type CellState struct {
	Solved   bool `json:"s,omitempty"`
	Attempts int  `json:"a,omitempty"` // ICPC: tries up to and incl. the AC; IOI: judged submissions
	TimeMin  int  `json:"m,omitempty"` // ICPC: minutes from the start to the AC
	Penalty  int  `json:"p,omitempty"` // ICPC: TimeMin + 20 × rejected tries before it
	Pending  int  `json:"q,omitempty"` // submissions without a (visible) outcome
	// Scored: at least one (visible) judged submission; Score its best.
	Scored bool    `json:"sd,omitempty"`
	Score  float64 `json:"sc,omitempty"`
	// FirstAC is the accepted submission that solved it (for first to
	// solve: the lowest across users wins).
	FirstAC int64 `json:"f,omitempty"`
}

// View is a cell as everyone sees it live (admins) and as the public sees
// it while the board is frozen.
type View struct {
	Live   CellState `json:"l"`
	Public CellState `json:"p"`
}

// Derive computes a cell's views from its entries (any order, at most one
// per submission).
func Derive(p Params, entries []Entry) View {
	es := slices.Clone(entries)
	slices.SortFunc(es, func(a, b Entry) int { return cmp.Compare(a.SubmissionID, b.SubmissionID) })
	live := derive(p, es, func(Entry) bool { return true })
	public := live
	if !p.FreezeAt.IsZero() {
		public = derive(p, es, func(e Entry) bool { return e.At.Before(p.FreezeAt) })
	}
	return View{Live: live, Public: public}
}

func derive(p Params, es []Entry, visible func(Entry) bool) CellState {
	var c CellState
	if p.Rule == RuleIOI {
		for _, e := range es {
			if e.Pending() || !visible(e) {
				c.Pending++
				continue
			}
			if e.Verdict == "SE" {
				continue
			}
			c.Attempts++
			if !c.Scored || e.Score > c.Score {
				c.Score = e.Score
			}
			c.Scored = true
			if e.Verdict == "AC" && !c.Solved {
				c.Solved, c.FirstAC = true, e.SubmissionID
			}
		}
		return c
	}
	tries := 0
	for _, e := range es {
		if e.Pending() || !visible(e) {
			c.Pending++
			continue
		}
		if e.Verdict == "AC" {
			c.Solved = true
			c.FirstAC = e.SubmissionID
			c.TimeMin = ContestMinutes(p.Start, e.At)
			c.Penalty = c.TimeMin + p.Penalty.PerTry()*tries
			c.Attempts = tries + 1
			return c // nothing after the AC matters, pending or not
		}
		if p.Penalty.Counts(e.Verdict) {
			tries++
		}
	}
	c.Attempts = tries
	return c
}

// CellKey names a cell: a user's on a problem or, in a team contest, a
// team's (TeamID set, UserID 0).
type CellKey struct {
	UserID    int64
	ProblemID int64
	TeamID    int64
}

// Team is a team as the board shows it (team contests): its rows are
// teams, named from MySQL when the board is assembled (never stored in
// Redis, so a renamed team shows its new name at once).
type Team struct {
	ID int64
	// Key is the team's CLICS id (teams.ext_id): the row's "user" and
	// "team_id".
	Key         string
	Name        string
	Affiliation string
}

// CellEntry is an entry with its cell.
type CellEntry struct {
	CellKey
	Entry
}

// Recompute derives every cell's views from scratch from entries (several
// per submission allowed: they merge as on the live board).
func Recompute(p Params, entries []CellEntry) map[CellKey]View {
	cells := map[CellKey]map[int64]Entry{}
	for _, ce := range entries {
		m := cells[ce.CellKey]
		if m == nil {
			m = map[int64]Entry{}
			cells[ce.CellKey] = m
		}
		if old, ok := m[ce.SubmissionID]; !ok || ce.Entry.Supersedes(old) {
			m[ce.SubmissionID] = ce.Entry
		}
	}
	out := make(map[CellKey]View, len(cells))
	for k, m := range cells {
		es := make([]Entry, 0, len(m))
		for _, e := range m {
			es = append(es, e)
		}
		out[k] = Derive(p, es)
	}
	return out
}

// User is a contestant as the board shows them.
type User struct {
	ID          int64  `json:"id"`
	Username    string `json:"n"`
	DisplayName string `json:"d"`
}

// Doc is the scoreboard document: GET /api/contests/{slug}/scoreboard and
// the state of the contest's live channel. Its shape crosses processes
// (web node → Redis → hub → browser) and is owned by internal/boarddoc.
type Doc = boarddoc.Doc

// Row is one contestant of a Doc.
type Row = boarddoc.Row

// DocCell is one problem of a Row, keyed by the problem's label.
type DocCell = boarddoc.DocCell

// Assemble builds the document from cell views: the public views when
// public is true, the live ones otherwise. labels maps the contest's
// problems to their labels (cells of other problems are left out); users
// names the contestants (unknown ones are shown by id).
func Assemble(rule string, views map[CellKey]View, users map[int64]User, labels map[int64]string, public, frozen bool) Doc {
	return AssembleTeams(rule, views, users, nil, labels, public, frozen)
}

// AssembleTeams is Assemble for boards with team cells: teams names them
// (a team missing from teams is shown by its id).
func AssembleTeams(rule string, views map[CellKey]View, users map[int64]User, teams map[int64]Team, labels map[int64]string, public, frozen bool) Doc {
	pick := func(v View) CellState {
		if public {
			return v.Public
		}
		return v.Live
	}
	// First to solve: the lowest accepted submission id per problem.
	first := map[int64]int64{}
	for k, v := range views {
		c := pick(v)
		if _, ok := labels[k.ProblemID]; !ok || !c.Solved {
			continue
		}
		if f, ok := first[k.ProblemID]; !ok || c.FirstAC < f {
			first[k.ProblemID] = c.FirstAC
		}
	}
	rows := map[rowKey]*Row{}
	for k, v := range views {
		label, ok := labels[k.ProblemID]
		if !ok {
			continue
		}
		rk := rowKey{user: k.UserID, team: k.TeamID}
		r := rows[rk]
		if r == nil && k.TeamID != 0 {
			t, ok := teams[k.TeamID]
			if !ok {
				t = Team{ID: k.TeamID, Key: "#" + strconv.FormatInt(k.TeamID, 10)}
			}
			r = &Row{User: t.Key, TeamID: t.Key, DisplayName: t.Name, Affiliation: t.Affiliation, Problems: map[string]DocCell{}}
			if r.DisplayName == "" {
				r.DisplayName = r.User
			}
			rows[rk] = r
		}
		if r == nil {
			u, ok := users[k.UserID]
			if !ok {
				u = User{ID: k.UserID}
			}
			r = &Row{User: u.Username, UserID: k.UserID, DisplayName: u.DisplayName, Problems: map[string]DocCell{}}
			if r.User == "" {
				r.User = "#" + strconv.FormatInt(k.UserID, 10)
			}
			if r.DisplayName == "" {
				r.DisplayName = r.User
			}
			rows[rk] = r
		}
		c := pick(v)
		dc := DocCell{Solved: c.Solved, Attempts: c.Attempts, Pending: c.Pending}
		if rule == RuleIOI {
			if c.Scored {
				s := c.Score
				dc.Score = &s
				r.Score += c.Score
			}
			if c.Solved {
				r.Solved++
			}
		} else if c.Solved {
			m := c.TimeMin
			dc.TimeMin = &m
			dc.FirstBlood = first[k.ProblemID] == c.FirstAC
			r.Solved++
			r.Penalty += c.Penalty
		}
		r.Problems[label] = dc
	}
	doc := Doc{Rule: rule, Frozen: frozen, Full: true, Rows: make([]Row, 0, len(rows))}
	for _, r := range rows {
		doc.Rows = append(doc.Rows, *r)
	}
	Rank(rule, doc.Rows)
	return doc
}

// rowKey is a row's identity: a user or a team.
type rowKey struct{ user, team int64 }

func better(rule string, a, b *Row) int {
	if rule == RuleIOI {
		return cmp.Compare(b.Score, a.Score)
	}
	if c := cmp.Compare(b.Solved, a.Solved); c != 0 {
		return c
	}
	return cmp.Compare(a.Penalty, b.Penalty)
}

// Rank sorts rows best first (ICPC: more solved, then less penalty; IOI:
// more score) and numbers them, tied rows sharing a rank (1, 2, 2, 4).
// Within a tie rows are ordered by user name.
func Rank(rule string, rows []Row) {
	slices.SortFunc(rows, func(a, b Row) int {
		if c := better(rule, &a, &b); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.User, b.User), cmp.Compare(a.UserID, b.UserID))
	})
	for i := range rows {
		if i > 0 && better(rule, &rows[i-1], &rows[i]) == 0 {
			rows[i].Rank = rows[i-1].Rank
		} else {
			rows[i].Rank = i + 1
		}
	}
}

// Filter keeps the rows of doc that keep selects (a group's teams) and
// ranks them again among themselves. First to solve stays as on the
// whole board.
func Filter(doc Doc, keep func(*Row) bool) Doc {
	out := doc
	out.Rows = make([]Row, 0, len(doc.Rows))
	for i := range doc.Rows {
		if keep(&doc.Rows[i]) {
			out.Rows = append(out.Rows, doc.Rows[i])
		}
	}
	Rank(doc.Rule, out.Rows)
	return out
}

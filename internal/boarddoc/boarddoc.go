package boarddoc

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

// DeltaBody is the body of a scoreboard event that is not the whole board
// (the hub writes it as a RawDelta, from the published rows' bytes):
// its rows replace the rows of the same users (matched by user name, as
// the browser keys them), the rows of the users in Left are removed (they
// left the board), and the browser ranks the board again. It has no rule
// and no full flag, which is how the browser tells it from a whole board.
type DeltaBody struct {
	Frozen bool     `json:"frozen"`
	Rows   []Row    `json:"rows"`
	Left   []string `json:"left,omitempty"`
}

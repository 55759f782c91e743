package boarddoc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Raw is a published board document as the hub diffs it: its head decoded,
// its rows kept as the bytes the web node wrote (json.Marshal of a Doc),
// each with its user. Decoding every row with its cells' map at every push
// was 14 % of the hub's CPU in the rush of the 10× rehearsal. A
// deterministic encoder writes equal rows as equal bytes, so comparing a
// row's bytes after its rank tells what comparing the decoded rows would;
// rows written some other way (field order, spacing) only ever compare as
// changed, which costs a row in a delta and is never wrong.
type Raw struct {
	Rule   string
	Frozen bool
	Rows   []RawRow
	index  map[string]int // user → its last row in Rows
}

// RawRow is one row of a Raw board.
type RawRow struct {
	User string
	JSON json.RawMessage // the row as published
	rest []byte          // JSON after the rank: what Delta compares
}

// ParseRaw reads a board document for Delta.
func ParseRaw(state []byte) (Raw, error) {
	var head struct {
		Rule   string          `json:"rule"`
		Frozen bool            `json:"frozen"`
		Rows   json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(state, &head); err != nil {
		return Raw{}, fmt.Errorf("boarddoc: %w", err)
	}
	rows, err := elements(head.Rows)
	if err != nil {
		return Raw{}, fmt.Errorf("boarddoc: rows: %w", err)
	}
	r := Raw{Rule: head.Rule, Frozen: head.Frozen, Rows: make([]RawRow, len(rows)), index: make(map[string]int, len(rows))}
	for i, row := range rows {
		user, rest, err := splitRow(row)
		if err != nil {
			return Raw{}, fmt.Errorf("boarddoc: row %d: %w", i, err)
		}
		r.Rows[i] = RawRow{User: user, JSON: row, rest: rest}
		r.index[user] = i
	}
	return r, nil
}

// elements splits a JSON array, which json.Unmarshal has checked, into its
// elements' bytes (slices of arr; no copies): one pass that minds only
// strings and nesting, where decoding into []json.RawMessage scanned every
// byte again and copied every row.
func elements(arr []byte) ([][]byte, error) {
	arr = bytes.TrimSpace(arr)
	if len(arr) == 0 || bytes.Equal(arr, []byte("null")) { // no rows
		return nil, nil
	}
	if len(arr) < 2 || arr[0] != '[' {
		return nil, fmt.Errorf("not an array")
	}
	var out [][]byte
	depth, start, inString := 0, -1, false
	for i := 1; i < len(arr)-1; i++ {
		c := arr[i]
		switch {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ',' && depth == 0:
			out = append(out, bytes.TrimSpace(arr[start:i]))
			start = -1
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, bytes.TrimSpace(arr[start:len(arr)-1]))
	}
	return out, nil
}

// splitRow returns a row's user and its JSON after the rank. json.Marshal
// of a Row writes {"rank":N,"user":"…",…}; a row that does not start so is
// compared whole and its user decoded the slow way.
func splitRow(row []byte) (user string, rest []byte, err error) {
	rest = row
	if after, ok := bytes.CutPrefix(row, []byte(`{"rank":`)); ok {
		if i := bytes.IndexByte(after, ','); i >= 0 {
			rest = after[i+1:]
		}
	}
	if s, ok := bytes.CutPrefix(rest, []byte(`"user":"`)); ok {
		// A name without escapes is its bytes up to the next quote.
		if j := bytes.IndexByte(s, '"'); j >= 0 && bytes.IndexByte(s[:j], '\\') < 0 {
			return string(s[:j]), rest, nil
		}
	}
	var r struct {
		User *string `json:"user"`
	}
	if err := json.Unmarshal(row, &r); err != nil {
		return "", nil, err
	}
	if r.User == nil {
		return "", nil, fmt.Errorf("no user")
	}
	return *r.User, rest, nil
}

// RawDelta is a DeltaBody whose rows are the published rows' bytes.
type RawDelta struct {
	Frozen bool              `json:"frozen"`
	Rows   []json.RawMessage `json:"rows"`
	Left   []string          `json:"left,omitempty"`
}

// Delta returns what changed from prev to next as a delta body, or ok =
// false when only the whole board can say it: the rule changed. A row
// counts as changed when anything but its rank differs. A contestant whose
// row the board lost (unregistered by staff, or renamed) is named in the
// delta's left: until 2026-12-08 a delta could not remove a row, and one
// contestant leaving sent the whole board to every browser (at 3,000
// contestants about 600 kB each, 1.8 GB in all). The freeze is the
// delta's own flag (the browser takes it from every delta): the board that
// froze is a delta of no rows but the flag, not the whole board again (at
// 3,000 contestants the whole board to every browser at the freeze was
// the slowest moment of the 10× rehearsal), and the unfreeze one of the
// rows it reveals. Changed reports whether a delta says anything.
func Delta(prev, next Raw) (RawDelta, bool) {
	if prev.Rule != next.Rule {
		return RawDelta{}, false
	}
	seen := 0
	d := RawDelta{Frozen: next.Frozen, Rows: []json.RawMessage{}}
	for i, r := range next.Rows {
		if next.index[r.User] != i {
			continue // a user's earlier row, which the browser's merge would overwrite
		}
		j, ok := prev.index[r.User]
		if ok {
			seen++
		}
		if !ok || !bytes.Equal(prev.Rows[j].rest, r.rest) {
			d.Rows = append(d.Rows, r.JSON)
		}
	}
	if seen != len(prev.index) {
		for i, r := range prev.Rows {
			if _, ok := next.index[r.User]; !ok && prev.index[r.User] == i {
				d.Left = append(d.Left, r.User)
			}
		}
	}
	return d, true
}

// Changed reports whether the delta, taken from prev, changes anything the
// browser shows: a row, a row gone, or the freeze.
func (d RawDelta) Changed(prev Raw) bool {
	return len(d.Rows) > 0 || len(d.Left) > 0 || d.Frozen != prev.Frozen
}

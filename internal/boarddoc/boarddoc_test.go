package boarddoc

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

func ip(v int) *int { return &v }

func row(user string, rank, solved int, cells map[string]DocCell) Row {
	return Row{Rank: rank, User: user, UserID: int64(len(user)), DisplayName: user, Solved: solved, Problems: cells}
}

func TestDelta(t *testing.T) {
	a := row("ann", 1, 1, map[string]DocCell{"A": {Solved: true, Attempts: 1, TimeMin: ip(3)}})
	b := row("bob", 2, 0, map[string]DocCell{"A": {Attempts: 1}})
	bPending := row("bob", 2, 0, map[string]DocCell{"A": {Attempts: 1, Pending: 1}})
	bSolved := row("bob", 1, 1, map[string]DocCell{"A": {Solved: true, Attempts: 2, TimeMin: ip(9)}})
	aSecond := a
	aSecond.Rank = 2
	aLater := row("ann", 1, 1, map[string]DocCell{"A": {Solved: true, Attempts: 1, TimeMin: ip(4)}})
	c := row("cat", 3, 0, map[string]DocCell{})
	doc := func(frozen bool, rows ...Row) Doc { return Doc{Rule: "icpc", Frozen: frozen, Full: true, Rows: rows} }
	tests := []struct {
		name       string
		prev, next Doc
		ok         bool
		rows       []string
		left       []string
	}{
		{"nothing changed", doc(false, a, b), doc(false, a, b), true, nil, nil},
		{"a pending submission", doc(false, a, b), doc(false, a, bPending), true, []string{"bob"}, nil},
		{"a solve that reranks: only the solver's row, not the rank of the row it passed", doc(false, a, b), doc(false, bSolved, aSecond), true, []string{"bob"}, nil},
		{"a cell's time changed", doc(false, a, b), doc(false, aLater, b), true, []string{"ann"}, nil},
		{"a new contestant", doc(false, a, b), doc(false, a, b, c), true, []string{"cat"}, nil},
		{"a contestant left: named in left", doc(false, a, b), doc(false, a), true, nil, []string{"bob"}},
		{"one left, one changed, one came", doc(false, a, b), doc(false, aLater, c), true, []string{"ann", "cat"}, []string{"bob"}},
		{"the board froze: the flag alone", doc(false, a, b), doc(true, a, b), true, nil, nil},
		{"the board unfroze: the rows it reveals", doc(true, a, bPending), doc(false, a, bSolved), true, []string{"bob"}, nil},
		{"the rule changed: whole board", doc(false, a), Doc{Rule: "ioi", Rows: []Row{a}}, false, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := Delta(raw(t, tc.prev), raw(t, tc.next))
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			got := users(t, d)
			if !slices.Equal(got, tc.rows) {
				t.Fatalf("delta rows %v, want %v", got, tc.rows)
			}
			if !slices.Equal(d.Left, tc.left) {
				t.Fatalf("delta left %v, want %v", d.Left, tc.left)
			}
		})
	}
}

// TestDeltaChanged: a delta says something when a row changed or the board
// froze or unfroze; a publish of the same board says nothing.
func TestDeltaChanged(t *testing.T) {
	a := Row{User: "ann", Solved: 1}
	b := Row{User: "bob"}
	for _, tc := range []struct {
		name       string
		prev, next Doc
		frozen     bool
		changed    bool
	}{
		{"the same board", Doc{Rule: "icpc", Rows: []Row{a, b}}, Doc{Rule: "icpc", Rows: []Row{a, b}}, false, false},
		{"the same frozen board", Doc{Rule: "icpc", Frozen: true, Rows: []Row{a}}, Doc{Rule: "icpc", Frozen: true, Rows: []Row{a}}, true, false},
		{"froze", Doc{Rule: "icpc", Rows: []Row{a, b}}, Doc{Rule: "icpc", Frozen: true, Rows: []Row{a, b}}, true, true},
		{"unfroze", Doc{Rule: "icpc", Frozen: true, Rows: []Row{a}}, Doc{Rule: "icpc", Rows: []Row{a}}, false, true},
		{"a row", Doc{Rule: "icpc", Rows: []Row{b}}, Doc{Rule: "icpc", Rows: []Row{a, b}}, false, true},
		{"a row gone", Doc{Rule: "icpc", Rows: []Row{a, b}}, Doc{Rule: "icpc", Rows: []Row{b}}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prev := raw(t, tc.prev)
			d, ok := Delta(prev, raw(t, tc.next))
			if !ok || d.Frozen != tc.frozen || d.Changed(prev) != tc.changed {
				t.Fatalf("Delta = %+v, %v; Changed = %v, want frozen %v, changed %v", d, ok, d.Changed(prev), tc.frozen, tc.changed)
			}
		})
	}
}

// TestDeltaBodyIsNotAWholeBoard: the browser takes a body with "rule" or
// "full" for the whole board (frontend/src/scoreboard.ts applyEvent); a
// delta must carry neither, and must carry rows even when empty.
func TestDeltaBodyIsNotAWholeBoard(t *testing.T) {
	d, _ := Delta(raw(t, Doc{Rule: "icpc"}), raw(t, Doc{Rule: "icpc"}))
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["rule"]; ok {
		t.Errorf("delta has a rule: %s", b)
	}
	if _, ok := m["full"]; ok {
		t.Errorf("delta has full: %s", b)
	}
	if string(m["rows"]) != "[]" {
		t.Errorf("rows %s, want []", m["rows"])
	}
}

// FuzzDelta: merging a delta into the previous board, the way the browser
// does (its left removed, its rows merged), gives the next board (rank
// aside) whenever Delta says ok, and the delta's rows are exactly the rows
// whose decoded content changed.
func FuzzDelta(f *testing.F) {
	f.Add([]byte{1, 2, 3}, []byte{1, 3, 3, 4})
	f.Fuzz(func(t *testing.T, p, n []byte) {
		mk := func(bs []byte) Doc {
			d := Doc{Rule: "icpc"}
			seen := map[string]bool{}
			for i, x := range bs {
				u := string(rune('a' + x%8))
				if x%8 < 3 {
					u += `<"é\` // escaped by json.Marshal: the slow way to the user
				}
				if seen[u] {
					continue
				}
				seen[u] = true
				d.Rows = append(d.Rows, row(u, i+1, int(x/8%3), map[string]DocCell{"A": {Attempts: int(x / 24)}}))
			}
			return d
		}
		prev, next := mk(p), mk(n)
		d, ok := Delta(raw(t, prev), raw(t, next))
		if !ok {
			return
		}
		merged := map[string]Row{}
		for _, r := range prev.Rows {
			merged[r.User] = r
		}
		var want []string
		for _, r := range next.Rows {
			if o, had := merged[r.User]; !had || !sameRow(o, r) {
				want = append(want, r.User)
			}
		}
		if got := users(t, d); !slices.Equal(got, want) {
			t.Fatalf("delta rows %v, want the changed %v", got, want)
		}
		for _, u := range d.Left {
			if _, had := merged[u]; !had {
				t.Fatalf("left names %q, not on the board", u)
			}
			delete(merged, u)
		}
		for _, b := range d.Rows {
			var r Row
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			merged[r.User] = r
		}
		if len(merged) != len(next.Rows) {
			t.Fatalf("merged %d rows, next has %d", len(merged), len(next.Rows))
		}
		for _, r := range next.Rows {
			if !sameRow(merged[r.User], r) {
				t.Fatalf("row %s: merged %+v, next %+v", r.User, merged[r.User], r)
			}
		}
	})
}

// TestDocHead: a document starts with its rule and its freeze, which the
// web node reads from the head of a published board without parsing it.
func TestDocHead(t *testing.T) {
	for _, frozen := range []bool{false, true} {
		b, _ := json.Marshal(Doc{Rule: "icpc", Frozen: frozen, Rows: []Row{{User: "x"}}})
		want := `{"rule":"icpc","frozen":false`
		if frozen {
			want = `{"rule":"icpc","frozen":true`
		}
		if !strings.HasPrefix(string(b), want) {
			t.Errorf("document %s does not start with %s", b, want)
		}
	}
}

// raw is doc as a web node publishes it, read by ParseRaw.
func raw(t testing.TB, doc Doc) Raw {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRaw(b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// users are the users of a delta's rows, decoded.
func users(t testing.TB, d RawDelta) []string {
	t.Helper()
	var got []string
	for _, b := range d.Rows {
		var r Row
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("delta row %s: %v", b, err)
		}
		got = append(got, r.User)
	}
	return got
}

// sameRow reports whether two decoded rows show the same, rank aside: what
// Delta's byte comparison stands for.
func sameRow(a, b Row) bool {
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

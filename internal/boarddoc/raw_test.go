package boarddoc

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestParseRaw: rows keep their published bytes and their users, whatever
// the users' names need escaped and whether or not a row is written the
// way json.Marshal writes a Row.
func TestParseRaw(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		users     []string
		err       string
	}{
		{"marshalled rows", `{"rule":"icpc","frozen":true,"rows":[{"rank":1,"user":"ann","solved":1},{"rank":2,"user":"bob"}]}`, []string{"ann", "bob"}, ""},
		{"escaped names", `{"rule":"icpc","rows":[{"rank":1,"user":"a\"b"},{"rank":1,"user":"\u003cx\u003e"}]}`, []string{`a"b`, "<x>"}, ""},
		{"other field order", `{"rule":"icpc","rows":[{"user":"ann","rank":1},{"solved":0,"user":"bob"}]}`, []string{"ann", "bob"}, ""},
		{"spaces", `{"rule": "icpc", "rows": [ {"rank": 1, "user": "ann"} ]}`, []string{"ann"}, ""},
		{"no rows", `{"rule":"icpc","rows":[]}`, nil, ""},
		{"rows null", `{"rule":"icpc","rows":null}`, nil, ""},
		{"rows missing", `{"rule":"icpc"}`, nil, ""},
		{"brackets, commas and quotes in strings", `{"rule":"icpc","rows":[{"rank":1,"user":"a],[b","display_name":"x\\\"},{\"","problems":{"A":{"attempts":1},"B":{}}},{"rank":2,"user":"c","problems":{}}]}`, []string{"a],[b", "c"}, ""},
		{"rows not an array", `{"rule":"icpc","rows":{"a":1}}`, nil, "boarddoc: rows: not an array"},
		{"not JSON", `{"rule":`, nil, "boarddoc: unexpected end"},
		{"a row without a user", `{"rule":"icpc","rows":[{"rank":1,"user":"ann"},{"rank":2}]}`, nil, "boarddoc: row 1: no user"},
		{"a row that is not an object", `{"rule":"icpc","rows":[3]}`, nil, "boarddoc: row 0: json: cannot unmarshal number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseRaw([]byte(tc.doc))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q…", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, row := range r.Rows {
				got = append(got, row.User)
				if !json.Valid(row.JSON) {
					t.Errorf("row %q: JSON %s", row.User, row.JSON)
				}
			}
			if !slices.Equal(got, tc.users) {
				t.Fatalf("users %q, want %q", got, tc.users)
			}
		})
	}
}

// TestDeltaOfRowsWrittenOtherwise: a row not written as json.Marshal
// writes a Row is compared with its rank, so it can only count as changed
// (one row too many in a delta, never one missed).
func TestDeltaOfRowsWrittenOtherwise(t *testing.T) {
	parse := func(doc string) Raw {
		r, err := ParseRaw([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	prev := parse(`{"rule":"icpc","rows":[{"user":"ann","rank":1,"solved":1},{"rank":2,"user":"bob"}]}`)
	for _, tc := range []struct {
		next string
		rows []string
	}{
		{`{"rule":"icpc","rows":[{"user":"ann","rank":1,"solved":1},{"rank":2,"user":"bob"}]}`, nil},
		{`{"rule":"icpc","rows":[{"user":"ann","rank":2,"solved":1},{"rank":1,"user":"bob"}]}`, []string{"ann"}},
		{`{"rule":"icpc","rows":[{"user":"ann","rank":1,"solved":2},{"rank":2,"user":"bob"}]}`, []string{"ann"}},
	} {
		d, ok := Delta(prev, parse(tc.next))
		if !ok {
			t.Fatalf("%s: not a delta", tc.next)
		}
		if got := users(t, d); !slices.Equal(got, tc.rows) {
			t.Errorf("%s: rows %v, want %v", tc.next, got, tc.rows)
		}
	}
}

// TestDeltaLeft names each user the board lost once, in the order of the
// board they left, however many rows they had.
func TestDeltaLeft(t *testing.T) {
	doc := func(users ...string) Raw {
		var d Doc
		for _, u := range users {
			d.Rows = append(d.Rows, Row{User: u})
		}
		return raw(t, d)
	}
	tests := []struct {
		prev, next Raw
		want       []string
	}{
		{doc("a", "b"), doc("b", "a", "c"), nil},
		{doc("a", "b", "c"), doc("b"), []string{"a", "c"}},
		{doc("#7"), doc("alice"), []string{"#7"}},
		{doc("a", "b", "a", "c", "d"), doc(), []string{"b", "a", "c", "d"}},
	}
	for _, tc := range tests {
		d, ok := Delta(tc.prev, tc.next)
		if !ok || !slices.Equal(d.Left, tc.want) {
			t.Errorf("Delta = %+v, %v; want left %v", d, ok, tc.want)
		}
	}
}

// BenchmarkDiff is the hub's work per push of a 3,000-contestant board of
// 6 problems in which one row changed: reading the published document and
// taking the delta (DecodeAndCompare is the decode of every row that
// ParseRaw replaced, for the ratio).
func BenchmarkDiff(b *testing.B) {
	doc := benchDoc(3000, 6)
	prevJSON, _ := json.Marshal(doc)
	doc.Rows[1500].Problems["C"] = DocCell{Attempts: 9}
	nextJSON, _ := json.Marshal(doc)
	b.Run("ParseRaw", func(b *testing.B) {
		prev, _ := ParseRaw(prevJSON)
		b.SetBytes(int64(len(nextJSON)))
		for b.Loop() {
			next, err := ParseRaw(nextJSON)
			if err != nil {
				b.Fatal(err)
			}
			if d, ok := Delta(prev, next); !ok || len(d.Rows) != 1 {
				b.Fatalf("delta %d rows, ok %v", len(d.Rows), ok)
			}
		}
	})
	b.Run("DecodeAndCompare", func(b *testing.B) {
		var prev Doc
		_ = json.Unmarshal(prevJSON, &prev)
		b.SetBytes(int64(len(nextJSON)))
		for b.Loop() {
			var next Doc
			if err := json.Unmarshal(nextJSON, &next); err != nil {
				b.Fatal(err)
			}
			n := 0
			for i := range next.Rows {
				if !sameRow(prev.Rows[i], next.Rows[i]) {
					n++
				}
			}
			if n != 1 {
				b.Fatalf("%d rows changed", n)
			}
		}
	})
}

func benchDoc(users, problems int) Doc {
	d := Doc{Rule: "icpc", Full: true}
	for u := range users {
		r := row("contestant"+strings.Repeat("x", u%7)+string(rune('a'+u%26))+strconv.Itoa(u), u+1, u%problems, map[string]DocCell{})
		for p := range problems {
			c := DocCell{Attempts: (u + p) % 4}
			if c.Attempts > 0 && (u+p)%3 == 0 {
				c.Solved, c.TimeMin = true, ip(u%300)
			}
			r.Problems[string(rune('A'+p))] = c
		}
		d.Rows = append(d.Rows, r)
	}
	return d
}

package scoreboard

import (
	"bytes"
	"encoding/csv"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestCSVSafeCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"alice", "alice"},
		{"12", "12"},
		{"张三", "张三"},
		{`=HYPERLINK("http://evil.example","x")`, `'=HYPERLINK("http://evil.example","x")`},
		{"+1+2", "'+1+2"},
		{"-2+3", "'-2+3"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"a=1", "a=1"},         // only the first character matters
		{" =1", " =1"},         // as the contract says: a space is not a trigger
		{"'quoted", "'quoted"}, // already text
	}
	for _, tt := range tests {
		if got := SafeCell(tt.in); got != tt.want {
			t.Errorf("SafeCell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func fp(v float64) *float64 { return &v }
func ip(v int) *int         { return &v }

func TestCSVRecords(t *testing.T) {
	tests := []struct {
		name   string
		doc    Doc
		labels []string
		want   [][]string
	}{
		{
			name:   "icpc empty board: header only",
			doc:    Doc{Rule: RuleICPC},
			labels: []string{"A", "B"},
			want: [][]string{{"rank", "username", "display_name", "solved", "penalty",
				"A_solved", "A_attempts", "A_time_min", "B_solved", "B_attempts", "B_time_min"}},
		},
		{
			name:   "ioi empty board: header only",
			doc:    Doc{Rule: RuleIOI},
			labels: []string{"A"},
			want:   [][]string{{"rank", "username", "display_name", "score", "A_score"}},
		},
		{
			name: "icpc: solved, unsolved and untried cells; rows kept in document order",
			doc: Doc{Rule: RuleICPC, Rows: []Row{
				{Rank: 1, User: "alice", DisplayName: "=HYPERLINK(\"x\")", Solved: 2, Penalty: 95, Problems: map[string]DocCell{
					"A": {Solved: true, Attempts: 2, TimeMin: ip(30), FirstBlood: true},
					"B": {Solved: true, Attempts: 1, TimeMin: ip(45)},
				}},
				{Rank: 2, User: "bob", DisplayName: "张三", Solved: 0, Penalty: 0, Problems: map[string]DocCell{
					"B": {Attempts: 3, Pending: 1},
				}},
				{Rank: 2, User: "#9", DisplayName: "#9", Problems: map[string]DocCell{
					"A": {Solved: true, Attempts: 1, TimeMin: ip(0)},
				}},
			}},
			labels: []string{"A", "B", "C"},
			want: [][]string{
				{"rank", "username", "display_name", "solved", "penalty",
					"A_solved", "A_attempts", "A_time_min", "B_solved", "B_attempts", "B_time_min", "C_solved", "C_attempts", "C_time_min"},
				{"1", "alice", "'=HYPERLINK(\"x\")", "2", "95", "1", "2", "30", "1", "1", "45", "0", "0", ""},
				{"2", "bob", "张三", "0", "0", "0", "0", "", "0", "3", "", "0", "0", ""},
				// A solve in minute 0 keeps its 0: only unsolved is empty.
				{"2", "#9", "#9", "0", "0", "1", "1", "0", "0", "0", "", "0", "0", ""},
			},
		},
		{
			name: "ioi: fractional scores, a judged 0 differs from nothing judged",
			doc: Doc{Rule: RuleIOI, Rows: []Row{
				{Rank: 1, User: "bob", DisplayName: "+bob", Score: 112.5, Problems: map[string]DocCell{
					"A": {Solved: true, Attempts: 1, Score: fp(100)},
					"B": {Attempts: 2, Score: fp(12.5)},
				}},
				{Rank: 2, User: "alice", DisplayName: "Alice", Score: 0, Problems: map[string]DocCell{
					"B": {Attempts: 1, Score: fp(0)},
					"A": {Pending: 1},
				}},
			}},
			labels: []string{"A", "B"},
			want: [][]string{
				{"rank", "username", "display_name", "score", "A_score", "B_score"},
				{"1", "bob", "'+bob", "112.5", "100", "12.5"},
				{"2", "alice", "Alice", "0", "", "0"},
			},
		},
		{
			name: "a label that looks like a formula is escaped in the header",
			doc: Doc{Rule: RuleIOI, Rows: []Row{
				{Rank: 1, User: "u", DisplayName: "u", Score: 1, Problems: map[string]DocCell{"=1": {Score: fp(1)}}},
			}},
			labels: []string{"=1"},
			want: [][]string{
				{"rank", "username", "display_name", "score", "'=1_score"},
				{"1", "u", "u", "1", "1"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CSVRecords(tt.doc, tt.labels)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("records\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestCSVWrite: BOM first, CRLF records, and quoting that reads back to
// the same cells (commas, quotes, newlines and non-ASCII in names).
func TestCSVWrite(t *testing.T) {
	doc := Doc{Rule: RuleICPC, Rows: []Row{
		{Rank: 1, User: "alice", DisplayName: "Smith, \"Al\"\nline 2", Solved: 1, Penalty: 7, Problems: map[string]DocCell{
			"A": {Solved: true, Attempts: 1, TimeMin: ip(7)}}},
		{Rank: 2, User: "bob", DisplayName: "张三", Problems: map[string]DocCell{}},
	}}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, doc, []string{"A"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, "\xEF\xBB\xBF") {
		t.Fatalf("no UTF-8 BOM: %q", out[:min(len(out), 8)])
	}
	if !strings.HasPrefix(out, BOM+"rank,username,display_name,solved,penalty,A_solved,A_attempts,A_time_min\r\n") {
		t.Fatalf("header line: %q", out)
	}
	recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(out, BOM))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := CSVRecords(doc, []string{"A"}); !reflect.DeepEqual(recs, want) {
		t.Fatalf("read back\n got %q\nwant %q", recs, want)
	}
}

func TestWithAbsent(t *testing.T) {
	doc := Doc{Rule: RuleICPC, Rows: []Row{
		{Rank: 1, User: "bob", UserID: 2, Solved: 1},
		{Rank: 2, User: "amy", UserID: 1, Penalty: 20},
	}}
	for _, tc := range []struct {
		name       string
		registered []Row
		want       string // user:rank,...
	}{
		{"nobody registered", nil, "bob:1,amy:2"},
		{"all on the board", []Row{{User: "amy", UserID: 1}, {User: "bob", UserID: 2}}, "bob:1,amy:2"},
		{"two absent, by username, sharing the next rank", []Row{{User: "zed", UserID: 9}, {User: "cat", UserID: 3}, {User: "bob", UserID: 2}}, "bob:1,amy:2,cat:3,zed:3"},
		{"listed twice", []Row{{User: "cat", UserID: 3}, {User: "cat", UserID: 3}}, "bob:1,amy:2,cat:3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := WithAbsent(doc, tc.registered)
			var s []string
			for _, r := range got.Rows {
				s = append(s, r.User+":"+strconv.Itoa(r.Rank))
				if r.User == "cat" && (r.Solved != 0 || len(r.Problems) != 0 || r.DisplayName != "") {
					t.Errorf("absent row = %+v", r)
				}
			}
			if strings.Join(s, ",") != tc.want {
				t.Errorf("rows = %s, want %s", strings.Join(s, ","), tc.want)
			}
			if len(doc.Rows) != 2 {
				t.Fatal("WithAbsent changed its input")
			}
		})
	}
	// Absent users tie with a board row that scored nothing.
	zero := Doc{Rule: RuleICPC, Rows: []Row{{Rank: 1, User: "bob", UserID: 2, Solved: 1}, {Rank: 2, User: "amy", UserID: 1}}}
	if got := WithAbsent(zero, []Row{{User: "cat", UserID: 3}}).Rows[2].Rank; got != 2 {
		t.Errorf("absent rank after a zero row = %d, want 2 (a tie)", got)
	}
	ioi := Doc{Rule: RuleIOI, Rows: []Row{{Rank: 1, User: "bob", UserID: 2, Score: 30}}}
	if got := WithAbsent(ioi, []Row{{User: "cat", UserID: 3}}).Rows[1].Rank; got != 2 {
		t.Errorf("IOI absent rank after a scoring row = %d, want 2", got)
	}
	// An absent user's CSV record: zeros, no times.
	recs := CSVRecords(WithAbsent(doc, []Row{{User: "cat", UserID: 3, DisplayName: "Cat"}}), []string{"A"})
	if got := strings.Join(recs[3], ","); got != "3,cat,Cat,0,0,0,0," {
		t.Errorf("absent record = %q", got)
	}
}

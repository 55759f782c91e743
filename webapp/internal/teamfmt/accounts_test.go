package teamfmt

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseAccounts(t *testing.T) {
	for _, tc := range []struct {
		name, format, in string
		want             []Account // Line, Type, Name, Username, Password, TeamID, TeamCandidates
		bad              []string  // "line:field" of the errors
	}{
		{name: "accounts.tsv", format: FormatAccountsTSV,
			in: "accounts\t1\nteam\tTeam 22\tteam-022\tpw-22-secret\njudge\tPer Austrin\taustrin\tB!5MWJiy\nadmin\tRoot\troot2\tadminpass1\n\nteam\tZero\tteam-000\tzzzzzzzz\n",
			want: []Account{
				{Line: 2, Type: "team", Name: "Team 22", Username: "team-022", Password: "pw-22-secret", TeamCandidates: []string{"22", "022"}},
				{Line: 3, Type: "judge", Name: "Per Austrin", Username: "austrin", Password: "B!5MWJiy"},
				{Line: 4, Type: "admin", Name: "Root", Username: "root2", Password: "adminpass1"},
				{Line: 6, Type: "team", Name: "Zero", Username: "team-000", Password: "zzzzzzzz", TeamCandidates: []string{"0", "000"}},
			}},
		{name: "File_Version header, a BOM, CRLF", format: FormatAccountsTSV, in: "\xef\xbb\xbfFile_Version\t1\r\nteam\tT\tteam-7\tpassword7\r\n",
			want: []Account{{Line: 2, Type: "team", Name: "T", Username: "team-7", Password: "password7", TeamCandidates: []string{"7"}}}},
		{name: "accounts.tsv errors", format: FormatAccountsTSV,
			in:  "accounts\t1\nteam\tT\talice\tpassword\ncoach\tC\tcoach1\tpassword\njudge\tJ\n judge\tX\tteam-1\tp\njudge\tY\tTEAM-1\tp\n",
			bad: []string{"2:username", "3:type", "4:username", "6:username"}},
		{name: "a bad header", format: FormatAccountsTSV, in: "teams\t1\n", bad: []string{"1:header"}},
		{name: "no accounts", format: FormatAccountsTSV, in: "accounts\t1\n", bad: []string{"1:file"}},
		{name: "accounts.json", format: FormatAccountsJSON,
			in: `[{"id":"t1","username":"team1","password":"secret-1","type":"team","team_id":1,"name":"Team one","ip":"10.0.0.1"},
				{"id":"j","username":"judge1","type":"JUDGE"}]`,
			want: []Account{
				{Line: 1, ID: "t1", Type: "team", Name: "Team one", Username: "team1", Password: "secret-1", TeamID: "1", TeamCandidates: []string{"1"}},
				{Line: 2, ID: "j", Type: "judge", Username: "judge1"},
			}},
		{name: "accounts.json errors", format: FormatAccountsJSON,
			in:  `[{"username":"a1","type":"team"},{"username":"b1","type":"pope"},{"username":"","type":"judge"},{"username":3,"type":"judge"},{"username":"c1","type":"team","team_id":"-x"}]`,
			bad: []string{"1:team_id", "2:type", "3:username", "4:username", "5:team_id"}},
		{name: "not JSON", format: FormatAccountsJSON, in: `{"a":1}`, bad: []string{"0:file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseAccounts(tc.format, strings.NewReader(tc.in))
			if tc.bad != nil {
				var errs Errors
				if !errors.As(err, &errs) {
					t.Fatalf("err %v, want line errors %v", err, tc.bad)
				}
				var where []string
				for _, e := range errs {
					where = append(where, strings.Join([]string{itoa(e.Line), e.Field}, ":"))
				}
				if !slices.Equal(where, tc.bad) {
					t.Errorf("errors %v (%v), want %v", where, errs, tc.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				g, w := got[i], tc.want[i]
				if g.Line != w.Line || g.Type != w.Type || g.Name != w.Name || g.Username != w.Username || g.Password != w.Password ||
					g.TeamID != w.TeamID || g.ID != w.ID || !slices.Equal(g.TeamCandidates, w.TeamCandidates) {
					t.Errorf("account %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestWriteAccountsRoundTrip: what WriteAccounts writes reads back.
func TestWriteAccountsRoundTrip(t *testing.T) {
	as := []Account{{Type: "team", Name: "Team one", Username: "team-001", Password: "secret-1", TeamID: "1"},
		{Type: "judge", Name: "Judge", Username: "judge1"}}
	for _, f := range AccountFormats {
		var buf bytes.Buffer
		if err := WriteAccounts(&buf, f, as); err != nil {
			t.Fatal(err)
		}
		back, err := ParseAccounts(f, &buf)
		if err != nil {
			t.Fatalf("%s: %v\n%s", f, err, buf.String())
		}
		if len(back) != 2 || back[0].Username != "team-001" || back[0].Name != "Team one" || back[1].Type != "judge" {
			t.Errorf("%s: %+v", f, back)
		}
		if f == FormatAccountsJSON && back[0].TeamID != "1" {
			t.Errorf("json team_id %+v", back[0])
		}
	}
	var buf bytes.Buffer
	if err := WriteAccounts(&buf, FormatAccountsTSV, []Account{{Type: "team", Name: "Tab\there", Username: "team-1"}}); err != nil ||
		buf.String() != "accounts\t1\nteam\tTab here\tteam-1\t\n" {
		t.Errorf("accounts.tsv: a tab in a name: %q %v", buf.String(), err)
	}
	if !IsAccountFormat("accounts.tsv") || IsAccountFormat("teams.tsv") {
		t.Error("IsAccountFormat")
	}
}

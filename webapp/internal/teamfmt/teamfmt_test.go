package teamfmt

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseFormats(t *testing.T) {
	tests := []struct {
		format, in string
		want       Data
	}{
		{FormatGroupsJSON, `[{"id":"13337","icpc_id":"123","name":"Companies","hidden":true},{"id":47,"name":"Participants","sortorder":1}]`,
			Data{Groups: []Group{{Line: 1, ID: "13337", ICPCID: "123", Name: "Companies", Hidden: true}, {Line: 2, ID: "47", Name: "Participants", SortOrder: 1}}}},
		{FormatGroupsTSV, "File_Version\t1\n13337\tCompanies\n\n47\tParticipants\r\n",
			Data{Groups: []Group{{Line: 2, ID: "13337", Name: "Companies"}, {Line: 4, ID: "47", Name: "Participants"}}}},
		{FormatOrganizationsJSON, `[{"id":"inst-1","icpc_id":"1","name":"UvA","formal_name":"University of Amsterdam","country":"NLD","logo":[]}]`,
			Data{Organizations: []Organization{{Line: 1, ID: "inst-1", ICPCID: "1", Name: "UvA", FormalName: "University of Amsterdam", Country: "NLD"}}}},
		{FormatInstitutionsTSV, "institutions\t1\n1\tUniversity of Amsterdam\tUvA\tnld\n",
			Data{Organizations: []Organization{{Line: 2, ID: "1", FormalName: "University of Amsterdam", Name: "UvA", Country: "NLD"}}}},
		{FormatTeamsJSON, `[{"id":"1","name":"Hacks","display_name":null,"organization_id":"inst-1","group_ids":["47"],"members":["ann","bob"]}]`,
			Data{Teams: []Team{{Line: 1, ID: "1", Name: "Hacks", OrganizationID: "inst-1", GroupIDs: []string{"47"}, Members: []string{"ann", "bob"}}}}},
		{FormatTeamsTSV, "File_Version\t2\n1\t447\t24\tHacks\tUniversity of Amsterdam\tUvA\tNLD\t1\n2\t\t24\tNo school\n3\t\t24\tSame school\tUniversity of Amsterdam\tUvA\tNLD\t1\n",
			Data{
				Organizations: []Organization{{Line: 2, ID: "1", Name: "UvA", FormalName: "University of Amsterdam", Country: "NLD"}},
				Teams: []Team{{Line: 2, ID: "1", ICPCID: "447", Name: "Hacks", OrganizationID: "1", GroupIDs: []string{"24"}},
					{Line: 3, ID: "2", Name: "No school", GroupIDs: []string{"24"}},
					{Line: 4, ID: "3", Name: "Same school", OrganizationID: "1", GroupIDs: []string{"24"}}}}},
		{FormatCSV, "id,name\nt3,No members column\n",
			Data{Teams: []Team{{Line: 2, ID: "t3", Name: "No members column", GroupIDs: []string{}}}}},
		{FormatCSV, "members,id,name,groups\n\"ann; bob\",t1,\"Hacks, Inc.\",47 48\nx,t2,Solo,\n",
			Data{Teams: []Team{{Line: 2, ID: "t1", Name: "Hacks, Inc.", GroupIDs: []string{"47", "48"}, Members: []string{"ann", "bob"}},
				{Line: 3, ID: "t2", Name: "Solo", GroupIDs: []string{}, Members: []string{"x"}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			d, err := Parse(tc.format, strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*d, tc.want) {
				t.Errorf("got  %+v\nwant %+v", *d, tc.want)
			}
		})
	}
}

func TestParseBadLines(t *testing.T) {
	tests := []struct {
		name, format, in string
		want             []LineError // line and field of each
	}{
		{"tsv header", FormatGroupsTSV, "1\tA\n", []LineError{{Line: 1, Field: "header"}}},
		{"teams.tsv version", FormatTeamsTSV, "File_Version\t3\n", []LineError{{Line: 1, Field: "header"}}},
		{"missing name", FormatGroupsTSV, "File_Version\t1\n1\tA\n2\n", []LineError{{Line: 3, Field: "name"}}},
		{"bad id and dup", FormatGroupsTSV, "File_Version\t1\n-x\tA\n7\tB\n7\tC\n", []LineError{{Line: 2, Field: "id"}, {Line: 4, Field: "id"}}},
		{"country", FormatInstitutionsTSV, "File_Version\t1\n1\tUni\tU\tNetherlands\n", []LineError{{Line: 2, Field: "country"}}},
		{"json not array", FormatTeamsJSON, `{"id":"1"}`, []LineError{{Line: 0, Field: "file"}}},
		{"json wrong type", FormatTeamsJSON, `[{"id":"1","name":"A"},{"id":"2","name":3}]`, []LineError{{Line: 2, Field: "name"}}},
		{"json missing name", FormatOrganizationsJSON, `[{"id":"1"}]`, []LineError{{Line: 1, Field: "name"}}},
		{"members", FormatTeamsJSON, `[{"id":"1","name":"A","members":["ann","ann"]}]`, []LineError{{Line: 1, Field: "members"}}},
		{"csv unknown column", FormatCSV, "id,name,colour\n", []LineError{{Line: 1, Field: "header"}}},
		{"csv needs name", FormatCSV, "id,members\n", []LineError{{Line: 1, Field: "header"}}},
		{"csv bad quote", FormatCSV, "id,name\n1,\"A\n", []LineError{{Line: 2, Field: "line"}}},
		{"csv bad line", FormatCSV, "id,name\n1,A\n,B\n3,\n", []LineError{{Line: 3, Field: "id"}, {Line: 4, Field: "name"}}},
		{"teams.tsv institution without id", FormatTeamsTSV, "File_Version\t2\n1\t\t24\tA\tUni\tU\tNLD\t\n", []LineError{{Line: 2, Field: "organization_id"}}},
		{"teams.tsv short line", FormatTeamsTSV, "File_Version\t2\n1\t\t24\n", []LineError{{Line: 2, Field: "name"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.format, strings.NewReader(tc.in))
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("err = %v, want Errors", err)
			}
			if len(es) != len(tc.want) {
				t.Fatalf("errors %v, want %d", es, len(tc.want))
			}
			for i, e := range es {
				if e.Line != tc.want[i].Line || e.Field != tc.want[i].Field || e.Message == "" {
					t.Errorf("error %d = %+v, want line %d field %s", i, e, tc.want[i].Line, tc.want[i].Field)
				}
			}
		})
	}
	if _, err := Parse("teams.xml", strings.NewReader("")); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("unknown format: %v", err)
	}
}

// Every format reads back what it wrote.
func TestWriteRoundTrip(t *testing.T) {
	d := &Data{
		Groups:        []Group{{ID: "47", Name: "Participants"}, {ID: "13337", ICPCID: "9", Name: "Companies", Hidden: true, SortOrder: 2}},
		Organizations: []Organization{{ID: "1", Name: "UvA", FormalName: "University of Amsterdam", Country: "NLD"}},
		Teams: []Team{{ID: "1", ICPCID: "447", Name: "Hacks", DisplayName: "Hacks!", OrganizationID: "1", GroupIDs: []string{"47"},
			Members: []string{"ann", "bob"}}},
	}
	for _, f := range Formats {
		t.Run(f, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, f, d); err != nil {
				t.Fatal(err)
			}
			got, err := Parse(f, &buf)
			if err != nil {
				t.Fatalf("%v in\n%s", err, buf.String())
			}
			switch f {
			case FormatGroupsJSON:
				eq(t, stripGroups(got.Groups), d.Groups)
			case FormatGroupsTSV: // names and ids only
				eq(t, stripGroups(got.Groups), []Group{{ID: "47", Name: "Participants"}, {ID: "13337", Name: "Companies"}})
			case FormatOrganizationsJSON, FormatInstitutionsTSV:
				for i := range got.Organizations {
					got.Organizations[i].Line = 0
				}
				want := d.Organizations
				eq(t, got.Organizations, want)
			case FormatTeamsJSON, FormatCSV:
				for i := range got.Teams {
					got.Teams[i].Line = 0
				}
				want := d.Teams
				if f == FormatCSV { // no icpc id column
					want = []Team{d.Teams[0]}
					want[0].ICPCID = ""
				}
				eq(t, got.Teams, want)
			case FormatTeamsTSV: // no display name, no members
				if len(got.Teams) != 1 || got.Teams[0].Name != "Hacks" || got.Teams[0].OrganizationID != "1" || len(got.Organizations) != 1 ||
					got.Organizations[0].FormalName != "University of Amsterdam" {
					t.Errorf("got %+v", got)
				}
			}
		})
	}
}

func stripGroups(gs []Group) []Group {
	for i := range gs {
		gs[i].Line = 0
	}
	return gs
}

func eq[T any](t *testing.T, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(FormatTeamsTSV, "File_Version\t2\n1\t447\t24\tHacks\tUni\tU\tNLD\t1\n")
	f.Add(FormatCSV, "id,name,members\n1,A,ann;bob\n")
	f.Add(FormatTeamsJSON, `[{"id":"1","name":"A","group_ids":[1]}]`)
	f.Fuzz(func(t *testing.T, format, in string) {
		d, err := Parse(format, strings.NewReader(in))
		if err != nil {
			return
		}
		if err := Check(d); err != nil {
			t.Fatalf("Parse returned data that fails Check: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, format, d); err != nil {
			t.Fatal(err)
		}
	})
}

package teamfmt

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Formats, as the import and export endpoints name them.
const (
	FormatGroupsJSON        = "groups.json"
	FormatGroupsTSV         = "groups.tsv"
	FormatOrganizationsJSON = "organizations.json"
	FormatInstitutionsTSV   = "institutions.tsv"
	FormatTeamsJSON         = "teams.json"
	FormatTeamsTSV          = "teams.tsv"
	FormatCSV               = "csv"
)

// Formats lists every format.
var Formats = []string{FormatGroupsJSON, FormatGroupsTSV, FormatOrganizationsJSON, FormatInstitutionsTSV,
	FormatTeamsJSON, FormatTeamsTSV, FormatCSV}

// Limits of one import.
const (
	MaxItems     = 20000
	MaxNameLen   = 255
	MaxMembers   = 10
	MaxErrors    = 100
	MaxUsernames = 64 // bytes of one username
)

// Group is a team category.
type Group struct {
	Line      int    `json:"-"`
	ID        string `json:"id"`
	ICPCID    string `json:"icpc_id,omitempty"`
	Name      string `json:"name"`
	Hidden    bool   `json:"hidden"`
	SortOrder int    `json:"sortorder"`
}

// Organization is a team's affiliation.
type Organization struct {
	Line       int    `json:"-"`
	ID         string `json:"id"`
	ICPCID     string `json:"icpc_id,omitempty"`
	Name       string `json:"name"`
	FormalName string `json:"formal_name,omitempty"`
	Country    string `json:"country,omitempty"`
}

// Team is a team with its members' usernames.
type Team struct {
	Line           int      `json:"-"`
	ID             string   `json:"id"`
	ICPCID         string   `json:"icpc_id,omitempty"`
	Name           string   `json:"name"`
	DisplayName    string   `json:"display_name,omitempty"`
	OrganizationID string   `json:"organization_id,omitempty"`
	GroupIDs       []string `json:"group_ids"`
	Members        []string `json:"members,omitempty"`
}

// Data is what one file holds.
type Data struct {
	Groups        []Group
	Organizations []Organization
	Teams         []Team
}

// LineError is one bad line (or JSON item) of a file.
type LineError struct {
	Line    int    `json:"line"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e LineError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Field, e.Message)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, e.Field, e.Message)
}

// Errors are the bad lines of a file (at most MaxErrors).
type Errors []LineError

func (es Errors) Error() string {
	parts := make([]string, 0, min(len(es), 5))
	for i, e := range es {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(es)-5))
			break
		}
		parts = append(parts, e.Error())
	}
	return "teamfmt: " + strings.Join(parts, "; ")
}

// ErrUnknownFormat: not one of Formats.
var ErrUnknownFormat = errors.New("teamfmt: unknown format")

// identRE is a CLICS identifier (common.json#/identifier).
var identRE = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_.-]{0,34}[A-Za-z0-9_-])?$`)

// ValidID reports whether s is a CLICS identifier.
func ValidID(s string) bool { return identRE.MatchString(s) }

var countryRE = regexp.MustCompile(`^[A-Z]{3}$`)

// ValidCountry reports whether s is "" or an ISO 3166-1 alpha-3 code.
func ValidCountry(s string) bool { return s == "" || countryRE.MatchString(s) }

type checker struct{ errs Errors }

func (c *checker) add(line int, field, format string, args ...any) {
	if len(c.errs) < MaxErrors {
		c.errs = append(c.errs, LineError{Line: line, Field: field, Message: fmt.Sprintf(format, args...)})
	}
}

func (c *checker) id(line int, field, v string, required bool) {
	switch {
	case v == "" && required:
		c.add(line, field, "is required")
	case v != "" && !ValidID(v):
		c.add(line, field, "%q is not an identifier (1 to 36 of A-Z a-z 0-9 _ - ., not starting with - or .)", v)
	}
}

func (c *checker) text(line int, field, v string, required bool) {
	switch {
	case strings.TrimSpace(v) == "" && required:
		c.add(line, field, "is required")
	case !utf8.ValidString(v):
		c.add(line, field, "is not UTF-8")
	case utf8.RuneCountInString(v) > MaxNameLen:
		c.add(line, field, "is longer than %d characters", MaxNameLen)
	case strings.ContainsAny(v, "\r\n\t"):
		c.add(line, field, "contains a tab or a line break")
	}
}

func (c *checker) country(line int, field, v string) {
	if !ValidCountry(v) {
		c.add(line, field, "%q is not an ISO 3166-1 alpha-3 country code (e.g. NLD)", v)
	}
}

func (c *checker) members(line int, ms []string) {
	if len(ms) > MaxMembers {
		c.add(line, "members", "a team has at most %d members", MaxMembers)
	}
	seen := map[string]bool{}
	for _, m := range ms {
		switch {
		case m == "" || len(m) > MaxUsernames || strings.ContainsAny(m, " \t\r\n;,"):
			c.add(line, "members", "%q is not a username", m)
		case seen[m]:
			c.add(line, "members", "%q is listed twice", m)
		}
		seen[m] = true
	}
}

// Check validates data on its own: ids, names, countries, and that no id
// is given twice. It returns Errors or nil.
func Check(d *Data) error {
	var c checker
	checkInto(&c, d)
	if len(c.errs) > 0 {
		return c.errs
	}
	return nil
}

func checkInto(c *checker, d *Data) {
	seen := map[string]int{}
	dup := func(kind string, line int, id string) {
		if id == "" {
			return
		}
		if prev, ok := seen[kind+"\x00"+id]; ok {
			c.add(line, "id", "%s %q is also on line %d", kind, id, prev)
			return
		}
		seen[kind+"\x00"+id] = line
	}
	for _, g := range d.Groups {
		c.id(g.Line, "id", g.ID, true)
		c.text(g.Line, "icpc_id", g.ICPCID, false)
		c.text(g.Line, "name", g.Name, true)
		dup("group", g.Line, g.ID)
	}
	for _, o := range d.Organizations {
		c.id(o.Line, "id", o.ID, true)
		c.text(o.Line, "icpc_id", o.ICPCID, false)
		c.text(o.Line, "name", o.Name, true)
		c.text(o.Line, "formal_name", o.FormalName, false)
		c.country(o.Line, "country", o.Country)
		dup("organization", o.Line, o.ID)
	}
	for _, t := range d.Teams {
		c.id(t.Line, "id", t.ID, true)
		c.text(t.Line, "icpc_id", t.ICPCID, false)
		c.text(t.Line, "name", t.Name, true)
		c.text(t.Line, "display_name", t.DisplayName, false)
		c.id(t.Line, "organization_id", t.OrganizationID, false)
		for _, g := range t.GroupIDs {
			c.id(t.Line, "group_ids", g, true)
		}
		c.members(t.Line, t.Members)
		dup("team", t.Line, t.ID)
	}
}

// Parse reads a file of a format. Every error is a LineError inside
// Errors; a file that is no such format at all (bad JSON, a missing
// header) is one error of line 0 or 1.
func Parse(format string, r io.Reader) (*Data, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("teamfmt: read: %w", err)
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a BOM from a spreadsheet
	var d *Data
	switch format {
	case FormatGroupsJSON:
		d, err = parseGroupsJSON(b)
	case FormatOrganizationsJSON:
		d, err = parseOrganizationsJSON(b)
	case FormatTeamsJSON:
		d, err = parseTeamsJSON(b)
	case FormatGroupsTSV, FormatInstitutionsTSV, FormatTeamsTSV:
		d, err = parseTSV(format, b)
	case FormatCSV:
		d, err = parseCSV(b)
	default:
		return nil, fmt.Errorf("%w %q (one of %s)", ErrUnknownFormat, format, strings.Join(Formats, ", "))
	}
	if err != nil {
		return nil, err
	}
	if n := len(d.Groups) + len(d.Organizations) + len(d.Teams); n > MaxItems {
		return nil, Errors{{Field: "file", Message: fmt.Sprintf("%d items; at most %d per import", n, MaxItems)}}
	}
	if err := Check(d); err != nil {
		return nil, err
	}
	return d, nil
}

// jsonItems splits a JSON array into its items (each checked on its own,
// so one bad item names its index).
func jsonItems(b []byte) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return nil, Errors{{Line: 0, Field: "file", Message: "is not a JSON array: " + err.Error()}}
	}
	return items, nil
}

// flexString reads a JSON string or number (DOMjudge's files give
// numeric ids either way).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = flexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("is not a string or a number")
	}
	*f = flexString(n.String())
	return nil
}

func decodeItem(c *checker, line int, raw json.RawMessage, v any) bool {
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			c.add(line, te.Field, "is not a %s", te.Type.String())
		} else {
			c.add(line, "item", "%s", err.Error())
		}
		return false
	}
	return true
}

func parseGroupsJSON(b []byte) (*Data, error) {
	items, err := jsonItems(b)
	if err != nil {
		return nil, err
	}
	var c checker
	d := &Data{}
	for i, raw := range items {
		var g struct {
			ID        flexString `json:"id"`
			ICPCID    flexString `json:"icpc_id"`
			Name      string     `json:"name"`
			Hidden    bool       `json:"hidden"`
			SortOrder int        `json:"sortorder"`
		}
		if decodeItem(&c, i+1, raw, &g) {
			d.Groups = append(d.Groups, Group{Line: i + 1, ID: string(g.ID), ICPCID: string(g.ICPCID), Name: g.Name,
				Hidden: g.Hidden, SortOrder: g.SortOrder})
		}
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return d, nil
}

func parseOrganizationsJSON(b []byte) (*Data, error) {
	items, err := jsonItems(b)
	if err != nil {
		return nil, err
	}
	var c checker
	d := &Data{}
	for i, raw := range items {
		var o struct {
			ID         flexString `json:"id"`
			ICPCID     flexString `json:"icpc_id"`
			Name       string     `json:"name"`
			FormalName *string    `json:"formal_name"`
			Country    *string    `json:"country"`
		}
		if decodeItem(&c, i+1, raw, &o) {
			org := Organization{Line: i + 1, ID: string(o.ID), ICPCID: string(o.ICPCID), Name: o.Name}
			if o.FormalName != nil {
				org.FormalName = *o.FormalName
			}
			if o.Country != nil {
				org.Country = *o.Country
			}
			d.Organizations = append(d.Organizations, org)
		}
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return d, nil
}

func parseTeamsJSON(b []byte) (*Data, error) {
	items, err := jsonItems(b)
	if err != nil {
		return nil, err
	}
	var c checker
	d := &Data{}
	for i, raw := range items {
		var t struct {
			ID             flexString   `json:"id"`
			ICPCID         flexString   `json:"icpc_id"`
			Name           string       `json:"name"`
			DisplayName    *string      `json:"display_name"`
			OrganizationID flexString   `json:"organization_id"`
			GroupIDs       []flexString `json:"group_ids"`
			Members        []string     `json:"members"`
		}
		if !decodeItem(&c, i+1, raw, &t) {
			continue
		}
		team := Team{Line: i + 1, ID: string(t.ID), ICPCID: string(t.ICPCID), Name: t.Name,
			OrganizationID: string(t.OrganizationID), GroupIDs: []string{}, Members: t.Members}
		if t.DisplayName != nil {
			team.DisplayName = *t.DisplayName
		}
		for _, g := range t.GroupIDs {
			team.GroupIDs = append(team.GroupIDs, string(g))
		}
		d.Teams = append(d.Teams, team)
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return d, nil
}

// tsvLines splits a file into its lines' tab-separated fields with
// their line numbers, skipping empty lines.
func tsvLines(b []byte) ([][]string, []int, error) {
	var rows [][]string
	var nums []int
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		fs := strings.Split(line, "\t")
		for i := range fs {
			fs[i] = strings.TrimSpace(fs[i])
		}
		rows = append(rows, fs)
		nums = append(nums, n)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, Errors{{Line: n + 1, Field: "file", Message: err.Error()}}
	}
	return rows, nums, nil
}

// tsvHeaders are the first lines each TSV format accepts (the first
// field, case-insensitive, then the versions).
var tsvHeaders = map[string]struct {
	names    []string
	versions []string
	columns  []string
}{
	FormatGroupsTSV:       {[]string{"file_version", "groups"}, []string{"1"}, []string{"id", "name"}},
	FormatInstitutionsTSV: {[]string{"file_version", "institutions"}, []string{"1"}, []string{"id", "formal_name", "name", "country"}},
	FormatTeamsTSV: {[]string{"file_version", "teams"}, []string{"1", "2"}, []string{"id", "icpc_id", "group_ids", "name",
		"organization.formal_name", "organization.name", "organization.country", "organization_id"}},
}

func parseTSV(format string, b []byte) (*Data, error) {
	rows, nums, err := tsvLines(b)
	if err != nil {
		return nil, err
	}
	h := tsvHeaders[format]
	if len(rows) == 0 || len(rows[0]) < 2 || !slices.Contains(h.names, strings.ToLower(rows[0][0])) ||
		!slices.Contains(h.versions, rows[0][1]) {
		line := 1
		if len(nums) > 0 {
			line = nums[0]
		}
		return nil, Errors{{Line: line, Field: "header", Message: fmt.Sprintf("the first line must be %q then a tab and the version (%s)",
			"File_Version", strings.Join(h.versions, " or "))}}
	}
	var c checker
	d := &Data{}
	orgs := map[string]int{} // teams.tsv: an institution once
	for i, fs := range rows[1:] {
		line := nums[i+1]
		if len(fs) < len(h.columns) {
			// teams.tsv's institution columns may be left off.
			min := len(h.columns)
			if format == FormatTeamsTSV {
				min = 4
			}
			if len(fs) < min {
				c.add(line, h.columns[len(fs)], "is missing: a line has %d tab-separated fields (%s)", len(h.columns), strings.Join(h.columns, ", "))
				continue
			}
			fs = append(fs, make([]string, len(h.columns)-len(fs))...)
		}
		switch format {
		case FormatGroupsTSV:
			d.Groups = append(d.Groups, Group{Line: line, ID: fs[0], Name: fs[1]})
		case FormatInstitutionsTSV:
			d.Organizations = append(d.Organizations, Organization{Line: line, ID: fs[0], FormalName: fs[1], Name: fs[2],
				Country: strings.ToUpper(fs[3])})
		case FormatTeamsTSV:
			t := Team{Line: line, ID: fs[0], ICPCID: fs[1], Name: fs[3], GroupIDs: []string{}}
			if fs[2] != "" {
				t.GroupIDs = append(t.GroupIDs, fs[2])
			}
			if oid := fs[7]; oid != "" {
				t.OrganizationID = oid
				if _, ok := orgs[oid]; !ok {
					orgs[oid] = line
					name := fs[5]
					if name == "" {
						name = fs[4]
					}
					d.Organizations = append(d.Organizations, Organization{Line: line, ID: oid, Name: name, FormalName: fs[4],
						Country: strings.ToUpper(fs[6])})
				}
			} else if fs[4] != "" || fs[5] != "" {
				c.add(line, "organization_id", "the institution's id (the 8th field) is required when it has a name")
			}
			d.Teams = append(d.Teams, t)
		}
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return d, nil
}

// csvColumns are the columns of the CSV format.
var csvColumns = []string{"id", "name", "display_name", "organization_id", "groups", "members"}

func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ' ' || r == ',' })
}

func parseCSV(b []byte) (*Data, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	head, err := r.Read()
	if err != nil {
		return nil, Errors{{Line: 1, Field: "header", Message: "the first line must name the columns (" + strings.Join(csvColumns, ",") + ")"}}
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains(csvColumns, h) {
			return nil, Errors{{Line: 1, Field: "header", Message: fmt.Sprintf("unknown column %q (columns: %s)", h, strings.Join(csvColumns, ", "))}}
		}
		if _, dup := col[h]; dup {
			return nil, Errors{{Line: 1, Field: "header", Message: fmt.Sprintf("column %q twice", h)}}
		}
		col[h] = i
	}
	for _, need := range []string{"id", "name"} {
		if _, ok := col[need]; !ok {
			return nil, Errors{{Line: 1, Field: "header", Message: fmt.Sprintf("column %q is required", need)}}
		}
	}
	var c checker
	d := &Data{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				c.add(pe.Line, "line", "%s", pe.Err.Error())
				if len(c.errs) >= MaxErrors {
					break
				}
				continue
			}
			return nil, fmt.Errorf("teamfmt: csv: %w", err)
		}
		if len(rec) == 0 || (len(rec) == 1 && strings.TrimSpace(rec[0]) == "") {
			continue
		}
		line, _ := r.FieldPos(0)
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		t := Team{Line: line, ID: get("id"), Name: get("name"), DisplayName: get("display_name"),
			OrganizationID: get("organization_id"), GroupIDs: append([]string{}, splitList(get("groups"))...)}
		if _, ok := col["members"]; ok { // no members column: the members stay as they are
			t.Members = append([]string{}, splitList(get("members"))...)
		}
		d.Teams = append(d.Teams, t)
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return d, nil
}

// Write writes data in a format: the groups of a groups format, the
// organisations of an organisations format, the teams (and for teams.tsv
// their organisations, looked up in d) of a teams format.
func Write(w io.Writer, format string, d *Data) error {
	var err error
	switch format {
	case FormatGroupsJSON:
		err = writeJSON(w, nonNil(d.Groups))
	case FormatOrganizationsJSON:
		err = writeJSON(w, nonNil(d.Organizations))
	case FormatTeamsJSON:
		ts := nonNil(d.Teams)
		for i := range ts {
			if ts[i].GroupIDs == nil {
				ts[i].GroupIDs = []string{}
			}
		}
		err = writeJSON(w, ts)
	case FormatGroupsTSV:
		var b strings.Builder
		b.WriteString("File_Version\t1\n")
		for _, g := range d.Groups {
			b.WriteString(tsv(g.ID, g.Name))
		}
		_, err = io.WriteString(w, b.String())
	case FormatInstitutionsTSV:
		var b strings.Builder
		b.WriteString("File_Version\t1\n")
		for _, o := range d.Organizations {
			b.WriteString(tsv(o.ID, o.FormalName, o.Name, o.Country))
		}
		_, err = io.WriteString(w, b.String())
	case FormatTeamsTSV:
		orgs := map[string]Organization{}
		for _, o := range d.Organizations {
			orgs[o.ID] = o
		}
		var b strings.Builder
		b.WriteString("File_Version\t2\n")
		for _, t := range d.Teams {
			g := ""
			if len(t.GroupIDs) > 0 {
				g = t.GroupIDs[0] // teams.tsv has one category per team
			}
			o := orgs[t.OrganizationID]
			b.WriteString(tsv(t.ID, t.ICPCID, g, t.Name, o.FormalName, o.Name, o.Country, t.OrganizationID))
		}
		_, err = io.WriteString(w, b.String())
	case FormatCSV:
		cw := csv.NewWriter(w)
		_ = cw.Write(csvColumns)
		for _, t := range d.Teams {
			_ = cw.Write([]string{t.ID, t.Name, t.DisplayName, t.OrganizationID,
				strings.Join(t.GroupIDs, ";"), strings.Join(t.Members, ";")})
		}
		cw.Flush()
		err = cw.Error()
	default:
		return fmt.Errorf("%w %q (one of %s)", ErrUnknownFormat, format, strings.Join(Formats, ", "))
	}
	if err != nil {
		return fmt.Errorf("teamfmt: write %s: %w", format, err)
	}
	return nil
}

func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return slices.Clone(xs)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// tsv is one line of fields; a tab or line break inside a field (none
// passes Check) becomes a space.
func tsv(fs ...string) string {
	for i, f := range fs {
		fs[i] = strings.NewReplacer("\t", " ", "\r", " ", "\n", " ").Replace(f)
	}
	return strings.Join(fs, "\t") + "\n"
}

// SortGroups orders groups by sort order, then id (numeric ids by
// value).
func SortGroups(gs []Group) {
	slices.SortFunc(gs, func(a, b Group) int {
		if a.SortOrder != b.SortOrder {
			return a.SortOrder - b.SortOrder
		}
		return CompareIDs(a.ID, b.ID)
	})
}

// CompareIDs orders ids numerically when both are numbers, else as
// strings.
func CompareIDs(a, b string) int {
	x, e1 := strconv.ParseInt(a, 10, 64)
	y, e2 := strconv.ParseInt(b, 10, 64)
	if e1 == nil && e2 == nil {
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return strings.Compare(a, b)
}

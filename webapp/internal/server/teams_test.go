package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// teamEnv: the running ICPC contest c1 of ccsEnv made a team contest
// with groups "participants" and "observers" (hidden), the organisation
// "uva" and teams t1 (alice, bob: participants, uva), t2 (carol:
// participants) and t3 (olga: observers).
type teamEnv struct {
	*ccsEnv
	carol, olga *client
}

func newTeamEnv(t *testing.T) *teamEnv {
	t.Helper()
	now := time.Now()
	te := &teamEnv{ccsEnv: newCCSEnv(t, now.Add(-time.Hour), now.Add(time.Hour), 0, nil)}
	te.carol, te.olga = te.student("carol"), te.student("olga")
	if r := te.admin.call("PUT", "/api/contests/c1/team-mode", map[string]any{"enabled": true}); r.status != 200 {
		t.Fatalf("team mode: %d %s", r.status, r.raw)
	}
	te.importOK("groups.json", `[{"id":"participants","name":"Participants"},{"id":"observers","name":"Observers","hidden":true,"sortorder":9}]`)
	te.importOK("organizations.json", `[{"id":"uva","name":"UvA","formal_name":"University of Amsterdam","country":"NLD"}]`)
	te.importOK("teams.json", `[
		{"id":"t1","name":"Hacks","display_name":"Hacks!","organization_id":"uva","group_ids":["participants"],"members":["alice","bob"]},
		{"id":"t2","name":"Solo","group_ids":["participants"],"members":["carol"]},
		{"id":"t3","name":"Watchers","group_ids":["observers"],"members":["olga"]}]`)
	return te
}

func (te *teamEnv) importFile(format, body string) resp {
	te.t.Helper()
	ct := "text/plain"
	if strings.HasSuffix(format, ".json") {
		ct = "application/json"
	}
	return te.admin.upload("/api/contests/c1/teams/import?format="+format, "file", []byte(body), ct)
}

func (te *teamEnv) importOK(format, body string) resp {
	te.t.Helper()
	r := te.importFile(format, body)
	if r.status != 200 {
		te.t.Fatalf("import %s: %d %s", format, r.status, r.raw)
	}
	return r
}

func (te *teamEnv) board(c *client, query string) map[string]any {
	te.t.Helper()
	r := c.do("GET", "/api/contests/c1/scoreboard"+query, nil)
	if r.status != 200 {
		te.t.Fatalf("board%s: %d %s", query, r.status, r.raw)
	}
	return r.body
}

func boardRows(doc map[string]any) []map[string]any {
	var out []map[string]any
	rows, _ := doc["rows"].([]any)
	for _, r := range rows {
		out = append(out, r.(map[string]any))
	}
	return out
}

func rowNames(doc map[string]any) []string {
	var out []string
	for _, r := range boardRows(doc) {
		out = append(out, fmt.Sprint(r["user"]))
	}
	return out
}

// Two members of one team submit: one row, the team's, whose penalty
// counts both members' tries; a hidden group's team is on the staff
// board only; a group's board ranks its teams among themselves.
func TestTeamContestScoring(t *testing.T) {
	te := newTeamEnv(t)
	a1 := te.submit(te.alice, "a1") // alice: WA
	te.judge(a1, 1, protocol.VerdictWA, 2)
	b1 := te.submit(te.bob, "b1") // bob, same team: WA, then AC
	te.judge(b1, 1, protocol.VerdictWA, 2)
	b2 := te.submit(te.bob, "b2")
	te.judge(b2, 1, protocol.VerdictAC, 3)
	o1 := te.submit(te.olga, "o1") // the observer: AC first of all? no: after; still hidden
	te.judge(o1, 1, protocol.VerdictAC, 3)
	c1 := te.submit(te.carol, "c1") // carol: WA
	te.judge(c1, 1, protocol.VerdictWA, 1)
	te.consume()

	// A student on no team cannot submit in a team contest.
	dan := te.student("dan")
	r := dan.submit("d1", map[string]any{"problem": "a-plus-b", "contest": "c1", "language": "py3", "source": "print(1)"})
	wantErr(t, r, http.StatusForbidden, CodeForbidden, "contest")

	anon := te.client()
	pub := te.board(anon, "")
	if got := rowNames(pub); strings.Join(got, ",") != "t1,t2" {
		t.Fatalf("public board rows %v, want t1,t2 (t3 is hidden): %v", got, pub)
	}
	row := boardRows(pub)[0]
	cell := row["problems"].(map[string]any)["A"].(map[string]any)
	// Solved at minute ~60 after two rejected tries (alice's and bob's).
	if row["display_name"] != "Hacks!" || row["team_id"] != "t1" || row["affiliation"] != "UvA" || row["solved"] != float64(1) ||
		cell["attempts"] != float64(3) || row["penalty"].(float64) < 40+59 || cell["first_blood"] != true {
		t.Errorf("team row %v", row)
	}
	staff := te.board(te.admin, "")
	if got := rowNames(staff); strings.Join(got, ",") != "t1,t3,t2" && strings.Join(got, ",") != "t3,t1,t2" {
		t.Errorf("staff board rows %v, want t1, t3 and t2", got)
	}
	// Per group: the observers' board is staff's; a group's teams rank among themselves.
	if got := rowNames(te.board(anon, "?group=participants")); strings.Join(got, ",") != "t1,t2" {
		t.Errorf("participants' board %v", got)
	}
	if g := te.board(te.admin, "?group=observers"); strings.Join(rowNames(g), ",") != "t3" || boardRows(g)[0]["rank"] != float64(1) {
		t.Errorf("observers' board (staff) %v", g)
	}
	wantErr(t, anon.do("GET", "/api/contests/c1/scoreboard?group=observers", nil), http.StatusNotFound, CodeNotFound, "group")
	wantErr(t, anon.do("GET", "/api/contests/c1/scoreboard?group=nope", nil), http.StatusNotFound, CodeNotFound, "group")

	// The public CLICS scoreboard leaves the hidden team off too; staff's has it.
	base := te.ts.URL + "/api/ccs"
	for _, tc := range []struct {
		authz string
		want  string
	}{{basic("alice", te.publicTok), "t1,t2"}, {bearer(te.staffTok), "t1,t3,t2"}} {
		st, b, _ := ccsGet(t, base, "/contests/c1/scoreboard", tc.authz)
		var sb struct {
			Rows []struct {
				TeamID string `json:"team_id"`
			} `json:"rows"`
		}
		if st != 200 || json.Unmarshal(b, &sb) != nil {
			t.Fatalf("ccs scoreboard: %d %s", st, b)
		}
		var ids []string
		for _, r := range sb.Rows {
			ids = append(ids, r.TeamID)
		}
		if got := strings.Join(ids, ","); got != tc.want && !(tc.want == "t1,t3,t2" && got == "t3,t1,t2") {
			t.Errorf("ccs scoreboard rows %s, want %s", got, tc.want)
		}
	}
	st, b, _ := ccsGet(t, base, "/contests/c1/scoreboard?group_id=participants", basic("alice", te.publicTok))
	if st != 200 || !strings.Contains(string(b), `"team_id":"t1"`) || strings.Contains(string(b), `"team_id":"t3"`) {
		t.Errorf("ccs group scoreboard: %d %s", st, b)
	}

	// Submissions belong to the team in the API.
	st, b, _ = ccsGet(t, base, fmt.Sprintf("/contests/c1/submissions/%d", a1), bearer(te.staffTok))
	if st != 200 || !strings.Contains(string(b), `"team_id":"t1"`) {
		t.Errorf("alice's submission: %d %s", st, b)
	}
	// The public does not see the hidden team's submission.
	if st, _, _ := ccsGet(t, base, fmt.Sprintf("/contests/c1/submissions/%d", o1), basic("alice", te.publicTok)); st != 404 {
		t.Errorf("hidden team's submission for the public: %d", st)
	}

	// The CSV export lists every team (t3 too: it is staff's), no user.
	got := te.getCSV(te.admin, "c1")
	if got.status != 200 || len(got.records) != 4 {
		t.Fatalf("csv: %d %v", got.status, got.records)
	}
	csvText := fmt.Sprint(got.records[1:])
	for _, want := range []string{"Hacks!", "Solo", "Watchers"} {
		if !strings.Contains(csvText, want) {
			t.Errorf("csv has no %s: %v", want, got.records)
		}
	}
	if strings.Contains(csvText, "alice") {
		t.Errorf("csv lists a member as a row: %v", got.records)
	}

	// Back to an individual contest: the rows are users again.
	if r := te.admin.call("PUT", "/api/contests/c1/team-mode", map[string]any{"enabled": false}); r.status != 200 {
		t.Fatalf("team mode off: %d %s", r.status, r.raw)
	}
	if got := rowNames(te.board(te.admin, "")); len(got) != 4 {
		t.Errorf("individual board rows %v, want alice, bob, carol, olga", got)
	}
}

// Every format imports, bad lines are named and nothing is written, and
// an export reads back.
func TestTeamImportFormats(t *testing.T) {
	te := newTeamEnv(t)
	te.student("dave")
	for _, tc := range []struct{ format, body string }{
		{"groups.tsv", "File_Version\t1\nregion-n\tNorth\nregion-s\tSouth\n"},
		{"institutions.tsv", "File_Version\t1\nkth\tKungliga Tekniska högskolan\tKTH\tSWE\n"},
		{"teams.tsv", "File_Version\t2\n10\t447\tregion-n\tNorthern Lights\tLund University\tLU\tSWE\tlu\n"},
		{"csv", "id,name,display_name,organization_id,groups,members\n11,Southerners,,kth,region-s participants,dave\n"},
	} {
		r := te.importOK(tc.format, tc.body)
		if r.body["format"] != tc.format {
			t.Errorf("%s: %s", tc.format, r.raw)
		}
	}
	r := te.admin.call("GET", "/api/contests/c1/teams", nil)
	if r.status != 200 {
		t.Fatalf("teams: %d %s", r.status, r.raw)
	}
	var got TeamsJSON
	_ = json.Unmarshal([]byte(r.raw), &got)
	if !got.TeamMode || len(got.Groups) != 4 || len(got.Organizations) != 3 || len(got.Teams) != 5 {
		t.Fatalf("after the imports: %s", r.raw)
	}
	byID := map[string]TeamJSON{}
	for _, tm := range got.Teams {
		byID[tm.ID] = tm
	}
	if tm := byID["10"]; tm.Organization != "LU" || tm.GroupIDs[0] != "region-n" || *tm.ICPCID != "447" {
		t.Errorf("teams.tsv team %+v", tm)
	}
	if tm := byID["11"]; len(tm.Members) != 1 || tm.Members[0].Username != "dave" || len(tm.GroupIDs) != 2 {
		t.Errorf("csv team %+v", tm)
	}

	// Bad lines: each named, nothing written.
	before := te.count("teams")
	for _, tc := range []struct {
		format, body string
		line         int
		field        string
	}{
		{"teams.tsv", "File_Version\t2\n20\t\tregion-n\tOK\n21\t\tno-such-group\tBad group\n", 3, "group_ids"},
		{"csv", "id,name,members\n22,A,nobody\n", 2, "members"},
		{"csv", "id,name,members\n23,A,alice\n", 2, "members"}, // alice is on t1
		{"teams.json", `[{"id":"24","name":"A","organization_id":"nowhere"}]`, 1, "organization_id"},
		{"groups.json", `[{"id":"x y","name":"A"}]`, 1, "id"},
		{"institutions.tsv", "File_Version\t1\nq\tQ\tQ\tQQ\n", 2, "country"},
		{"teams.tsv", "teams\t9\n", 1, "header"},
	} {
		r := te.importFile(tc.format, tc.body)
		errs, _ := r.body["errors"].([]any)
		if r.status != 400 || len(errs) != 1 {
			t.Errorf("%s %q: %d %s", tc.format, tc.body, r.status, r.raw)
			continue
		}
		e := errs[0].(map[string]any)
		if e["line"] != float64(tc.line) || e["field"] != tc.field || e["message"] == "" {
			t.Errorf("%s: error %v, want line %d field %s", tc.format, e, tc.line, tc.field)
		}
	}
	if te.count("teams") != before {
		t.Errorf("a rejected import wrote teams")
	}
	// A file may move a member between two teams it lists.
	te.importOK("teams.json", `[{"id":"t1","name":"Hacks","display_name":"Hacks!","organization_id":"uva","group_ids":["participants"],"members":["alice"]},
		{"id":"t2","name":"Solo","group_ids":["participants"],"members":["carol","bob"]}]`)
	if r := te.admin.call("GET", "/api/contests/c1/teams", nil); !strings.Contains(r.raw, `"username":"bob"`) ||
		strings.Count(r.raw, `"username":"alice"`) != 1 {
		t.Errorf("after the move: %s", r.raw)
	}
	wantErr(t, te.admin.upload("/api/contests/c1/teams/import?format=teams.xml", "file", []byte("x"), "text/plain"),
		http.StatusBadRequest, CodeValidation, "format")
	wantErr(t, te.alice.upload("/api/contests/c1/teams/import?format=csv", "file", []byte("id,name\n1,A\n"), "text/plain"),
		http.StatusForbidden, CodeForbidden, "")

	// Export: each format reads back into an equal contest.
	for _, format := range []string{"teams.json", "csv", "groups.json", "organizations.json", "teams.tsv", "groups.tsv", "institutions.tsv"} {
		r := te.admin.call("GET", "/api/contests/c1/teams/export?format="+format, nil)
		if r.status != 200 || r.header.Get("Content-Disposition") == "" {
			t.Fatalf("export %s: %d %s", format, r.status, r.raw)
		}
		if format == "teams.json" && (!strings.Contains(r.raw, `"members": [`) || !strings.Contains(r.raw, `"alice"`)) {
			t.Errorf("teams.json export: %s", r.raw)
		}
		te.importOK(format, r.raw) // what was exported imports again
	}
	r = te.admin.call("GET", "/api/contests/c1/teams", nil)
	var again TeamsJSON
	_ = json.Unmarshal([]byte(r.raw), &again)
	if len(again.Teams) != 5 || len(again.Groups) != 4 || len(again.Organizations) != 3 {
		t.Errorf("after re-importing the exports: %s", r.raw)
	}

	// Deletions: a team that submitted stays.
	id := te.submit(te.carol, "c1")
	te.judge(id, 1, protocol.VerdictWA, 1)
	te.consume()
	wantErr(t, te.admin.call("DELETE", "/api/contests/c1/teams/t2", nil), http.StatusConflict, CodeConflict, "id")
	if r := te.admin.call("DELETE", "/api/contests/c1/teams/10", nil); r.status != http.StatusNoContent {
		t.Errorf("delete team: %d %s", r.status, r.raw)
	}
	wantErr(t, te.admin.call("DELETE", "/api/contests/c1/teams/10", nil), http.StatusNotFound, CodeNotFound, "")
	if r := te.admin.call("DELETE", "/api/contests/c1/groups/region-n", nil); r.status != http.StatusNoContent {
		t.Errorf("delete group: %d %s", r.status, r.raw)
	}
}

// The CLICS groups, organizations, teams and team-members endpoints and
// their events, in the spec's shapes; hidden objects are staff's.
func TestTeamCCSShapes(t *testing.T) {
	te := newTeamEnv(t)
	a1 := te.submit(te.alice, "a1")
	te.judge(a1, 1, protocol.VerdictAC, 2)
	te.consume()
	base := te.ts.URL + "/api/ccs"
	// A member's question is from their team, in the REST API and the feed.
	fc := openFeed(t, te.ts.URL, "", bearer(te.staffTok))
	fc.until(hasToken)
	if r := te.bob.call("POST", "/api/contests/c1/clarifications", map[string]any{"question": "Is n > 0?"}); r.status != http.StatusCreated {
		t.Fatalf("ask: %d %s", r.status, r.raw)
	}
	evs := fc.until(func(ev map[string]any) bool { return ev["type"] == "clarifications" })
	if d := evs[len(evs)-1]["data"].(map[string]any); d["from_team_id"] != "t1" {
		t.Errorf("the feed's clarification %v is not from t1", d)
	}
	fc.close()
	st, b, _ := ccsGet(t, base, "/contests/c1/clarifications", bearer(te.staffTok))
	if st != 200 || !strings.Contains(string(b), `"from_team_id":"t1"`) {
		t.Errorf("clarifications: %d %s", st, b)
	}
	for _, who := range []struct {
		name, authz string
		staff       bool
	}{{"staff", bearer(te.staffTok), true}, {"public", basic("alice", te.publicTok), false}} {
		counts := map[string]int{}
		for _, typ := range []string{"groups", "organizations", "teams", "team-members"} {
			st, b, _ := ccsGet(t, base, "/contests/c1/"+typ, who.authz)
			if typ == "team-members" && !who.staff {
				if st != 403 {
					t.Errorf("public team-members: %d", st)
				}
				continue
			}
			var list []any
			if st != 200 || json.Unmarshal(b, &list) != nil {
				t.Fatalf("%s %s: %d %s", who.name, typ, st, b)
			}
			counts[typ] = len(list)
			for i, o := range list {
				checkShape(t, typ, o, fmt.Sprintf("%s %s[%d]", who.name, typ, i))
			}
		}
		// The public: t1, t2 and t9 (imported in the staff round), not t3.
		want := map[string]int{"groups": 1, "organizations": 1, "teams": 3}
		if who.staff {
			want = map[string]int{"groups": 2, "organizations": 1, "teams": 3, "team-members": 4}
		}
		for k, n := range want {
			if counts[k] != n {
				t.Errorf("%s: %s %d, want %d (%v)", who.name, k, counts[k], n, counts)
			}
		}
		st, b, _ := ccsGet(t, base, "/contests/c1/teams/t1", who.authz)
		var team map[string]any
		_ = json.Unmarshal(b, &team)
		if st != 200 || team["organization_id"] != "uva" || fmt.Sprint(team["group_ids"]) != "[participants]" || team["display_name"] != "Hacks!" {
			t.Errorf("%s team t1: %d %s", who.name, st, b)
		}
		// The feed's snapshot has them, before the submissions naming them.
		fc := openFeed(t, te.ts.URL, "", who.authz)
		evs := fc.until(hasToken)
		types := map[string]int{}
		for i, ev := range evs {
			typ := ev["type"].(string)
			types[typ]++
			checkEvent(t, ev, fmt.Sprintf("%s event %d", who.name, i))
			if typ == "submissions" && types["teams"] == 0 {
				t.Errorf("%s: a submission before any team", who.name)
			}
		}
		if types["groups"] != want["groups"] || types["organizations"] != 1 || types["teams"] != want["teams"] ||
			types["team-members"] != want["team-members"] {
			t.Errorf("%s: snapshot types %v", who.name, types)
		}
		// An import reaches the open feed at once.
		te.importOK("teams.json", `[{"id":"t9","name":"Late","group_ids":["participants"]}]`)
		live := fc.until(isEvent("teams", "t9"))
		checkEvent(t, live[len(live)-1], who.name+" live team")
		fc.close()
	}
}

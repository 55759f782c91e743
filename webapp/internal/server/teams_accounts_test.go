package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestAccountsImportExport: accounts.tsv creates the users of a team
// contest with their passwords and roles, puts each team account on the
// team its username names (team-nnn) and registers it; judges become
// setters; a bad line imports nothing; accounts.json does the same by
// team_id, and makes up passwords it lacks; the export lists the team
// accounts, passwords empty.
func TestAccountsImportExport(t *testing.T) {
	te := newTeamEnv(t)
	te.importOK("teams.json", `[{"id":"22","name":"Twenty-two","group_ids":["participants"]},{"id":"7","name":"Seven","group_ids":["participants"]}]`)
	// Every bad line is named; nothing is written.
	r := te.importFile("accounts.tsv", "accounts\t1\nteam\tTwenty-two\tteam-022\tpassword-22\nteam\tNobody\tteam-099\tpassword-99\n"+
		"analyst\tAnna\tanna\tpassword-an\njudge\tBad\tBad Name\tpassword-bn\nteam\tAlice\tteam-7\tshort\n")
	if r.status != 400 {
		t.Fatalf("bad accounts: %d %s", r.status, r.raw)
	}
	var errs struct {
		Errors []struct {
			Line  int    `json:"line"`
			Field string `json:"field"`
		} `json:"errors"`
	}
	_ = json.Unmarshal([]byte(r.raw), &errs)
	var where []string
	for _, e := range errs.Errors {
		where = append(where, e.Field)
	}
	if strings.Join(where, ",") != "team_id,type,username,password" {
		t.Errorf("errors %s", r.raw)
	}
	if _, err := te.st.UserByUsername(t.Context(), "team-022"); err == nil {
		t.Fatal("a rejected file created a user")
	}
	// A good file.
	r = te.importOK("accounts.tsv", "accounts\t1\nteam\tTwenty-two\tteam-022\tpassword-22\njudge\tPer Austrin\taustrin\tB!5MWJiy-x\n")
	if r.body["created"] != float64(2) || r.body["members"] != float64(1) || r.body["registered"] != float64(1) {
		t.Errorf("import: %s", r.raw)
	}
	u, err := te.st.UserByUsername(t.Context(), "team-022")
	if err != nil || u.Role != store.RoleStudent || u.DisplayName != "Twenty-two" {
		t.Fatalf("team-022: %+v %v", u, err)
	}
	if j, err := te.st.UserByUsername(t.Context(), "austrin"); err != nil || j.Role != store.RoleSetter {
		t.Errorf("the judge: %+v %v", j, err)
	}
	if tm, err := te.st.TeamOfUser(t.Context(), te.cid, u.ID); err != nil || tm.ExtID != "22" {
		t.Errorf("team-022's team: %+v %v", tm, err)
	}
	c := te.e().client()
	if r := c.login("team-022", "password-22"); r.status != 200 {
		t.Errorf("team-022 logs in: %d %s", r.status, r.raw)
	}
	// accounts.json: by team_id; a password made up; an account on
	// another team refused.
	wantErr(t, te.importFile("accounts.json", `[{"username":"alice","type":"team","team_id":"7"}]`), 400, CodeValidation, "username")
	r = te.importOK("accounts.json", `[{"id":"s7","username":"seven","type":"team","team_id":7,"name":"Seven's member"}]`)
	pw, _ := r.body["passwords"].(map[string]any)["seven"].(string)
	if pw == "" || r.body["members"] != float64(1) {
		t.Fatalf("accounts.json: %s", r.raw)
	}
	if r := te.e().client().login("seven", pw); r.status != 200 {
		t.Errorf("seven logs in with the made-up password: %d", r.status)
	}
	// Only admins import.
	if r := te.alice.upload("/api/contests/c1/teams/import?format=accounts.tsv", "file", []byte("accounts\t1\n"), "text/plain"); r.status != 403 {
		t.Errorf("a student imports accounts: %d", r.status)
	}
	// The export: the team accounts with their teams, no passwords.
	ex := te.admin.do("GET", "/api/contests/c1/teams/export?format=accounts.tsv", nil)
	if ex.status != 200 || !strings.HasPrefix(ex.raw, "accounts\t1\n") || !strings.Contains(ex.raw, "team\tTwenty-two\tteam-022\t\n") ||
		!strings.Contains(ex.raw, "team\talice\talice\t\n") || strings.Contains(ex.raw, "password-22") || strings.Contains(ex.raw, "austrin") {
		t.Errorf("accounts.tsv export: %d %q", ex.status, ex.raw)
	}
	ex = te.admin.do("GET", "/api/contests/c1/teams/export?format=accounts.json", nil)
	if ex.status != 200 || !strings.Contains(ex.raw, `"team_id": "22"`) || strings.Contains(ex.raw, `"password"`) {
		t.Errorf("accounts.json export: %d %s", ex.status, ex.raw)
	}
}

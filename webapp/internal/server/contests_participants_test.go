package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// participantNames lists a contest's participants through the API.
func participantNames(t *testing.T, c *client, slug string) []string {
	t.Helper()
	r := c.call("GET", "/api/contests/"+slug+"/participants", nil)
	if r.status != 200 {
		t.Fatalf("participants: %d %s", r.status, r.raw)
	}
	list, ok := r.body["participants"].([]any)
	if !ok {
		t.Fatalf("participants is not a list: %s", r.raw)
	}
	names := []string{}
	for _, x := range list {
		p := x.(map[string]any)
		if id, _ := p["user_id"].(float64); id < 1 {
			t.Fatalf("participant without user_id: %v", p)
		}
		if _, err := time.Parse(time.RFC3339, fmt.Sprint(p["registered_at"])); err != nil {
			t.Fatalf("registered_at %v: %v", p["registered_at"], err)
		}
		names = append(names, p["username"].(string))
	}
	return names
}

// boardUsers returns the users of a scoreboard document's rows.
func boardUsers(t *testing.T, c *client, slug string) []string {
	t.Helper()
	r := c.do("GET", "/api/contests/"+slug+"/scoreboard", nil)
	if r.status != 200 {
		t.Fatalf("scoreboard: %d %s", r.status, r.raw)
	}
	var out []string
	for _, row := range r.body["rows"].([]any) {
		out = append(out, row.(map[string]any)["user"].(string))
	}
	slices.Sort(out)
	return out
}

func TestParticipantsAPI(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	if err := je.q.EnsureResultsGroup(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	cid, err := je.st.CreateContest(ctx, store.Contest{Slug: "closed", Title: "Closed", Rule: "icpc",
		StartAt: now.Add(-time.Hour), EndAt: now.Add(time.Hour), Registration: store.RegistrationList, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := je.st.AddContestProblem(ctx, cid, je.problem.ID, "A", 100); err != nil {
		t.Fatal(err)
	}
	login := func(name, role string) *client {
		je.user(name, role, name+"-password")
		c := je.client()
		if r := c.login(name, name+"-password"); r.status != 200 {
			t.Fatalf("login %s: %d", name, r.status)
		}
		return c
	}
	admin, setter := login("root", store.RoleAdmin), login("setter", store.RoleSetter)
	alice, bob := je.student("alice"), je.student("bob")
	je.user("carol", store.RoleStudent, "carol-password")
	path := "/api/contests/closed/participants"
	add := map[string]any{"usernames": []string{"alice"}}

	// Access: staff only, CSRF on writes, unknown contests 404.
	anon := je.client()
	wantErr(t, anon.call("GET", path, nil), 401, CodeUnauthorized, "")
	wantErr(t, anon.call("POST", path, add), 401, CodeUnauthorized, "")
	wantErr(t, alice.call("GET", path, nil), 403, CodeForbidden, "")
	wantErr(t, alice.call("POST", path, add), 403, CodeForbidden, "")
	wantErr(t, alice.call("DELETE", path+"/alice", nil), 403, CodeForbidden, "")
	wantErr(t, setter.do("POST", path, add), 403, CodeCSRF, "")
	wantErr(t, setter.do("DELETE", path+"/alice", nil), 403, CodeCSRF, "")
	wantErr(t, setter.call("GET", "/api/contests/nope/participants", nil), 404, CodeNotFound, "")
	wantErr(t, setter.call("POST", "/api/contests/nope/participants", add), 404, CodeNotFound, "")
	if got := participantNames(t, setter, "closed"); len(got) != 0 {
		t.Fatalf("participants of a new contest: %v", got)
	}

	// Bad input: a clear 4xx naming the field, nothing written.
	many := make([]string, MaxParticipantsPerRequest+1)
	for i := range many {
		many[i] = fmt.Sprintf("user%d", i)
	}
	for _, tc := range []struct {
		name   string
		body   any
		status int
		code   string
		field  string
		msg    string
	}{
		{"no usernames", map[string]any{}, 400, CodeValidation, "usernames", "required"},
		{"null usernames", map[string]any{"usernames": nil}, 400, CodeValidation, "usernames", "required"},
		{"empty list", map[string]any{"usernames": []string{}}, 400, CodeValidation, "usernames", "at least one"},
		{"not a list", map[string]any{"usernames": "alice"}, 400, CodeValidation, "usernames", "type"},
		{"not strings", map[string]any{"usernames": []int{1}}, 400, CodeValidation, "usernames", "type"},
		{"blank name", map[string]any{"usernames": []string{"alice", " "}}, 400, CodeValidation, "usernames", "usernames[1]"},
		{"malformed name", map[string]any{"usernames": []string{"a b c"}}, 400, CodeValidation, "usernames", "usernames[0]"},
		{"duplicate", map[string]any{"usernames": []string{"alice", "bob", "alice"}}, 400, CodeValidation, "usernames", "usernames[0]"},
		{"duplicate after case folding", map[string]any{"usernames": []string{"alice", " ALICE "}}, 400, CodeValidation, "usernames", "once"},
		{"too many", map[string]any{"usernames": many}, 413, CodeTooLarge, "usernames", "at most 5000"},
		{"unknown field", map[string]any{"usernames": []string{"alice"}, "contest": "x"}, 400, CodeValidation, "contest", "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := setter.call("POST", path, tc.body)
			wantErr(t, r, tc.status, tc.code, tc.field)
			if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, tc.msg) {
				t.Fatalf("message %q lacks %q", msg, tc.msg)
			}
		})
	}
	if r := setter.do("POST", path, `{"usernames":["alice"]}`, "X-CSRF-Token", setter.csrf, "Content-Type", "text/plain"); r.status != 415 {
		t.Fatalf("text/plain body: %d %s", r.status, r.raw)
	}
	// Unknown users: 422 naming every one of them; nothing is added.
	r := setter.call("POST", path, map[string]any{"usernames": []string{"alice", "nobody", "ghost"}})
	wantErr(t, r, 422, CodeValidation, "usernames")
	inner, _ := r.body["error"].(map[string]any)["unknown"].([]any)
	outer, _ := r.body["unknown"].([]any)
	if fmt.Sprint(inner) != "[nobody ghost]" || fmt.Sprint(outer) != "[nobody ghost]" {
		t.Fatalf("unknown lists %v and %v, want [nobody ghost] (%s)", inner, outer, r.raw)
	}
	if n := je.count("contest_participants"); n != 0 {
		t.Fatalf("rejected adds wrote %d participants", n)
	}

	// Not on the list: no submission, no question, no board row.
	body := map[string]any{"problem": "a-plus-b", "contest": "closed", "language": "py3", "source": "x"}
	wantErr(t, alice.submit("a0", body), 403, CodeForbidden, "contest")
	wantErr(t, alice.call("POST", "/api/contests/closed/register", nil), 403, CodeForbidden, "contest")

	// Adding: counts of new and already registered users; names are
	// matched case-insensitively.
	r = setter.call("POST", path, map[string]any{"usernames": []string{"alice", "Bob"}})
	if r.status != 200 || r.body["added"] != float64(2) || r.body["already"] != float64(0) {
		t.Fatalf("add: %d %s", r.status, r.raw)
	}
	r = admin.call("POST", path, map[string]any{"usernames": []string{"alice", "carol"}})
	if r.status != 200 || r.body["added"] != float64(1) || r.body["already"] != float64(1) {
		t.Fatalf("add again: %d %s", r.status, r.raw)
	}
	if got := participantNames(t, setter, "closed"); fmt.Sprint(got) != "[alice bob carol]" {
		t.Fatalf("participants %v", got)
	}
	if r := alice.call("POST", "/api/contests/closed/register", nil); r.status != 200 {
		t.Fatalf("a listed user registers: %d %s", r.status, r.raw)
	}

	// Listed users submit and are on the board.
	submit := func(c *client, key string) int64 {
		t.Helper()
		r := c.submit(key, body)
		if r.status != 201 {
			t.Fatalf("submit %s: %d %s", key, r.status, r.raw)
		}
		return id(r)
	}
	je.judge(submit(alice, "a1"), 1, protocol.VerdictAC, 3)
	je.judge(submit(bob, "b1"), 1, protocol.VerdictWA, 3)
	je.consume()
	if got := boardUsers(t, alice, "closed"); fmt.Sprint(got) != "[alice bob]" {
		t.Fatalf("board %v", got)
	}
	// bob submits again; he is removed before the result arrives.
	b2 := submit(bob, "b2")

	// Removing.
	wantErr(t, setter.call("DELETE", path+"/ghost", nil), 404, CodeNotFound, "username")
	wantErr(t, setter.call("DELETE", "/api/contests/nope/participants/bob", nil), 404, CodeNotFound, "")
	if r := setter.call("DELETE", path+"/bob", nil); r.status != 204 || r.raw != "" {
		t.Fatalf("remove: %d %q", r.status, r.raw)
	}
	wantErr(t, setter.call("DELETE", path+"/bob", nil), 404, CodeNotFound, "username")
	if got := participantNames(t, setter, "closed"); fmt.Sprint(got) != "[alice carol]" {
		t.Fatalf("participants after the removal %v", got)
	}
	wantErr(t, bob.submit("b3", body), 403, CodeForbidden, "contest")
	wantErr(t, bob.call("POST", "/api/contests/closed/clarifications", map[string]any{"question": "q"}), 403, CodeForbidden, "contest")
	je.judge(b2, 1, protocol.VerdictAC, 3)
	je.consume()
	if got := boardUsers(t, alice, "closed"); fmt.Sprint(got) != "[alice]" {
		t.Fatalf("board after the removal %v", got)
	}
	// The published document (what browsers get live) agrees, first to
	// solve included.
	if err := je.srv.Judging().PublishScoreboard(ctx, cid); err != nil {
		t.Fatal(err)
	}
	_, state, err := je.q.Doc(ctx, protocol.Channel{Kind: protocol.ChannelContest, ID: cid})
	if err != nil || strings.Contains(string(state), `"bob"`) || !strings.Contains(string(state), `"alice"`) {
		t.Fatalf("published board %s, %v", state, err)
	}
	// His submissions stay his.
	if r := bob.do("GET", fmt.Sprintf("/api/submissions/%d", b2), nil); r.status != 200 {
		t.Fatalf("bob's own submission after the removal: %d", r.status)
	}
	// Listed again, he is back with his results (the later AC included).
	if r := setter.call("POST", path, map[string]any{"usernames": []string{"bob"}}); r.status != 200 || r.body["added"] != float64(1) {
		t.Fatalf("re-add: %d %s", r.status, r.raw)
	}
	// Contestants read the board last published: the publisher (not run
	// in this test) publishes a changed contest within its interval.
	if err := je.srv.Judging().PublishScoreboard(ctx, cid); err != nil {
		t.Fatal(err)
	}
	doc := alice.do("GET", "/api/contests/closed/scoreboard", nil)
	back := false
	for _, row := range doc.body["rows"].([]any) {
		if row := row.(map[string]any); row["user"] == "bob" {
			back = row["solved"] == float64(1)
		}
	}
	if !back {
		t.Fatalf("board after re-adding bob: %s", doc.raw)
	}

	// An open contest records registrations the same way and shows
	// everyone who submitted.
	oid, _ := je.st.CreateContest(ctx, store.Contest{Slug: "open", Title: "Open", Rule: "icpc",
		StartAt: now.Add(-time.Hour), EndAt: now.Add(time.Hour), Registration: store.RegistrationOpen, Visible: true})
	_ = je.st.AddContestProblem(ctx, oid, je.problem.ID, "A", 100)
	if r := setter.call("POST", "/api/contests/open/participants", map[string]any{"usernames": []string{"carol"}}); r.status != 200 {
		t.Fatalf("add to an open contest: %d %s", r.status, r.raw)
	}
	ob := map[string]any{"problem": "a-plus-b", "contest": "open", "language": "py3", "source": "x"}
	if r := alice.submit("o1", ob); r.status != 201 {
		t.Fatalf("open submit: %d %s", r.status, r.raw)
	}
	if got := participantNames(t, setter, "open"); fmt.Sprint(got) != "[alice carol]" {
		t.Fatalf("open contest participants %v", got)
	}
	// Switching the open contest to a list keeps only the listed users
	// on its board.
	if r := setter.call("PUT", "/api/contests/open", map[string]any{"registration": "list"}); r.status != 200 {
		t.Fatal(r.raw)
	}
	if r := setter.call("DELETE", "/api/contests/open/participants/alice", nil); r.status != 204 {
		t.Fatalf("remove from the open contest: %d %s", r.status, r.raw)
	}
	if got := boardUsers(t, admin, "open"); len(got) != 0 {
		t.Fatalf("list board after removing its only submitter: %v", got)
	}
}

func TestImportUsersIntoContest(t *testing.T) {
	se := newStaffEnv(t, nil)
	ctx := context.Background()
	now := time.Now()
	cid, err := se.st.CreateContest(ctx, store.Contest{Slug: "class", Title: "Class", Rule: "icpc",
		StartAt: now.Add(time.Hour), EndAt: now.Add(2 * time.Hour), Registration: store.RegistrationList, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	stud, err := se.st.UserByUsername(ctx, "stud")
	if err != nil {
		t.Fatal(err)
	}
	if err := se.st.AddParticipant(ctx, cid, stud.ID); err != nil {
		t.Fatal(err)
	}
	csv := "username,password\nstud,\nteam-1,team-1-password\nteam-2,\n"
	users, parts := se.count("users"), se.count("contest_participants")
	for _, tc := range []struct {
		name, query string
		status      int
		code, field string
	}{
		{"unknown contest", "?contest=nope", 404, CodeNotFound, "contest"},
		{"empty contest", "?contest=", 404, CodeNotFound, "contest"},
		{"twice", "?contest=class&contest=class", 400, CodeValidation, "contest"},
		{"unknown parameter", "?contst=class", 400, CodeValidation, "contst"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, se.admin.upload("/api/users/import"+tc.query, "file", []byte(csv), "text/csv"), tc.status, tc.code, tc.field)
		})
	}
	// A bad line rejects the users and the registrations.
	wantErr(t, se.admin.upload("/api/users/import?contest=class", "file", []byte(csv+"Bad Name,\n"), "text/csv"), 400, CodeValidation, "file")
	wantErr(t, se.setter.upload("/api/users/import?contest=class", "file", []byte(csv), "text/csv"), 403, CodeForbidden, "")
	if se.count("users") != users || se.count("contest_participants") != parts {
		t.Fatal("a rejected import wrote users or participants")
	}

	r := se.admin.upload("/api/users/import?contest=class", "file", []byte(csv), "")
	c, _ := r.body["contest"].(map[string]any)
	if r.status != 200 || r.body["created"] != float64(2) || r.body["updated"] != float64(1) ||
		c["slug"] != "class" || c["added"] != float64(2) || c["already"] != float64(1) {
		t.Fatalf("import into a contest: %d %s", r.status, r.raw)
	}
	if got := participantNames(t, se.setter, "class"); fmt.Sprint(got) != "[stud team-1 team-2]" {
		t.Fatalf("participants %v", got)
	}
	// Without the parameter nothing is registered and the answer has no
	// contest.
	r = se.admin.upload("/api/users/import", "file", []byte("username,password\nteam-3,team-3-password\n"), "text/csv")
	if r.status != 200 || r.body["contest"] != nil {
		t.Fatalf("plain import: %d %s", r.status, r.raw)
	}
	if got := participantNames(t, se.setter, "class"); len(got) != 3 {
		t.Fatalf("a plain import changed the participants: %v", got)
	}
}

// TestStaffTestingIsNotOnTheBoard: staff who try a problem inside an open
// contest (checking the data during the contest, say) are not registered
// by it and never appear on its board, its first-solve marks or its
// export; a staff member who registers to compete does.
func TestStaffTestingIsNotOnTheBoard(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	if err := je.q.EnsureResultsGroup(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	cid, err := je.st.CreateContest(ctx, store.Contest{Slug: "open", Title: "Open", Rule: "icpc",
		StartAt: now.Add(-time.Hour), EndAt: now.Add(time.Hour), Registration: store.RegistrationOpen, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := je.st.AddContestProblem(ctx, cid, je.problem.ID, "A", 100); err != nil {
		t.Fatal(err)
	}
	je.user("root", store.RoleAdmin, "root-password")
	admin := je.client()
	if r := admin.login("root", "root-password"); r.status != 200 {
		t.Fatal(r.raw)
	}
	alice := je.student("alice")
	body := map[string]any{"problem": "a-plus-b", "contest": "open", "language": "py3", "source": "x"}
	submit := func(c *client, key string) int64 {
		t.Helper()
		r := c.submit(key, body)
		if r.status != 201 {
			t.Fatalf("submit %s: %d %s", key, r.status, r.raw)
		}
		return id(r)
	}
	je.judge(submit(admin, "s1"), 1, protocol.VerdictAC, 3) // first to solve, but staff
	je.judge(submit(alice, "a1"), 1, protocol.VerdictAC, 3)
	je.consume()
	if got := participantNames(t, admin, "open"); fmt.Sprint(got) != "[alice]" {
		t.Fatalf("participants after a staff submission: %v", got)
	}
	if got := boardUsers(t, admin, "open"); fmt.Sprint(got) != "[alice]" {
		t.Fatalf("board with a staff submission: %v", got)
	}
	r := alice.do("GET", "/api/contests/open/scoreboard", nil)
	row := r.body["rows"].([]any)[0].(map[string]any)
	if cell := row["problems"].(map[string]any)["A"].(map[string]any); cell["first_blood"] != true {
		t.Fatalf("alice's solve lost its first-solve mark to staff: %s", r.raw)
	}
	if csv := je.getCSV(admin, "open"); len(csv.records) != 2 || csv.records[1][1] != "alice" {
		t.Fatalf("export with a staff submission: %q", csv.records)
	}
	// Registering to compete puts the admin on the board, with the result
	// from before.
	if r := admin.call("POST", "/api/contests/open/register", nil); r.status != 200 {
		t.Fatalf("register: %d %s", r.status, r.raw)
	}
	if got := boardUsers(t, admin, "open"); fmt.Sprint(got) != "[alice root]" {
		t.Fatalf("board after the admin registered: %v", got)
	}
}

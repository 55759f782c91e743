package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func TestImportUsers(t *testing.T) {
	se := newStaffEnv(t, func(c *Config) { c.MaxImportRows = 10 })
	ctx := context.Background()
	csv := "username,display_name,email,password,role\n" +
		"alice,Alice A,alice@example.org,alice-pass-1,\n" +
		"bob,,,,setter\n" +
		"\n" +
		"carol,\"Carol, C.\",,,student\n"

	wantErr(t, se.setter.upload("/api/users/import", "file", []byte(csv), ""), 403, CodeForbidden, "")
	wantErr(t, se.student.upload("/api/users/import", "file", []byte(csv), ""), 403, CodeForbidden, "")
	before := se.count("users")
	for _, tc := range []struct {
		name, body    string
		status        int
		field         string
		lines         []int
		wantInMessage string
	}{
		{"empty", "", 400, "file", nil, "empty"},
		{"no username column", "name,email\nx,y\n", 400, "file", nil, "unknown column"},
		{"header only", "username\n", 400, "file", nil, "no users"},
		{"too many rows", "username\na1\na2\na3\na4\na5\na6\na7\na8\na9\na10\na11\n", 413, "file", nil, "more than 10"},
		{"bad quote", "username\n\"abc\n", 400, "file", nil, "line 2"},
		{"bad lines", "username,email,password,role\n" +
			"ok-user,,good-password,\n" +
			"Bad User,,,\n" +
			"dup,,,admin\n" +
			"dup,,,\n" +
			"eve,not-an-email,,\n" +
			"frank,,short,\n" +
			"gina,,,god\n" +
			"hank,,\n", 400, "file", []int{3, 5, 6, 7, 8, 9}, "line 3"},
		{"email taken in MySQL", "username,email\nnewbie,root@example.org\n", 400, "file", []int{2}, "email"},
		{"own role", "username,role\nroot,student\n", 400, "file", []int{2}, "own role"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "email taken in MySQL" {
				if _, err := se.st.DB.Exec("UPDATE users SET email = 'root@example.org' WHERE username = 'root'"); err != nil {
					t.Fatal(err)
				}
			}
			r := se.admin.upload("/api/users/import", "file", []byte(tc.body), "")
			code := CodeValidation
			if tc.status == 413 {
				code = CodeTooLarge
			}
			wantErr(t, r, tc.status, code, tc.field)
			if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, tc.wantInMessage) {
				t.Fatalf("message %q lacks %q", msg, tc.wantInMessage)
			}
			var got struct {
				Errors []store.ImportLineError `json:"errors"`
			}
			_ = json.Unmarshal([]byte(r.raw), &got)
			var lines []int
			for _, e := range got.Errors {
				lines = append(lines, e.Line)
				if e.Message == "" {
					t.Errorf("line %d: empty message", e.Line)
				}
			}
			if fmt.Sprint(lines) != fmt.Sprint(tc.lines) && tc.lines != nil {
				t.Fatalf("error lines %v, want %v (%s)", lines, tc.lines, r.raw)
			}
		})
	}
	if n := se.count("users"); n != before {
		t.Fatalf("rejected imports changed the users: %d, want %d", n, before)
	}

	r := se.admin.upload("/api/users/import", "file", []byte(csv), "")
	var out ImportJSON
	if err := json.Unmarshal([]byte(r.raw), &out); err != nil || r.status != 200 || out.Created != 3 || out.Updated != 0 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	if len(out.Passwords) != 2 || out.Passwords["bob"] == "" || out.Passwords["carol"] == "" || out.Passwords["alice"] != "" {
		t.Fatalf("generated passwords = %v", out.Passwords)
	}
	bob, _ := se.st.UserByUsername(ctx, "bob")
	carol, _ := se.st.UserByUsername(ctx, "carol")
	if bob.Role != store.RoleSetter || bob.DisplayName != "bob" || carol.DisplayName != "Carol, C." || carol.Role != store.RoleStudent {
		t.Fatalf("bob = %+v, carol = %+v", bob, carol)
	}
	for name, pw := range map[string]string{"alice": "alice-pass-1", "bob": out.Passwords["bob"]} {
		if r := se.client().login(name, pw); r.status != 200 {
			t.Fatalf("login %s with the imported password: %d", name, r.status)
		}
	}

	// Again, as a text/csv body: alice renamed (password kept), dave new.
	again := "username,display_name\nalice,Alice B\ndave,Dave\n"
	r = se.admin.upload("/api/users/import", "", []byte(again), "text/csv")
	out = ImportJSON{}
	if err := json.Unmarshal([]byte(r.raw), &out); err != nil || r.status != 200 || out.Created != 1 || out.Updated != 1 || len(out.Passwords) != 1 {
		t.Fatalf("second import: %d %s", r.status, r.raw)
	}
	if a, _ := se.st.UserByUsername(ctx, "alice"); a.DisplayName != "Alice B" {
		t.Fatalf("alice not updated: %+v", a)
	}
	if r := se.client().login("alice", "alice-pass-1"); r.status != 200 {
		t.Fatal("an update without a password changed it")
	}
}

func TestContestAdmin(t *testing.T) {
	se := newStaffEnv(t, nil)
	ctx := context.Background()
	for _, slug := range []string{"p1", "p2", "p3"} {
		if r := se.setter.call("POST", "/api/problems", map[string]any{"slug": slug, "title": slug, "visibility": "contest-only"}); r.status != 201 {
			t.Fatalf("problem: %d %s", r.status, r.raw)
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	ts := func(d time.Duration) string { return now.Add(d).Format(time.RFC3339) }
	valid := func() map[string]any {
		return map[string]any{"slug": "cup", "title": "Cup", "description": "Have fun", "rule": "icpc",
			"start_at": ts(-time.Hour), "end_at": ts(2 * time.Hour), "freeze_minutes": 30,
			"problems": []map[string]any{{"label": "A", "slug": "p1", "points": 100}, {"label": "B", "slug": "p2"}}}
	}
	with := func(k string, v any) map[string]any { m := valid(); m[k] = v; return m }
	without := func(k string) map[string]any { m := valid(); delete(m, k); return m }
	probs := func(ps ...map[string]any) map[string]any { return with("problems", ps) }

	wantErr(t, se.student.call("POST", "/api/contests", valid()), 403, CodeForbidden, "")
	for _, tc := range []struct {
		name  string
		body  any
		field string
	}{
		{"no slug", without("slug"), "slug"},
		{"bad slug", with("slug", "C U P"), "slug"},
		{"no title", without("title"), "title"},
		{"no start", without("start_at"), "start_at"},
		{"bad start", with("start_at", "tomorrow"), "start_at"},
		{"end before start", with("end_at", ts(-2*time.Hour)), "end_at"},
		{"bad rule", with("rule", "acm"), "rule"},
		{"negative freeze", with("freeze_minutes", -1), "freeze_minutes"},
		{"freeze longer than contest", with("freeze_minutes", 500), "freeze_minutes"},
		{"bad registration", with("registration", "invite"), "registration"},
		{"unknown problem", probs(map[string]any{"label": "A", "slug": "nope"}), "problems"},
		{"label twice", probs(map[string]any{"label": "A", "slug": "p1"}, map[string]any{"label": "a", "slug": "p2"}), "problems"},
		{"problem twice", probs(map[string]any{"label": "A", "slug": "p1"}, map[string]any{"label": "B", "slug": "p1"}), "problems"},
		{"bad label", probs(map[string]any{"label": "A-1", "slug": "p1"}), "problems"},
		{"negative points", probs(map[string]any{"label": "A", "slug": "p1", "points": -5}), "problems"},
		{"unknown field", with("owner", "me"), "owner"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, se.setter.call("POST", "/api/contests", tc.body), 400, CodeValidation, tc.field)
		})
	}
	if n := se.count("contests"); n != 0 {
		t.Fatalf("rejected creates wrote %d contests", n)
	}

	r := se.setter.call("POST", "/api/contests", valid())
	c, _ := r.body["contest"].(map[string]any)
	ps, _ := r.body["problems"].([]any)
	if r.status != 201 || c["slug"] != "cup" || c["registration"] != "open" || c["visible"] != true || c["phase"] != "running" || len(ps) != 2 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	if pb := ps[1].(map[string]any); pb["label"] != "B" || pb["slug"] != "p2" || pb["points"] != 100.0 {
		t.Fatalf("problem B = %v", pb)
	}
	wantErr(t, se.admin.call("POST", "/api/contests", valid()), 409, CodeConflict, "slug")

	// Update: new problem set, a later end; the rest kept.
	wantErr(t, se.student.call("PUT", "/api/contests/cup", map[string]any{"title": "x"}), 403, CodeForbidden, "")
	wantErr(t, se.setter.call("PUT", "/api/contests/nope", map[string]any{"title": "x"}), 404, CodeNotFound, "")
	wantErr(t, se.setter.call("PUT", "/api/contests/cup", map[string]any{"end_at": ts(-3 * time.Hour)}), 400, CodeValidation, "end_at")
	r = se.setter.call("PUT", "/api/contests/cup", map[string]any{"end_at": ts(3 * time.Hour),
		"problems": []map[string]any{{"label": "A", "slug": "p3", "points": 50}}})
	ps, _ = r.body["problems"].([]any)
	if r.status != 200 || len(ps) != 1 || ps[0].(map[string]any)["slug"] != "p3" || r.body["contest"].(map[string]any)["description"] != "Have fun" {
		t.Fatalf("update: %d %s", r.status, r.raw)
	}
	got, _ := se.st.ContestBySlug(ctx, "cup")
	if !got.EndAt.Equal(now.Add(3 * time.Hour)) {
		t.Fatalf("end = %v", got.EndAt)
	}

	// Registration.
	wantErr(t, se.client().call("POST", "/api/contests/cup/register", nil), 401, CodeUnauthorized, "")
	if r := se.student.call("POST", "/api/contests/cup/register", nil); r.status != 200 || r.body["registered"] != true {
		t.Fatalf("register: %d %s", r.status, r.raw)
	}
	stud, _ := se.st.UserByUsername(ctx, "stud")
	if ok, _ := se.st.IsParticipant(ctx, got.ID, stud.ID); !ok {
		t.Fatal("not registered")
	}
	// The registered student now sees the contest-only problem.
	if r := se.student.call("GET", "/api/problems/p3", nil); r.status != 200 {
		t.Fatalf("contest problem for a participant: %d", r.status)
	}
	if r := se.setter.call("POST", "/api/contests", with("slug", "listed")); r.status != 201 {
		t.Fatal(r.raw)
	}
	if r := se.setter.call("PUT", "/api/contests/listed", map[string]any{"registration": "list"}); r.status != 200 {
		t.Fatal(r.raw)
	}
	wantErr(t, se.student.call("POST", "/api/contests/listed/register", nil), 403, CodeForbidden, "contest")
	if r := se.setter.call("POST", "/api/contests", with("slug", "old")); r.status != 201 {
		t.Fatal(r.raw)
	}
	if r := se.setter.call("PUT", "/api/contests/old", map[string]any{"start_at": ts(-3 * time.Hour), "end_at": ts(-2 * time.Hour), "freeze_minutes": 0}); r.status != 200 {
		t.Fatal(r.raw)
	}
	wantErr(t, se.student.call("POST", "/api/contests/old/register", nil), 403, CodeForbidden, "contest")
	if r := se.setter.call("PUT", "/api/contests/old", map[string]any{"visible": false}); r.status != 200 {
		t.Fatal(r.raw)
	}
	wantErr(t, se.student.call("POST", "/api/contests/old/register", nil), 404, CodeNotFound, "")
}

func TestClarifications(t *testing.T) {
	se := newStaffEnv(t, nil)
	now := time.Now().UTC()
	if r := se.setter.call("POST", "/api/problems", map[string]any{"slug": "p1", "title": "P1"}); r.status != 201 {
		t.Fatal(r.raw)
	}
	mk := func(slug, reg string) {
		r := se.setter.call("POST", "/api/contests", map[string]any{"slug": slug, "title": slug, "registration": reg,
			"start_at": now.Add(-time.Hour).Format(time.RFC3339), "end_at": now.Add(time.Hour).Format(time.RFC3339),
			"problems": []map[string]any{{"label": "A", "slug": "p1"}}})
		if r.status != 201 {
			t.Fatal(r.raw)
		}
	}
	mk("cup", "open")
	mk("closed", "list")
	other := se.client()
	se.user("other", store.RoleStudent, "other-password")
	other.login("other", "other-password")
	path := "/api/contests/cup/clarifications"

	wantErr(t, se.client().call("POST", path, map[string]any{"question": "q"}), 401, CodeUnauthorized, "")
	for _, tc := range []struct {
		name  string
		body  any
		code  string
		field string
	}{
		{"no question", map[string]any{}, CodeValidation, "question"},
		{"blank question", map[string]any{"question": "   "}, CodeValidation, "question"},
		{"long question", map[string]any{"question": strings.Repeat("q", MaxQuestionChars+1)}, CodeValidation, "question"},
		{"unknown problem", map[string]any{"question": "q", "problem": "Z"}, CodeValidation, "problem"},
		{"student announcement", map[string]any{"announcement": "hi"}, CodeForbidden, "announcement"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := 400
			if tc.code == CodeForbidden {
				status = 403
			}
			wantErr(t, se.student.call("POST", path, tc.body), status, tc.code, tc.field)
		})
	}
	wantErr(t, se.student.call("POST", "/api/contests/closed/clarifications", map[string]any{"question": "q"}), 403, CodeForbidden, "contest")
	if n := se.count("clarifications"); n != 0 {
		t.Fatalf("rejected questions wrote %d rows", n)
	}

	// The contest page sends the problem's slug; the label works too.
	r := se.student.call("POST", path, map[string]any{"question": "Is n ≥ 1?", "problem": "p1"})
	q, _ := r.body["clarification"].(map[string]any)
	if r.status != 201 || q["problem"] != "A" || q["question"] != "Is n ≥ 1?" || q["answer"] != nil || q["public"] != false || q["user"] != "stud" {
		t.Fatalf("ask: %d %s", r.status, r.raw)
	}
	qid := int64(q["id"].(float64))
	if r := other.call("POST", path, map[string]any{"question": "Other's secret", "problem": "a"}); r.status != 201 {
		t.Fatal(r.raw)
	}
	list := func(c *client) []map[string]any {
		t.Helper()
		r := c.call("GET", path, nil)
		if r.status != 200 {
			t.Fatalf("list: %d %s", r.status, r.raw)
		}
		var out []map[string]any
		for _, x := range r.body["clarifications"].([]any) {
			out = append(out, x.(map[string]any))
		}
		return out
	}
	if l := list(se.student); len(l) != 1 || l[0]["question"] != "Is n ≥ 1?" {
		t.Fatalf("student sees %v", l)
	}
	if l := list(se.client()); len(l) != 0 {
		t.Fatalf("anonymous sees %v", l)
	}
	if l := list(se.setter); len(l) != 2 || l[0]["user"] != "other" {
		t.Fatalf("staff see %v", l)
	}

	// Answers.
	ans := fmt.Sprintf("%s/%d/answer", path, qid)
	wantErr(t, se.student.call("POST", ans, map[string]any{"answer": "yes", "public": true}), 403, CodeForbidden, "")
	wantErr(t, se.setter.call("POST", ans, map[string]any{"answer": "", "public": true}), 400, CodeValidation, "answer")
	wantErr(t, se.setter.call("POST", ans, map[string]any{"answer": "yes"}), 400, CodeValidation, "public")
	wantErr(t, se.setter.call("POST", path+"/999999/answer", map[string]any{"answer": "yes", "public": true}), 404, CodeNotFound, "")
	wantErr(t, se.setter.call("POST", "/api/contests/closed/clarifications/"+fmt.Sprint(qid)+"/answer", map[string]any{"answer": "yes", "public": true}), 404, CodeNotFound, "")
	r = se.setter.call("POST", ans, map[string]any{"answer": "Yes.", "public": true})
	if a, _ := r.body["clarification"].(map[string]any); r.status != 200 || a["answer"] != "Yes." || a["public"] != true || a["answered_at"] == nil {
		t.Fatalf("answer: %d %s", r.status, r.raw)
	}
	l := list(other)
	if len(l) != 2 {
		t.Fatalf("other sees %v", l)
	}
	for _, c := range l {
		if c["question"] == "Is n ≥ 1?" && (c["answer"] != "Yes." || c["user"] != nil) {
			t.Fatalf("the public answer as others see it: %v", c)
		}
	}

	// Announcements.
	r = se.admin.call("POST", path, map[string]any{"announcement": "Problem A: n ≤ 10⁹."})
	if a, _ := r.body["clarification"].(map[string]any); r.status != 201 || a["announcement"] != true || a["question"] != nil || a["public"] != true {
		t.Fatalf("announce: %d %s", r.status, r.raw)
	}
	if l := list(se.client()); len(l) != 2 || l[0]["announcement"] != true {
		t.Fatalf("anonymous after the announcement: %v", l)
	}
	wantErr(t, se.admin.call("POST", path, map[string]any{"announcement": "x", "question": "y"}), 400, CodeValidation, "question")
}

// TestClarificationsArePushed: every ask, answer and announcement is
// published for live push, ids only, on the contest's clarifications
// channel; a private answer also on the asker's user channel.
func TestClarificationsArePushed(t *testing.T) {
	se := newStaffEnv(t, nil)
	ctx := context.Background()
	now := time.Now().UTC()
	if r := se.setter.call("POST", "/api/problems", map[string]any{"slug": "p1", "title": "P1"}); r.status != 201 {
		t.Fatal(r.raw)
	}
	if r := se.setter.call("POST", "/api/contests", map[string]any{"slug": "cup", "title": "Cup",
		"start_at": now.Add(-time.Hour).Format(time.RFC3339), "end_at": now.Add(time.Hour).Format(time.RFC3339),
		"problems": []map[string]any{{"label": "A", "slug": "p1"}}}); r.status != 201 {
		t.Fatal(r.raw)
	}
	c, err := se.st.ContestBySlug(ctx, "cup")
	if err != nil {
		t.Fatal(err)
	}
	stud, err := se.st.UserByUsername(ctx, "stud")
	if err != nil {
		t.Fatal(err)
	}
	sub := se.rdb.Subscribe(ctx, se.names.Events("clarifications", c.ID), se.names.Events("user", stud.ID))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	msgs := sub.Channel()
	next := func(want string) protocol.ClarificationChange {
		t.Helper()
		select {
		case m := <-msgs:
			if m.Channel != want {
				t.Fatalf("event on %s, want %s: %s", m.Channel, want, m.Payload)
			}
			var ev protocol.Event
			if err := json.Unmarshal([]byte(m.Payload), &ev); err != nil || ev.Validate() != nil || ev.Kind != protocol.EventClarification {
				t.Fatalf("event %s: %v", m.Payload, err)
			}
			if strings.Contains(m.Payload, "secret") {
				t.Fatalf("the event carries text: %s", m.Payload)
			}
			var ch protocol.ClarificationChange
			if err := json.Unmarshal(ev.Body, &ch); err != nil || ch.Validate() != nil {
				t.Fatalf("body %s: %v", ev.Body, err)
			}
			return ch
		case <-time.After(5 * time.Second):
			t.Fatalf("no event on %s", want)
		}
		return protocol.ClarificationChange{}
	}
	clar, user := se.names.Events("clarifications", c.ID), se.names.Events("user", stud.ID)
	path := "/api/contests/cup/clarifications"

	r := se.student.call("POST", path, map[string]any{"question": "a secret question"})
	if r.status != 201 {
		t.Fatal(r.raw)
	}
	id := int64(r.body["clarification"].(map[string]any)["id"].(float64))
	if ch := next(clar); ch.What != "question" || ch.ID != id || ch.ContestID != c.ID || ch.Public {
		t.Fatalf("ask: %+v", ch)
	}
	ans := fmt.Sprintf("%s/%d/answer", path, id)
	if r := se.setter.call("POST", ans, map[string]any{"answer": "a secret answer", "public": false}); r.status != 200 {
		t.Fatal(r.raw)
	}
	if ch := next(clar); ch.What != "answer" || ch.Public {
		t.Fatalf("private answer on the contest channel: %+v", ch)
	}
	if ch := next(user); ch.What != "answer" || ch.ID != id {
		t.Fatalf("private answer on the asker's channel: %+v", ch)
	}
	if r := se.setter.call("POST", ans, map[string]any{"answer": "now public", "public": true}); r.status != 200 {
		t.Fatal(r.raw)
	}
	if ch := next(clar); ch.What != "answer" || !ch.Public {
		t.Fatalf("public answer: %+v", ch)
	}
	if r := se.admin.call("POST", path, map[string]any{"announcement": "n ≤ 10⁹"}); r.status != 201 {
		t.Fatal(r.raw)
	}
	if ch := next(clar); ch.What != "announcement" || !ch.Public {
		t.Fatalf("announcement: %+v", ch)
	}
	// A refused request publishes nothing.
	wantErr(t, se.student.call("POST", path, map[string]any{"question": ""}), 400, CodeValidation, "question")
	select {
	case m := <-msgs:
		t.Fatalf("unexpected event %s", m.Payload)
	case <-time.After(200 * time.Millisecond):
	}
	// The channel's snapshot state names the last change.
	seq, state, err := se.srv.Judging().Queue().Doc(ctx, protocol.Channel{Kind: protocol.ChannelClarifications, ID: c.ID})
	if err != nil || seq != 4 || !strings.Contains(string(state), fmt.Sprintf(`"last_id":%d`, id+1)) {
		t.Fatalf("doc %d %s %v", seq, state, err)
	}
}

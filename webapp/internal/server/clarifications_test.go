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
	keyed := func(c *client, path, key string, body any) resp {
		t.Helper()
		return c.do("POST", path, body, "X-CSRF-Token", c.csrf, IdempotencyHeader, key)
	}
	wantErr(t, keyed(se.student, path, "not a key!", map[string]any{"question": "q"}), 400, CodeValidation, IdempotencyHeader)
	if n := se.count("clarifications"); n != 0 {
		t.Fatalf("rejected questions wrote %d rows", n)
	}

	// Sent again with its Idempotency-Key (the first answer lost), a
	// question is posted once: the retry answers 200 with the first.
	first := keyed(other, path, "ask-1", map[string]any{"question": "Sent twice?"})
	again := keyed(other, path, "ask-1", map[string]any{"question": "Sent twice?"})
	fq, _ := first.body["clarification"].(map[string]any)
	aq, _ := again.body["clarification"].(map[string]any)
	if first.status != 201 || first.body["repeated"] != nil || again.status != 200 || again.body["repeated"] != true ||
		fq == nil || aq == nil || aq["id"] != fq["id"] || aq["question"] != "Sent twice?" {
		t.Fatalf("a question sent twice with one key: %d %s, then %d %s", first.status, first.raw, again.status, again.raw)
	}
	if n := se.count("clarifications"); n != 1 {
		t.Fatalf("a question sent twice with one key wrote %d rows, want 1", n)
	}
	mk("cup2", "open")
	wantErr(t, keyed(other, "/api/contests/cup2/clarifications", "ask-1", map[string]any{"question": "Elsewhere"}), 409, CodeConflict, IdempotencyHeader)
	// The contest ends while a retry is on its way: the retry still gets
	// the question it posted; a new question (a new key, no key) is
	// refused, and so is the key's retry in another ended contest.
	if _, err := se.st.DB.Exec("UPDATE contests SET end_at = ? WHERE slug IN ('cup', 'cup2')", now.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	late := keyed(other, path, "ask-1", map[string]any{"question": "Sent twice?"})
	if lq, _ := late.body["clarification"].(map[string]any); late.status != 200 || late.body["repeated"] != true || lq == nil || lq["id"] != fq["id"] {
		t.Fatalf("a retry after the end: %d %s, want 200 with the first (%v)", late.status, late.raw, fq["id"])
	}
	wantErr(t, keyed(other, path, "ask-2", map[string]any{"question": "Too late?"}), 403, CodeForbidden, "contest")
	wantErr(t, other.call("POST", path, map[string]any{"question": "Too late?"}), 403, CodeForbidden, "contest")
	wantErr(t, keyed(other, "/api/contests/cup2/clarifications", "ask-1", map[string]any{"question": "Elsewhere"}), 403, CodeForbidden, "contest")
	if n := se.count("clarifications"); n != 1 {
		t.Fatalf("after the end: %d rows, want the one question", n)
	}
	if _, err := se.st.DB.Exec("UPDATE contests SET end_at = ? WHERE slug IN ('cup', 'cup2')", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := se.st.DB.Exec("DELETE FROM clarifications"); err != nil {
		t.Fatal(err)
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

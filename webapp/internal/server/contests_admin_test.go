package server

import (
	"context"
	"testing"
	"time"
)

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

package server

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestOverrideVerdict: staff set a judged submission's verdict by hand
// with a reason; the change is audited (who, when, old → new, why) and
// shown to staff only; the scoreboard, the solved counts and the live
// state follow. Every failure names its field.
func TestOverrideVerdict(t *testing.T) {
	se := newJury(t)
	ctx := context.Background()
	sid := se.submit(se.alice, "all-cup", "x", protocol.VerdictWA)
	queued := se.submit(se.bob, "all-cup", "y", "")
	path := fmt.Sprintf("/api/submissions/%d/override", sid)
	ok := map[string]any{"verdict": "AC", "reason": "the checker rejected a correct trailing space"}

	wantErr(t, se.anon.do("POST", path, ok), 401, CodeUnauthorized, "")
	wantErr(t, se.alice.call("POST", path, ok), 403, CodeForbidden, "")
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"reason": "r"}, "verdict"},
		{map[string]any{"verdict": "queued", "reason": "r"}, "verdict"},
		{map[string]any{"verdict": "SK", "reason": "r"}, "verdict"},
		{map[string]any{"verdict": "AC"}, "reason"},
		{map[string]any{"verdict": "AC", "reason": "   "}, "reason"},
		{map[string]any{"verdict": "AC", "reason": strings.Repeat("x", 1001)}, "reason"},
		{map[string]any{"verdict": "AC", "reason": "r", "score": 150}, "score"},
		{map[string]any{"verdict": "AC", "reason": "r", "score": -1}, "score"},
		{map[string]any{"verdict": "AC", "reason": "r", "extra": 1}, "extra"},
	} {
		wantErr(t, se.admin.call("POST", path, tc.body), 400, CodeValidation, tc.field)
	}
	wantErr(t, se.admin.call("POST", "/api/submissions/999999/override", ok), 404, CodeNotFound, "")
	wantErr(t, se.admin.call("POST", fmt.Sprintf("/api/submissions/%d/override", queued), ok), 409, CodeConflict, "verdict")

	r := se.setter.call("POST", path, ok)
	if r.status != 200 || r.body["submission"].(map[string]any)["verdict"] != "AC" {
		t.Fatalf("override: %d %s", r.status, r.raw)
	}
	sub, err := se.st.SubmissionByID(ctx, sid)
	if err != nil || sub.Verdict != "AC" || sub.Score != 100 {
		t.Fatalf("row after the override: %s %v (%v)", sub.Verdict, sub.Score, err)
	}
	// The audit, to staff.
	d := se.admin.do("GET", fmt.Sprintf("/api/submissions/%d", sid), nil)
	ovs, _ := d.body["submission"].(map[string]any)["overrides"].([]any)
	if len(ovs) != 1 {
		t.Fatalf("staff view: %s", d.raw)
	}
	o := ovs[0].(map[string]any)
	if o["by"] != "setter" || o["old_verdict"] != "WA" || o["new_verdict"] != "AC" || o["new_score"] != float64(100) ||
		o["reason"] != ok["reason"] || o["at"] == "" {
		t.Fatalf("override record %v", o)
	}
	// The owner and others see the verdict, not the audit.
	for _, c := range []*client{se.alice, se.bob} {
		d := c.do("GET", fmt.Sprintf("/api/submissions/%d", sid), nil)
		if d.status != 200 || strings.Contains(d.raw, "overrides") || strings.Contains(d.raw, "trailing space") ||
			d.body["submission"].(map[string]any)["verdict"] != "AC" {
			t.Fatalf("student view: %d %s", d.status, d.raw)
		}
	}
	// The scoreboard follows.
	b := se.admin.do("GET", "/api/contests/all-cup/scoreboard?view=live", nil)
	if !strings.Contains(b.raw, `"solved":1`) && !strings.Contains(b.raw, `"s":true`) {
		t.Fatalf("scoreboard after the override: %s", b.raw)
	}
	if n, _ := se.st.UserSolvedCount(ctx, sub.UserID); n != 1 {
		t.Fatalf("alice solved %d, want 1", n)
	}
	// The live state.
	snap, err := se.q.Submission(ctx, sid)
	if err != nil || snap.State.Status != protocol.VerdictAC {
		t.Fatalf("live state %+v (%v)", snap.State, err)
	}
	// Back to WA with a partial score, audited as a second record.
	if r := se.admin.call("POST", path, map[string]any{"verdict": "WA", "score": 40, "reason": "undo"}); r.status != 200 {
		t.Fatalf("second override: %d %s", r.status, r.raw)
	}
	if n, _ := se.st.UserSolvedCount(ctx, sub.UserID); n != 0 {
		t.Fatalf("alice solved %d after the undo, want 0", n)
	}
	os, err := se.st.Overrides(ctx, sid)
	if err != nil || len(os) != 2 || os[1].OldVerdict != "AC" || os[1].NewScore != 40 || os[1].Username.String != "root" {
		t.Fatalf("overrides %+v (%v)", os, err)
	}
}

func unzip(t *testing.T, raw string) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader([]byte(raw)), int64(len(raw)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	out := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		out[f.Name] = string(b)
	}
	return out
}

// TestExportSources: staff download a zip of a contest's or a problem's
// submissions, all or each user's final one per problem, a folder per
// user, files named by id, problem, verdict and language.
func TestExportSources(t *testing.T) {
	se := newJury(t)
	a1 := se.submit(se.alice, "all-cup", "ALICE-1", protocol.VerdictWA)
	a2 := se.submit(se.alice, "all-cup", "ALICE-2", protocol.VerdictAC)
	b1 := se.submit(se.bob, "all-cup", "BOB-1", protocol.VerdictTLE)
	p1 := se.submit(se.alice, "", "ALICE-PRACTICE", protocol.VerdictAC)
	name := func(user string, id int64, verdict string) string {
		return fmt.Sprintf("%s/%d-a-plus-b-%s-py3.py", user, id, verdict)
	}
	for _, tc := range []struct {
		q    string
		want map[string]string
	}{
		{"contest=all-cup", map[string]string{name("alice", a1, "WA"): "ALICE-1", name("alice", a2, "AC"): "ALICE-2", name("bob", b1, "TLE"): "BOB-1"}},
		{"contest=all-cup&final=1", map[string]string{name("alice", a2, "AC"): "ALICE-2", name("bob", b1, "TLE"): "BOB-1"}},
		{"problem=a-plus-b", map[string]string{name("alice", a1, "WA"): "ALICE-1", name("alice", a2, "AC"): "ALICE-2",
			name("bob", b1, "TLE"): "BOB-1", name("alice", p1, "AC"): "ALICE-PRACTICE"}},
		{"problem=a-plus-b&final=true", map[string]string{name("alice", p1, "AC"): "ALICE-PRACTICE", name("bob", b1, "TLE"): "BOB-1"}},
		{"contest=own-cup", map[string]string{}},
	} {
		for _, c := range []*client{se.admin, se.setter} {
			r := c.do("GET", "/api/export?"+tc.q, nil)
			if r.status != 200 || r.header.Get("Content-Type") != "application/zip" ||
				!strings.HasPrefix(r.header.Get("Content-Disposition"), "attachment; filename=") {
				t.Fatalf("export ?%s: %d %v %.200s", tc.q, r.status, r.header, r.raw)
			}
			got := unzip(t, r.raw)
			if len(got) != len(tc.want) {
				t.Fatalf("export ?%s: %v, want %v", tc.q, keys(got), keys(tc.want))
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Fatalf("export ?%s: %s = %q, want %q (have %v)", tc.q, k, got[k], v, keys(got))
				}
			}
		}
	}
	// Streamed: no Content-Length, chunked.
	if r := se.admin.do("GET", "/api/export?contest=all-cup", nil); r.header.Get("Content-Length") != "" {
		t.Errorf("export has a Content-Length (%s): built in memory?", r.header.Get("Content-Length"))
	}
	wantErr(t, se.anon.do("GET", "/api/export?contest=all-cup", nil), 401, CodeUnauthorized, "")
	wantErr(t, se.alice.do("GET", "/api/export?contest=all-cup", nil), 403, CodeForbidden, "")
	for q, want := range map[string]struct {
		status      int
		code, field string
	}{
		"":                                 {400, CodeValidation, "contest"},
		"contest=all-cup&problem=a-plus-b": {400, CodeValidation, "contest"},
		"contest=nope":                     {404, CodeNotFound, "contest"},
		"problem=nope":                     {404, CodeNotFound, "problem"},
		"contest=all-cup&final=maybe":      {400, CodeValidation, "final"},
		"contest=all-cup&format=tar":       {400, CodeValidation, "format"},
	} {
		wantErr(t, se.admin.do("GET", "/api/export?"+q, nil), want.status, want.code, want.field)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestStatusAdminLists: staff list every problem and contest, hidden
// ones too, searched by slug or title, paged by cursor.
func TestStatusAdminLists(t *testing.T) {
	se := newJury(t)
	ctx := context.Background()
	for _, slug := range []string{"alpha-one", "alpha-two", "beta"} {
		mkProblem(t, se.env, slug, store.VisibilityPrivate)
	}
	if _, err := se.st.CreateContest(ctx, store.Contest{Slug: "hidden-alpha", Title: "Secret Alpha", Rule: "icpc",
		StartAt: time.Now(), EndAt: time.Now().Add(time.Hour), Registration: "open"}); err != nil {
		t.Fatal(err)
	}
	slugsOf := func(r resp, key string) []string {
		t.Helper()
		if r.status != 200 {
			t.Fatalf("list: %d %s", r.status, r.raw)
		}
		var out []string
		for _, x := range r.body[key].([]any) {
			out = append(out, x.(map[string]any)["slug"].(string))
		}
		return out
	}
	if got := slugsOf(se.setter.do("GET", "/api/admin/problems?q=ALPHA", nil), "problems"); !slices.Equal(got, []string{"alpha-one", "alpha-two"}) {
		t.Fatalf("search alpha: %v", got)
	}
	// Paging through everything, one at a time.
	var all []string
	cursor := ""
	for range 10 {
		r := se.admin.do("GET", "/api/admin/problems?limit=1"+cursor, nil)
		all = append(all, slugsOf(r, "problems")...)
		next, _ := r.body["next_cursor"].(string)
		if next == "" {
			break
		}
		cursor = "&cursor=" + next
	}
	if !slices.Equal(all, []string{"a-plus-b", "alpha-one", "alpha-two", "beta"}) {
		t.Fatalf("paged problems: %v", all)
	}
	if got := slugsOf(se.admin.do("GET", "/api/admin/contests?q=alpha", nil), "contests"); !slices.Equal(got, []string{"hidden-alpha"}) {
		t.Fatalf("search contests: %v", got)
	}
	if got := slugsOf(se.admin.do("GET", "/api/admin/contests?q=50%25", nil), "contests"); len(got) != 0 {
		t.Fatalf("a %% is a literal: %v", got)
	}
	if got := slugsOf(se.admin.do("GET", "/api/admin/contests", nil), "contests"); len(got) != 3 {
		t.Fatalf("all contests: %v", got)
	}
	for _, p := range []string{"/api/admin/problems", "/api/admin/contests"} {
		wantErr(t, se.anon.do("GET", p, nil), 401, CodeUnauthorized, "")
		wantErr(t, se.bob.do("GET", p, nil), 403, CodeForbidden, "")
		wantErr(t, se.admin.do("GET", p+"?limit=0", nil), 400, CodeValidation, "limit")
		wantErr(t, se.admin.do("GET", p+"?cursor=x", nil), 400, CodeValidation, "cursor")
		wantErr(t, se.admin.do("GET", p+"?q="+strings.Repeat("x", 101), nil), 400, CodeValidation, "q")
		wantErr(t, se.admin.do("GET", p+"?page=2", nil), 400, CodeValidation, "page")
	}
}

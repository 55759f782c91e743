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

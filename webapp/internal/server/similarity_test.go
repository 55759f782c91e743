package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// similarityFixture reads a source of package similarity's fixtures.
func similarityFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "similarity", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSimilarity: staff rank the pairs of a problem's or a contest's
// sources, the planted copy first, and open a pair side by side with the
// matching regions as byte and line ranges; nobody else may.
func TestSimilarity(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	e.user("root", store.RoleAdmin, "root-password")
	admin := e.client()
	admin.login("root", "root-password")
	e.user("setter", store.RoleSetter, "setter-password")
	setter := e.client()
	setter.login("setter", "setter-password")
	pid := mkProblem(t, e, "maxsub", store.VisibilityPublic)
	r := admin.call("POST", "/api/contests", map[string]any{"slug": "sim-cup", "title": "Sim cup",
		"start_at": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "end_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		"problems": []map[string]any{{"label": "A", "slug": "maxsub"}}})
	if r.status != 201 {
		t.Fatalf("create contest: %d %s", r.status, r.raw)
	}
	cid := int64(r.body["contest"].(map[string]any)["id"].(float64))

	keys := 0
	submit := func(user store.User, contest int64, lang, file string) int64 {
		t.Helper()
		keys++
		sub, _, err := e.st.CreateSubmission(ctx, store.NewSubmission{UserID: user.ID, ProblemID: pid, ContestID: contest,
			Language: lang, Source: similarityFixture(t, file), IdemKey: fmt.Sprintf("sim-%d", keys)})
		if err != nil {
			t.Fatal(err)
		}
		return sub.ID
	}
	var u [7]store.User
	for i := range u {
		u[i] = e.user(fmt.Sprintf("student%d", i), store.RoleStudent, "student-password")
	}
	// Practice: a planted copy (u1 copies u0, renamed and reordered) among
	// independent solutions; u0's earlier submission is not final.
	early := submit(u[0], 0, "cpp17", "maxsub/b_divide.cpp")
	orig := submit(u[0], 0, "cpp17", "maxsub/a_kadane.cpp")
	cp := submit(u[1], 0, "cpp20", "maxsub/copy_a.cpp")
	submit(u[2], 0, "cpp17", "maxsub/c_prefix.cpp")
	submit(u[3], 0, "c17", "maxsub/d_brute.c")
	submit(u[4], 0, "py3", "maxsub/f_prefix.py")
	submit(u[5], 0, "java17", "maxsub/h_dp.java")
	// The contest: a Python copy pair and one more.
	pa := submit(u[4], cid, "py3", "maxsub/e_kadane.py")
	pb := submit(u[6], cid, "py3", "maxsub/copy_e.py")
	submit(u[5], cid, "java17", "maxsub/g_Main.java")

	pairOf := func(r resp, i int) (a, b int64, score float64) {
		ps := r.body["pairs"].([]any)
		p := ps[i].(map[string]any)
		a = int64(p["a"].(map[string]any)["submission_id"].(float64))
		b = int64(p["b"].(map[string]any)["submission_id"].(float64))
		return min(a, b), max(a, b), p["score"].(float64)
	}
	for _, c := range []*client{admin, setter} {
		r := c.do("GET", "/api/similarity?problem=maxsub", nil)
		if r.status != 200 {
			t.Fatalf("similarity: %d %s", r.status, r.raw)
		}
		// Finals only, one per user: u0's early one is out, and so are
		// u4's and u5's practice ones (their contest ones came later).
		if r.body["sources"].(float64) != 7 || r.body["checked"].(float64) != 7 || r.body["scope"] != "problem maxsub" {
			t.Fatalf("similarity: %s", r.raw)
		}
		if a, b, score := pairOf(r, 0); a != orig || b != cp || score < 0.5 {
			t.Fatalf("first pair %d-%d (%.2f), want the planted copy %d-%d: %s", a, b, score, orig, cp, r.raw)
		}
		if len(r.body["pairs"].([]any)) < 2 {
			t.Fatalf("want the python copy too: %s", r.raw)
		}
		if a, b, _ := pairOf(r, 1); a != pa || b != pb {
			t.Fatalf("second pair %d-%d, want %d-%d", a, b, pa, pb)
		}
		for i := 2; i < len(r.body["pairs"].([]any)); i++ {
			if _, _, score := pairOf(r, i); score > 0.25 {
				t.Errorf("independent pair %d scores %.2f: %s", i, score, r.raw)
			}
		}
	}
	r = admin.do("GET", "/api/similarity?contest=sim-cup&limit=1", nil)
	if r.status != 200 || r.body["sources"].(float64) != 3 || len(r.body["pairs"].([]any)) != 1 {
		t.Fatalf("contest similarity: %d %s", r.status, r.raw)
	}
	if a, b, _ := pairOf(r, 0); a != pa || b != pb {
		t.Fatalf("contest pair %d-%d, want %d-%d", a, b, pa, pb)
	}
	if r := admin.do("GET", "/api/similarity?problem=maxsub&all=1", nil); r.status != 200 || r.body["sources"].(float64) != 10 {
		t.Fatalf("all submissions: %d %s", r.status, r.raw)
	}

	// Side by side.
	r = setter.do("GET", fmt.Sprintf("/api/similarity/compare?a=%d&b=%d", orig, cp), nil)
	if r.status != 200 {
		t.Fatalf("compare: %d %s", r.status, r.raw)
	}
	regions := r.body["regions"].([]any)
	if len(regions) < 3 {
		t.Fatalf("compare: %d regions, want the reordered functions: %s", len(regions), r.raw)
	}
	srcA := r.body["a"].(map[string]any)["source"].(string)
	srcB := r.body["b"].(map[string]any)["source"].(string)
	if srcA != similarityFixture(t, "maxsub/a_kadane.cpp") || r.body["b"].(map[string]any)["username"] != "student1" {
		t.Fatalf("compare sides: %.300s", r.raw)
	}
	for _, g := range regions {
		for side, src := range map[string]string{"a": srcA, "b": srcB} {
			sp := g.(map[string]any)[side].(map[string]any)
			s, en := int(sp["start"].(float64)), int(sp["end"].(float64))
			if s < 0 || en > len(src) || s >= en || sp["line_start"].(float64) < 1 || sp["line_end"].(float64) < sp["line_start"].(float64) {
				t.Fatalf("region %v out of the source", sp)
			}
		}
	}
	if r := admin.do("GET", fmt.Sprintf("/api/similarity/compare?a=%d&b=%d", early, cp), nil); r.status != 200 {
		t.Fatalf("compare: %d", r.status)
	}

	// Who and what.
	student := e.client()
	student.login("student0", "student-password")
	anon := e.client()
	wantErr(t, anon.do("GET", "/api/similarity?problem=maxsub", nil), 401, CodeUnauthorized, "")
	wantErr(t, student.do("GET", "/api/similarity?problem=maxsub", nil), 403, CodeForbidden, "")
	wantErr(t, anon.do("GET", fmt.Sprintf("/api/similarity/compare?a=%d&b=%d", orig, cp), nil), 401, CodeUnauthorized, "")
	wantErr(t, student.do("GET", fmt.Sprintf("/api/similarity/compare?a=%d&b=%d", orig, cp), nil), 403, CodeForbidden, "")
	for q, want := range map[string]struct {
		status      int
		code, field string
	}{
		"":                               {400, CodeValidation, "contest"},
		"problem=maxsub&contest=sim-cup": {400, CodeValidation, "contest"},
		"problem=nope":                   {404, CodeNotFound, "problem"},
		"contest=nope":                   {404, CodeNotFound, "contest"},
		"problem=maxsub&all=maybe":       {400, CodeValidation, "all"},
		"problem=maxsub&limit=0":         {400, CodeValidation, "limit"},
		"problem=maxsub&limit=x":         {400, CodeValidation, "limit"},
		"problem=maxsub&k=5":             {400, CodeValidation, "k"},
	} {
		wantErr(t, admin.do("GET", "/api/similarity?"+q, nil), want.status, want.code, want.field)
	}
	for q, want := range map[string]struct {
		status      int
		code, field string
	}{
		fmt.Sprintf("a=%d", orig):              {400, CodeValidation, "b"},
		fmt.Sprintf("a=x&b=%d", cp):            {400, CodeValidation, "a"},
		fmt.Sprintf("a=%d&b=999999", orig):     {404, CodeNotFound, ""},
		fmt.Sprintf("a=%d&b=%d&c=1", orig, cp): {400, CodeValidation, "c"},
	} {
		wantErr(t, admin.do("GET", "/api/similarity/compare?"+q, nil), want.status, want.code, want.field)
	}
}

// randomProgram writes a C++ solution of random structure (nested loops
// and conditions over a few statement shapes), so that two of them share
// single statements but not long runs: the independent bulk of
// TestSimilarityThreeThousand.
func randomProgram(r *rand.Rand) string {
	var b strings.Builder
	v := func() string { return string(rune('a' + r.IntN(12))) }
	var block func(depth, n int)
	block = func(depth, n int) {
		ind := strings.Repeat("  ", depth+1)
		for range n {
			switch k := r.IntN(12); {
			case k < 2 && depth < 3:
				fmt.Fprintf(&b, "%sfor (int %s = %d; %s < n; %s += %d) {\n", ind, v(), r.IntN(3), v(), v(), 1+r.IntN(3))
				block(depth+1, 1+r.IntN(3))
				b.WriteString(ind + "}\n")
			case k < 4 && depth < 3:
				fmt.Fprintf(&b, "%sif (%s %s %s) {\n", ind, v(), []string{"<", ">", "==", "!=", "<="}[r.IntN(5)], v())
				block(depth+1, 1+r.IntN(2))
				if r.IntN(2) == 0 {
					b.WriteString(ind + "} else {\n")
					block(depth+1, 1)
				}
				b.WriteString(ind + "}\n")
			case k < 5 && depth < 3:
				fmt.Fprintf(&b, "%swhile (%s > 0) {\n", ind, v())
				block(depth+1, 1+r.IntN(2))
				b.WriteString(ind + "}\n")
			case k == 5:
				fmt.Fprintf(&b, "%s%s = max(%s, %s[%s] - %d);\n", ind, v(), v(), v(), v(), r.IntN(9))
			case k == 6:
				fmt.Fprintf(&b, "%s%s %s= %s;\n", ind, v(), []string{"+", "-", "*", "^", "|"}[r.IntN(5)], v())
			case k == 7:
				fmt.Fprintf(&b, "%ssort(%s.begin(), %s.end());\n", ind, v(), v())
			case k == 8:
				fmt.Fprintf(&b, "%sprintf(\"%%lld\\n\", %s);\n", ind, v())
			case k == 9:
				fmt.Fprintf(&b, "%s%s.push_back(%s %% %d);\n", ind, v(), v(), 2+r.IntN(90))
			case k == 10:
				fmt.Fprintf(&b, "%slong long %s = %s[%s] + %s[%s + 1];\n", ind, v(), v(), v(), v(), v())
			default:
				fmt.Fprintf(&b, "%s%s = (%s * %d + %s) %% 1000000007;\n", ind, v(), v(), r.IntN(100), v())
			}
		}
	}
	b.WriteString("#include <bits/stdc++.h>\nusing namespace std;\n\nint main() {\n  int n;\n  scanf(\"%d\", &n);\n")
	block(0, 15+r.IntN(15))
	b.WriteString("  return 0;\n}\n")
	return b.String()
}

// TestSimilarityThreeThousand: a planted copy among 3,000 submissions of
// one problem (100 users, all=1) is ranked first through the whole API
// path, MySQL included. The time is logged, not asserted (make bench
// prints the figure).
func TestSimilarityThreeThousand(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	e.user("root", store.RoleAdmin, "root-password")
	admin := e.client()
	admin.login("root", "root-password")
	pid := mkProblem(t, e, "bulk", store.VisibilityPublic)
	h, err := account.HashPassword("x-password", 4)
	if err != nil {
		t.Fatal(err)
	}
	var users []int64
	for i := range 100 {
		u, err := e.st.CreateUser(ctx, store.User{Username: fmt.Sprintf("bulk%d", i), DisplayName: "b", Role: store.RoleStudent, PasswordHash: h})
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u.ID)
	}
	r := rand.New(rand.NewPCG(3, 4))
	var orig, cp int64
	start := time.Now()
	for i := range 3000 {
		src := randomProgram(r)
		switch i {
		case 1000:
			src = similarityFixture(t, "maxsub/a_kadane.cpp")
		case 2501:
			src = similarityFixture(t, "maxsub/copy_a.cpp")
		}
		sub, _, err := e.st.CreateSubmission(ctx, store.NewSubmission{UserID: users[i%len(users)], ProblemID: pid,
			Language: "cpp17", Source: src, IdemKey: fmt.Sprintf("bulk-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		switch i {
		case 1000:
			orig = sub.ID
		case 2501:
			cp = sub.ID
		}
	}
	t.Logf("3,000 submissions inserted in %v", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	res := admin.do("GET", "/api/similarity?problem=bulk&all=1&limit=20", nil)
	took := time.Since(start)
	if res.status != 200 || res.body["sources"].(float64) != 3000 {
		t.Fatalf("similarity: %d %.500s", res.status, res.raw)
	}
	p := res.body["pairs"].([]any)[0].(map[string]any)
	a := int64(p["a"].(map[string]any)["submission_id"].(float64))
	b := int64(p["b"].(map[string]any)["submission_id"].(float64))
	if min(a, b) != orig || max(a, b) != cp {
		t.Fatalf("first pair %d-%d, want the planted %d-%d: %.1000s", a, b, orig, cp, res.raw)
	}
	if len(res.body["pairs"].([]any)) > 1 {
		if s := res.body["pairs"].([]any)[1].(map[string]any)["score"].(float64); s > p["score"].(float64)/2 {
			t.Errorf("the second pair scores %.2f, the copy %.2f", s, p["score"].(float64))
		}
	}
	t.Logf("GET /api/similarity over 3,000 sources: %v end to end (server: %v ms ranking and loading), %v candidate pairs",
		took.Round(time.Millisecond), res.body["elapsed_ms"], res.body["candidates"])
}

package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func mkProblem(t *testing.T, e *env, slug, vis string) int64 {
	t.Helper()
	id, err := e.st.CreateProblem(context.Background(), store.Problem{Slug: slug, Title: "T " + slug, Statement: "Compute $x$.",
		TimeLimitMs: 1000, MemoryLimitKB: 65536, Checker: store.CheckerFloat, FloatTolerance: 1e-6, Mode: store.ModeICPC,
		Visibility: vis, Languages: store.Languages{"c11"}})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func slugs(r resp, key string) []string {
	var out []string
	list, _ := r.body[key].([]any)
	for _, p := range list {
		out = append(out, p.(map[string]any)["slug"].(string))
	}
	return out
}

func TestProblems(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	mkProblem(t, e, "pub", store.VisibilityPublic)
	mkProblem(t, e, "secret", store.VisibilityPrivate)
	conly := mkProblem(t, e, "in-contest", store.VisibilityContestOnly)
	e.user("setter", store.RoleSetter, "setter-password")
	stu := e.user("stu", store.RoleStudent, "stu-password")
	anon := e.client()
	student := e.client()
	student.login("stu", "stu-password")
	staff := e.client()
	staff.login("setter", "setter-password")

	if got := slugs(anon.do("GET", "/api/problems", nil), "problems"); strings.Join(got, ",") != "pub" {
		t.Fatalf("anonymous list: %v", got)
	}
	if got := slugs(staff.do("GET", "/api/problems", nil), "problems"); strings.Join(got, ",") != "pub,secret,in-contest" {
		t.Fatalf("staff list: %v", got)
	}
	// Cached: a new public problem is invisible until invalidation.
	mkProblem(t, e, "pub2", store.VisibilityPublic)
	if got := slugs(anon.do("GET", "/api/problems", nil), "problems"); len(got) != 1 {
		t.Fatalf("list not cached: %v", got)
	}
	if err := e.srv.Catalog().InvalidateProblems(ctx); err != nil {
		t.Fatal(err)
	}
	if got := slugs(anon.do("GET", "/api/problems", nil), "problems"); strings.Join(got, ",") != "pub,pub2" {
		t.Fatalf("list after invalidation: %v", got)
	}

	r := anon.do("GET", "/api/problems/pub", nil)
	p, _ := r.body["problem"].(map[string]any)
	if r.status != 200 || p["statement"] != "Compute $x$." || p["checker"] != "float" || p["float_tolerance"] != 1e-6 {
		t.Fatalf("get pub: %s", r.raw)
	}
	wantErr(t, anon.do("GET", "/api/problems/secret", nil), 404, CodeNotFound, "")
	wantErr(t, student.do("GET", "/api/problems/secret", nil), 404, CodeNotFound, "")
	if r := staff.do("GET", "/api/problems/secret", nil); r.status != 200 {
		t.Fatalf("staff get secret: %s", r.raw)
	}
	wantErr(t, anon.do("GET", "/api/problems/nope", nil), 404, CodeNotFound, "")
	// Contest-only: visible to a registered participant once the contest started.
	wantErr(t, student.do("GET", "/api/problems/in-contest", nil), 404, CodeNotFound, "")
	cid, err := e.st.CreateContest(ctx, store.Contest{Slug: "c1", Title: "C1", Rule: store.ModeICPC,
		StartAt: time.Now().Add(-time.Minute), EndAt: time.Now().Add(time.Hour), Registration: store.RegistrationOpen, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.AddContestProblem(ctx, cid, conly, "A", 100); err != nil {
		t.Fatal(err)
	}
	wantErr(t, student.do("GET", "/api/problems/in-contest", nil), 404, CodeNotFound, "")
	if err := e.st.AddParticipant(ctx, cid, stu.ID); err != nil {
		t.Fatal(err)
	}
	if r := student.do("GET", "/api/problems/in-contest", nil); r.status != 200 {
		t.Fatalf("participant get contest-only: %s", r.raw)
	}
	wantErr(t, anon.do("GET", "/api/problems/in-contest", nil), 404, CodeNotFound, "")
}

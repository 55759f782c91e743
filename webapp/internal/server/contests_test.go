package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func TestContests(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	pid := mkProblem(t, e, "p1", store.VisibilityPublic)
	now := time.Now()
	mk := func(slug string, start time.Time, visible bool) int64 {
		id, err := e.st.CreateContest(ctx, store.Contest{Slug: slug, Title: slug, Rule: store.ModeICPC, StartAt: start,
			EndAt: start.Add(time.Hour), Registration: store.RegistrationOpen, Visible: visible})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.st.AddContestProblem(ctx, id, pid, "A", 100); err != nil {
			t.Fatal(err)
		}
		return id
	}
	running := mk("running", now.Add(-time.Minute), true)
	mk("future", now.Add(time.Hour), true)
	mk("hidden", now.Add(-time.Minute), false)
	stu := e.user("stu", store.RoleStudent, "stu-password")
	if err := e.st.AddParticipant(ctx, running, stu.ID); err != nil {
		t.Fatal(err)
	}
	anon := e.client()
	if got := slugs(anon.do("GET", "/api/contests", nil), "contests"); strings.Join(got, ",") != "future,running" {
		t.Fatalf("contests: %v", got)
	}
	r := anon.do("GET", "/api/contests/running", nil)
	c, _ := r.body["contest"].(map[string]any)
	if r.status != 200 || c["phase"] != "running" || len(slugs(r, "problems")) != 1 || c["registered"] != nil {
		t.Fatalf("running: %s", r.raw)
	}
	if id, _ := c["id"].(float64); int64(id) != running {
		t.Errorf("contest id = %v, want %d (the live scoreboard channel)", c["id"], running)
	}
	if r := anon.do("GET", "/api/contests/future", nil); len(slugs(r, "problems")) != 0 {
		t.Fatalf("future contest reveals its problems: %s", r.raw)
	}
	wantErr(t, anon.do("GET", "/api/contests/hidden", nil), 404, CodeNotFound, "")
	s := e.client()
	s.login("stu", "stu-password")
	if r := s.do("GET", "/api/contests/running", nil); r.body["contest"].(map[string]any)["registered"] != true {
		t.Fatalf("registered flag: %s", r.raw)
	}
}

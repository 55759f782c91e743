package store

import (
	"context"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/readcache"
)

// InStartedContestOf through the read cache answers as the query does: a
// registered user of a started contest sees its problem; registering
// shows it at once (only true is kept); a contest that has not started,
// or another contest's registration, does not.
func TestInStartedContestOfCached(t *testing.T) {
	plain := migrated(t)
	cached := New(plain.DB)
	cache := readcache.New(readcache.Config{TTL: time.Minute})
	cached.UseReadCache(cache)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	u, err := plain.CreateUser(ctx, User{Username: "alice", DisplayName: "Alice", Role: RoleStudent, PasswordHash: "h"})
	if err != nil {
		t.Fatal(err)
	}
	pid, err := plain.CreateProblem(ctx, Problem{Slug: "p", Title: "P", TimeLimitMs: 1000, MemoryLimitKB: 65536,
		Mode: ModeICPC, Checker: CheckerDefault, Visibility: VisibilityContestOnly, Languages: Languages{}})
	if err != nil {
		t.Fatal(err)
	}
	contest := func(slug string, start time.Time) int64 {
		id, err := plain.CreateContest(ctx, Contest{Slug: slug, Title: slug, Rule: "icpc", StartAt: start, EndAt: start.Add(time.Hour),
			Registration: "open", Visible: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := plain.AddContestProblem(ctx, id, pid, "A", 100); err != nil {
			t.Fatal(err)
		}
		return id
	}
	later := contest("later", now.Add(time.Hour))
	started := contest("started", now.Add(-time.Minute))
	check := func(what string, want bool) {
		t.Helper()
		for _, st := range []*Store{plain, cached} {
			got, err := st.InStartedContestOf(ctx, u.ID, pid, now)
			if err != nil || got != want {
				t.Fatalf("%s (cached %v): %v, %v; want %v", what, st.cache != nil, got, err, want)
			}
		}
	}
	check("registered nowhere", false)
	if err := plain.AddParticipant(ctx, later, u.ID); err != nil {
		t.Fatal(err)
	}
	check("registered in a contest not started", false)
	if err := plain.AddParticipant(ctx, started, u.ID); err != nil {
		t.Fatal(err)
	}
	check("registered in the started one, no purge", true)
	if got, err := cached.InStartedContestOf(ctx, u.ID, pid, now.Add(-2*time.Minute)); err != nil || got {
		t.Fatalf("before the start: %v, %v", got, err)
	}
	if st := cache.Stats(); st.Hits == 0 {
		t.Fatalf("the cache was not used: %+v", st)
	}
}

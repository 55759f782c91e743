package store

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"
)

// TestClarificationKeys: a question sent again with its poster's
// Idempotency-Key is stored once, and the retry gets the first; another
// poster's same key, and no key, are their own; a key that names a
// clarification of another contest is refused.
func TestClarificationKeys(t *testing.T) {
	s := migrated(t)
	ctx := context.Background()
	user := func(name string) sql.NullInt64 {
		u, err := s.CreateUser(ctx, User{Username: name, Role: RoleStudent, PasswordHash: "h"})
		if err != nil {
			t.Fatal(err)
		}
		return sql.NullInt64{Int64: u.ID, Valid: true}
	}
	contest := func(slug string) int64 {
		id, err := s.CreateContest(ctx, Contest{Slug: slug, Title: slug, Rule: "icpc", StartAt: time.Now(), EndAt: time.Now().Add(time.Hour),
			Registration: RegistrationOpen, Visible: true})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	alice, bob := user("alice"), user("bob")
	cup, other := contest("cup"), contest("other")
	ask := func(contest int64, by sql.NullInt64, q, key string) (Clarification, bool, error) {
		return s.AddClarificationOnce(ctx, Clarification{ContestID: contest, UserID: by, Question: sql.NullString{String: q, Valid: true}}, key)
	}
	first, repeated, err := ask(cup, alice, "Is n ≤ 10?", "k1")
	if err != nil || repeated || first.ID == 0 || first.Question.String != "Is n ≤ 10?" {
		t.Fatalf("first: %+v, repeated %v, %v", first, repeated, err)
	}
	again, repeated, err := ask(cup, alice, "Is n ≤ 10? (sent again)", "k1")
	if err != nil || !repeated || again.ID != first.ID || again.Question.String != first.Question.String {
		t.Fatalf("the retry: %+v, repeated %v, %v; want the first (%d), repeated", again, repeated, err, first.ID)
	}
	if b, repeated, err := ask(cup, bob, "Mine", "k1"); err != nil || repeated || b.ID == first.ID {
		t.Fatalf("another poster's same key: %+v, repeated %v, %v; want a clarification of its own", b, repeated, err)
	}
	for range 2 {
		if c, repeated, err := ask(cup, alice, "No key", ""); err != nil || repeated || c.ID == first.ID {
			t.Fatalf("without a key: %+v, repeated %v, %v; want one each time", c, repeated, err)
		}
	}
	if _, _, err := ask(other, alice, "Elsewhere", "k1"); !errors.Is(err, ErrKeyInUse) {
		t.Fatalf("the key in another contest: %v, want ErrKeyInUse", err)
	}
	if byKey, err := s.ClarificationByKey(ctx, alice.Int64, "k1"); err != nil || byKey.ID != first.ID || byKey.ContestID != cup {
		t.Fatalf("alice's k1: %+v, %v; want clarification %d of contest %d", byKey, err, first.ID, cup)
	}
	if _, err := s.ClarificationByKey(ctx, alice.Int64, "k2"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a key never used: %v, want ErrNotFound", err)
	}
	list, err := s.Clarifications(ctx, cup, true, 0)
	if err != nil || len(list) != 4 {
		t.Fatalf("contest cup holds %d clarifications (%v), want 4: alice's keyed one once, bob's, two without a key", len(list), err)
	}
}

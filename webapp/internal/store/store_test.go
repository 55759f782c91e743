package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func migrated(t *testing.T) *Store {
	t.Helper()
	env := testenv.MySQL(t)
	db, err := Open(context.Background(), env.DSN, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := Migrate(context.Background(), env.DSN, MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	return New(db)
}

func TestUsersAndDuplicates(t *testing.T) {
	s := migrated(t)
	ctx := context.Background()
	u, err := s.CreateUser(ctx, User{Username: "alice", DisplayName: "Alice", Role: RoleStudent, PasswordHash: "h"})
	if err != nil {
		t.Fatal(err)
	}
	if u.ID == 0 || u.Username != "alice" || u.CreatedAt.IsZero() || time.Since(u.CreatedAt).Abs() > time.Hour {
		t.Fatalf("created %+v", u)
	}
	_, err = s.CreateUser(ctx, User{Username: "alice", Role: RoleStudent, PasswordHash: "h"})
	var dup *DuplicateError
	if !errors.As(err, &dup) || dup.Key != "uk_users_username" || !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate username: %v", err)
	}
	if _, err := s.UserByUsername(ctx, "bob"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing user: %v", err)
	}
	if err := s.SetPasswordHash(ctx, u.ID, "h2"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPasswordHash(ctx, 999999, "h2"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("set password of missing user: %v", err)
	}
}

// TestHotQueriesUseIndexes runs EXPLAIN on the hot submission queries and
// checks the planned index.
func TestHotQueriesUseIndexes(t *testing.T) {
	s := migrated(t)
	ctx := context.Background()
	tx := s.DB.MustBegin()
	for i := range 2000 {
		var contest any
		if i%3 == 0 {
			contest = i % 7
		}
		tx.MustExec("INSERT INTO submissions (user_id, problem_id, contest_id, language, source) VALUES (?, ?, ?, 'c11', '')",
			i%50, i%40, contest)
		tx.MustExec("INSERT INTO submission_cases (submission_id, case_index, verdict) VALUES (?, 1, 'AC'), (?, 2, 'AC')", i+1, i+1)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	s.DB.MustExec("ANALYZE TABLE submissions, submission_cases")
	for _, tc := range []struct {
		query string
		index string
	}{
		{"SELECT id FROM submissions WHERE id = 1234", "PRIMARY"},
		{"SELECT case_index, verdict FROM submission_cases WHERE submission_id = 1234 ORDER BY case_index", "PRIMARY"},
		{"SELECT id, verdict FROM submissions WHERE user_id = 7 AND id < 1500 ORDER BY id DESC LIMIT 20", "ix_submissions_user"},
		{"SELECT id, verdict FROM submissions WHERE problem_id = 3 ORDER BY id DESC LIMIT 20", "ix_submissions_problem"},
		{"SELECT id, verdict FROM submissions WHERE contest_id = 2 ORDER BY id DESC LIMIT 20", "ix_submissions_contest"},
		{"SELECT id FROM submissions WHERE contest_id = 2 AND user_id = 14 ORDER BY id", "ix_submissions_contest_user"},
		{"SELECT id FROM submissions WHERE verdict = 'queued' AND id > 10 ORDER BY id LIMIT 100", "ix_submissions_verdict"},
	} {
		rows, err := s.DB.QueryxContext(ctx, "EXPLAIN "+tc.query)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for rows.Next() {
			m := map[string]any{}
			if err := rows.MapScan(m); err != nil {
				t.Fatal(err)
			}
			if k, ok := m["key"].([]byte); ok {
				keys = append(keys, string(k))
			}
		}
		rows.Close()
		if len(keys) != 1 || keys[0] != tc.index {
			t.Errorf("EXPLAIN %s\n  uses %v, want %s", tc.query, keys, tc.index)
		}
	}
	// Partition pruning: a lookup by id, or a page below an id cursor,
	// reads one partition (p0 holds ids below 1,000,000).
	for _, q := range []string{
		"SELECT id FROM submissions WHERE id = 1234",
		"SELECT case_index FROM submission_cases WHERE submission_id = 1234",
		"SELECT id FROM submissions WHERE user_id = 7 AND id < 1500 ORDER BY id DESC LIMIT 20",
	} {
		var parts []string
		rows, err := s.DB.QueryxContext(ctx, "EXPLAIN PARTITIONS "+q) // MariaDB's syntax
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			m := map[string]any{}
			if err := rows.MapScan(m); err != nil {
				t.Fatal(err)
			}
			if p, ok := m["partitions"].([]byte); ok {
				parts = append(parts, string(p))
			}
		}
		rows.Close()
		if fmt.Sprint(parts) != "[p0]" {
			t.Errorf("EXPLAIN PARTITIONS %s\n  reads partitions %v, want [p0]", q, parts)
		}
	}
}

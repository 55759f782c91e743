package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestSplitStatements(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"two", "CREATE TABLE a (x INT);\nCREATE TABLE b (y INT);\n", []string{"CREATE TABLE a (x INT)", "CREATE TABLE b (y INT)"}},
		{"no trailing semicolon", "SELECT 1", []string{"SELECT 1"}},
		{"semicolon in quotes", `INSERT INTO t VALUES ('a;b', "c;d", 'it''s;', 'x\';y');`, []string{`INSERT INTO t VALUES ('a;b', "c;d", 'it''s;', 'x\';y')`}},
		{"semicolon in comments", "-- one; two\nSELECT 1; # three; four\n/* five; six */ SELECT 2;", []string{"-- one; two\nSELECT 1", "# three; four\n/* five; six */ SELECT 2"}},
		{"comment only tail", "SELECT 1;\n-- the end;\n", []string{"SELECT 1"}},
		{"backticks", "CREATE TABLE `a;b` (x INT);", []string{"CREATE TABLE `a;b` (x INT)"}},
		{"empty", " ; ;\n", nil},
		{"minus minus without space is not a comment", "SELECT 1--1;SELECT 2", []string{"SELECT 1--1", "SELECT 2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SplitStatements(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"SELECT 'abc", "SELECT 1 /* open", "SELECT `x"} {
		if _, err := SplitStatements(bad); err == nil {
			t.Errorf("SplitStatements(%q) accepted an unterminated token", bad)
		}
	}
}

func FuzzSplitStatements(f *testing.F) {
	f.Add("CREATE TABLE a (x INT); -- c;\nSELECT 'x;y'")
	f.Add("/* ; */ SELECT `;`; # ;")
	f.Fuzz(func(t *testing.T, s string) {
		stmts, err := SplitStatements(s)
		if err != nil {
			return
		}
		for _, st := range stmts {
			if strings.TrimSpace(st) == "" {
				t.Fatalf("empty statement from %q", s)
			}
			// Re-splitting one statement gives it back unchanged.
			again, err := SplitStatements(st)
			if err != nil || len(again) != 1 || again[0] != st {
				t.Fatalf("statement %q re-splits to %q (%v)", st, again, err)
			}
		}
	})
}

func TestEmbeddedMigrations(t *testing.T) {
	migs, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(migs) == 0 || migs[0].Version != 1 {
		t.Fatalf("migrations = %+v", migs)
	}
	for i, m := range migs {
		if m.Version != i+1 {
			t.Errorf("%s: version %d at position %d; versions must be 1..N", m.Name, m.Version, i)
		}
	}
}

func tables(t *testing.T, db *sqlx.DB) map[string]bool {
	t.Helper()
	var names []string
	if err := db.Select(&names, "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()"); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

func TestMigrateFreshAndIdempotent(t *testing.T) {
	env := testenv.MySQL(t)
	ctx := context.Background()
	migs, _ := Migrations()
	n, err := Migrate(ctx, env.DB.DB, MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(migs) {
		t.Fatalf("applied %d, want %d", n, len(migs))
	}
	got := tables(t, env.DB)
	for _, want := range []string{"schema_migrations", "users", "problems", "testdata_versions", "contests",
		"contest_problems", "contest_participants", "submissions", "submission_keys", "submission_cases", "judges"} {
		if !got[want] {
			t.Errorf("table %s missing", want)
		}
	}
	var parts int
	if err := env.DB.Get(&parts, `SELECT COUNT(*) FROM information_schema.partitions
		WHERE table_schema = DATABASE() AND table_name = 'submissions' AND partition_name IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	if parts < 2 {
		t.Errorf("submissions has %d partitions", parts)
	}
	n, err = Migrate(ctx, env.DB.DB, MigrateOptions{})
	if err != nil || n != 0 {
		t.Fatalf("second Migrate = %d, %v; want 0, nil", n, err)
	}
}

func TestMigrateConcurrent(t *testing.T) {
	env := testenv.MySQL(t)
	migs, _ := Migrations()
	const nodes = 3
	var wg sync.WaitGroup
	applied := make([]int, nodes)
	errs := make([]error, nodes)
	for i := range nodes {
		db, err := Open(context.Background(), env.DSN, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		wg.Go(func() { applied[i], errs[i] = Migrate(context.Background(), db.DB, MigrateOptions{}) })
	}
	wg.Wait()
	total := 0
	for i := range nodes {
		if errs[i] != nil {
			t.Fatalf("migrator %d: %v", i, errs[i])
		}
		total += applied[i]
	}
	if total != len(migs) {
		t.Fatalf("migrators applied %v in total %d, want %d", applied, total, len(migs))
	}
	var rows int
	if err := env.DB.Get(&rows, "SELECT COUNT(*) FROM schema_migrations"); err != nil || rows != len(migs) {
		t.Fatalf("schema_migrations has %d rows (%v), want %d", rows, err, len(migs))
	}
}

func TestMigrateDetectsEditedMigration(t *testing.T) {
	env := testenv.MySQL(t)
	ctx := context.Background()
	migs, _ := Migrations()
	if _, err := Migrate(ctx, env.DB.DB, MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	edited := append([]Migration(nil), migs...)
	edited[0].Checksum = strings.Repeat("0", 64)
	if _, err := migrate(ctx, env.DB.DB, edited, MigrateOptions{}); !errors.Is(err, ErrMigrationChanged) {
		t.Fatalf("edited migration: %v, want ErrMigrationChanged", err)
	}
}

func TestMigrateLockTimeout(t *testing.T) {
	env := testenv.MySQL(t)
	ctx := context.Background()
	holder, err := env.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	var got int
	if err := holder.QueryRowContext(ctx, "SELECT GET_LOCK("+lockName+", 1)").Scan(&got); err != nil || got != 1 {
		t.Fatalf("take lock: %d %v", got, err)
	}
	start := time.Now()
	if _, err := Migrate(ctx, env.DB.DB, MigrateOptions{LockTimeout: time.Second}); !errors.Is(err, ErrMigrationLock) {
		t.Fatalf("Migrate while locked = %v, want ErrMigrationLock", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("lock wait did not honour LockTimeout")
	}
}

func migrated(t *testing.T) *Store {
	t.Helper()
	env := testenv.MySQL(t)
	db, err := Open(context.Background(), env.DSN, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := Migrate(context.Background(), db.DB, MigrateOptions{}); err != nil {
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

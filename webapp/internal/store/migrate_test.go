package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"

	"github.com/verdict-oj/verdict/internal/testenv"
)

// plainDSN is the test database's DSN without multiStatements (testenv
// turns it on for its own use), as a web node's DSN is: the migrations must
// not depend on the caller's DSN allowing several statements.
func plainDSN(t *testing.T, env *testenv.MySQLEnv) string {
	t.Helper()
	c, err := mysql.ParseDSN(env.DSN)
	if err != nil {
		t.Fatal(err)
	}
	c.MultiStatements = false
	return c.FormatDSN()
}

// migrationDB is openMigrationDB(dsn), closed when the test ends.
func migrationDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := openMigrationDB(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// loadTestMigrations loads migrations from files (name -> SQL text).
func loadTestMigrations(t *testing.T, files map[string]string) []Migration {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys["m/"+name] = &fstest.MapFile{Data: []byte(text)}
	}
	migs, err := loadMigrations(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	return migs
}

// recorded lists the versions in schema_migrations.
func recorded(t *testing.T, db *sqlx.DB) []int {
	t.Helper()
	var vs []int
	if err := db.Select(&vs, "SELECT version FROM schema_migrations ORDER BY version"); err != nil {
		t.Fatal(err)
	}
	return vs
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
	n, err := Migrate(ctx, plainDSN(t, env), MigrateOptions{})
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
	n, err = Migrate(ctx, plainDSN(t, env), MigrateOptions{})
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
	dsn := plainDSN(t, env)
	for i := range nodes {
		wg.Go(func() { applied[i], errs[i] = Migrate(context.Background(), dsn, MigrateOptions{}) })
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
	if _, err := Migrate(ctx, plainDSN(t, env), MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	edited := append([]Migration(nil), migs...)
	edited[0].Checksum = strings.Repeat("0", 64)
	if _, err := migrate(ctx, migrationDB(t, plainDSN(t, env)), edited, MigrateOptions{}); !errors.Is(err, ErrMigrationChanged) {
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
	if _, err := Migrate(ctx, plainDSN(t, env), MigrateOptions{LockTimeout: time.Second}); !errors.Is(err, ErrMigrationLock) {
		t.Fatalf("Migrate while locked = %v, want ErrMigrationLock", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("lock wait did not honour LockTimeout")
	}
}

// A file with several statements is applied whole by the server: semicolons
// inside quotes, backticks and comments of every kind are not statement
// ends, and every statement runs.
func TestMigrateMultiStatementFile(t *testing.T) {
	env := testenv.MySQL(t)
	ctx := context.Background()
	migs := loadTestMigrations(t, map[string]string{
		"0001_several.sql": `-- a comment; with a semicolon
CREATE TABLE a (x INT, s VARCHAR(20)) ENGINE=InnoDB; # another; comment
/* a block; comment */
CREATE TABLE ` + "`b;c`" + ` (y INT) ENGINE=InnoDB;
INSERT INTO a VALUES (1, 'x;y'), (2, "it's;"), (3, 'q\';r');
INSERT INTO a VALUES (4, 'it''s');
-- a comment after the last statement; and a blank line

`,
	})
	n, err := migrate(ctx, migrationDB(t, plainDSN(t, env)), migs, MigrateOptions{})
	if err != nil || n != 1 {
		t.Fatalf("migrate = %d, %v; want 1, nil", n, err)
	}
	got := tables(t, env.DB)
	if !got["a"] || !got["b;c"] {
		t.Fatalf("tables = %v, want a and b;c", got)
	}
	var ss []string
	if err := env.DB.Select(&ss, "SELECT s FROM a ORDER BY x"); err != nil {
		t.Fatal(err)
	}
	if want := []string{"x;y", "it's;", "q';r", "it's"}; strings.Join(ss, "|") != strings.Join(want, "|") {
		t.Fatalf("rows = %q, want %q", ss, want)
	}
	if vs := recorded(t, env.DB); len(vs) != 1 || vs[0] != 1 {
		t.Fatalf("recorded %v, want [1]", vs)
	}
}

// A failing statement stops its migration: the statements before it stay
// applied (DDL is not transactional), those after it do not run, the
// migration is not recorded and no later migration runs. Run again, it
// fails again rather than being skipped.
func TestMigrateFailingStatement(t *testing.T) {
	env := testenv.MySQL(t)
	ctx := context.Background()
	migs := loadTestMigrations(t, map[string]string{
		"0001_ok.sql":    "CREATE TABLE one (x INT);\nCREATE TABLE two (x INT);\n",
		"0002_bad.sql":   "CREATE TABLE before_bad (x INT);\nINSERT INTO no_such_table VALUES (1);\nCREATE TABLE after_bad (x INT);\n",
		"0003_later.sql": "CREATE TABLE later (x INT);\n",
	})
	db := migrationDB(t, plainDSN(t, env))
	n, err := migrate(ctx, db, migs, MigrateOptions{})
	if err == nil || !strings.Contains(err.Error(), "0002_bad.sql") || !strings.Contains(err.Error(), "no_such_table") {
		t.Fatalf("migrate = %d, %v; want the failure of 0002_bad.sql", n, err)
	}
	if n != 1 {
		t.Fatalf("applied %d before the failure, want 1", n)
	}
	if vs := recorded(t, env.DB); len(vs) != 1 || vs[0] != 1 {
		t.Fatalf("recorded %v, want [1]", vs)
	}
	got := tables(t, env.DB)
	for name, want := range map[string]bool{"one": true, "two": true, "before_bad": true, "after_bad": false, "later": false} {
		if got[name] != want {
			t.Errorf("table %s exists = %v, want %v", name, got[name], want)
		}
	}
	// The connection is still usable (the lock was released on it) and a
	// second run tries 0002 again.
	if _, err := migrate(ctx, db, migs, MigrateOptions{LockTimeout: time.Second}); err == nil || !strings.Contains(err.Error(), "0002_bad.sql") {
		t.Fatalf("second migrate = %v; want 0002_bad.sql to fail again", err)
	}
	if vs := recorded(t, env.DB); len(vs) != 1 {
		t.Fatalf("recorded %v after the second run, want [1]", vs)
	}
}

// A migration file changed after it was applied is refused, and nothing
// after it is applied.
func TestMigrateRefusesChangedFile(t *testing.T) {
	env := testenv.MySQL(t)
	ctx := context.Background()
	db := migrationDB(t, plainDSN(t, env))
	v1 := loadTestMigrations(t, map[string]string{"0001_a.sql": "CREATE TABLE a (x INT);\n"})
	if _, err := migrate(ctx, db, v1, MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	v2 := loadTestMigrations(t, map[string]string{
		"0001_a.sql": "CREATE TABLE a (x BIGINT);\n",
		"0002_b.sql": "CREATE TABLE b (x INT);\n",
	})
	n, err := migrate(ctx, db, v2, MigrateOptions{})
	if !errors.Is(err, ErrMigrationChanged) || n != 0 {
		t.Fatalf("changed file: %d, %v; want 0, ErrMigrationChanged", n, err)
	}
	if tables(t, env.DB)["b"] {
		t.Fatal("0002 was applied after a changed 0001")
	}
}

// Only the migration connection accepts several statements in one query:
// the application's pool (Open) does not.
func TestMultiStatementsOnlyWhileMigrating(t *testing.T) {
	env := testenv.MySQL(t)
	ctx := context.Background()
	app, err := Open(ctx, plainDSN(t, env), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	if _, err := app.ExecContext(ctx, "DO 1; DO 2"); err == nil {
		t.Fatal("the application pool ran two statements in one query")
	}
	if _, err := migrationDB(t, plainDSN(t, env)).ExecContext(ctx, "DO 1; DO 2"); err != nil {
		t.Fatalf("migration connection: %v", err)
	}
}

func TestLoadMigrationsRefusesEmptyFile(t *testing.T) {
	fsys := fstest.MapFS{"m/0001_empty.sql": &fstest.MapFile{Data: []byte(" \n")}}
	if _, err := loadMigrations(fsys, "m"); !errors.Is(err, ErrBadMigration) {
		t.Fatalf("empty file: %v, want ErrBadMigration", err)
	}
}

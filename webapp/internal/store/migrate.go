package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Errors of Migrate.
var (
	// ErrMigrationLock: another process held the migration lock longer than
	// MigrateOptions.LockTimeout.
	ErrMigrationLock = errors.New("store: migration lock not acquired")
	// ErrMigrationChanged: an applied migration's file differs from what was
	// applied. Migrations are append-only; write a new one instead.
	ErrMigrationChanged = errors.New("store: applied migration was edited")
	// ErrBadMigration: an embedded migration file is malformed.
	ErrBadMigration = errors.New("store: bad migration file")
)

// DefaultLockTimeout is how long Migrate waits for another node's migration.
const DefaultLockTimeout = 2 * time.Minute

// Migration is one embedded schema migration.
type Migration struct {
	Version  int
	Name     string // file name, e.g. "0001_initial.sql"
	Checksum string // hex SHA-256 of the file
	// SQL is the whole file, sent as one multi-statement query: the server
	// splits it, so quoting, comments and semicolons follow its own rules.
	SQL string
}

// Migrations returns the embedded migrations in version order.
func Migrations() ([]Migration, error) {
	return loadMigrations(migrationFS, "migrations")
}

func loadMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("store: read migrations: %w", err)
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("%w: %s: want NNNN_name.sql", ErrBadMigration, name)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("%w: %s and %s have version %d", ErrBadMigration, prev, name, v)
		}
		seen[v] = name
		b, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("store: read migration %s: %w", name, err)
		}
		if strings.TrimSpace(string(b)) == "" {
			return nil, fmt.Errorf("%w: %s is empty", ErrBadMigration, name)
		}
		sum := sha256.Sum256(b)
		out = append(out, Migration{Version: v, Name: name, Checksum: hex.EncodeToString(sum[:]), SQL: string(b)})
	}
	slices.SortFunc(out, func(a, b Migration) int { return a.Version - b.Version })
	return out, nil
}

// MigrateOptions configures Migrate.
type MigrateOptions struct {
	// LockTimeout bounds the wait for the migration lock. Default
	// DefaultLockTimeout.
	LockTimeout time.Duration
	// Logger. Default: discard.
	Logger *slog.Logger
}

const createMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INT          NOT NULL,
  name       VARCHAR(255) NOT NULL,
  checksum   CHAR(64)     NOT NULL,
  applied_at DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (version)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`

// The lock is per database (several databases may share a server, as tests
// do); names are limited to 64 characters, hence the hash.
const lockName = `CONCAT('verdict.migrate.', LEFT(SHA2(DATABASE(), 256), 40))`

// Migrate applies the embedded migrations not yet recorded in
// schema_migrations, in order, holding a MySQL named lock (GET_LOCK) for
// the database so that concurrent callers apply each migration once. It
// returns how many migrations this call applied. Applied migrations whose
// file changed fail with ErrMigrationChanged; versions in the database that
// this binary does not know (a newer node migrated first) are logged and
// left alone, so migrations must stay backward compatible for one release.
//
// dsn is the database's go-sql-driver DSN (as for Open). Migrate opens a
// connection of its own with the same settings plus multiStatements, sends
// each file whole and closes it: the application's own pool needs no
// multiStatements.
//
// DDL is not transactional in MySQL: a migration failing half-way leaves
// its earlier statements applied (the server stops at the failing one) and
// is not recorded; fix forward.
func Migrate(ctx context.Context, dsn string, opt MigrateOptions) (int, error) {
	migs, err := Migrations()
	if err != nil {
		return 0, err
	}
	db, err := openMigrationDB(dsn)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return migrate(ctx, db, migs, opt)
}

// openMigrationDB is a one-connection pool on dsn, with Open's settings
// (FixDSN) and multiStatements on.
func openMigrationDB(dsn string) (*sql.DB, error) {
	fixed, err := FixDSN(dsn)
	if err != nil {
		return nil, err
	}
	cfg, err := mysql.ParseDSN(fixed)
	if err != nil {
		return nil, fmt.Errorf("store migrate: parse dsn: %w", err)
	}
	cfg.MultiStatements = true
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("store migrate: %w", err)
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	return db, nil
}

func migrate(ctx context.Context, db *sql.DB, migs []Migration, opt MigrateOptions) (applied int, err error) {
	if opt.LockTimeout <= 0 {
		opt.LockTimeout = DefaultLockTimeout
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("store migrate: connect: %w", err)
	}
	defer conn.Close()

	var got sql.NullInt64
	secs := int(opt.LockTimeout.Round(time.Second) / time.Second)
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK("+lockName+", ?)", max(secs, 1)).Scan(&got); err != nil {
		return 0, fmt.Errorf("store migrate: get lock: %w", err)
	}
	if !got.Valid || got.Int64 != 1 {
		return 0, fmt.Errorf("%w after %v", ErrMigrationLock, opt.LockTimeout)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, rerr := conn.ExecContext(rctx, "DO RELEASE_LOCK("+lockName+")"); rerr != nil && err == nil {
			err = fmt.Errorf("store migrate: release lock: %w", rerr)
		}
	}()

	if _, err := conn.ExecContext(ctx, createMigrationsTable); err != nil {
		return 0, fmt.Errorf("store migrate: create schema_migrations: %w", err)
	}
	done := map[int]string{}
	rows, err := conn.QueryContext(ctx, "SELECT version, checksum FROM schema_migrations")
	if err != nil {
		return 0, fmt.Errorf("store migrate: read schema_migrations: %w", err)
	}
	for rows.Next() {
		var v int
		var sum string
		if err := rows.Scan(&v, &sum); err != nil {
			rows.Close()
			return 0, fmt.Errorf("store migrate: read schema_migrations: %w", err)
		}
		done[v] = sum
	}
	if err := rows.Close(); err != nil {
		return 0, fmt.Errorf("store migrate: read schema_migrations: %w", err)
	}
	known := map[int]bool{}
	for _, m := range migs {
		known[m.Version] = true
		if sum, ok := done[m.Version]; ok && sum != m.Checksum {
			return 0, fmt.Errorf("%w: %s (applied checksum %s, file %s)", ErrMigrationChanged, m.Name, sum, m.Checksum)
		}
	}
	for v := range done {
		if !known[v] {
			log.Warn("database has a migration this binary does not know; a newer node applied it", "version", v)
		}
	}
	for _, m := range migs {
		if _, ok := done[m.Version]; ok {
			continue
		}
		start := time.Now()
		if _, err := conn.ExecContext(ctx, m.SQL); err != nil {
			return applied, fmt.Errorf("store migrate: %s: %w", m.Name, err)
		}
		if _, err := conn.ExecContext(ctx,
			"INSERT INTO schema_migrations (version, name, checksum) VALUES (?, ?, ?)",
			m.Version, m.Name, m.Checksum); err != nil {
			return applied, fmt.Errorf("store migrate: record %s: %w", m.Name, err)
		}
		applied++
		log.Info("applied migration", "migration", m.Name, "duration", time.Since(start))
	}
	return applied, nil
}

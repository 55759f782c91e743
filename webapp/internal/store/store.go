package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"

	"github.com/verdict-oj/verdict/webapp/internal/readcache"
)

// Errors of queries.
var (
	// ErrNotFound: no row matched.
	ErrNotFound = errors.New("store: not found")
	// ErrDuplicate: a unique key was violated (wrapped in *DuplicateError).
	ErrDuplicate = errors.New("store: duplicate")
)

// DuplicateError says which unique key a write violated.
type DuplicateError struct {
	Key string // e.g. "uk_users_username"
}

func (e *DuplicateError) Error() string { return "store: duplicate value for " + e.Key }

// Unwrap makes errors.Is(err, ErrDuplicate) true.
func (e *DuplicateError) Unwrap() error { return ErrDuplicate }

// OpenOptions tunes the connection pool. Zero values take the defaults.
type OpenOptions struct {
	MaxOpenConns    int           // default 32
	MaxIdleConns    int           // default MaxOpenConns
	ConnMaxLifetime time.Duration // default 5m
}

// Store runs the webapp's queries on a MySQL pool.
type Store struct {
	DB *sqlx.DB
	// cache keeps the hot reads (cached.go); nil: none.
	cache *readcache.Cache
}

// New wraps an open pool.
func New(db *sqlx.DB) *Store { return &Store{DB: db} }

// UseReadCache makes the hot reads (cached.go) go through c. The web node
// purges c after every write that may change what it keeps.
func (s *Store) UseReadCache(c *readcache.Cache) { s.cache = c }

// Open connects to dsn (a go-sql-driver DSN) with the settings the schema
// relies on: parseTime, times in UTC on both sides, utf8mb4. It pings
// before returning.
func Open(ctx context.Context, dsn string, opt OpenOptions) (*sqlx.DB, error) {
	cfg, err := FixDSN(dsn)
	if err != nil {
		return nil, err
	}
	db, err := sqlx.Open("mysql", cfg)
	if err != nil {
		return nil, fmt.Errorf("store open: %w", err)
	}
	// Idle connections are kept up to the pool's size: with fewer, a burst
	// closes the extra ones when it ends and the next burst dials them
	// again (a new connection is a TCP handshake, a login and the session
	// time zone: 853 of them in a 5-minute rehearsal at 1,500 contestants
	// with 32 open and 16 idle).
	open := orDefault(opt.MaxOpenConns, 32)
	db.SetMaxOpenConns(open)
	db.SetMaxIdleConns(orDefault(opt.MaxIdleConns, open))
	db.SetConnMaxLifetime(orDefault(opt.ConnMaxLifetime, 5*time.Minute))
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store open: ping: %w", err)
	}
	return db, nil
}

// FixDSN returns dsn with parseTime on, the UTC location and session time
// zone, and utf8mb4, whatever the caller passed for those.
func FixDSN(dsn string) (string, error) {
	c, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("store: parse mysql dsn: %w", err)
	}
	c.ParseTime = true
	c.Loc = time.UTC
	// A server that stops answering must not hang a web node: bounded
	// dial, and reads and writes that give up (callers' contexts are
	// shorter still). Explicit values in the DSN win.
	if c.Timeout == 0 {
		c.Timeout = 5 * time.Second
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = 30 * time.Second
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 30 * time.Second
	}
	if c.Params == nil {
		c.Params = map[string]string{}
	}
	c.Params["time_zone"] = "'+00:00'"
	// A query with arguments is sent as one statement with its values
	// written in by the driver, not prepared, executed and closed: one
	// round trip instead of two for every such query (and each waits for a
	// core on a busy machine). Safe with utf8mb4, the only character set
	// used; the driver prepares instead when it cannot write a value.
	c.InterpolateParams = true
	if c.Collation == "" || c.Collation == "utf8mb4_general_ci" {
		c.Collation = "utf8mb4_unicode_ci"
	}
	return c.FormatDSN(), nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// mapErr turns driver errors into this package's sentinels.
func mapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if me, ok := errors.AsType[*mysql.MySQLError](err); ok && me.Number == 1062 {
		return fmt.Errorf("%s: %w", op, &DuplicateError{Key: duplicateKey(me.Message)})
	}
	return fmt.Errorf("%s: %w", op, err)
}

// duplicateKey extracts the key name from "Duplicate entry 'x' for key
// 'uk_users_username'" (MySQL 8 prefixes it with the table name).
func duplicateKey(msg string) string {
	const marker = "for key '"
	i := len(msg) - 1
	for ; i >= 0; i-- {
		if i+len(marker) <= len(msg) && msg[i:i+len(marker)] == marker {
			break
		}
	}
	if i < 0 {
		return ""
	}
	k := msg[i+len(marker):]
	if n := len(k); n > 0 && k[n-1] == '\'' {
		k = k[:n-1]
	}
	for j := len(k) - 1; j >= 0; j-- {
		if k[j] == '.' {
			return k[j+1:]
		}
	}
	return k
}

func sqlxIn(q string, args ...any) (string, []any, error) {
	q, a, err := sqlx.In(q, args...)
	if err != nil {
		return "", nil, fmt.Errorf("store: expand IN: %w", err)
	}
	return q, a, nil
}

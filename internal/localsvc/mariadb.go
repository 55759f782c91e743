package localsvc

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"
)

// MariaDBConfig configures a local MariaDB server.
type MariaDBConfig struct {
	// Dir holds the datadir ("data"), the socket, the pid file and the
	// error log. Required. Reused as it is when it already holds a datadir.
	Dir string
	// Port is the loopback TCP port. Required: OnFreePort chooses one,
	// and another when StartMariaDB fails with ErrPortInUse.
	Port int
	// Fast trades durability for speed (no doublewrite, no flush per
	// commit): for tests, never for data you care about. Default false.
	Fast bool
	// StatementStats turns on performance_schema, whose statement digests
	// (events_statements_summary_by_digest) say which statements took the
	// server's time: a profile of MariaDB for load runs. It costs a few
	// per cent of the server's CPU. Default false.
	StatementStats bool
	// BufferPool is innodb_buffer_pool_size in bytes. Default 128 MiB.
	BufferPool int64
	// ReadyTimeout bounds the wait for the server to answer. Default 60 s.
	ReadyTimeout time.Duration
	// Log receives the server's own output. Default io.Discard.
	Log io.Writer
}

// MariaDB is a running local MariaDB server. Its root user has no password
// and is reachable on the socket and on 127.0.0.1.
type MariaDB struct {
	cfg  MariaDBConfig
	proc *Proc
}

// Socket returns the path of the server's Unix socket.
func (m *MariaDB) Socket() string { return filepath.Join(m.cfg.Dir, "mysqld.sock") }

// Port returns the loopback TCP port.
func (m *MariaDB) Port() int { return m.cfg.Port }

// Proc returns the server process.
func (m *MariaDB) Proc() *Proc { return m.proc }

// RootDSN returns a go-sql-driver DSN for root over the Unix socket, on
// database db (may be empty).
func (m *MariaDB) RootDSN(db string) string {
	c := mysql.NewConfig()
	c.User = "root"
	c.Net = "unix"
	c.Addr = m.Socket()
	c.DBName = db
	c.ParseTime = true
	c.MultiStatements = true
	return c.FormatDSN()
}

// StartMariaDB initialises the datadir if it is new, starts the server and
// waits until it answers.
func StartMariaDB(ctx context.Context, cfg MariaDBConfig) (*MariaDB, error) {
	if cfg.Dir == "" || cfg.Port == 0 {
		return nil, fmt.Errorf("mariadb: Dir and Port are required")
	}
	if cfg.BufferPool == 0 {
		cfg.BufferPool = 128 << 20
	}
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = 60 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	server, err := lookPath("mariadbd", "mysqld")
	if err != nil {
		return nil, fmt.Errorf("mariadb: %w", err)
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("mariadb: %w", err)
	}
	cfg.Dir = dir
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("mariadb: %w", err)
	}
	// A private tmpdir: a starting mariadbd deletes every "#sql*" file in
	// its tmpdir as a leftover of its own crash, so two instances sharing
	// /tmp (parallel test packages, a test stack beside `make run`) delete
	// each other's temporary tables. CI once lost a bootstrap to it
	// ("Could not remove temporary table /tmp/#sql-temptable-…").
	tmpdir := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmpdir, 0o750); err != nil {
		return nil, fmt.Errorf("mariadb: %w", err)
	}
	if _, err := os.Stat(filepath.Join(data, "mysql")); os.IsNotExist(err) {
		if err := installDB(ctx, tmpdir, data); err != nil {
			return nil, err
		}
	}
	m := &MariaDB{cfg: cfg}
	errorLog := filepath.Join(dir, "error.log")
	args := []string{server,
		"--no-defaults",
		"--datadir=" + data,
		"--tmpdir=" + tmpdir,
		"--socket=" + m.Socket(),
		"--port=" + strconv.Itoa(cfg.Port),
		"--bind-address=127.0.0.1",
		"--pid-file=" + filepath.Join(dir, "mysqld.pid"),
		"--log-error=" + errorLog,
		"--skip-name-resolve",
		"--skip-log-bin",
		"--character-set-server=utf8mb4",
		"--collation-server=utf8mb4_unicode_ci",
		"--max-connections=500",
		"--innodb-buffer-pool-size=" + strconv.FormatInt(cfg.BufferPool, 10),
	}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	if cfg.StatementStats {
		args = append(args, "--performance-schema=ON")
	}
	if cfg.Fast {
		args = append(args, "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0",
			"--sync-binlog=0", "--innodb-flush-method=nosync", "--skip-innodb-adaptive-hash-index")
	}
	// The server writes its messages to the error log, appending: where
	// it ended says what this start added.
	var logFrom int64
	if fi, err := os.Stat(errorLog); err == nil {
		logFrom = fi.Size()
	}
	m.proc, err = StartProcess("mariadb", cfg.Log, dir, nil, args...)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("mysql", m.RootDSN(""))
	if err != nil {
		_ = m.proc.Stop(time.Second)
		return nil, fmt.Errorf("mariadb: %w", err)
	}
	defer db.Close()
	err = waitFor(ctx, m.proc, cfg.ReadyTimeout, func(ctx context.Context) error {
		return db.PingContext(ctx)
	})
	if err != nil {
		_ = m.proc.Stop(5 * time.Second)
		if bindFailed(errorLog, logFrom) {
			return nil, fmt.Errorf("mariadb: port %d: %w (%w)", cfg.Port, ErrPortInUse, err)
		}
		return nil, fmt.Errorf("mariadb: %w (see %s)", err, errorLog)
	}
	return m, nil
}

// bindFailed reports whether the error log says, after offset from, that
// the server could not bind its port ("Can't start server: Bind on TCP/IP
// port. Got error: 98: Address already in use").
func bindFailed(errorLog string, from int64) bool {
	f, err := os.Open(errorLog)
	if err != nil {
		return false
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return false
	}
	w := &BindWatch{}
	_, _ = io.Copy(w, f)
	return w.Seen()
}

func installDB(ctx context.Context, tmpdir, data string) error {
	install, err := lookPath("mariadb-install-db", "mysql_install_db")
	if err != nil {
		return fmt.Errorf("mariadb: %w", err)
	}
	// Install into a scratch directory and rename, so that an interrupted
	// initialisation never leaves a half-made datadir that looks complete.
	tmp := data + ".init"
	_ = os.RemoveAll(tmp)
	args := []string{"--no-defaults", "--datadir=" + tmp,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	cmd := exec.CommandContext(ctx, install, args...)
	// The bootstrap server takes its tmpdir from TMPDIR (it reads no
	// option file here).
	cmd.Env = append(os.Environ(), "TMPDIR="+tmpdir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("mariadb: %s: %w\n%s", install, err, out)
	}
	if err := os.Rename(tmp, data); err != nil {
		return fmt.Errorf("mariadb: %w", err)
	}
	return nil
}

// Stop shuts the server down cleanly (SIGTERM), killing it after 30 s.
func (m *MariaDB) Stop() error { return m.proc.Stop(30 * time.Second) }

// StatementDigest is one normalised statement's totals since the server
// started (performance_schema.events_statements_summary_by_digest).
type StatementDigest struct {
	Text         string        // the normalised statement, values as "?"
	Count        int64         // times run
	Total        time.Duration // server time, all runs
	RowsExamined int64         // rows read, all runs
}

// StatementDigests returns the n statements that took the most server
// time, most first. It needs MariaDBConfig.StatementStats; without it,
// an error saying so.
func (m *MariaDB) StatementDigests(ctx context.Context, n int) ([]StatementDigest, error) {
	db, err := sql.Open("mysql", m.RootDSN(""))
	if err != nil {
		return nil, fmt.Errorf("mariadb digests: %w", err)
	}
	defer db.Close()
	var on string
	if err := db.QueryRowContext(ctx, "SELECT @@performance_schema").Scan(&on); err != nil {
		return nil, fmt.Errorf("mariadb digests: %w", err)
	}
	if on != "1" && on != "ON" {
		return nil, fmt.Errorf("mariadb digests: performance_schema is off (MariaDBConfig.StatementStats)")
	}
	// Timers are in picoseconds.
	rows, err := db.QueryContext(ctx, `SELECT COALESCE(DIGEST_TEXT, ''), COUNT_STAR, SUM_TIMER_WAIT DIV 1000, SUM_ROWS_EXAMINED
		FROM performance_schema.events_statements_summary_by_digest
		WHERE SCHEMA_NAME IS NULL OR SCHEMA_NAME NOT IN ('performance_schema', 'mysql')
		ORDER BY SUM_TIMER_WAIT DESC LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("mariadb digests: %w", err)
	}
	defer rows.Close()
	var out []StatementDigest
	for rows.Next() {
		var d StatementDigest
		var ns int64
		if err := rows.Scan(&d.Text, &d.Count, &ns, &d.RowsExamined); err != nil {
			return nil, fmt.Errorf("mariadb digests: %w", err)
		}
		d.Total = time.Duration(ns)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("mariadb digests: %w", err)
	}
	return out, nil
}

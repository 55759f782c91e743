package stack

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/verdict-oj/verdict/internal/localsvc"
)

// ErrNothingRunnable is returned when not even MariaDB and Redis can start.
var ErrNothingRunnable = errors.New("stack: nothing to run")

// Stack is the local stack supervisor.
type Stack struct {
	cfg Config
	// uidBase is the first sandbox uid of the stack's judges
	// (freeUIDBase).
	uidBase int
	log     *slog.Logger
	con     *console

	mariadb *localsvc.MariaDB
	redis   *localsvc.Redis
	running []*supervised // in start order
	idx     int
	ready   chan struct{}

	demoLogins string
	skipped    []string
}

// New validates cfg and returns a Stack ready to Run.
func New(cfg Config) (*Stack, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("stack: %w", err)
	}
	cfg.Dir = dir
	for _, p := range []*string{&cfg.BinDir, &cfg.StaticDir} {
		if *p, err = filepath.Abs(*p); err != nil {
			return nil, fmt.Errorf("stack: %w", err)
		}
	}
	s := &Stack{cfg: cfg, con: &console{w: cfg.Out, color: cfg.Color, width: 8}, ready: make(chan struct{})}
	s.log = cfg.Logger
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(s.con.prefixed("stack", 0), nil))
	}
	return s, nil
}

// Ready is closed once every available component is up.
func (s *Stack) Ready() <-chan struct{} { return s.ready }

// Pids returns the process ids of everything the stack runs now, by name.
// Valid after Ready.
func (s *Stack) Pids() map[string]int {
	m := map[string]int{}
	if s.mariadb != nil {
		m["mariadb"] = s.mariadb.Proc().Pid()
	}
	if s.redis != nil {
		m["redis"] = s.redis.Proc().Pid()
	}
	for _, r := range s.running {
		m[r.c.name] = r.pid()
	}
	return m
}

// Restarts returns, by component name, how many times the supervisor has
// restarted each component after it exited on its own (a Kill and Start
// is not counted). Fault drills use it to prove that nothing crashed.
func (s *Stack) Restarts() map[string]int {
	m := map[string]int{}
	for _, r := range s.running {
		r.mu.Lock()
		m[r.c.name] = r.restarts
		r.mu.Unlock()
	}
	return m
}

// MySQLAppDSN is the DSN the web nodes use (user verdict over TCP).
func (s *Stack) MySQLAppDSN() (string, error) {
	pw, err := s.secret("mysql-verdict-password")
	if err != nil {
		return "", err
	}
	c := mysql.NewConfig()
	c.User = "verdict"
	c.Passwd = pw
	c.Net = "tcp"
	c.Addr = "127.0.0.1:" + strconv.Itoa(s.cfg.MySQLPort)
	c.DBName = "verdict"
	c.ParseTime = true
	return c.FormatDSN(), nil
}

// RedisAddr is the stack's Redis address.
func (s *Stack) RedisAddr() string { return "127.0.0.1:" + strconv.Itoa(s.cfg.RedisPort) }

// URL is where users open Verdict.
func (s *Stack) URL() string { return "http://127.0.0.1:" + strconv.Itoa(s.cfg.HTTPPort) + "/" }

// Run starts everything, blocks until ctx is cancelled, then stops
// everything in reverse order.
func (s *Stack) Run(ctx context.Context) error {
	err := s.start(ctx)
	if err == nil {
		close(s.ready)
		<-ctx.Done()
		s.log.Info("stopping the stack")
	}
	s.stop()
	if err != nil && ctx.Err() != nil {
		return nil // interrupted while starting: a clean stop
	}
	return err
}

func (s *Stack) start(ctx context.Context) error {
	if err := os.MkdirAll(s.cfg.Dir, 0o750); err != nil {
		return fmt.Errorf("stack: %w", err)
	}
	s.log.Info("starting", "dir", s.cfg.Dir)
	var err error
	s.mariadb, err = localsvc.StartMariaDB(ctx, localsvc.MariaDBConfig{
		Dir: filepath.Join(s.cfg.Dir, "mysql"), Port: s.cfg.MySQLPort,
		Log: s.con.prefixed("mariadb", s.next()),
	})
	if err != nil {
		return fmt.Errorf("stack: %w: %w", ErrNothingRunnable, err)
	}
	s.log.Info("mariadb ready", "port", s.cfg.MySQLPort, "socket", s.mariadb.Socket())
	if err := s.bootstrapMySQL(ctx); err != nil {
		return err
	}
	s.redis, err = localsvc.StartRedis(ctx, localsvc.RedisConfig{
		Dir: filepath.Join(s.cfg.Dir, "redis"), Port: s.cfg.RedisPort, AOF: true,
		Log: s.con.prefixed("redis", s.next()),
	})
	if err != nil {
		return fmt.Errorf("stack: %w: %w", ErrNothingRunnable, err)
	}
	s.log.Info("redis ready", "addr", s.RedisAddr())

	comps, err := s.components()
	if err != nil {
		return err
	}
	for _, c := range comps {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if ok, why := c.available(); !ok {
			s.log.Warn("skipping component", "component", c.name, "reason", why)
			s.skipped = append(s.skipped, c.name)
			continue
		}
		sv := &supervised{c: c, out: s.con.prefixed(c.name, s.next()), dir: s.cfg.Dir, log: s.log, restart: s.cfg.Restart}
		if err := sv.start(); err != nil {
			return fmt.Errorf("stack: %w", err)
		}
		s.running = append(s.running, sv)
		if err := sv.waitReady(ctx, 60*time.Second); err != nil {
			return fmt.Errorf("stack: %w", err)
		}
		s.log.Info("component ready", "component", c.name, "pid", sv.pid())
		if c.then != nil {
			if err := c.then(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Stack) next() int { s.idx++; return s.idx }

// stop stops components in reverse start order, then Redis and MariaDB.
func (s *Stack) stop() {
	for i := len(s.running) - 1; i >= 0; i-- {
		s.running[i].stop(15 * time.Second)
	}
	s.running = nil
	if s.redis != nil {
		if err := s.redis.Stop(); err != nil {
			s.log.Warn("stop redis", "err", err)
		}
		s.redis = nil
	}
	if s.mariadb != nil {
		if err := s.mariadb.Stop(); err != nil {
			s.log.Warn("stop mariadb", "err", err)
		}
		s.mariadb = nil
	}
	s.log.Info("stopped")
}

// secret returns the named secret under Dir/secrets, creating a random one
// on first use so that a restart reuses it.
func (s *Stack) secret(name string) (string, error) {
	p := filepath.Join(s.cfg.Dir, "secrets", name)
	if b, err := os.ReadFile(p); err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("stack: secret: %w", err)
	}
	v := hex.EncodeToString(b[:])
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("stack: secret: %w", err)
	}
	if err := os.WriteFile(p, []byte(v+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("stack: secret: %w", err)
	}
	return v, nil
}

// bootstrapMySQL creates the verdict database and its user (idempotent).
func (s *Stack) bootstrapMySQL(ctx context.Context) error {
	pw, err := s.secret("mysql-verdict-password")
	if err != nil {
		return err
	}
	db, err := sql.Open("mysql", s.mariadb.RootDSN(""))
	if err != nil {
		return fmt.Errorf("stack: mysql bootstrap: %w", err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS verdict CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci",
		"CREATE USER IF NOT EXISTS 'verdict'@'127.0.0.1' IDENTIFIED BY '" + pw + "'",
		"ALTER USER 'verdict'@'127.0.0.1' IDENTIFIED BY '" + pw + "'",
		"GRANT ALL PRIVILEGES ON verdict.* TO 'verdict'@'127.0.0.1'",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("stack: mysql bootstrap: %w", err)
		}
	}
	return nil
}

// Banner is what the console shows once the stack is up: the URL, the
// demo logins and how to stop.
func (s *Stack) Banner() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n  Verdict is running: %s\n", s.URL())
	if len(s.skipped) > 0 {
		fmt.Fprintf(&b, "  Not running (not built or not implemented yet): %s\n", strings.Join(s.skipped, ", "))
	}
	if s.demoLogins != "" {
		fmt.Fprintf(&b, "\n  Demo logins:\n")
		for _, l := range strings.Split(strings.TrimSpace(s.demoLogins), "\n") {
			if strings.HasPrefix(l, "#") {
				continue
			}
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	fmt.Fprintf(&b, "\n  MySQL:  mariadb -S %s -uroot verdict\n", filepath.Join(s.cfg.Dir, "mysql", "mysqld.sock"))
	fmt.Fprintf(&b, "  Redis:  redis-cli -p %d\n", s.cfg.RedisPort)
	fmt.Fprintf(&b, "  Data:   %s (delete it to start from scratch)\n", s.cfg.Dir)
	fmt.Fprintf(&b, "  Stop:   Ctrl-C\n")
	return b.String()
}

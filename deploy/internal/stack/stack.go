package stack

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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

	// held are the listeners bound for the Go components, by port, until
	// each is handed to its component (bindPorts).
	held map[int]*net.TCPListener
	// httpChosen: the stack chose nginx's port (FreePorts) and may choose
	// another when it is taken.
	httpChosen bool

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

// StatementDigests returns the n statements that took MariaDB the most
// time (Config.MySQLStatementStats must be on).
func (s *Stack) StatementDigests(ctx context.Context, n int) ([]localsvc.StatementDigest, error) {
	if s.mariadb == nil {
		return nil, errors.New("stack: statement digests: mariadb is not running")
	}
	return s.mariadb.StatementDigests(ctx, n)
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
	if err := s.bindPorts(); err != nil {
		return err
	}
	mysqlLog := s.con.prefixed("mariadb", s.next())
	err := s.startServer(&s.cfg.MySQLPort, func(port int) error {
		var err error
		s.mariadb, err = localsvc.StartMariaDB(ctx, localsvc.MariaDBConfig{
			Dir: filepath.Join(s.cfg.Dir, "mysql"), Port: port, Log: mysqlLog,
			StatementStats: s.cfg.MySQLStatementStats,
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("stack: %w: %w", ErrNothingRunnable, err)
	}
	s.log.Info("mariadb ready", "port", s.cfg.MySQLPort, "socket", s.mariadb.Socket())
	if err := s.bootstrapMySQL(ctx); err != nil {
		return err
	}
	redisLog := s.con.prefixed("redis", s.next())
	err = s.startServer(&s.cfg.RedisPort, func(port int) error {
		var err error
		s.redis, err = localsvc.StartRedis(ctx, localsvc.RedisConfig{
			Dir: filepath.Join(s.cfg.Dir, "redis"), Port: port, AOF: true, Log: redisLog, Nice: RedisNice,
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("stack: %w: %w", ErrNothingRunnable, err)
	}
	s.log.Info("redis ready", "addr", s.RedisAddr())

	// nginx's port, when the stack chooses it, is chosen when the edge
	// starts (and is available).
	s.httpChosen = s.cfg.HTTPPort == 0
	if s.cfg.Judges > 0 && !setsEnv(s.cfg.Env, "VERDICT_JUDGE_UID_BASE") {
		s.uidBase = freeUIDBase(s.cfg.Dir, s.cfg.Judges)
	}
	comps, err := s.components()
	if err != nil {
		return err
	}
	portTries := 0
	for i := 0; i < len(comps); i++ {
		c := comps[i]
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if ok, why := c.available(); !ok {
			s.log.Warn("skipping component", "component", c.name, "reason", why)
			s.skipped = append(s.skipped, c.name)
			continue
		}
		if c.ownPort != nil && *c.ownPort == 0 {
			// Choose its port, and build it (and those after it, which may
			// name the port) with it.
			if *c.ownPort, err = s.cfg.pickPort(); err != nil {
				return fmt.Errorf("stack: %w", err)
			}
			if comps, err = s.components(); err != nil {
				return err
			}
			c = comps[i]
		}
		sv := &supervised{c: c, out: s.con.prefixed(c.name, s.next()), dir: s.cfg.Dir, log: s.log, restart: s.cfg.Restart}
		for _, h := range c.listeners {
			sv.held = append(sv.held, s.held[h.port])
			delete(s.held, h.port)
		}
		if c.ownPort != nil {
			sv.bind = &localsvc.BindWatch{}
			sv.out = io.MultiWriter(sv.out, sv.bind)
		}
		if err := sv.start(); err != nil {
			sv.release()
			return fmt.Errorf("stack: %w", err)
		}
		s.running = append(s.running, sv)
		err := sv.waitReady(ctx, 60*time.Second)
		if errors.Is(err, localsvc.ErrPortInUse) && c.ownPort != nil && portTries+1 < localsvc.PortAttempts {
			// Its server's port was taken after the stack chose it: the
			// same component again on another (and the components after
			// it, which may name the port, built anew).
			portTries++
			s.log.Warn("port taken; starting again on another", "component", c.name, "port", *c.ownPort)
			sv.stop(15 * time.Second)
			s.running = s.running[:len(s.running)-1]
			*c.ownPort = 0
			i--
			continue
		}
		if err != nil {
			return fmt.Errorf("stack: %w", err)
		}
		portTries = 0
		// Its port is settled: a restart (Kill and Start, a crash) keeps it.
		sv.bind = nil
		s.log.Info("component ready", "component", c.name, "pid", sv.pid())
		if c.then != nil {
			if err := c.then(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// bindPorts binds the ports of the Go components — the web nodes, the hub,
// and the run of admin ports (the edge's, then each judge's) — on free
// ports where the configuration leaves them zero, and records those in
// it. The listeners are held until each is handed to its component: no
// other process can take one of these ports meanwhile.
func (s *Stack) bindPorts() error {
	s.held = map[int]*net.TCPListener{}
	hold := func(p *int) error {
		l, err := localsvc.Listen(*p)
		if err != nil {
			return fmt.Errorf("stack: %w", err)
		}
		*p = l.Addr().(*net.TCPAddr).Port
		s.held[*p] = l
		return nil
	}
	for i := range s.cfg.WebPorts {
		if err := hold(&s.cfg.WebPorts[i]); err != nil {
			return err
		}
	}
	if err := hold(&s.cfg.HubPort); err != nil {
		return err
	}
	if s.cfg.AdminPort != 0 {
		for i := range s.cfg.Judges + 1 {
			if err := hold(ptr(s.cfg.AdminPort + i)); err != nil {
				return err
			}
		}
		return nil
	}
	// A free run of admin ports: a free first one, and the next ones free
	// too, or another first one.
	for range 50 {
		base := 0
		if err := hold(&base); err != nil {
			return err
		}
		run := []int{base}
		for i := 1; i <= s.cfg.Judges; i++ {
			if hold(ptr(base+i)) != nil {
				break
			}
			run = append(run, base+i)
		}
		if len(run) == s.cfg.Judges+1 {
			s.cfg.AdminPort = base
			return nil
		}
		for _, p := range run {
			s.held[p].Close()
			delete(s.held, p)
		}
	}
	return fmt.Errorf("stack: no free run of %d admin ports", s.cfg.Judges+1)
}

func ptr(v int) *int { return &v }

// startServer starts a server that binds its own port (MariaDB, Redis):
// on *port, or when it is zero on a free port chosen by pickPort — another
// each time the server finds its port taken (localsvc.OnFreePort) — which
// it records in *port.
func (s *Stack) startServer(port *int, start func(port int) error) error {
	if *port != 0 {
		return start(*port)
	}
	p, err := localsvc.OnFreePort(s.cfg.pickPort, start)
	if err != nil {
		return err
	}
	*port = p
	return nil
}

func (s *Stack) next() int { s.idx++; return s.idx }

// stop stops components in reverse start order, then Redis and MariaDB.
// Components of one kind started one after another (the web nodes, the
// judges: the same binary) stop together: each web node's drain waits 2 s
// for an edge that is already gone, and one at a time those waits added up.
func (s *Stack) stop() {
	for hi := len(s.running); hi > 0; {
		lo := hi - 1
		for lo > 0 && s.running[lo-1].c.argv[0] == s.running[hi-1].c.argv[0] {
			lo--
		}
		var wg sync.WaitGroup
		for _, sv := range s.running[lo:hi] {
			wg.Go(func() { sv.stop(15 * time.Second) })
		}
		wg.Wait()
		hi = lo
	}
	s.running = nil
	for p, l := range s.held {
		l.Close()
		delete(s.held, p)
	}
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

package stack

import (
	"bytes"
	"context"
	"database/sql"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/localsvc"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// portThief is a Config.pickPort that takes every other port it chooses
// (the first, the third...) away from the stack: it listens on it itself
// right after choosing it, as another process may between the stack's
// choice and its server's bind. The stack must see the port taken and
// start that server again on another.
type portThief struct {
	mu    sync.Mutex
	picks int
	taken []int
	ls    []net.Listener
}

// steal returns a portThief whose ports are given back when t ends.
func steal(t *testing.T) *portThief {
	p := &portThief{}
	t.Cleanup(func() {
		for _, l := range p.ls {
			l.Close()
		}
	})
	return p
}

func (p *portThief) pick() (int, error) {
	port, err := localsvc.FreePort()
	if err != nil {
		return 0, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.picks++
	if p.picks%2 == 1 {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			return 0, err
		}
		p.ls = append(p.ls, l)
		p.taken = append(p.taken, port)
	}
	return port, nil
}

// stolen returns the ports taken so far.
func (p *portThief) stolen() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.taken)
}

// startStack runs a stack on dir and returns it once ready, with a function
// that stops it and waits for Run to return.
func startStack(t *testing.T, cfg Config) (*Stack, func()) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Run(ctx) }()
	select {
	case <-s.Ready():
	case err := <-errc:
		cancel()
		t.Fatalf("stack did not start: %v", err)
	case <-time.After(90 * time.Second):
		cancel()
		t.Fatal("stack not ready after 90s")
	}
	return s, func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("stack Run: %v", err)
		}
	}
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// TestStackRestartKeepsData starts the stack, writes to MySQL (as the web
// nodes' user) and Redis, stops it — every process it started must be gone —
// and starts it again on the same directory: the data is still there. The
// first free port chosen for MariaDB and for Redis is taken by someone
// else each time before the server binds it: the stack starts each on
// another.
func TestStackRestartKeepsData(t *testing.T) {
	dir := t.TempDir()
	out := &syncBuffer{}
	thief := steal(t)
	cfg := Config{
		Dir: dir, BinDir: t.TempDir(), // no component binaries: only MariaDB and Redis run
		FreePorts: true, pickPort: thief.pick, Out: out,
	}
	s, stop := startStack(t, cfg)
	checkPortsNotStolen(t, s, thief, 2)
	dsn, err := s.MySQLAppDSN()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE kept (v VARCHAR(20))"); err != nil {
		t.Fatalf("the web nodes' MySQL user cannot create a table: %v", err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO kept VALUES ('still here')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	rc := redis.NewClient(&redis.Options{Addr: s.RedisAddr()})
	if err := rc.Set(ctx, "kept", "still here", 0).Err(); err != nil {
		t.Fatal(err)
	}
	rc.Close()
	pids := s.Pids()
	if len(pids) != 2 {
		t.Fatalf("pids = %v, want mariadb and redis", pids)
	}
	if !strings.Contains(s.Banner(), "webapp") && !strings.Contains(s.Banner(), "web-1") {
		t.Errorf("banner does not say the web nodes are not running:\n%s", s.Banner())
	}
	stop()
	for name, pid := range pids {
		if alive(pid) {
			t.Errorf("%s (pid %d) still runs after the stack stopped", name, pid)
		}
	}
	for _, want := range []string{"mariadb ready", "redis ready", "skipping component", "stopped"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("console output lacks %q", want)
		}
	}

	s2, stop2 := startStack(t, cfg)
	defer stop2()
	checkPortsNotStolen(t, s2, thief, 4)
	dsn2, err := s2.MySQLAppDSN()
	if err != nil {
		t.Fatal(err)
	}
	if pw := func(dsn string) string { c, _ := mysql.ParseDSN(dsn); return c.Passwd }; pw(dsn2) != pw(dsn) {
		t.Error("the second start generated a new MySQL password instead of reusing it")
	}
	db, err = sql.Open("mysql", dsn2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRowContext(ctx, "SELECT v FROM kept").Scan(&v); err != nil || v != "still here" {
		t.Errorf("MySQL row after restart = %q, %v", v, err)
	}
	rc = redis.NewClient(&redis.Options{Addr: s2.RedisAddr()})
	defer rc.Close()
	if got, err := rc.Get(ctx, "kept").Result(); err != nil || got != "still here" {
		t.Errorf("Redis key after restart = %q, %v (AOF should keep it)", got, err)
	}
}

// checkPortsNotStolen checks that the thief took n ports so far, and that
// the stack's MariaDB, Redis and (when it chose it) nginx run on none of
// them.
func checkPortsNotStolen(t *testing.T, s *Stack, thief *portThief, n int) {
	t.Helper()
	taken := thief.stolen()
	if len(taken) != n {
		t.Errorf("the thief took %d ports (%v), want %d: the stack did not choose the ports it should have", len(taken), taken, n)
	}
	c := s.Config()
	for name, port := range map[string]int{"mariadb": c.MySQLPort, "redis": c.RedisPort, "nginx": c.HTTPPort} {
		if slices.Contains(taken, port) {
			t.Errorf("%s on port %d, which the thief holds", name, port)
		}
	}
}

func TestConsolePrefixesAndBoundsLines(t *testing.T) {
	var b bytes.Buffer
	c := &console{w: &b, width: 4}
	w := c.prefixed("web-1", 1)
	_, _ = w.Write([]byte("hello\nwor"))
	_, _ = w.Write([]byte("ld\r\n"))
	long := bytes.Repeat([]byte("x"), maxLine+10)
	_, _ = w.Write(long)
	got := b.String()
	if !strings.HasPrefix(got, "web-1 | hello\nweb-1 | world\n") {
		t.Errorf("prefixed output = %q", got)
	}
	if !strings.Contains(got, "web-1 | "+strings.Repeat("x", maxLine)+"\n") {
		t.Error("a line longer than maxLine was not flushed in pieces")
	}
	if lw := w.(*lineWriter); len(lw.buf) != 10 {
		t.Errorf("buffered %d bytes, want the 10 left over", len(lw.buf))
	}
}

func TestConfigDefaultsAndValidation(t *testing.T) {
	var c Config
	if err := c.setDefaults(); err != nil {
		t.Fatal(err)
	}
	if c.HTTPPort != 8080 || c.MySQLPort != 13306 || c.RedisPort != 16379 || len(c.WebPorts) != 2 || c.Judges != 0 || c.Dir != "var" {
		t.Errorf("defaults = %+v", c)
	}
	// FreePorts: the zero ports stay zero (chosen at start), and the
	// stack writes the ones it chooses into its own WebPorts only.
	web := make([]int, 3)
	free := Config{FreePorts: true, WebPorts: web, HubPort: 9999}
	if err := free.setDefaults(); err != nil {
		t.Fatal(err)
	}
	free.WebPorts[0] = 1
	if free.HTTPPort != 0 || free.MySQLPort != 0 || free.RedisPort != 0 || free.AdminPort != 0 || free.HubPort != 9999 ||
		len(free.WebPorts) != 3 || web[0] != 0 {
		t.Errorf("FreePorts defaults = %+v (caller's web ports %v)", free, web)
	}
	bad := Config{Judges: 99}
	if err := bad.setDefaults(); err == nil {
		t.Error("99 judges accepted")
	}
}

func TestWithServicesPassesEnvAndExitCode(t *testing.T) {
	out := &syncBuffer{}
	// The command checks both servers answer, then exits 3.
	script := `redis-cli -u "redis://$VERDICT_TEST_REDIS_ADDR" ping && echo "dsn=$VERDICT_TEST_MYSQL_DSN" && exit 3`
	code, err := WithServices(context.Background(), []string{"sh", "-c", script}, out)
	if err != nil {
		t.Fatal(err)
	}
	if code != 3 {
		t.Errorf("exit code = %d, want the command's 3; output:\n%s", code, out)
	}
	if !strings.Contains(out.String(), "PONG") || !strings.Contains(out.String(), "dsn=root@unix(") {
		t.Errorf("the command did not see working services:\n%s", out)
	}
	if _, err := WithServices(context.Background(), nil, out); err == nil {
		t.Error("an empty command was accepted")
	}
}

func TestJudgeCPUs(t *testing.T) {
	two, one, eight, some := []int{0, 1}, []int{0}, []int{0, 1, 2, 3, 4, 5, 6, 7}, []int{2, 3, 6}
	for _, tc := range []struct {
		i, judges int
		cpus      []int
		want      string
	}{
		{1, 2, two, "1"}, {2, 2, two, "0"}, {3, 3, two, "1"},
		{1, 2, one, "0"}, {2, 2, one, "0"},
		{1, 2, eight, "4,5,6,7"}, {2, 2, eight, "0,1,2,3"},
		{1, 3, eight, "6,7"}, {3, 3, eight, "2,3"},
		{1, 2, some, "6"}, {2, 2, some, "3"},
		{1, 1, some, "2,3,6"},
	} {
		if got := judgeCPUs(tc.i, tc.judges, tc.cpus); got != tc.want {
			t.Errorf("judgeCPUs(%d of %d, %v) = %s, want %s", tc.i, tc.judges, tc.cpus, got, tc.want)
		}
	}
	if len(affinity()) == 0 {
		t.Error("no CPUs")
	}
}

func TestWebHashSlots(t *testing.T) {
	for _, tc := range []struct{ cpus, webNodes, want int }{
		{2, 2, 1}, {2, 1, 2}, {8, 2, 4}, {8, 3, 2}, {2, 3, 1}, {1, 2, 1}, {4, 0, 4},
	} {
		if got := webHashSlots(tc.cpus, tc.webNodes); got != tc.want {
			t.Errorf("webHashSlots(%d cores, %d nodes) = %d, want %d", tc.cpus, tc.webNodes, got, tc.want)
		}
	}
}

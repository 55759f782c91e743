package stack

import (
	"bytes"
	"context"
	"database/sql"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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

func freePort(t *testing.T) int {
	t.Helper()
	p, err := localsvc.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
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
// and starts it again on the same directory: the data is still there.
func TestStackRestartKeepsData(t *testing.T) {
	dir := t.TempDir()
	out := &syncBuffer{}
	cfg := Config{
		Dir: dir, BinDir: t.TempDir(), // no component binaries: only MariaDB and Redis run
		MySQLPort: freePort(t), RedisPort: freePort(t), Out: out,
	}
	s, stop := startStack(t, cfg)
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
	dsn2, err := s2.MySQLAppDSN()
	if err != nil {
		t.Fatal(err)
	}
	if dsn2 != dsn {
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

package localsvc

import (
	"context"
	"errors"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestFreePortsAvoidTheEphemeralRange(t *testing.T) {
	for range 20 {
		l, err := Listen(0)
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if port < portLow || port >= portHigh {
			t.Errorf("free port %d outside [%d, %d)", port, portLow, portHigh)
		}
	}
	l, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := Listen(l.Addr().(*net.TCPAddr).Port); err == nil {
		t.Error("a held port listened on twice")
	}
}

func TestBindWatchSeesTheMessageInPieces(t *testing.T) {
	for _, chunks := range [][]string{
		{"2026 [ERROR] Can't start server: Bind on TCP/IP port. Got error: 98: Address already in use\n"},
		{"nginx: [emerg] bind() to 127.0.0.1:8080 failed (98: Address al", "ready in use)\n"},
		{"listen tcp 127.0.0.1:1: bind: address ", "", "already", " in use"},
	} {
		w := &BindWatch{}
		for _, c := range chunks {
			_, _ = w.Write([]byte(c))
		}
		if !w.Seen() {
			t.Errorf("%q: not seen", chunks)
		}
	}
	w := &BindWatch{}
	_, _ = w.Write([]byte("Ready to accept connections tcp\naddress in use elsewhere\n"))
	if w.Seen() {
		t.Error("seen in an unrelated output")
	}
}

func TestOnFreePortTriesAnotherPortOnlyWhenTaken(t *testing.T) {
	ports := []int{1, 2, 3}
	pick := func() (int, error) { p := ports[0]; ports = ports[1:]; return p, nil }
	var tried []int
	port, err := OnFreePort(pick, func(p int) error {
		tried = append(tried, p)
		if p < 3 {
			return ErrPortInUse
		}
		return nil
	})
	if err != nil || port != 3 || len(tried) != 3 {
		t.Errorf("OnFreePort = %d, %v after trying %v; want 3 after 1, 2, 3", port, err, tried)
	}
	other := errors.New("no server binary")
	calls := 0
	if _, err := OnFreePort(func() (int, error) { return 5, nil }, func(int) error { calls++; return other }); !errors.Is(err, other) || calls != 1 {
		t.Errorf("another failure: %v after %d calls, want it at once", err, calls)
	}
	calls = 0
	if _, err := OnFreePort(func() (int, error) { return 5, nil }, func(int) error { calls++; return ErrPortInUse }); !errors.Is(err, ErrPortInUse) || calls != PortAttempts {
		t.Errorf("always taken: %v after %d calls, want ErrPortInUse after %d", err, calls, PortAttempts)
	}
}

// TestRedisOnATakenPort: a Redis whose port another process holds fails
// with ErrPortInUse — also when that process is another Redis, which
// answers PING on the port as if it were the new one.
func TestRedisOnATakenPort(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_, err = StartRedis(ctx, RedisConfig{Dir: t.TempDir(), Port: port})
	l.Close()
	if !errors.Is(err, ErrPortInUse) {
		t.Fatalf("redis on a port a listener holds: %v, want ErrPortInUse", err)
	}
	first, err := StartRedis(ctx, RedisConfig{Dir: t.TempDir(), Port: port})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Stop()
	second, err := StartRedis(ctx, RedisConfig{Dir: t.TempDir(), Port: port})
	if !errors.Is(err, ErrPortInUse) {
		if second != nil {
			second.Stop()
		}
		t.Fatalf("redis on another redis's port %d: %v, want ErrPortInUse", port, err)
	}
}

// niceOf reads a process's niceness.
func niceOf(t *testing.T, pid int) int {
	t.Helper()
	n, err := Niceness(pid)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRedisNice: a store started with a negative Nice runs ahead of this
// process (as root; otherwise at this process's niceness, unchanged).
func TestRedisNice(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var r *Redis
	_, err := OnFreePort(nil, func(port int) (err error) {
		r, err = StartRedis(ctx, RedisConfig{Dir: t.TempDir(), Port: port, Nice: -3})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	self, got := niceOf(t, os.Getpid()), niceOf(t, r.Proc().Pid())
	want := self
	if os.Geteuid() == 0 {
		want = max(self-3, -20)
	}
	if got != want {
		t.Fatalf("redis runs at niceness %d, this process at %d: want %d", got, self, want)
	}
}

// TestRedisAOFRewriteMin: the server runs with the AOF on and rewrites it
// only past the configured size (the default, and one given).
func TestRedisAOFRewriteMin(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		set, want int64
	}{{0, DefaultAOFRewriteMin}, {100 << 20, 100 << 20}} {
		var r *Redis
		_, err := OnFreePort(nil, func(port int) (err error) {
			r, err = StartRedis(ctx, RedisConfig{Dir: t.TempDir(), Port: port, AOF: true, AOFRewriteMin: tc.set})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		c := redis.NewClient(&redis.Options{Addr: r.Addr()})
		got, err := c.ConfigGet(ctx, "auto-aof-rewrite-min-size").Result()
		if err == nil {
			var more map[string]string
			more, err = c.ConfigGet(ctx, "appendonly").Result()
			maps.Copy(got, more)
		}
		c.Close()
		r.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if got["appendonly"] != "yes" || got["auto-aof-rewrite-min-size"] != strconv.FormatInt(tc.want, 10) {
			t.Errorf("AOFRewriteMin %d: server config %v, want appendonly yes and auto-aof-rewrite-min-size %d", tc.set, got, tc.want)
		}
	}
}

func TestNiced(t *testing.T) {
	argv := []string{"/usr/bin/redis-server", "--port", "1"}
	for _, n := range []int{0, 5} {
		if got := Niced(n, argv); !slices.Equal(got, argv) {
			t.Errorf("Niced(%d) = %v, want argv unchanged", n, got)
		}
	}
	got := Niced(-10, argv)
	if os.Geteuid() != 0 {
		if !slices.Equal(got, argv) {
			t.Errorf("Niced(-10) without root = %v, want argv unchanged", got)
		}
		return
	}
	if len(got) != len(argv)+3 || filepath.Base(got[0]) != "nice" || got[1] != "-n" || got[2] != "-10" || !slices.Equal(got[3:], argv) {
		t.Errorf("Niced(-10) = %v", got)
	}
}

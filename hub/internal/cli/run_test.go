package cli

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/leakcheck"
	"github.com/verdict-oj/verdict/internal/localsvc"
	"github.com/verdict-oj/verdict/internal/registry"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m, leakcheck.Goroutines) }

// syncBuffer is a log sink safe for the hub's goroutines and the test.
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

// TestRunRegistersAndDrains runs the whole hub process on a real Redis: it
// registers once ready, serves /readyz, and on stop leaves the registry,
// closes its listener and returns nil with nothing left running.
func TestRunRegistersAndDrains(t *testing.T) {
	rd := testenv.Redis(t)
	port, err := localsvc.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	o, err := Parse([]string{"--listen", addr, "--redis", rd.Addr, "--redis-db", strconv.Itoa(rd.DB),
		"--redis-prefix", rd.Names.Prefix(), "--log-format", "text", "--log-level", "debug"}, func(string) string { return "" }, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o, &logs) }()
	live := func() []string {
		t.Helper()
		m, _, err := registry.Live(context.Background(), rd.Client, rd.Names, rkeys.RoleHub, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(live()) == 0 {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("hub never registered: %v\n%s", <-done, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := live(); len(got) != 1 || got[0] != addr {
		t.Fatalf("registry = %v, want [%s]", got, addr)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := client.Get("http://" + addr + "/readyz")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("readyz: %v %v\n%s", res, err, logs.String())
	}
	res.Body.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v\n%s", err, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not return after the stop")
	}
	if got := live(); len(got) != 0 {
		t.Fatalf("still registered after the drain: %v", got)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatal("still listening after the drain")
	}
}

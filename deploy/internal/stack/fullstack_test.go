package stack

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/localsvc"
)

// built is the bin directory every test of this binary runs its stacks
// from: the components are built once (linking the four binaries took
// seconds of each of a dozen tests), and TestMain removes it.
var built struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildComponents builds every component that has a main package into a
// temporary bin directory, as `make build` does, once for all the tests
// of this binary; none of them changes what it holds.
func buildComponents(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		root, err := filepath.Abs("../../..")
		if err == nil {
			built.dir, err = os.MkdirTemp("", "verdict-stack-test-bin-")
		}
		if err == nil {
			err = Build(root, built.dir)
		}
		built.err = err
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir
}

// processesMentioning returns the pids whose command line contains s.
func processesMentioning(s string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) && e.Name() != "self" {
			pids = append(pids, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return pids
}

func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("GET %s: %s: not JSON: %v", url, b, err)
		}
	}
	return resp.StatusCode
}

// TestFullStack is `make run` twice: the whole stack with demo data comes
// up, answers through nginx, stops without leaving a process behind, and
// comes back on the same ports with the same data and logins. The first
// start is on free ports, and someone else takes the first one chosen for
// MariaDB, for Redis and for nginx before the server binds it: the stack
// starts each on another.
func TestFullStack(t *testing.T) {
	bin := buildComponents(t)
	dir := t.TempDir()
	out := &syncBuffer{}
	thief := steal(t)
	cfg := Config{
		Dir: dir, BinDir: bin, StaticDir: t.TempDir(), Demo: true, Restart: true, Judges: 0, Out: out,
		FreePorts: true, pickPort: thief.pick,
	}
	t.Cleanup(func() {
		if t.Failed() {
			lines := strings.Split(out.String(), "\n")
			t.Logf("last lines of the stack's output:\n%s", strings.Join(lines[max(0, len(lines)-80):], "\n"))
		}
	})
	s, stop := startStack(t, cfg)
	checkPortsNotStolen(t, s, thief, 3)
	checkEdgeNice(t, s)
	if !strings.Contains(out.String(), "port taken; starting again on another") {
		t.Error("the stack did not say that it started the edge again on another port")
	}
	banner := s.Banner()
	for _, want := range []string{s.URL(), "admin ", "student "} {
		if !strings.Contains(banner, want) {
			t.Errorf("banner lacks %q:\n%s", want, banner)
		}
	}
	var problems struct {
		Problems []struct {
			Slug string `json:"slug"`
		} `json:"problems"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		code := getJSON(t, s.URL()+"api/problems", &problems)
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /api/problems through nginx: status %d", code)
		}
		time.Sleep(200 * time.Millisecond)
	}
	found := false
	for _, p := range problems.Problems {
		found = found || p.Slug == "a-plus-b"
	}
	if !found {
		t.Errorf("demo problem a-plus-b not listed through nginx: %+v", problems)
	}
	pids := s.Pids()
	stop()
	for name, pid := range pids {
		if alive(pid) {
			t.Errorf("%s (pid %d) still runs after the stack stopped", name, pid)
		}
	}
	if left := processesMentioning(dir); len(left) > 0 {
		t.Errorf("processes left behind:\n%s", strings.Join(left, "\n"))
	}

	// `make run` again, on the ports the first start chose.
	s2, stop2 := startStack(t, s.Config())
	defer stop2()
	if s2.Banner() != banner {
		t.Errorf("the second start shows other logins:\n%s\nwant:\n%s", s2.Banner(), banner)
	}
	if code := getJSON(t, s2.URL()+"api/problems", nil); code != http.StatusOK {
		t.Errorf("after restart GET /api/problems = %d", code)
	}
}

// checkEdgeNice: the edge, and nginx's master and workers with it, run
// EdgeNice ahead of this process as root (at its niceness otherwise), and
// the web nodes and the hub at this process's.
func checkEdgeNice(t *testing.T, s *Stack) {
	t.Helper()
	self := niceOf(t, os.Getpid())
	want := self
	if os.Geteuid() == 0 {
		want = max(self+EdgeNice, -20)
	}
	pids := s.Pids()
	b, err := os.ReadFile(filepath.Join(s.Dir(), "nginx", "nginx.pid"))
	if err != nil {
		t.Fatal(err)
	}
	master := strings.TrimSpace(string(b))
	b, err = os.ReadFile("/proc/" + master + "/task/" + master + "/children")
	if err != nil {
		t.Fatal(err)
	}
	workers := strings.Fields(string(b))
	if len(workers) == 0 {
		t.Fatalf("nginx's master %s has no workers", master)
	}
	edge := []int{pids["edge"]}
	for _, p := range append([]string{master}, workers...) {
		pid, err := strconv.Atoi(p)
		if err != nil {
			t.Fatal(err)
		}
		edge = append(edge, pid)
	}
	for _, pid := range edge {
		if got := niceOf(t, pid); got != want {
			t.Errorf("process %d of the edge runs at niceness %d, this process at %d: want %d", pid, got, self, want)
		}
	}
	for _, name := range []string{"web-1", "hub"} {
		if got := niceOf(t, pids[name]); got != self {
			t.Errorf("%s runs at niceness %d, want this process's %d", name, got, self)
		}
	}
}

func niceOf(t *testing.T, pid int) int {
	t.Helper()
	n, err := localsvc.Niceness(pid)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// TestPrefetchWarmsDataAndChecker: a prefetch downloads the package and
// compiles its special judge before any task, reports the outcome in a
// heartbeat (also a failure), and the first task then neither downloads
// nor compiles the checker again.
func TestPrefetchWarmsDataAndChecker(t *testing.T) {
	h := newFakeHub(t)
	cases := []testpkg.Case{{In: []byte("1\n"), Ans: []byte("one\n")}, {In: []byte("2\n"), Ans: []byte("two\n")}}
	special := h.addPackage(testpkg.Package{Cases: cases, Checker: []byte(partialChecker)})
	plain := h.addPackage(testpkg.Package{Cases: []testpkg.Case{{In: []byte("3\n"), Ans: []byte("3\n")}}})
	missing := strings.Repeat("ab", 32)
	dir := t.TempDir()
	ra := startAgent(t, h, dir, nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)

	// As the hub sends them: the URL of the plan, or none (the default).
	h.send(protocol.TypePrefetch, protocol.Prefetch{ProblemID: 3, TestData: protocol.TestData{Hash: special}})
	h.send(protocol.TypePrefetch, protocol.Prefetch{ProblemID: 3, TestData: protocol.TestData{Hash: special}}) // a repeat: ignored or a cache hit
	c.until("the first two prefetches reported", 60*time.Second, func() bool { return len(reported(c)) >= 1 })
	h.send(protocol.TypePrefetch, protocol.Prefetch{ProblemID: 4, TestData: protocol.TestData{Hash: plain, URL: h.srv.URL + "/api/judge/testdata/" + plain}})
	h.send(protocol.TypePrefetch, protocol.Prefetch{ProblemID: 5, TestData: protocol.TestData{Hash: missing}})
	c.until("every prefetch reported", 60*time.Second, func() bool {
		r := reported(c)
		_, a := r[special]
		_, b := r[plain]
		_, m := r[missing]
		return a && b && m
	})
	r := reported(c)
	if r[special] != "" || r[plain] != "" {
		t.Errorf("prefetch outcomes %v: want success for %s and %s", r, special[:8], plain[:8])
	}
	if r[missing] == "" {
		t.Errorf("the prefetch of unknown data reported success: %v", r)
	}
	hashes := strings.Join(ra.a.cache.Hashes(), ",")
	if !strings.Contains(hashes, special) || !strings.Contains(hashes, plain) {
		t.Errorf("cache holds %s after the prefetches", hashes)
	}
	bin := filepath.Join(dir, "cache", special, ".build-"+checkerBuild, "checker")
	before, err := os.Stat(bin)
	if err != nil {
		t.Fatalf("the special judge was not compiled by the prefetch: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cache", plain, ".build-"+checkerBuild)); !os.IsNotExist(err) {
		t.Errorf("a package without a special judge got a build: %v", err)
	}

	fetches := h.fetches.Load()
	task := mkTask(3, special, "py3", "n=int(input())\nprint('one' if n==1 else 'half')\n", func(t *protocol.Task) {
		t.Mode = protocol.ModeIOI
		t.Checker = protocol.Checker{Kind: protocol.CheckerSpecial}
	})
	h.send(protocol.TypeTask, task)
	if res := c.result(task.TaskRef, 60*time.Second); res.Verdict != protocol.VerdictWA || res.Score != 75 {
		t.Errorf("task on prefetched data: %+v", res)
	}
	if n := h.fetches.Load(); n != fetches {
		t.Errorf("the task downloaded again (%d fetches, %d before)", n, fetches)
	}
	after, err := os.Stat(bin)
	if err != nil || !after.ModTime().Equal(before.ModTime()) || !os.SameFile(before, after) {
		t.Errorf("the task compiled the special judge again (%v)", err)
	}
}

// reported collects the prefetch outcomes of the heartbeats so far: hash →
// error ("" for success).
func reported(c *collector) map[string]string {
	out := map[string]string{}
	for _, b := range c.beats {
		for _, p := range b.hb.Prefetched {
			out[p.Hash] = p.Error
		}
	}
	return out
}

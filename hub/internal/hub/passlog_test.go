package hub_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/internal/schedtrace"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// TestPassLogServesTheDispatchersPasses: with Config.PassLog the hub
// lists its dispatch passes at /debug/passes — the passes that placed the
// tasks, with their starts and durations, and the ticks' empty ones — and
// a reader paging by next sees each pass once.
func TestPassLogServesTheDispatchersPasses(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, func(c *hub.Config) { c.PassLog = 1000 })
	srv := httptest.NewServer(th.h.PassLogHandler())
	defer srv.Close()
	read := func(after uint64) schedtrace.PassLog {
		t.Helper()
		resp, err := http.Get(srv.URL + "/debug/passes?after=" + strconv.FormatUint(after, 10))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("status %s, content type %q", resp.Status, resp.Header.Get("Content-Type"))
		}
		var pl schedtrace.PassLog
		if err := json.NewDecoder(resp.Body).Decode(&pl); err != nil {
			t.Fatal(err)
		}
		return pl
	}
	begin := time.Now()
	j := newFakeJudge(t, env, "j", 2, func() string { return th.url("/judge") }, 5*time.Millisecond)
	j.start()
	defer j.stop()
	eventually(t, 5*time.Second, "judge ready", func() bool { return j.current() != nil })
	j.waitDispatchable(env)
	enqueue(t, th.h.Queue(), newTask(1, 4, 7), newTask(2, 4, 7), newTask(3, 4, 8))
	waitResults(t, env, 3, 10*time.Second)

	var all []schedtrace.HubPass
	var next uint64
	eventually(t, 5*time.Second, "the passes that placed the 3 tasks listed", func() bool {
		pl := read(next)
		if pl.Next < next || pl.Lost != 0 {
			t.Fatalf("next %d after %d, lost %d", pl.Next, next, pl.Lost)
		}
		all, next = append(all, pl.Passes...), pl.Next
		placed := 0
		for _, p := range all {
			placed += p.Placed
		}
		return placed == 3
	})
	if uint64(len(all)) != next {
		t.Fatalf("%d passes read, next %d: a pass missed or read twice", len(all), next)
	}
	idle := 0
	for i, p := range all {
		if p.StartUs < begin.UnixMicro() || p.StartUs > time.Now().UnixMicro() || p.TookUs < 0 || p.Placed < 0 {
			t.Fatalf("passes[%d] = %+v: not a pass of this test's run", i, p)
		}
		if i > 0 && p.StartUs < all[i-1].StartUs+all[i-1].TookUs {
			t.Fatalf("passes[%d] began at %d, before passes[%d] ended (%d + %d): the dispatcher runs one at a time", i, p.StartUs, i-1, all[i-1].StartUs, all[i-1].TookUs)
		}
		if p.Placed == 0 {
			idle++
		}
	}
	if idle == 0 {
		t.Fatal("no pass that placed nothing logged: the ticks' passes on an empty queue are passes too")
	}

	// Bad input: a JSON error naming the field.
	resp, err := http.Get(srv.URL + "/debug/passes?after=-1")
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Error struct{ Code, Field string } `json:"error"`
	}
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusBadRequest || body.Error.Field != "after" {
		t.Fatalf("after=-1: status %d, body %+v, err %v", resp.StatusCode, body, err)
	}
}

func TestPassLogOff(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	rec := httptest.NewRecorder()
	th.h.PassLogHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/passes", nil))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), `"code":"not_found"`) {
		t.Fatalf("without a log: %d %s", rec.Code, rec.Body.String())
	}
}

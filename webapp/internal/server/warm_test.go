package server

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/warmplan"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

const warmTestdataURL = "https://oj.example/api/judge/testdata/"

func setTestdata(t *testing.T, e *env, problem int64, hash string) {
	t.Helper()
	if err := e.st.AddTestdataVersion(context.Background(), store.TestdataVersion{ProblemID: problem, Hash: hash,
		SizeBytes: 1, CaseCount: 1, Manifest: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
}

func readPlan(t *testing.T, e *env) map[string]warmplan.Contest {
	t.Helper()
	b, err := e.rdb.Get(context.Background(), e.names.WarmPlan()).Bytes()
	if err != nil {
		return nil
	}
	p, err := warmplan.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]warmplan.Contest{}
	for _, c := range p.Contests {
		out[c.Slug] = c
	}
	return out
}

// TestWarmPlanPublished: the web node writes the warm plan — contests that
// have not ended and start within a day, their problems' current test data
// as tasks carry it — at start and at once when a contest or test data
// changes.
func TestWarmPlanPublished(t *testing.T) {
	se := newStaffEnv(t, func(c *Config) { c.Judging.TestdataURL = warmTestdataURL })
	a := mkProblem(t, se.env, "warm-a", "public")
	b := mkProblem(t, se.env, "warm-b", "public")
	mkProblem(t, se.env, "warm-none", "public") // no test data: left out of the plan
	hashA, hashB := strings.Repeat("a", 64), strings.Repeat("b", 64)
	setTestdata(t, se.env, a, hashA)
	setTestdata(t, se.env, b, hashB)
	now := time.Now().UTC().Truncate(time.Second)
	mkContest := func(slug string, start, end time.Time) {
		t.Helper()
		r := se.setter.call("POST", "/api/contests", map[string]any{"slug": slug, "title": slug,
			"start_at": start.Format(time.RFC3339), "end_at": end.Format(time.RFC3339),
			"problems": []map[string]any{{"label": "A", "slug": "warm-a"}, {"label": "B", "slug": "warm-b"}, {"label": "C", "slug": "warm-none"}}})
		if r.status != 201 {
			t.Fatalf("create contest %s: %d %s", slug, r.status, r.raw)
		}
	}
	mkContest("running", now.Add(-time.Hour), now.Add(time.Hour))
	mkContest("ended", now.Add(-3*time.Hour), now.Add(-time.Hour))
	mkContest("next-week", now.Add(7*24*time.Hour), now.Add(7*24*time.Hour+time.Hour))

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { se.srv.Judging().RunWarmPlan(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })

	eventually := func(what string, cond func(map[string]warmplan.Contest) bool) map[string]warmplan.Contest {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			p := readPlan(t, se.env)
			if cond(p) {
				return p
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; plan %+v", what, p)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	p := eventually("the plan at start", func(p map[string]warmplan.Contest) bool { return p["running"].ID != 0 })
	if _, ok := p["ended"]; ok {
		t.Errorf("an ended contest is in the plan: %+v", p)
	}
	if _, ok := p["next-week"]; ok {
		t.Errorf("a contest beyond the horizon is in the plan: %+v", p)
	}
	want := []warmplan.Problem{
		{ID: a, TestData: protocol.TestData{Hash: hashA, URL: warmTestdataURL + hashA}},
		{ID: b, TestData: protocol.TestData{Hash: hashB, URL: warmTestdataURL + hashB}},
	}
	if got := p["running"].Problems; !reflect.DeepEqual(got, want) {
		t.Errorf("problems %+v, want %+v (test data as tasks carry it)", got, want)
	}
	// The URL is the task's: the same code path.
	if td := se.srv.Judging().TestData(hashA); td != want[0].TestData {
		t.Errorf("task test data %+v differs from the plan's %+v", td, want[0].TestData)
	}

	// Changes are published at once, not on the next 10 s rewrite.
	mkContest("soon", now.Add(5*time.Minute), now.Add(2*time.Hour))
	eventually("the new contest", func(p map[string]warmplan.Contest) bool { return p["soon"].ID != 0 })
	r := se.setter.upload("/api/problems/warm-b/testdata", "file", buildPkg(t, 2, false), "")
	if r.status != 201 {
		t.Fatalf("upload test data: %d %s", r.status, r.raw)
	}
	hashB2, _ := r.body["hash"].(string)
	eventually("the new test data", func(p map[string]warmplan.Contest) bool {
		ps := p["soon"].Problems
		return len(ps) == 2 && ps[1].TestData.Hash == hashB2 && ps[1].TestData.URL == warmTestdataURL+hashB2
	})
}

// TestJudgesShowWarmth: GET /api/judges merges the hubs' warm statuses.
func TestJudgesShowWarmth(t *testing.T) {
	se := newStaffEnv(t, nil)
	ctx := context.Background()
	r := se.admin.call("GET", "/api/judges", nil)
	if r.status != 200 {
		t.Fatalf("GET /api/judges: %d %s", r.status, r.raw)
	}
	if w, ok := r.body["warm"].([]any); !ok || len(w) != 0 {
		t.Errorf("warm without hubs = %#v, want []", r.body["warm"])
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	spring := warmplan.ContestStatus{ID: 3, Slug: "spring", Start: now.Add(5 * time.Minute), End: now.Add(3 * time.Hour), Warming: true, Warm: 2, Judges: 3}
	later := warmplan.ContestStatus{ID: 4, Slug: "later", Start: now.Add(2 * time.Hour), End: now.Add(4 * time.Hour), Warm: 0, Judges: 3}
	other := spring
	other.Warm, other.Judges = 1, 1
	for _, h := range []warmplan.HubStatus{
		{Hub: "hub-1", ExpiresAt: now.Add(time.Minute), Contests: []warmplan.ContestStatus{later, spring}},
		{Hub: "hub-2", ExpiresAt: now.Add(time.Minute), Contests: []warmplan.ContestStatus{other}},
		{Hub: "hub-dead", ExpiresAt: now.Add(-time.Minute), Contests: []warmplan.ContestStatus{spring}},
	} {
		b, err := warmplan.EncodeStatus(h)
		if err != nil {
			t.Fatal(err)
		}
		if err := se.rdb.HSet(ctx, se.names.WarmStatus(), h.Hub, b).Err(); err != nil {
			t.Fatal(err)
		}
	}
	r = se.setter.call("GET", "/api/judges", nil)
	if r.status != 200 {
		t.Fatalf("GET /api/judges: %d %s", r.status, r.raw)
	}
	var doc struct {
		Warm []WarmJSON `json:"warm"`
	}
	if err := json.Unmarshal([]byte(r.raw), &doc); err != nil {
		t.Fatal(err)
	}
	want := []WarmJSON{
		{Contest: "spring", ContestID: 3, StartsAt: spring.Start, EndsAt: spring.End, Warming: true, Warm: 3, Judges: 4},
		{Contest: "later", ContestID: 4, StartsAt: later.Start, EndsAt: later.End, Warm: 0, Judges: 3},
	}
	if !reflect.DeepEqual(doc.Warm, want) {
		t.Errorf("warm\n got %+v\nwant %+v", doc.Warm, want)
	}
}

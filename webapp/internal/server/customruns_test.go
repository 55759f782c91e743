package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// addSampleProblem adds a problem of three cases, the first two samples;
// the third's input and answer hold "HIDDEN" so a test can tell whether
// they leaked anywhere.
func (je *judgeEnv) addSampleProblem(slug string) store.Problem {
	t := je.t
	t.Helper()
	ctx := context.Background()
	id, err := je.st.CreateProblem(ctx, store.Problem{Slug: slug, Title: "Problem " + slug, Statement: "…",
		TimeLimitMs: 1500, MemoryLimitKB: 131072, Checker: store.CheckerDefault, Mode: store.ModeICPC,
		Visibility: store.VisibilityPublic, Languages: store.Languages{}})
	if err != nil {
		t.Fatal(err)
	}
	zip, m, err := testpkg.Package{Cases: []testpkg.Case{
		{In: []byte("1 2\n"), Ans: []byte("3\n")},
		{In: []byte("20 22\n"), Ans: []byte("42\n")},
		{In: []byte("HIDDEN 7\n"), Ans: []byte("HIDDEN-ANSWER\n")},
	}, Samples: []int{1, 2}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	hash, err := je.blobs.PutBytes(ctx, zip)
	if err != nil {
		t.Fatal(err)
	}
	mj, _ := json.Marshal(m)
	if err := je.st.AddTestdataVersion(ctx, store.TestdataVersion{ProblemID: id, Hash: hash, SizeBytes: int64(len(zip)),
		CaseCount: 3, Manifest: mj}); err != nil {
		t.Fatal(err)
	}
	p, err := je.st.ProblemBySlug(ctx, slug)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (c *client) customRun(body any) resp {
	c.e.t.Helper()
	return c.do("POST", "/api/custom-runs", body, "X-CSRF-Token", c.csrf)
}

func (je *judgeEnv) customTask(id int64) protocol.Task {
	je.t.Helper()
	payload, err := je.rdb.HGet(context.Background(), je.names.Task(id), "payload").Result()
	if err != nil {
		je.t.Fatal(err)
	}
	var task protocol.Task
	if err := json.Unmarshal([]byte(payload), &task); err != nil {
		je.t.Fatal(err)
	}
	if strings.Contains(payload, "HIDDEN") {
		je.t.Errorf("the task of custom run %d carries a hidden case: %s", id, payload)
	}
	return task
}

func TestCustomRun(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	p := je.addSampleProblem("sum")
	alice := je.student("alice")
	sub := je.rdb.Subscribe(ctx, je.names.Events("user", aliceID(t, je)))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	events := sub.Channel()

	src := "a, b = map(int, input().split())\nprint(a + b)\n"
	r := alice.customRun(map[string]any{"problem": "sum", "language": "py3", "source": src, "input": "5 6\n", "samples": true})
	if r.status != http.StatusAccepted {
		t.Fatalf("custom run: %d %s", r.status, r.raw)
	}
	runID := int64(r.body["run_id"].(float64))
	if !protocol.IsCustomRun(runID) || r.body["status"] != "queued" {
		t.Fatalf("custom run answer %s", r.raw)
	}
	task := je.customTask(runID)
	if task.Custom == nil || task.Custom.Input != "5 6\n" || task.TestData != (protocol.TestData{}) ||
		task.Priority != protocol.PriorityCustom || task.ProblemID != p.ID || task.Limits.TimeMs != 1500 {
		t.Fatalf("task %+v", task)
	}
	if got := task.Custom.Samples; len(got) != 2 || got[0].Case != 1 || got[0].Input != "1 2\n" || got[0].Answer != "3\n" ||
		got[1].Case != 2 || got[1].Answer != "42\n" {
		t.Errorf("samples %+v, want cases 1 and 2 only", got)
	}
	// Without samples: the input only.
	r2 := alice.customRun(map[string]any{"problem": "sum", "language": "py3", "source": src, "input": "1 1\n"})
	if r2.status != http.StatusAccepted {
		t.Fatalf("custom run: %d %s", r2.status, r2.raw)
	}
	if tk := je.customTask(int64(r2.body["run_id"].(float64))); len(tk.Custom.Samples) != 0 {
		t.Errorf("samples given unasked: %+v", tk.Custom.Samples)
	}

	// A judge's result reaches the owner's channel and the API.
	ref := protocol.TaskRef{SubmissionID: runID, Attempt: 1}
	if _, err := je.q.Lease(ctx, ref, "judge-1", time.Minute); err != nil {
		t.Fatal(err)
	}
	res := protocol.Result{TaskRef: ref, Verdict: protocol.VerdictAC, JudgeID: "judge-1", Cases: []protocol.CaseResult{},
		Custom: []protocol.CustomOutput{{Verdict: protocol.VerdictAC, Stdout: "11\n", CPUMs: 9, WallMs: 12, MemoryKiB: 7000},
			{Case: 1, Verdict: protocol.VerdictAC, Stdout: "3\n"}, {Case: 2, Verdict: protocol.VerdictAC, Stdout: "42\n"}}}
	if _, err := je.q.Complete(ctx, "judge-1", res); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(5 * time.Second)
	for final := false; !final; {
		select {
		case m := <-events:
			var ev protocol.Event
			_ = json.Unmarshal([]byte(m.Payload), &ev)
			var st protocol.CustomRunState
			_ = json.Unmarshal(ev.Body, &st)
			final = ev.Kind == protocol.EventCustomRun && st.RunID == runID && st.Status == protocol.VerdictAC && len(st.Runs) == 3
		case <-deadline:
			t.Fatal("no final custom run event on the user channel")
		}
	}
	g := alice.do("GET", fmt.Sprintf("/api/custom-runs/%d", runID), nil)
	runs, _ := g.body["runs"].([]any)
	if g.status != 200 || g.body["status"] != "AC" || len(runs) != 3 || runs[0].(map[string]any)["stdout"] != "11\n" {
		t.Errorf("GET custom run: %d %s", g.status, g.raw)
	}
	bob := je.student("bob")
	wantErr(t, bob.do("GET", fmt.Sprintf("/api/custom-runs/%d", runID), nil), 404, CodeNotFound, "")
	wantErr(t, alice.do("GET", "/api/custom-runs/12", nil), 404, CodeNotFound, "")

	// Not a submission: no row, nothing on the results stream.
	if n := je.count("submissions"); n != 0 {
		t.Errorf("%d submissions after custom runs, want 0", n)
	}
	if n := je.rdb.XLen(ctx, je.names.Results()).Val(); n != 0 {
		t.Errorf("%d results stream entries after a custom run, want 0", n)
	}

	// Bad input.
	wantErr(t, alice.customRun(map[string]any{"problem": "sum", "language": "py3", "source": src,
		"input": strings.Repeat("x", protocol.MaxCustomInput+1)}), http.StatusRequestEntityTooLarge, CodeTooLarge, "input")
	wantErr(t, alice.customRun(map[string]any{"problem": "nope", "language": "py3", "source": src}), 404, CodeNotFound, "problem")
	wantErr(t, alice.customRun(map[string]any{"problem": "sum", "language": "py3", "source": " "}), 400, CodeValidation, "source")
	wantErr(t, alice.customRun(map[string]any{"problem": "sum", "language": "rust", "source": src}), 400, CodeValidation, "language")
	wantErr(t, je.client().do("POST", "/api/custom-runs", map[string]any{"problem": "sum"}), 401, CodeUnauthorized, "")

	// An interactive problem: its interactor is in the test data, which a
	// custom run never gets.
	ip := je.addSampleProblem("guess")
	if _, err := je.st.DB.Exec("UPDATE testdata_versions SET manifest = JSON_SET(manifest, '$.interactive', true) WHERE problem_id = ?", ip.ID); err != nil {
		t.Fatal(err)
	}
	wantErr(t, alice.customRun(map[string]any{"problem": "guess", "language": "py3", "source": src}), 400, CodeValidation, "problem")
}

func aliceID(t *testing.T, je *judgeEnv) int64 {
	t.Helper()
	u, err := je.st.UserByUsername(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

func TestCustomRunRateLimit(t *testing.T) {
	je := newJudgeEnv(t, func(c *Config) { c.CustomRunPerMinute, c.CustomRunBurst = 1, 3 })
	je.addSampleProblem("sum")
	alice, bob := je.student("alice"), je.student("bob")
	body := map[string]any{"problem": "sum", "language": "py3", "source": "print(1)"}
	for i := range 3 {
		if r := alice.customRun(body); r.status != http.StatusAccepted {
			t.Fatalf("run %d: %d %s", i+1, r.status, r.raw)
		}
	}
	r := alice.customRun(body)
	wantErr(t, r, http.StatusTooManyRequests, CodeRateLimited, "")
	if r.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// Per user; and submissions have their own bucket.
	if r := bob.customRun(body); r.status != http.StatusAccepted {
		t.Errorf("another user: %d %s", r.status, r.raw)
	}
	if r := alice.submit("k1", map[string]string{"problem": "sum", "language": "py3", "source": "print(1)"}); r.status != http.StatusCreated {
		t.Errorf("a submission after the custom runs: %d %s", r.status, r.raw)
	}
}

func TestCustomRunContest(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	p := je.addSampleProblem("sum")
	now := time.Now()
	cid, err := je.st.CreateContest(ctx, store.Contest{Slug: "exam", Title: "Exam", Rule: "icpc",
		StartAt: now.Add(-time.Hour), EndAt: now.Add(time.Hour), Registration: store.RegistrationOpen, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := je.st.AddContestProblem(ctx, cid, p.ID, "A", 100); err != nil {
		t.Fatal(err)
	}
	alice := je.student("alice")
	je.user("root", store.RoleAdmin, "root-password")
	admin := je.client()
	admin.login("root", "root-password")
	body := map[string]any{"problem": "sum", "contest": "exam", "language": "py3", "source": "print(1)"}

	if r := alice.do("GET", "/api/contests/exam/custom-runs", nil); r.status != 200 || r.body["enabled"] != true {
		t.Errorf("setting: %d %s, want enabled by default", r.status, r.raw)
	}
	r := alice.customRun(body)
	if r.status != http.StatusAccepted {
		t.Fatalf("custom run in the contest: %d %s", r.status, r.raw)
	}
	if tk := je.customTask(int64(r.body["run_id"].(float64))); tk.Priority != protocol.PriorityCustom {
		t.Errorf("a contest's custom run at priority %d, want %d (below contest submissions)", tk.Priority, protocol.PriorityCustom)
	}
	// A custom run registers nobody (it never reaches the scoreboard).
	if reg, _ := je.st.IsParticipant(ctx, cid, aliceID(t, je)); reg {
		t.Error("a custom run registered the user in the open contest")
	}

	wantErr(t, alice.do("PUT", "/api/contests/exam/custom-runs", map[string]any{"enabled": false}, "X-CSRF-Token", alice.csrf),
		403, CodeForbidden, "")
	if r := admin.do("PUT", "/api/contests/exam/custom-runs", map[string]any{"enabled": false}, "X-CSRF-Token", admin.csrf); r.status != 200 {
		t.Fatalf("turn off: %d %s", r.status, r.raw)
	}
	wantErr(t, alice.customRun(body), 403, CodeCustomRunsOff, "contest")
	// Outside the contest the problem (public) still runs.
	if r := alice.customRun(map[string]any{"problem": "sum", "language": "py3", "source": "print(1)"}); r.status != http.StatusAccepted {
		t.Errorf("practice custom run: %d %s", r.status, r.raw)
	}
	if r := admin.do("PUT", "/api/contests/exam/custom-runs", map[string]any{"enabled": true}, "X-CSRF-Token", admin.csrf); r.status != 200 {
		t.Fatalf("turn on: %d %s", r.status, r.raw)
	}
	if r := alice.customRun(body); r.status != http.StatusAccepted {
		t.Errorf("after turning on: %d %s", r.status, r.raw)
	}
	wantErr(t, admin.do("PUT", "/api/contests/nope/custom-runs", map[string]any{"enabled": true}, "X-CSRF-Token", admin.csrf), 404, CodeNotFound, "")
}

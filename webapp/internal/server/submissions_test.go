package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

const judgeToken = "judge-token-0123456789abcdef0123456789abcdef"

// judgeEnv is an env with a problem that has test data, a live judge
// offering cpp17 and py3 (as the hub records it), and the hub's queue.
type judgeEnv struct {
	*env
	q       *queue.Queue
	blobs   blob.Store
	problem store.Problem
	hash    string
	zip     []byte
}

func newJudgeEnv(t *testing.T, mod func(*Config)) *judgeEnv {
	t.Helper()
	var blobs blob.Store
	e := newEnv(t, func(c *Config) {
		blobs = c.Blobs
		c.SubmitPerMinute = 1000
		// The fake judge is marked alive once; a slow -race run must not
		// outlive the default 15 s window and find "no judge".
		c.Judging.LiveWindow = time.Hour
		if mod != nil {
			mod(c)
		}
	})
	ctx := context.Background()
	je := &judgeEnv{env: e, blobs: blobs}
	var err error
	if je.q, err = queue.New(queue.Config{Client: e.rdb, Names: e.names}); err != nil {
		t.Fatal(err)
	}
	je.problem, je.hash, je.zip = je.addProblem("a-plus-b", store.VisibilityPublic, 3)
	// The judge: token hash → name (web nodes), state with languages (hub).
	sum := sha256.Sum256([]byte(judgeToken))
	if err := e.st.SetJudgeToken(ctx, "judge-1", sum[:]); err != nil {
		t.Fatal(err)
	}
	e.rdb.HSet(ctx, e.names.JudgeTokens(), hex.EncodeToString(sum[:]), "judge-1")
	je.judgeAlive("judge-1", `[{"id":"cpp17","version":"g++ 12.2.0"},{"id":"py3","version":"Python 3.11.2"}]`)
	return je
}

func (je *judgeEnv) judgeAlive(name, langs string) {
	je.rdb.HSet(context.Background(), je.names.Judge(name), "hub", "hub-1", "cores", 4, "running", 0,
		judging.FieldSeenMs, time.Now().UnixMilli(), judging.FieldLanguages, langs)
}

func (je *judgeEnv) addProblem(slug, visibility string, cases int) (store.Problem, string, []byte) {
	t := je.t
	t.Helper()
	ctx := context.Background()
	id, err := je.st.CreateProblem(ctx, store.Problem{Slug: slug, Title: "Problem " + slug, Statement: "…",
		TimeLimitMs: 1000, MemoryLimitKB: 262144, Checker: store.CheckerDefault, Mode: store.ModeICPC,
		Visibility: visibility, Languages: store.Languages{}})
	if err != nil {
		t.Fatal(err)
	}
	var cs []testpkg.Case
	for i := range cases {
		cs = append(cs, testpkg.Case{In: []byte(fmt.Sprintf("%d %d\n", i, i)), Ans: []byte(fmt.Sprintf("%d\n", 2*i))})
	}
	zip, m, err := testpkg.Build(cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := je.blobs.PutBytes(ctx, zip)
	if err != nil {
		t.Fatal(err)
	}
	mj, _ := json.Marshal(m)
	if err := je.st.AddTestdataVersion(ctx, store.TestdataVersion{ProblemID: id, Hash: hash, SizeBytes: int64(len(zip)),
		CaseCount: cases, Manifest: mj}); err != nil {
		t.Fatal(err)
	}
	p, err := je.st.ProblemBySlug(ctx, slug)
	if err != nil {
		t.Fatal(err)
	}
	return p, hash, zip
}

func (je *judgeEnv) student(name string) *client {
	je.t.Helper()
	je.user(name, store.RoleStudent, name+"-password")
	c := je.client()
	if r := c.login(name, name+"-password"); r.status != 200 {
		je.t.Fatalf("login %s: %d %s", name, r.status, r.raw)
	}
	return c
}

func (c *client) submit(key string, body any) resp {
	c.e.t.Helper()
	h := []string{"X-CSRF-Token", c.csrf}
	if key != "" {
		h = append(h, IdempotencyHeader, key)
	}
	return c.do("POST", "/api/submissions", body, h...)
}

func (je *judgeEnv) count(table string) int {
	je.t.Helper()
	var n int
	if err := je.st.DB.Get(&n, "SELECT COUNT(*) FROM "+table); err != nil {
		je.t.Fatal(err)
	}
	return n
}

// judge does what the hub and a judge do: lease the queued task and
// complete it with a result.
func (je *judgeEnv) judge(id int64, attempt int, verdict protocol.Verdict, cases int) protocol.Task {
	je.t.Helper()
	ctx := context.Background()
	ref := protocol.TaskRef{SubmissionID: id, Attempt: attempt}
	if _, err := je.q.Lease(ctx, ref, "judge-1", time.Minute); err != nil {
		je.t.Fatalf("lease %v: %v", ref, err)
	}
	payload, err := je.rdb.HGet(ctx, je.names.Task(id), "payload").Result()
	if err != nil {
		je.t.Fatal(err)
	}
	var task protocol.Task
	if err := json.Unmarshal([]byte(payload), &task); err != nil {
		je.t.Fatalf("task payload %q: %v", payload, err)
	}
	res := protocol.Result{TaskRef: ref, Verdict: verdict, JudgeID: "judge-1"}
	if verdict == protocol.VerdictCE {
		res.CompileMessage = "main.cpp:1: error: expected ';'"
	}
	for i := 1; i <= cases; i++ {
		v := protocol.VerdictAC
		if i == cases && verdict != protocol.VerdictAC {
			v = verdict
		}
		res.Cases = append(res.Cases, protocol.CaseResult{Case: i, Verdict: v, CPUMs: int64(10 * i), WallMs: int64(12 * i), MemoryKiB: int64(1000 + i)})
	}
	if verdict == protocol.VerdictAC {
		res.Score = 100
	}
	if _, err := je.q.Complete(ctx, "judge-1", res); err != nil {
		je.t.Fatalf("complete %v: %v", ref, err)
	}
	return task
}

func (je *judgeEnv) consume() int {
	je.t.Helper()
	n, err := je.srv.Judging().ReadOnce(context.Background(), 0)
	if err != nil {
		je.t.Fatal(err)
	}
	return n
}

func id(r resp) int64 {
	f, _ := r.body["id"].(float64)
	return int64(f)
}

func TestSubmitJudgeAndView(t *testing.T) {
	je := newJudgeEnv(t, func(c *Config) { c.Judging.TestdataURL = "https://oj.example/api/judge/testdata/" })
	ctx := context.Background()
	if err := je.q.EnsureResultsGroup(ctx); err != nil {
		t.Fatal(err)
	}
	alice := je.student("alice")

	langs := alice.do("GET", "/api/languages", nil)
	if langs.status != 200 || !jsonContains(langs.raw, `"id":"cpp17"`) || !jsonContains(langs.raw, `"version":"g++ 12.2.0"`) {
		t.Fatalf("languages: %d %s", langs.status, langs.raw)
	}

	body := map[string]any{"problem": "a-plus-b", "language": "cpp17", "source": "int main(){}"}
	r := alice.submit("key-1", body)
	if r.status != 201 || r.body["status"] != "queued" || id(r) < 1 {
		t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	sid := id(r)
	// A retried POST returns the same submission, 200.
	r2 := alice.submit("key-1", body)
	if r2.status != 200 || id(r2) != sid {
		t.Fatalf("retried submit: %d %s", r2.status, r2.raw)
	}
	if n := je.count("submissions"); n != 1 {
		t.Fatalf("%d submissions after a retried POST", n)
	}
	if pos, _ := je.q.Position(ctx, sid); pos != 1 {
		t.Fatalf("queue position %d, want 1", pos)
	}

	task := je.judge(sid, 1, protocol.VerdictWA, 3)
	if task.Priority != protocol.PriorityPractice || task.TestData.Hash != je.hash ||
		task.TestData.URL != "https://oj.example/api/judge/testdata/"+je.hash || task.Limits.TimeMs != 1000 ||
		task.Language != "cpp17" || task.Source != "int main(){}" || task.Checker.Kind != protocol.CheckerDefault {
		t.Fatalf("task %+v", task)
	}
	// The judge downloads the test data with its token.
	res := rawGet(t, je.ts.URL+"/api/judge/testdata/"+je.hash, "Authorization", "Bearer "+judgeToken)
	if res.status != 200 || res.body != string(je.zip) || res.header.Get("Content-Type") != "application/zip" {
		t.Fatalf("testdata download: %d %d bytes", res.status, len(res.body))
	}
	if n := je.consume(); n != 1 {
		t.Fatalf("consumed %d results, want 1", n)
	}

	d := alice.do("GET", fmt.Sprintf("/api/submissions/%d", sid), nil)
	sub, _ := d.body["submission"].(map[string]any)
	if d.status != 200 || sub["verdict"] != "WA" || sub["case_count"] != float64(3) || sub["source"] != "int main(){}" ||
		sub["time_ms"] != float64(30) || sub["memory_kb"] != float64(1003) || sub["final"] != true {
		t.Fatalf("submission: %d %s", d.status, d.raw)
	}
	cases, _ := sub["cases"].([]any)
	if len(cases) != 3 || cases[2].(map[string]any)["verdict"] != "WA" || cases[0].(map[string]any)["index"] != float64(1) {
		t.Fatalf("cases: %s", d.raw)
	}
	list := alice.do("GET", "/api/submissions?mine=1", nil)
	rows, _ := list.body["submissions"].([]any)
	if list.status != 200 || len(rows) != 1 || rows[0].(map[string]any)["verdict"] != "WA" {
		t.Fatalf("list: %d %s", list.status, list.raw)
	}
	if _, ok := rows[0].(map[string]any)["source"]; ok {
		t.Fatal("a list row carries the source")
	}
	// Statistics: not solved yet; an AC after a rejudge solves it.
	if n, _ := je.st.UserSolvedCount(ctx, 1); n != 0 {
		t.Fatalf("solved %d", n)
	}
}

func jsonContains(s, sub string) bool { return len(s) > 0 && len(sub) > 0 && contains(s, sub) }

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

type rawResp struct {
	status int
	header http.Header
	body   string
}

func rawGet(t *testing.T, url string, hdr ...string) rawResp {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return rawResp{res.StatusCode, res.Header, string(b)}
}

func TestSubmitBadInput(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	je.addProblem("secret", store.VisibilityPrivate, 1)
	pid, _ := je.st.CreateProblem(ctx, store.Problem{Slug: "no-data", Title: "x", Statement: "x", TimeLimitMs: 1000,
		MemoryLimitKB: 1024, Checker: "default", Mode: "icpc", Visibility: "public", Languages: store.Languages{}})
	_ = pid
	cpOnly, _ := je.st.CreateProblem(ctx, store.Problem{Slug: "py-only", Title: "x", Statement: "x", TimeLimitMs: 1000,
		MemoryLimitKB: 1024, Checker: "default", Mode: "icpc", Visibility: "public", Languages: store.Languages{"py3"}})
	_ = je.st.AddTestdataVersion(ctx, store.TestdataVersion{ProblemID: cpOnly, Hash: je.hash, SizeBytes: 1, CaseCount: 3, Manifest: json.RawMessage(`{}`)})
	alice := je.student("alice")
	ok := map[string]any{"problem": "a-plus-b", "language": "cpp17", "source": "x"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range ok {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	big := make([]byte, DefaultMaxSourceBytes+1)
	for i := range big {
		big[i] = 'a'
	}
	tests := []struct {
		name   string
		key    string
		body   any
		status int
		code   string
		field  string
	}{
		{"no idempotency key", "", ok, 400, CodeValidation, IdempotencyHeader},
		{"bad idempotency key", "has space", ok, 400, CodeValidation, IdempotencyHeader},
		{"not json", "k1", "{", 400, CodeInvalidJSON, ""},
		{"unknown field", "k2", with("user_id", 1), 400, CodeValidation, "user_id"},
		{"no problem", "k3", with("problem", nil), 400, CodeValidation, "problem"},
		{"no language", "k4", with("language", nil), 400, CodeValidation, "language"},
		{"bad language id", "k5", with("language", "C++ 17"), 400, CodeValidation, "language"},
		{"empty source", "k6", with("source", "  \n"), 400, CodeValidation, "source"},
		{"source too large", "k7", with("source", string(big)), 413, CodeTooLarge, "source"},
		{"unknown problem", "k8", with("problem", "nope"), 404, CodeNotFound, "problem"},
		{"private problem", "k9", with("problem", "secret"), 404, CodeNotFound, "problem"},
		{"no test data", "k10", with("problem", "no-data"), 409, CodeConflict, "problem"},
		{"language not allowed", "k11", with("problem", "py-only"), 400, CodeValidation, "language"},
		{"no judge offers it", "k12", with("language", "java17"), 400, CodeValidation, "language"},
		{"unknown contest", "k13", with("contest", "nope"), 404, CodeNotFound, "contest"},
		{"wrong type", "k14", with("source", 12), 400, CodeValidation, "source"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, alice.submit(tc.key, tc.body), tc.status, tc.code, tc.field)
		})
	}
	// Without a session, or without the CSRF token: refused.
	anon := je.client()
	wantErr(t, anon.do("POST", "/api/submissions", ok, IdempotencyHeader, "k"), 401, CodeUnauthorized, "")
	wantErr(t, alice.do("POST", "/api/submissions", ok, IdempotencyHeader, "k"), 403, CodeCSRF, "")
	if n := je.count("submissions") + je.count("submission_keys"); n != 0 {
		t.Fatalf("bad input wrote %d rows", n)
	}
	if n, _ := je.q.Len(ctx); n != 0 {
		t.Fatalf("bad input queued %d tasks", n)
	}
	// No live judge at all: a clear refusal, and the languages say why
	// (once what the node kept while a judge was live has aged out).
	je.rdb.Del(ctx, je.names.Judge("judge-1"))
	time.Sleep(judging.LanguagesTTL + 100*time.Millisecond)
	r := alice.do("GET", "/api/languages", nil)
	if r.status != 200 || r.body["notice"] == nil || len(r.body["languages"].([]any)) != 0 {
		t.Fatalf("languages without judges: %s", r.raw)
	}
	wantErr(t, alice.submit("k20", ok), 503, CodeUnavailable, "")
}

func TestSubmitRateLimit(t *testing.T) {
	je := newJudgeEnv(t, func(c *Config) { c.SubmitPerMinute, c.SubmitBurst = 2, 2 })
	alice := je.student("alice")
	body := map[string]any{"problem": "a-plus-b", "language": "py3", "source": "print(1)"}
	for i := range 2 {
		if r := alice.submit("r"+strconv.Itoa(i), body); r.status != 201 {
			t.Fatalf("submit %d: %d %s", i, r.status, r.raw)
		}
	}
	r := alice.submit("r9", body)
	wantErr(t, r, 429, CodeRateLimited, "")
	if r.header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	// A retry of an accepted submission is not a new one: still answered.
	if r := alice.submit("r0", body); r.status != 200 {
		t.Fatalf("retry under the limit: %d %s", r.status, r.raw)
	}
}

func TestSubmitConcurrentSameKey(t *testing.T) {
	je := newJudgeEnv(t, nil)
	alice := je.student("alice")
	body := map[string]any{"problem": "a-plus-b", "language": "py3", "source": "print(1)"}
	var wg sync.WaitGroup
	ids := make([]int64, 8)
	for i := range ids {
		wg.Go(func() {
			r := alice.submit("same", body)
			if r.status != 201 && r.status != 200 {
				t.Errorf("submit: %d %s", r.status, r.raw)
			}
			ids[i] = id(r)
		})
	}
	wg.Wait()
	for _, v := range ids {
		if v != ids[0] || v == 0 {
			t.Fatalf("ids %v", ids)
		}
	}
	if n := je.count("submissions"); n != 1 {
		t.Fatalf("%d submissions", n)
	}
}

func TestSubmitSurvivesRedisLossAndReconciles(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	alice := je.student("alice")
	r := alice.submit("k", map[string]any{"problem": "a-plus-b", "language": "py3", "source": "print(1)"})
	if r.status != 201 {
		t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	sid := id(r)
	// Redis loses the task (as if the enqueue after the insert failed).
	je.rdb.Del(ctx, je.names.Task(sid))
	je.rdb.ZRem(ctx, je.names.Queue(), strconv.FormatInt(sid, 10))
	js, err := judging.New(judging.Config{Store: je.st, Redis: je.rdb, Names: je.names,
		Now: func() time.Time { return time.Now().Add(time.Minute) }})
	if err != nil {
		t.Fatal(err)
	}
	n, err := js.Reconcile(ctx)
	if err != nil || n != 1 {
		t.Fatalf("reconcile: %d, %v", n, err)
	}
	if pos, _ := je.q.Position(ctx, sid); pos != 1 {
		t.Fatalf("not queued again (position %d)", pos)
	}
	// Idempotent: a second pass finds the task and enqueues nothing.
	if n, err := js.Reconcile(ctx); err != nil || n != 0 {
		t.Fatalf("second reconcile: %d, %v", n, err)
	}
	// Too young to reconcile with the real clock.
	je.rdb.Del(ctx, je.names.Task(sid))
	young, _ := judging.New(judging.Config{Store: je.st, Redis: je.rdb, Names: je.names})
	if n, err := young.Reconcile(ctx); err != nil || n != 0 {
		t.Fatalf("young reconcile: %d, %v", n, err)
	}
}

// stallHook holds the first enqueue script (the one whose keys name the
// queue and its change channel) for stall, as a CPU-starved web node or a
// slow Redis round trip does under overload.
type stallHook struct {
	keys  []string
	stall time.Duration
	once  sync.Once
}

func (h *stallHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *stallHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *stallHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if n := cmd.Name(); n == "evalsha" || n == "eval" || n == "xadd" {
			found := 0
			for _, a := range cmd.Args() {
				for _, k := range h.keys {
					if s, ok := a.(string); ok && s == k {
						found++
					}
				}
			}
			if found == len(h.keys) {
				h.once.Do(func() { time.Sleep(h.stall) })
			}
		}
		return next(ctx, cmd)
	}
}

// A submit whose request deadline passes once its row is committed (a web
// node starved of CPU, or MySQL slow to hand out a connection, spends the
// request's 5 s before the commit) still enqueues its task: it used to
// fail the enqueue on the spent deadline, answer 201 anyway and leave the
// task to the reconciler, which under the same overload ran minutes
// behind; the contest rehearsal's dispatch waits (docs/rehearsal.md,
// mean 37.8 s at 3,000 contestants) were those tasks.
func TestSubmitEnqueuesPastTheRequestDeadline(t *testing.T) {
	const deadline = 2 * time.Second
	je := newJudgeEnv(t, func(c *Config) {
		c.RequestTimeout = deadline
		c.Judging.EnqueueTimeout = 4 * deadline
	})
	ctx := context.Background()
	// The stall outlasts the request's deadline: the enqueue starts after it.
	je.rdb.AddHook(&stallHook{keys: []string{je.names.Queue(), je.names.QueueChanged()}, stall: deadline + 200*time.Millisecond})
	alice := je.student("alice")
	r := alice.submit("k", map[string]any{"problem": "a-plus-b", "language": "py3", "source": "print(1)"})
	if r.status != 201 {
		t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	sid := id(r)
	if pos, err := je.q.Position(ctx, sid); err != nil || pos != 1 {
		t.Fatalf("submission %d answered 201 but not queued (position %d, %v): only the reconciler would enqueue it", sid, pos, err)
	}
}

// A slow board mark does not eat the enqueue's deadline: the mark runs on
// the request's, the enqueue on its own. Sharing one, the board's work
// under load left the enqueue too little and 10,656 of 24,545 tasks
// waited for the reconciler (the 3,000-contestant rehearsal at 07:57 UTC
// on 2026-12-02).
func TestSlowBoardMarkLeavesTheEnqueueItsDeadline(t *testing.T) {
	const own = 2 * time.Second
	je := newJudgeEnv(t, func(c *Config) { c.Judging.EnqueueTimeout = own })
	ctx := context.Background()
	cid := runningContest(t, je)
	je.rdb.AddHook(&stallHook{keys: []string{je.names.CCSFeed(cid)}, stall: own * 3 / 4})
	je.rdb.AddHook(&stallHook{keys: []string{je.names.Queue(), je.names.QueueChanged()}, stall: own / 2})
	alice := je.student("alice")
	r := alice.submit("k", map[string]any{"problem": "a-plus-b", "contest": "c1", "language": "py3", "source": "print(1)"})
	if r.status != 201 {
		t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	sid := id(r)
	if pos, err := je.q.Position(ctx, sid); err != nil || pos != 1 {
		t.Fatalf("submission %d not queued (position %d, %v): the board mark spent the enqueue's deadline", sid, pos, err)
	}
}

// A submit whose enqueue failed after the commit (Redis stalled past even
// the enqueue's own deadline) answers 201 without a task; the browser's
// retry with the same key makes the task at once, not the reconciler
// seconds or minutes later.
func TestRetriedSubmitEnqueuesALostTask(t *testing.T) {
	je := newJudgeEnv(t, func(c *Config) { c.Judging.EnqueueTimeout = 300 * time.Millisecond })
	ctx := context.Background()
	je.rdb.AddHook(&stallHook{keys: []string{je.names.Queue(), je.names.QueueChanged()}, stall: time.Second})
	alice := je.student("alice")
	body := map[string]any{"problem": "a-plus-b", "language": "py3", "source": "print(1)"}
	r := alice.submit("k", body)
	if r.status != 201 {
		t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	sid := id(r)
	if pos, _ := je.q.Position(ctx, sid); pos != 0 {
		t.Fatalf("the stalled enqueue went through (position %d): the test tests nothing", pos)
	}
	time.Sleep(time.Second) // the stalled script has run out
	r = alice.submit("k", body)
	if r.status != 200 && r.status != 201 || id(r) != sid {
		t.Fatalf("retry: %d %s", r.status, r.raw)
	}
	if pos, err := je.q.Position(ctx, sid); err != nil || pos != 1 {
		t.Fatalf("after the retry submission %d is not queued (position %d, %v)", sid, pos, err)
	}
	if n := je.count("submissions"); n != 1 {
		t.Fatalf("%d submissions, want 1", n)
	}
}

// A retried submit that makes the task its first try did not enqueues it
// on the enqueue's own deadline (Config.Judging.EnqueueTimeout), as the
// first try does, not on what is left of the retry's request deadline: a
// retry comes under the same overload that failed the first try.
func TestRetriedSubmitEnqueuesPastTheRequestDeadline(t *testing.T) {
	const deadline = time.Second
	je := newJudgeEnv(t, func(c *Config) {
		c.RequestTimeout = deadline
		c.Judging.EnqueueTimeout = 4 * deadline
	})
	ctx := context.Background()
	alice := je.student("alice")
	body := map[string]any{"problem": "a-plus-b", "language": "py3", "source": "print(1)"}
	r := alice.submit("k", body)
	if r.status != 201 {
		t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	sid := id(r)
	// Redis lost the task (as if the first try's enqueue failed).
	je.rdb.Del(ctx, je.names.Task(sid))
	je.rdb.ZRem(ctx, je.names.Queue(), strconv.FormatInt(sid, 10))
	// The retry's enqueue starts after its request's deadline.
	je.rdb.AddHook(&stallHook{keys: []string{je.names.Queue(), je.names.QueueChanged()}, stall: deadline + 300*time.Millisecond})
	r = alice.submit("k", body)
	if r.status != 200 && r.status != 201 || id(r) != sid {
		t.Fatalf("retry: %d %s", r.status, r.raw)
	}
	if pos, err := je.q.Position(ctx, sid); err != nil || pos != 1 {
		t.Fatalf("after the retry submission %d is not queued (position %d, %v): enqueued on the spent request deadline", sid, pos, err)
	}
}

// What the task needs from MySQL (the rule of its test data) is read
// before the row is committed: after the commit, enqueueing takes Redis
// only, so an overloaded MySQL cannot leave a committed row without its
// task. A rule that cannot be read refuses the submit with nothing
// written, instead of a 201 whose task only the reconciler could make.
func TestSubmitReadsTheTestDataRuleBeforeTheCommit(t *testing.T) {
	je := newJudgeEnv(t, nil)
	alice := je.student("alice")
	if _, err := je.st.DB.Exec(`UPDATE testdata_versions SET manifest = '{"cases": "not a list"}' WHERE problem_id = ?`, je.problem.ID); err != nil {
		t.Fatal(err)
	}
	r := alice.submit("k", map[string]any{"problem": "a-plus-b", "language": "py3", "source": "print(1)"})
	if r.status != 503 {
		t.Fatalf("submit with an unreadable test data rule: %d %s", r.status, r.raw)
	}
	if n := je.count("submissions"); n != 0 {
		t.Fatalf("%d submissions written without a task", n)
	}
}

func TestMySQLDown(t *testing.T) {
	je := newJudgeEnv(t, nil)
	alice := je.student("alice")
	je.st.DB.Close()
	r := alice.submit("k", map[string]any{"problem": "a-plus-b", "language": "py3", "source": "print(1)"})
	wantErr(t, r, 503, CodeUnavailable, "")
}

func TestSubmissionAccessControl(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	alice, bob := je.student("alice"), je.student("bob")
	body := map[string]any{"problem": "a-plus-b", "language": "py3", "source": "secret code"}
	sid := id(alice.submit("a1", body))
	if sid == 0 {
		t.Fatal("submit failed")
	}
	d := bob.do("GET", fmt.Sprintf("/api/submissions/%d", sid), nil)
	sub, _ := d.body["submission"].(map[string]any)
	if d.status != 200 || sub["user"] != "alice" {
		t.Fatalf("bob views alice's practice submission: %d %s", d.status, d.raw)
	}
	if _, ok := sub["source"]; ok || jsonContains(d.raw, "secret code") {
		t.Fatalf("bob sees alice's code: %s", d.raw)
	}
	// Contest submissions of others are hidden from students.
	cid, _ := je.st.CreateContest(ctx, store.Contest{Slug: "c1", Title: "C", Rule: "icpc", StartAt: time.Now().Add(-time.Hour),
		EndAt: time.Now().Add(time.Hour), Registration: "open", Visible: true})
	_ = je.st.AddContestProblem(ctx, cid, je.problem.ID, "A", 100)
	cs := alice.submit("a2", map[string]any{"problem": "a-plus-b", "contest": "c1", "language": "py3", "source": "x"})
	if cs.status != 201 {
		t.Fatalf("contest submit: %d %s", cs.status, cs.raw)
	}
	wantErr(t, bob.do("GET", fmt.Sprintf("/api/submissions/%d", id(cs)), nil), 404, CodeNotFound, "")
	l := bob.do("GET", "/api/submissions", nil)
	if rows := l.body["submissions"].([]any); len(rows) != 1 || rows[0].(map[string]any)["id"] != float64(sid) {
		t.Fatalf("bob's list: %s", l.raw)
	}
	if l := alice.do("GET", "/api/submissions?contest=c1", nil); len(l.body["submissions"].([]any)) != 1 {
		t.Fatalf("alice's contest list: %s", l.raw)
	}
	// Staff see everything, with the code.
	je.user("setter", store.RoleSetter, "setter-password")
	st := je.client()
	st.login("setter", "setter-password")
	if d := st.do("GET", fmt.Sprintf("/api/submissions/%d", id(cs)), nil); d.status != 200 || !jsonContains(d.raw, `"source":"x"`) {
		t.Fatalf("setter view: %d %s", d.status, d.raw)
	}
	// Bad filters name the field.
	wantErr(t, bob.do("GET", "/api/submissions?verdict=XX", nil), 400, CodeValidation, "verdict")
	wantErr(t, bob.do("GET", "/api/submissions?cursor=x", nil), 400, CodeValidation, "cursor")
	wantErr(t, bob.do("GET", "/api/submissions?limit=1000", nil), 400, CodeValidation, "limit")
	wantErr(t, bob.do("GET", "/api/submissions?user_id=1", nil), 400, CodeValidation, "user_id")
	wantErr(t, bob.do("GET", "/api/submissions/abc", nil), 404, CodeNotFound, "")
	// Students cannot rejudge or unfreeze.
	wantErr(t, bob.do("POST", "/api/rejudge", map[string]any{"submission_id": sid}, "X-CSRF-Token", bob.csrf), 403, CodeForbidden, "")
	wantErr(t, bob.do("POST", "/api/contests/c1/unfreeze", nil, "X-CSRF-Token", bob.csrf), 403, CodeForbidden, "")
}

func TestListPagination(t *testing.T) {
	je := newJudgeEnv(t, nil)
	alice := je.student("alice")
	var ids []int64
	for i := range 5 {
		ids = append(ids, id(alice.submit("p"+strconv.Itoa(i), map[string]any{"problem": "a-plus-b", "language": "py3", "source": "x"})))
	}
	var got []int64
	cursor := ""
	for range 4 {
		r := alice.do("GET", "/api/submissions?mine=1&limit=2"+cursor, nil)
		for _, row := range r.body["submissions"].([]any) {
			got = append(got, int64(row.(map[string]any)["id"].(float64)))
		}
		next, _ := r.body["next_cursor"].(string)
		if next == "" {
			break
		}
		cursor = "&cursor=" + next
	}
	if len(got) != 5 || got[0] != ids[4] || got[4] != ids[0] {
		t.Fatalf("pages %v, ids %v", got, ids)
	}
	if r := alice.do("GET", "/api/submissions?language=cpp17", nil); len(r.body["submissions"].([]any)) != 0 {
		t.Fatalf("language filter: %s", r.raw)
	}
	if r := alice.do("GET", "/api/submissions?verdict=queued&user=alice&problem=a-plus-b", nil); len(r.body["submissions"].([]any)) != 5 {
		t.Fatalf("filters: %s", r.raw)
	}
}

// TestDuplicateAndStaleResults: a result delivered twice is written once;
// after a rejudge, the old attempt's late result is dropped and the new
// one counts; statistics follow.
func TestDuplicateAndStaleResults(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	_ = je.q.EnsureResultsGroup(ctx)
	alice := je.student("alice")
	sid := id(alice.submit("k", map[string]any{"problem": "a-plus-b", "language": "py3", "source": "x"}))
	je.judge(sid, 1, protocol.VerdictAC, 3)
	// The same entry appended again (a replayed stream entry).
	entries, _ := je.rdb.XRange(ctx, je.names.Results(), "-", "+").Result()
	je.rdb.XAdd(ctx, &redis.XAddArgs{Stream: je.names.Results(), Values: entries[0].Values})
	if n := je.consume(); n != 2 {
		t.Fatalf("acked %d, want 2", n)
	}
	reg := je.srv.cfg.Obs.Registry
	if a, d := counter(t, reg, "applied"), counter(t, reg, "duplicate"); a != 1 || d != 1 {
		t.Fatalf("applied %v duplicate %v", a, d)
	}
	if n, _ := je.st.UserSolvedCount(ctx, 1); n != 1 {
		t.Fatalf("alice solved %d, want 1", n)
	}
	// Rejudge (as an admin): attempt 2; a stale attempt-1 result is dropped.
	je.user("root", store.RoleAdmin, "root-password")
	admin := je.client()
	admin.login("root", "root-password")
	wantErr(t, admin.do("POST", "/api/rejudge", map[string]any{}, "X-CSRF-Token", admin.csrf), 400, CodeValidation, "submission_id")
	wantErr(t, admin.do("POST", "/api/rejudge", map[string]any{"submission_id": 999}, "X-CSRF-Token", admin.csrf), 404, CodeNotFound, "submission_id")
	wantErr(t, admin.do("POST", "/api/rejudge", map[string]any{"problem": "nope"}, "X-CSRF-Token", admin.csrf), 404, CodeNotFound, "problem")
	r := admin.do("POST", "/api/rejudge", map[string]any{"submission": sid}, "X-CSRF-Token", admin.csrf)
	if r.status != 200 || r.body["queued"] != float64(1) {
		t.Fatalf("rejudge: %d %s", r.status, r.raw)
	}
	if a, _ := je.rdb.HGet(ctx, je.names.Task(sid), "attempt").Result(); a != "2" {
		t.Fatalf("task attempt %q, want 2", a)
	}
	if score, _ := je.rdb.ZScore(ctx, je.names.Queue(), strconv.FormatInt(sid, 10)).Result(); score < 2e13 {
		t.Fatalf("rejudge queued at score %v, want the rejudge band (lowest priority)", score)
	}
	if n, _ := je.st.UserSolvedCount(ctx, 1); n != 0 {
		t.Fatalf("solved %d while rejudging", n)
	}
	je.rdb.XAdd(ctx, &redis.XAddArgs{Stream: je.names.Results(), Values: entries[0].Values}) // attempt 1, late
	je.consume()
	if s := counter(t, reg, "stale"); s != 1 {
		t.Fatalf("stale %v", s)
	}
	d := alice.do("GET", fmt.Sprintf("/api/submissions/%d", sid), nil)
	if sub := d.body["submission"].(map[string]any); sub["verdict"] != "queued" || sub["attempt"] != float64(2) {
		t.Fatalf("after a stale result: %s", d.raw)
	}
	je.judge(sid, 2, protocol.VerdictWA, 3)
	je.consume()
	d = alice.do("GET", fmt.Sprintf("/api/submissions/%d", sid), nil)
	if sub := d.body["submission"].(map[string]any); sub["verdict"] != "WA" || sub["attempt"] != float64(2) {
		t.Fatalf("after attempt 2: %s", d.raw)
	}
}

func counter(t *testing.T, reg *prometheus.Registry, outcome string) float64 {
	t.Helper()
	return metricWith(t, reg, "verdict_webapp_results_total", "outcome", outcome)
}

// TestTwoConsumersExactlyOnce: two web nodes' consumers on one stream,
// each result delivered twice, one consumer dying with entries pending:
// every result is written exactly once.
func TestTwoConsumersExactlyOnce(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	_ = je.q.EnsureResultsGroup(ctx)
	alice := je.student("alice")
	const n = 40
	var ids []int64
	for i := range n {
		sid := id(alice.submit("t"+strconv.Itoa(i), map[string]any{"problem": "a-plus-b", "language": "py3", "source": "x"}))
		ids = append(ids, sid)
		je.judge(sid, 1, []protocol.Verdict{protocol.VerdictAC, protocol.VerdictWA}[i%2], 2)
	}
	entries, _ := je.rdb.XRange(ctx, je.names.Results(), "-", "+").Result()
	for _, e := range entries {
		je.rdb.XAdd(ctx, &redis.XAddArgs{Stream: je.names.Results(), Values: e.Values})
	}
	// A third node reads a few entries and dies before acknowledging.
	if _, err := je.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: je.names.ResultsGroup(), Consumer: "dead-node",
		Streams: []string{je.names.Results(), ">"}, Count: 5}).Result(); err != nil {
		t.Fatal(err)
	}
	var regs []*prometheus.Registry
	var svcs []*judging.Service
	for i := range 2 {
		reg := prometheus.NewRegistry()
		s, err := judging.New(judging.Config{Store: je.st, Redis: je.rdb, Names: je.names, Metrics: reg,
			NodeID: "node-" + strconv.Itoa(i), ClaimIdle: 50 * time.Millisecond, Batch: 7})
		if err != nil {
			t.Fatal(err)
		}
		regs, svcs = append(regs, reg), append(svcs, s)
	}
	time.Sleep(60 * time.Millisecond) // the dead node's entries go idle
	var wg sync.WaitGroup
	for _, s := range svcs {
		wg.Go(func() {
			for range 50 {
				if _, err := s.ClaimStale(ctx); err != nil {
					t.Error(err)
				}
				if _, err := s.ReadOnce(ctx, 10*time.Millisecond); err != nil {
					t.Error(err)
				}
				p, _ := je.rdb.XPending(ctx, je.names.Results(), je.names.ResultsGroup()).Result()
				if p != nil && p.Count == 0 {
					if l, _ := je.rdb.XInfoGroups(ctx, je.names.Results()).Result(); len(l) == 1 && l[0].Lag == 0 {
						return
					}
				}
			}
		})
	}
	wg.Wait()
	applied, dups := 0.0, 0.0
	for _, reg := range regs {
		applied += counter(t, reg, "applied")
		dups += counter(t, reg, "duplicate")
	}
	// Each result is written once; every other delivery (the replays, and
	// entries claimed from a node that was merely slow) is a duplicate.
	if applied != n || dups < n {
		t.Fatalf("applied %v duplicates %v, want %d applied and at least %d duplicates", applied, dups, n, n)
	}
	if p, _ := je.rdb.XPending(ctx, je.names.Results(), je.names.ResultsGroup()).Result(); p.Count != 0 {
		t.Fatalf("%d entries still pending", p.Count)
	}
	var judged int
	_ = je.st.DB.Get(&judged, "SELECT COUNT(*) FROM submissions WHERE judged_at IS NOT NULL AND verdict IN ('AC','WA')")
	if judged != n || je.count("submission_cases") != 2*n {
		t.Fatalf("%d judged rows, %d case rows", judged, je.count("submission_cases"))
	}
	// Each row carries the verdict its one result had, not a replay's.
	for i, sid := range ids {
		var v string
		if err := je.st.DB.Get(&v, "SELECT verdict FROM submissions WHERE id = ?", sid); err != nil {
			t.Fatal(err)
		}
		if want := []protocol.Verdict{protocol.VerdictAC, protocol.VerdictWA}[i%2]; v != string(want) {
			t.Errorf("submission %d: verdict %s, want %s", sid, v, want)
		}
	}
}

// TestSubmitWithoutJudges: while no judge is connected (a hub restart, a
// network cut) a submit is answered 503 with Retry-After, which the
// browser retries with the same key — not 400, which it would show as the
// student's mistake. The rehearsal saw 580 submissions refused with 400
// while the judges were away.
func TestSubmitWithoutJudges(t *testing.T) {
	je := newJudgeEnv(t, nil)
	alice := je.student("alice")
	je.rdb.Del(context.Background(), je.names.Judge("judge-1"))
	r := alice.submit("k1", map[string]any{"problem": "a-plus-b", "language": "py3", "source": "x"})
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Fatalf("submit without judges: %d (Retry-After %q) %s", r.status, r.header.Get("Retry-After"), r.raw)
	}
	if e := r.body["error"].(map[string]any); e["code"] != CodeUnavailable {
		t.Fatalf("error %v", e)
	}
	je.judgeAlive("judge-1", `[{"id":"py3","version":"3"}]`)
	if r := alice.submit("k1", map[string]any{"problem": "a-plus-b", "language": "py3", "source": "x"}); r.status != http.StatusCreated {
		t.Fatalf("the retry once a judge is back: %d %s", r.status, r.raw)
	}
	// A language no connected judge has is still the request's problem.
	r = alice.submit("k2", map[string]any{"problem": "a-plus-b", "language": "cpp17", "source": "x"})
	wantErr(t, r, 400, CodeValidation, "language")
}

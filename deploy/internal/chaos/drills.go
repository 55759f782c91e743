package chaos

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/verdict-oj/verdict/internal/queue"
)

// caseCount is the number of test cases of the demo problem a-plus-b
// (webapp/internal/demo): an accepted submission has exactly this many
// case rows.
const caseCount = 10

// burn is an accepted A+B that spends about ms of CPU per case, so that a
// drill can strike while a judge is busy with it.
func burn(marker string, ms int) string {
	return fmt.Sprintf(`// %s
#include <cstdio>
#include <ctime>
int main() {
    long long a, b;
    if (scanf("%%lld %%lld", &a, &b) != 2) return 1;
    clock_t start = clock();
    volatile unsigned long long x = 0;
    while (clock() - start < (clock_t)CLOCKS_PER_SEC * %d / 1000) x++;
    printf("%%lld\n", a + b);
    return 0;
}
`, marker, ms)
}

// wrong answers 3 to everything: right on case 1 ("1 2"), wrong after.
func wrong(marker string) string {
	return "// " + marker + "\n#include <cstdio>\nint main() { puts(\"3\"); return 0; }\n"
}

func newMarker(drill string) string { return "drill:" + drill + ":" + NewKey() }

// Drill is one fault drill.
type Drill struct {
	Name string
	Run  func(ctx context.Context, e *Env, r *Result)
}

// All is every drill, in the order `make chaos` runs them.
func All() []Drill {
	return []Drill{
		{"kill-judge", KillJudge},
		{"kill-hub", KillHub},
		{"kill-web-node", KillWebNode},
		{"restart-redis", RestartRedis},
		{"wipe-redis", WipeRedis},
		{"freeze-mysql", FreezeMySQL},
		{"partition-judge", PartitionJudge},
		{"slow-judge", SlowJudge},
	}
}

// Run runs one drill and times it.
func Run(ctx context.Context, e *Env, d Drill) Result {
	r := Result{Name: d.Name}
	start := time.Now()
	d.Run(ctx, e, &r)
	r.Took = time.Since(start)
	return r
}

// leasedTo waits until the submission's task is leased and returns the
// judge holding it.
func (e *Env) leasedTo(ctx context.Context, id int64, within time.Duration) (string, error) {
	q, err := queue.New(queue.Config{Client: e.RDB, Names: e.Names})
	if err != nil {
		return "", err
	}
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if j, err := q.LeaseHolder(ctx, id); err == nil && j != "" {
			return j, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "", fmt.Errorf("submission %d not leased within %v", id, within)
}

// burst submits n submissions from `clients` concurrent sessions, each
// POST retried with its key as a browser would; src(i) makes the source.
// It returns the ids with their expected verdicts and the number of POSTs
// that had to be retried.
//
// during, when not nil, runs concurrently once every client is logged in.
func (e *Env) burst(ctx context.Context, r *Result, n, clients int, gap time.Duration, during func(), sub func(i int) (Submission, string)) (map[int64]string, int) {
	want := map[int64]string{}
	var mu sync.Mutex
	retries := 0
	var wg sync.WaitGroup
	next := make(chan int)
	var sessions []*Client
	for range clients {
		c, err := e.Student(ctx)
		if err != nil {
			r.fail("log in: %v", err)
			return want, 0
		}
		sessions = append(sessions, c)
	}
	duringDone := make(chan struct{})
	go func() {
		defer close(duringDone)
		if during != nil {
			during()
		}
	}()
	defer func() { <-duringDone }()
	for _, c := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s, verdict := sub(i)
				id, tries, err := c.SubmitRetry(ctx, NewKey(), s, 60*time.Second)
				mu.Lock()
				retries += len(tries) - 1
				if err != nil {
					r.fail("submission %d: %v (after %d tries)", i, err, len(tries))
				} else {
					want[id] = verdict
				}
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		next <- i
		time.Sleep(gap)
	}
	close(next)
	wg.Wait()
	return want, retries
}

// KillJudge: kill -9 the judge that holds a task while it judges it.
func KillJudge(ctx context.Context, e *Env, r *Result) {
	marker := newMarker("kill-judge")
	c, err := e.Student(ctx)
	if err != nil {
		r.fail("log in: %v", err)
		return
	}
	id, _, err := c.SubmitRetry(ctx, NewKey(), Submission{Problem: "a-plus-b", Language: "cpp17", Source: burn(marker, 300)}, 30*time.Second)
	if err != nil {
		r.fail("submit: %v", err)
		return
	}
	r.did("submitted #%d (A+B, C++, ~300 ms CPU per case) through nginx as the demo student", id)
	judge, err := e.leasedTo(ctx, id, 30*time.Second)
	if err != nil {
		r.fail("%v", err)
		return
	}
	time.Sleep(700 * time.Millisecond) // compiling or running by now
	if err := e.Stack.Kill(judge); err != nil {
		r.fail("kill %s: %v", judge, err)
		return
	}
	r.did("kill -9 %s while it held #%d; kept it down until the verdict", judge, id)
	final := e.verifyOnce(ctx, r, marker, map[int64]string{id: "AC"}, 1, 90*time.Second)
	if f, ok := final[id]; ok {
		r.check(f.JudgeID != judge && f.Attempt >= 2,
			fmt.Sprintf("#%d was judged elsewhere after its lease expired (by %s, attempt %d)", id, f.JudgeID, f.Attempt),
			fmt.Sprintf("judged by %s attempt %d", f.JudgeID, f.Attempt))
	}
	if err := e.Stack.Start(ctx, judge); err != nil {
		r.fail("restart %s: %v", judge, err)
	}
	r.did("started %s again", judge)
}

// KillHub: kill -9 the hub during a run of submissions, then restart it.
func KillHub(ctx context.Context, e *Env, r *Result) {
	marker := newMarker("kill-hub")
	kill := func() {
		time.Sleep(1500 * time.Millisecond)
		if err := e.Stack.Kill("hub"); err != nil {
			r.fail("kill hub: %v", err)
			return
		}
		time.Sleep(2 * time.Second)
		if err := e.Stack.Start(ctx, "hub"); err != nil {
			r.fail("restart hub: %v", err)
		}
	}
	want, _ := e.burst(ctx, r, 10, 2, 400*time.Millisecond, kill, func(i int) (Submission, string) {
		return Submission{Problem: "a-plus-b", Language: "cpp17", Source: burn(marker, 50)}, "AC"
	})
	r.did("submitted %d submissions over 4 s; kill -9 the hub 1.5 s in, restarted it 2 s later", len(want))
	e.verifyOnce(ctx, r, marker, want, 10, 120*time.Second)
}

// KillWebNode: kill -9 a web node during a submission burst; clients retry
// with their idempotency keys.
func KillWebNode(ctx context.Context, e *Env, r *Result) {
	marker := newMarker("kill-web")
	kill := func() {
		time.Sleep(800 * time.Millisecond)
		if err := e.Stack.Kill("web-1"); err != nil {
			r.fail("kill web-1: %v", err)
		}
	}
	const n = 24
	want, retries := e.burst(ctx, r, n, 4, 100*time.Millisecond, kill, func(i int) (Submission, string) {
		if i%3 == 0 {
			return Submission{Problem: "a-plus-b", Language: "cpp17", Source: wrong(marker)}, "WA"
		}
		return Submission{Problem: "a-plus-b", Language: "cpp17", Source: burn(marker, 5)}, "AC"
	})
	r.did("%d submissions from 4 sessions, 10/s, through nginx; kill -9 web-1 0.8 s in; %d POSTs were retried with the same key", n, retries)
	e.verifyOnce(ctx, r, marker, want, n, 120*time.Second)
	if err := e.Stack.Start(ctx, "web-1"); err != nil {
		r.fail("restart web-1: %v", err)
	}
	r.did("started web-1 again")
}

type scoreRow struct {
	User     string         `json:"user"`
	Solved   int            `json:"solved"`
	Penalty  int            `json:"penalty"`
	Problems map[string]any `json:"problems"`
}

func studentRow(ctx context.Context, c *Client) (string, error) {
	var sb struct {
		Rows []scoreRow `json:"rows"`
	}
	if err := c.GetJSON(ctx, "/api/contests/demo/scoreboard", &sb); err != nil {
		return "", err
	}
	for _, row := range sb.Rows {
		if row.User == "student" {
			return fmt.Sprintf("solved=%d penalty=%d problems=%v", row.Solved, row.Penalty, row.Problems), nil
		}
	}
	return "", fmt.Errorf("student not on the scoreboard (%d rows)", len(sb.Rows))
}

// RestartRedis: restart Redis (AOF) in the middle of contest submissions.
func RestartRedis(ctx context.Context, e *Env, r *Result) {
	marker := newMarker("redis")
	c, err := e.Student(ctx)
	if err != nil {
		r.fail("log in: %v", err)
		return
	}
	want := map[int64]string{}
	submit := func(src, verdict string) {
		id, _, err := c.SubmitRetry(ctx, NewKey(), Submission{Problem: "a-plus-b", Contest: "demo", Language: "cpp17", Source: src}, 60*time.Second)
		if err != nil {
			r.fail("submit: %v", err)
			return
		}
		want[id] = verdict
	}
	submit(wrong(marker), "WA")
	submit(burn(marker, 100), "AC")
	submit(wrong(marker), "WA")
	if err := e.Stack.RestartRedis(ctx); err != nil {
		r.fail("%v", err)
		return
	}
	r.did("3 contest submissions (WA, AC ~100 ms/case, WA) on demo; restarted Redis (SIGTERM, AOF) while they were queued or judging")
	submit(burn(marker, 5), "AC")
	submit(wrong(marker), "WA")
	r.did("2 more contest submissions (AC, WA) after the restart")
	e.verifyOnce(ctx, r, marker, want, 5, 120*time.Second)
	e.checkBoardRebuilds(ctx, r, c, "kept through the restart")
}

// checkBoardRebuilds reads the student's row of the demo contest's
// scoreboard, deletes the board in Redis, reads it again (rebuilt from
// MySQL) and checks both agree and show the one solved problem.
func (e *Env) checkBoardRebuilds(ctx context.Context, r *Result, c *Client, what string) {
	time.Sleep(1500 * time.Millisecond) // scoreboard writes follow the results
	live, err := studentRow(ctx, c)
	if err != nil {
		r.fail("scoreboard: %v", err)
		return
	}
	var cid int64
	if err := e.DB.QueryRowContext(ctx, "SELECT id FROM contests WHERE slug = 'demo'").Scan(&cid); err != nil {
		r.fail("contest id: %v", err)
		return
	}
	if err := e.RDB.Del(ctx, e.Names.Scoreboard(cid), e.Names.ScoreboardViews(cid), e.Names.ScoreboardChanges(cid)).Err(); err != nil {
		r.fail("drop the board: %v", err)
		return
	}
	rebuilt, err := studentRow(ctx, c)
	if err != nil {
		r.fail("scoreboard after rebuild: %v", err)
		return
	}
	r.did("read the student's scoreboard row, deleted the board in Redis, read it again (rebuilt from MySQL)")
	r.check(live == rebuilt && strings.Contains(live, "solved=1"),
		"the scoreboard "+what+" equals the one rebuilt from MySQL: "+live,
		"rebuilt: "+rebuilt)
}

// WipeRedis: Redis loses everything (a restart without persistence,
// FLUSHALL, a failover to an empty replica) while submissions are queued,
// and the judges reconnect before any web node has put the judge tokens
// back. MySQL is the system of record: every queued submission must still
// be judged exactly once, the judges must wait for the tokens instead of
// giving up for good, and the scoreboard must come back from MySQL.
func WipeRedis(ctx context.Context, e *Env, r *Result) {
	marker := newMarker("wipe")
	c, err := e.Student(ctx)
	if err != nil {
		r.fail("log in: %v", err)
		return
	}
	judges := e.stopJudges(r)
	want := map[int64]string{}
	submit := func(c *Client, src, verdict string) {
		id, _, err := c.SubmitRetry(ctx, NewKey(), Submission{Problem: "a-plus-b", Contest: "demo", Language: "cpp17", Source: src}, 60*time.Second)
		if err != nil {
			r.fail("submit: %v", err)
			return
		}
		want[id] = verdict
	}
	submit(c, wrong(marker), "WA")
	submit(c, burn(marker, 50), "AC")
	submit(c, wrong(marker), "WA")
	r.did("stopped the judges; 3 contest submissions (WA, AC, WA) queued")
	webs := []string{"web-1", "web-2"}
	for _, w := range webs {
		if err := e.Stack.Kill(w); err != nil {
			r.fail("kill %s: %v", w, err)
			return
		}
	}
	if err := e.RDB.FlushAll(ctx).Err(); err != nil {
		r.fail("FLUSHALL: %v", err)
		return
	}
	if err := e.Stack.Kill("hub"); err != nil {
		r.fail("kill hub: %v", err)
		return
	}
	if err := e.Stack.Start(ctx, "hub"); err != nil {
		r.fail("restart hub: %v", err)
		return
	}
	restarts := e.Stack.Restarts()
	// A judge is ready only once the hub welcomes it, which needs the
	// tokens back: start them in the background.
	started := make(chan struct{})
	go func() {
		defer close(started)
		e.startJudges(ctx, r, judges)
	}()
	r.did("killed both web nodes (nobody to restore the judge tokens), FLUSHALL on Redis (queue, leases, sessions, tokens, scoreboard gone), kill -9 and restarted the hub, started the judges: they dial a hub that knows no token")
	time.Sleep(6 * time.Second)
	for _, w := range webs {
		if err := e.Stack.Start(ctx, w); err != nil {
			r.fail("restart %s: %v", w, err)
			return
		}
	}
	r.did("6 s later started both web nodes again")
	<-started
	err = e.WaitJudges(ctx, len(judges), 60*time.Second)
	r.check(err == nil, "both judges are live again once a web node restored the tokens from MySQL", fmt.Sprint(err))
	var restarted []string
	now := e.Stack.Restarts()
	for _, j := range judges {
		if now[j] != restarts[j] {
			restarted = append(restarted, fmt.Sprintf("%s exited %d times", j, now[j]-restarts[j]))
		}
	}
	r.check(len(restarted) == 0, "no judge agent gave up while the tokens were missing (none exited and was restarted by the supervisor)", strings.Join(restarted, ", "))
	st, _, err := c.Do(ctx, "GET", "/api/me", nil, nil)
	r.check(st == 401, "the student's old session is gone with Redis (401, log in again)", fmt.Sprintf("GET /api/me: %d %v", st, err))
	c2, err := e.Student(ctx)
	if err != nil {
		r.fail("log in again after the wipe: %v", err)
		return
	}
	r.did("logged the student in again")
	submit(c2, burn(marker, 5), "AC")
	submit(c2, wrong(marker), "WA")
	r.did("2 more contest submissions (AC, WA)")
	e.verifyOnce(ctx, r, marker, want, 5, 120*time.Second)
	e.checkBoardRebuilds(ctx, r, c2, "after the wipe")
}

// FreezeMySQL: SIGSTOP MariaDB for 10 s while a student submits.
func FreezeMySQL(ctx context.Context, e *Env, r *Result) {
	marker := newMarker("mysql")
	c, err := e.Student(ctx)
	if err != nil {
		r.fail("log in: %v", err)
		return
	}
	pid := e.Stack.Pids()["mariadb"]
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		r.fail("SIGSTOP mariadb: %v", err)
		return
	}
	stopped := time.Now()
	cont := sync.OnceFunc(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	defer cont()
	r.did("SIGSTOP mariadbd (pid %d) for 10 s", pid)
	key := NewKey()
	s := Submission{Problem: "a-plus-b", Language: "cpp17", Source: burn(marker, 5)}
	t0 := time.Now()
	_, a, err := c.Submit(ctx, key, s)
	took := time.Since(t0)
	r.did("submitted once while MySQL was stopped: answered %d %q after %.1f s", a.Status, a.Message, took.Seconds())
	r.check(err != nil && a.Status == 503 && strings.Contains(a.Message, "unavailable") && took < 10*time.Second,
		"a submit during the outage answers 503 unavailable with a message, within 10 s",
		fmt.Sprintf("got %d %q after %v", a.Status, a.Message, took))
	time.Sleep(time.Until(stopped.Add(10 * time.Second)))
	cont()
	r.did("SIGCONT mariadbd; the client retried the same key; one more new submission")
	want := map[int64]string{}
	id, tries, err := c.SubmitRetry(ctx, key, s, 60*time.Second)
	if err != nil {
		r.fail("retry after the outage: %v", err)
	} else {
		want[id] = "AC"
	}
	r.check(err == nil && time.Since(stopped) < 40*time.Second,
		fmt.Sprintf("the retry succeeded without a hand (%d tries, %.1f s after the stop)", len(tries), time.Since(stopped).Seconds()), fmt.Sprint(err))
	id2, _, err := c.SubmitRetry(ctx, NewKey(), s, 30*time.Second)
	if err != nil {
		r.fail("a new submission after the outage: %v", err)
	} else {
		want[id2] = "AC"
	}
	e.verifyOnce(ctx, r, marker, want, 2, 90*time.Second)
}

// spareJudge is the judge id of the stack's spare token.
func (e *Env) spareJudge() string {
	return "judge-" + strconv.Itoa(e.Stack.Config().Judges+1)
}

// stopJudges kills every judge the stack runs (kept down) and returns them.
func (e *Env) stopJudges(r *Result) []string {
	var names []string
	for i := 1; i <= e.Stack.Config().Judges; i++ {
		n := "judge-" + strconv.Itoa(i)
		if err := e.Stack.Kill(n); err != nil {
			r.fail("kill %s: %v", n, err)
		}
		names = append(names, n)
	}
	return names
}

func (e *Env) startJudges(ctx context.Context, r *Result, names []string) {
	for _, n := range names {
		if err := e.Stack.Start(ctx, n); err != nil {
			r.fail("start %s: %v", n, err)
		}
	}
}

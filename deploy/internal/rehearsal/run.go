package rehearsal

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/bench"
	"github.com/verdict-oj/verdict/deploy/internal/harness"
	"github.com/verdict-oj/verdict/deploy/internal/stack"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// Config is one rehearsal. Zero fields take the defaults.
type Config struct {
	// Shape is the contest (DefaultShape when Contestants is 0).
	Shape Shape
	// Compress is contest time per real second: 40 plays a 5-hour
	// contest in 7.5 minutes with the same submissions. Default 40.
	Compress float64
	// ArrivalCompress compresses the login window before the start
	// (default 4: the 15 minutes in 3m45s). It is compressed less than
	// the contest because logins cost real CPU (bcrypt, 58 ms each on the
	// rehearsals' VM) that compression does not shrink: at 6× (the
	// default until 2026-12-05) 3,000 logins asked for 1.2 of the two
	// cores on average and 2.3 in the last minute, where arrivals peak,
	// so they were still being hashed when the contest began (more than
	// half of each web node's CPU in its first 40 s went to bcrypt), an
	// overload a real 15-minute window (0.2 cores) never makes. At 3× the
	// whole rehearsal took 15m5s-15m8s, over its 15-minute budget; 4× asks
	// for 0.8 cores on average and keeps it under.
	ArrivalCompress float64
	// Root is the checkout whose components run; Bin holds them prebuilt
	// (empty: built into the stack's directory).
	Root, Bin string
	// WebNodes is the number of web nodes (default 2, at least 2).
	WebNodes int
	// Judges simulated judges with Slots slots each at Speed (defaults:
	// sized so the rush's peak work fills CapacityTarget of them, 8
	// slots, speed 1). RealJudges real judge agents run beside them.
	Judges, Slots, RealJudges int
	Speed                     float64
	// JudgesInProcess runs the simulated judges inside the load
	// generator instead of one `verdict-stack simjudge` process each
	// (the default: a judge is its own process, as on a real cluster,
	// so the browsers' CPU does not delay its protocol, and a fault is a
	// real kill -9).
	JudgesInProcess bool
	// CapacityTarget is the share of the judges' slots the busiest minute
	// of the plan fills when Judges is 0. Default 0.8.
	CapacityTarget float64
	// Compile is the simulated compile time (default 300 ms).
	Compile time.Duration
	// Sample browsers measure scoreboard staleness (default 50);
	// CheckBoards keep their whole board, compared at the end with the
	// board rebuilt from MySQL (default 100; every browser when larger
	// than the contestants).
	Sample, CheckBoards int
	// ProfileDir receives CPU profiles of a web node and the hub, taken
	// for 20 s (at most the rush's real length) from the start of the
	// rush (default: the system's
	// temporary directory); NoProfile takes none.
	ProfileDir string
	NoProfile  bool
	// TraceFile receives the arrival trace the scheduling simulator
	// replays (internal/schedtrace); empty: the system's temporary
	// directory. NoReplay skips the replay.
	TraceFile string
	NoReplay  bool
	// NoWarm turns the hub's warming before the start off
	// (VERDICT_HUB_WARM_BEFORE=0), to measure what it is worth.
	NoWarm bool
	// Out receives progress lines; StackOut the stack's own output
	// (default: discarded).
	Out, StackOut io.Writer
}

func (c *Config) defaults() {
	if c.Shape.Contestants == 0 {
		c.Shape = DefaultShape()
	}
	c.Compress = cmp.Or(c.Compress, 40)
	c.ArrivalCompress = cmp.Or(c.ArrivalCompress, 4)
	c.WebNodes = max(c.WebNodes, 2)
	c.Slots = cmp.Or(c.Slots, 8)
	c.Speed = cmp.Or(c.Speed, 1)
	c.CapacityTarget = cmp.Or(c.CapacityTarget, 0.8)
	c.Compile = cmp.Or(c.Compile, 300*time.Millisecond)
	c.Sample = cmp.Or(c.Sample, 50)
	c.CheckBoards = cmp.Or(c.CheckBoards, 100)
	if c.Out == nil {
		c.Out = io.Discard
	}
	if c.StackOut == nil {
		c.StackOut = io.Discard
	}
}

// run is one rehearsal in progress.
type run struct {
	cfg Config
	// simjudgeBin is the verdict-stack binary the simulated judges run.
	simjudgeOnce sync.Once
	simjudgeBin  string
	simjudgeErr  error
	plan         Plan
	env          *harness.Env
	admin        *harness.Client
	ctx          context.Context // the whole rehearsal

	// hubSamples are the hub's pass and message histograms read every
	// latencyEvery through the run (sampleHubLatency; read after it ends).
	hubSamples []hubSample
	// passes are the hub's dispatch passes, read with hubSamples.
	passes hubPasses

	contestID int64
	contest   string
	start     time.Time // real time of the contest's start
	freezeAt  time.Time
	unfrozen  atomic.Bool // the staff's unfreeze succeeded
	// rejudgeJob is the staff's background rejudge (its id, once the POST
	// answered); rejudgeAsked is closed when the POST is done, whatever
	// its answer.
	rejudgeJob   atomic.Pointer[string]
	rejudgeAsked chan struct{}
	end          time.Time

	m         *Metrics
	verdicts  *harness.Verdicts
	stale     *results
	boards    *boardCache    // board pushes decoded once for the checking browsers
	staleness bench.Recorder // result sent by the judge → a sampled browser shows it
	overhead  bench.Recorder // submit due → verdict on the owner's socket, minus the judge's work
	verdictAt bench.Recorder // submit due → verdict, judge work included
	// firstMinute is verdictAt of the submissions due in the contest's
	// first real minute (what warming the judges before the start is for).
	firstMinute bench.Recorder
	// parts splits the overhead of each submission: due → the POST's
	// answer, the answer → the first push to a judge, the push → the
	// result leaving the judge minus the simulated work, the result → the
	// verdict on the owner's socket.
	parts [4]bench.Recorder
	// overheads is every overhead with its due time and parts, for
	// where in the run the tail is (overheadTail).
	overheadsMu sync.Mutex
	overheads   []overheadSample

	judges *judgePool
	subsMu sync.Mutex
	subs   map[int64]submitted // submission id → what it was
	// keysSent is every idempotency key a browser sent (acknowledged or
	// not): a row in MySQL under another key, or under none, is a double.
	keysSent map[string]struct{}
	// questions is every question's idempotency key a browser sent, and
	// whether its post was acknowledged (under subsMu).
	questions map[string]bool
	early     map[int64]earlyEvent // judge events before the POST's answer
	keys      atomic.Int64         // idempotency keys that got an id

	browsersMu sync.Mutex
	sockets    sync.WaitGroup // browsers' reconnects (browser.connect)
	browsers   []*browser

	loginsDone, loginRetries atomic.Int64
	lateSubs                 atomic.Int64 // planned submissions not sent: the contestant was still behind at the end
	goingAway                atomic.Int64 // sockets closed 1001 (an nginx reload's old worker, a hub drain), then reopened
	loginSpan                atomic.Int64 // ns from the first login due to the last login done
	faultLog                 []string
	faultsAt                 []schedtrace.Fault // when each fault began (ms since start), for the trace; under logMu
	staffLog                 []string
	// gone are the lives the faults ended, each read just before its end
	// (the report counts a restarted process's CPU before the fault too);
	// under logMu.
	gone  []Proc
	logMu sync.Mutex
}

// submitted is what the rehearsal remembers of a submission.
type submitted struct {
	user    int64
	label   string
	planned protocol.Verdict
	due     time.Time
	acked   time.Time // the POST's answer reached the browser
	// created is the row's created_at in the answer (MySQL's clock, this
	// machine's): the web node enqueues the task right after it, while
	// the answer may reach the browser seconds later (a retry's answer,
	// when the first was lost, even minutes).
	created time.Time
}

// contestTime is the contest time of real time t (after the start).
func (r *run) contestTime(t time.Time) string {
	return time.Duration(float64(t.Sub(r.start)) * r.cfg.Compress).Round(time.Second).String()
}

// at is the real time of contest time t.
func (r *run) at(t time.Duration) time.Time {
	if t < 0 {
		return r.start.Add(time.Duration(float64(t) / r.cfg.ArrivalCompress))
	}
	return r.start.Add(time.Duration(float64(t) / r.cfg.Compress))
}

func (r *run) logf(format string, args ...any) {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	fmt.Fprintf(r.cfg.Out, "rehearsal %s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// Run plays one rehearsal and returns its report. An error means the
// rehearsal could not be run (the stack did not start, the contest could
// not be created); what went wrong during the contest is in the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.defaults()
	plan, err := NewPlan(cfg.Shape)
	if err != nil {
		return nil, err
	}
	if _, err := bench.RaiseNoFile(); err != nil {
		return nil, fmt.Errorf("rehearsal: %w", err)
	}
	r := &run{cfg: cfg, plan: plan, ctx: ctx, m: newMetrics(),
		verdicts: harness.NewVerdicts(),
		stale:    &results{m: map[cellKey]mark{}}, boards: newBoardCache(), subs: map[int64]submitted{}, early: map[int64]earlyEvent{},
		keysSent: map[string]struct{}{}, questions: map[string]bool{}, rejudgeAsked: make(chan struct{})}
	if cfg.Judges == 0 {
		peak := plan.PeakWork(time.Minute, cfg.Compile) * cfg.Compress / cfg.Speed // judge-seconds per real second
		cfg.Judges = max(1, int(math.Ceil(peak/(cfg.CapacityTarget*float64(cfg.Slots)))))
		r.cfg.Judges = cfg.Judges
	}
	began := time.Now()
	r.logf("starting the stack: %d web nodes, %d simulated judges × %d slots, %d real judges",
		cfg.WebNodes, cfg.Judges, cfg.Slots, cfg.RealJudges)
	env, stop, err := harness.Start(ctx, harness.Options{
		Root: cfg.Root, Bin: cfg.Bin, Out: cfg.StackOut, Judges: cmp.Or(cfg.RealJudges, -1),
		WebNodes: cfg.WebNodes, Env: stackEnv(cfg),
		Configure: func(sc *stack.Config) {
			sc.NginxWorkerConnections = 16384
			sc.MySQLStatementStats = true // the report's MariaDB profile
		},
	})
	if err != nil {
		return nil, err
	}
	defer stop()
	r.env = env
	if r.admin, err = env.Admin(ctx, AdminAddr); err != nil {
		return nil, err
	}
	pw, err := r.setup(ctx)
	if err != nil {
		return nil, err
	}
	if r.judges, err = r.startJudges(ctx); err != nil {
		return nil, err
	}
	defer r.judges.stop()
	rep := &Report{Config: r.cfg, Plan: plan.Totals(), Began: began, Ready: time.Now(), EndAt: r.end, FreezeAt: r.freezeAt}
	rep.Before, rep.BeforeAt = r.procStats(), time.Now()
	rep.MachineBefore, _ = readCPUTimes()
	r.logf("contest %q starts at %s, ends at %s (compression %.0f×: %v of contest in %v)",
		r.contest, r.start.Format("15:04:05"), r.end.Format("15:04:05"), cfg.Compress, cfg.Shape.Length, r.end.Sub(r.start))

	var wg sync.WaitGroup
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	allDone := make(chan struct{})
	for i := range plan.Contestants {
		wg.Go(func() { r.contestant(cctx, &plan.Contestants[i], pw[i], allDone) })
	}
	var side sync.WaitGroup
	side.Go(func() { r.staff(cctx) })
	side.Go(func() { r.faults(cctx) })
	stopSampling := make(chan struct{})
	side.Go(func() { r.sampleHubLatency(cctx, stopSampling) })
	side.Go(func() {
		tcp := sampleTCP(cctx, stopSampling, 8)
		rep.TCP = &tcp
	})
	if !cfg.NoProfile {
		// 20 s, or the rush's real length when that is shorter (a short
		// rehearsal's): past the end it would profile the drain, and the
		// report would wait for it.
		rush := r.at(cfg.Shape.Length - 30*time.Minute)
		rep.ProfileFor = min(20*time.Second, r.end.Sub(rush)).Round(time.Second)
		side.Go(func() {
			if sleepUntil(cctx, rush) {
				rep.Profiles = r.profiles(cctx, rep.ProfileFor)
				rep.HeapProfiles = r.heapProfiles(cctx)
			}
		})
	}
	// The contest ends; the last verdicts come in; the board unfreezes.
	sleepUntil(cctx, r.end)
	r.logf("contest over; waiting for the last verdicts")
	r.drain(cctx, 90*time.Second)
	r.awaitRejudge(cctx, rejudgeWait)
	if err := r.unfreeze(cctx); err != nil {
		r.m.fail(staffFailure("POST unfreeze", err), time.Now())
	}
	close(stopSampling)
	side.Wait()
	rep.PoolWindows, rep.PoolWindowsRead, rep.PoolWindowsWaited = poolWindows(r.hubSamples)
	for _, h := range r.hubSamples {
		if h.mem.RSS > 0 {
			rep.HubMemory = append(rep.HubMemory, h.mem)
		}
	}
	time.Sleep(3 * time.Second) // the unfrozen board reaches the browsers
	r.logf("staff done; reading the processes and checking")
	rep.After, rep.AfterAt = r.procStats(), time.Now()
	rep.MachineAfter, _ = readCPUTimes()
	r.logMu.Lock()
	rep.Gone = slices.Clone(r.gone)
	r.logMu.Unlock()
	rep.Pools = r.pools(cctx)
	rep.HubDrops, rep.HubDropsErr = r.hubDrops(cctx)
	if rep.Digests, err = env.Stack.StatementDigests(cctx, 15); err != nil {
		rep.DigestErr = err.Error()
	}
	if rep.Redis, err = r.redisStats(cctx); err != nil {
		rep.RedisErr = err.Error()
	}
	r.check(cctx, rep)
	r.logf("checks done; replaying the trace in the scheduling simulator")
	r.simVersusHub(cctx, rep)
	r.logf("replay done")
	close(allDone)
	cancel() // a contestant still retrying a request gives up: the contest is over
	wg.Wait()
	r.sockets.Wait() // every browser is shut: their reconnects end
	r.report(rep)
	rep.Ended = time.Now()
	return rep, nil
}

// stackEnv is the environment of the stack's components: the defaults,
// but for NoWarm.
func stackEnv(cfg Config) []string {
	env := []string{"VERDICT_WEBAPP_PPROF=1", "VERDICT_HUB_PPROF=1", "VERDICT_HUB_PASS_LOG=" + strconv.Itoa(passLogSize)}
	if cfg.NoWarm {
		env = append(env, "VERDICT_HUB_WARM_BEFORE=0")
	}
	return env
}

// setup creates the problems, the contest and the contestants, and
// returns each contestant's password.
func (r *run) setup(ctx context.Context) ([]string, error) {
	for _, p := range r.plan.Problems {
		if err := createProblem(ctx, r.admin, p); err != nil {
			return nil, err
		}
	}
	pw := make([]string, len(r.plan.Contestants))
	for i := range pw {
		pw[i] = harness.NewKey()
	}
	t0 := time.Now()
	// The batches go to the web nodes side by side, one per node (nginx's
	// least_conn gives each request the node with fewer under way): each
	// node hashes the passwords in its share of the cores (one hash slot
	// each of two nodes on 2 cores), so one batch at a time left the
	// other node idle, and the import took 3m40s of a 15m58s rehearsal on
	// the slower VM of 2026-12-07.
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		turns = make(chan struct{}, r.cfg.WebNodes)
	)
	for lo := 0; lo < len(pw); lo += importBatch {
		hi := min(lo+importBatch, len(pw))
		select {
		case turns <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-turns }()
			if err := r.importContestants(ctx, lo, hi, pw[lo:hi]); err != nil {
				mu.Lock()
				first = cmp.Or(first, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	if first != nil {
		return nil, first
	}
	r.logf("imported %d contestants by CSV in %v", len(pw), time.Since(t0).Round(time.Second))
	// The contest starts once the arrival window has passed.
	var arrival time.Duration
	for _, c := range r.plan.Contestants {
		arrival = max(arrival, -c.Login)
	}
	r.start = time.Now().Add(time.Duration(float64(arrival)/r.cfg.ArrivalCompress) + 5*time.Second).Truncate(time.Second)
	r.end = r.at(r.cfg.Shape.Length)
	freezeMin := 0
	if r.cfg.Shape.FreezeLast > 0 {
		freezeMin = max(1, int(math.Round(r.cfg.Shape.FreezeLast.Minutes()/r.cfg.Compress)))
		r.freezeAt = r.end.Add(-time.Duration(freezeMin) * time.Minute)
	}
	var probs []map[string]any
	for _, p := range r.plan.Problems {
		probs = append(probs, map[string]any{"label": p.Label, "slug": p.Slug})
	}
	r.contest = "rehearsal"
	body := map[string]any{
		"slug": r.contest, "title": "Rehearsal contest", "rule": "icpc",
		"start_at": r.start.UTC().Format(time.RFC3339), "end_at": r.end.UTC().Format(time.RFC3339),
		"freeze_minutes": freezeMin, "registration": "open", "visible": true, "problems": probs,
	}
	var cres struct {
		Contest struct {
			ID int64 `json:"id"`
		} `json:"contest"`
	}
	if err := r.admin.Call(ctx, http.MethodPost, "/api/contests", body, &cres); err != nil {
		return nil, fmt.Errorf("rehearsal: create contest: %w", err)
	}
	r.contestID = cres.Contest.ID
	return pw, nil
}

// importContestants imports contestants lo to hi-1 (0-based) with their
// passwords pw, one CSV.
func (r *run) importContestants(ctx context.Context, lo, hi int, pw []string) error {
	var csv strings.Builder
	csv.WriteString("username,password,role\n")
	for i := lo; i < hi; i++ {
		fmt.Fprintf(&csv, "%s,%s,student\n", r.plan.Contestants[i].Username, pw[i-lo])
	}
	var res struct {
		Created int `json:"created"`
	}
	if err := r.admin.Upload(ctx, "/api/users/import", "text/csv", []byte(csv.String()), &res); err != nil {
		return fmt.Errorf("rehearsal: import contestants %d-%d: %w", lo+1, hi, err)
	}
	if res.Created != hi-lo {
		return fmt.Errorf("rehearsal: imported %d contestants of %d (%d-%d)", res.Created, hi-lo, lo+1, hi)
	}
	return nil
}

// importBatch is the rows of one CSV import (the web node's default cap).
const importBatch = 500

// contestant plays one contestant's plan, then keeps the page open until
// allDone.
func (r *run) contestant(ctx context.Context, c *Contestant, pass string, allDone <-chan struct{}) {
	due := r.at(c.Login)
	if !sleepUntil(ctx, due) {
		return
	}
	cl := harness.NewClient(r.env.Base, c.Addr)
	defer cl.CloseIdle()
	if !r.login(ctx, cl, c, pass, due) {
		return
	}
	// The browser opens the contest once logged in.
	due = time.Now()
	r.get(ctx, cl, ClassRegister, http.MethodPost, "/api/contests/"+r.contest+"/register", due)
	r.openPages(ctx, cl, time.Now())
	b := newBrowser(r, cl, c.Index < r.cfg.CheckBoards, c.Index%max(1, len(r.plan.Contestants)/r.cfg.Sample) == 0)
	b.connect(ctx, 0)
	r.browsersMu.Lock()
	r.browsers = append(r.browsers, b)
	r.browsersMu.Unlock()
	defer b.shutdown()
	// The verdicts this contestant waits for: watched beside the plan, so
	// that the next action is sent when it is due, not when the previous
	// submission is judged (a contestant moves on to the next problem
	// while one is judged; the open-loop latency is the server's).
	var watching sync.WaitGroup
	defer watching.Wait()

	type step struct {
		at     time.Duration
		sub    *Sub
		reload *Reload
		ask    bool
	}
	var steps []step
	for i := range c.Subs {
		steps = append(steps, step{at: c.Subs[i].At, sub: &c.Subs[i]})
	}
	for i := range c.Reloads {
		steps = append(steps, step{at: c.Reloads[i].At, reload: &c.Reloads[i]})
	}
	if c.Question >= 0 {
		steps = append(steps, step{at: c.Question, ask: true})
	}
	sortSteps := func(a, b step) int { return cmp.Compare(a.at, b.at) }
	slices.SortStableFunc(steps, sortSteps)
	for n, s := range steps {
		due := r.at(s.at)
		if !sleepUntil(ctx, due) {
			return
		}
		if time.Now().After(r.end) {
			// Fallen so far behind that the contest is over: the page
			// says so; nobody submits or reloads the problems any more.
			for _, rest := range steps[n:] {
				if rest.sub != nil {
					r.lateSubs.Add(1)
				}
			}
			break
		}
		switch {
		case s.sub != nil:
			if id, ok := r.submit(ctx, cl, c, n, *s.sub, due); ok {
				watching.Go(func() { r.watchVerdict(ctx, cl, id, n, due) })
			}
		case s.reload != nil:
			r.openPages(ctx, cl, due)
			if s.reload.Socket {
				b.reopen(ctx)
			}
		case s.ask:
			// As the contest page asks: one key per question, sent again
			// with every retry, so a question is posted once.
			key := harness.NewKey()
			r.subsMu.Lock()
			r.questions[key] = false
			r.subsMu.Unlock()
			if r.keyed(ctx, cl, ClassClarify, http.MethodPost, "/api/contests/"+r.contest+"/clarifications",
				due, key, map[string]any{"problem": r.plan.Problems[0].Label, "question": "Is the input one line? (" + c.Username + ")"}) {
				r.subsMu.Lock()
				r.questions[key] = true
				r.subsMu.Unlock()
			}
		}
	}
	select {
	case <-allDone:
	case <-ctx.Done():
	}
}

// login logs in as the browser does: a 429 or 503 is retried after its
// Retry-After (the frontend shows "many people are logging in").
func (r *run) login(ctx context.Context, cl *harness.Client, c *Contestant, pass string, due time.Time) bool {
	for try := 0; ; try++ {
		sent := time.Now()
		a, err := cl.Login(ctx, c.Username, pass)
		if err == nil && a.Status == http.StatusOK {
			r.m.ok(ClassLogin, due, sent)
			r.loginsDone.Add(1)
			r.loginSpan.Store(max(r.loginSpan.Load(), int64(time.Since(r.at(-r.cfg.Shape.Arrival)))))
			return true
		}
		f := Failure{Class: ClassLogin, What: "POST /api/session", Status: a.Status, Code: answerCode(a)}
		if err != nil || !a.Retryable() || try >= 30 || ctx.Err() != nil {
			if ctx.Err() == nil {
				r.m.fail(f, time.Now())
			}
			return false
		}
		if shedAnswer(a) {
			r.m.retried(f)
			r.loginRetries.Add(1)
		} else {
			r.m.fail(f, time.Now())
		}
		sleepFor(ctx, retryDelay(a, try))
	}
}

// shedAnswer says whether a is a refusal to be sent again later, which
// the report counts apart, not as a failure: a 429, or a 503 but
// unavailable, with Retry-After. A 503 unavailable (a web node's backing
// service failing or out of time, or nginx finding no web node) counts
// as a failure whatever it carries: something broke. The browser sends
// every one of them again all the same.
func shedAnswer(a harness.Answer) bool {
	return a.RetryAfter > 0 && (a.Status == http.StatusTooManyRequests ||
		a.Status == http.StatusServiceUnavailable && a.Code != "unavailable")
}

// retryDelay is how long the frontend waits before retrying (its
// Retry-After, else 1 s doubling, at most 30 s).
func retryDelay(a harness.Answer, try int) time.Duration {
	if a.RetryAfter > 0 {
		return min(a.RetryAfter, 30*time.Second)
	}
	return min(time.Second<<min(try, 5), 30*time.Second)
}

// openPages loads what the contest page shows: the contest, its problems
// (once it has started: before, the page lists none) and the scoreboard,
// all at once, as a browser opening them in its tabs does (each measured
// from due: one slow answer does not make the others late).
func (r *run) openPages(ctx context.Context, cl *harness.Client, due time.Time) {
	var wg sync.WaitGroup
	wg.Go(func() { r.get(ctx, cl, ClassContest, http.MethodGet, "/api/contests/"+r.contest, due) })
	if !time.Now().Before(r.start) {
		for _, p := range r.plan.Problems {
			wg.Go(func() {
				r.get(ctx, cl, ClassProblem, http.MethodGet, "/api/problems/"+p.Slug+"?contest="+r.contest, due)
			})
		}
	}
	wg.Go(func() { r.get(ctx, cl, ClassScoreboard, http.MethodGet, "/api/contests/"+r.contest+"/scoreboard", due) })
	wg.Wait()
}

// get sends one request, retrying as the browser would on 429/503 and
// transport errors, and records it under class. A write it sends must be
// safe to send again: a read, or a post with its key (keyed).
func (r *run) get(ctx context.Context, cl *harness.Client, class, method, path string, due time.Time, in ...any) bool {
	return r.keyed(ctx, cl, class, method, path, due, "", in...)
}

// keyed is get with an Idempotency-Key (key; "" none), the same on every
// try: the server posts it once however many tries reach it.
func (r *run) keyed(ctx context.Context, cl *harness.Client, class, method, path string, due time.Time, key string, in ...any) bool {
	var body []byte
	if len(in) > 0 {
		body, _ = json.Marshal(in[0])
	}
	// As a browser: it takes gzip, and a page's body is the browser's
	// own work (the load generator does not unpack it).
	hdr := map[string]string{"Accept-Encoding": "gzip"}
	if key != "" {
		hdr["Idempotency-Key"] = key
	}
	what := method + " " + pathPattern(path)
	for try := 0; ; try++ {
		sent := time.Now()
		tctx, tr := traced(ctx)
		a, _ := cl.Request(tctx, method, path, body, hdr)
		if a.Status >= 200 && a.Status < 300 {
			r.m.okTraced(class, due, sent, tr)
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		f := Failure{Class: class, What: what, Status: a.Status, Code: answerCode(a)}
		if !a.Retryable() {
			f.Code += ": " + trim(a.Message, 60)
		}
		if !a.Retryable() || try >= 5 {
			r.m.fail(f, time.Now())
			return false
		}
		if shedAnswer(a) {
			r.m.retried(f)
		} else {
			r.m.fail(f, time.Now())
		}
		sleepFor(ctx, retryDelay(a, try))
	}
}

// submit posts one submission with one idempotency key, retried as the
// frontend does, and returns its id (ok false: it got none).
func (r *run) submit(ctx context.Context, cl *harness.Client, c *Contestant, n int, s Sub, due time.Time) (id int64, ok bool) {
	p := r.plan.Problems[s.Problem]
	src := Source(s, p.CaseMs, c.Username, n)
	key := harness.NewKey()
	r.subsMu.Lock()
	r.keysSent[key] = struct{}{}
	r.subsMu.Unlock()
	body, _ := json.Marshal(harness.Submission{Problem: p.Slug, Contest: r.contest, Language: s.Language, Source: src})
	var sent, created time.Time
	var tr *reqTrace
	for try := 0; ; try++ {
		sent = time.Now()
		var tctx context.Context
		tctx, tr = traced(ctx)
		a, raw := cl.Request(tctx, http.MethodPost, "/api/submissions", body, map[string]string{"Idempotency-Key": key})
		if a.Status == http.StatusCreated || a.Status == http.StatusOK {
			var out struct {
				ID         int64 `json:"id"`
				Submission struct {
					CreatedAt time.Time `json:"created_at"`
				} `json:"submission"`
			}
			if err := json.Unmarshal(raw, &out); err != nil || out.ID == 0 {
				r.m.fail(Failure{Class: ClassSubmit, What: "POST /api/submissions", Status: a.Status, Code: "no id"}, time.Now())
				return 0, false
			}
			id, created = out.ID, out.Submission.CreatedAt
			break
		}
		if ctx.Err() != nil {
			return 0, false
		}
		if a.Status == http.StatusForbidden && time.Now().After(r.end) {
			// Sent before the end, answered after it (the contestant was
			// behind, or retried past the end): the server refuses it as
			// it must. A late submission, not a failure; a 403 before the
			// end stays one.
			r.lateSubs.Add(1)
			return 0, false
		}
		f := Failure{Class: ClassSubmit, What: "POST /api/submissions", Status: a.Status, Code: answerCode(a)}
		if !a.Retryable() {
			f.Code += ": " + trim(a.Message, 60)
		}
		if !a.Retryable() || try >= 10 {
			r.m.fail(f, time.Now())
			return 0, false
		}
		if shedAnswer(a) {
			r.m.retried(f)
		} else {
			r.m.fail(f, time.Now())
		}
		sleepFor(ctx, retryDelay(a, try))
	}
	r.m.okTraced(ClassSubmit, due, sent, tr)
	r.keys.Add(1)
	r.registerSub(id, submitted{user: cl.User().ID, label: p.Label, planned: s.Verdict, due: due, acked: time.Now(), created: created})
	return id, true
}

// watchVerdict waits for submission id's final verdict on the owner's
// socket and records how long it took from due; half the time the
// contestant then opens the submission page.
func (r *run) watchVerdict(ctx context.Context, cl *harness.Client, id int64, n int, due time.Time) {
	wctx, cancel := context.WithTimeout(ctx, verdictWait)
	v, err := r.verdicts.Wait(wctx, id)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			r.m.fail(Failure{Class: ClassSubmit, What: "verdict on the owner's socket", Code: "none within " + verdictWait.String()}, time.Now())
		}
		return
	}
	r.verdictAt.Add(v.At.Sub(due))
	if due.Sub(r.start) < time.Minute {
		r.firstMinute.Add(v.At.Sub(due))
	}
	if w, ok := r.judges.work(id); ok {
		r.overhead.Add(v.At.Sub(due) - w)
		r.subsMu.Lock()
		acked := r.subs[id].acked
		r.subsMu.Unlock()
		s := overheadSample{due: due, total: v.At.Sub(due) - w}
		if pushed, result := r.judges.firstTimes(id); !pushed.IsZero() && !result.IsZero() && !result.After(v.At) {
			// A push that beat the POST's answer back waited 0.
			s.parts = [4]time.Duration{acked.Sub(due), max(0, pushed.Sub(acked)), max(0, result.Sub(pushed)-w), v.At.Sub(result)}
			s.hasParts = true
			for i, d := range s.parts {
				r.parts[i].Add(d)
			}
		}
		r.overheadsMu.Lock()
		r.overheads = append(r.overheads, s)
		r.overheadsMu.Unlock()
	}
	if n%2 == 0 { // half the time the contestant opens the submission page
		r.get(ctx, cl, ClassSubmission, http.MethodGet, "/api/submissions/"+strconv.FormatInt(id, 10), time.Now())
	}
}

// verdictWait is how long a contestant waits for a verdict before giving
// up on it (it is still checked in MySQL at the end).
const verdictWait = 2 * time.Minute

// drainStall ends the drain early: no verdict reached a socket for this
// long, so the missing ones are not on their way (the check counts them).
const drainStall = 20 * time.Second

// drain waits until every submission that got an id has its verdict on
// its owner's socket, or within passes, or no verdict came for drainStall.
func (r *run) drain(ctx context.Context, within time.Duration) {
	deadline := time.Now().Add(within)
	last, moved := -1, time.Now()
	for time.Now().Before(deadline) && ctx.Err() == nil {
		r.subsMu.Lock()
		ids := make([]int64, 0, len(r.subs))
		for id := range r.subs {
			ids = append(ids, id)
		}
		r.subsMu.Unlock()
		missing := 0
		for _, id := range ids {
			if _, ok := r.verdicts.Seen(id); !ok {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if missing != last {
			last, moved = missing, time.Now()
		} else if time.Since(moved) > drainStall {
			r.logf("%d verdicts not on their sockets; none came for %v: the checks begin", missing, drainStall)
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// rejudgeWait bounds how long the staff wait after the contest for their
// rejudge to be done and judged before they unfreeze the board.
const rejudgeWait = 10 * time.Minute

// awaitRejudge is the staff after the contest, before the unfreeze: as an
// organiser does, they wait for the rejudge they asked for mid-contest to
// have gone through every submission (GET /api/rejudge/{job}) and for
// every submission of the contest to be judged again in MySQL — or
// within. Under load a rejudge of 2,000 submissions ran 7 minutes, past
// the end: checked before it was done, MySQL and every board were still
// moving, and the checks compared boards with a board that no longer
// held.
func (r *run) awaitRejudge(ctx context.Context, within time.Duration) {
	deadline := time.Now().Add(within)
	select {
	case <-r.rejudgeAsked:
	case <-ctx.Done():
		return
	case <-time.After(within):
		r.note(&r.staffLog, "the rejudge's POST had no answer %v after the end; not waiting for it", within)
		return
	}
	jp := r.rejudgeJob.Load()
	if jp == nil {
		return // it failed (a staff failure) or was not asked for
	}
	var st struct {
		Total       int  `json:"total"`
		Done        int  `json:"done"`
		Failed      int  `json:"failed"`
		Finished    bool `json:"finished"`
		Interrupted bool `json:"interrupted"`
	}
	for {
		err := r.admin.Call(ctx, http.MethodGet, "/api/rejudge/"+*jp, nil, &st)
		if err == nil && (st.Finished || st.Interrupted) {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			r.note(&r.staffLog, "the rejudge was not done %v after the end (%d of %d, last error %v); the checks begin", within, st.Done+st.Failed, st.Total, err)
			return
		}
		sleepFor(ctx, 2*time.Second)
	}
	r.note(&r.staffLog, "the rejudge went through %d of %d submissions (%d failed, interrupted %v)", st.Done+st.Failed, st.Total, st.Failed, st.Interrupted)
	for {
		pending, err := r.notFinalInMySQL(ctx)
		if err == nil && pending == 0 {
			r.note(&r.staffLog, "every submission judged again")
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			r.note(&r.staffLog, "%d submissions still not judged %v after the end (last error %v); the checks begin", pending, within, err)
			return
		}
		sleepFor(ctx, 2*time.Second)
	}
}

// notFinalInMySQL counts the contest's submissions MySQL holds without a
// final verdict.
func (r *run) notFinalInMySQL(ctx context.Context) (int, error) {
	rows, err := r.env.DB.QueryContext(ctx, "SELECT verdict FROM submissions WHERE contest_id = ?", r.contestID)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return 0, err
		}
		if !protocol.Verdict(v).Final() {
			n++
		}
	}
	return n, rows.Err()
}

// staff is the admin during the contest: answers clarifications, rejudges
// a problem, posts an announcement.
func (r *run) staff(ctx context.Context) {
	sp := r.plan.Staff
	type act struct {
		at time.Duration
		do func()
	}
	var acts []act
	// The clarification rounds stay one at a time (one person reads them):
	// a round due while the last is still going waits for it.
	var answering sync.Mutex
	answer := func() {
		answering.Lock()
		defer answering.Unlock()
		r.answerAll(ctx)
	}
	for t := sp.AnswerEvery; t < r.cfg.Shape.Length; t += sp.AnswerEvery {
		acts = append(acts, act{t, answer})
	}
	acts = append(acts,
		act{sp.Rejudge, func() {
			slug := r.plan.Problems[sp.RejudgeProblem].Slug
			var out struct {
				Queued   int    `json:"queued"`
				Job      string `json:"job"`
				Repeated bool   `json:"repeated"`
			}
			defer close(r.rejudgeAsked)
			r.judges.rejudged(time.Now())
			// One click: its key goes with every retry, so a rejudge whose
			// answer was lost is not started twice.
			if err := r.staffCallKeyed(ctx, http.MethodPost, "/api/rejudge", "rehearsal-rejudge-"+slug,
				map[string]any{"problem": slug}, &out); err != nil {
				r.m.fail(staffFailure("POST /api/rejudge", err), time.Now())
				return
			}
			if out.Job != "" {
				r.rejudgeJob.Store(&out.Job)
			}
			again := ""
			if out.Repeated {
				again = " (answered to a retry: the first try's answer was lost)"
			}
			r.note(&r.staffLog, "rejudged problem %s: %d submissions, in the background%s", slug, out.Queued, again)
		}},
		act{sp.Announce, func() {
			// One click: its key goes with every retry, so an announcement
			// whose answer was lost is not posted twice.
			if err := r.staffCallKeyed(ctx, http.MethodPost, "/api/contests/"+r.contest+"/clarifications", "rehearsal-announcement",
				map[string]any{"announcement": "Problem B: the graph may have self-loops."}, nil); err != nil {
				r.m.fail(staffFailure("POST announcement", err), time.Now())
				return
			}
			r.note(&r.staffLog, "posted an announcement")
		}})
	// Each action at its own time, as a jury of several people works: one
	// slow answer (a rejudge of thousands under load) holds up no other.
	var wg sync.WaitGroup
	for _, a := range acts {
		wg.Go(func() {
			due := r.at(a.at)
			if !sleepUntil(ctx, due) {
				return
			}
			t0 := time.Now()
			a.do()
			r.m.ok(ClassStaff, due, t0)
		})
	}
	wg.Wait()
	answer()
}

// staffCall is a staff member's request through the admin pages: like a
// browser, it tries again after Retry-After when the server refused it
// without doing anything (429, or 503 "busy": the admission gate sheds
// before any work), and a read (GET) after any answer a browser retries,
// up to staffTries in all; each retried answer is counted as shed. A
// 2xx answer is decoded into out. A failure is a *staffError.
func (r *run) staffCall(ctx context.Context, method, path string, in, out any) error {
	return r.staffDo(ctx, method, path, "", false, in, out)
}

// staffCallKeyed is staffCall for a write the server takes an
// Idempotency-Key for (key, sent on every try): like a read, it is tried
// again after any answer a browser retries (no answer, 502, 503, 504) —
// the server does it once whatever reached it.
func (r *run) staffCallKeyed(ctx context.Context, method, path, key string, in, out any) error {
	return r.staffDo(ctx, method, path, key, true, in, out)
}

// staffCallIdempotent is staffCall for a write that is idempotent by
// itself (an answer to a clarification sets it): tried again as a keyed
// one is.
func (r *run) staffCallIdempotent(ctx context.Context, method, path string, in, out any) error {
	return r.staffDo(ctx, method, path, "", true, in, out)
}

// staffError is a staff request that failed: its last answer (Status 0:
// none; Code the API's error code, or what went wrong).
type staffError struct {
	Method, Path string
	Status       int
	Code, Msg    string
}

func (e *staffError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("rehearsal: %s %s: %s", e.Method, e.Path, e.Msg)
	}
	return fmt.Sprintf("rehearsal: %s %s: status %d: %s %s", e.Method, e.Path, e.Status, e.Code, e.Msg)
}

// staffFailure is the report's row for a staff request what that failed
// with err: its status and code where it had an answer.
func staffFailure(what string, err error) Failure {
	f := Failure{Class: ClassStaff, What: what}
	if se, ok := errors.AsType[*staffError](err); ok {
		f.Status, f.Code = se.Status, se.Code
		if se.Status == 0 || se.Code == "" {
			f.Code = trim(se.Msg, 60)
		}
		return f
	}
	f.Code = short(err)
	return f
}

func (r *run) staffDo(ctx context.Context, method, path, key string, safe bool, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("rehearsal: %s %s: %w", method, path, err)
		}
	}
	var hdr map[string]string
	if key != "" {
		hdr = map[string]string{"Idempotency-Key": key}
	}
	for try := 0; ; try++ {
		a, raw := r.admin.Request(ctx, method, path, body, hdr)
		if a.Status >= 200 && a.Status < 300 {
			if out == nil {
				return nil
			}
			if err := json.Unmarshal(raw, out); err != nil {
				return fmt.Errorf("rehearsal: %s %s: %w", method, path, err)
			}
			return nil
		}
		if !staffRetries(method, safe, a) || try+1 >= staffTries || ctx.Err() != nil {
			return &staffError{Method: method, Path: path, Status: a.Status, Code: a.Code, Msg: a.Message}
		}
		r.m.retried(Failure{Class: ClassStaff, What: method + " " + staffPath(path), Status: a.Status, Code: answerCode(a)})
		if !sleepFor(ctx, retryDelay(a, try)) {
			return ctx.Err()
		}
	}
}

// staffRetries says whether a staff request answered a is tried again:
// after Retry-After, when the server refused it without doing anything;
// a read, or a write safe to send again (sent with an Idempotency-Key, or
// idempotent by itself), after anything a browser retries (Retry-After,
// or a growing wait without one).
func staffRetries(method string, safe bool, a harness.Answer) bool {
	refused := a.Status == http.StatusTooManyRequests || (a.Status == http.StatusServiceUnavailable && a.Code == "busy")
	return (refused && a.RetryAfter > 0) || ((method == http.MethodGet || safe) && a.Retryable())
}

// staffTries bounds a staff request's tries.
const staffTries = 8

// staffPath is path with its numbers as N (one row per kind of request).
func staffPath(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if _, err := strconv.ParseInt(p, 10, 64); err == nil {
			parts[i] = "N"
		}
	}
	return strings.Join(parts, "/")
}

// answerAll answers every unanswered question privately.
func (r *run) answerAll(ctx context.Context) {
	var list struct {
		Clarifications []struct {
			ID     int64   `json:"id"`
			Answer *string `json:"answer"`
			Annc   bool    `json:"announcement"`
		} `json:"clarifications"`
	}
	if err := r.staffCall(ctx, http.MethodGet, "/api/contests/"+r.contest+"/clarifications", nil, &list); err != nil {
		r.m.fail(staffFailure("GET clarifications", err), time.Now())
		return
	}
	n := 0
	for _, c := range list.Clarifications {
		if c.Annc || (c.Answer != nil && *c.Answer != "") {
			continue
		}
		public := false
		// An answer sets it: sent again, it sets the same.
		if err := r.staffCallIdempotent(ctx, http.MethodPost, fmt.Sprintf("/api/contests/%s/clarifications/%d/answer", r.contest, c.ID),
			map[string]any{"answer": "Yes: read the statement's input section.", "public": &public}, nil); err != nil {
			r.m.fail(staffFailure("POST answer", err), time.Now())
			continue
		}
		n++
	}
	if n > 0 {
		r.note(&r.staffLog, "answered %d clarifications", n)
	}
}

func (r *run) unfreeze(ctx context.Context) error {
	if r.freezeAt.IsZero() {
		return nil
	}
	// Staff click again when the page says it failed: a lost answer on a
	// loaded machine must not leave every browser on the frozen board
	// (it did once, and the board check then reported thousands of
	// differing cells). Each failed try is still counted.
	what := Failure{Class: ClassStaff, What: "POST unfreeze"}
	for try := 0; ; try++ {
		a, _ := r.admin.Request(ctx, http.MethodPost, "/api/contests/"+r.contest+"/unfreeze", nil, nil)
		if a.Status >= 200 && a.Status < 300 {
			r.unfrozen.Store(true)
			r.note(&r.staffLog, "unfroze the board after the end")
			return nil
		}
		err := fmt.Errorf("unfreeze: %d %s %s", a.Status, a.Code, a.Message)
		if !a.Retryable() || try >= 7 {
			return err // recorded by the caller
		}
		what.Status, what.Code = a.Status, short(err)
		r.m.fail(what, time.Now())
		if !sleepFor(ctx, retryDelay(a, try)) {
			return err
		}
	}
}

// faults plays the plan's faults, each at its time.
func (r *run) faults(ctx context.Context) {
	playFaults(ctx, r.plan.Faults, r.at, r.fault)
}

// playFaults starts do for each fault at at(f.At), each in a goroutine of
// its own, and returns when every one has returned. A fault with an
// aftermath (the killed web node started again after faultWebDownFor)
// holds only itself: the plan's later faults come at their own times
// (they waited behind the web node's 20 s before, which at 40× put the
// judge's kill and Redis's restart 13 minutes of contest time late).
func playFaults(ctx context.Context, faults []Fault, at func(time.Duration) time.Time, do func(context.Context, Fault)) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, f := range faults {
		if !sleepUntil(ctx, at(f.At)) {
			return
		}
		wg.Go(func() { do(ctx, f) })
	}
}

// fault provokes one fault and marks its window.
func (r *run) fault(ctx context.Context, f Fault) {
	t0 := time.Now()
	r.logMu.Lock()
	r.faultsAt = append(r.faultsAt, schedtrace.Fault{AtMs: max(0, t0.Sub(r.start).Milliseconds()), Kind: string(f.Kind)})
	r.logMu.Unlock()
	var err error
	switch f.Kind {
	case FaultKillWeb:
		r.m.provoke(f.Kind, t0, faultWebDownFor+10*time.Second)
		name := "web-" + strconv.Itoa(r.cfg.WebNodes)
		r.ending(name, r.env.Stack.Pids()[name])
		if err = r.env.Stack.Kill(name); err == nil {
			r.note(&r.faultLog, "kill -9 %s", name)
			sleepFor(ctx, faultWebDownFor)
			err = r.env.Stack.Start(ctx, name)
			r.note(&r.faultLog, "%s started again after %v", name, time.Since(t0).Round(time.Second))
		}
	case FaultKillJudge:
		r.m.provoke(f.Kind, t0, 15*time.Second)
		var name string
		if name, err = r.judges.kill(ctx, 20*time.Second); err == nil {
			r.note(&r.faultLog, "killed simulated judge %s (no drain, no goodbye); it dials in again after 20 s", name)
		}
	case FaultRedis:
		r.m.provoke(f.Kind, t0, 15*time.Second)
		r.ending("redis", r.env.Stack.Pids()["redis"])
		if err = r.env.Stack.RestartRedis(ctx); err == nil {
			r.note(&r.faultLog, "restarted Redis (down %v)", time.Since(t0).Round(time.Millisecond))
		}
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		r.note(&r.faultLog, "%s failed: %v", f.Kind, err)
	}
}

// ending reads process pid (name in the process table) just before a
// fault ends it.
func (r *run) ending(name string, pid int) {
	if pid < 1 {
		return
	}
	p := readProc(name, pid)
	r.logMu.Lock()
	r.gone = append(r.gone, p)
	r.logMu.Unlock()
}

func (r *run) note(log *[]string, format string, args ...any) {
	s := fmt.Sprintf("%s (contest time %s)", fmt.Sprintf(format, args...), r.contestTime(time.Now()))
	r.logMu.Lock()
	*log = append(*log, s)
	r.logMu.Unlock()
	r.logf("%s", s)
}

func trim(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func sleepUntil(ctx context.Context, t time.Time) bool {
	return sleepFor(ctx, time.Until(t))
}

func sleepFor(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// pathPattern replaces ids in a path by {id} for the failure tables.
func pathPattern(p string) string {
	p, _, _ = strings.Cut(p, "?")
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			parts[i] = "{id}"
		}
	}
	return strings.Join(parts, "/")
}

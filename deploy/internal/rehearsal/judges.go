package rehearsal

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/bench"
	"github.com/verdict-oj/verdict/deploy/internal/simjudge"
	"github.com/verdict-oj/verdict/internal/protocol"
)

// judgePool is the rehearsal's simulated judges, with what they saw of
// every task.
type judgePool struct {
	r      *run
	mu     sync.Mutex
	judges map[string]*simJudge
	order  []string
	works  map[int64]time.Duration // submission → simulated work of its latest attempt
	waits  map[string]*bench.Recorder
	// first is each submission's first attempt as the judges saw it: the
	// first push (whichever judge got it) and its work, for the trace.
	first map[int64]*firstAttempt
	// later is each later attempt (a rejudge's, or a requeue's after a
	// lease expired) as the judges saw it, and rejudgeAt when staff asked
	// for the rejudge: the trace's background tasks.
	later     map[protocol.TaskRef]*firstAttempt
	rejudgeAt time.Time
	// spans are the judges' connections: joined, and left when killed.
	spans []judgeSpan
	wg    sync.WaitGroup
}

// simJudge is one simulated judge: in this process (j) or a
// `verdict-stack simjudge` child (cmd) whose events come back as JSON
// lines on its stdout.
type simJudge struct {
	cfg    simjudge.Config
	j      *simjudge.Judge
	cmd    *exec.Cmd
	cancel context.CancelFunc
	done   chan struct{}
}

// startJudges issues a token per simulated judge through the admin API, as
// an organiser does, starts them and waits until the web nodes see them
// all live.
func (r *run) startJudges(ctx context.Context) (*judgePool, error) {
	p := &judgePool{r: r, judges: map[string]*simJudge{}, works: map[int64]time.Duration{}, waits: map[string]*bench.Recorder{},
		first: map[int64]*firstAttempt{}, later: map[protocol.TaskRef]*firstAttempt{}}
	for i := range r.cfg.Judges {
		name := fmt.Sprintf("sim-%02d", i+1)
		var out struct {
			Token string `json:"token"`
		}
		if err := r.admin.Call(ctx, http.MethodPost, "/api/judges", map[string]any{"name": name}, &out); err != nil {
			p.stop()
			return nil, fmt.Errorf("rehearsal: issue a token for %s: %w", name, err)
		}
		cfg := simjudge.Config{
			HubURL: r.env.Stack.HubURL(), ID: name, Token: out.Token, Slots: r.cfg.Slots, Speed: r.cfg.Speed,
			Seed: r.cfg.Shape.Seed + uint64(i), CompileTime: r.cfg.Compile, OnEvent: p.onEvent,
		}
		if err := p.start(cfg); err != nil {
			p.stop()
			return nil, err
		}
	}
	if err := r.env.WaitJudges(ctx, r.cfg.Judges+r.cfg.RealJudges, 60*time.Second); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

func (p *judgePool) start(cfg simjudge.Config) error {
	if !p.r.cfg.JudgesInProcess {
		return p.startProcess(cfg)
	}
	j, err := simjudge.New(cfg)
	if err != nil {
		return fmt.Errorf("rehearsal: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sj := &simJudge{cfg: cfg, j: j, cancel: cancel, done: make(chan struct{})}
	p.mu.Lock()
	if _, ok := p.judges[cfg.ID]; !ok {
		p.order = append(p.order, cfg.ID)
	}
	p.judges[cfg.ID] = sj
	p.spans = append(p.spans, judgeSpan{id: cfg.ID, slots: cfg.Slots, speed: cfg.Speed, joined: time.Now()})
	p.mu.Unlock()
	p.wg.Go(func() {
		defer close(sj.done)
		_ = j.Run(ctx)
	})
	return nil
}

// startProcess runs the judge as `verdict-stack simjudge --events`.
func (p *judgePool) startProcess(cfg simjudge.Config) error {
	bin, err := p.r.simjudgeBinary()
	if err != nil {
		return err
	}
	dir := filepath.Join(p.r.env.Stack.Dir(), "simjudges")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("rehearsal: %w", err)
	}
	tok := filepath.Join(dir, cfg.ID+".token")
	if err := os.WriteFile(tok, []byte(cfg.Token+"\n"), 0o600); err != nil {
		return fmt.Errorf("rehearsal: %w", err)
	}
	cmd := exec.Command(bin, "simjudge", "--hub", cfg.HubURL, "--id", cfg.ID, "--token-file", tok,
		"--slots", strconv.Itoa(cfg.Slots), "--speed", strconv.FormatFloat(cfg.Speed, 'f', -1, 64),
		"--seed", strconv.FormatUint(cfg.Seed, 10), "--compile-ms", strconv.FormatInt(cfg.CompileTime.Milliseconds(), 10),
		"--events", "--log-level", "warn")
	cmd.Stderr = cmp.Or[io.Writer](p.r.cfg.StackOut, io.Discard)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("rehearsal: simjudge %s: %w", cfg.ID, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("rehearsal: simjudge %s: %w", cfg.ID, err)
	}
	sj := &simJudge{cfg: cfg, cmd: cmd, cancel: func() { _ = cmd.Process.Signal(syscall.SIGTERM) }, done: make(chan struct{})}
	p.mu.Lock()
	if _, ok := p.judges[cfg.ID]; !ok {
		p.order = append(p.order, cfg.ID)
	}
	p.judges[cfg.ID] = sj
	p.spans = append(p.spans, judgeSpan{id: cfg.ID, slots: cfg.Slots, speed: cfg.Speed, joined: time.Now()})
	p.mu.Unlock()
	p.wg.Go(func() {
		defer close(sj.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var ev simjudge.Event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				p.r.logf("simjudge %s: undecodable event %.80q: %v", cfg.ID, sc.Text(), err)
				continue
			}
			p.onEvent(ev)
		}
		_ = cmd.Wait()
	})
	return nil
}

// pids are the running simulated judges' processes.
func (p *judgePool) pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []int
	for _, sj := range p.judges {
		if sj.cmd != nil && sj.cmd.Process != nil {
			out = append(out, sj.cmd.Process.Pid)
		}
	}
	return out
}

// simjudgeBinary is the verdict-stack binary that runs simulated
// judges: in the stack's bin directory, built there when missing.
func (r *run) simjudgeBinary() (string, error) {
	r.simjudgeOnce.Do(func() {
		bin := filepath.Join(r.env.Bin, "verdict-stack")
		if _, err := os.Stat(bin); err == nil {
			r.simjudgeBin = bin
			return
		}
		cmd := exec.Command("go", "build", "-o", bin, "./deploy")
		cmd.Dir = r.cfg.Root
		if out, err := cmd.CombinedOutput(); err != nil {
			r.simjudgeErr = fmt.Errorf("rehearsal: go build ./deploy: %w\n%s", err, out)
			return
		}
		r.simjudgeBin = bin
	})
	return r.simjudgeBin, r.simjudgeErr
}

// firstAttempt is a submission's first attempt as the judges saw it.
type firstAttempt struct {
	judge     string
	pushed    time.Time
	enqueued  time.Time      // the queue's enqueue, as the hub sent it (zero: not sent)
	placed    time.Time      // the start of the hub's pass that placed it (zero: not sent)
	noticed   time.Time      // the hub read the enqueue's notice (zero: not before it placed it, or not sent)
	held      *protocol.Held // how often the hub's passes held it, and why (nil: never, or not sent)
	problemID int64
	dataHash  string
	language  string
	work      time.Duration // at speed 1
	compile   time.Duration // the part of work spent compiling, at speed 1
	started   time.Time     // a slot of the first judge pushed it took it
	result    time.Time     // the first attempt's result left the judge
	resultOn  string        // from this judge
	slotMs    float64       // the hub's time from that result's sending to its slot free (its ack)
}

// judgeSpan is one simulated judge's connection.
type judgeSpan struct {
	id           string
	slots        int
	speed        float64
	joined, left time.Time
	// ready is when each test data package was downloaded and verified
	// on this connection (simjudge.EventDataReady): the trace lists what
	// a judge held at the start as its warm cache.
	ready map[string]time.Time
}

// onEvent is every simulated judge's event hook.
func (p *judgePool) onEvent(ev simjudge.Event) {
	t := ev.Task
	switch {
	case ev.Kind == simjudge.EventDataReady:
		p.mu.Lock()
		for i := len(p.spans) - 1; i >= 0; i-- {
			if s := &p.spans[i]; s.id == ev.JudgeID && s.left.IsZero() {
				if s.ready == nil {
					s.ready = map[string]time.Time{}
				}
				if _, ok := s.ready[t.DataHash]; !ok {
					s.ready[t.DataHash] = ev.At
				}
				break
			}
		}
		p.mu.Unlock()
	case ev.Kind == simjudge.EventReceived && t.Pushes == 1 && t.Attempt == 1:
		p.mu.Lock()
		_, seen := p.first[t.SubmissionID]
		if !seen { // a task rejected busy is pushed again elsewhere: the first push counts
			p.first[t.SubmissionID] = &firstAttempt{judge: ev.JudgeID, pushed: ev.At, problemID: t.ProblemID, dataHash: t.DataHash, language: t.Language,
				enqueued: t.Enqueued, placed: t.Placed, noticed: t.Noticed, held: t.Held}
		}
		p.mu.Unlock()
		if !seen {
			p.r.dispatched(ev.JudgeID, t.SubmissionID, ev.At, p)
		}
	case ev.Kind == simjudge.EventReceived && t.Pushes == 1:
		ref := protocol.TaskRef{SubmissionID: t.SubmissionID, Attempt: t.Attempt}
		p.mu.Lock()
		if _, seen := p.later[ref]; !seen {
			p.later[ref] = &firstAttempt{judge: ev.JudgeID, pushed: ev.At, problemID: t.ProblemID, dataHash: t.DataHash, language: t.Language,
				enqueued: t.Enqueued}
		}
		p.mu.Unlock()
	case ev.Kind == simjudge.EventStarted && t.Attempt == 1:
		p.mu.Lock()
		if f := p.first[t.SubmissionID]; f != nil && f.judge == ev.JudgeID && f.started.IsZero() {
			f.started = ev.At
		}
		p.mu.Unlock()
	case ev.Kind == simjudge.EventResultSent && t.Sends == 1:
		p.mu.Lock()
		p.works[t.SubmissionID] = t.Work
		if f := p.first[t.SubmissionID]; f != nil && t.Attempt == 1 {
			f.work = time.Duration(float64(t.Work) * p.r.cfg.Speed)
			f.compile = time.Duration(float64(t.Compile) * p.r.cfg.Speed)
			// Its slot's time on the judge ends when the result was
			// stamped sent: the hub counts its way from there.
			f.result = cmp.Or(t.Sent, ev.At)
			f.resultOn = ev.JudgeID
		}
		if f := p.later[protocol.TaskRef{SubmissionID: t.SubmissionID, Attempt: t.Attempt}]; f != nil && t.Attempt > 1 {
			f.work = time.Duration(float64(t.Work) * p.r.cfg.Speed)
			f.compile = time.Duration(float64(t.Compile) * p.r.cfg.Speed)
		}
		p.mu.Unlock()
		p.r.resultSent(t.SubmissionID, t.Attempt, ev.At)
	case ev.Kind == simjudge.EventAcked && t.Attempt == 1 && t.Sends == 1 && t.SlotMs > 0:
		// The hub counts it from the send it handled: the first, as the
		// slot's time on the judge ends there (a resend after a
		// reconnect would free the replay's slot early by the gap).
		p.mu.Lock()
		if f := p.first[t.SubmissionID]; f != nil && f.resultOn == ev.JudgeID && f.slotMs == 0 {
			f.slotMs = t.SlotMs
		}
		p.mu.Unlock()
	}
}

// rejudged records when staff asked for a rejudge (the trace's rejudge
// tasks are enqueued then when the hub sent no enqueue time).
func (p *judgePool) rejudged(at time.Time) {
	p.mu.Lock()
	p.rejudgeAt = at
	p.mu.Unlock()
}

func (p *judgePool) addWait(judge string, d time.Duration) {
	p.mu.Lock()
	rec := p.waits[judge]
	if rec == nil {
		rec = &bench.Recorder{}
		p.waits[judge] = rec
	}
	p.mu.Unlock()
	rec.Add(d)
}

// firstTimes is when a submission's first attempt was first pushed to a
// judge and when its result left that judge (zero: not yet).
func (p *judgePool) firstTimes(id int64) (pushed, result time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f := p.first[id]; f != nil {
		return f.pushed, f.result
	}
	return time.Time{}, time.Time{}
}

// work is the simulated work of a submission's latest judged attempt.
func (p *judgePool) work(id int64) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.works[id]
	return w, ok
}

// kill stops one judge as kill -9 would (its link dropped at once, its
// tasks lost, no drain) and starts a fresh one with the same token after
// downFor.
func (p *judgePool) kill(ctx context.Context, downFor time.Duration) (string, error) {
	p.mu.Lock()
	if len(p.order) == 0 {
		p.mu.Unlock()
		return "", fmt.Errorf("rehearsal: no judge to kill")
	}
	name := p.order[0]
	sj := p.judges[name]
	for i := len(p.spans) - 1; i >= 0; i-- {
		if p.spans[i].id == name && p.spans[i].left.IsZero() {
			p.spans[i].left = time.Now()
			break
		}
	}
	p.mu.Unlock()
	if sj.cmd != nil {
		p.r.ending(simJudges, sj.cmd.Process.Pid)
		_ = sj.cmd.Process.Kill()
	} else {
		sj.j.Kill()
	}
	<-sj.done
	p.wg.Go(func() {
		if sleepFor(ctx, downFor) {
			_ = p.start(sj.cfg)
		}
	})
	return name, nil
}

func (p *judgePool) stop() {
	p.mu.Lock()
	for _, sj := range p.judges {
		sj.cancel()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// dispatch summarises the dispatch waits per judge and over all.
func (p *judgePool) dispatch() []JudgeDispatch {
	p.mu.Lock()
	names := make([]string, 0, len(p.waits))
	for n := range p.waits {
		names = append(names, n)
	}
	p.mu.Unlock()
	sort.Strings(names)
	var all bench.Recorder
	var out []JudgeDispatch
	for _, n := range names {
		p.mu.Lock()
		rec := p.waits[n]
		p.mu.Unlock()
		d, mean := summarise(rec, &all)
		out = append(out, JudgeDispatch{Class: n, Tasks: d.N, Wait: d, Mean: mean})
	}
	s := all.Summary()
	out = append(out, JudgeDispatch{Class: fmt.Sprintf("all %d simulated (%d slots, speed %.2f)", p.r.cfg.Judges, p.r.cfg.Slots, p.r.cfg.Speed),
		Tasks: s.N, Wait: s, Mean: meanOf(&all)})
	return out
}

func summarise(rec, all *bench.Recorder) (bench.Summary, time.Duration) {
	for _, d := range rec.Values() {
		all.Add(d)
	}
	return rec.Summary(), meanOf(rec)
}

func meanOf(rec *bench.Recorder) time.Duration {
	vs := rec.Values()
	if len(vs) == 0 {
		return 0
	}
	var sum time.Duration
	for _, v := range vs {
		sum += v
	}
	return sum / time.Duration(len(vs))
}

// dispatched records the wait from the POST's answer to the task's first
// push to a judge (first attempts only).
func (r *run) dispatched(judge string, id int64, at time.Time, p *judgePool) {
	r.subsMu.Lock()
	s, ok := r.subs[id]
	if !ok {
		r.early[id] = earlyEvent{pushed: at, judge: judge}
	}
	r.subsMu.Unlock()
	// A push that beat the POST's answer back to the browser (the judge
	// got the task before the load generator read the answer) waited 0.
	if ok {
		p.addWait(judge, max(0, at.Sub(s.acked)))
	} else {
		p.addWait(judge, 0)
	}
}

// resultSent marks the cell a result changes, so sampled browsers measure
// how long it takes to show. A result of a submission made in the
// freeze is not marked (the public board shows it pending until the
// end); one of a submission made before the freeze is, whenever it comes
// (the frozen board shows it). A rejudge's result marks its cell changed
// unmeasured: the change it makes would otherwise be measured from the
// cell's latest first attempt, one whose result changed nothing visible
// (a compile error, an attempt after the solve) an hour of contest
// earlier: the 642 s maximum of every 10× run of 2026-12-05. Until
// 2026-12-06 the freeze was decided by the result's time, so a rejudge's
// result after the freeze (the reserve spreads a rejudge's results to
// the end) marked nothing, and the change it made on the frozen board
// was measured that way: the 637 s maximum of the 05:30 run.
func (r *run) resultSent(id int64, attempt int, at time.Time) {
	r.subsMu.Lock()
	s, ok := r.subs[id]
	if !ok && attempt == 1 {
		e := r.early[id]
		e.result = at
		r.early[id] = e
	}
	r.subsMu.Unlock()
	if ok {
		r.markResult(s, attempt, at)
	}
}

// markResult marks the cell of submission s changed by its attempt's
// result, sent at at (resultSent).
func (r *run) markResult(s submitted, attempt int, at time.Time) {
	made := s.created
	if made.IsZero() {
		made = s.acked
	}
	if !r.freezeAt.IsZero() && !made.Before(r.freezeAt) {
		return
	}
	if attempt != 1 {
		at = time.Time{}
	}
	r.stale.add(cellKey{s.user, s.label}, at)
}

// earlyEvent is what a judge reported for a submission before its POST's
// answer reached the browser.
type earlyEvent struct {
	pushed, result time.Time
	judge          string
}

// registerSub records a submission the browser got the id of, and applies
// judge events that came before.
func (r *run) registerSub(id int64, s submitted) {
	r.subsMu.Lock()
	r.subs[id] = s
	e, early := r.early[id]
	delete(r.early, id)
	r.subsMu.Unlock()
	if early && !e.result.IsZero() {
		r.markResult(s, 1, e.result)
	}
}

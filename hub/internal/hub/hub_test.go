package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/boarddoc"
	"github.com/verdict-oj/verdict/internal/judgestate"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testenv"
)

func exactlyOne(t *testing.T, rs map[int64][]queue.ResultEntry, ids []int64) {
	t.Helper()
	for _, id := range ids {
		if n := len(rs[id]); n != 1 {
			t.Errorf("submission %d has %d results, want exactly 1: %+v", id, n, rs[id])
			continue
		}
		if rs[id][0].Verdict != protocol.VerdictAC {
			t.Errorf("submission %d: verdict %s (%s)", id, rs[id][0].Verdict, rs[id][0].Reason)
		}
	}
}

func ids(from, to int64) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func TestJudgeAuthentication(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	ctx := context.Background()
	dialHello := func(id, token string) error {
		c, _, err := websocket.Dial(ctx, th.url("/judge"), &websocket.DialOptions{Subprotocols: []string{protocol.SubprotocolJudge}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		b, _ := protocol.Marshal(protocol.TypeHello, "", protocol.Hello{JudgeID: id, Token: token, Cores: 1, MaxParallel: 1})
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
		for {
			if _, _, err := c.Read(ctx); err != nil {
				return err
			}
		}
	}
	// Before any web node has loaded the tokens (Redis restarted empty), an
	// unknown token is not proof of a bad one: retry, do not stop.
	if code := websocket.CloseStatus(dialHello("j1", "good")); code != websocket.StatusCode(protocol.CloseTryAgainLater) {
		t.Fatalf("hello before the token table is loaded: close code %d, want try_again_later", code)
	}
	if !protocol.CloseTryAgainLater.Retry() {
		t.Fatal("try_again_later must tell the agent to retry")
	}
	addToken(t, env, "j1", "good")
	tests := []struct {
		name, id, token string
	}{
		{"unknown token", "j1", "bad"},
		{"token of another judge", "j2", "good"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if code := websocket.CloseStatus(dialHello(tc.id, tc.token)); code != websocket.StatusCode(protocol.CloseBadToken) {
				t.Fatalf("close code %d, want bad_token", code)
			}
		})
	}
	// Without the judge subprotocol.
	c, _, err := websocket.Dial(ctx, th.url("/judge"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusCode(protocol.CloseUnsupportedVersion) {
		t.Fatalf("no subprotocol: %v", err)
	}
}

func TestSupersededConnection(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	url := func() string { return th.url("/judge") }
	first := newFakeJudge(t, env, "twin", 1, url, time.Millisecond).start()
	eventually(t, 5*time.Second, "first connection", func() bool { return first.current() != nil })
	second := newFakeJudge(t, env, "twin", 1, url, time.Millisecond).start()
	eventually(t, 5*time.Second, "first superseded", func() bool {
		first.mu.Lock()
		defer first.mu.Unlock()
		return len(first.closeCodes) > 0 && first.closeCodes[0] == websocket.StatusCode(protocol.CloseSuperseded)
	})
	select { // superseded means stop: the first agent must not reconnect
	case <-first.done:
	case <-time.After(5 * time.Second):
		t.Fatal("superseded judge kept reconnecting")
	}
	eventually(t, 5*time.Second, "second connected", func() bool { return second.current() != nil })
}

func TestTasksSpreadByLoad(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	url := func() string { return th.url("/judge") }
	small := newFakeJudge(t, env, "small", 1, url, 40*time.Millisecond).start()
	medium := newFakeJudge(t, env, "medium", 2, url, 40*time.Millisecond).start()
	large := newFakeJudge(t, env, "large", 4, url, 40*time.Millisecond).start()
	eventually(t, 5*time.Second, "judges connected", func() bool { return metric(t, th.reg, "verdict_hub_judges_connected", nil) == 3 })
	// The judge's state in Redis tells the web nodes its languages
	// (internal/judgestate).
	eventually(t, 5*time.Second, "judge state with languages", func() bool {
		st, err := judgestate.Decode(env.Client.HGetAll(context.Background(), env.Names.Judge("small")).Val())
		return err == nil && st.LanguagesKnown && len(st.Languages) == 1 && st.Languages[0].ID == "cpp17" && st.Hub != ""
	})

	const n = 56
	var tasks []queue.Task
	for i := int64(1); i <= n; i++ {
		tasks = append(tasks, newTask(i, 1+i%5, 7))
	}
	enqueue(t, q, tasks...)
	rs := waitResults(t, env, n, 20*time.Second)
	exactlyOne(t, rs, ids(1, n))

	counts := map[string]int{}
	for _, j := range []*fakeJudge{small, medium, large} {
		peak, judged, rejected := j.stats()
		if peak > j.slots || rejected > 0 {
			t.Errorf("judge %s: peak %d tasks on %d slots, %d rejected: the hub overcommitted it", j.id, peak, j.slots, rejected)
		}
		counts[j.id] = judged
	}
	// Every result was acknowledged, so the judges may forget them.
	for _, j := range []*fakeJudge{small, medium, large} {
		eventually(t, 5*time.Second, "result acks for judge "+j.id, func() bool {
			j.mu.Lock()
			defer j.mu.Unlock()
			acks := 0
			for _, typ := range j.received {
				if typ == protocol.TypeResultAck {
					acks++
				}
			}
			return acks == counts[j.id]
		})
	}
	if !(counts["large"] > counts["medium"] && counts["medium"] > counts["small"]) || counts["small"] == 0 {
		t.Errorf("tasks per judge %v: want them spread by capacity (4:2:1)", counts)
	}
	if got := metric(t, th.reg, "verdict_hub_dispatches_total", map[string]string{"judge": "large"}); got != float64(counts["large"]) {
		t.Errorf("dispatches_total{judge=large} = %v, want %d", got, counts["large"])
	}
	if metric(t, th.reg, "verdict_hub_queue_wait_seconds", nil) != n {
		t.Errorf("wait histogram has %v samples, want %d", metric(t, th.reg, "verdict_hub_queue_wait_seconds", nil), n)
	}
	// The enqueues and the results freeing slots woke an idle dispatcher:
	// each such wake is timed to the pass it started.
	if w := metric(t, th.reg, obs.HubDispatchWakeSeconds, nil); w < 1 {
		t.Errorf("the wake histogram has %v samples, want the wakes that found the dispatcher idle", w)
	}
	// Every enqueue's notice reached the hub and was timed from the
	// enqueue.
	if got := metric(t, th.reg, obs.HubQueueNoticeSeconds, nil); got != n {
		t.Errorf("the notice histogram has %v samples, want one per enqueue (%d)", got, n)
	}
	t.Logf("tasks per judge: %v", counts)
}

// TestIdlePassesTimedApart: every dispatch pass is timed, those that
// placed nothing (an empty queue, no judge) in their own histogram and
// those that placed tasks in the pass histogram, so that the replay can
// hold its dispatcher as the hub's was held.
func TestIdlePassesTimedApart(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	// An empty queue: the ticks' passes place nothing.
	eventually(t, 5*time.Second, "idle passes timed", func() bool { return metric(t, th.reg, obs.HubDispatchIdlePassSeconds, nil) >= 3 })
	// A task and no judge: still nothing placed.
	enqueue(t, q, newTask(1, 1, 7))
	before := metric(t, th.reg, obs.HubDispatchIdlePassSeconds, nil)
	eventually(t, 5*time.Second, "idle passes with a task and no judge", func() bool {
		return metric(t, th.reg, obs.HubDispatchIdlePassSeconds, nil) >= before+3
	})
	if n := metric(t, th.reg, obs.HubDispatchPassSeconds, nil); n != 0 {
		t.Fatalf("%v passes timed as placing before any judge connected", n)
	}
	newFakeJudge(t, env, "j", 1, func() string { return th.url("/judge") }, 10*time.Millisecond).start()
	exactlyOne(t, waitResults(t, env, 1, 10*time.Second), ids(1, 1))
	if n := metric(t, th.reg, obs.HubDispatchPassSeconds, nil); n != 1 {
		t.Errorf("%v passes timed as placing, want the one that placed the task", n)
	}
}

func TestJudgeKilledMidTask(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	url := func() string { return th.url("/judge") }
	doomed := newFakeJudge(t, env, "doomed", 1, url, time.Hour)
	doomed.gate = make(chan struct{}) // never opens: the task hangs
	doomed.start()
	eventually(t, 5*time.Second, "doomed ready", func() bool { return doomed.current() != nil })
	doomed.waitDispatchable(env)
	enqueue(t, q, newTask(1, 1, 7))
	eventually(t, 5*time.Second, "task on the doomed judge", func() bool {
		doomed.mu.Lock()
		defer doomed.mu.Unlock()
		return len(doomed.running) == 1
	})
	survivor := newFakeJudge(t, env, "survivor", 1, url, 10*time.Millisecond).start()
	eventually(t, 5*time.Second, "survivor connected", func() bool { return survivor.current() != nil })
	doomed.kill()

	waitResults(t, env, 1, 10*time.Second)
	time.Sleep(afterLease) // nothing more may arrive
	rs := results(t, env)
	if len(rs[1]) != 1 {
		t.Fatalf("results %+v, want exactly one", rs)
	}
	r := rs[1][0]
	if r.JudgeID != "survivor" || r.Attempt != 2 || r.Verdict != protocol.VerdictAC {
		t.Fatalf("result %+v: want attempt 2 judged by the survivor", r)
	}
	if metric(t, th.reg, "verdict_hub_lease_expiries_total", map[string]string{"outcome": "requeued"}) != 1 {
		t.Fatal("lease expiry not counted")
	}
}

// TestSilentJudgeGetsItsStaleAttemptCancelled: a judge whose reports stop
// loses its lease; the task is judged elsewhere; when the judge speaks again
// and still lists the old attempt, the hub withdraws it (once), so the
// judge's slot is not wasted on work whose result would be stale.
func TestSilentJudgeGetsItsStaleAttemptCancelled(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	url := func() string { return th.url("/judge") }
	quiet := newFakeJudge(t, env, "quiet", 1, url, time.Hour)
	quiet.gate = make(chan struct{}) // the task never finishes by itself
	quiet.start()
	eventually(t, 5*time.Second, "quiet ready", func() bool { return quiet.current() != nil })
	quiet.waitDispatchable(env)
	enqueue(t, th.h.Queue(), newTask(1, 1, 7))
	eventually(t, 5*time.Second, "task on the quiet judge", func() bool {
		quiet.mu.Lock()
		defer quiet.mu.Unlock()
		return len(quiet.running) == 1
	})
	quiet.mu.Lock()
	quiet.silent = true
	quiet.mu.Unlock()

	survivor := newFakeJudge(t, env, "survivor", 1, url, 10*time.Millisecond).start()
	waitResults(t, env, 1, 10*time.Second)
	if r := results(t, env)[1]; len(r) != 1 || r[0].JudgeID != "survivor" || r[0].Attempt != 2 {
		t.Fatalf("results %+v: want attempt 2 by the survivor", r)
	}

	// Speak again on a fresh connection. The hub closes a silent judge's
	// connection every MissedHeartbeats intervals, and a heartbeat that
	// reaches one as it closes gets a cancel that is counted but never
	// sent; the next connection then gets (and counts) another.
	old := quiet.current()
	eventually(t, 5*time.Second, "quiet judge on a fresh connection", func() bool {
		c := quiet.current()
		return c != nil && c != old
	})
	quiet.mu.Lock()
	quiet.silent = false
	quiet.mu.Unlock()
	eventually(t, 5*time.Second, "stale attempt cancelled", func() bool {
		quiet.mu.Lock()
		defer quiet.mu.Unlock()
		return len(quiet.running) == 0
	})
	time.Sleep(5 * hbInterval) // more heartbeats: no second cancel
	quiet.mu.Lock()
	cancelled := slices.Clone(quiet.cancelled)
	quiet.mu.Unlock()
	if want := (protocol.TaskRef{SubmissionID: 1, Attempt: 1}); len(cancelled) != 1 || cancelled[0] != want {
		t.Fatalf("cancels %+v, want exactly one for %+v", cancelled, want)
	}
	if got := metric(t, th.reg, "verdict_hub_cancels_total", nil); got != 1 {
		t.Fatalf("cancel metric %v, want 1", got)
	}
	// The survivor's own attempt is never cancelled.
	survivor.mu.Lock()
	defer survivor.mu.Unlock()
	if len(survivor.cancelled) != 0 {
		t.Fatalf("survivor got cancels %+v", survivor.cancelled)
	}
}

// recordingPolicy places a task on the first judge with a free slot and
// records what the hub reports back.
type recordingPolicy struct {
	mu       sync.Mutex
	outcomes []sched.Outcome
}

func (*recordingPolicy) Name() string { return "recording" }

func (p *recordingPolicy) Pick(_ time.Time, _ sched.Task, js []sched.Judge) sched.Decision {
	for i, j := range js {
		if j.Assigned < j.Slots {
			return sched.Decision{Judge: i, Reason: "first_free"}
		}
	}
	return sched.Decision{Judge: -1, Hold: sched.HoldBusy}
}

func (p *recordingPolicy) Observe(_ time.Time, o sched.Outcome) {
	p.mu.Lock()
	p.outcomes = append(p.outcomes, o)
	p.mu.Unlock()
}

func (p *recordingPolicy) seen() []sched.Outcome {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.outcomes)
}

// TestPolicyLearnsOutcomes: a policy that learns (the default learns judge
// speeds) hears of every recorded result, with the judge, the task and its
// run time, and of every lease that expired.
func TestPolicyLearnsOutcomes(t *testing.T) {
	env := testenv.Redis(t)
	pol := &recordingPolicy{}
	th := startHub(t, env, func(c *hub.Config) { c.Policy = pol })
	url := func() string { return th.url("/judge") }
	doomed := newFakeJudge(t, env, "doomed", 1, url, time.Hour)
	doomed.gate = make(chan struct{})
	doomed.start()
	eventually(t, 5*time.Second, "doomed ready", func() bool { return doomed.current() != nil })
	doomed.waitDispatchable(env)
	enqueue(t, th.h.Queue(), newTask(1, 4, 7))
	eventually(t, 5*time.Second, "task on the doomed judge", func() bool {
		doomed.mu.Lock()
		defer doomed.mu.Unlock()
		return len(doomed.running) == 1
	})
	newFakeJudge(t, env, "ok", 1, url, 10*time.Millisecond).start()
	doomed.kill()
	waitResults(t, env, 1, 10*time.Second)
	eventually(t, 5*time.Second, "two outcomes", func() bool { return len(pol.seen()) == 2 })
	got := pol.seen()
	failed, done := got[0], got[1]
	// The dead judge's connection (and what the hub knew of its tasks) is
	// gone by then: judge and submission are what an expiry reports.
	if !failed.Failed || failed.Judge != "doomed" || failed.Task.SubmissionID != 1 {
		t.Errorf("expiry outcome %+v", failed)
	}
	if done.Failed || done.Judge != "ok" || done.Task.ProblemID != 4 || done.Run != 7*time.Millisecond || done.Latency <= 0 {
		t.Errorf("result outcome %+v", done)
	}
}

// TestPolicyCostExported: what the default policy has learnt of what
// downloads cost is in the hub's metrics (the rehearsal reads it into its
// trace beside the simulator's): nothing before a result, then the cold
// placement's overhead (the judge lacked the data), the warm ones' (it
// held it after judging the first), the fetch and the judges' speeds
// (one judge: its own). A policy that learns
// nothing exports nothing.
func TestPolicyCostExported(t *testing.T) {
	series := func(th *testHub) map[string]bool {
		mfs, err := th.reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				name := mf.GetName()
				for _, l := range m.GetLabel() {
					name += "/" + l.GetValue()
				}
				out[name] = true
			}
		}
		return out
	}
	learnt := []string{obs.HubPolicyOverheadSeconds + "/warm", obs.HubPolicyOverheadSeconds + "/cold", obs.HubPolicyFetchSeconds,
		obs.HubPolicySpeed + "/lowest", obs.HubPolicySpeed + "/highest"}
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	for _, name := range learnt {
		if series(th)[name] {
			t.Fatalf("%s exported before any result", name)
		}
	}
	j := newFakeJudge(t, env, "j", 1, func() string { return th.url("/judge") }, 5*time.Millisecond)
	j.start()
	eventually(t, 5*time.Second, "judge ready", func() bool { return j.current() != nil })
	j.waitDispatchable(env)
	for id := range int64(6) { // a problem's first 3 results teach its work, the next the judge's speed
		enqueue(t, th.h.Queue(), newTask(id+1, 4, 7))
		waitResults(t, env, int(id+1), 10*time.Second)
	}
	eventually(t, 5*time.Second, "the learnt costs exported", func() bool {
		got := series(th)
		for _, name := range learnt {
			if !got[name] {
				return false
			}
		}
		return true
	})

	env2 := testenv.Redis(t)
	other := startHub(t, env2, func(c *hub.Config) { c.Policy = &recordingPolicy{} })
	for name := range series(other) {
		if strings.HasPrefix(name, "verdict_hub_policy_") {
			t.Fatalf("a policy that learns nothing exported %s", name)
		}
	}
}

func TestHubRestartMidRun(t *testing.T) {
	env := testenv.Redis(t)
	var mu sync.Mutex
	th := startHub(t, env, nil)
	cur := th
	url := func() string { mu.Lock(); defer mu.Unlock(); return cur.url("/judge") }
	judges := []*fakeJudge{
		newFakeJudge(t, env, "a", 2, url, 60*time.Millisecond).start(),
		newFakeJudge(t, env, "b", 2, url, 60*time.Millisecond).start(),
	}
	eventually(t, 5*time.Second, "judges connected", func() bool { return metric(t, th.reg, "verdict_hub_judges_connected", nil) == 2 })
	const n = 30
	var tasks []queue.Task
	for i := int64(1); i <= n; i++ {
		tasks = append(tasks, newTask(i, i%3+1, 7))
	}
	enqueue(t, th.h.Queue(), tasks...)
	waitResults(t, env, 5, 10*time.Second)

	th.stop(t) // tasks are running on the judges and more are queued
	mu.Lock()
	cur = startHub(t, env, nil)
	mu.Unlock()

	waitResults(t, env, n, 20*time.Second)
	time.Sleep(afterLease) // nothing more may arrive
	rs := results(t, env)
	exactlyOne(t, rs, ids(1, n))
	total := 0
	for _, j := range judges {
		_, judged, _ := j.stats()
		total += judged
	}
	// Every result is one judging; a task judged twice would show here
	// (one of the two results being dropped as stale).
	if total < n {
		t.Fatalf("judges judged %d tasks for %d submissions", total, n)
	}
}

func TestOverloadNoticePublishedThenCleared(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	addSession(t, env, "cookie-7", 7, "")
	b, err := dialBrowser(t, th.url("/ws"), "cookie-7")
	if err != nil {
		t.Fatal(err)
	}
	b.subscribe("q", protocol.Channel{Kind: protocol.ChannelQueue})
	snap := decode[protocol.Snapshot](t, b.expect(protocol.TypeSnapshot))
	if !strings.Contains(string(snap.State), `"overloaded":false`) {
		t.Fatalf("initial queue snapshot %s", snap.State)
	}

	j := newFakeJudge(t, env, "busy", 1, func() string { return th.url("/judge") }, 5*time.Millisecond)
	j.gate = make(chan struct{})
	j.start()
	eventually(t, 5*time.Second, "judge ready", func() bool { return j.current() != nil })
	j.waitDispatchable(env)
	enqueue(t, q, newTask(1, 1, 7), newTask(2, 1, 7), newTask(3, 1, 7))
	// Watch submission 3 so the notice carries its position. Notices that
	// come before the hub answers this subscription may not carry it, so
	// they are skipped: while overloaded, the notice repeats every
	// NoticeInterval.
	b.subscribe("s3", protocol.Channel{Kind: protocol.ChannelSubmission, ID: 3})

	var up, stale protocol.QueueNotice
	subscribed := false
	deadline := time.Now().Add(5 * time.Second)
	for !up.Overloaded {
		env, err := b.next(time.Until(deadline))
		if err != nil {
			t.Fatalf("no overload notice after the s3 snapshot (last stale one %+v): %v", stale, err)
		}
		switch {
		case env.Type == protocol.TypeSnapshot && env.ID == "s3":
			subscribed = true
		case env.Type == protocol.TypeQueue && subscribed:
			n := decode[protocol.QueueNotice](t, env)
			// Two kinds of stale notice may still come after the snapshot:
			// one whose position was read just before the hub registered
			// the subscription (position 0), and one computed between the
			// enqueues of tasks 2 and 3 (one queued), pushed again before
			// the next recompute. Any other must be exact.
			if n.Overloaded && (n.Position == 0 || n.QueueLength < 2) {
				stale = n
				continue
			}
			up = n
		}
	}
	if up.QueueLength != 2 || up.Position != 2 {
		t.Fatalf("notice %+v: want 2 queued, submission 3 second", up)
	}
	// Stored for the web nodes with a TTL of three intervals and refreshed
	// every interval: read until seen, as one GET could fall just after a
	// stalled refresh let it lapse.
	eventually(t, 5*time.Second, "stored overload notice", func() bool {
		s, err := env.Client.Get(context.Background(), env.Names.QueueNotice()).Result()
		return err == nil && strings.Contains(s, `"overloaded":true`)
	})
	if metric(t, th.reg, "verdict_hub_overloaded", nil) != 1 {
		t.Fatal("overloaded gauge not set")
	}

	close(j.gate) // judges catch up; the queue drains
	for cleared := false; !cleared; {
		env, err := b.next(5 * time.Second)
		if err != nil {
			t.Fatalf("no clearing notice: %v", err)
		}
		if env.Type == protocol.TypeQueue {
			n := decode[protocol.QueueNotice](t, env)
			cleared = !n.Overloaded && n.QueueLength == 0
		}
	}
	waitResults(t, env, 3, 5*time.Second)
	eventually(t, 5*time.Second, "stored notice removed", func() bool {
		return env.Client.Exists(context.Background(), env.Names.QueueNotice()).Val() == 0
	})
}

func TestBrowserAuthorization(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	addSession(t, env, "owner", 7, "student")
	addSession(t, env, "other", 8, "student")
	addSession(t, env, "admin", 9, "admin")
	enqueue(t, q, newTask(11, 1, 7))

	if b, err := dialBrowser(t, th.url("/ws"), "nobody"); err == nil {
		if _, err := b.next(5 * time.Second); websocket.CloseStatus(err) != websocket.StatusCode(protocol.CloseBadToken) {
			t.Fatalf("no session: %v, want bad_token", err)
		}
	}
	sub := protocol.Channel{Kind: protocol.ChannelSubmission, ID: 11}
	tests := []struct {
		cookie string
		ch     protocol.Channel
		want   protocol.ErrorCode // "" = snapshot
	}{
		{"other", sub, protocol.ErrorForbidden},
		{"other", protocol.Channel{Kind: protocol.ChannelUser, ID: 7}, protocol.ErrorForbidden},
		{"other", protocol.Channel{Kind: protocol.ChannelSubmission, ID: 999}, protocol.ErrorNotFound},
		{"other", protocol.Channel{Kind: protocol.ChannelUser, ID: 8}, ""},
		{"other", protocol.Channel{Kind: protocol.ChannelContest, ID: 1}, ""},
		{"owner", sub, ""},
		{"admin", sub, ""},
		{"admin", protocol.Channel{Kind: protocol.ChannelUser, ID: 7}, ""},
		// A visitor (no cookie) watches public scoreboards, nothing else.
		{"", protocol.Channel{Kind: protocol.ChannelContest, ID: 1}, ""},
		{"", sub, protocol.ErrorForbidden},
		{"", protocol.Channel{Kind: protocol.ChannelUser, ID: 7}, protocol.ErrorForbidden},
		{"", protocol.Channel{Kind: protocol.ChannelStatus}, protocol.ErrorForbidden},
		{"", protocol.Channel{Kind: protocol.ChannelQueue}, protocol.ErrorForbidden},
		{"", protocol.Channel{Kind: protocol.ChannelClarifications, ID: 1}, protocol.ErrorForbidden},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s_%s", tc.cookie, tc.ch), func(t *testing.T) {
			b, err := dialBrowser(t, th.url("/ws"), tc.cookie)
			if err != nil {
				t.Fatal(err)
			}
			b.subscribe("r1", tc.ch)
			env, err := b.next(5 * time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if env.ID != "r1" {
				t.Fatalf("answer id %q", env.ID)
			}
			if tc.want == "" {
				if env.Type != protocol.TypeSnapshot {
					t.Fatalf("got %s %s, want a snapshot", env.Type, env.Data)
				}
				return
			}
			if env.Type != protocol.TypeError || decode[protocol.Error](t, env).Code != tc.want {
				t.Fatalf("got %s %s, want error %s", env.Type, env.Data, tc.want)
			}
		})
	}
}

func TestSnapshotThenEventsInOrder(t *testing.T) {
	env := testenv.Redis(t)
	// Events come every millisecond or so until the test has read 30 of
	// them; a send queue of a second's worth keeps a test goroutine stalled
	// by a loaded machine from being dropped as a slow consumer, which is
	// not what this test is about.
	th := startHub(t, env, func(c *hub.Config) { c.SendQueue = 1024 })
	q := th.h.Queue()
	addSession(t, env, "owner", 7, "")
	enqueue(t, q, newTask(5, 1, 7))
	ctx := context.Background()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() { // events keep coming while the browser subscribes
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: 5, Attempt: 1, Status: protocol.VerdictJudging,
				Cases: []protocol.CaseResult{{Case: i, Verdict: protocol.VerdictAC}}})
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
	b, err := dialBrowser(t, th.url("/ws"), "owner")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	b.subscribe("s", protocol.Channel{Kind: protocol.ChannelSubmission, ID: 5})
	snap := decode[protocol.Snapshot](t, b.expect(protocol.TypeSnapshot))
	seen := map[int]bool{}
	var st protocol.SubmissionState
	if err := json.Unmarshal(snap.State, &st); err != nil {
		t.Fatal(err)
	}
	for _, c := range st.Cases {
		seen[c.Case] = true
	}
	seq := snap.Seq
	for range 30 {
		ev := decode[protocol.Event](t, b.expect(protocol.TypeEvent))
		if ev.Seq != seq+1 {
			t.Fatalf("event seq %d after %d: gap or duplicate", ev.Seq, seq)
		}
		seq = ev.Seq
		var body protocol.SubmissionState
		if err := json.Unmarshal(ev.Body, &body); err != nil {
			t.Fatal(err)
		}
		for _, c := range body.Cases {
			if seen[c.Case] {
				t.Fatalf("case %d delivered twice", c.Case)
			}
			seen[c.Case] = true
		}
	}
	close(stop)
	wg.Wait()
	for i := 1; i <= len(seen); i++ {
		if !seen[i] {
			t.Fatalf("case %d lost (saw %d)", i, len(seen))
		}
	}
}

func TestSlowBrowserDroppedOthersKeepReceiving(t *testing.T) {
	env := testenv.Redis(t)
	// The test publishes no faster than the fast browser reads: it is never
	// more than fastLag events behind, half its send queue, so no stall of
	// a loaded machine can get it dropped. The slow browser stops reading:
	// once the kernel buffers are full (a few dozen events) its writer
	// blocks and its queue fills, which must drop it as a slow consumer at
	// once. WriteTimeout is longer than the test waits for any one event of
	// the fast browser: a hub that held everyone up behind the slow browser
	// until its write timed out fails here, and the queue has all the time
	// it needs to fill.
	const sendQueue, fastLag = 32, 16
	th := startHub(t, env, func(c *hub.Config) {
		c.SendQueue = sendQueue
		c.WriteTimeout = 20 * time.Second
	})
	q := th.h.Queue()
	// Staff: the 2 kB checker messages that fill the buffers reach them
	// whole (a contestant's copy would be censored to a few bytes).
	addSession(t, env, "owner", 7, "admin")
	enqueue(t, q, newTask(5, 1, 7))
	ch := protocol.Channel{Kind: protocol.ChannelSubmission, ID: 5}
	fast, err := dialBrowser(t, th.url("/ws"), "owner")
	if err != nil {
		t.Fatal(err)
	}
	slow, err := dialSlowBrowser(t, th.url("/ws"), "owner")
	if err != nil {
		t.Fatal(err)
	}
	fast.subscribe("f", ch)
	slow.subscribe("s", ch)
	fast.expect(protocol.TypeSnapshot)
	slow.expect(protocol.TypeSnapshot) // then it stops reading

	const events = 600
	big := strings.Repeat("x", 2000)
	got := make(chan uint64, events)
	go func() {
		defer close(got)
		for {
			env, err := fast.next(10 * time.Second)
			if err != nil {
				return
			}
			if env.Type == protocol.TypeEvent {
				ev, _ := protocol.DecodeData[protocol.Event](env)
				got <- ev.Seq
			}
		}
	}()
	var last uint64
	read := 0
	// readUpTo takes the fast browser's events until it has read n, each
	// the one after the last.
	readUpTo := func(n int) {
		t.Helper()
		for ; read < n; read++ {
			select {
			case s, ok := <-got:
				if !ok {
					t.Fatalf("fast browser stopped after %d events", read)
				}
				if last != 0 && s != last+1 {
					t.Fatalf("fast browser: seq %d after %d", s, last)
				}
				last = s
			case <-time.After(10 * time.Second):
				t.Fatalf("fast browser got %d of %d events", read, events)
			}
		}
	}
	ctx := context.Background()
	for i := 1; i <= events; i++ {
		readUpTo(i - fastLag)
		if _, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: 5, Attempt: 1, Status: protocol.VerdictJudging,
			Cases: []protocol.CaseResult{{Case: i, Verdict: protocol.VerdictAC, Message: big}}}); err != nil {
			t.Fatal(err)
		}
	}
	readUpTo(events)
	eventually(t, 10*time.Second, "slow browser dropped", func() bool {
		return metric(t, th.reg, "verdict_hub_dropped_clients_total", map[string]string{"reason": "slow_consumer"}) >= 1
	})
	// The slow browser finds its connection closed once it reads again.
	// (Reading also lets the hub's stuck write finish, so the connection
	// goes away without waiting out the close-frame timeout.)
	var rerr error
	for rerr == nil {
		_, rerr = slow.next(10 * time.Second)
	}
	if errors.Is(rerr, context.DeadlineExceeded) {
		t.Fatal("slow browser's connection still open")
	}
	eventually(t, 10*time.Second, "one browser left", func() bool { return metric(t, th.reg, "verdict_hub_browsers_connected", nil) == 1 })
}

func TestScoreboardCoalesced(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, func(c *hub.Config) { c.Coalesce = 200 * time.Millisecond })
	q := th.h.Queue()
	addSession(t, env, "u", 8, "")
	b, err := dialBrowser(t, th.url("/ws"), "u")
	if err != nil {
		t.Fatal(err)
	}
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: 3}
	ctx := context.Background()
	if _, err := q.PublishDoc(ctx, ch, protocol.EventScoreboard, boardJSON(0, "ann", "bob"), boardJSON(0, "ann", "bob")); err != nil {
		t.Fatal(err)
	}
	b.subscribe("c", ch)
	last := decode[protocol.Snapshot](t, b.expect(protocol.TypeSnapshot)).Seq
	start := time.Now()
	const updates = 50
	for i := 1; i <= updates; i++ {
		doc := boardJSON(i, "ann", "bob")
		if _, err := q.PublishDoc(ctx, ch, protocol.EventScoreboard, doc, doc); err != nil {
			t.Fatal(err)
		}
		time.Sleep(4 * time.Millisecond)
	}
	pushes := 0
	for {
		env, err := b.next(600 * time.Millisecond)
		if err != nil {
			t.Fatalf("after %d pushes: %v", pushes, err)
		}
		// Only ann's row changes: each push is a delta event of that row,
		// numbered by the hub one after the other.
		ev := decode[protocol.Event](t, env)
		pushes++
		if ev.Seq != last+1 {
			t.Fatalf("event seq %d after %d: a gap the browser would resubscribe for", ev.Seq, last)
		}
		last = ev.Seq
		var d boarddoc.DeltaBody
		if err := json.Unmarshal(ev.Body, &d); err != nil || len(d.Rows) != 1 || d.Rows[0].User != "ann" {
			t.Fatalf("delta %s, want ann's row alone", ev.Body)
		}
		if d.Rows[0].Penalty == updates {
			break
		}
	}
	elapsed := time.Since(start)
	if max := int(elapsed/(200*time.Millisecond)) + 2; pushes > max || pushes == 0 {
		t.Fatalf("%d pushes in %v for %d updates: want coalesced to ≤ %d", pushes, elapsed, updates, max)
	}

	// A second browser subscribing now gets the hub's board with the
	// hub's number; a contestant leaving the board is a delta naming them
	// (until 2026-12-08 the whole board to every browser).
	addSession(t, env, "v", 9, "")
	b2, err := dialBrowser(t, th.url("/ws"), "v")
	if err != nil {
		t.Fatal(err)
	}
	b2.subscribe("c2", ch)
	snap := decode[protocol.Snapshot](t, b2.expect(protocol.TypeSnapshot))
	var full boarddoc.Doc
	if err := json.Unmarshal(snap.State, &full); err != nil || snap.Seq != last || len(full.Rows) != 2 || full.Rows[0].Penalty != updates {
		t.Fatalf("second subscriber's snapshot seq %d (want %d): %s", snap.Seq, last, snap.State)
	}
	// The board freezing, nothing else changed: a delta of no rows with
	// the flag, not the whole board to every browser again.
	var frozenDoc boarddoc.Doc
	if err := json.Unmarshal(boardJSON(updates, "ann", "bob"), &frozenDoc); err != nil {
		t.Fatal(err)
	}
	frozenDoc.Frozen = true
	fdoc := mustJSON(frozenDoc)
	if _, err := q.PublishDoc(ctx, ch, protocol.EventScoreboard, fdoc, fdoc); err != nil {
		t.Fatal(err)
	}
	for _, br := range []*browser{b, b2} {
		ev := decode[protocol.Event](t, br.expect(protocol.TypeEvent))
		var d boarddoc.DeltaBody
		if err := json.Unmarshal(ev.Body, &d); err != nil || ev.Seq != last+1 || !d.Frozen || len(d.Rows) != 0 {
			t.Fatalf("at the freeze: event seq %d %s, want a delta of the flag alone", ev.Seq, ev.Body)
		}
	}
	last++
	doc := boardJSON(updates, "ann")
	if _, err := q.PublishDoc(ctx, ch, protocol.EventScoreboard, doc, doc); err != nil {
		t.Fatal(err)
	}
	for _, br := range []*browser{b, b2} {
		ev := decode[protocol.Event](t, br.expect(protocol.TypeEvent))
		var d boarddoc.DeltaBody
		if err := json.Unmarshal(ev.Body, &d); err != nil || ev.Seq != last+1 || d.Frozen || len(d.Rows) != 0 || !slices.Equal(d.Left, []string{"bob"}) {
			t.Fatalf("after bob left (and the board unfroze): event seq %d %s, want a delta of bob gone and the flag", ev.Seq, ev.Body)
		}
	}
	if n := metric(t, th.reg, "verdict_hub_scoreboard_full_pushes_total", nil); n != 0 {
		t.Fatalf("%v whole-board pushes, want none", n)
	}
}

// boardJSON is a scoreboard document of users, ann's penalty set to v.
func boardJSON(v int, users ...string) json.RawMessage {
	d := boarddoc.Doc{Rule: "icpc", Full: true}
	for i, u := range users {
		r := boarddoc.Row{Rank: i + 1, User: u, UserID: int64(i + 1), Problems: map[string]boarddoc.DocCell{"A": {Attempts: 1}}}
		if u == "ann" {
			r.Penalty = v
		}
		d.Rows = append(d.Rows, r)
	}
	return mustJSON(d)
}

// TestClarificationChangesAreEvents: a contest's clarifications channel is
// open to every logged-in user and its changes arrive one by one, in
// order, as events (not coalesced like a scoreboard).
func TestClarificationChangesAreEvents(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, func(c *hub.Config) { c.Coalesce = time.Second })
	q := th.h.Queue()
	addSession(t, env, "u", 8, "")
	b, err := dialBrowser(t, th.url("/ws"), "u")
	if err != nil {
		t.Fatal(err)
	}
	ch := protocol.Channel{Kind: protocol.ChannelClarifications, ID: 3}
	b.subscribe("c", ch)
	if snap := decode[protocol.Snapshot](t, b.expect(protocol.TypeSnapshot)); snap.Seq != 0 || snap.Channel != ch {
		t.Fatalf("snapshot %+v", snap)
	}
	ctx := context.Background()
	for i := int64(1); i <= 3; i++ {
		body := mustJSON(protocol.ClarificationChange{ContestID: 3, ID: i, What: "answer", Public: true})
		if _, err := q.PublishDoc(ctx, ch, protocol.EventClarification, body, mustJSON(map[string]int64{"last_id": i})); err != nil {
			t.Fatal(err)
		}
	}
	for i := uint64(1); i <= 3; i++ {
		ev := decode[protocol.Event](t, b.expect(protocol.TypeEvent))
		if ev.Seq != i || ev.Kind != protocol.EventClarification {
			t.Fatalf("event %d: %+v", i, ev)
		}
		var c protocol.ClarificationChange
		if err := json.Unmarshal(ev.Body, &c); err != nil || c.Validate() != nil || c.ID != int64(i) {
			t.Fatalf("event body %s: %v", ev.Body, err)
		}
	}
}

func TestEvictBroadcastToJudges(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	j := newFakeJudge(t, env, "j", 1, func() string { return th.url("/judge") }, time.Millisecond).start()
	eventually(t, 5*time.Second, "judge connected", func() bool { return j.current() != nil })
	if err := env.Client.Publish(context.Background(), env.Names.JudgeEvict(), `{"problem_id":4,"data_hash":"abc"}`).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "evict received", func() bool {
		j.mu.Lock()
		defer j.mu.Unlock()
		for _, typ := range j.received {
			if typ == protocol.TypeEvict {
				return true
			}
		}
		return false
	})
}

// TestLargeScoreboardSnapshot: the whole board of a 3,000-contestant
// contest fits in one live message (the rehearsal found subscribes
// refused with "snapshot too large" once the board passed 256 KiB).
func TestLargeScoreboardSnapshot(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	addSession(t, env, "u", 8, "")
	b, err := dialBrowser(t, th.url("/ws"), "u")
	if err != nil {
		t.Fatal(err)
	}
	d := boarddoc.Doc{Rule: "icpc", Full: true}
	tm := 187
	for i := range 3000 {
		cells := map[string]boarddoc.DocCell{}
		for _, l := range []string{"A", "B", "C", "D", "E", "F"} {
			cells[l] = boarddoc.DocCell{Solved: true, Attempts: 3, TimeMin: &tm}
		}
		d.Rows = append(d.Rows, boarddoc.Row{Rank: i + 1, User: fmt.Sprintf("c%05d", i), UserID: int64(i + 1),
			DisplayName: fmt.Sprintf("Contestant %05d", i), Solved: 6, Penalty: 1234, Problems: cells})
	}
	doc := mustJSON(d)
	if len(doc) < 1<<20 {
		t.Fatalf("the test board is only %d bytes", len(doc))
	}
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: 5}
	if _, err := th.h.Queue().PublishDoc(context.Background(), ch, protocol.EventScoreboard, doc, doc); err != nil {
		t.Fatal(err)
	}
	b.subscribe("c", ch)
	snap := decode[protocol.Snapshot](t, b.expect(protocol.TypeSnapshot))
	var got boarddoc.Doc
	if err := json.Unmarshal(snap.State, &got); err != nil || len(got.Rows) != 3000 {
		t.Fatalf("snapshot of %d bytes: %d rows, %v", len(snap.State), len(got.Rows), err)
	}
}

// A visitor without a session (the board on a projector in the hall) gets
// the public scoreboard live, as a logged-in student does; it used to be
// closed with bad_token and the page showed "live updates stopped".
func TestVisitorWatchesScoreboardLive(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, func(c *hub.Config) { c.Coalesce = 50 * time.Millisecond })
	q := th.h.Queue()
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: 4}
	ctx := context.Background()
	if _, err := q.PublishDoc(ctx, ch, protocol.EventScoreboard, boardJSON(0, "ann"), boardJSON(0, "ann")); err != nil {
		t.Fatal(err)
	}
	b, err := dialBrowser(t, th.url("/ws"), "")
	if err != nil {
		t.Fatal(err)
	}
	b.subscribe("c", ch)
	snap := decode[protocol.Snapshot](t, b.expect(protocol.TypeSnapshot))
	doc := boardJSON(3, "ann")
	if _, err := q.PublishDoc(ctx, ch, protocol.EventScoreboard, doc, doc); err != nil {
		t.Fatal(err)
	}
	ev := decode[protocol.Event](t, b.expect(protocol.TypeEvent))
	var d boarddoc.DeltaBody
	if err := json.Unmarshal(ev.Body, &d); err != nil || ev.Seq != snap.Seq+1 || len(d.Rows) != 1 || d.Rows[0].Penalty != 3 {
		t.Fatalf("visitor's push seq %d after %d: %s", ev.Seq, snap.Seq, ev.Body)
	}
}

package queue_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func newQueue(t *testing.T) (*queue.Queue, *testenv.RedisEnv) {
	t.Helper()
	env := testenv.Redis(t)
	q, err := queue.New(queue.Config{Client: env.Client, Names: env.Names})
	if err != nil {
		t.Fatal(err)
	}
	return q, env
}

var base = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func task(id int64, attempt int, p protocol.Priority, at time.Time) queue.Task {
	return queue.Task{
		Task: protocol.Task{
			TaskRef:   protocol.TaskRef{SubmissionID: id, Attempt: attempt},
			ProblemID: 100 + id%3, TestData: protocol.TestData{Hash: "h", URL: "http://x/h"},
			Language: "cpp17", Source: "int main(){}",
			Limits: protocol.Limits{TimeMs: 1000, MemoryKiB: 65536, OutputBytes: 1 << 20},
			Mode:   protocol.ModeICPC, Checker: protocol.Checker{Kind: protocol.CheckerDefault}, Priority: p,
		},
		UserID: 7, SubmittedAt: at,
	}
}

func ref(id int64, a int) protocol.TaskRef { return protocol.TaskRef{SubmissionID: id, Attempt: a} }

func result(id int64, a int, judge string) protocol.Result {
	return protocol.Result{TaskRef: ref(id, a), Verdict: protocol.VerdictAC, Score: 100, JudgeID: judge,
		Cases: []protocol.CaseResult{{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 3}}}
}

func peekIDs(t *testing.T, q *queue.Queue) []int64 {
	t.Helper()
	qs, err := q.Peek(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, x := range qs {
		ids = append(ids, x.Task.SubmissionID)
	}
	return ids
}

func results(t *testing.T, env *testenv.RedisEnv) []queue.ResultEntry {
	t.Helper()
	msgs, err := env.Client.XRange(context.Background(), env.Names.Results(), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	var out []queue.ResultEntry
	for _, m := range msgs {
		e, err := queue.ParseResult(m)
		if err != nil {
			t.Fatalf("ParseResult: %v", err)
		}
		out = append(out, e)
	}
	return out
}

func TestNewValidates(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	for _, cfg := range []queue.Config{{}, {Client: c, MaxAttempts: -1}, {Client: c, DoneTTL: time.Millisecond}} {
		if _, err := queue.New(cfg); !errors.Is(err, queue.ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", cfg, err)
		}
	}
}

func TestEnqueueValidatesAndIsIdempotent(t *testing.T) {
	q, _ := newQueue(t)
	ctx := context.Background()
	bad := task(1, 1, protocol.PriorityPractice, base)
	bad.Language = ""
	if err := q.Enqueue(ctx, bad); !errors.Is(err, queue.ErrInvalidTask) {
		t.Fatalf("invalid task: %v", err)
	}
	noUser := task(1, 1, protocol.PriorityPractice, base)
	noUser.UserID = 0
	if err := q.Enqueue(ctx, noUser); !errors.Is(err, queue.ErrInvalidTask) {
		t.Fatalf("no user: %v", err)
	}
	if err := q.Enqueue(ctx, task(1, 1, protocol.PriorityPractice, base)); err != nil {
		t.Fatal(err)
	}
	if err := q.Enqueue(ctx, task(1, 1, protocol.PriorityPractice, base)); !errors.Is(err, queue.ErrDuplicate) {
		t.Fatalf("second enqueue: %v, want ErrDuplicate", err)
	}
	if n, _ := q.Len(ctx); n != 1 {
		t.Fatalf("len %d after duplicate enqueue", n)
	}
	// Done attempts stay done: a reconciler re-enqueueing attempt 1 is a no-op.
	if _, err := q.Lease(ctx, ref(1, 1), "j1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := q.Enqueue(ctx, task(1, 1, protocol.PriorityPractice, base)); !errors.Is(err, queue.ErrDuplicate) {
		t.Fatalf("enqueue of leased attempt: %v", err)
	}
	if _, err := q.Complete(ctx, "j1", result(1, 1, "j1")); err != nil {
		t.Fatal(err)
	}
	if err := q.Enqueue(ctx, task(1, 1, protocol.PriorityPractice, base)); !errors.Is(err, queue.ErrDuplicate) {
		t.Fatalf("enqueue of done attempt: %v", err)
	}
	if n, _ := q.Len(ctx); n != 0 {
		t.Fatalf("len %d, want 0", n)
	}
}

func TestPriorityOrdering(t *testing.T) {
	q, _ := newQueue(t)
	ctx := context.Background()
	// id, priority, minutes after base
	in := []struct {
		id  int64
		p   protocol.Priority
		min int
	}{
		{1, protocol.PriorityRejudge, 0},
		{2, protocol.PriorityPractice, 5},
		{3, protocol.PriorityContest, 9},
		{4, protocol.PriorityPractice, 1},
		{5, protocol.PriorityContest, 2},
		{6, protocol.PriorityRejudge, -10},
	}
	for _, x := range in {
		if err := q.Enqueue(ctx, task(x.id, 1, x.p, base.Add(time.Duration(x.min)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	want := []int64{5, 3, 4, 2, 6, 1}
	if got := peekIDs(t, q); !slices.Equal(got, want) {
		t.Fatalf("queue order %v, want %v", got, want)
	}
	pos, err := q.Positions(ctx, []int64{3, 1, 99})
	if err != nil || !slices.Equal(pos, []int{2, 6, 0}) {
		t.Fatalf("Positions = %v, %v", pos, err)
	}
	if p, _ := q.Position(ctx, 4); p != 3 {
		t.Fatalf("Position(4) = %d", p)
	}
	// Each band counted apart; a leased task is not queued.
	if _, err := q.Lease(ctx, protocol.TaskRef{SubmissionID: 6, Attempt: 1}, "j", time.Minute); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[protocol.Priority]int64{protocol.PriorityContest: 2, protocol.PriorityPractice: 2,
		protocol.PriorityRejudge: 1, protocol.PriorityCustom: 0} {
		if n, err := q.LenAt(ctx, p); err != nil || n != want {
			t.Errorf("LenAt(%d) = %d, %v; want %d", p, n, err, want)
		}
	}
}

func TestLeaseCompleteAndStale(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	if err := q.Enqueue(ctx, task(9, 1, protocol.PriorityContest, base)); err != nil {
		t.Fatal(err)
	}
	qs, err := q.Peek(ctx, 10)
	if err != nil || len(qs) != 1 || qs[0].Task.Attempt != 1 || qs[0].UserID != 7 || qs[0].Task.Source != "int main(){}" {
		t.Fatalf("Peek = %+v, %v", qs, err)
	}
	if _, err := q.Lease(ctx, ref(9, 2), "j1", time.Minute); !errors.Is(err, queue.ErrNotQueued) {
		t.Fatalf("lease of a wrong attempt: %v", err)
	}
	if _, err := q.Lease(ctx, ref(9, 1), "j1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Lease(ctx, ref(9, 1), "j2", time.Minute); !errors.Is(err, queue.ErrNotQueued) {
		t.Fatalf("second lease: %v", err)
	}
	held, err := q.Renew(ctx, "j1", []protocol.TaskRef{ref(9, 1), ref(9, 2), ref(10, 1)}, time.Minute)
	if err != nil || len(held) != 1 || held[0].Ref != ref(9, 1) || held[0].UserID != 7 {
		t.Fatalf("Renew = %+v, %v", held, err)
	}
	if held, _ := q.Renew(ctx, "j2", []protocol.TaskRef{ref(9, 1)}, time.Minute); len(held) != 0 {
		t.Fatalf("another judge renewed the lease: %+v", held)
	}
	if _, err := q.Complete(ctx, "j2", result(9, 1, "j2")); !errors.Is(err, queue.ErrStale) {
		t.Fatalf("complete from a judge without the lease: %v", err)
	}
	first, err := q.Complete(ctx, "j1", result(9, 1, "j1"))
	if err != nil || first.Again || first.ID == "" {
		t.Fatalf("complete = %+v, %v", first, err)
	}
	// The judge sends it again (it did not get the answer): answered as
	// the first time, flagged, and nothing written.
	if again, err := q.Complete(ctx, "j1", result(9, 1, "j1")); err != nil || !again.Again || again.ID != first.ID {
		t.Fatalf("repeated complete = %+v, %v, want %+v again", again, err, first)
	}
	if _, err := q.Complete(ctx, "j2", result(9, 1, "j2")); !errors.Is(err, queue.ErrStale) {
		t.Fatalf("complete of a completed attempt from another judge: %v", err)
	}
	rs := results(t, env)
	if len(rs) != 1 || rs[0].SubmissionID != 9 || rs[0].Attempt != 1 || rs[0].Source != queue.SourceJudge ||
		rs[0].Verdict != protocol.VerdictAC || rs[0].JudgeID != "j1" || len(rs[0].Result.Cases) != 1 {
		t.Fatalf("results %+v", rs)
	}
	if n, _ := q.Leased(ctx); n != 0 {
		t.Fatalf("%d leases left", n)
	}
	if rate, err := q.CompletionRate(ctx, time.Minute); err != nil || rate <= 0 {
		t.Fatalf("CompletionRate = %v, %v", rate, err)
	}
}

func TestLeaseManyTakesAPassInOneRoundTrip(t *testing.T) {
	q, _ := newQueue(t)
	ctx := context.Background()
	for i := int64(1); i <= 4; i++ {
		if err := q.Enqueue(ctx, task(i, 1, protocol.PriorityContest, base.Add(time.Duration(i)*time.Second))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Lease(ctx, ref(3, 1), "j9", time.Minute); err != nil {
		t.Fatal(err)
	}
	reqs := []queue.LeaseRequest{
		{Ref: ref(1, 1), Judge: "j1"},
		{Ref: ref(2, 2), Judge: "j1"}, // wrong attempt
		{Ref: ref(3, 1), Judge: "j2"}, // already leased by j9
		{Ref: ref(4, 1), Judge: "j2"},
		{Ref: ref(4, 1), Judge: "j1"},  // the same task twice in one pass
		{Ref: ref(77, 1), Judge: "j1"}, // never enqueued
	}
	at, ok, err := q.LeaseMany(ctx, reqs, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false, false, true, false, false}; !slices.Equal(ok, want) {
		t.Fatalf("LeaseMany ok = %v, want %v", ok, want)
	}
	if at.IsZero() {
		t.Fatal("no lease time")
	}
	qs, _ := q.Peek(ctx, 10)
	if len(qs) != 1 || qs[0].Task.SubmissionID != 2 {
		t.Fatalf("queue after the pass: %+v", qs)
	}
	for _, c := range []struct {
		judge string
		refs  []protocol.TaskRef
		want  int
	}{{"j1", []protocol.TaskRef{ref(1, 1), ref(4, 1)}, 1}, {"j2", []protocol.TaskRef{ref(1, 1), ref(4, 1)}, 1}, {"j9", []protocol.TaskRef{ref(3, 1)}, 1}} {
		held, err := q.Renew(ctx, c.judge, c.refs, time.Minute)
		if err != nil || len(held) != c.want {
			t.Fatalf("Renew(%s) = %+v, %v; want %d held", c.judge, held, err, c.want)
		}
	}
	if n, _ := q.Leased(ctx); n != 3 {
		t.Fatalf("lease set holds %d, want 3", n)
	}
	if _, ok, err := q.LeaseMany(ctx, nil, time.Minute); err != nil || ok != nil {
		t.Fatalf("empty pass: %v, %v", ok, err)
	}
}

func TestReleaseKeepsPlaceAndAttempt(t *testing.T) {
	q, _ := newQueue(t)
	ctx := context.Background()
	for i := int64(1); i <= 3; i++ {
		if err := q.Enqueue(ctx, task(i, 1, protocol.PriorityPractice, base.Add(time.Duration(i)*time.Second))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Lease(ctx, ref(1, 1), "j1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := q.Release(ctx, ref(1, 1), "j2"); !errors.Is(err, queue.ErrStale) {
		t.Fatalf("release by another judge: %v", err)
	}
	if err := q.Release(ctx, ref(1, 1), "j1"); err != nil {
		t.Fatal(err)
	}
	qs, _ := q.Peek(ctx, 10)
	if len(qs) != 3 || qs[0].Task.SubmissionID != 1 || qs[0].Task.Attempt != 1 {
		t.Fatalf("after release: %+v", qs)
	}
}

func TestLeaseExpiryRequeuesThenSystemError(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	if err := q.Enqueue(ctx, task(5, 1, protocol.PriorityPractice, base)); err != nil {
		t.Fatal(err)
	}
	// Long enough that the reap right after a lease comes before the
	// lease's deadline even on a loaded machine. Lease returns Redis's time
	// (this machine's clock), so the test knows whether it did.
	const lease = 500 * time.Millisecond
	for attempt := 1; attempt <= 3; attempt++ {
		at, err := q.Lease(ctx, ref(5, attempt), fmt.Sprintf("j%d", attempt), lease)
		if err != nil {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
		exp, err := q.Reap(ctx, 10)
		if err != nil {
			t.Fatalf("early reap: %v", err)
		}
		if len(exp) != 0 && time.Now().Before(at.Add(lease)) {
			t.Fatalf("reaped before the deadline: %+v", exp)
		}
		if len(exp) == 0 { // not yet due: wait until it is
			time.Sleep(time.Until(at.Add(lease + 100*time.Millisecond)))
			exp, err = q.Reap(ctx, 10)
		} else {
			t.Logf("attempt %d: the reap meant to come early came %v after the lease, past its deadline", attempt, time.Since(at))
		}
		if err != nil || len(exp) != 1 {
			t.Fatalf("reap: %+v, %v", exp, err)
		}
		e := exp[0]
		if attempt < 3 {
			if !e.Requeued || e.Ref != ref(5, attempt+1) || e.Judge != fmt.Sprintf("j%d", attempt) || e.UserID != 7 {
				t.Fatalf("attempt %d expired: %+v", attempt, e)
			}
			// The stale judge's late result is refused.
			if _, err := q.Complete(ctx, e.Judge, result(5, attempt, e.Judge)); !errors.Is(err, queue.ErrStale) {
				t.Fatalf("late result of attempt %d: %v", attempt, err)
			}
			if got := peekIDs(t, q); !slices.Equal(got, []int64{5}) {
				t.Fatalf("not requeued: %v", got)
			}
		} else if e.Requeued || e.Ref != ref(5, 3) {
			t.Fatalf("third expiry: %+v", e)
		} else if c, err := q.Complete(ctx, e.Judge, result(5, attempt, e.Judge)); !errors.Is(err, queue.ErrStale) {
			// The last judge's late result is not a repeat of a
			// completion: the system error stands.
			t.Fatalf("late result of the last attempt, after its system error: %+v, %v", c, err)
		}
	}
	rs := results(t, env)
	if len(rs) != 1 || rs[0].Verdict != protocol.VerdictSE || rs[0].Source != queue.SourceHub ||
		rs[0].Attempt != 3 || rs[0].JudgeID != "j3" || rs[0].Reason != "lease expired on attempts 1..3 (last judge j3)" {
		t.Fatalf("results %+v", rs)
	}
	// The hub's system error is a whole protocol.Result: no score, an
	// empty (not absent) case list, the last judge.
	if want := (protocol.Result{TaskRef: ref(5, 3), Verdict: protocol.VerdictSE, Cases: []protocol.CaseResult{}, JudgeID: "j3"}); !reflect.DeepEqual(rs[0].Result, want) {
		t.Fatalf("system error result %+v, want %+v", rs[0].Result, want)
	}
	if n, _ := q.Len(ctx); n != 0 {
		t.Fatalf("queue length %d", n)
	}
	// A rejudge (a higher attempt) starts a fresh budget of attempts.
	if err := q.Enqueue(ctx, task(5, 4, protocol.PriorityRejudge, base)); err != nil {
		t.Fatal(err)
	}
	at, err := q.Lease(ctx, ref(5, 4), "j1", lease)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(at.Add(lease + 100*time.Millisecond)))
	if exp, _ := q.Reap(ctx, 10); len(exp) != 1 || !exp[0].Requeued || exp[0].Ref != ref(5, 5) {
		t.Fatalf("rejudge expiry: %+v", exp)
	}
}

func TestRejudgeReplacesLeasedAttempt(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	if err := q.Enqueue(ctx, task(3, 1, protocol.PriorityPractice, base)); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Lease(ctx, ref(3, 1), "j1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := q.Enqueue(ctx, task(3, 2, protocol.PriorityRejudge, base)); err != nil {
		t.Fatal(err)
	}
	if n, _ := q.Leased(ctx); n != 0 {
		t.Fatalf("old lease kept: %d", n)
	}
	if _, err := q.Complete(ctx, "j1", result(3, 1, "j1")); !errors.Is(err, queue.ErrStale) {
		t.Fatalf("result of the replaced attempt: %v", err)
	}
	if len(results(t, env)) != 0 {
		t.Fatal("stale result reached the stream")
	}
}

// A completed attempt's repeat is answered as a repeat only while that
// attempt is the task's: after a rejudge it is stale, even from the judge
// that holds the new attempt.
func TestRepeatedCompletionAfterRejudgeIsStale(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	completedThenRejudged(t, q, 3, time.Minute)
	if c, err := q.Complete(ctx, "j1", result(3, 1, "j1")); !errors.Is(err, queue.ErrStale) {
		t.Fatalf("attempt 1's result again, attempt 2 leased: %+v, %v", c, err)
	}
	if c, err := q.Complete(ctx, "j1", result(3, 2, "j1")); err != nil || c.Again {
		t.Fatalf("attempt 2's result: %+v, %v", c, err)
	}
	if c, err := q.Complete(ctx, "j1", result(3, 1, "j1")); !errors.Is(err, queue.ErrStale) {
		t.Fatalf("attempt 1's result again, attempt 2 completed: %+v, %v", c, err)
	}
	if n := len(results(t, env)); n != 2 {
		t.Fatalf("results stream holds %d entries, want 2", n)
	}

	// The judge that completed attempt 1 holds the rejudge's attempt 2
	// until it expires (the last: MaxAttempts 1): its late result is
	// stale, not a repeat of attempt 1's completion.
	q1, err := queue.New(queue.Config{Client: env.Client, Names: env.Names, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	at := completedThenRejudged(t, q1, 4, 100*time.Millisecond)
	time.Sleep(time.Until(at.Add(200 * time.Millisecond)))
	if exp, err := q1.Reap(ctx, 10); err != nil || len(exp) != 1 || exp[0].Requeued {
		t.Fatalf("reap: %+v, %v", exp, err)
	}
	if c, err := q1.Complete(ctx, "j1", result(4, 2, "j1")); !errors.Is(err, queue.ErrStale) {
		t.Fatalf("late result of the attempt that ended in a system error: %+v, %v", c, err)
	}
}

// completedThenRejudged has j1 complete attempt 1 of submission id, then
// rejudges it and leases attempt 2 to j1 for lease (the lease's start, by
// Redis's clock).
func completedThenRejudged(t *testing.T, q *queue.Queue, id int64, lease time.Duration) time.Time {
	t.Helper()
	ctx := context.Background()
	if err := q.Enqueue(ctx, task(id, 1, protocol.PriorityPractice, base)); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Lease(ctx, ref(id, 1), "j1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Complete(ctx, "j1", result(id, 1, "j1")); err != nil {
		t.Fatal(err)
	}
	if err := q.Enqueue(ctx, task(id, 2, protocol.PriorityRejudge, base)); err != nil {
		t.Fatal(err)
	}
	at, err := q.Lease(ctx, ref(id, 2), "j1", lease)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func TestConcurrentDispatchersNeverLeaseTwice(t *testing.T) {
	q, _ := newQueue(t)
	ctx := context.Background()
	const tasks, dispatchers = 150, 6
	for i := int64(1); i <= tasks; i++ {
		if err := q.Enqueue(ctx, task(i, 1, protocol.Priority(i%3), base.Add(time.Duration(i)*time.Millisecond))); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	leased := map[int64]string{}
	var dup []string
	var wg sync.WaitGroup
	for d := range dispatchers {
		judge := fmt.Sprintf("j%d", d)
		wg.Go(func() {
			for {
				qs, err := q.Peek(ctx, 8)
				if err != nil {
					t.Error(err)
					return
				}
				if len(qs) == 0 {
					return
				}
				for _, x := range qs {
					_, err := q.Lease(ctx, x.Task.TaskRef, judge, time.Minute)
					if errors.Is(err, queue.ErrNotQueued) {
						continue
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					if prev, ok := leased[x.Task.SubmissionID]; ok {
						dup = append(dup, fmt.Sprintf("%d by %s and %s", x.Task.SubmissionID, prev, judge))
					}
					leased[x.Task.SubmissionID] = judge
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if len(dup) > 0 || len(leased) != tasks {
		t.Fatalf("leased %d of %d tasks; leased twice: %v", len(leased), tasks, dup)
	}
	if n, _ := q.Leased(ctx); n != tasks {
		t.Fatalf("lease set holds %d", n)
	}
}

func TestLiveSubmissionState(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	ps := env.Client.Subscribe(ctx, env.Names.Events("submission", 4), env.Names.Events("user", 7))
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if err := q.Enqueue(ctx, task(4, 1, protocol.PriorityPractice, base)); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Lease(ctx, ref(4, 1), "j1", time.Minute); err != nil {
		t.Fatal(err)
	}
	ac := func(n int) protocol.CaseResult { return protocol.CaseResult{Case: n, Verdict: protocol.VerdictAC} }
	upd := func(a int, st protocol.Verdict, g queue.Guard, cs ...protocol.CaseResult) bool {
		ok, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: 4, Attempt: a, Status: st, Cases: cs, Guard: g})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !upd(1, protocol.VerdictJudging, queue.GuardLeased, ac(2), ac(1)) {
		t.Fatal("progress not published")
	}
	if upd(1, protocol.VerdictJudging, queue.GuardLeased, ac(1)) {
		t.Fatal("a repeated case was published again")
	}
	if upd(2, protocol.VerdictJudging, queue.GuardLeased, ac(3)) {
		t.Fatal("a stale attempt changed the state")
	}
	snap, err := q.Submission(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Owner != 7 || snap.State.Status != protocol.VerdictJudging || len(snap.State.Cases) != 2 || snap.State.Cases[0].Case != 1 {
		t.Fatalf("snapshot %+v", snap)
	}
	// queued (enqueue), cases, judging = 3 submission events; 2 user events.
	type ev struct {
		ch  string
		seq uint64
		k   protocol.EventKind
	}
	var got []ev
	for range 5 {
		m, err := ps.ReceiveMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var e protocol.Event
		if err := json.Unmarshal([]byte(m.Payload), &e); err != nil {
			t.Fatalf("event %s: %v", m.Payload, err)
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("event %s: %v", m.Payload, err)
		}
		got = append(got, ev{string(e.Channel.Kind), e.Seq, e.Kind})
	}
	want := []ev{
		{"submission", 1, protocol.EventStatus}, {"user", 1, protocol.EventStatus},
		{"submission", 2, protocol.EventCases}, {"submission", 3, protocol.EventStatus}, {"user", 2, protocol.EventStatus},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if snap.Seq != 3 {
		t.Fatalf("snapshot seq %d, want 3", snap.Seq)
	}
	if _, err := q.Submission(ctx, 999); !errors.Is(err, queue.ErrNoState) {
		t.Fatalf("missing state: %v", err)
	}
}

func TestUserStateCarriesRecentVerdicts(t *testing.T) {
	q, _ := newQueue(t)
	ctx := context.Background()
	if seq, st, err := q.UserState(ctx, 7); err != nil || seq != 0 || st.Items == nil || len(st.Items) != 0 {
		t.Fatalf("empty user state = %d, %+v, %v", seq, st, err)
	}
	pub := func(id int64, v protocol.Verdict) {
		t.Helper()
		if _, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: id, Attempt: 1, Owner: 7, Status: v, Score: 1}); err != nil {
			t.Fatal(err)
		}
	}
	pub(1, protocol.VerdictQueued)
	pub(2, protocol.VerdictQueued)
	pub(1, protocol.VerdictWA) // the verdict a reconnecting browser missed
	seq, st, err := q.UserState(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if seq != 3 || len(st.Items) != 2 || st.Items[0].SubmissionID != 2 || st.Items[1].SubmissionID != 1 ||
		st.Items[1].Status != protocol.VerdictWA || st.Items[0].Status != protocol.VerdictQueued {
		t.Fatalf("user state = %d, %+v", seq, st)
	}
	if _, other, _ := q.UserState(ctx, 8); len(other.Items) != 0 {
		t.Fatalf("another user's state: %+v", other)
	}
	// Bounded: only the newest UserStateItems are kept.
	for id := int64(10); id < 10+protocol.UserStateItems+20; id++ {
		pub(id, protocol.VerdictAC)
	}
	_, st, err = q.UserState(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Items) != protocol.UserStateItems || st.Items[0].SubmissionID != 10+protocol.UserStateItems+19 {
		t.Fatalf("bounded user state: %d items, first %+v", len(st.Items), st.Items[0])
	}
}

func TestPublishDoc(t *testing.T) {
	q, _ := newQueue(t)
	ctx := context.Background()
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: 3}
	if _, err := q.PublishDoc(ctx, protocol.Channel{Kind: protocol.ChannelSubmission, ID: 1}, "x", []byte(`{}`), nil); err == nil {
		t.Fatal("PublishDoc accepted a submission channel")
	}
	for i := 1; i <= 2; i++ {
		seq, err := q.PublishDoc(ctx, ch, protocol.EventScoreboard, []byte(`{"rows":[]}`), []byte(fmt.Sprintf(`{"v":%d}`, i)))
		if err != nil || seq != uint64(i) {
			t.Fatalf("PublishDoc = %d, %v", seq, err)
		}
	}
	seq, state, err := q.Doc(ctx, ch)
	if err != nil || seq != 2 || string(state) != `{"v":2}` {
		t.Fatalf("Doc = %d %s %v", seq, state, err)
	}
}

// An ordered document is stored only if the channel holds none of a later
// order of the same generation: a slow node's older board is not put back
// over a newer one.
func TestPublishOrderedDoc(t *testing.T) {
	q, _ := newQueue(t)
	ctx := context.Background()
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: 3}
	at := time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return at.Add(time.Duration(n) * time.Millisecond) }
	for i, tc := range []struct {
		name  string
		order queue.DocOrder
		want  bool // stored
	}{
		{"the first", queue.DocOrder{Gen: "g1", Seq: 10, At: ms(0)}, true},
		{"a newer board", queue.DocOrder{Gen: "g1", Seq: 12, At: ms(5)}, true},
		{"an older board, published late", queue.DocOrder{Gen: "g1", Seq: 11, At: ms(9)}, false},
		{"the same board read later (the freeze came)", queue.DocOrder{Gen: "g1", Seq: 12, At: ms(7)}, true},
		{"the same board read earlier", queue.DocOrder{Gen: "g1", Seq: 12, At: ms(6)}, false},
		{"a board made anew (another generation)", queue.DocOrder{Gen: "g2", Seq: 1, At: ms(1)}, true},
		{"unordered", queue.DocOrder{}, true},
		{"after the unordered one, the older of its generation still refused", queue.DocOrder{Gen: "g2", Seq: 0, At: ms(0)}, false},
	} {
		state := []byte(fmt.Sprintf(`{"v":%d}`, i))
		_, before, err := q.Doc(ctx, ch)
		if err != nil && i > 0 {
			t.Fatal(err)
		}
		seq, err := q.PublishOrderedDoc(ctx, ch, protocol.EventScoreboard, []byte(`{}`), state, tc.order)
		if err != nil || (seq > 0) != tc.want {
			t.Fatalf("%s: PublishOrderedDoc = %d, %v; want stored %v", tc.name, seq, err, tc.want)
		}
		_, got, err := q.Doc(ctx, ch)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool][]byte{true: state, false: before}[tc.want]; string(got) != string(want) {
			t.Fatalf("%s: the channel holds %s, want %s", tc.name, got, want)
		}
	}
}

// A publish's version is its sequence number and a random tag: after
// Redis loses its data the sequence starts over and reaches the number a
// reader holds, the version does not.
func TestDocVersionAfterRedisLoss(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: 3}
	if v, err := q.DocVersion(ctx, ch); err != nil || v != (queue.DocVersion{}) {
		t.Fatalf("DocVersion of nothing published = %+v, %v", v, err)
	}
	publish := func(n int) queue.DocVersion {
		t.Helper()
		for i := 1; i <= n; i++ {
			if _, err := q.PublishDoc(ctx, ch, protocol.EventScoreboard, []byte(`{"rows":[]}`), []byte(fmt.Sprintf(`{"v":%d}`, i))); err != nil {
				t.Fatal(err)
			}
		}
		v, err := q.DocVersion(ctx, ch)
		if err != nil {
			t.Fatal(err)
		}
		dv, state, err := q.VersionedDoc(ctx, ch)
		if err != nil || dv != v || string(state) != fmt.Sprintf(`{"v":%d}`, n) {
			t.Fatalf("VersionedDoc = %+v %s %v; DocVersion %+v", dv, state, err, v)
		}
		return v
	}
	held := publish(2)
	if held.Seq != 2 || held.Tag == "" {
		t.Fatalf("version %+v", held)
	}
	if err := env.Client.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	again := publish(2)
	if again.Seq != held.Seq {
		t.Fatalf("sequence after the loss %d, want %d again: the test tests nothing", again.Seq, held.Seq)
	}
	if again == held {
		t.Fatalf("the version after the loss is the held one's: %+v", again)
	}
	if next := publish(1); next.Seq != 3 || next == again {
		t.Fatalf("the next publish's version %+v after %+v", next, again)
	}
}

func TestEnsureResultsGroupIdempotent(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	for range 2 {
		if err := q.EnsureResultsGroup(ctx); err != nil {
			t.Fatal(err)
		}
	}
	groups, err := env.Client.XInfoGroups(ctx, env.Names.Results()).Result()
	if err != nil || len(groups) != 1 || groups[0].Name != env.Names.ResultsGroup() {
		t.Fatalf("groups %+v, %v", groups, err)
	}
}

// A document of queue.DocGzipMin bytes or more is stored compressed and
// read back as it was published; a smaller one, and one stored as it is by
// an earlier version, are read as they are; a stored stream that is not
// gzip after all is an error naming the channel, not a document.
func TestPublishDocCompressesLargeDocs(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: 4}
	key := env.Names.LiveState(string(ch.Kind), ch.ID)
	var big strings.Builder
	big.WriteString(`{"rule":"icpc","rows":[`)
	for i := range 3000 {
		if i > 0 {
			big.WriteByte(',')
		}
		fmt.Fprintf(&big, `{"rank":%d,"user":"contestant%04d","solved":%d,"problems":{"A":{"attempts":%d}}}`, i+1, i, i%5, i%3)
	}
	big.WriteString(`]}`)
	for _, tc := range []struct {
		name       string
		state      string
		compressed bool
	}{
		{"a board", big.String(), true},
		{"a small document", `{"rows":[]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := q.PublishDoc(ctx, ch, protocol.EventScoreboard, []byte(`{}`), []byte(tc.state)); err != nil {
				t.Fatal(err)
			}
			stored, err := env.Client.HGet(ctx, key, "state").Result()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.HasPrefix(stored, "\x1f\x8b"); got != tc.compressed {
				t.Fatalf("stored compressed %v, want %v (%d bytes of %d)", got, tc.compressed, len(stored), len(tc.state))
			}
			if tc.compressed && len(stored) > len(tc.state)/5 {
				t.Errorf("stored %d bytes of %d", len(stored), len(tc.state))
			}
			_, d, err := q.VersionedDocStored(ctx, ch)
			if err != nil {
				t.Fatal(err)
			}
			head, err := d.Head(10)
			if err != nil || string(head) != tc.state[:10] {
				t.Fatalf("the stored document's head: %q, %v; want %q", head, err, tc.state[:10])
			}
			state, err := d.JSON()
			if err != nil || string(state) != tc.state {
				t.Fatalf("VersionedDocStored: %d bytes, %v; want the %d published", len(state), err, len(tc.state))
			}
			if again, _ := d.JSON(); &again[0] != &state[0] {
				t.Error("the document decompressed twice")
			}
			gz := d.Gzip()
			if (gz != nil) != tc.compressed || (gz != nil && string(gz) != stored) {
				t.Fatalf("gzip stream of %d bytes, want the stored one (compressed %v)", len(gz), tc.compressed)
			}
			if gz != nil {
				r, err := gzip.NewReader(bytes.NewReader(gz))
				if err != nil {
					t.Fatal(err)
				}
				if b, err := io.ReadAll(r); err != nil || string(b) != tc.state {
					t.Fatalf("the stream reads as %d bytes, %v", len(b), err)
				}
			}
			if _, state, err := q.Doc(ctx, ch); err != nil || string(state) != tc.state {
				t.Fatalf("Doc: %d bytes, %v", len(state), err)
			}
		})
	}
	// Stored as it is by a version before compression: read as it is.
	if err := env.Client.HSet(ctx, key, "state", big.String()).Err(); err != nil {
		t.Fatal(err)
	}
	if _, d, err := q.VersionedDocStored(ctx, ch); err != nil || d.Gzip() != nil {
		t.Fatalf("an uncompressed board: %v, %v", d, err)
	} else if state, err := d.JSON(); err != nil || string(state) != big.String() {
		t.Fatalf("an uncompressed board: %d bytes, %v", len(state), err)
	} else if head, err := d.Head(1 << 30); err != nil || string(head) != big.String() {
		t.Fatalf("an uncompressed board's head of more than it holds: %d bytes, %v", len(head), err)
	}
	// Not gzip after all (cut short): an error, no document.
	stored := packDocForTest(t, q, env, ch, big.String())
	if err := env.Client.HSet(ctx, key, "state", stored[:len(stored)/2]).Err(); err != nil {
		t.Fatal(err)
	}
	if _, state, err := q.Doc(ctx, ch); err == nil || state != nil || !strings.Contains(err.Error(), "contest:4") {
		t.Fatalf("a broken stream: %d bytes, %v; want an error naming the channel", len(state), err)
	}
	// Its head reads (the cut is far from it); the whole does not.
	if _, d, err := q.VersionedDocStored(ctx, ch); err != nil {
		t.Fatal(err)
	} else if head, err := d.Head(8); err != nil || string(head) != big.String()[:8] {
		t.Fatalf("a broken stream's head: %q, %v", head, err)
	} else if _, err := d.JSON(); err == nil {
		t.Fatal("a broken stream read whole without an error")
	}
	// Not even a gzip header: Head says so too.
	if err := env.Client.HSet(ctx, key, "state", "\x1f\x8bxx").Err(); err != nil {
		t.Fatal(err)
	}
	if _, d, err := q.VersionedDocStored(ctx, ch); err != nil {
		t.Fatal(err)
	} else if _, err := d.Head(8); err == nil {
		t.Fatal("a stream without a header: its head read without an error")
	}
	// Nothing stored.
	if err := env.Client.Del(ctx, key).Err(); err != nil {
		t.Fatal(err)
	}
	if _, d, err := q.VersionedDocStored(ctx, ch); err != nil || !d.Empty() {
		t.Fatalf("nothing stored: %v, %v", d, err)
	}
}

// packDocForTest publishes state and returns it as stored.
func packDocForTest(t *testing.T, q *queue.Queue, env *testenv.RedisEnv, ch protocol.Channel, state string) string {
	t.Helper()
	ctx := context.Background()
	if _, err := q.PublishDoc(ctx, ch, protocol.EventScoreboard, []byte(`{}`), []byte(state)); err != nil {
		t.Fatal(err)
	}
	stored, err := env.Client.HGet(ctx, env.Names.LiveState(string(ch.Kind), ch.ID), "state").Result()
	if err != nil {
		t.Fatal(err)
	}
	return stored
}

// GuardUnfinished publishes a judge's repeated final only where its first
// publish may have been lost: the task's current attempt, whose live state
// is of that attempt and shows no outcome.
func TestGuardUnfinished(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	final := func(id int64, attempt int) queue.SubmissionUpdate {
		return queue.SubmissionUpdate{SubmissionID: id, Attempt: attempt, Status: protocol.VerdictAC, Score: 100, Guard: queue.GuardUnfinished}
	}
	for i, tc := range []struct {
		name string
		// After submission id's attempt 1 is leased (the live state
		// "queued"): first is published (its SubmissionID set), or the
		// live state dropped (expired).
		first   *queue.SubmissionUpdate
		expired bool
		want    bool
	}{
		{name: "no outcome shown", want: true},
		{name: "judging", first: &queue.SubmissionUpdate{Attempt: 1, Status: protocol.VerdictJudging, Guard: queue.GuardLeased}, want: true},
		{name: "a final shown", first: &queue.SubmissionUpdate{Attempt: 1, Status: protocol.VerdictWA, Guard: queue.GuardNone}},
		{name: "no live state (expired)", expired: true},
		{name: "live state of another attempt", first: &queue.SubmissionUpdate{Attempt: 2, Status: protocol.VerdictQueued, Guard: queue.GuardNone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := int64(100 + i)
			if err := q.Enqueue(ctx, task(id, 1, protocol.PriorityPractice, base)); err != nil {
				t.Fatal(err)
			}
			if _, err := q.Lease(ctx, ref(id, 1), "j1", time.Minute); err != nil {
				t.Fatal(err)
			}
			if tc.first != nil {
				u := *tc.first
				u.SubmissionID = id
				if _, err := q.PublishSubmission(ctx, u); err != nil {
					t.Fatal(err)
				}
			}
			if tc.expired {
				if err := env.Client.Del(ctx, env.Names.LiveState("submission", id)).Err(); err != nil {
					t.Fatal(err)
				}
			}
			got, err := q.PublishSubmission(ctx, final(id, 1))
			if err != nil || got != tc.want {
				t.Fatalf("published = %v, %v, want %v", got, err, tc.want)
			}
			if !tc.want {
				return
			}
			if snap, err := q.Submission(ctx, id); err != nil || snap.State.Status != protocol.VerdictAC {
				t.Fatalf("live state %+v, %v", snap, err)
			}
			// Once the final shows, the same repeat publishes nothing.
			if got, err := q.PublishSubmission(ctx, final(id, 1)); err != nil || got {
				t.Fatalf("published again = %v, %v", got, err)
			}
		})
	}
	// Not the task's current attempt: nothing.
	if err := q.Enqueue(ctx, task(99, 2, protocol.PriorityPractice, base)); err != nil {
		t.Fatal(err)
	}
	if got, err := q.PublishSubmission(ctx, final(99, 1)); err != nil || got {
		t.Fatalf("an old attempt's final published = %v, %v", got, err)
	}
}

// Seqs reads each channel's sequence number as its snapshot would: the
// submission's, its owner's, a document's, 0 for a channel with none; a
// value that is not a number is an error naming the channel.
func TestSeqs(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	if err := q.Enqueue(ctx, task(5, 1, protocol.PriorityContest, base)); err != nil {
		t.Fatal(err)
	}
	if _, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: 5, Attempt: 1, Owner: 7,
		Status: protocol.VerdictWA, Guard: queue.GuardNone}); err != nil {
		t.Fatal(err)
	}
	doc := protocol.Channel{Kind: protocol.ChannelClarifications, ID: 3}
	for range 3 {
		if _, err := q.PublishDoc(ctx, doc, protocol.EventClarification, []byte(`{}`), []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	sub := protocol.Channel{Kind: protocol.ChannelSubmission, ID: 5}
	user := protocol.Channel{Kind: protocol.ChannelUser, ID: 7}
	none := protocol.Channel{Kind: protocol.ChannelSubmission, ID: 99}
	chans := []protocol.Channel{sub, user, doc, none}
	got, err := q.Seqs(ctx, chans)
	if err != nil {
		t.Fatal(err)
	}
	s, err := q.Submission(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	useq, _, err := q.UserState(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	dseq, _, err := q.Doc(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{s.Seq, useq, dseq, 0}; !slices.Equal(got, want) || dseq != 3 || s.Seq < 2 {
		t.Fatalf("Seqs(%v) = %v, want %v", chans, got, want)
	}
	if got, err := q.Seqs(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("Seqs(nil) = %v, %v", got, err)
	}
	if err := env.Client.HSet(ctx, env.Names.LiveState(string(doc.Kind), doc.ID), "seq", "x").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Seqs(ctx, chans); err == nil || !strings.Contains(err.Error(), doc.String()) {
		t.Fatalf("Seqs over a bad number: %v, want an error naming %s", err, doc)
	}
}

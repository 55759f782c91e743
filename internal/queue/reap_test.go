package queue

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// Reap lists the expired leases, builds their results in Go, then acts:
// a lease that changed between the two steps must be left alone.
func TestReapActsOnlyOnLeasesStillAsListed(t *testing.T) {
	env := testenv.Redis(t)
	q, err := New(Config{Client: env.Client, Names: env.Names, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ref := func(id int64) protocol.TaskRef { return protocol.TaskRef{SubmissionID: id, Attempt: 1} }
	const lease = 50 * time.Millisecond
	var last time.Time
	for id := int64(1); id <= 4; id++ {
		err := q.Enqueue(ctx, Task{UserID: 7, Task: protocol.Task{
			TaskRef: ref(id), ProblemID: 100, TestData: protocol.TestData{Hash: "h", URL: "http://x/h"},
			Language: "cpp17", Source: "int main(){}", Mode: protocol.ModeICPC, Priority: protocol.PriorityPractice,
			Limits:  protocol.Limits{TimeMs: 1000, MemoryKiB: 65536, OutputBytes: 1 << 20},
			Checker: protocol.Checker{Kind: protocol.CheckerDefault},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if last, err = q.Lease(ctx, ref(id), "j", lease); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Until(last.Add(lease + 50*time.Millisecond)))
	listed, err := q.expiredLeases(ctx, 10)
	if err != nil || len(listed) != 4 {
		t.Fatalf("listed %+v, %v", listed, err)
	}
	// Between the steps: 1 is renewed, 2 completed, 3 released and leased
	// again by another judge (due again at once); 4 stays as listed.
	if held, err := q.Renew(ctx, "j", []protocol.TaskRef{ref(1)}, time.Minute); err != nil || len(held) != 1 {
		t.Fatalf("renew: %+v, %v", held, err)
	}
	if _, err := q.Complete(ctx, "j", protocol.Result{TaskRef: ref(2), Verdict: protocol.VerdictAC, Score: 100, JudgeID: "j",
		Cases: []protocol.CaseResult{{Case: 1, Verdict: protocol.VerdictAC}}}); err != nil {
		t.Fatal(err)
	}
	if err := q.Release(ctx, ref(3), "j"); err != nil {
		t.Fatal(err)
	}
	at, err := q.Lease(ctx, ref(3), "k", time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(at.Add(10 * time.Millisecond)))

	exp, err := q.reap(ctx, listed)
	if err != nil || len(exp) != 1 || exp[0].Ref != ref(4) || exp[0].Requeued || exp[0].Judge != "j" {
		t.Fatalf("reap of the listed leases: %+v, %v", exp, err)
	}
	if _, err := q.Complete(ctx, "j", protocol.Result{TaskRef: ref(1), Verdict: protocol.VerdictAC, Score: 100, JudgeID: "j",
		Cases: []protocol.CaseResult{}}); err != nil {
		t.Fatalf("the renewed lease was taken: %v", err)
	}
	// 3 changed hands but is due: the next Reap takes it, under its new judge.
	exp, err = q.Reap(ctx, 10)
	if err != nil || len(exp) != 1 || exp[0].Ref != ref(3) || exp[0].Judge != "k" {
		t.Fatalf("next reap: %+v, %v", exp, err)
	}
	msgs, err := env.Client.XRange(ctx, env.Names.Results(), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		e, err := ParseResult(m)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(e.Result.Verdict)+"/"+e.JudgeID)
	}
	slices.Sort(got)
	if want := []string{"AC/j", "AC/j", "SE/j", "SE/k"}; !slices.Equal(got, want) {
		t.Fatalf("results stream %v, want %v", got, want)
	}
}

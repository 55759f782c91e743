package server

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/feedback"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestSubtaskScoresREST: an IOI-mode problem with subtasks, judged as the
// judge scores it (subtask "small" passed, "large" lost on its hidden
// case 4). Under score_only every viewer the submission reaches (staff,
// the owner, another student, anonymous: practice on a public problem)
// reads each subtask's score and every case's verdict and score, and no
// checker message but staff; under first_failure nobody but staff reads
// subtask scores.
func TestSubtaskScoresREST(t *testing.T) {
	fe := newFBEnv(t)
	ctx := context.Background()
	cs := make([]testpkg.Case, 4)
	for i := range cs {
		cs[i] = testpkg.Case{In: []byte(fmt.Sprintf("%d\n", i)), Ans: []byte(fmt.Sprintf("%d\n", i))}
	}
	subtasks := []testpkg.Subtask{{Name: "small", Points: 40, Cases: []int{1, 2}}, {Name: "large", Points: 60, Cases: []int{3, 4}}}
	zip, m, err := testpkg.Package{Cases: cs, Subtasks: subtasks, Samples: []int{1}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	hash, err := fe.blobs.PutBytes(ctx, zip)
	if err != nil {
		t.Fatal(err)
	}
	mj, _ := json.Marshal(m)
	for _, p := range []struct{ slug, policy string }{{"ioi-score", "score_only"}, {"ioi-first", "first_failure"}} {
		pid, err := fe.st.CreateProblem(ctx, store.Problem{Slug: p.slug, Title: p.slug, Statement: "…",
			TimeLimitMs: 1000, MemoryLimitKB: 262144, Checker: store.CheckerDefault, Mode: store.ModeIOI,
			Visibility: store.VisibilityPublic, Feedback: p.policy, Languages: store.Languages{}})
		if err != nil {
			t.Fatal(err)
		}
		if err := fe.st.AddTestdataVersion(ctx, store.TestdataVersion{ProblemID: pid, Hash: hash, SizeBytes: int64(len(zip)),
			CaseCount: 4, Manifest: mj}); err != nil {
			t.Fatal(err)
		}
	}
	want := []protocol.SubtaskScore{
		{Name: "small", Points: 40, Score: 40, Verdict: protocol.VerdictAC, Cases: []int{1, 2}},
		{Name: "large", Points: 60, Score: 0, Verdict: protocol.VerdictWA, Cases: []int{3, 4}},
	}
	clients := map[feedback.Viewer]*client{feedback.Staff: fe.admin, feedback.Owner: fe.alice, feedback.Other: fe.bob, feedback.Anonymous: fe.anon}
	for _, slug := range []string{"ioi-score", "ioi-first"} {
		fe.keys++
		r := fe.alice.submit(fmt.Sprintf("st-%d", fe.keys), map[string]any{"problem": slug, "language": "py3", "source": "print(0)"})
		if r.status != 201 {
			t.Fatalf("submit: %d %s", r.status, r.raw)
		}
		sid := id(r)
		ref := protocol.TaskRef{SubmissionID: sid, Attempt: 1}
		if _, err := fe.q.Lease(ctx, ref, "judge-1", time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, err := fe.q.Complete(ctx, "judge-1", protocol.Result{TaskRef: ref, Verdict: protocol.VerdictWA, JudgeID: "judge-1", Score: 70,
			Cases: []protocol.CaseResult{
				{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 5, Score: 20, Message: fbSample},
				{Case: 2, Verdict: protocol.VerdictAC, CPUMs: 5, Score: 20, Message: "ok"},
				{Case: 3, Verdict: protocol.VerdictAC, CPUMs: 5, Score: 30, Message: "ok"},
				{Case: 4, Verdict: protocol.VerdictWA, CPUMs: 5, Message: fbHidden},
			}}); err != nil {
			t.Fatal(err)
		}
		if fe.consume() != 1 {
			t.Fatal("result not consumed")
		}
		for v, c := range clients {
			r := c.do("GET", fmt.Sprintf("/api/submissions/%d", sid), nil)
			var b struct {
				Submission struct {
					Subtasks     []protocol.SubtaskScore `json:"subtasks"`
					FirstFailure int                     `json:"first_failure"`
					Cases        []CaseJSON              `json:"cases"`
				} `json:"submission"`
			}
			if r.status != 200 || json.Unmarshal([]byte(r.raw), &b) != nil {
				t.Fatalf("%s %s: %d %s", slug, v, r.status, r.raw)
			}
			got := b.Submission
			if v != feedback.Staff && strings.Contains(r.raw, fbHidden) {
				t.Errorf("%s %s: the hidden message: %s", slug, v, r.raw)
			}
			switch {
			case slug == "ioi-score" || v == feedback.Staff:
				if !reflect.DeepEqual(got.Subtasks, want) || len(got.Cases) != 4 || got.Cases[2].Score != 30 || got.Cases[3].Verdict != "WA" {
					t.Errorf("%s %s: subtasks %+v cases %+v, want %+v", slug, v, got.Subtasks, got.Cases, want)
				}
				if v != feedback.Staff && (strings.Contains(r.raw, `"message"`)) {
					t.Errorf("%s %s: a checker message under score_only: %s", slug, v, r.raw)
				}
			default:
				if got.Subtasks != nil || got.FirstFailure != 4 || len(got.Cases) != 4 {
					t.Errorf("%s %s: %s", slug, v, r.raw)
				}
			}
		}
	}
}

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestSubmitCheckerLanguage: a submission to a problem whose test data
// has a Python output validator is queued with the checker's language,
// so it needs judges with protocol.CapabilityProgramLanguages; one to a
// problem with a C++ checker needs nothing (every judge, old ones too).
func TestSubmitCheckerLanguage(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	alice := je.student("alice")
	for _, tc := range []struct {
		slug string
		opt  testpkg.CheckerOptions
		want []string
	}{
		{"py-checker", testpkg.CheckerOptions{Name: "validate.py", Language: "py3", Convention: testpkg.ConventionKattis}, []string{protocol.CapabilityProgramLanguages}},
		{"cpp-checker", testpkg.CheckerOptions{Convention: testpkg.ConventionKattis}, nil},
	} {
		pid, err := je.st.CreateProblem(ctx, store.Problem{Slug: tc.slug, Title: tc.slug, Statement: "…",
			TimeLimitMs: 1000, MemoryLimitKB: 262144, Checker: store.CheckerSpecial, Mode: store.ModeICPC,
			Visibility: store.VisibilityPublic, Languages: store.Languages{}})
		if err != nil {
			t.Fatal(err)
		}
		zip, m, err := testpkg.Package{Cases: []testpkg.Case{{In: []byte("1 2\n"), Ans: []byte("3\n")}},
			Checker: []byte("import sys\nsys.exit(42)\n"), CheckerOptions: tc.opt}.Build()
		if err != nil {
			t.Fatal(err)
		}
		hash, err := je.blobs.PutBytes(ctx, zip)
		if err != nil {
			t.Fatal(err)
		}
		mj, _ := json.Marshal(m)
		if err := je.st.AddTestdataVersion(ctx, store.TestdataVersion{ProblemID: pid, Hash: hash, SizeBytes: int64(len(zip)),
			CaseCount: 1, Manifest: mj}); err != nil {
			t.Fatal(err)
		}
		r := alice.submit("k-"+tc.slug, map[string]any{"problem": tc.slug, "language": "py3", "source": "print(3)"})
		if r.status != 201 {
			t.Fatalf("%s: submit: %d %s", tc.slug, r.status, r.raw)
		}
		sid := id(r)
		queued, err := je.q.Peek(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(queued, func(q queue.Queued) bool { return q.Task.SubmissionID == sid })
		if i < 0 {
			t.Fatalf("%s: submission %d not queued", tc.slug, sid)
		}
		task := queued[i].Task
		if task.Checker.Language != tc.opt.Language || !slices.Equal(task.Needs(), tc.want) {
			t.Errorf("%s: checker %+v needs %v, want language %q needing %v", tc.slug, task.Checker, task.Needs(), tc.opt.Language, tc.want)
		}
	}
}

// TestSubmitGrading: a submission to a problem whose test data carries
// the ICPC default grader's rules (an import with ignore_sample, say) is
// queued needing protocol.CapabilityGrading, so no older judge, which
// would refuse the package, gets it; the same problem's earlier test data
// without rules needs nothing.
func TestSubmitGrading(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	alice := je.student("alice")
	pid, err := je.st.CreateProblem(ctx, store.Problem{Slug: "graded", Title: "graded", Statement: "…",
		TimeLimitMs: 1000, MemoryLimitKB: 262144, Checker: store.CheckerDefault, Mode: store.ModeICPC,
		Visibility: store.VisibilityPublic, Languages: store.Languages{}})
	if err != nil {
		t.Fatal(err)
	}
	cs := []testpkg.Case{{In: []byte("1 2\n"), Ans: []byte("3\n")}, {In: []byte("2 2\n"), Ans: []byte("4\n")}}
	rules := &testpkg.Grading{Root: testpkg.GradingGroup{Name: "data", IgnoreSample: true, Items: []testpkg.GradingItem{
		{Group: &testpkg.GradingGroup{Name: "data/sample", Items: []testpkg.GradingItem{{Case: 1}}}},
		{Group: &testpkg.GradingGroup{Name: "data/secret", Items: []testpkg.GradingItem{{Case: 2}}}},
	}}}
	for i, tc := range []struct {
		pkg  testpkg.Package
		want []string
	}{
		{testpkg.Package{Cases: cs, Samples: []int{1}}, nil},
		{testpkg.Package{Cases: cs, Samples: []int{1}, Grading: rules}, []string{protocol.CapabilityGrading}},
	} {
		zip, m, err := tc.pkg.Build()
		if err != nil {
			t.Fatal(err)
		}
		hash, err := je.blobs.PutBytes(ctx, zip)
		if err != nil {
			t.Fatal(err)
		}
		mj, _ := json.Marshal(m)
		if err := je.st.AddTestdataVersion(ctx, store.TestdataVersion{ProblemID: pid, Hash: hash, SizeBytes: int64(len(zip)),
			CaseCount: 2, Manifest: mj}); err != nil {
			t.Fatal(err)
		}
		r := alice.submit(fmt.Sprintf("k-graded-%d", i), map[string]any{"problem": "graded", "language": "py3", "source": "print(3)"})
		if r.status != 201 {
			t.Fatalf("submit: %d %s", r.status, r.raw)
		}
		sid := id(r)
		queued, err := je.q.Peek(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		k := slices.IndexFunc(queued, func(q queue.Queued) bool { return q.Task.SubmissionID == sid })
		if k < 0 {
			t.Fatalf("submission %d not queued", sid)
		}
		if task := queued[k].Task; task.Grading != (tc.pkg.Grading != nil) || !slices.Equal(task.Needs(), tc.want) {
			t.Errorf("test data %d: grading %v needs %v, want %v", i, task.Grading, task.Needs(), tc.want)
		}
	}
}

package agent

import (
	"slices"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// TestGradingRules judges through the sandbox a package whose ICPC
// grading rules (testpkg.Grading) differ from Verdict's own: a sample the
// solution gets wrong under ignore_sample (judged, shown, not counted:
// the secret cases still run and decide), an always_accept group, and
// on_reject: continue with worst_error. The same solutions on the package
// without rules stop at their first rejection, as ever.
func TestGradingRules(t *testing.T) {
	h := newFakeHub(t)
	// Case 1 is the sample, cases 2 and 3 secret: data/secret/easy (2) and
	// data/secret/hard (3).
	cs := []testpkg.Case{
		{In: []byte("1 2\n"), Ans: []byte("3\n")},
		{In: []byte("20 22\n"), Ans: []byte("42\n")},
		{In: []byte("300 400\n"), Ans: []byte("700\n")},
	}
	rules := func(root, secret, hard testpkg.GradingGroup) *testpkg.Grading {
		root.Name, secret.Name, hard.Name = "data", "data/secret", "data/secret/hard"
		hard.Items = []testpkg.GradingItem{{Case: 3}}
		secret.Items = []testpkg.GradingItem{
			{Group: &testpkg.GradingGroup{Name: "data/secret/easy", Items: []testpkg.GradingItem{{Case: 2}}}},
			{Group: &hard},
		}
		root.Items = []testpkg.GradingItem{{Group: &testpkg.GradingGroup{Name: "data/sample", Items: []testpkg.GradingItem{{Case: 1}}}}, {Group: &secret}}
		return &testpkg.Grading{Root: root}
	}
	plain := h.addPackage(testpkg.Package{Cases: cs, Samples: []int{1}})
	ignore := h.addPackage(testpkg.Package{Cases: cs, Samples: []int{1}, Grading: rules(testpkg.GradingGroup{IgnoreSample: true}, testpkg.GradingGroup{}, testpkg.GradingGroup{})})
	always := h.addPackage(testpkg.Package{Cases: cs, Samples: []int{1}, Grading: rules(testpkg.GradingGroup{}, testpkg.GradingGroup{}, testpkg.GradingGroup{Verdict: testpkg.VerdictAlwaysAccept})})
	worst := h.addPackage(testpkg.Package{Cases: cs, Samples: []int{1}, Grading: rules(testpkg.GradingGroup{IgnoreSample: true}, testpkg.GradingGroup{Continue: true}, testpkg.GradingGroup{})})
	startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)

	const (
		AC, WA, RE, SK = protocol.VerdictAC, protocol.VerdictWA, protocol.VerdictRE, protocol.VerdictSkipped
	)
	// wrongSample answers the sample (a = 1) wrong; wrongHard answers
	// the hard case wrong; the third gets the easy case wrong and
	// crashes on the hard one.
	wrongSample := "a,b=map(int,input().split())\nprint(a+b+(a==1))\n"
	wrongHard := "a,b=map(int,input().split())\nprint(a+b+(a==300))\n"
	waThenRE := "a,b=map(int,input().split())\nassert a!=300\nprint(a+b+(a==20))\n"
	for _, tc := range []struct {
		name, hash, src string
		want            protocol.Verdict
		cases           []protocol.Verdict
	}{
		{"no rules: a wrong sample stops the judging", plain, wrongSample, WA, []protocol.Verdict{WA, SK, SK}},
		{"ignore_sample: the sample is shown, the secret cases decide", ignore, wrongSample, AC, []protocol.Verdict{WA, AC, AC}},
		{"ignore_sample: a wrong secret case still fails", ignore, wrongHard, WA, []protocol.Verdict{AC, AC, WA}},
		{"no rules: the hard case fails it", plain, wrongHard, WA, []protocol.Verdict{AC, AC, WA}},
		{"always_accept: the hard group never fails it", always, wrongHard, AC, []protocol.Verdict{AC, AC, WA}},
		{"always_accept: a wrong sample still does", always, wrongSample, WA, []protocol.Verdict{WA, SK, SK}},
		{"on_reject continue, worst_error: the crash outranks the wrong answer", worst, waThenRE, RE, []protocol.Verdict{AC, WA, RE}},
		{"no rules: the first rejection", plain, waThenRE, WA, []protocol.Verdict{AC, WA, SK}},
	} {
		task := mkTask(1, tc.hash, "py3", tc.src, func(t *protocol.Task) { t.Grading = tc.hash != plain })
		h.send(protocol.TypeTask, task)
		r := c.result(task.TaskRef, 60*time.Second)
		var got []protocol.Verdict
		for _, cr := range r.Cases {
			got = append(got, cr.Verdict)
		}
		if r.Verdict != tc.want || !slices.Equal(got, tc.cases) {
			t.Errorf("%s: %s %v, want %s %v", tc.name, r.Verdict, got, tc.want, tc.cases)
		}
		if wantScore := map[bool]float64{true: 100, false: 0}[tc.want == AC]; r.Score != wantScore {
			t.Errorf("%s: score %v, want %v", tc.name, r.Score, wantScore)
		}
	}
	h.mu.Lock()
	hello := h.hellos[0]
	h.mu.Unlock()
	if !slices.Contains(hello.Capabilities, protocol.CapabilityGrading) {
		t.Errorf("hello capabilities %v lack %s", hello.Capabilities, protocol.CapabilityGrading)
	}
}

package agent

import (
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

func TestScore(t *testing.T) {
	const (
		AC = protocol.VerdictAC
		WA = protocol.VerdictWA
		SK = protocol.VerdictSkipped
		TL = protocol.VerdictTLE
	)
	subs := testpkg.Manifest{Subtasks: []testpkg.Subtask{{Name: "a", Points: 30, Cases: []int{1, 2}}, {Name: "b", Points: 70, Cases: []int{3}}}}
	sums := testpkg.Manifest{Subtasks: []testpkg.Subtask{{Name: "a", Points: 30, Cases: []int{1, 2}, Sum: true}, {Name: "b", Points: 70, Cases: []int{3}, Sum: true}}}
	for _, tc := range []struct {
		name       string
		mode       protocol.Mode
		m          testpkg.Manifest
		verdicts   []protocol.Verdict
		fractions  []float64
		want       protocol.Verdict
		score      float64
		caseScores []float64
	}{
		{"icpc all ac", protocol.ModeICPC, testpkg.Manifest{}, []protocol.Verdict{AC, AC}, []float64{1, 1}, AC, 100, []float64{50, 50}},
		{"icpc first fails", protocol.ModeICPC, testpkg.Manifest{}, []protocol.Verdict{AC, TL, SK}, []float64{1, 0, 0}, TL, 0, []float64{33.333, 0, 0}},
		{"ioi plain", protocol.ModeIOI, testpkg.Manifest{}, []protocol.Verdict{AC, WA, AC, AC}, []float64{1, 0, 1, 1}, WA, 75, []float64{25, 0, 25, 25}},
		{"ioi partial", protocol.ModeIOI, testpkg.Manifest{}, []protocol.Verdict{AC, WA}, []float64{1, 0.5}, WA, 75, []float64{50, 25}},
		{"ioi subtask lost", protocol.ModeIOI, subs, []protocol.Verdict{AC, WA, AC}, []float64{1, 0, 1}, WA, 70, []float64{15, 0, 70}},
		{"ioi subtasks all", protocol.ModeIOI, subs, []protocol.Verdict{AC, AC, AC}, []float64{1, 1, 1}, AC, 100, []float64{15, 15, 70}},
		{"ioi subtask partial min", protocol.ModeIOI, subs, []protocol.Verdict{WA, WA, AC}, []float64{0.5, 0.8, 1}, WA, 85, []float64{7.5, 12, 70}},
		// A Sum subtask (a legacy ICPC group, default grader, scoring
		// validator): its cases' shares added up when all are accepted.
		{"sum subtask all accepted", protocol.ModeIOI, sums, []protocol.Verdict{AC, AC, AC}, []float64{0.5, 1, 0.25}, AC, 22.5 + 17.5, []float64{7.5, 15, 17.5}},
		{"sum subtask, one rejected: nothing", protocol.ModeIOI, sums, []protocol.Verdict{AC, WA, AC}, []float64{0.5, 0, 1}, WA, 70, []float64{7.5, 0, 70}},
		{"sum subtask, one skipped: nothing", protocol.ModeIOI, sums, []protocol.Verdict{AC, SK, AC}, []float64{1, 1, 1}, SK, 70, []float64{15, 0, 70}},
		// The ICPC default grader's rules (testpkg.Grading): a rejected
		// sample under ignore_sample does not decide; an always_accept
		// group never fails a pass-fail submission, but a scored one is
		// not shown accepted while it lost points.
		{"grading: ignored sample", protocol.ModeICPC, graded(testpkg.GradingGroup{IgnoreSample: true}, testpkg.GradingGroup{}),
			[]protocol.Verdict{WA, AC, AC}, []float64{0, 1, 1}, AC, 100, []float64{0, 33.333, 33.333}},
		{"grading: always_accept secret", protocol.ModeICPC, graded(testpkg.GradingGroup{}, testpkg.GradingGroup{Verdict: testpkg.VerdictAlwaysAccept}),
			[]protocol.Verdict{AC, WA, SK}, []float64{1, 0, 0}, AC, 100, []float64{33.333, 0, 0}},
		{"grading: worst_error", protocol.ModeICPC, graded(testpkg.GradingGroup{}, testpkg.GradingGroup{Continue: true}),
			[]protocol.Verdict{AC, WA, TL}, []float64{1, 0, 0}, TL, 0, []float64{33.333, 0, 0}},
		{"grading: first_error", protocol.ModeICPC, graded(testpkg.GradingGroup{}, testpkg.GradingGroup{Continue: true, Verdict: testpkg.VerdictFirstError}),
			[]protocol.Verdict{AC, WA, TL}, []float64{1, 0, 0}, WA, 0, []float64{33.333, 0, 0}},
		{"grading, scored: always_accept is no AC", protocol.ModeIOI, graded(testpkg.GradingGroup{IgnoreSample: true}, testpkg.GradingGroup{Continue: true, Verdict: testpkg.VerdictAlwaysAccept}),
			[]protocol.Verdict{WA, WA, AC}, []float64{0, 0, 1}, WA, 33.333, []float64{0, 0, 33.333}},
		{"grading, scored: ignored sample", protocol.ModeIOI, graded(testpkg.GradingGroup{IgnoreSample: true}, testpkg.GradingGroup{Continue: true}),
			[]protocol.Verdict{WA, AC, AC}, []float64{0, 1, 1}, AC, 66.667, []float64{0, 33.333, 33.333}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cases := make([]protocol.CaseResult, len(tc.verdicts))
			for i, v := range tc.verdicts {
				cases[i] = protocol.CaseResult{Case: i + 1, Verdict: v}
			}
			v, s := Score(tc.mode, tc.m, cases, tc.fractions)
			if v != tc.want || s != tc.score {
				t.Fatalf("Score = %s %v, want %s %v", v, s, tc.want, tc.score)
			}
			for i, c := range cases {
				if c.Score != tc.caseScores[i] {
					t.Fatalf("case %d score %v, want %v", i+1, c.Score, tc.caseScores[i])
				}
			}
		})
	}
}

// graded is a manifest of three cases, the first a sample, with the
// grading rules of its root and its secret group.
func graded(root, secret testpkg.GradingGroup) testpkg.Manifest {
	root.Name, secret.Name = "data", "data/secret"
	secret.Items = []testpkg.GradingItem{{Case: 2}, {Case: 3}}
	root.Items = []testpkg.GradingItem{{Group: &testpkg.GradingGroup{Name: "data/sample", Items: []testpkg.GradingItem{{Case: 1}}}}, {Group: &secret}}
	return testpkg.Manifest{Cases: make([]testpkg.CaseFile, 3), Grading: &testpkg.Grading{Root: root}}
}

func TestSysinfoParsers(t *testing.T) {
	if v, err := parseLoad1([]byte("1.52 0.90 0.40 2/300 1234\n")); err != nil || v != 1.52 {
		t.Fatalf("load1 = %v, %v", v, err)
	}
	if _, err := parseLoad1([]byte("")); err == nil {
		t.Fatal("empty loadavg accepted")
	}
	total, used, err := parseMeminfo([]byte("MemTotal:       4000 kB\nMemFree:  100 kB\nMemAvailable:   1000 kB\n"))
	if err != nil || total != 4000<<10 || used != 0.75 {
		t.Fatalf("meminfo = %v %v %v", total, used, err)
	}
	if _, _, err := parseMeminfo([]byte("MemTotal: 10 kB\n")); err == nil {
		t.Fatal("meminfo without MemAvailable accepted")
	}
}

func TestSlotCPUs(t *testing.T) {
	for _, tc := range []struct {
		cpus  []int
		slots int
		want  []int
	}{
		{[]int{0, 1}, 1, []int{1}},
		{[]int{0, 1}, 2, []int{0, 1}},
		{[]int{0, 1}, 3, nil},
		{[]int{0, 1, 2, 3}, 3, []int{1, 2, 3}},
	} {
		got := slotCPUs(tc.cpus, tc.slots)
		if len(got) != len(tc.want) {
			t.Fatalf("slotCPUs(%v, %d) = %v", tc.cpus, tc.slots, got)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("slotCPUs(%v, %d) = %v", tc.cpus, tc.slots, got)
			}
		}
	}
}

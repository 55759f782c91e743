package testpkg

import (
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
)

const (
	gAC = protocol.VerdictAC
	gWA = protocol.VerdictWA
	gTL = protocol.VerdictTLE
	gRE = protocol.VerdictRE
	gML = protocol.VerdictMLE
	gOL = protocol.VerdictOLE
	gPE = protocol.VerdictPE
)

func cases(from, to int) []GradingItem {
	var out []GradingItem
	for c := from; c <= to; c++ {
		out = append(out, GradingItem{Case: c})
	}
	return out
}

func group(name string, g GradingGroup, items ...[]GradingItem) GradingItem {
	g.Name = name
	for _, it := range items {
		g.Items = append(g.Items, it...)
	}
	return GradingItem{Group: &g}
}

// tree is data/ with samples 1..2 and secret 3..6 (secret: 3, then g1 =
// 4..5, then 6), each group with the settings given.
func tree(root, sample, secret, g1 GradingGroup) *Grading {
	root.Name = "data"
	root.Items = []GradingItem{
		group("data/sample", sample, cases(1, 2)),
		group("data/secret", secret, cases(3, 3), []GradingItem{group("data/secret/g1", g1, cases(4, 5))}, cases(6, 6)),
	}
	return &Grading{Root: root}
}

// TestGradingJudge: the default grader's verdict and the cases it
// reaches, flag by flag, against what the format's text says.
func TestGradingJudge(t *testing.T) {
	none := GradingGroup{}
	cont := GradingGroup{Continue: true}
	worst := GradingGroup{Continue: true, Verdict: VerdictWorstError}
	first := GradingGroup{Continue: true, Verdict: VerdictFirstError}
	always := GradingGroup{Verdict: VerdictAlwaysAccept}
	ignore := GradingGroup{IgnoreSample: true}
	all := []bool{true, true, true, true, true, true}
	for _, tc := range []struct {
		name     string
		g        *Grading
		verdicts []protocol.Verdict
		scoring  bool
		want     protocol.Verdict
		reached  []bool
	}{
		{"defaults, all accepted", tree(none, none, none, none), []protocol.Verdict{gAC, gAC, gAC, gAC, gAC, gAC}, false, gAC, all},
		{"defaults: the first rejection stops everything", tree(none, none, none, none),
			[]protocol.Verdict{gAC, gAC, gAC, gWA, gTL, gAC}, false, gWA, []bool{true, true, true, true, false, false}},
		{"defaults: a rejected sample stops before secret", tree(none, none, none, none),
			[]protocol.Verdict{gWA, gAC, gAC, gAC, gAC, gAC}, false, gWA, []bool{true, false, false, false, false, false}},
		{"ignore_sample: samples judged, not counted", tree(ignore, none, none, none),
			[]protocol.Verdict{gWA, gAC, gAC, gAC, gAC, gAC}, false, gAC, []bool{true, false, true, true, true, true}},
		{"ignore_sample, on_reject continue in sample: both samples judged", tree(ignore, cont, none, none),
			[]protocol.Verdict{gWA, gRE, gAC, gAC, gAC, gAC}, false, gAC, all},
		{"ignore_sample: secret still decides", tree(ignore, none, none, none),
			[]protocol.Verdict{gAC, gAC, gAC, gAC, gTL, gAC}, false, gTL, []bool{true, true, true, true, true, false}},
		{"worst_error with continue: the most severe", tree(worst, worst, worst, worst),
			[]protocol.Verdict{gAC, gAC, gWA, gAC, gTL, gRE}, false, gRE, all},
		{"first_error with continue: the first", tree(first, first, first, first),
			[]protocol.Verdict{gAC, gAC, gWA, gAC, gTL, gRE}, false, gWA, all},
		{"worst_error order: MLE before TLE before OLE before WA before PE", tree(worst, worst, worst, worst),
			[]protocol.Verdict{gPE, gWA, gOL, gTL, gML, gAC}, false, gML, all},
		{"worst_error under break is the first", tree(none, none, none, none),
			[]protocol.Verdict{gAC, gAC, gWA, gRE, gAC, gAC}, false, gWA, []bool{true, true, true, false, false, false}},
		{"first_error of groups: a subgroup's verdict is its own", tree(first, first, first, worst),
			[]protocol.Verdict{gAC, gAC, gAC, gWA, gRE, gTL}, false, gRE, all},
		{"always_accept group never fails the submission", tree(none, none, none, always),
			[]protocol.Verdict{gAC, gAC, gAC, gWA, gAC, gAC}, false, gAC, []bool{true, true, true, true, false, true}},
		{"always_accept group: what follows it still counts", tree(none, none, none, always),
			[]protocol.Verdict{gAC, gAC, gAC, gWA, gAC, gTL}, false, gTL, []bool{true, true, true, true, false, true}},
		{"always_accept on the samples", tree(none, always, none, none),
			[]protocol.Verdict{gWA, gAC, gAC, gAC, gAC, gAC}, false, gAC, []bool{true, false, true, true, true, true}},
		{"always_accept at the root", tree(always, none, none, none),
			[]protocol.Verdict{gAC, gAC, gWA, gAC, gAC, gAC}, false, gAC, []bool{true, true, true, false, false, false}},
		{"scoring: always_accept judges as worst_error", tree(cont, cont, cont, GradingGroup{Continue: true, Verdict: VerdictAlwaysAccept}),
			[]protocol.Verdict{gAC, gAC, gAC, gWA, gRE, gAC}, true, gRE, all},
		{"scoring: ignore_sample", tree(GradingGroup{IgnoreSample: true, Continue: true}, cont, cont, cont),
			[]protocol.Verdict{gWA, gAC, gAC, gAC, gAC, gAC}, true, gAC, all},
		{"verdicts missing count as accepted", tree(none, none, none, none), []protocol.Verdict{gAC}, false, gAC, all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.g.check(6); err != nil {
				t.Fatal(err)
			}
			v, reached := tc.g.Judge(tc.verdicts, tc.scoring)
			if v != tc.want || !slices.Equal(reached, tc.reached) {
				t.Errorf("Judge = %s %v, want %s %v", v, reached, tc.want, tc.reached)
			}
			if tc.scoring {
				return
			}
			// Reached, case by case from the verdicts before it, agrees.
			for c := 1; c <= 6; c++ {
				if got := tc.g.Reached(tc.verdicts, c); got != tc.reached[c-1] {
					t.Errorf("Reached(case %d) = %v, want %v", c, got, tc.reached[c-1])
				}
			}
		})
	}
}

// TestGradingManifest: a package's grading survives Build and Read, and
// a tree that does not cover the cases once and in order, an unknown
// mode, ignore_sample below the root are refused naming the field.
func TestGradingManifest(t *testing.T) {
	six := make([]Case, 6)
	for i := range six {
		six[i] = Case{In: []byte("1\n"), Ans: []byte("1\n")}
	}
	g := tree(GradingGroup{IgnoreSample: true}, GradingGroup{}, GradingGroup{Continue: true, Verdict: VerdictFirstError},
		GradingGroup{Verdict: VerdictAlwaysAccept})
	b, m, err := Package{Cases: six, Samples: []int{1, 2}, Grading: g}.Build()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, mm := range []Manifest{m, got} {
		if mm.Grading == nil || !mm.Grading.Root.IgnoreSample || mm.Grading.Root.Items[1].Group.Verdict != VerdictFirstError ||
			mm.Grading.Root.Items[1].Group.Items[1].Group.Verdict != VerdictAlwaysAccept {
			t.Fatalf("grading %+v", mm.Grading)
		}
	}
	if v, _ := got.Grading.Judge([]protocol.Verdict{gWA, gAC, gAC, gWA, gAC, gAC}, false); v != gAC {
		t.Errorf("read back: verdict %s, want AC", v)
	}
	if _, m, _ := Build(six, nil); m.Grading != nil {
		t.Error("a package without grading has one")
	}

	for _, tc := range []struct {
		name string
		g    *Grading
		want string
	}{
		{"a case missing", &Grading{Root: GradingGroup{Name: "data", Items: cases(1, 5)}}, "covers cases 1..5"},
		{"out of order", &Grading{Root: GradingGroup{Name: "data", Items: append(cases(2, 2), cases(1, 1)...)}}, "case 2 where case 1 comes"},
		{"twice", &Grading{Root: GradingGroup{Name: "data", Items: append(cases(1, 6), cases(6, 6)...)}}, "case 6 where case 7 comes"},
		{"unknown mode", &Grading{Root: GradingGroup{Name: "data", Verdict: "max", Items: cases(1, 6)}}, `verdict mode "max"`},
		{"ignore_sample below the root", tree(GradingGroup{}, GradingGroup{IgnoreSample: true}, GradingGroup{}, GradingGroup{}), "ignore_sample is for the root group only"},
		{"an empty group", &Grading{Root: GradingGroup{Name: "data", Items: append(cases(1, 6), group("data/x", GradingGroup{}))}}, "group data/x has no cases"},
		{"an item both", &Grading{Root: GradingGroup{Name: "data", Items: []GradingItem{{Case: 1, Group: &GradingGroup{Name: "x", Items: cases(2, 6)}}}}}, "a case or a group"},
		{"no name", &Grading{Root: GradingGroup{Items: cases(1, 6)}}, "has no name"},
	} {
		_, _, err := Package{Cases: six, Grading: tc.g}.Build()
		if err == nil || !strings.Contains(err.Error(), "grading") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	deep := GradingGroup{Name: "d", Items: cases(1, 6)}
	for range MaxGradingDepth + 1 {
		deep = GradingGroup{Name: "d", Items: []GradingItem{{Group: &deep}}}
	}
	if _, _, err := (Package{Cases: six, Grading: &Grading{Root: deep}}).Build(); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("deep nesting: %v", err)
	}
}

package icpcpkg

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// gradingString renders a grading tree: a group as name[settings](items).
func gradingString(g *testpkg.Grading) string {
	if g == nil {
		return "none"
	}
	var group func(gr *testpkg.GradingGroup) string
	group = func(gr *testpkg.GradingGroup) string {
		var set []string
		if gr.Verdict != "" {
			set = append(set, gr.Verdict)
		}
		if gr.Continue {
			set = append(set, "continue")
		}
		if gr.IgnoreSample {
			set = append(set, "ignore_sample")
		}
		var items []string
		for _, it := range gr.Items {
			if it.Group != nil {
				items = append(items, group(it.Group))
			} else {
				items = append(items, fmt.Sprint(it.Case))
			}
		}
		return gr.Name + "[" + strings.Join(set, " ") + "](" + strings.Join(items, " ") + ")"
	}
	return group(&g.Root)
}

// graded is a pass-fail package: two samples, secret cases 3 and 6 and
// the group data/secret/hard (4, 5).
var graded = map[string]string{
	"problem.yaml":             "name: Graded\n",
	".timelimit":               "1\n",
	"data/sample/1.in":         "1\n",
	"data/sample/1.ans":        "1\n",
	"data/sample/2.in":         "2\n",
	"data/sample/2.ans":        "2\n",
	"data/secret/01.in":        "3\n",
	"data/secret/01.ans":       "3\n",
	"data/secret/hard/1.in":    "4\n",
	"data/secret/hard/1.ans":   "4\n",
	"data/secret/hard/2.in":    "5\n",
	"data/secret/hard/2.ans":   "5\n",
	"data/secret/zz-last.in":   "6\n",
	"data/secret/zz-last.ans":  "6\n",
	"submissions/accepted/a.c": "int main(){}",
}

// TestConvertGrading: a legacy package's on_reject and grader_flags
// become the test data package's grading rules, group by group, with a
// group inheriting what its testdata.yaml does not say; a package that
// keeps the defaults gets none (its submissions go to every judge).
func TestConvertGrading(t *testing.T) {
	tree := func(root, sample, secret, hard string) string {
		return fmt.Sprintf("data[%s](data/sample[%s](1 2) data/secret[%s](3 data/secret/hard[%s](4 5) 6))", root, sample, secret, hard)
	}
	for _, tc := range []struct {
		name    string
		mods    []string
		scoring bool
		want    string
		note    string
		// verdicts of cases 1..6 and the verdict the rules give them
		verdicts []protocol.Verdict
		verdict  protocol.Verdict
	}{
		{name: "no testdata.yaml", want: "none"},
		{name: "the defaults spelled out", mods: []string{"data/testdata.yaml", "on_reject: break\ngrader_flags: worst_error sum\n"}, want: "none"},
		{name: "first_error under break is the default's verdict", mods: []string{"data/testdata.yaml", "grader_flags: first_error\n"}, want: "none"},
		{name: "ignore_sample on data/, continue everywhere",
			mods: []string{"data/testdata.yaml", "on_reject: continue\ngrader_flags: ignore_sample\n"},
			want: tree("continue ignore_sample", "continue", "continue", "continue"), note: "ignore_sample",
			verdicts: []protocol.Verdict{protocol.VerdictWA, protocol.VerdictWA, protocol.VerdictAC, protocol.VerdictAC, protocol.VerdictAC, protocol.VerdictAC},
			verdict:  protocol.VerdictAC},
		{name: "ignore_sample under break: the samples still do not stop secret",
			mods: []string{"data/testdata.yaml", "grader_flags: ignore_sample\n"},
			want: tree("ignore_sample", "", "", ""), note: "do not decide the verdict",
			verdicts: []protocol.Verdict{protocol.VerdictWA, protocol.VerdictAC, protocol.VerdictAC, protocol.VerdictTLE, protocol.VerdictAC, protocol.VerdictAC},
			verdict:  protocol.VerdictTLE},
		{name: "always_accept on a group",
			mods: []string{"data/secret/hard/testdata.yaml", "grader_flags: always_accept\n"},
			want: tree("", "", "", "always_accept"), note: "never rejected (always_accept): data/secret/hard",
			verdicts: []protocol.Verdict{protocol.VerdictAC, protocol.VerdictAC, protocol.VerdictAC, protocol.VerdictWA, protocol.VerdictAC, protocol.VerdictAC},
			verdict:  protocol.VerdictAC},
		{name: "worst_error with continue in secret; the group inherits it",
			mods: []string{"data/secret/testdata.yaml", "on_reject: continue\ngrader_flags: worst_error\n"},
			want: tree("", "", "continue", "continue"), note: "on_reject: continue): data/secret, data/secret/hard",
			verdicts: []protocol.Verdict{protocol.VerdictAC, protocol.VerdictAC, protocol.VerdictWA, protocol.VerdictAC, protocol.VerdictRE, protocol.VerdictTLE},
			verdict:  protocol.VerdictRE},
		{name: "first_error with continue; a group's own file overrides",
			mods: []string{"data/secret/testdata.yaml", "on_reject: continue\ngrader_flags: first_error\n",
				"data/secret/hard/testdata.yaml", "grader_flags: always_accept first_error\n"},
			want:     tree("", "", "first_error continue", "first_error continue"),
			verdicts: []protocol.Verdict{protocol.VerdictAC, protocol.VerdictAC, protocol.VerdictWA, protocol.VerdictAC, protocol.VerdictRE, protocol.VerdictTLE},
			verdict:  protocol.VerdictWA},
		{name: "ignore_sample without samples does nothing",
			mods: []string{"data/testdata.yaml", "grader_flags: ignore_sample\n", "data/sample/1.in", "<delete>", "data/sample/1.ans", "<delete>",
				"data/sample/2.in", "<delete>", "data/sample/2.ans", "<delete>"},
			want: "none"},
		{name: "ignore_sample below data/ is noted and ignored",
			mods: []string{"data/secret/testdata.yaml", "grader_flags: ignore_sample\n"}, want: "none",
			note: "data/secret/testdata.yaml: grader_flags ignore_sample is for data/testdata.yaml only"},
		{name: "scoring: always_accept alone keeps the default verdict", scoring: true,
			mods: []string{"data/secret/hard/testdata.yaml", "grader_flags: always_accept sum\naccept_score: 10\n"}, want: "none"},
		{name: "scoring: ignore_sample", scoring: true,
			mods: []string{"data/testdata.yaml", "on_reject: continue\ngrader_flags: ignore_sample\n"},
			want: tree("continue ignore_sample", "continue", "continue", "continue")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := with(graded, tc.mods...)
			if tc.scoring {
				files["problem.yaml"] = "name: Graded\ntype: scoring\n"
			}
			p, pkg, err := Convert(zipOf(t, files), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got := gradingString(pkg.Grading); got != tc.want {
				t.Errorf("grading\n got %s\nwant %s", got, tc.want)
			}
			if tc.note != "" && !strings.Contains(strings.Join(p.Notes, "\n"), tc.note) {
				t.Errorf("notes %q lack %q", p.Notes, tc.note)
			}
			if pkg.Grading != nil {
				// The rules survive the package and give the verdict the
				// format's grader would.
				b, _, err := pkg.Build()
				if err != nil {
					t.Fatal(err)
				}
				m, err := testpkg.Read(b)
				if err != nil {
					t.Fatal(err)
				}
				if gradingString(m.Grading) != tc.want {
					t.Errorf("read back: %s", gradingString(m.Grading))
				}
				if tc.verdicts != nil {
					if v, _ := m.Grading.Judge(tc.verdicts, tc.scoring); v != tc.verdict {
						t.Errorf("verdict of %v: %s, want %s", tc.verdicts, v, tc.verdict)
					}
				}
			}
		})
	}
}

// TestConvertGradingRefuses: a value the default grader does not have
// refuses the package, naming the file.
func TestConvertGradingRefuses(t *testing.T) {
	for _, tc := range []struct {
		mods []string
		want string
	}{
		{[]string{"data/secret/testdata.yaml", "on_reject: sometimes\n"}, "data/secret/testdata.yaml: on_reject sometimes: want break or continue"},
		{[]string{"data/secret/hard/testdata.yaml", "grader_flags: worst_errors\n"}, `data/secret/hard/testdata.yaml: grader_flags: unknown flag "worst_errors"`},
		{[]string{"data/testdata.yaml", "grader_flags: accept_if_any_accepted\n"}, "data/testdata.yaml: grader_flags accept_if_any_accepted"},
	} {
		_, _, err := Convert(zipOf(t, with(graded, tc.mods...)), Limits{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !(errors.Is(err, ErrInvalid) || errors.Is(err, ErrUnsupported)) {
			t.Errorf("%v: %v, want %q", tc.mods, err, tc.want)
		}
	}
}

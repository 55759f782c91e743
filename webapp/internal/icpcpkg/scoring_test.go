package icpcpkg

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// zipDir zips the fixture package testdata/<name> under its directory
// name, as a setter zips a package.
func zipDir(t *testing.T, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	root := filepath.Join("testdata", name)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel("testdata", p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// subtaskString shows subtasks compactly: name points cases [depends]
// and, when set, /ScoreMax.
func subtaskString(sts []testpkg.Subtask) string {
	var b strings.Builder
	for _, st := range sts {
		fmt.Fprintf(&b, "{%s %d %v %v", st.Name, st.Points, st.Cases, st.Depends)
		if st.Sum {
			b.WriteString(" sum")
		}
		if st.ScoreMax != 0 {
			fmt.Fprintf(&b, " /%.4f", st.ScoreMax)
		}
		b.WriteString("} ")
	}
	return strings.TrimSpace(b.String())
}

// TestScoringFixtures imports the two fixture packages of
// testdata/ (written from the format's specification): a legacy scoring
// package (testdata.yaml with grader_flags, accept_score and range,
// inherited root settings, `validation: custom score`) and a 2025-09 one
// (test_group.yaml with max_score, score_aggregation and require_pass, a
// scoring output_validator/). Each group maps to Verdict's subtasks: min
// and pass-fail groups to one subtask, summed groups to one per case,
// require_pass to dependencies, and the validator's score.txt to the
// package's KattisScore.
func TestScoringFixtures(t *testing.T) {
	for _, tc := range []struct {
		name, subtasks, checker string
		notes                   []string
	}{
		{"guess-legacy",
			"{sample 0 [1] []} {g1-small 30 [2 3] []} {g2-large #1 35 [4] []} {g2-large #2 35 [5] []}",
			testpkg.CheckerName, []string{"scoring validator", "output validator output_validators/guess/guess.cpp is the checker"}},
		{"guess-2025",
			"{sample 0 [1] []} {group1 20 [2] [sample]} {group2 30 [3 4] [group1 sample]} " +
				"{group3 #1 17 [5] [sample] /16.6667} {group3 #2 17 [6] [sample] /16.6667} {group3 #3 16 [7] [sample] /16.6667}",
			testpkg.CheckerName, []string{"scoring validator", "group group3: 50 points over 3 cases"}},
	} {
		p, pkg, err := Convert(zipDir(t, tc.name), Limits{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if p.Mode != ModeIOI || p.Checker != CheckerSpecial || p.Title != "Guess the Number" || p.TimeLimitMs != 1000 || p.MemoryLimitKB != 256<<10 {
			t.Errorf("%s: problem %+v", tc.name, p)
		}
		if got := subtaskString(pkg.Subtasks); got != tc.subtasks {
			t.Errorf("%s: subtasks\n %s\nwant\n %s", tc.name, got, tc.subtasks)
		}
		if !pkg.KattisScore || pkg.CheckerOptions.Convention != testpkg.ConventionKattis || pkg.CheckerOptions.Name != tc.checker {
			t.Errorf("%s: KattisScore %v, checker %+v", tc.name, pkg.KattisScore, pkg.CheckerOptions)
		}
		notes := strings.Join(p.Notes, "\n")
		for _, w := range tc.notes {
			if !strings.Contains(notes, w) {
				t.Errorf("%s: notes lack %q:\n%s", tc.name, w, notes)
			}
		}
		// A valid Verdict package that keeps the scoring fields.
		b, _, err := pkg.Build()
		if err != nil {
			t.Fatalf("%s: build: %v", tc.name, err)
		}
		m, err := testpkg.Read(b)
		if err != nil || !m.KattisScore || len(m.Subtasks) != len(pkg.Subtasks) {
			t.Fatalf("%s: read back: %v %+v", tc.name, err, m)
		}
		total := 0
		for _, st := range m.Subtasks {
			total += st.Points
		}
		if total != 100 {
			t.Errorf("%s: points add up to %d, want 100", tc.name, total)
		}
	}
}

// TestScoringFixtureValidator compiles the fixtures' validator (as the
// judges do, g++ -std=c++17) and runs it in the Kattis convention on
// every secret case: the answer scores its case's maximum (the subtask's
// ScoreMax, else its points, as the judge reads it), a guess off by one
// scores one less, and a wild one is rejected (43).
func TestScoringFixtureValidator(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "guess")
	if out, err := exec.Command("g++", "-std=c++17", "-O0", "-o", bin, filepath.Join("testdata", "guess-2025", "output_validator", "guess.cpp")).CombinedOutput(); err != nil {
		t.Fatalf("compile: %v\n%s", err, out)
	}
	_, pkg, err := Convert(zipDir(t, "guess-2025"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	run := func(c testpkg.Case, guess string) (int, string) {
		fb := t.TempDir() + "/"
		in, ans := filepath.Join(dir, "in"), filepath.Join(dir, "ans")
		if err := os.WriteFile(in, c.In, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ans, c.Ans, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, in, ans, fb)
		cmd.Stdin = strings.NewReader(guess)
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("validator: %v", err)
		}
		score, _ := os.ReadFile(fb + "score.txt")
		return ee.ExitCode(), strings.TrimSpace(string(score))
	}
	for _, st := range pkg.Subtasks {
		if st.Points == 0 {
			continue
		}
		max := st.ScoreMax
		if max == 0 {
			max = float64(st.Points)
		}
		for _, ci := range st.Cases {
			c := pkg.Cases[ci-1]
			n := strings.TrimSpace(string(c.In))
			var got float64
			code, score := run(c, n)
			if _, err := fmt.Sscan(score, &got); code != 42 || err != nil || math.Abs(got-max) > max*1e-6 {
				t.Errorf("%s case %d, the answer: exit %d, score %q, want 42 and %v", st.Name, ci, code, score, max)
			}
			code, score = run(c, n+"000") // a thousand times the number: too far
			if code != 43 || score != "" {
				t.Errorf("%s case %d, far off: exit %d, score %q, want 43 and none", st.Name, ci, code, score)
			}
		}
	}
}

// TestScoringSettings: the group settings the import reads, and what it
// refuses, naming the file.
func TestScoringSettings(t *testing.T) {
	base := map[string]string{
		"problem.yaml":         "name: S\ntype: scoring\n",
		"data/secret/a/1.in":   "1",
		"data/secret/a/1.ans":  "1",
		"data/secret/a/2.in":   "2",
		"data/secret/a/2.ans":  "2",
		"data/secret/b/1.in":   "3",
		"data/secret/b/1.ans":  "3",
		"data/sample/1.in":     "0",
		"data/sample/1.ans":    "0",
		"statement/problem.md": "S",
	}
	modern := "problem_format_version: 2025-09\nname: S\ntype: scoring\n"
	for _, tc := range []struct {
		name     string
		files    map[string]string
		subtasks string
	}{
		{"legacy, no settings: 100 shared, all or nothing", base, "{sample 0 [1] []} {a 50 [2 3] []} {b 50 [4] []}"},
		{"legacy accept_score, default grader: all or nothing, the cases' sum",
			with(base, "data/secret/a/testdata.yaml", "accept_score: 20\n", "data/secret/b/testdata.yaml", "accept_score: 60\n"),
			"{sample 0 [1] []} {a 40 [2 3] []} {b 60 [4] []}"},
		{"legacy always_accept sum: per case",
			with(base, "data/secret/a/testdata.yaml", "grader_flags: always_accept sum\naccept_score: 25\n", "data/secret/b/testdata.yaml", "range: 0 50\n"),
			"{sample 0 [1] []} {a #1 25 [2] []} {a #2 25 [3] []} {b 50 [4] []}"},
		{"legacy min, inherited from data/",
			with(base, "data/testdata.yaml", "grader_flags: min\nrange: 0 7\n", "data/secret/b/testdata.yaml", "grader_flags: sum always_accept\naccept_score: 30\n"),
			"{sample 0 [1] []} {a 50 [2 3] []} {b 50 [4] []}"},
		{"2023-07 grading map",
			with(base, "problem.yaml", "problem_format_version: 2023-07-draft\nname: S\ntype: scoring\n",
				"data/secret/a/testdata.yaml", "grading:\n  max_score: 60\n  aggregation: sum\n", "data/secret/b/testdata.yaml", "grading:\n  max_score: 40\n"),
			"{sample 0 [1] []} {a #1 30 [2] []} {a #2 30 [3] []} {b 40 [4] []}"},
		{"2025-09 flat secret sums its cases",
			map[string]string{"problem.yaml": modern, "data/secret/1.in": "1", "data/secret/1.ans": "1", "data/secret/2.in": "2", "data/secret/2.ans": "2",
				"data/secret/3.in": "3", "data/secret/3.ans": "3"},
			"{secret #1 34 [1] []} {secret #2 33 [2] []} {secret #3 33 [3] []}"},
		{"2025-09 secret max_score shared, require_pass a list",
			with(base, "problem.yaml", modern, "data/secret/test_group.yaml", "max_score: 60\n",
				"data/secret/b/test_group.yaml", "require_pass:\n  - sample\n  - secret/a\n"),
			"{sample 0 [1] []} {a 30 [2 3] []} {b 30 [4] [a sample]}"},
	} {
		_, pkg, err := Convert(zipOf(t, tc.files), Limits{})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := subtaskString(pkg.Subtasks); got != tc.subtasks {
			t.Errorf("%s: subtasks\n %s\nwant\n %s", tc.name, got, tc.subtasks)
		}
		if pkg.KattisScore {
			t.Errorf("%s: KattisScore without a scoring validator", tc.name)
		}
	}
	// An interactive validator that scores (custom interactive score).
	p, pkg, err := Convert(zipOf(t, with(interactivePkg, "guess/problem.yaml", "name: Guess\nvalidation: custom interactive score\n",
		"guess/data/secret/testdata.yaml", "range: 0 100\n")), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, m, err := pkg.Build(); err != nil || !p.Interactive || !m.KattisScore || m.InteractorConvention != testpkg.ConventionKattis ||
		subtaskString(m.Subtasks) != "{sample 0 [1] []} {secret 100 [2] []}" {
		t.Errorf("interactive scoring: %v %+v", err, m)
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  error
		names string
	}{
		{"custom grader", with(base, "data/secret/a/testdata.yaml", "grading: custom\n"), ErrUnsupported, "data/secret/a/testdata.yaml"},
		{"max grader", with(base, "data/secret/a/testdata.yaml", "grader_flags: max\n"), ErrUnsupported, "grader_flags max"},
		{"unknown grader flag", with(base, "data/secret/a/testdata.yaml", "grader_flags: median\n"), ErrInvalid, "median"},
		{"unbounded", with(base, "problem.yaml", modern, "data/secret/a/test_group.yaml", "max_score: unbounded\n"), ErrUnsupported, "unbounded"},
		{"negative points", with(base, "data/secret/a/testdata.yaml", "accept_score: -3\n"), ErrInvalid, "accept_score"},
		{"bad aggregation", with(base, "problem.yaml", modern, "data/secret/a/test_group.yaml", "score_aggregation: best\n"), ErrInvalid, "score_aggregation"},
		{"secret min over groups", with(base, "problem.yaml", modern, "data/secret/test_group.yaml", "score_aggregation: min\n"), ErrUnsupported, "data/secret/test_group.yaml"},
		{"require_pass unknown", with(base, "problem.yaml", modern, "data/secret/b/test_group.yaml", "require_pass: secret/c\n"), ErrInvalid, "secret/c"},
		{"require_pass itself", with(base, "problem.yaml", modern, "data/secret/b/test_group.yaml", "require_pass: b\n"), ErrInvalid, "itself"},
		{"scoring validator without a maximum", with(base, "problem.yaml", "name: S\ntype: scoring\nvalidation: custom score\n",
			"output_validators/v/v.c", "int main(void){return 42;}\n"), ErrInvalid, "data/secret/a"},
	} {
		_, _, err := Convert(zipOf(t, tc.files), Limits{})
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.names) {
			t.Errorf("%s: %v, want %v naming %q", tc.name, err, tc.want, tc.names)
		}
	}
}

// TestLegacyScoredSumGroup (issue 17): a legacy group under the default
// grader (worst_error, sum or avg) with a scoring validator is one Sum
// subtask: the validator's scores added up (averaged) when every case is
// accepted, nothing when one is rejected, as the format's default grader
// scores it (a rejected group's score is ignored); always_accept keeps
// one subtask per case.
func TestLegacyScoredSumGroup(t *testing.T) {
	files := map[string]string{
		"problem.yaml":                "name: S\ntype: scoring\nvalidation: custom score\n",
		"output_validators/v/v.cpp":   "int main(){return 42;}\n",
		"statement/problem.md":        "S",
		"data/sample/1.in":            "0",
		"data/sample/1.ans":           "0",
		"data/secret/a/1.in":          "1",
		"data/secret/a/1.ans":         "1",
		"data/secret/a/2.in":          "2",
		"data/secret/a/2.ans":         "2",
		"data/secret/a/testdata.yaml": "range: 0 40\n",
		"data/secret/b/1.in":          "3",
		"data/secret/b/1.ans":         "3",
		"data/secret/b/2.in":          "4",
		"data/secret/b/2.ans":         "4",
		"data/secret/b/testdata.yaml": "grader_flags: avg worst_error\nrange: 0 60\n",
	}
	p, pkg, err := Convert(zipOf(t, files), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := subtaskString(pkg.Subtasks), "{sample 0 [1] []} {a 40 [2 3] [] sum /20.0000} {b 60 [4 5] [] sum /60.0000}"; got != want {
		t.Errorf("subtasks\n %s\nwant\n %s", got, want)
	}
	if slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "keeps the other cases") }) {
		t.Errorf("notes %q: the grading is matched, no note", p.Notes)
	}
	b, _, err := pkg.Build()
	if err != nil {
		t.Fatal(err)
	}
	m, err := testpkg.Read(b)
	if err != nil || !m.Subtasks[1].Sum || !m.Subtasks[2].Sum || m.Subtasks[0].Sum {
		t.Fatalf("read back: %v %+v", err, m.Subtasks)
	}
	files["data/secret/a/testdata.yaml"] = "grader_flags: always_accept sum\nrange: 0 40\n"
	if _, pkg, err = Convert(zipOf(t, files), Limits{}); err != nil {
		t.Fatal(err)
	}
	if got, want := subtaskString(pkg.Subtasks), "{sample 0 [1] []} {a #1 20 [2] []} {a #2 20 [3] []} {b 60 [4 5] [] sum /60.0000}"; got != want {
		t.Errorf("always_accept: subtasks\n %s\nwant\n %s", got, want)
	}
}

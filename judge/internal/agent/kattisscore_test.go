package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/judge/internal/checker"
)

// TestCaseScoreMax: a case's maximum is its subtask's ScoreMax, else its
// points; a case in no subtask, or in a 0-point one, has none.
func TestCaseScoreMax(t *testing.T) {
	m := testpkg.Manifest{Subtasks: []testpkg.Subtask{
		{Name: "sample", Points: 0, Cases: []int{1}},
		{Name: "g1", Points: 40, Cases: []int{2, 3}},
		{Name: "g2 #1", Points: 4, Cases: []int{4}, ScoreMax: 10.0 / 3},
	}}
	for i, want := range []float64{0, 40, 40, 10.0 / 3, 0} {
		if got := caseScoreMax(m, i); got != want {
			t.Errorf("case %d: %v, want %v", i+1, got, want)
		}
	}
}

// TestWithKattisScore: what a scoring validator's feedback directory
// makes of an outcome.
func TestWithKattisScore(t *testing.T) {
	ac := checker.Outcome{Verdict: protocol.VerdictAC, Fraction: 1}
	wa := checker.Outcome{Verdict: protocol.VerdictWA, Message: "wrong"}
	for _, tc := range []struct {
		name  string
		in    checker.Outcome
		files map[string]string
		max   float64
		want  checker.Outcome
		msg   string // for SE: in the message
	}{
		{"no file: the maximum", ac, nil, 10, checker.Outcome{Verdict: protocol.VerdictAC, Fraction: 1}, ""},
		{"score.txt", ac, map[string]string{"score.txt": "7.5\n"}, 10, checker.Outcome{Verdict: protocol.VerdictAC, Fraction: 0.75, Message: "score 7.5 of 10"}, ""},
		{"score 0", ac, map[string]string{"score.txt": "0"}, 10, checker.Outcome{Verdict: protocol.VerdictAC, Fraction: 0, Message: "score 0 of 10"}, ""},
		{"the validator's message stays", checker.Outcome{Verdict: protocol.VerdictAC, Fraction: 1, Message: "ok"}, map[string]string{"score.txt": "5"}, 10,
			checker.Outcome{Verdict: protocol.VerdictAC, Fraction: 0.5, Message: "ok"}, ""},
		{"score_multiplier.txt", ac, map[string]string{"score_multiplier.txt": "0.25"}, 8, checker.Outcome{Verdict: protocol.VerdictAC, Fraction: 0.25, Message: "score 2 of 8"}, ""},
		{"a sample: ignored", ac, map[string]string{"score.txt": "junk"}, 0, ac, ""},
		{"a rejection: ignored", wa, map[string]string{"score.txt": "5"}, 10, wa, ""},
		{"not a number", ac, map[string]string{"score.txt": "lots"}, 10, checker.Outcome{Verdict: protocol.VerdictSE}, "not a non-negative number"},
		{"negative", ac, map[string]string{"score.txt": "-1"}, 10, checker.Outcome{Verdict: protocol.VerdictSE}, "not a non-negative number"},
		{"above the maximum", ac, map[string]string{"score.txt": "10.5"}, 10, checker.Outcome{Verdict: protocol.VerdictSE}, "above the case's maximum 10"},
		{"multiplier above 1", ac, map[string]string{"score_multiplier.txt": "1.5"}, 10, checker.Outcome{Verdict: protocol.VerdictSE}, "not in [0, 1]"},
		{"both", ac, map[string]string{"score.txt": "1", "score_multiplier.txt": "0.1"}, 10, checker.Outcome{Verdict: protocol.VerdictSE}, "both"},
	} {
		dir := t.TempDir()
		for name, body := range tc.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got := withKattisScore(tc.in, dir, tc.max)
		if tc.want.Verdict == protocol.VerdictSE {
			if got.Verdict != protocol.VerdictSE || !strings.Contains(got.Message, tc.msg) {
				t.Errorf("%s: %+v, want SE mentioning %q", tc.name, got, tc.msg)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	// A symlink planted for score.txt is not followed: the validator's
	// failure.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "real"), []byte("5"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "score.txt")); err != nil {
		t.Fatal(err)
	}
	if got := withKattisScore(ac, dir, 10); got.Verdict != protocol.VerdictSE {
		t.Errorf("symlinked score.txt: %+v, want SE", got)
	}
}

// scoringValidator is a scoring Kattis output validator (C): the answer
// file holds the case's number and its maximum score; the team prints a
// guess, scored the maximum less the distance (43 when that is nothing).
// Guesses -1, -2 and -3 make it write score_multiplier.txt 0.5, a
// score.txt that is not a number, and one above the maximum.
const scoringValidator = `#include <stdio.h>
#include <stdlib.h>
static void put(const char *dir, const char *name, const char *text) {
	char path[4096]; snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w"); if (f) { fputs(text, f); fclose(f); }
}
int main(int argc, char **argv) {
	if (argc < 4) return 1;
	FILE *ans = fopen(argv[2], "r"); long want, max, got; char buf[64];
	if (!ans || fscanf(ans, "%ld %ld", &want, &max) != 2) return 1;
	if (scanf("%ld", &got) != 1) { put(argv[3], "judgemessage.txt", "no number"); return 43; }
	if (got == -1) { put(argv[3], "score_multiplier.txt", "0.5\n"); return 42; }
	if (got == -2) { put(argv[3], "score.txt", "lots\n"); return 42; }
	if (got == -3) { snprintf(buf, sizeof buf, "%ld\n", max + 1); put(argv[3], "score.txt", buf); return 42; }
	long d = labs(got - want);
	if (d >= max) { put(argv[3], "judgemessage.txt", "too far"); return 43; }
	snprintf(buf, sizeof buf, "%ld\n", max - d); put(argv[3], "score.txt", buf);
	return 42;
}
`

// TestKattisScoreTxt: a scoring output validator's score.txt sets each
// case's score through the real agent and sandbox: a sample's score is
// ignored, a min subtask earns its points times its lowest case's
// fraction, per-case subtasks (a sum group) add up their cases' scores,
// score_multiplier.txt is a fraction, a rejection scores nothing, and a
// bad score file is the validator's failure (SE).
func TestKattisScoreTxt(t *testing.T) {
	pkg := testpkg.Package{
		Cases: []testpkg.Case{
			{In: []byte("5\n"), Ans: []byte("5 10\n")},
			{In: []byte("7\n"), Ans: []byte("7 40\n")},
			{In: []byte("9\n"), Ans: []byte("9 40\n")},
			{In: []byte("1\n"), Ans: []byte("1 30\n")},
			{In: []byte("2\n"), Ans: []byte("2 30\n")},
		},
		Subtasks: []testpkg.Subtask{
			{Name: "sample", Points: 0, Cases: []int{1}},
			{Name: "g1", Points: 40, Cases: []int{2, 3}},
			{Name: "g2 #1", Points: 30, Cases: []int{4}},
			{Name: "g2 #2", Points: 30, Cases: []int{5}},
		},
		Samples:        []int{1},
		Checker:        []byte(scoringValidator),
		CheckerOptions: testpkg.CheckerOptions{Name: testpkg.CheckerC, Convention: testpkg.ConventionKattis},
		KattisScore:    true,
	}
	ioi := func(t *protocol.Task) {
		t.Mode = protocol.ModeIOI
		t.Checker = protocol.Checker{Kind: protocol.CheckerSpecial}
	}
	guess := func(expr string) string { return "x = int(input())\nprint(" + expr + ")\n" }
	res := judgeAll(t, pkg, nil, ioi, []problemSub{
		{"exact", "py3", guess("x"), protocol.VerdictAC, "", nil},
		{"off by 4", "py3", guess("x + 4"), protocol.VerdictAC, "", nil},
		{"multiplier", "py3", guess("-1"), protocol.VerdictAC, "", nil},
		{"too far", "py3", guess("x + 100"), protocol.VerdictWA, "too far", nil},
		{"not a number", "py3", guess("-2"), protocol.VerdictSE, "not a non-negative number", nil},
		{"above the maximum", "py3", guess("-3"), protocol.VerdictSE, "above the case's maximum 40", nil},
	})
	for _, tc := range []struct {
		name  string
		score float64
		cases []float64
	}{
		// The sample (max 10 in its answer) earns nothing either way.
		{"exact", 100, []float64{0, 20, 20, 30, 30}},
		// g1: 40 × 36/40; g2: 26 + 26.
		{"off by 4", 88, []float64{0, 18, 18, 26, 26}},
		{"multiplier", 50, []float64{0, 10, 10, 15, 15}},
		{"too far", 0, []float64{0, 0, 0, 0, 0}},
	} {
		r := res[tc.name]
		if r.Score != tc.score {
			t.Errorf("%s: score %v, want %v (%+v)", tc.name, r.Score, tc.score, r.Cases)
		}
		for i, want := range tc.cases {
			if i < len(r.Cases) && r.Cases[i].Score != want {
				t.Errorf("%s: case %d scores %v, want %v", tc.name, i+1, r.Cases[i].Score, want)
			}
		}
	}
	if c := res["off by 4"].Cases; len(c) < 2 || c[1].Message != "score 36 of 40" {
		t.Errorf("off by 4: case 2 %+v, want the message \"score 36 of 40\"", c)
	}
	// Without kattis_score the same validator's score.txt is ignored.
	pkg.KattisScore = false
	res = judgeAll(t, pkg, nil, ioi, []problemSub{{"not scoring", "py3", guess("x + 4"), protocol.VerdictAC, "", nil}})
	if r := res["not scoring"]; r.Score != 100 {
		t.Errorf("not scoring: score %v, want 100", r.Score)
	}
}

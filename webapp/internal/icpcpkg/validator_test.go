package icpcpkg

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// sumValidator is a Kattis output validator (its source only matters to
// the judges, which compile and run it: judge/internal/agent's
// TestKattisChecker runs one).
const sumValidator = `#include "validate.h"
int main(int argc, char **argv) { init_io(argc, argv); accept(); }
`

// customPkg is a legacy-format package with custom validation, its
// validator flags, a header beside the validator and reference solutions.
var customPkg = map[string]string{
	"sum/problem.yaml":                            "name: Sum\nvalidation: custom\nvalidator_flags: float_tolerance 1e-4 lenient\nlimits:\n  time_limit: 2\n",
	"sum/problem_statement/problem.en.md":         "# Sum\n",
	"sum/data/sample/1.in":                        "1 2\n",
	"sum/data/sample/1.ans":                       "3\n",
	"sum/data/secret/1.in":                        "20 22\n",
	"sum/data/secret/1.ans":                       "42\n",
	"sum/output_validators/sum/validate.cpp":      sumValidator,
	"sum/output_validators/sum/validate.h":        "// problemtools' validate.h\n",
	"sum/submissions/accepted/sum.cpp":            "int main(){}",
	"sum/submissions/accepted/sum.py":             "print(sum(map(int, input().split())))\n",
	"sum/submissions/wrong_answer/zero.py":        "print(0)\n",
	"sum/submissions/time_limit_exceeded/loop.c":  "int main(void){for(;;);}\n",
	"sum/submissions/run_time_error/crash.java":   "class Main { public static void main(String[] a) { throw new RuntimeException(); } }\n",
	"sum/submissions/accepted/multi/main.cpp":     "int main(){}",
	"sum/submissions/accepted/sum.rb":             "puts 3",
	"sum/submissions/partially_accepted/half.cpp": "int main(){}",
}

// TestConvertCustomValidator: `validation: custom` makes the output
// validator the problem's checker in the Kattis convention, with its
// headers and the validator flags as its arguments; the test data
// package builds and reads back with those fields (what the judges
// unpack). The reference solutions come with their expected verdicts.
func TestConvertCustomValidator(t *testing.T) {
	p, pkg, err := Convert(zipOf(t, customPkg), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Checker != CheckerSpecial || p.Interactive || p.TimeLimitMs != 2000 || p.ValidatorFlags != nil {
		t.Fatalf("problem %+v", p)
	}
	o := pkg.CheckerOptions
	if string(pkg.Checker) != sumValidator || o.Name != testpkg.CheckerName || o.Convention != testpkg.ConventionKattis ||
		o.Files["validate.h"] == nil || len(o.Files) != 1 || !slices.Equal(o.Args, []string{"float_tolerance", "1e-4", "lenient"}) {
		t.Fatalf("checker %+v", o)
	}
	b, _, err := pkg.Build()
	if err != nil {
		t.Fatal(err)
	}
	m, err := testpkg.CheckBytes(b, testpkg.DefaultLimits())
	if err != nil || m.Checker != testpkg.CheckerName || m.CheckerConvention != testpkg.ConventionKattis ||
		!slices.Equal(m.CheckerFiles, []string{"validate.h"}) || !slices.Equal(m.CheckerArgs, o.Args) {
		t.Fatalf("read back: %v %+v", err, m)
	}
	type sol struct{ name, lang, want string }
	var got []sol
	for _, s := range p.Solutions {
		got = append(got, sol{s.Name, s.Language, s.Expected})
	}
	want := []sol{
		{"submissions/accepted/sum.cpp", "cpp17", ExpectAC},
		{"submissions/accepted/sum.py", "py3", ExpectAC},
		{"submissions/run_time_error/crash.java", "java17", ExpectRE},
		{"submissions/time_limit_exceeded/loop.c", "c17", ExpectTLE},
		{"submissions/wrong_answer/zero.py", "py3", ExpectWA},
	}
	if !slices.Equal(got, want) {
		t.Errorf("solutions %+v, want %+v", got, want)
	}
	notes := strings.Join(p.Notes, "\n")
	for _, w := range []string{"is the checker (Kattis convention", "multi: a solution of several files", "sum.rb: not a C",
		"submissions/partially_accepted ignored", "5 reference solutions imported"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes %q lack %q", notes, w)
		}
	}

	// 2023-07: no validation key; output_validator/ itself makes it custom.
	v2 := map[string]string{
		"problem.yaml":            "problem_format_version: 2023-07-draft\nname: Sum\n",
		"data/sample/1.in":        "1 2\n",
		"data/sample/1.ans":       "3\n",
		"output_validator/v.c":    "int main(void){return 42;}\n",
		"output_validator/util.h": "",
	}
	p, pkg, err = Convert(zipOf(t, v2), Limits{})
	if err != nil || p.Checker != CheckerSpecial || pkg.CheckerOptions.Name != testpkg.CheckerC || pkg.CheckerOptions.Files["util.h"] == nil {
		t.Fatalf("2023-07: %v %+v %+v", err, p, pkg.CheckerOptions)
	}

	// A default-validation legacy package's validator is unused: noted.
	p, pkg, err = Convert(zipOf(t, with(customPkg, "sum/problem.yaml", "name: Sum\n")), Limits{})
	if err != nil || p.Checker == CheckerSpecial || pkg.Checker != nil || !strings.Contains(strings.Join(p.Notes, "\n"), "output_validators/ ignored") {
		t.Fatalf("default validation: %v %+v", err, p)
	}
}

// TestConvertCustomValidatorRefuses: what cannot be a custom validator is
// refused, naming the file or field.
func TestConvertCustomValidatorRefuses(t *testing.T) {
	const v = "sum/output_validators/sum/"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  error
		names string
	}{
		{"no source", with(customPkg, v+"validate.cpp", "<delete>"), ErrInvalid, "needs an output validator"},
		{"kotlin validator", with(customPkg, v+"validate.cpp", "<delete>", v+"validate.kt", "fun main() {}"), ErrUnsupported,
			"validate.kt: output validators in C, C++, Python 3 or Java only"},
		{"go validator", with(customPkg, v+"validate.cpp", "<delete>", v+"main.go", "package main"), ErrUnsupported,
			"main.go: output validators in C, C++, Python 3 or Java only"},
		{"python and C++", with(customPkg, v+"validate.py", "print()"), ErrUnsupported, "sources of several languages"},
		{"python without its entry point", with(customPkg, v+"validate.cpp", "<delete>", v+"a.py", "", v+"b.py", ""), ErrUnsupported,
			"no main.py, the entry point"},
		{"python 2", with(customPkg, v+"validate.cpp", "<delete>", v+"v.py", "#!/usr/bin/env python2\nprint 1\n"), ErrUnsupported, "Python 2"},
		{"two sources", with(customPkg, v+"more.cc", "int f();"), ErrUnsupported, "several source files"},
		{"build script", with(customPkg, v+"build", "#!/bin/sh"), ErrUnsupported, "build or run script"},
		{"binary solution", with(customPkg, "sum/submissions/accepted/bad.py", "\xff\xfe"), ErrInvalid, "bad.py"},
	} {
		_, _, err := Convert(zipOf(t, tc.files), Limits{})
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.names) {
			t.Errorf("%s: %v, want %v naming %q", tc.name, err, tc.want, tc.names)
		}
	}
}

// pyValidator is a Kattis output validator in Python 3 (judge/internal/
// agent's TestKattisCheckerPython runs one).
const pyValidator = `import sys
from util import expected
team = sys.stdin.read().split()
if team == expected(sys.argv[2]):
    sys.exit(42)
open(sys.argv[3] + "judgemessage.txt", "w").write("wrong sum")
sys.exit(43)
`

// TestConvertPythonValidator: an output validator written in Python 3 (a
// directory of sources, main.py the entry point) is the problem's checker
// in its language: the test data package carries its main source under
// its own name, its other sources as checker files and its language, and
// reads back so (what the judges compile with their py3 commands). A
// Java validator of one file too.
func TestConvertPythonValidator(t *testing.T) {
	const v = "sum/output_validators/sum/"
	files := with(customPkg, v+"validate.cpp", "<delete>", v+"validate.h", "<delete>",
		v+"main.py", pyValidator, v+"util.py", "def expected(path):\n    return open(path).read().split()\n")
	p, pkg, err := Convert(zipOf(t, files), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	o := pkg.CheckerOptions
	if p.Checker != CheckerSpecial || string(pkg.Checker) != pyValidator || o.Name != "main.py" || o.Language != "py3" ||
		o.Convention != testpkg.ConventionKattis || len(o.Files) != 1 || o.Files["util.py"] == nil ||
		!slices.Equal(o.Args, []string{"float_tolerance", "1e-4", "lenient"}) {
		t.Fatalf("checker %+v", o)
	}
	if notes := strings.Join(p.Notes, "\n"); !strings.Contains(notes, "main.py (Python 3) is the checker") {
		t.Errorf("notes %q", notes)
	}
	b, _, err := pkg.Build()
	if err != nil {
		t.Fatal(err)
	}
	m, err := testpkg.CheckBytes(b, testpkg.DefaultLimits())
	if err != nil || m.Checker != "main.py" || m.CheckerLanguage != "py3" || m.ProgramLanguage() != "py3" ||
		!slices.Equal(m.CheckerFiles, []string{"util.py"}) {
		t.Fatalf("read back: %v %+v", err, m)
	}

	j := map[string]string{
		"problem.yaml":                  "problem_format_version: 2023-07-draft\nname: Sum\n",
		"data/sample/1.in":              "1 2\n",
		"data/sample/1.ans":             "3\n",
		"output_validator/Checker.java": "class Checker { public static void main(String[] a) { System.exit(42); } }\n",
		"output_validator/README.md":    "notes",
		"output_validator/validate.h":   "",
	}
	p, pkg, err = Convert(zipOf(t, j), Limits{})
	if err != nil || p.Checker != CheckerSpecial || pkg.CheckerOptions.Name != "Checker.java" || pkg.CheckerOptions.Language != "java17" {
		t.Fatalf("java: %v %+v", err, pkg.CheckerOptions)
	}
	if b, _, err = pkg.Build(); err != nil {
		t.Fatal(err)
	}
	if m, err = testpkg.CheckBytes(b, testpkg.DefaultLimits()); err != nil || m.Checker != "Checker.java" || m.CheckerLanguage != "java17" {
		t.Fatalf("java read back: %v %+v", err, m)
	}
}

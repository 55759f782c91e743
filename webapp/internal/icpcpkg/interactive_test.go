package icpcpkg

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// guessValidator is a Kattis-style interactive output validator (its
// source only matters to the judges, which compile it).
const guessValidator = `#include "validate.h"
int main(int argc, char **argv) { init_io(argc, argv); accept(); }
`

var interactivePkg = map[string]string{
	"guess/problem.yaml":                        "name: Guess\nvalidation: custom interactive\nvalidator_flags: max_queries 20\nlimits:\n  time_limit: 1\n",
	"guess/problem_statement/problem.en.md":     "# Guess\n\nFind the number with `? x` questions.\n",
	"guess/data/sample/1.in":                    "1 100\n",
	"guess/data/sample/1.ans":                   "37\n",
	"guess/data/sample/1.interaction":           "<1 100\n>? 50\n<<\n>! 37\n",
	"guess/data/secret/1.in":                    "1 1000\n",
	"guess/data/secret/1.ans":                   "1000\n",
	"guess/output_validators/guess/validate.cc": guessValidator,
	"guess/output_validators/guess/validate.h":  "// problemtools' validate.h\n",
	"guess/output_validators/guess/README.txt":  "how it works",
	"guess/submissions/accepted/binary.cpp":     "int main(){}",
}

// TestConvertInteractive: a legacy `validation: custom interactive`
// package imports: its output validator (with its header) becomes the
// interactor of the test data package in the Kattis convention, the
// validator flags its arguments, and the package builds and reads back
// as interactive (what the web node stores and the judges unpack).
func TestConvertInteractive(t *testing.T) {
	p, pkg, err := Convert(zipOf(t, interactivePkg), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Interactive || p.Checker != CheckerDefault || p.Mode != ModeICPC || p.Title != "Guess" || p.TimeLimitMs != 1000 {
		t.Fatalf("problem %+v", p)
	}
	it := pkg.Interactor
	if it == nil || it.Name != testpkg.InteractorCPP || it.Convention != testpkg.ConventionKattis || string(it.Source) != guessValidator ||
		len(it.Files) != 1 || it.Files["validate.h"] == nil || !slices.Equal(it.Args, []string{"max_queries", "20"}) {
		t.Fatalf("interactor %+v", it)
	}
	if len(pkg.Cases) != 2 || !slices.Equal(pkg.Samples, []int{1}) {
		t.Fatalf("cases %d samples %v", len(pkg.Cases), pkg.Samples)
	}
	notes := strings.Join(p.Notes, "\n")
	for _, want := range []string{"is the interactor", "README.txt ignored"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	b, m, err := pkg.Build()
	if err != nil {
		t.Fatal(err)
	}
	got, err := testpkg.CheckBytes(b, testpkg.DefaultLimits())
	if err != nil || !got.Interactive || got.Interactor != testpkg.InteractorCPP || got.InteractorConvention != testpkg.ConventionKattis ||
		!slices.Equal(got.InteractorFiles, []string{"validate.h"}) || !slices.Equal(got.InteractorArgs, m.InteractorArgs) {
		t.Fatalf("read back: %v %+v", err, got)
	}

	// 2023-07: type: interactive (here with scoring, in a list),
	// output_validator/ itself, a C validator.
	v2 := map[string]string{
		"problem.yaml":               "problem_format_version: 2023-07-draft\nname: Guess\ntype: [interactive, scoring]\n",
		"data/sample/1.in":           "1 100\n",
		"data/sample/1.ans":          "37\n",
		"data/secret/g1/1.in":        "1 10\n",
		"data/secret/g1/1.ans":       "3\n",
		"output_validator/guess.c":   "int main(void){return 42;}\n",
		"output_validator/testlib.h": "",
	}
	p, pkg, err = Convert(zipOf(t, v2), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Interactive || p.Mode != ModeIOI || pkg.Interactor == nil || pkg.Interactor.Name != testpkg.InteractorC || pkg.Interactor.Files["testlib.h"] == nil {
		t.Fatalf("2023-07: %+v %+v", p, pkg.Interactor)
	}
	if _, _, err := pkg.Build(); err != nil {
		t.Fatal(err)
	}

	// A Python 3 interactor: its language and own name in the package.
	p, pkg, err = Convert(zipOf(t, with(interactivePkg, "guess/output_validators/guess/validate.cc", "<delete>",
		"guess/output_validators/guess/guess.py", "import sys\nsys.exit(42)\n")), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if it := pkg.Interactor; it == nil || it.Name != "guess.py" || it.Language != "py3" || len(it.Files) != 0 ||
		!slices.Equal(it.Args, []string{"max_queries", "20"}) {
		t.Fatalf("python interactor %+v", pkg.Interactor)
	}
	b, _, err = pkg.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := testpkg.CheckBytes(b, testpkg.DefaultLimits()); err != nil || got.Interactor != "guess.py" || got.InteractorLanguage != "py3" ||
		got.ProgramLanguage() != "py3" || len(got.InteractorFiles) != 0 {
		t.Fatalf("python interactor read back: %v %+v", err, got)
	}
}

// TestConvertInteractiveRefuses: what cannot be an interactor is refused,
// naming the file.
func TestConvertInteractiveRefuses(t *testing.T) {
	const v = "guess/output_validators/guess/"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  error
		names string
	}{
		{"rust validator", with(interactivePkg, v+"validate.cc", "<delete>", v+"validate.rs", "fn main() {}"), ErrUnsupported,
			"validate.rs: output validators in C, C++, Python 3 or Java only"},
		{"two sources", with(interactivePkg, v+"util.cpp", "int f(){return 1;}"), ErrUnsupported, "several source files"},
		{"build script", with(interactivePkg, v+"build", "#!/bin/sh"), ErrUnsupported, "build or run script"},
		{"two validators", with(interactivePkg, "guess/output_validators/other/x.cpp", "int main(){}"), ErrUnsupported, "one output validator directory"},
		{"no validator", with(interactivePkg, v+"validate.cc", "<delete>"), ErrInvalid, "needs its output validator"},
		{"interaction, not interactive", with(interactivePkg, "guess/problem.yaml", "name: Guess\n", v+"validate.cc", "<delete>",
			v+"validate.h", "<delete>", v+"README.txt", "<delete>"), ErrInvalid, "1.interaction"},
		{"custom, not interactive", with(interactivePkg, "guess/problem.yaml", "name: Guess\nvalidation: custom\n"), ErrInvalid, "1.interaction"},
	} {
		_, _, err := Convert(zipOf(t, tc.files), Limits{})
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.names) {
			t.Errorf("%s: %v, want %v naming %q", tc.name, err, tc.want, tc.names)
		}
	}
}

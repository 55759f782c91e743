package testpkg

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestCheckerOptionsRoundTrip: a C checker in the Kattis convention with
// headers and arguments builds and reads back (Read, CheckBytes, Unpack)
// with the same manifest fields.
func TestCheckerOptionsRoundTrip(t *testing.T) {
	p := Package{
		Cases:   []Case{{In: []byte("1\n"), Ans: []byte("1\n")}},
		Checker: []byte("#include \"validate.h\"\nint main(void){return 42;}\n"),
		CheckerOptions: CheckerOptions{Name: CheckerC, Convention: ConventionKattis,
			Files: map[string][]byte{"validate.h": []byte("//\n"), TestlibHeader: []byte("//\n")}, Args: []string{"float_tolerance", "1e-6"}},
	}
	b, m, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	if m.Checker != CheckerC || m.CheckerConvention != ConventionKattis || !slices.Equal(m.CheckerFiles, []string{TestlibHeader, "validate.h"}) {
		t.Fatalf("built manifest %+v", m)
	}
	for name, read := range map[string]func() (Manifest, error){
		"Read":       func() (Manifest, error) { return Read(b) },
		"CheckBytes": func() (Manifest, error) { return CheckBytes(b, DefaultLimits()) },
		"Unpack": func() (Manifest, error) {
			return Unpack(bytes.NewReader(b), int64(len(b)), t.TempDir(), UnpackLimits{})
		},
	} {
		got, err := read()
		if err != nil || got.Checker != CheckerC || got.CheckerConvention != ConventionKattis ||
			!slices.Equal(got.CheckerFiles, m.CheckerFiles) || !slices.Equal(got.CheckerArgs, m.CheckerArgs) {
			t.Errorf("%s: %v %+v", name, err, got)
		}
	}
	// The testlib convention is the default, left out of the manifest.
	p.CheckerOptions = CheckerOptions{Convention: ConventionTestlib}
	if _, m, err := p.Build(); err != nil || m.CheckerConvention != "" || m.Checker != CheckerName {
		t.Errorf("testlib: %v %+v", err, m)
	}
}

func TestCheckerRejects(t *testing.T) {
	base := map[string]string{"1.in": "1\n", "1.ans": "1\n"}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"two checkers", with(map[string]string{CheckerName: "", CheckerC: ""}), "one checker"},
		{"bad convention", with(map[string]string{ManifestName: `{"checker":"checker.cpp","checker_convention":"polygon"}`, CheckerName: ""}), `checker_convention "polygon"`},
		{"fields without checker", with(map[string]string{ManifestName: `{"checker_args":["x"]}`}), "checker fields without a checker"},
		{"names the other checker", with(map[string]string{ManifestName: `{"checker":"checker.c"}`, CheckerName: ""}), "names checker.c, which the package lacks"},
		{"listed header missing", with(map[string]string{ManifestName: `{"checker":"checker.cpp","checker_files":["testlib.h"]}`, CheckerName: ""}), "names testlib.h, which the package lacks"},
		{"unlisted header", with(map[string]string{CheckerName: "", "testlib.h": ""}), "testlib.h: unexpected file"},
		{"case as header", with(map[string]string{ManifestName: `{"checker":"checker.cpp","checker_files":["1.ans"]}`, CheckerName: ""}), `"1.ans" is not a plain`},
	} {
		_, err := Read(mkzip(t, tc.files))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestNeedsJudgeTestlib(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Package
		want string
	}{
		{"none", Package{}, ""},
		{"plain checker", Package{Checker: []byte("#include <cstdio>\nint main(){}")}, ""},
		{"mentions it in a comment", Package{Checker: []byte("// no testlib.h here\nint main(){}")}, ""},
		{"checker", Package{Checker: []byte("#include \"testlib.h\"\n")}, CheckerName},
		{"angle brackets, spaces", Package{Checker: []byte("  #  include <testlib.h>\n"), CheckerOptions: CheckerOptions{Name: CheckerC}}, CheckerC},
		{"checker with its own", Package{Checker: []byte("#include \"testlib.h\"\n"), CheckerOptions: CheckerOptions{Files: map[string][]byte{TestlibHeader: {}}}}, ""},
		{"interactor", Package{Interactor: &Interactor{Source: []byte("#include \"testlib.h\"\n")}}, InteractorCPP},
		{"interactor with its own", Package{Interactor: &Interactor{Source: []byte("#include \"testlib.h\"\n"), Files: map[string][]byte{TestlibHeader: {}}}}, ""},
	} {
		got, needs := tc.p.NeedsJudgeTestlib()
		if got != tc.want || needs != (tc.want != "") {
			t.Errorf("%s: %q %v, want %q", tc.name, got, needs, tc.want)
		}
		// The same of the built package.
		p := tc.p
		p.Cases = []Case{{In: []byte("1"), Ans: []byte("1")}}
		b, m, err := p.Build()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, needs, err = ZipNeedsJudgeTestlib(b, m)
		if err != nil || got != tc.want || needs != (tc.want != "") {
			t.Errorf("%s: zip: %q %v %v, want %q", tc.name, got, needs, err, tc.want)
		}
	}
}

// TestKattisScore: a package whose Kattis validator writes score.txt
// keeps the flag and its subtasks' ScoreMax through Build and Read; the
// flag needs a Kattis-convention checker or interactor, and ScoreMax
// cannot be negative.
func TestKattisScore(t *testing.T) {
	kattis := CheckerOptions{Name: CheckerC, Convention: ConventionKattis}
	base := func() Package {
		return Package{
			Cases:          []Case{{In: []byte("1\n"), Ans: []byte("1\n")}, {In: []byte("2\n"), Ans: []byte("2\n")}},
			Subtasks:       []Subtask{{Name: "g1 #1", Points: 3, Cases: []int{1}, ScoreMax: 2.5}, {Name: "g1 #2", Points: 2, Cases: []int{2}, ScoreMax: 2.5}},
			Checker:        []byte("int main(void){return 42;}\n"),
			CheckerOptions: kattis,
			KattisScore:    true,
		}
	}
	b, _, err := base().Build()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(b)
	if err != nil || !m.KattisScore || len(m.Subtasks) != 2 || m.Subtasks[0].ScoreMax != 2.5 {
		t.Fatalf("read back: %v %+v", err, m)
	}
	for _, tc := range []struct {
		name string
		mod  func(*Package)
		want string
	}{
		{"a testlib checker", func(p *Package) { p.CheckerOptions = CheckerOptions{} }, "kattis_score"},
		{"no checker", func(p *Package) { p.Checker = nil; p.CheckerOptions = CheckerOptions{} }, "kattis_score"},
		{"negative score_max", func(p *Package) { p.Subtasks[1].ScoreMax = -1 }, "score_max"},
	} {
		p := base()
		tc.mod(&p)
		if _, _, err := p.Build(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalid naming %q", tc.name, err, tc.want)
		}
	}
}

package polygon

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/icpcpkg"
)

// assetsWith is fixture pkg's edits: in problem.xml's <assets>, the source
// path="old" becomes path="newPath" type="newType" (no type when ""), and
// the file newPath holds testdata/programs/<its base name> when there is
// one, else a placeholder.
func assetsWith(t *testing.T, pkg, old, newPath, newType string) map[string]string {
	t.Helper()
	x := readFixture(t, pkg+"/problem.xml")
	i := strings.Index(x, "<assets>")
	from := `<source path="` + old + `" type="cpp.g++17"/>`
	j := strings.Index(x[i:], from)
	if i < 0 || j < 0 {
		t.Fatalf("%s/problem.xml has no %s in <assets>", pkg, from)
	}
	to := `<source path="` + newPath + `"/>`
	if newType != "" {
		to = `<source path="` + newPath + `" type="` + newType + `"/>`
	}
	src := "placeholder\n"
	if b, err := os.ReadFile(filepath.Join("testdata", "programs", filepath.Base(newPath))); err == nil {
		src = string(b)
	}
	return map[string]string{"problem.xml": x[:i+j] + to + x[i+j+len(from):], newPath: src}
}

// TestConvertProgramLanguages: a checker, interactor or validator in a
// language the judges build (Polygon's python.3 and pypy3 types → py3,
// java8/11/21 → java17, and for validators go) is imported in that
// language; a checker or interactor in another (Python 2, Pascal, Kotlin,
// C#, Go) refuses the package naming the file and its type; a validator
// in another is noted and not run.
func TestConvertProgramLanguages(t *testing.T) {
	type want struct {
		name, lang string // the checker's or interactor's in the test data
	}
	for _, tc := range []struct {
		name, pkg, what string
		edits           map[string]string
		want            want
	}{
		{"python 3 checker", "standard", "checker", assetsWith(t, "standard", "files/check.cpp", "files/check.py", "python.3"), want{"check.py", "py3"}},
		{"pypy 3 checker", "standard", "checker", assetsWith(t, "standard", "files/check.cpp", "files/check.py", "python.pypy3-64"), want{"check.py", "py3"}},
		{"python checker without a type", "standard", "checker", assetsWith(t, "standard", "files/check.cpp", "files/check.py", ""), want{"check.py", "py3"}},
		{"java 11 checker", "standard", "checker", assetsWith(t, "standard", "files/check.cpp", "files/Check.java", "java11"), want{"Check.java", "java17"}},
		{"java 8 checker", "standard", "checker", assetsWith(t, "standard", "files/check.cpp", "files/Check.java", "java8"), want{"Check.java", "java17"}},
		{"C checker", "standard", "checker", assetsWith(t, "standard", "files/check.cpp", "files/check.c", "c.gcc"), want{testpkg.CheckerC, ""}},
		{"python 3 interactor", "interactive", "interactor", assetsWith(t, "interactive", "files/interactor.cpp", "files/interactor.py", "python.3"), want{"interactor.py", "py3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Convert(zipFixture(t, tc.pkg, "", tc.edits), icpcpkg.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			var path string
			for p := range tc.edits {
				if p != "problem.xml" {
					path = p
				}
			}
			d := r.Testdata
			if tc.what == "checker" {
				if o := d.CheckerOptions; o.Name != tc.want.name || o.Language != tc.want.lang || string(d.Checker) != tc.edits[path] ||
					(o.Language != "" && o.Files != nil) {
					t.Errorf("checker %+v", o)
				}
			} else if it := d.Interactor; it == nil || it.Name != tc.want.name || it.Language != tc.want.lang || it.Files != nil ||
				it.Convention != testpkg.ConventionTestlib || string(it.Source) != tc.edits[path] {
				t.Errorf("interactor %+v", it)
			}
			if r.Problem.Programs[tc.what] != path {
				t.Errorf("programs %v, want the %s at %s", r.Problem.Programs, tc.what, path)
			}
			// The test data package builds and reads back with the
			// program in its language.
			b, m, err := d.Build()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := testpkg.Read(b); err != nil {
				t.Fatal(err)
			}
			lang := m.CheckerLanguage
			if tc.what == "interactor" {
				lang = m.InteractorLanguage
			}
			if lang != tc.want.lang {
				t.Errorf("manifest %s language %q, want %q", tc.what, lang, tc.want.lang)
			}
		})
	}

	for _, tc := range []struct {
		name  string
		edits map[string]string
		err   error
		want  string
	}{
		{"python 2 checker", assetsWith(t, "standard", "files/check.cpp", "files/check.py", "python.2"), ErrUnsupported,
			"files/check.py: the checker is type python.2: Python 2, which Verdict's judges do not run"},
		{"pypy 2 interactor", assetsWith(t, "interactive", "files/interactor.cpp", "files/interactor.py", "python.pypy2"), ErrUnsupported,
			"files/interactor.py: the interactor is type python.pypy2: Python 2"},
		{"pascal checker", assetsWith(t, "standard", "files/check.cpp", "files/check.pas", "pascal.fpc"), ErrUnsupported,
			"files/check.pas: the checker is type pascal.fpc: Verdict's judges build checkers and interactors in C, C++, Python 3 or Java only"},
		{"kotlin interactor", assetsWith(t, "interactive", "files/interactor.cpp", "files/Interactor.kt", "kotlin.1.9"), ErrUnsupported,
			"files/Interactor.kt: the interactor is type kotlin.1.9: Verdict's judges build"},
		{"C# checker", assetsWith(t, "standard", "files/check.cpp", "files/check.cs", "csharp.mono"), ErrUnsupported, "files/check.cs: the checker is type csharp.mono"},
		{"go checker", assetsWith(t, "standard", "files/check.cpp", "files/check.go", "go"), ErrUnsupported, "files/check.go: the checker is type go"},
		{"a checker without a type or a known ending", assetsWith(t, "standard", "files/check.cpp", "files/check.pas", ""), ErrUnsupported,
			"files/check.pas: the checker is a .pas file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pkg := "standard"
			if strings.Contains(tc.edits["problem.xml"], "<interactor>") {
				pkg = "interactive"
			}
			_, err := Convert(zipFixture(t, pkg, "", tc.edits), icpcpkg.Limits{})
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.err, tc.want)
			}
		})
	}

	// Validators: Python 3, Java and Go run at import (testlib's
	// convention); others are noted.
	for _, tc := range []struct {
		name  string
		edits map[string]string
		lang  string
		note  string
	}{
		{"python 3 validator", assetsWith(t, "standard", "files/val.cpp", "files/val.py", "python.3"), "py3", ""},
		{"java validator", assetsWith(t, "standard", "files/val.cpp", "files/Val.java", "java21"), "java17", ""},
		{"go validator", assetsWith(t, "standard", "files/val.cpp", "files/val.go", "go"), "go", ""},
		{"pascal validator", assetsWith(t, "standard", "files/val.cpp", "files/val.pas", "pascal.fpc"), "",
			"validator files/val.pas (type pascal.fpc) not run: Verdict's judges run validators in C, C++, Python 3, Java or Go"},
		{"python 2 validator", assetsWith(t, "standard", "files/val.cpp", "files/val.py", "python.2"), "",
			"validator files/val.py (type python.2) not run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Convert(zipFixture(t, "standard", "", tc.edits), icpcpkg.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			vs := r.Problem.InputValidators
			if tc.note != "" {
				if len(vs) != 0 || !strings.Contains(strings.Join(r.Problem.Notes, "\n"), tc.note) {
					t.Fatalf("validators %d, notes %q, want a note %q", len(vs), r.Problem.Notes, tc.note)
				}
				return
			}
			if len(vs) != 1 || vs[0].Language != tc.lang || vs[0].Lang() != tc.lang || vs[0].Convention != protocol.ValidationTestlib || vs[0].Files != nil {
				t.Fatalf("validators %+v", vs)
			}
		})
	}
}

// TestProgramFixturesAreReal runs the Python and Java fixtures the
// language tests import, as the judges run them, so the packages those
// tests build are packages that judge: the checkers accept the answer
// and refuse a wrong one with testlib's exit codes, the validator accepts
// every test and refuses bad inputs, the interactor plays the game with
// the main solution.
func TestProgramFixturesAreReal(t *testing.T) {
	dir := t.TempDir()
	progs := filepath.Join("testdata", "programs")
	exitOf := func(cmd *exec.Cmd) int {
		t.Helper()
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	if b, err := exec.Command("javac", "-d", dir, filepath.Join(progs, "Check.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, b)
	}
	checkers := map[string][]string{
		"check.py":   {"python3", filepath.Join(progs, "check.py")},
		"Check.java": {"java", "-cp", dir, "Check"},
	}
	tests := filepath.Join("testdata", "standard", "tests")
	out := filepath.Join(dir, "out")
	for name, argv := range checkers {
		for _, tc := range []struct {
			out  string
			exit int
		}{{"3\n", 0}, {"4\n", 1}, {"three\n", 2}, {"3 3\n", 2}} {
			if err := os.WriteFile(out, []byte(tc.out), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(argv[0], append(argv[1:], filepath.Join(tests, "01"), out, filepath.Join(tests, "01.a"))...)
			if code := exitOf(cmd); code != tc.exit {
				t.Errorf("%s on %q: exit %d, want %d", name, tc.out, code, tc.exit)
			}
		}
	}
	ins, _ := filepath.Glob(filepath.Join(tests, "[0-9][0-9]"))
	for _, in := range ins {
		b, _ := os.ReadFile(in)
		cmd := exec.Command("python3", filepath.Join(progs, "val.py"))
		cmd.Stdin = bytes.NewReader(b)
		if code := exitOf(cmd); code != 0 {
			t.Errorf("val.py refuses %s (exit %d)", in, code)
		}
	}
	for _, bad := range []string{"1 2", "1  2\n", "-1 2\n", "1 2\n3\n", "2000000000 1\n", "01 2\n"} {
		cmd := exec.Command("python3", filepath.Join(progs, "val.py"))
		cmd.Stdin = strings.NewReader(bad)
		if code := exitOf(cmd); code == 0 {
			t.Errorf("val.py accepts %q", bad)
		}
	}
	// The Python interactor and the main solution, through pipes.
	sol := filepath.Join(dir, "binary")
	if b, err := exec.Command("g++", "-std=c++17", "-o", sol, filepath.Join("testdata", "interactive", "solutions", "binary.cpp")).CombinedOutput(); err != nil {
		t.Fatalf("compile the solution: %v\n%s", err, b)
	}
	itests := filepath.Join("testdata", "interactive", "tests")
	ic := exec.Command("python3", filepath.Join(progs, "interactor.py"), filepath.Join(itests, "03"), out, filepath.Join(itests, "03.a"))
	sc := exec.Command(sol)
	toSol, err := sc.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ic.Stdout = toSol
	fromSol, err := sc.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	ic.Stdin = fromSol
	if err := sc.Start(); err != nil {
		t.Fatal(err)
	}
	if err := ic.Run(); err != nil {
		t.Fatalf("interactor: %v", err)
	}
	toSol.Close()
	_ = sc.Wait()
	if b, _ := os.ReadFile(out); string(b) != "999999\n" {
		t.Fatalf("the interactor's output %q", b)
	}
}

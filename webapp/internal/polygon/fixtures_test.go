package polygon

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestFixturesAreRealPrograms compiles the fixtures' checkers, validators
// and interactor with the package's own testlib.h (g++ -std=c++17, as the
// judges compile them) and runs them, so the packages the import tests use
// are packages that judge: the validators accept every test and refuse a
// bad input, the checkers accept the answer and refuse a wrong one.
func TestFixturesAreRealPrograms(t *testing.T) {
	dir := t.TempDir()
	build := func(pkg, src string) string {
		t.Helper()
		out := filepath.Join(dir, pkg+"-"+filepath.Base(src))
		cmd := exec.Command("g++", "-std=c++17", "-O0", "-o", out, filepath.Join("testdata", pkg, "files", src))
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("compile %s/%s: %v\n%s", pkg, src, err, b)
		}
		return out
	}
	exitOf := func(err error) int {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	validate := func(bin string, in []byte) int {
		cmd := exec.Command(bin)
		cmd.Stdin = bytes.NewReader(in)
		return exitOf(cmd.Run())
	}
	check := func(bin, pkg, test string, out string) int {
		o := filepath.Join(dir, "out")
		if err := os.WriteFile(o, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		tests := filepath.Join("testdata", pkg, "tests")
		return exitOf(exec.Command(bin, filepath.Join(tests, test), o, filepath.Join(tests, test+".a")).Run())
	}
	for _, pkg := range []string{"standard", "interactive"} {
		val := build(pkg, "val.cpp")
		tests, _ := filepath.Glob(filepath.Join("testdata", pkg, "tests", "[0-9][0-9]"))
		if len(tests) < 4 {
			t.Fatalf("%s: %d tests", pkg, len(tests))
		}
		for _, tf := range tests {
			b, _ := os.ReadFile(tf)
			if code := validate(val, b); code != 0 {
				t.Errorf("%s: the validator refuses %s (exit %d)", pkg, tf, code)
			}
		}
		for _, bad := range []string{"1 2", "1  2\n", "-1 2\n", "1 2\n3\n", "2000000000 1\n"} {
			if code := validate(val, []byte(bad)); code == 0 {
				t.Errorf("%s: the validator accepts %q", pkg, bad)
			}
		}
		chk := build(pkg, "check.cpp")
		want := map[string][2]string{"standard": {"3\n", "4\n"}, "interactive": {"7\n", "6\n"}}[pkg]
		if code := check(chk, pkg, "01", want[0]); code != 0 {
			t.Errorf("%s: the checker refuses the answer (exit %d)", pkg, code)
		}
		if code := check(chk, pkg, "01", want[1]); code != 1 {
			t.Errorf("%s: the checker gives exit %d for a wrong answer, want 1", pkg, code)
		}
	}
	// The interactor plays the game with the main solution through pipes.
	it := build("interactive", "interactor.cpp")
	sol := filepath.Join(dir, "binary")
	if b, err := exec.Command("g++", "-std=c++17", "-o", sol, filepath.Join("testdata", "interactive", "solutions", "binary.cpp")).CombinedOutput(); err != nil {
		t.Fatalf("compile the solution: %v\n%s", err, b)
	}
	tests := filepath.Join("testdata", "interactive", "tests")
	out := filepath.Join(dir, "tout")
	ic := exec.Command(it, filepath.Join(tests, "03"), out, filepath.Join(tests, "03.a"))
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

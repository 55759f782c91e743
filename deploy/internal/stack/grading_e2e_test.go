package stack

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gradedPackage (issue 17): an ICPC pass-fail package whose test data
// groups set the default grader's flags: data/ ignores the samples
// (ignore_sample), and data/secret/bonus never rejects (always_accept).
// Two of its accepted reference solutions are accepted only under those
// rules: one gets the sample wrong, one the bonus case.
func gradedPackage() []byte {
	const sum = "a, b = map(int, input().split())\nprint(a + b%s)\n"
	return zipFiles(map[string]string{
		"graded/problem.yaml":                        "name: Graded\nlimits:\n  time_limit: 2\n",
		"graded/problem_statement/problem.en.md":     "# Graded\n\nAdd.\n",
		"graded/data/testdata.yaml":                  "grader_flags: ignore_sample\n",
		"graded/data/sample/1.in":                    "1 2\n",
		"graded/data/sample/1.ans":                   "3\n",
		"graded/data/secret/01.in":                   "20 22\n",
		"graded/data/secret/01.ans":                  "42\n",
		"graded/data/secret/bonus/testdata.yaml":     "grader_flags: always_accept\n",
		"graded/data/secret/bonus/1.in":              "300 400\n",
		"graded/data/secret/bonus/1.ans":             "700\n",
		"graded/submissions/accepted/sum.py":         strings.Replace(sum, "%s", "", 1),
		"graded/submissions/accepted/bad_sample.py":  strings.Replace(sum, "%s", " + (a == 1)", 1),
		"graded/submissions/accepted/bad_bonus.py":   strings.Replace(sum, "%s", " + (a == 300)", 1),
		"graded/submissions/wrong_answer/bad_mid.py": strings.Replace(sum, "%s", " + (a == 20)", 1),
	})
}

// TestImportGradingRealJudge runs on a stack with a real judge what the
// grading rules and the Polygon program languages of issue 17 promise
// across the processes: the import carries the groups' rules in the test
// data, the web node queues the submissions needing icpc_grading, the
// hub routes them to the judge that announces it, and the judge grades
// by them — the reference solutions get their expected verdicts only so.
// And a Polygon package whose checker is Python 3 (type python.3) and
// whose validator is Python 3 imports, validates its tests on the judge
// and judges its reference solutions with that checker.
func TestImportGradingRealJudge(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the judges' sandbox needs root")
	}
	bin := buildComponents(t)
	out := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			lines := strings.Split(out.String(), "\n")
			t.Logf("last lines of the stack's output:\n%s", strings.Join(lines[max(0, len(lines)-120):], "\n"))
		}
	})
	s, stop := startStack(t, Config{Dir: t.TempDir(), BinDir: bin, StaticDir: t.TempDir(), Demo: true, Judges: 1, Out: out, FreePorts: true})
	t.Cleanup(stop)
	var admin string
	for _, l := range strings.Split(s.demoLogins, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "admin" {
			admin = f[1]
		}
	}
	api := adminAPI(t, strings.TrimSuffix(s.URL(), "/"), admin)
	imp := importer(api)

	st, _, raw := imp(gradedPackage(), "slug", "graded")
	if st != http.StatusCreated || !strings.Contains(raw, "grading by the test data groups") {
		t.Fatalf("the graded package: %d %s", st, raw)
	}
	expectSolutions(t, api, "graded", 4)

	programs, _ := filepath.Abs(filepath.Join("..", "..", "..", "webapp", "internal", "polygon", "testdata", "programs"))
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(programs, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	xml := polygonXML(t, "standard")
	for _, r := range [][2]string{
		{`<source path="files/check.cpp" type="cpp.g++17"/>`, `<source path="files/check.py" type="python.3"/>`},
		{`<validator>
                <source path="files/val.cpp" type="cpp.g++17"/>`, `<validator>
                <source path="files/val.py" type="python.3"/>`},
	} {
		if !strings.Contains(xml, r[0]) {
			t.Fatalf("the standard fixture's problem.xml lacks %q", r[0])
		}
		xml = strings.Replace(xml, r[0], r[1], 1)
	}
	// The fixture's wrong-answer and time-limit-exceeded solutions pass
	// its tests (a sum up to 2·10⁹ fits an int; g++ -O2 folds the slow
	// loop into a sum): here they are made to fail as their tags say, so the
	// Python checker's rejection is seen.
	st, m, raw := imp(polygonFixture(t, "standard", map[string]string{"problem.xml": xml, "files/check.py": read("check.py"),
		"files/val.py":        read("val.py"),
		"solutions/int32.cpp": "#include <cstdio>\nint main() { long long a, b; std::scanf(\"%lld %lld\", &a, &b); std::printf(\"%lld\\n\", a + b + (a > 100)); }\n",
		"solutions/slow.cpp":  "#include <cstdio>\nint main() { long long a, b; std::scanf(\"%lld %lld\", &a, &b); volatile long long s = 0; while (a > 100) s = s + 1; std::printf(\"%lld\\n\", a + b); }\n",
	}), "slug", "sum-py")
	if v, _ := m["validation"].(map[string]any); st != http.StatusCreated || v["status"] != "valid" ||
		!strings.Contains(raw, "the checker files/check.py compiles (checked on a judge at import)") {
		t.Fatalf("the Polygon package with a Python checker: %d %s", st, raw)
	}
	expectSolutions(t, api, "sum-py", 4)
}

// polygonXML reads a Polygon fixture's problem.xml.
func polygonXML(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "webapp", "internal", "polygon", "testdata", name, "problem.xml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

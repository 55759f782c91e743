package stack

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The "tol" package (issue 17): an ICPC package whose judging depends on
// its test data groups' flags. Its input validator is Python in two
// files (main.py, the entry point, and a module): an input is one
// integer in [1, --max], 50 by data/'s input_validator_flags, 100 in the
// loose group's own. Its output validator accepts an answer within --tol
// of the judges', 0 unless the group's output_validator_flags say 5 (the
// loose group). The reference solution "near" is off by 3 on the loose
// group's input only: accepted only if the group's flags reach the
// output validator.
const tolOutputValidator = `#include <cstdio>
#include <cstdlib>
#include <cstring>
int main(int argc, char **argv) {
	long tol = 0;
	for (int i = 4; i + 1 < argc; i++) if (!std::strcmp(argv[i], "--tol")) tol = std::atol(argv[i + 1]);
	std::FILE *a = std::fopen(argv[2], "r");
	long want, got;
	if (!a || std::fscanf(a, "%ld", &want) != 1) return 1;
	if (std::scanf("%ld", &got) != 1) return 43;
	return std::labs(got - want) <= tol ? 42 : 43;
}
`

func tolPackage(edits map[string]string) []byte {
	files := map[string]string{
		"tol/problem.yaml":                        "name: Tolerance\nvalidation: custom\nlimits:\n  time_limit: 2\n",
		"tol/problem_statement/problem.en.md":     "# Tolerance\n\nEcho the number.\n",
		"tol/data/testdata.yaml":                  "input_validator_flags: --max 50\n",
		"tol/data/sample/1.in":                    "7\n",
		"tol/data/sample/1.ans":                   "7\n",
		"tol/data/secret/exact/1.in":              "40\n",
		"tol/data/secret/exact/1.ans":             "40\n",
		"tol/data/secret/loose/1.in":              "80\n",
		"tol/data/secret/loose/1.ans":             "80\n",
		"tol/data/secret/loose/testdata.yaml":     "input_validator_flags: --max 100\noutput_validator_flags: --tol 5\n",
		"tol/input_validators/bounds/main.py":     "import sys\nfrom limits import check\nsys.exit(check(sys.stdin.read(), sys.argv[1:]))\n",
		"tol/input_validators/bounds/limits.py":   tolLimitsPy,
		"tol/output_validators/close/close.cpp":   tolOutputValidator,
		"tol/submissions/accepted/echo.py":        "print(int(input()))\n",
		"tol/submissions/accepted/near.py":        "n = int(input())\nprint(n + 3 if n > 50 else n)\n",
		"tol/submissions/wrong_answer/always3.py": "print(int(input()) + 3)\n",
		"tol/input_validators/bounds/README.md":   "Bounds come from the flags.\n",
	}
	for k, v := range edits {
		if v == "" {
			delete(files, k)
			continue
		}
		files[k] = v
	}
	return zipFiles(files)
}

const tolLimitsPy = `def check(text, args):
    hi = int(args[args.index("--max") + 1]) if "--max" in args else 10
    parts = text.split()
    if len(parts) != 1 or not parts[0].isdigit():
        print("want one number", file=__import__("sys").stderr)
        return 43
    n = int(parts[0])
    if not 1 <= n <= hi:
        print("%d: outside [1, %d]" % (n, hi), file=__import__("sys").stderr)
        return 43
    return 42
`

// importGroupFlags (issue 17; run by TestImportValidationRealJudge on its
// stack): the "tol" package through nginx, a web node and a real judge:
// its output validator, broken in C++ or in Python, refuses the package
// with the compiler's message (a build check at import); its Python input validator runs
// with each group's input_validator_flags (the loose group's input is
// valid only by its own --max; without that file the package is refused
// naming the input), and its reference solutions get their expected
// verdicts, "near" accepted only because the loose group's
// output_validator_flags reach the output validator.
func importGroupFlags(t *testing.T, api func(method, path, ct string, body []byte) (int, []byte)) {
	t.Helper()
	imp := importer(api)

	// An output validator that does not compile refuses the package at
	// import (a build check on the judge), C++ or Python.
	for _, tc := range []struct {
		edits map[string]string
		want  []string
	}{
		{map[string]string{"tol/output_validators/close/close.cpp": "int main( {\n"},
			[]string{"the package's checker output_validators/close/close.cpp does not compile:", "error"}},
		{map[string]string{"tol/output_validators/close/close.cpp": "", "tol/output_validators/close/close.py": "import sys\ndef (:\n"},
			[]string{"the package's checker output_validators/close/close.py does not compile:", "SyntaxError"}},
	} {
		st, m, raw := imp(tolPackage(tc.edits), "slug", "tol")
		if st != http.StatusBadRequest || !strings.Contains(errMessage(m), tc.want[0]) || !strings.Contains(errMessage(m), tc.want[1]) {
			t.Fatalf("an output validator that does not compile: %d %s", st, raw)
		}
	}

	st, m, raw := imp(tolPackage(map[string]string{"tol/data/secret/loose/testdata.yaml": "output_validator_flags: --tol 5\n"}), "slug", "tol")
	if st != http.StatusBadRequest || !strings.Contains(errMessage(m), "input data/secret/loose/1.in: 80: outside [1, 50] (input validator input_validators/bounds/main.py)") {
		t.Fatalf("the loose input without its group's bound: %d %s", st, raw)
	}
	st, m, raw = imp(tolPackage(nil), "slug", "tol")
	if v, _ := m["validation"].(map[string]any); st != http.StatusCreated || v["status"] != "valid" || v["inputs"] != float64(3) {
		t.Fatalf("the tol package: %d %s", st, raw)
	}
	expectSolutions(t, api, "tol", 3)
}

// TestImportCheckBrowser (issue 17): the admin's import panel in a real
// browser against the whole stack: a package whose input a validator
// refuses shows the refusal at the package's file field, naming the input
// and the validator, and nothing is imported; the fixed package imports
// and the panel shows its notes and its input validation (valid, both
// validators: the C++ one a judge ran and the checktestdata script the
// web node ran, the inputs checked). A package whose checktestdata script
// refuses an input shows the refusal naming the input, the line and the
// position.
func TestImportCheckBrowser(t *testing.T) {
	env := startBrowserStack(t, 1)
	base := env.base
	api := adminAPI(t, env.base, env.logins["admin"])
	awaitValidatingJudge(t, api)

	ctx, cancel := browser(t)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	keyboardLogin(t, ctx, base, "admin", env.logins["admin"])

	dir := t.TempDir()
	bad := filepath.Join(dir, "plus-bad.zip")
	badCtd := filepath.Join(dir, "plus-bad-ctd.zip")
	good := filepath.Join(dir, "plus.zip")
	if err := os.WriteFile(bad, validatedPackage(map[string]string{"plus/data/secret/02.in": "0 1001\n"}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(badCtd, validatedPackage(map[string]string{"plus/input_validators/format.ctd": "INT(0,1000) SPACE INT(0,100) NEWLINE\n"}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, validatedPackage(map[string]string{"plus/input_validators/format.ctd": "INT(0,1000) SPACE INT(0,1000) NEWLINE\n"}), 0o644); err != nil {
		t.Fatal(err)
	}
	importZip := func(name, path, slug string, done string) {
		step(t, ctx, name, 90*time.Second,
			chromedp.Navigate(base+"/admin/problems"),
			chromedp.WaitVisible(chromedp.ID("imp-file")),
			chooseFile("#imp-file", path),
			chromedp.SendKeys(chromedp.ID("imp-slug"), slug),
			until(`!document.querySelector('form[data-testid=icpc-import] button[type=submit]').disabled`),
			chromedp.Click(chromedp.CSS(`form[data-testid=icpc-import] button[type=submit]`)),
			until(done),
		)
	}
	importZip("import a package whose input is refused", bad, "plus-bad",
		`(document.getElementById('imp-file-err')?.textContent ?? '').includes('input data/secret/02.in: 0 1001: outside [0, 1000] (input validator input_validators/range/range.cpp)')`)
	screenshot(t, ctx, "import-1-refused")
	if st, _ := api(http.MethodGet, "/api/problems/plus-bad", "", nil); st != http.StatusNotFound {
		t.Errorf("the refused package's problem: %d, want 404", st)
	}

	importZip("import a package whose checktestdata script refuses an input", badCtd, "plus-bad-ctd",
		`(document.getElementById('imp-file-err')?.textContent ?? '').includes('input data/secret/01.in: line 1, position 5: INT (script line 1): 500 is out of range [0, 100] (input validator input_validators/format.ctd)')`)
	if st, _ := api(http.MethodGet, "/api/problems/plus-bad-ctd", "", nil); st != http.StatusNotFound {
		t.Errorf("the problem of the package its script refused: %d, want 404", st)
	}

	importZip("import the fixed package", good, "plus",
		`document.querySelector('[data-testid=import-validation]')?.dataset.status === 'valid'`)
	step(t, ctx, "the panel shows the validation and the notes", 30*time.Second,
		until(`(document.querySelector('[data-testid=import-validation]')?.textContent ?? '').includes('input_validators/range/range.cpp')`),
		until(`/\b3\b/.test(document.querySelector('[data-testid=import-validation]')?.textContent ?? '')`),
		until(`(document.querySelector('[data-testid=import-validation]')?.textContent ?? '').includes('input_validators/format.ctd')`),
		until(`Array.from(document.querySelectorAll('[data-testid=icpc-notes] li')).some((li) => li.textContent.includes('input validators run on every input at import: 2'))`),
		until(`!document.getElementById('imp-file-err')`),
	)
	screenshot(t, ctx, "import-2-checked")
}

// importer posts packages to the import through the admin's API,
// retrying while no judge is connected yet (503).
func importer(api func(method, path, contentType string, body []byte) (int, []byte)) func(zipBytes []byte, fields ...string) (int, map[string]any, string) {
	return func(zipBytes []byte, fields ...string) (int, map[string]any, string) {
		ct, body := multipartImport(zipBytes, fields...)
		var st int
		var raw []byte
		for deadline := time.Now().Add(60 * time.Second); ; {
			st, raw = api(http.MethodPost, "/api/problems/import", ct, body)
			if st != http.StatusServiceUnavailable || !strings.Contains(string(raw), "no connected judge") || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Second)
		}
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return st, m, string(raw)
	}
}

func errMessage(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	s, _ := e["message"].(string)
	return s
}

type solutionsState struct {
	Solutions []struct{ Name, Expected, State, Verdict string }
	OK        bool
}

// awaitSolutions waits for the reference solutions the import queued.
func awaitSolutions(t *testing.T, api func(method, path, contentType string, body []byte) (int, []byte), slug string) solutionsState {
	t.Helper()
	var sols solutionsState
	for deadline := time.Now().Add(90 * time.Second); ; {
		st, body := api(http.MethodGet, "/api/problems/"+slug+"/solutions", "", nil)
		if st != http.StatusOK {
			t.Fatalf("solutions: %d %s", st, body)
		}
		if err := json.Unmarshal(body, &sols); err != nil {
			t.Fatal(err)
		}
		running := false
		for _, s := range sols.Solutions {
			running = running || s.State == "running" || s.State == "not_run"
		}
		if !running || time.Now().After(deadline) {
			return sols
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// expectSolutions waits for the n reference solutions the import of slug
// queued and fails the test unless each got the verdict it expects.
func expectSolutions(t *testing.T, api func(method, path, contentType string, body []byte) (int, []byte), slug string, n int) {
	t.Helper()
	sols := awaitSolutions(t, api, slug)
	if len(sols.Solutions) != n || !sols.OK {
		t.Errorf("reference solutions of %s after import: %+v", slug, sols)
	}
	for _, s := range sols.Solutions {
		if s.State != "ok" || s.Verdict != s.Expected {
			t.Errorf("%s: %s got %s, expected %s", s.Name, s.State, s.Verdict, s.Expected)
		}
	}
}

// awaitValidatingJudge waits until a connected judge offers C++ (the
// browser's import must not meet the 503 of a judge still connecting).
func awaitValidatingJudge(t *testing.T, api func(method, path, contentType string, body []byte) (int, []byte)) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; {
		st, body := api(http.MethodGet, "/api/languages", "", nil)
		if st == http.StatusOK && strings.Contains(string(body), `"cpp17"`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no judge offers cpp17: %d %s", st, body)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

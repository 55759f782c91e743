package stack

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rangeValidator is a Kattis input validator: "a b" with 0 <= a, b <=
// --max, one line, nothing after; exit 42 valid, 43 invalid with the
// reason on stderr.
const rangeValidator = `#include <cstdio>
#include <cstdlib>
#include <cstring>
int main(int argc, char **argv) {
	long max = 0;
	for (int i = 1; i + 1 < argc; i++) if (!std::strcmp(argv[i], "--max")) max = std::atol(argv[i + 1]);
	long a, b; char nl;
	if (std::scanf("%ld %ld%c", &a, &b, &nl) != 3 || nl != '\n') { std::fprintf(stderr, "want two integers on one line\n"); return 43; }
	if (a < 0 || a > max || b < 0 || b > max) { std::fprintf(stderr, "%ld %ld: outside [0, %ld]\n", a, b, max); return 43; }
	if (std::getchar() != EOF) { std::fprintf(stderr, "trailing data\n"); return 43; }
	return 42;
}
`

func validatedPackage(edits map[string]string) []byte {
	files := map[string]string{
		"plus/problem.yaml":                      "name: Plus\nlimits:\n  time_limit: 1\n",
		"plus/problem_statement/problem.en.md":   "# Plus\n\nAdd two numbers.\n",
		"plus/data/testdata.yaml":                "input_validator_flags: --max 1000\n",
		"plus/data/sample/1.in":                  "1 2\n",
		"plus/data/sample/1.ans":                 "3\n",
		"plus/data/secret/01.in":                 "500 500\n",
		"plus/data/secret/01.ans":                "1000\n",
		"plus/data/secret/02.in":                 "0 7\n",
		"plus/data/secret/02.ans":                "7\n",
		"plus/input_validators/range/range.cpp":  rangeValidator,
		"plus/submissions/accepted/plus.py":      "a, b = map(int, input().split())\nprint(a + b)\n",
		"plus/submissions/wrong_answer/minus.py": "a, b = map(int, input().split())\nprint(a - b)\n",
	}
	for k, v := range edits {
		files[k] = v
	}
	return zipFiles(files)
}

func zipFiles(files map[string]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for n, v := range files {
		w, _ := zw.Create(n)
		_, _ = w.Write([]byte(v))
	}
	_ = zw.Close()
	return buf.Bytes()
}

func multipartImport(zipBytes []byte, fields ...string) (string, []byte) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "package.zip")
	_, _ = fw.Write(zipBytes)
	for i := 0; i+1 < len(fields); i += 2 {
		_ = mw.WriteField(fields[i], fields[i+1])
	}
	_ = mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

// TestImportValidationRealJudge (issue 17): imports through nginx and a
// web node whose input validators a real judge compiles and runs in its
// sandbox over every input: an input out of range refuses the package
// naming it; a validator that does not compile refuses it with the
// compiler's message; the fixed package imports as valid, and its
// reference solutions run at once and get their expected verdicts; a
// Polygon package's testlib validator (with the package's testlib.h)
// accepts its tests.
func TestImportValidationRealJudge(t *testing.T) {
	env := startBrowserStack(t, 1)
	api := adminAPI(t, env.base, env.logins["admin"])
	imp := importer(api)

	st, m, raw := imp(validatedPackage(map[string]string{"plus/data/secret/02.in": "0 1001\n"}), "slug", "plus")
	if st != http.StatusBadRequest || !strings.Contains(errMessage(m), "input data/secret/02.in: 0 1001: outside [0, 1000] (input validator input_validators/range/range.cpp)") {
		t.Fatalf("an input out of range: %d %s", st, raw)
	}
	st, m, raw = imp(validatedPackage(map[string]string{"plus/input_validators/range/range.cpp": "int main( {\n"}), "slug", "plus")
	if st != http.StatusBadRequest || !strings.Contains(errMessage(m), "the input validator input_validators/range/range.cpp does not compile") {
		t.Fatalf("a validator that does not compile: %d %s", st, raw)
	}

	// A checktestdata script beside it, which the web node runs: an input
	// it refuses is named with its line and position.
	ctd := "INT(0, 1000) SPACE INT(0, 1000, b) NEWLINE ASSERT(b != 7)\n"
	st, m, raw = imp(validatedPackage(map[string]string{"plus/input_validators/format.ctd": ctd}), "slug", "plus")
	if st != http.StatusBadRequest || !strings.Contains(errMessage(m),
		"input data/secret/02.in: line 2, position 1: ASSERT (script line 1): the assertion is false (input validator input_validators/format.ctd)") {
		t.Fatalf("an input the checktestdata script refuses: %d %s", st, raw)
	}
	ctd = "INT(0, 1000) SPACE INT(0, 1000) NEWLINE\n"
	st, m, raw = imp(validatedPackage(map[string]string{"plus/input_validators/format.ctd": ctd}), "slug", "plus")
	if st != http.StatusCreated {
		t.Fatalf("the valid package: %d %s", st, raw)
	}
	if v, _ := m["validation"].(map[string]any); v["status"] != "valid" || v["inputs"] != float64(3) ||
		fmt.Sprint(v["validators"]) != "[input_validators/format.ctd input_validators/range/range.cpp]" {
		t.Fatalf("validation %v", m["validation"])
	}
	// The reference solutions were queued by the import: wait for their
	// verdicts.
	expectSolutions(t, api, "plus", 2)

	// A Polygon package: its testlib validator with its own testlib.h.
	st, m, raw = imp(polygonFixture(t, "standard", nil), "slug", "sum-poly")
	if v, _ := m["validation"].(map[string]any); st != http.StatusCreated || v["status"] != "valid" || v["inputs"] != float64(5) {
		t.Fatalf("the Polygon package: %d %s", st, raw)
	}
	st, m, raw = imp(polygonFixture(t, "standard", map[string]string{"tests/03": "-5 2\n"}), "slug", "sum-poly-bad")
	if st != http.StatusBadRequest || !strings.Contains(errMessage(m), "input tests/03:") || !strings.Contains(errMessage(m), "files/val.cpp") {
		t.Fatalf("a Polygon test its validator refuses: %d %s", st, raw)
	}

	// Per-group validator flags, on the same stack (a stack start is a
	// good part of a test's time).
	t.Run("group flags", func(t *testing.T) { importGroupFlags(t, api) })
	t.Run("default validator group flags", func(t *testing.T) { importDefaultValidatorFlags(t, api) })
}

// polygonFixture zips one of the Polygon fixtures of webapp/internal/polygon
// with edits.
func polygonFixture(t *testing.T, name string, edits map[string]string) []byte {
	t.Helper()
	root, _ := filepath.Abs(filepath.Join("..", "..", "..", "webapp", "internal", "polygon", "testdata", name))
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range edits {
		files[k] = v
	}
	return zipFiles(files)
}

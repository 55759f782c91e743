package server

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
)

// polygonZip zips one of the Polygon fixtures (webapp/internal/polygon/
// testdata/<name>) as Polygon exports it, with edits ("" deletes).
func polygonZip(t *testing.T, name string, edits map[string]string) []byte {
	t.Helper()
	root := filepath.Join("..", "polygon", "testdata", name)
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range edits {
		if v == "" {
			delete(files, k)
		} else {
			files[k] = []byte(v)
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w, _ := zw.Create(n)
		_, _ = w.Write(files[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rawGet is a GET whose answer is not JSON (an asset).
func (c *client) rawGet(path string) (int, map[string]string, []byte) {
	c.e.t.Helper()
	res, err := c.http.Get(c.e.ts.URL + path)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	h := map[string]string{}
	for _, k := range []string{"Content-Type", "Content-Disposition", "Content-Security-Policy", "X-Content-Type-Options", "Cache-Control"} {
		h[k] = res.Header.Get(k)
	}
	return res.StatusCode, h, b
}

func TestPolygonImport(t *testing.T) {
	blobDir := t.TempDir()
	se := newStaffEnv(t, func(c *Config) {
		b, err := blob.NewDir(blobDir)
		if err != nil {
			t.Fatal(err)
		}
		c.Blobs = b
	})
	ctx := context.Background()
	startValidatingJudge(t, se.env, byContent) // the fixtures' validators run at import

	// Refused: the answers are not in the package (Verdict does not run
	// the main solution at import); nothing is written.
	r := se.setter.importProblem(polygonZip(t, "standard", map[string]string{"tests/03.a": ""}), "sum.zip", nil, true)
	wantErr(t, r, 400, CodeValidation, "file")
	if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "invalid Polygon package: tests/03.a") {
		t.Fatalf("message %q", msg)
	}
	if n := se.count("problems"); n != 0 {
		t.Fatalf("a refused import made %d problems", n)
	}

	// The standard package: groups become subtasks, the checker the
	// special judge, the statement Markdown with its image.
	r = se.setter.importProblem(polygonZip(t, "standard", nil), "sum-of-two-7$linux.zip", [][2]string{{"visibility", "public"}}, true)
	if r.status != 201 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	var got ProblemImportJSON
	if err := json.Unmarshal([]byte(r.raw), &got); err != nil {
		t.Fatal(err)
	}
	p := got.Problem
	if p.Slug != "sum-of-two" || p.Title != "Sum of Two" || p.TimeLimitMs != 2000 || p.MemoryLimitKB != 262144 ||
		p.Mode != "ioi" || p.Checker != "special" {
		t.Errorf("problem %+v", p)
	}
	if got.Testdata.CaseCount != 5 || got.Testdata.Subtasks != 4 {
		t.Errorf("testdata %+v", got.Testdata)
	}
	// Polygon's tagged solutions are the reference solutions (main,
	// accepted, wrong-answer, time-limit-exceeded).
	if n := se.count("problem_solutions"); n != 4 {
		t.Errorf("%d reference solutions stored, want 4", n)
	}
	// What the judges download: the checker with the package's testlib.h.
	bs, _ := blob.NewDir(blobDir)
	obj, err := bs.Open(ctx, got.Testdata.Hash)
	if err != nil {
		t.Fatal(err)
	}
	zb, _ := io.ReadAll(obj)
	obj.Close()
	m, err := testpkg.Read(zb)
	if err != nil {
		t.Fatal(err)
	}
	if m.Checker != testpkg.CheckerName || !slices.Equal(m.CheckerFiles, []string{"testlib.h"}) || len(m.Subtasks) != 4 ||
		!slices.Equal(m.Subtasks[3].Depends, []string{"small"}) {
		t.Errorf("manifest %+v", m)
	}

	// A student reads the statement with the image linked where it is
	// served, and gets the image with safe headers.
	pr := se.student.do("GET", "/api/problems/sum-of-two", nil)
	st, _ := pr.body["problem"].(map[string]any)["statement"].(string)
	if !strings.Contains(st, "![sum](/api/problems/sum-of-two/assets/sum.png)") || !strings.Contains(st, "## Scoring") {
		t.Fatalf("statement:\n%s", st)
	}
	code, h, body := se.student.rawGet("/api/problems/sum-of-two/assets/sum.png")
	if code != 200 || h["Content-Type"] != "image/png" || h["Content-Disposition"] != `inline; filename=sum.png` ||
		h["Content-Security-Policy"] != assetPolicy || h["X-Content-Type-Options"] != "nosniff" || !bytes.HasPrefix(body, []byte("\x89PNG")) {
		t.Fatalf("asset: %d %v %q", code, h, body)
	}
	for _, path := range []string{"/api/problems/sum-of-two/assets/nope.png", "/api/problems/sum-of-two/assets/..%2Fproblem.xml",
		"/api/problems/nope/assets/sum.png"} {
		if code, _, _ := se.student.rawGet(path); code != 404 {
			t.Errorf("%s: %d, want 404", path, code)
		}
	}

	// File I/O: judging input-file / output-file name the problem's files.
	x, err := os.ReadFile(filepath.Join("..", "polygon", "testdata", "standard", "problem.xml"))
	if err != nil {
		t.Fatal(err)
	}
	fio := strings.Replace(string(x), `input-file="" output-file=""`, `input-file="sum.in" output-file="sum.out"`, 1)
	r = se.setter.importProblem(polygonZip(t, "standard", map[string]string{"problem.xml": fio}), "x.zip", [][2]string{{"slug", "sum-files"}}, true)
	if r.status != 201 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	if pj := r.body["problem"].(map[string]any); pj["input_file"] != "sum.in" || pj["output_file"] != "sum.out" {
		t.Errorf("file I/O: %v %v", pj["input_file"], pj["output_file"])
	}

	// The interactive package: the interactor (testlib) and checker both
	// with the package's testlib.h.
	r = se.setter.importProblem(polygonZip(t, "interactive", nil), "guess.zip", [][2]string{{"slug", "guess"}}, true)
	if r.status != 201 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	got = ProblemImportJSON{}
	if err := json.Unmarshal([]byte(r.raw), &got); err != nil {
		t.Fatal(err)
	}
	if got.Problem.Title != "Guess the Number" || got.Testdata.Subtasks != 3 || got.Problem.Checker != "special" {
		t.Errorf("import %+v", got)
	}
	obj, err = bs.Open(ctx, got.Testdata.Hash)
	if err != nil {
		t.Fatal(err)
	}
	zb, _ = io.ReadAll(obj)
	obj.Close()
	if m, err = testpkg.Read(zb); err != nil {
		t.Fatal(err)
	}
	if !m.Interactive || m.InteractorConvention != "" && m.InteractorConvention != testpkg.ConventionTestlib ||
		!slices.Equal(m.InteractorFiles, []string{"testlib.h"}) || !slices.Equal(m.CheckerFiles, []string{"testlib.h"}) {
		t.Errorf("manifest %+v", m)
	}
	if !strings.Contains(got.Problem.Statement, "## Interaction") {
		t.Errorf("statement %q", got.Problem.Statement)
	}
}

// TestStatementAssetsICPC: an ICPC package with a LaTeX statement, an
// image and attachments; a private problem's assets are hidden from
// students; attachments are downloads, an SVG cannot run script.
func TestStatementAssetsICPC(t *testing.T) {
	se := newStaffEnv(t, func(c *Config) {
		b, err := blob.NewDir(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		c.Blobs = b
	})
	pkg := map[string]string{
		"trees/problem.yaml": "name: Trees\nlimits:\n  time_limit: 1\n",
		"trees/problem_statement/problem.en.tex": "\\problemname{Trees}\nCount leaves, $n \\le 10^5$.\n\n" +
			"\\includegraphics{tree}\n\\includegraphics{logo.svg}\n\\section*{Input}\nOne tree.\n",
		"trees/problem_statement/tree.png":  "\x89PNG fake",
		"trees/problem_statement/logo.svg":  `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
		"trees/attachments/testing_tool.py": "print('hi')\n",
		"trees/attachments/page.html":       "<script>alert(1)</script>",
		"trees/attachments/read me (1).txt": "spaces",
		"trees/data/sample/1.in":            "1\n",
		"trees/data/sample/1.ans":           "1\n",
		"trees/data/secret/1.in":            "2\n",
		"trees/data/secret/1.ans":           "1\n",
	}
	r := se.setter.importProblem(zipOf(t, pkg), "trees.zip", nil, true) // private by default
	if r.status != 201 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	if n := se.count("problem_assets"); n != 5 {
		t.Fatalf("%d assets stored, want 5", n)
	}
	pr := se.setter.do("GET", "/api/problems/trees", nil)
	st, _ := pr.body["problem"].(map[string]any)["statement"].(string)
	for _, w := range []string{"Count leaves, $n \\le 10^5$.", "![tree](/api/problems/trees/assets/tree.png)", "## Input",
		"## Attachments", "[testing\\_tool.py](/api/problems/trees/assets/testing_tool.py)",
		"[read me \\(1\\).txt](/api/problems/trees/assets/read%20me%20%281%29.txt)"} {
		if !strings.Contains(st, w) {
			t.Errorf("statement lacks %q:\n%s", w, st)
		}
	}
	// Private: students get 404 for the assets as for the statement.
	if code, _, _ := se.student.rawGet("/api/problems/trees/assets/tree.png"); code != 404 {
		t.Fatalf("a student got a private problem's image: %d", code)
	}
	for _, tc := range []struct{ name, ct, disp string }{
		{"tree.png", "image/png", "inline; filename=tree.png"},
		{"logo.svg", "image/svg+xml", "attachment; filename=logo.svg"}, // opened on its own: a download
		{"testing_tool.py", "text/plain; charset=utf-8", "attachment; filename=testing_tool.py"},
		{"page.html", "application/octet-stream", "attachment; filename=page.html"},
		{"read%20me%20%281%29.txt", "text/plain; charset=utf-8", `attachment; filename="read me (1).txt"`},
	} {
		code, h, _ := se.setter.rawGet("/api/problems/trees/assets/" + tc.name)
		if code != 200 || h["Content-Type"] != tc.ct || h["Content-Disposition"] != tc.disp ||
			!strings.Contains(h["Content-Security-Policy"], "sandbox") || !strings.Contains(h["Content-Security-Policy"], "default-src 'none'") {
			t.Errorf("%s: %d %v", tc.name, code, h)
		}
	}
	// Public now: the student sees them.
	if r := se.setter.do("PUT", "/api/problems/trees", map[string]any{"visibility": "public"}, "X-CSRF-Token", se.setter.csrf); r.status != 200 {
		t.Fatalf("publish: %d %s", r.status, r.raw)
	}
	if code, _, b := se.student.rawGet("/api/problems/trees/assets/testing_tool.py"); code != 200 || string(b) != "print('hi')\n" {
		t.Fatalf("attachment: %d %q", code, b)
	}
}

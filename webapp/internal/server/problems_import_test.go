package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// importProblem posts an ICPC package to /api/problems/import as the
// multipart field file (named fileName), then the given form fields (in
// that order: the handler must not depend on the order). Without csrf the
// X-CSRF-Token header is left out.
func (c *client) importProblem(zipBytes []byte, fileName string, fields [][2]string, csrf bool) resp {
	c.e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if zipBytes != nil {
		fw, _ := mw.CreateFormFile("file", fileName)
		_, _ = fw.Write(zipBytes)
	}
	for _, f := range fields {
		_ = mw.WriteField(f[0], f[1])
	}
	_ = mw.Close()
	req, err := http.NewRequest("POST", c.e.ts.URL+"/api/problems/import", &buf)
	if err != nil {
		c.e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if csrf {
		req.Header.Set("X-CSRF-Token", c.csrf)
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := resp{status: res.StatusCode, header: res.Header, raw: string(raw)}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

// icpcPassFail is a pass-fail ICPC package zipped with its directory, as
// `zip -r hello.zip hello/` makes it.
func icpcPassFail() map[string]string {
	return map[string]string{
		"Hello_World/problem.yaml":                    "name: Hello Sum\nlimits:\n  memory: 256\nvalidator_flags: float_tolerance 1e-6\n",
		"Hello_World/.timelimit":                      "2\n",
		"Hello_World/problem_statement/problem.en.md": "# Sum\n\nAdd $a+b$.\n",
		"Hello_World/data/sample/1.in":                "1 2\n",
		"Hello_World/data/sample/1.ans":               "3\n",
		"Hello_World/data/secret/01.in":               "0 0\n",
		"Hello_World/data/secret/01.ans":              "0\n",
		"Hello_World/data/secret/02.in":               "100 200\n",
		"Hello_World/data/secret/02.ans":              "300\n",
		"Hello_World/input_validators/validate.ctd":   "INT(0, 1000) SPACE INT(0, 1000) NEWLINE",
	}
}

// icpcScoring is a scoring package without a directory or time limit.
func icpcScoring() map[string]string {
	return map[string]string{
		"problem.yaml":                     "name:\n  sv: Poäng\n  en: Points\ntype: scoring\n",
		"statement/problem.md":             "Score points.",
		"data/sample/1.in":                 "s",
		"data/sample/1.ans":                "s",
		"data/secret/group1/testdata.yaml": "score: 30\n",
		"data/secret/group1/a.in":          "1",
		"data/secret/group1/a.ans":         "1",
		"data/secret/group2/testdata.yaml": "score: 70\n",
		"data/secret/group2/b.in":          "2",
		"data/secret/group2/b.ans":         "2",
		"data/secret/group2/c.in":          "3",
		"data/secret/group2/c.ans":         "3",
	}
}

func withFiles(base map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// blobCount counts the files under a blob.Dir's root.
func blobCount(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestProblemImport(t *testing.T) {
	blobDir := t.TempDir()
	se := newStaffEnv(t, func(c *Config) {
		c.MaxTestdataBytes = 64 << 10
		b, err := blob.NewDir(blobDir)
		if err != nil {
			t.Fatal(err)
		}
		c.Blobs = b
	})
	ctx := context.Background()
	good := zipOf(t, icpcPassFail())
	nothingWritten := func(t *testing.T) {
		t.Helper()
		if p, v, b := se.count("problems"), se.count("testdata_versions"), blobCount(t, blobDir); p != 0 || v != 0 || b != 0 {
			t.Fatalf("a refused import wrote %d problems, %d versions, %d blobs", p, v, b)
		}
	}

	// Access: staff only, and the CSRF token like every cookie write.
	wantErr(t, se.client().importProblem(good, "hello.zip", nil, false), 401, CodeUnauthorized, "")
	wantErr(t, se.student.importProblem(good, "hello.zip", nil, true), 403, CodeForbidden, "")
	wantErr(t, se.setter.importProblem(good, "hello.zip", nil, false), 403, CodeCSRF, "")
	nothingWritten(t)

	for _, tc := range []struct {
		name, fileName string
		zip            []byte
		fields         [][2]string
		status         int
		code, field    string
		msg            string // the message must contain it
	}{
		{"not a zip", "x.zip", []byte("hello"), nil, 400, CodeValidation, "file", "not a zip"},
		{"score validator", "x.zip", zipOf(t, withFiles(icpcPassFail(), "Hello_World/output_validators/v/validate.cc", "int main(){}",
			"Hello_World/problem.yaml", "validation: custom score\n")), nil, 400, CodeValidation, "file", "score.txt"},
		{"custom validation without a validator", "x.zip", zipOf(t, withFiles(icpcPassFail(), "Hello_World/problem.yaml", "validation: custom\n")),
			nil, 400, CodeValidation, "file", "problem.yaml"},
		{"missing answer", "x.zip", zipOf(t, map[string]string{"data/secret/1.in": "1"}), [][2]string{{"slug", "x"}},
			400, CodeValidation, "file", "data/secret/1.in"},
		{"time limit too long", "x.zip", zipOf(t, withFiles(icpcPassFail(), "Hello_World/.timelimit", "100")),
			nil, 400, CodeValidation, "file", "time limit, 100000 ms"},
		{"memory limit too large", "x.zip", zipOf(t, withFiles(icpcPassFail(), "Hello_World/problem.yaml", "limits:\n  memory: 16384\n")),
			nil, 400, CodeValidation, "file", "memory limit"},
		{"title too long", "x.zip", zipOf(t, withFiles(icpcPassFail(), "Hello_World/problem.yaml", "name: "+strings.Repeat("n", 201)+"\n")),
			nil, 400, CodeValidation, "file", "title"},
		{"no file", "", nil, [][2]string{{"slug", "x"}}, 400, CodeValidation, "file", "required"},
		{"an input its checktestdata script refuses", "x.zip", zipOf(t, withFiles(icpcPassFail(), "Hello_World/data/secret/02.in", "100 2000\n")), nil,
			400, CodeValidation, "file", "input validation refused the package: input data/secret/02.in: line 1, position 5: INT (script line 1): " +
				"2000 is out of range [0, 1000] (input validator input_validators/validate.ctd)"},
		{"a checktestdata script that does not parse", "x.zip", zipOf(t, withFiles(icpcPassFail(), "Hello_World/input_validators/validate.ctd", "INT(0, 1000\n")), nil,
			400, CodeValidation, "file", "input_validators/validate.ctd: line 2, column 1: expected \")\""},
		{"empty file", "x.zip", []byte{}, nil, 400, CodeValidation, "file", "empty"},
		{"too large", "x.zip", make([]byte, 70<<10), nil, 413, CodeTooLarge, "file", "larger"},
		{"bad slug", "x.zip", good, [][2]string{{"slug", "Hello!"}}, 400, CodeValidation, "slug", "a-z"},
		{"bad visibility", "x.zip", good, [][2]string{{"visibility", "everyone"}}, 400, CodeValidation, "visibility", "public"},
		{"bad language", "x.zip", good, [][2]string{{"languages", "cpp17,C++"}}, 400, CodeValidation, "languages", "C++"},
		{"unknown field", "x.zip", good, [][2]string{{"title", "T"}}, 400, CodeValidation, "title", "not a field"},
		{"slug twice", "x.zip", good, [][2]string{{"slug", "a"}, {"slug", "b"}}, 400, CodeValidation, "slug", "twice"},
		{"no slug to derive", "___.zip", zipOf(t, icpcScoring()), nil, 400, CodeValidation, "slug", "required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := se.setter.importProblem(tc.zip, tc.fileName, tc.fields, true)
			wantErr(t, r, tc.status, tc.code, tc.field)
			if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, tc.msg) {
				t.Fatalf("message %q does not mention %q", msg, tc.msg)
			}
			nothingWritten(t)
		})
	}
	r := se.setter.do("POST", "/api/problems/import", map[string]string{"slug": "x"}, "X-CSRF-Token", se.setter.csrf)
	wantErr(t, r, 415, CodeUnsupportedMedia, "")
	nothingWritten(t)

	// A pass-fail package: the slug from its directory, the fields after
	// the file.
	r = se.setter.importProblem(good, "whatever.zip", [][2]string{{"visibility", "public"}, {"languages", "cpp17, py3"}}, true)
	if r.status != 201 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	var got ProblemImportJSON
	if err := json.Unmarshal([]byte(r.raw), &got); err != nil {
		t.Fatal(err)
	}
	p := got.Problem
	if p.Slug != "hello-world" || p.Title != "Hello Sum" || !strings.HasPrefix(p.Statement, "# Sum") || p.TimeLimitMs != 2000 ||
		p.MemoryLimitKB != 256*1024 || p.Checker != store.CheckerICPC || p.FloatTolerance != 0 || p.Mode != store.ModeICPC ||
		p.Visibility != store.VisibilityPublic || strings.Join(p.Languages, ",") != "cpp17,py3" {
		t.Fatalf("problem = %+v", p)
	}
	if got.Testdata.CaseCount != 3 || got.Testdata.Subtasks != 0 || got.Testdata.Checker || p.TestdataHash != got.Testdata.Hash {
		t.Fatalf("testdata = %+v (problem hash %q)", got.Testdata, p.TestdataHash)
	}
	if v := got.Validation; v.Status != ValidationValid || !slices.Equal(v.Validators, []string{"input_validators/validate.ctd"}) || v.Inputs != 3 {
		t.Fatalf("validation %+v: the checktestdata script checked every input", v)
	}
	// The blob is a Verdict package: samples first, then secret, in path order.
	obj, err := se.srv.cfg.Blobs.Open(ctx, got.Testdata.Hash)
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := io.ReadAll(obj)
	obj.Close()
	if sum := sha256.Sum256(stored); hex.EncodeToString(sum[:]) != got.Testdata.Hash || int64(len(stored)) != got.Testdata.SizeBytes {
		t.Fatal("the blob's hash or size differs from the answer")
	}
	m, err := testpkg.Read(stored)
	if err != nil || len(m.Cases) != 3 {
		t.Fatalf("stored package: %+v, %v", m, err)
	}
	sp, _ := se.st.ProblemBySlug(ctx, "hello-world")
	vs, _ := se.st.TestdataVersions(ctx, sp.ID)
	if sp.TestdataHash.String != got.Testdata.Hash || !sp.CreatedBy.Valid || len(vs) != 1 || vs[0].CaseCount != 3 || !vs[0].UploadedBy.Valid {
		t.Fatalf("stored problem %+v, versions %+v", sp, vs)
	}
	// The cached public list is invalidated.
	if r := se.client().call("GET", "/api/problems", nil); !strings.Contains(r.raw, `"slug":"hello-world"`) {
		t.Fatalf("public list after the import: %s", r.raw)
	}

	// A scoring package: IOI mode and a subtask per group, default time limit.
	r = se.admin.importProblem(zipOf(t, icpcScoring()), "scoring.zip", [][2]string{{"slug", " points "}}, true)
	if r.status != 201 {
		t.Fatalf("import scoring: %d %s", r.status, r.raw)
	}
	_ = json.Unmarshal([]byte(r.raw), &got)
	p = got.Problem
	if p.Slug != "points" || p.Title != "Points" || p.Mode != store.ModeIOI || p.TimeLimitMs != 1000 || p.MemoryLimitKB != 262144 ||
		p.Visibility != store.VisibilityPrivate || len(p.Languages) != 0 || p.Checker != store.CheckerICPC {
		t.Fatalf("scoring problem = %+v", p)
	}
	if got.Testdata.CaseCount != 4 || got.Testdata.Subtasks != 3 {
		t.Fatalf("scoring testdata = %+v", got.Testdata)
	}
	if notes := strings.Join(got.Notes, "\n"); !strings.Contains(notes, "default 1000 ms") {
		t.Fatalf("notes %q do not say the time limit is the default", got.Notes)
	}
	sp, _ = se.st.ProblemBySlug(ctx, "points")
	vs, _ = se.st.TestdataVersions(ctx, sp.ID)
	var man testpkg.Manifest
	if len(vs) != 1 || json.Unmarshal(vs[0].Manifest, &man) != nil {
		t.Fatalf("versions %+v", vs)
	}
	var pts []int
	for _, st := range man.Subtasks {
		pts = append(pts, st.Points)
	}
	if len(pts) != 3 || pts[0] != 0 || pts[1] != 30 || pts[2] != 70 {
		t.Fatalf("subtask points %v, want [0 30 70]", pts)
	}

	// Duplicate slugs, given or derived: 409 on slug, nothing more written.
	problems, versions := se.count("problems"), se.count("testdata_versions")
	wantErr(t, se.setter.importProblem(good, "hello.zip", nil, true), 409, CodeConflict, "slug")
	wantErr(t, se.setter.importProblem(zipOf(t, icpcScoring()), "x.zip", [][2]string{{"slug", "points"}}, true), 409, CodeConflict, "slug")
	if se.count("problems") != problems || se.count("testdata_versions") != versions {
		t.Fatal("a refused duplicate wrote rows")
	}

	// No directory in the zip: the slug comes from the file's name; no
	// name in the package: the title is the slug.
	r = se.setter.importProblem(zipOf(t, map[string]string{"data/secret/1.in": "1", "data/secret/1.ans": "1"}),
		`C:\fakepath\My_Problem v2.zip`, nil, true)
	if r.status != 201 {
		t.Fatalf("import without a directory: %d %s", r.status, r.raw)
	}
	_ = json.Unmarshal([]byte(r.raw), &got)
	if got.Problem.Slug != "my-problem-v2" || got.Problem.Title != "my-problem-v2" {
		t.Fatalf("slug %q title %q, want my-problem-v2 from the file name", got.Problem.Slug, got.Problem.Title)
	}

	// A problem may be called "import": its own routes still reach it.
	if r := se.setter.call("POST", "/api/problems", map[string]any{"slug": "import", "title": "Import"}); r.status != 201 {
		t.Fatalf("create a problem named import: %d %s", r.status, r.raw)
	}
	if r := se.setter.call("GET", "/api/problems/import", nil); r.status != 200 || r.body["problem"].(map[string]any)["slug"] != "import" {
		t.Fatalf("GET /api/problems/import: %d %s", r.status, r.raw)
	}
	if r := se.setter.upload("/api/problems/import/testdata", "file", buildPkg(t, 1, false), ""); r.status != 201 {
		t.Fatalf("upload to the problem named import: %d %s", r.status, r.raw)
	}
}

// TestProblemImportIsAnUpload: the import route gets the upload's body
// limit and deadline, not the JSON API's.
func TestProblemImportIsAnUpload(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.RequestTimeout, c.UploadTimeout, c.MaxTestdataBytes, c.MaxBodyBytes = time.Second, time.Hour, 32<<20, 1<<20
	})
	for _, tc := range []struct {
		method, path string
		upload       bool
	}{
		{"POST", "/api/problems/import", true},
		{"POST", "/api/problems/sum/testdata", true},
		{"POST", "/api/problems", false},
		{"GET", "/api/problems/import", false},
		{"PUT", "/api/problems/import", false},
	} {
		r, _ := http.NewRequest(tc.method, "http://x"+tc.path, nil)
		var left time.Duration
		e.srv.deadline(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			d, _ := r.Context().Deadline()
			left = time.Until(d)
		})).ServeHTTP(nil, r)
		limit := e.srv.bodyLimit(r)
		if tc.upload && (left < 50*time.Minute || limit != 32<<20+multipartSlack) {
			t.Errorf("%s %s: deadline in %v, body limit %d; want the upload's", tc.method, tc.path, left, limit)
		}
		if !tc.upload && (left > 2*time.Second || limit != 1<<20) {
			t.Errorf("%s %s: deadline in %v, body limit %d; want the API's", tc.method, tc.path, left, limit)
		}
	}
}

func TestSlugFrom(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"hello", "hello"},
		{"Hello_World", "hello-world"},
		{"  --a..b--  ", "a-b"},
		{"My Problem (v2)", "my-problem-v2"},
		{"Poäng", "po-ng"},
		{"___", ""},
		{"", ""},
		{strings.Repeat("ab", 40), strings.Repeat("ab", 32)},
		{strings.Repeat("a", 63) + "_b", strings.Repeat("a", 63)},
	} {
		got := slugFrom(tc.in)
		if got != tc.want {
			t.Errorf("slugFrom(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got != "" && !validSlug(got) {
			t.Errorf("slugFrom(%q) = %q is not a valid slug", tc.in, got)
		}
	}
}

package server

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// staffOf logs in a new staff member of je.
func (je *judgeEnv) staffOf(name string) *client {
	je.t.Helper()
	je.user(name, store.RoleAdmin, name+"-password")
	c := je.client()
	if r := c.login(name, name+"-password"); r.status != 200 {
		je.t.Fatalf("login %s: %d %s", name, r.status, r.raw)
	}
	return c
}

// taskOf is the queued task of a submission (what the hub sends a judge).
func (je *judgeEnv) taskOf(id int64) protocol.Task {
	je.t.Helper()
	payload, err := je.rdb.HGet(context.Background(), je.names.Task(id), "payload").Result()
	if err != nil {
		je.t.Fatal(err)
	}
	var task protocol.Task
	if err := json.Unmarshal([]byte(payload), &task); err != nil {
		je.t.Fatalf("task payload %q: %v", payload, err)
	}
	return task
}

// TestFileIOSettings: a problem's input and output file names are set
// through the API (checked, each error naming its field), shown with the
// problem, and carried by its tasks to the judges.
func TestFileIOSettings(t *testing.T) {
	je := newJudgeEnv(t, nil)
	admin := je.staffOf("setter")
	put := func(body map[string]any) resp {
		return admin.do("PUT", "/api/problems/a-plus-b", body, "X-CSRF-Token", admin.csrf)
	}
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"input_file": "../etc/passwd"}, "input_file"},
		{map[string]any{"input_file": ".hidden"}, "input_file"},
		{map[string]any{"output_file": strings.Repeat("x", 65)}, "output_file"},
		{map[string]any{"input_file": "io.txt", "output_file": "io.txt"}, "output_file"},
		{map[string]any{"output_only": true, "output_file": "out.txt"}, "output_only"},
	} {
		wantErr(t, put(tc.body), http.StatusBadRequest, CodeValidation, tc.field)
	}
	r := put(map[string]any{"input_file": "input.txt", "output_file": "output.txt"})
	if r.status != 200 || !jsonContains(r.raw, `"input_file":"input.txt"`) {
		t.Fatalf("put: %d %s", r.status, r.raw)
	}
	alice := je.student("alice")
	view := alice.do("GET", "/api/problems/a-plus-b", nil)
	if !jsonContains(view.raw, `"input_file":"input.txt"`) || !jsonContains(view.raw, `"output_file":"output.txt"`) || !jsonContains(view.raw, `"output_only":false`) {
		t.Fatalf("problem view lacks the file names: %s", view.raw)
	}
	sub := alice.submit("k1", map[string]string{"problem": "a-plus-b", "language": "cpp17", "source": "int main(){}"})
	if sub.status != http.StatusCreated {
		t.Fatalf("submit: %d %s", sub.status, sub.raw)
	}
	task := je.taskOf(id(sub))
	if task.IO == nil || *task.IO != (protocol.FileIO{InputFile: "input.txt", OutputFile: "output.txt"}) {
		t.Fatalf("task io %+v", task.IO)
	}
	// Back to stdin / stdout: the tasks carry no io.
	if r := put(map[string]any{"input_file": "", "output_file": ""}); r.status != 200 {
		t.Fatalf("put: %d %s", r.status, r.raw)
	}
	sub = alice.submit("k2", map[string]string{"problem": "a-plus-b", "language": "cpp17", "source": "int main(){}"})
	if task := je.taskOf(id(sub)); task.IO != nil {
		t.Fatalf("task io %+v, want none", task.IO)
	}
}

// outputsPost posts an output-only submission: fields, then files
// (field name → content).
func (c *client) outputsPost(key string, fields [][2]string, files [][2]string) resp {
	c.e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		_ = mw.WriteField(f[0], f[1])
	}
	for _, f := range files {
		fw, _ := mw.CreateFormFile(f[0], f[0]+".bin")
		_, _ = fw.Write([]byte(f[1]))
	}
	_ = mw.Close()
	req, _ := http.NewRequest("POST", c.e.ts.URL+"/api/submissions/outputs", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("X-CSRF-Token", c.csrf)
	if key != "" {
		req.Header.Set(IdempotencyHeader, key)
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

func zipBytesOf(t *testing.T, files map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(data))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestOutputOnlySubmit: an output-only problem takes a zip of outputs
// (or one field per case); the task carries them to the judges (language
// outputs, no program). A bad zip, an entry naming no case, a case the
// problem lacks, a case given twice and outputs past the bound are 400s
// naming the field; a program cannot be submitted to it, nor outputs to
// another problem; the capability is never offered as a language.
func TestOutputOnlySubmit(t *testing.T) {
	je := newJudgeEnv(t, nil)
	admin := je.staffOf("setter")
	if r := admin.do("PUT", "/api/problems/a-plus-b", map[string]any{"output_only": true}, "X-CSRF-Token", admin.csrf); r.status != 200 ||
		!jsonContains(r.raw, `"output_only":true`) {
		t.Fatalf("put: %d %s", r.status, r.raw)
	}
	alice := je.student("alice")
	problem := [][2]string{{"problem", "a-plus-b"}}
	r := alice.outputsPost("o1", problem, [][2]string{{"file", zipBytesOf(t, map[string]string{"out/1.out": "0\n", "out/2.out": "2\n", "output03.txt": "4\n"})}})
	if r.status != http.StatusCreated {
		t.Fatalf("zip: %d %s", r.status, r.raw)
	}
	task := je.taskOf(id(r))
	outs, err := protocol.DecodeOutputs(task.Source)
	if err != nil || task.Language != protocol.LanguageOutputs || task.IO != nil || len(outs.Files) != 3 {
		t.Fatalf("task %+v: %v", task, err)
	}
	if b, _ := outs.Of(3); string(b) != "4\n" {
		t.Fatalf("case 3: %q", b)
	}
	if err := task.Validate(); err != nil {
		t.Fatal(err)
	}
	// One case at a time, as fields; a missing case is the judge's WA.
	r = alice.outputsPost("o2", problem, [][2]string{{"case_2", "2\n"}})
	if r.status != http.StatusCreated {
		t.Fatalf("case field: %d %s", r.status, r.raw)
	}
	if outs, _ := protocol.DecodeOutputs(je.taskOf(id(r)).Source); len(outs.Files) != 1 || outs.Files[0].Case != 2 {
		t.Fatalf("case field: %+v", outs)
	}
	// The same key: the same submission.
	if again := alice.outputsPost("o2", problem, [][2]string{{"case_2", "2\n"}}); again.status != 200 || id(again) != id(r) {
		t.Fatalf("retry: %d %s", again.status, again.raw)
	}

	for _, tc := range []struct {
		name   string
		fields [][2]string
		files  [][2]string
		status int
		field  string
		msg    string
	}{
		{"bad zip", problem, [][2]string{{"file", "PK not a zip"}}, 400, "file", "not a zip file"},
		{"no case", problem, [][2]string{{"file", zipBytesOf(t, map[string]string{"answer.txt": "1"})}}, 400, "file", "names no case"},
		{"case out of range", problem, [][2]string{{"file", zipBytesOf(t, map[string]string{"4.out": "1"})}}, 400, "file", "cases 1 to 3"},
		{"twice", problem, [][2]string{{"file", zipBytesOf(t, map[string]string{"1.out": "1"})}, {"case_1", "1"}}, 400, "case_1", "twice"},
		{"bad case field", problem, [][2]string{{"case_x", "1"}}, 400, "case_x", "not a case field"},
		{"nothing", problem, nil, 400, "file", "is required"},
		{"no problem", nil, [][2]string{{"case_1", "1"}}, 400, "problem", "is required"},
		{"unknown field", append(problem, [2]string{"language", "cpp17"}), [][2]string{{"case_1", "1"}}, 400, "language", "not a field"},
		{"too big", problem, [][2]string{{"case_1", strings.Repeat("9", protocol.MaxOutputsBytes+1)}}, 413, "case_1", "larger than"},
	} {
		r := alice.outputsPost("bad-"+strings.ReplaceAll(tc.name, " ", "-"), tc.fields, tc.files)
		code := CodeValidation
		if tc.status == 413 {
			code = CodeTooLarge
		}
		wantErr(t, r, tc.status, code, tc.field)
		if !strings.Contains(r.raw, tc.msg) {
			t.Errorf("%s: %s does not say %q", tc.name, r.raw, tc.msg)
		}
	}
	wantErr(t, alice.submit("p1", map[string]string{"problem": "a-plus-b", "language": "cpp17", "source": "int main(){}"}),
		400, CodeValidation, "language")
	cr := alice.do("POST", "/api/custom-runs", map[string]any{"problem": "a-plus-b", "language": "cpp17", "source": "int main(){}", "input": "1 2\n"},
		"X-CSRF-Token", alice.csrf)
	wantErr(t, cr, 400, CodeValidation, "problem")
	if !strings.Contains(cr.raw, "output-only") {
		t.Errorf("custom run: %s", cr.raw)
	}

	je.addProblem("other", store.VisibilityPublic, 2)
	wantErr(t, alice.outputsPost("o3", [][2]string{{"problem", "other"}}, [][2]string{{"case_1", "0"}}), 400, CodeValidation, "language")

	je.judgeAlive("judge-1", `[{"id":"cpp17","version":"g++"},{"id":"outputs","version":"verdict"},{"id":"testlib","version":"sha256:00"}]`)
	langs := alice.do("GET", "/api/languages", nil)
	if langs.status != 200 || jsonContains(langs.raw, `"outputs"`) || jsonContains(langs.raw, `"testlib"`) || !jsonContains(langs.raw, `"cpp17"`) {
		t.Fatalf("languages: %s", langs.raw)
	}
}

// refPkg is an ICPC package with reference solutions in every directory
// Verdict reads.
func refPkg() map[string]string {
	p := icpcPassFail()
	p["Hello_World/submissions/accepted/sum.py"] = "print(sum(map(int, input().split())))\n"
	p["Hello_World/submissions/accepted/sum.cpp"] = "#include <cstdio>\nint main(){int a,b;std::scanf(\"%d%d\",&a,&b);std::printf(\"%d\\n\",a+b);}\n"
	p["Hello_World/submissions/wrong_answer/zero.py"] = "print(0)\n"
	p["Hello_World/submissions/time_limit_exceeded/loop.py"] = "while True: pass\n"
	return p
}

// TestReferenceSolutions: an import stores the package's reference
// solutions; staff run them (one practice submission each, on the
// current test data, in a language a judge offers) and the list shows
// whether each got its expected verdict. Students cannot see them.
func TestReferenceSolutions(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	if err := je.q.EnsureResultsGroup(ctx); err != nil {
		t.Fatal(err)
	}
	admin := je.staffOf("setter")
	imp := admin.importProblem(zipOf(t, refPkg()), "hello.zip", nil, true)
	if imp.status != http.StatusCreated || !strings.Contains(imp.raw, "4 reference solutions imported") {
		t.Fatalf("import: %d %s", imp.status, imp.raw)
	}
	slug := "hello-world"
	// The import ran them at once (a judge is connected); staff run them
	// again below.
	list := admin.do("GET", "/api/problems/"+slug+"/solutions", nil)
	if list.status != 200 || strings.Count(list.raw, `"state":"running"`) != 4 || !jsonContains(list.raw, `"ok":false`) ||
		strings.Count(imp.raw, `"state":"running"`) != 4 {
		t.Fatalf("list: %d %s (import: %s)", list.status, list.raw, imp.raw)
	}
	alice := je.student("alice")
	wantErr(t, alice.do("GET", "/api/problems/"+slug+"/solutions", nil), 403, CodeForbidden, "")
	wantErr(t, alice.do("POST", "/api/problems/"+slug+"/solutions/run", nil, "X-CSRF-Token", alice.csrf), 403, CodeForbidden, "")

	run := admin.do("POST", "/api/problems/"+slug+"/solutions/run", nil, "X-CSRF-Token", admin.csrf)
	if run.status != http.StatusAccepted || strings.Count(run.raw, `"state":"running"`) != 4 {
		t.Fatalf("run: %d %s", run.status, run.raw)
	}
	var got SolutionsJSON
	if err := json.Unmarshal([]byte(run.raw), &got); err != nil {
		t.Fatal(err)
	}
	// The judge: the accepted ones pass, the WA one fails, the TLE one
	// is (wrongly) accepted.
	for _, s := range got.Solutions {
		task := je.taskOf(s.SubmissionID)
		if task.Source == "" || task.Language != s.Language || task.Priority != protocol.PriorityPractice {
			t.Fatalf("%s: task %+v", s.Name, task)
		}
		v := protocol.VerdictAC
		if s.Expected == "WA" {
			v = protocol.VerdictWA
		}
		je.judge(s.SubmissionID, 1, v, 3)
	}
	for je.consume() > 0 {
	}
	list = admin.do("GET", "/api/problems/"+slug+"/solutions", nil)
	var after SolutionsJSON
	if err := json.Unmarshal([]byte(list.raw), &after); err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, s := range after.Solutions {
		states[s.Name] = s.State + " " + s.Verdict
	}
	want := map[string]string{
		"submissions/accepted/sum.cpp":            "ok AC",
		"submissions/accepted/sum.py":             "ok AC",
		"submissions/wrong_answer/zero.py":        "ok WA",
		"submissions/time_limit_exceeded/loop.py": "mismatch AC",
	}
	for k, v := range want {
		if states[k] != v {
			t.Errorf("%s: %q, want %q", k, states[k], v)
		}
	}
	if after.OK {
		t.Error("ok with a mismatch")
	}
}

// testlibPkg is an interactive ICPC package whose validator includes
// testlib.h (the header given or not).
func testlibPkg(withHeader bool) map[string]string {
	p := map[string]string{
		"guess/problem.yaml":                      "name: Guess\nvalidation: custom interactive\n",
		"guess/data/sample/1.in":                  "1 100\n",
		"guess/data/sample/1.ans":                 "37\n",
		"guess/output_validators/guess/guess.cpp": "#include \"testlib.h\"\nint main(){}\n",
	}
	if withHeader {
		p["guess/output_validators/guess/testlib.h"] = "// a package's own testlib.h\n"
	}
	return p
}

// TestImportTestlib: a package whose checker or interactor includes
// testlib.h imports when it carries its own copy, or when a live judge
// has one (it offers the testlib capability); otherwise it is refused
// with a message saying what to do.
func TestImportTestlib(t *testing.T) {
	je := newJudgeEnv(t, nil)
	admin := je.staffOf("setter")
	r := admin.importProblem(zipOf(t, testlibPkg(false)), "guess.zip", [][2]string{{"slug", "g1"}}, true)
	wantErr(t, r, 400, CodeValidation, "file")
	if !strings.Contains(r.raw, "includes testlib.h") || !strings.Contains(r.raw, "--testlib-dir") {
		t.Fatalf("refusal: %s", r.raw)
	}
	if r := admin.importProblem(zipOf(t, testlibPkg(true)), "guess.zip", [][2]string{{"slug", "g2"}}, true); r.status != 201 {
		t.Fatalf("own header: %d %s", r.status, r.raw)
	}
	// A test data upload with such a checker, the same.
	if r := admin.do("PUT", "/api/problems/a-plus-b", map[string]any{"checker": "special"}, "X-CSRF-Token", admin.csrf); r.status != 200 {
		t.Fatalf("put: %d %s", r.status, r.raw)
	}
	spj, _, err := testpkg.Package{Cases: []testpkg.Case{{In: []byte("1"), Ans: []byte("1")}}, Checker: []byte("#include <testlib.h>\nint main(){}\n")}.Build()
	if err != nil {
		t.Fatal(err)
	}
	r = admin.upload("/api/problems/a-plus-b/testdata", "file", spj, "")
	wantErr(t, r, 400, CodeValidation, "file")
	if !strings.Contains(r.raw, "checker.cpp includes testlib.h") {
		t.Fatalf("upload refusal: %s", r.raw)
	}

	je.judgeAlive("judge-1", `[{"id":"cpp17","version":"g++"},{"id":"testlib","version":"sha256:0123"}]`)
	if r := admin.importProblem(zipOf(t, testlibPkg(false)), "guess.zip", [][2]string{{"slug", "g3"}}, true); r.status != 201 {
		t.Fatalf("judge's header: %d %s", r.status, r.raw)
	}
	if r := admin.upload("/api/problems/a-plus-b/testdata", "file", spj, ""); r.status != 201 {
		t.Fatalf("upload with the judges' header: %d %s", r.status, r.raw)
	}
}

// TestImportCustomValidator: an ICPC package with custom validation
// imports as a problem with a special checker; its test data package
// carries the validator in the Kattis convention, its headers and flags.
func TestImportCustomValidator(t *testing.T) {
	je := newJudgeEnv(t, nil)
	admin := je.staffOf("setter")
	pkg := withFiles(icpcPassFail(), "Hello_World/problem.yaml", "name: Sum\nvalidation: custom\nvalidator_flags: lenient\n",
		"Hello_World/output_validators/sum/sum.c", "int main(void){return 42;}\n",
		"Hello_World/output_validators/sum/util.h", "\n")
	r := admin.importProblem(zipOf(t, pkg), "hello.zip", nil, true)
	if r.status != http.StatusCreated || !jsonContains(r.raw, `"checker":"special"`) || !strings.Contains(r.raw, "is the checker (Kattis convention") {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	var vs []store.TestdataVersion
	p, err := je.st.ProblemBySlug(context.Background(), "hello-world")
	if err == nil {
		vs, err = je.st.TestdataVersions(context.Background(), p.ID)
	}
	if err != nil || len(vs) != 1 {
		t.Fatalf("versions %v %v", vs, err)
	}
	for _, want := range []string{`"checker":"checker.c"`, `"checker_convention":"kattis"`, `"checker_files":["util.h"]`, `"checker_args":["lenient"]`} {
		if !jsonContains(string(vs[0].Manifest), want) {
			t.Errorf("manifest %s lacks %s", vs[0].Manifest, want)
		}
	}
}

package server

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/judgestate"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// validatingJudge plays a connected judge for input validations through
// the real queue: it keeps a live judge state (C and C++), leases each
// validation task and completes it with what rule says of the task and
// the inputs of its test data (read from the blob store, as a judge
// downloads them). Every task it saw is kept. Stopped at the test's end.
type validatingJudge struct {
	mu    sync.Mutex
	tasks []protocol.Task
}

func startValidatingJudge(t *testing.T, e *env, rule func(task protocol.Task, inputs [][]byte) protocol.Result, caps ...string) *validatingJudge {
	t.Helper()
	q, err := queue.New(queue.Config{Client: e.rdb, Names: e.names})
	if err != nil {
		t.Fatal(err)
	}
	vj := &validatingJudge{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	alive := func() {
		liveJudgeState(t, e, "judge-v", append([]string{protocol.CapabilityInputValidation}, caps...)...)
	}
	alive()
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			alive()
			qs, err := q.Peek(ctx, 20)
			if err != nil {
				if ctx.Err() == nil {
					// Said, so that a test whose import timed out shows why
					// its judge never got to the task.
					t.Logf("the validating judge's peek: %v", err)
				}
				pause(ctx)
				continue
			}
			for _, x := range qs {
				task := x.Task
				if task.Validation == nil {
					continue
				}
				if _, err := q.Lease(ctx, task.TaskRef, "judge-v", time.Minute); err != nil {
					if ctx.Err() == nil {
						t.Logf("the validating judge's lease of %d: %v", task.SubmissionID, err)
					}
					continue
				}
				vj.mu.Lock()
				vj.tasks = append(vj.tasks, task)
				vj.mu.Unlock()
				obj, err := e.srv.cfg.Blobs.Open(ctx, task.TestData.Hash)
				if err != nil {
					t.Errorf("the judge cannot download %s: %v", task.TestData.Hash, err)
					continue
				}
				b, _ := io.ReadAll(obj)
				obj.Close()
				zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
				if err != nil {
					t.Error(err)
					continue
				}
				var inputs [][]byte
				for i := 1; ; i++ {
					f, err := zr.Open(fmt.Sprintf("%d.in", i))
					if err != nil {
						break
					}
					in, _ := io.ReadAll(f)
					f.Close()
					inputs = append(inputs, in)
				}
				res := rule(task, inputs)
				if res.Verdict == "" {
					continue // never answered
				}
				res.TaskRef, res.JudgeID = task.TaskRef, "judge-v"
				if res.Cases == nil {
					res.Cases = []protocol.CaseResult{}
				}
				if _, err := q.Complete(ctx, "judge-v", res); err != nil {
					t.Errorf("complete: %v", err)
				} else {
					t.Logf("the validating judge completed %d: %s", task.SubmissionID, res.Verdict)
				}
			}
			pause(ctx)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return vj
}

// liveJudgeState makes name a live judge (a token, rkeys.JudgeTokens, and
// a recent state) offering C, C++ and Python, with the capabilities
// given (none: a judge older than them).
func liveJudgeState(t *testing.T, e *env, name string, caps ...string) {
	t.Helper()
	ctx := context.Background()
	sum := sha256.Sum256([]byte(name + "-token"))
	if err := e.st.SetJudgeToken(ctx, name, sum[:]); err != nil {
		t.Fatal(err)
	}
	e.rdb.HSet(ctx, e.names.JudgeTokens(), hex.EncodeToString(sum[:]), name)
	e.rdb.HSet(ctx, e.names.Judge(name), "hub", "hub-1", "cores", 2, "running", 0,
		judging.FieldSeenMs, time.Now().UnixMilli(), judging.FieldLanguages,
		`[{"id":"cpp17","version":"g++"},{"id":"c17","version":"gcc"},{"id":"py3","version":"3"}]`,
		judgestate.FieldCapabilities, strings.Join(caps, " "))
}

// pause waits the validating judge's 50 ms between two looks at the
// queue, or until ctx ends.
func pause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(50 * time.Millisecond):
	}
}

func (vj *validatingJudge) seen() []protocol.Task {
	vj.mu.Lock()
	defer vj.mu.Unlock()
	return append([]protocol.Task(nil), vj.tasks...)
}

// byContent validates like the fixtures' validators would: an input
// holding "BAD" is refused, a validator holding "#error" does not
// compile, one holding "SILENT" is never answered.
func byContent(task protocol.Task, inputs [][]byte) protocol.Result {
	switch {
	case strings.Contains(task.Validation.Source, "SILENT"):
		return protocol.Result{}
	case strings.Contains(task.Validation.Source, "#error"):
		return protocol.Result{Verdict: protocol.VerdictCE, CompileMessage: "does not compile: validator.cpp:1:2: error: #error broken"}
	}
	res := protocol.Result{Verdict: protocol.VerdictAC}
	for i, in := range inputs {
		o := protocol.CustomOutput{Case: i + 1, Verdict: protocol.VerdictAC, ExitCode: protocol.KattisValid}
		if bytes.Contains(in, []byte("BAD")) {
			o.Verdict, o.ExitCode, o.Message = protocol.VerdictWA, protocol.KattisInvalid, "found BAD where a number belongs"
			res.Verdict = protocol.VerdictWA
		}
		res.Custom = append(res.Custom, o)
	}
	return res
}

// icpcValidated is an ICPC package with a C++ input validator (Kattis
// convention, with a header and flags) and two reference solutions.
func icpcValidated(extra ...string) map[string]string {
	return withFiles(map[string]string{
		"sum/problem.yaml":                      "name: Sum\nlimits:\n  time_limit: 1\n",
		"sum/problem_statement/problem.en.md":   "# Sum\n",
		"sum/data/testdata.yaml":                "input_validator_flags: --max 1000\n",
		"sum/data/sample/1.in":                  "1 2\n",
		"sum/data/sample/1.ans":                 "3\n",
		"sum/data/secret/01.in":                 "5 6\n",
		"sum/data/secret/01.ans":                "11\n",
		"sum/data/secret/02.in":                 "7 8\n",
		"sum/data/secret/02.ans":                "15\n",
		"sum/input_validators/range/range.cpp":  "#include \"range.h\"\nint main(int argc, char **argv) { return check(argc, argv); }\n",
		"sum/input_validators/range/range.h":    "int check(int, char **) { return 42; }\n",
		"sum/submissions/accepted/sum.py":       "print(sum(map(int, input().split())))\n",
		"sum/submissions/wrong_answer/zero.py":  "print(0)\n",
		"sum/submissions/time_limit_exceeded/x": "ignored\n",
	}, extra...)
}

// TestImportInputValidation (issue 17): an import runs the package's
// input validators on a judge over every input, through the queue, and
// waits: all valid imports the problem (with the visibility asked for)
// and queues its reference solutions; a refused input refuses the
// package naming the input, a validator that does not compile refuses it
// with the compiler's message, no answer in time is a 503; a refused
// import leaves no problem behind, so the same slug imports once fixed.
func TestImportInputValidation(t *testing.T) {
	se := newStaffEnv(t, nil)
	ctx := context.Background()

	// No connected judge: refused before anything is written.
	r := se.setter.importProblem(zipOf(t, icpcValidated()), "sum.zip", nil, true)
	wantErr(t, r, 503, CodeUnavailable, "")
	if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "input validator input_validators/range/range.cpp") {
		t.Errorf("message %q", msg)
	}

	// Only a judge older than input validations: refused, saying so.
	liveJudgeState(t, se.env, "judge-old")
	r = se.setter.importProblem(zipOf(t, icpcValidated()), "sum.zip", nil, true)
	wantErr(t, r, 503, CodeUnavailable, "")
	if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "no connected judge offering cpp17 runs input validations") {
		t.Errorf("message %q", msg)
	}
	if n := se.count("problems"); n != 0 {
		t.Errorf("an import refused for want of a judge left %d problems", n)
	}

	vj := startValidatingJudge(t, se.env, byContent)
	for _, tc := range []struct {
		name, file, content, want string
	}{
		{"an input refused", "sum/data/secret/02.in", "7 BAD\n",
			"input validation refused the package: input data/secret/02.in: found BAD where a number belongs (input validator input_validators/range/range.cpp)"},
		{"two inputs refused", "sum/data/sample/1.in", "BAD\n", "input data/sample/1.in: found BAD"},
		{"does not compile", "sum/input_validators/range/range.cpp", "#error broken\n",
			"the input validator input_validators/range/range.cpp does not compile: does not compile: validator.cpp:1:2: error: #error broken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := icpcValidated(tc.file, tc.content)
			if tc.name == "two inputs refused" {
				files["sum/data/secret/01.in"] = "BAD BAD\n"
			}
			r := se.setter.importProblem(zipOf(t, files), "sum.zip", [][2]string{{"visibility", "public"}}, true)
			wantErr(t, r, 400, CodeValidation, "file")
			if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, tc.want) {
				t.Errorf("message %q does not say %q", msg, tc.want)
			}
			if n := se.count("problems"); n != 0 {
				t.Errorf("a refused import left %d problems", n)
			}
		})
	}

	// Every input valid: imported, public as asked, reference solutions
	// queued.
	r = se.setter.importProblem(zipOf(t, icpcValidated()), "sum.zip", [][2]string{{"visibility", "public"}}, true)
	if r.status != 201 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	var got ProblemImportJSON
	if err := json.Unmarshal([]byte(r.raw), &got); err != nil {
		t.Fatal(err)
	}
	if v := got.Validation; v.Status != ValidationValid || len(v.Validators) != 1 || v.Validators[0] != "input_validators/range/range.cpp" || v.Inputs != 3 {
		t.Errorf("validation %+v", v)
	}
	if got.Problem.Visibility != store.VisibilityPublic {
		t.Errorf("visibility %q after a valid import, want public", got.Problem.Visibility)
	}
	p, err := se.st.ProblemBySlug(ctx, "sum")
	if err != nil || p.Visibility != store.VisibilityPublic || p.TestdataHash.String != got.Testdata.Hash {
		t.Fatalf("stored problem %+v, %v", p, err)
	}
	tasks := vj.seen()
	last := tasks[len(tasks)-1]
	if v := last.Validation; v == nil || v.Convention != protocol.ValidationKattis || v.Name != protocol.ValidatorCPP ||
		v.Files["range.h"] == "" || strings.Join(v.Args, " ") != "--max 1000" || last.Language != "cpp17" ||
		last.TestData.Hash != got.Testdata.Hash || last.ProblemID != p.ID || last.Priority != protocol.PriorityCustom {
		t.Errorf("validation task %+v", last)
	}
	if got.Solutions == nil || len(got.Solutions.Solutions) != 2 {
		t.Fatalf("solutions %+v", got.Solutions)
	}
	for _, s := range got.Solutions.Solutions {
		if s.State != SolutionRunning || s.SubmissionID == 0 || s.Error != "" {
			t.Errorf("solution %+v: want running with a submission", s)
		}
	}
	if n := se.count("submissions"); n != 2 {
		t.Errorf("%d submissions, want the 2 reference solutions' runs", n)
	}

	// No answer in time: 503, nothing kept.
	old := importValidationWait
	importValidationWait = time.Second
	defer func() { importValidationWait = old }()
	r = se.setter.importProblem(zipOf(t, icpcValidated("sum/input_validators/range/range.cpp", "// SILENT\nint main(){return 42;}\n")),
		"late.zip", [][2]string{{"slug", "late"}}, true)
	wantErr(t, r, 503, CodeUnavailable, "")
	if _, err := se.st.ProblemBySlug(ctx, "late"); err == nil {
		t.Error("an import whose validation did not finish was kept")
	}
}

// TestImportPolygonValidator: a Polygon package's testlib validator runs
// at import with the package's testlib.h (testlib's convention); a test
// it refuses refuses the package naming the test's file.
func TestImportPolygonValidator(t *testing.T) {
	se := newStaffEnv(t, nil)
	vj := startValidatingJudge(t, se.env, byContent)
	r := se.setter.importProblem(polygonZip(t, "standard", map[string]string{"tests/02": "BAD\n"}), "sum.zip", nil, true)
	wantErr(t, r, 400, CodeValidation, "file")
	if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "input tests/02: found BAD") ||
		!strings.Contains(msg, "input validator files/val.cpp") {
		t.Errorf("message %q", msg)
	}
	r = se.setter.importProblem(polygonZip(t, "standard", nil), "sum.zip", nil, true)
	if r.status != 201 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	if v := r.body["validation"].(map[string]any); v["status"] != ValidationValid || v["inputs"] != float64(5) {
		t.Errorf("validation %v", v)
	}
	tasks := vj.seen()
	v := tasks[len(tasks)-1].Validation
	if v.Convention != protocol.ValidationTestlib || v.Name != protocol.ValidatorCPP || !strings.Contains(v.Files["testlib.h"], "registerValidation") ||
		!strings.Contains(v.Source, "registerValidation") {
		t.Errorf("validation %+v", v)
	}
}

// byMax validates like a Kattis validator taking `--max N`: an input
// (one integer) above the case's N (its CaseArgs, else Args; 10 without
// the flag) is refused.
func byMax(task protocol.Task, inputs [][]byte) protocol.Result {
	res := protocol.Result{Verdict: protocol.VerdictAC}
	for i, in := range inputs {
		args, own := task.Validation.CaseArgs[i+1]
		if !own {
			args = task.Validation.Args
		}
		limit := 10
		for k := 0; k+1 < len(args); k++ {
			if args[k] == "--max" {
				fmt.Sscan(args[k+1], &limit)
			}
		}
		var n int
		fmt.Sscan(string(in), &n)
		o := protocol.CustomOutput{Case: i + 1, Verdict: protocol.VerdictAC, ExitCode: protocol.KattisValid}
		if n > limit {
			o.Verdict, o.ExitCode, o.Message = protocol.VerdictWA, protocol.KattisInvalid, fmt.Sprintf("%d > %d", n, limit)
			res.Verdict = protocol.VerdictWA
		}
		res.Custom = append(res.Custom, o)
	}
	return res
}

// TestImportPythonValidatorGroupFlags (issue 17): a Python input
// validator of two sources (main.py, the entry point, and a module) runs
// at import in py3, with data/'s input_validator_flags for every input
// and a group's own for that group's inputs: the package whose big group
// allows more imports, the same package without the group's flags is
// refused naming the group's input.
func TestImportPythonValidatorGroupFlags(t *testing.T) {
	se := newStaffEnv(t, nil)
	vj := startValidatingJudge(t, se.env, byMax)
	pkg := func(extra ...string) map[string]string {
		return withFiles(map[string]string{
			"big/problem.yaml":                      "name: Big\nlimits:\n  time_limit: 1\n",
			"big/problem_statement/problem.en.md":   "# Big\n",
			"big/data/testdata.yaml":                "input_validator_flags: --max 20\n",
			"big/data/sample/1.in":                  "5\n",
			"big/data/sample/1.ans":                 "5\n",
			"big/data/secret/small/1.in":            "15\n",
			"big/data/secret/small/1.ans":           "15\n",
			"big/data/secret/large/1.in":            "500\n",
			"big/data/secret/large/1.ans":           "500\n",
			"big/data/secret/large/testdata.yaml":   "input_validator_flags: --max 1000\n",
			"big/input_validators/check/main.py":    "from limits import read\nread()\n",
			"big/input_validators/check/limits.py":  "import sys\ndef read():\n    sys.exit(42)\n",
			"big/submissions/accepted/echo.py":      "print(input())\n",
			"big/submissions/wrong_answer/zero.py":  "print(0)\n",
			"big/input_validators/check/README.txt": "the bounds come from the flags\n",
		}, extra...)
	}
	r := se.setter.importProblem(zipOf(t, pkg()), "big.zip", nil, true)
	if r.status != 201 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	tasks := vj.seen()
	v := tasks[len(tasks)-1]
	if v.Language != "py3" || v.Validation.Name != "main.py" || v.Validation.Files["limits.py"] == "" || len(v.Validation.Files) != 1 ||
		strings.Join(v.Validation.Args, " ") != "--max 20" || len(v.Validation.CaseArgs) != 1 || strings.Join(v.Validation.CaseArgs[2], " ") != "--max 1000" {
		t.Errorf("validation task: language %s, %+v", v.Language, v.Validation)
	}

	// Without the group's own flags its input is out of range.
	files := pkg()
	delete(files, "big/data/secret/large/testdata.yaml")
	r = se.setter.importProblem(zipOf(t, files), "big.zip", [][2]string{{"slug", "big2"}}, true)
	wantErr(t, r, 400, CodeValidation, "file")
	if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "input data/secret/large/1.in: 500 > 20 (input validator input_validators/check/main.py)") {
		t.Errorf("message %q", msg)
	}
}

// TestImportBuildCheck (issue 17): a package's output validator is
// compiled on a judge at import (a build-only task in its language): one
// that does not compile refuses the package naming it and the compiler's
// message, nothing kept; one that compiles is noted; with no judge that
// checks builds the import goes on, and a note says the program was not
// compiled.
func TestImportBuildCheck(t *testing.T) {
	pkg := func(validator string) []byte {
		return zipOf(t, icpcValidated("sum/problem.yaml", "name: Sum\nvalidation: custom\nlimits:\n  time_limit: 1\n",
			"sum/output_validators/close/main.py", validator, "sum/output_validators/close/util.py", "X = 1\n"))
	}
	// The Kattis validator of two sources; its build task runs nothing.
	const ok = "import sys\nfrom util import X\nsys.exit(42)\n"
	se := newStaffEnv(t, nil)
	vj := startValidatingJudge(t, se.env, byContent, protocol.CapabilityBuildCheck)

	r := se.setter.importProblem(pkg("#error broken\n"+ok), "sum.zip", nil, true)
	wantErr(t, r, 400, CodeValidation, "file")
	if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg,
		"the package's checker output_validators/close/main.py does not compile: does not compile: validator.cpp:1:2: error: #error broken") {
		t.Errorf("message %q", msg)
	}
	if n := se.count("problems"); n != 0 {
		t.Errorf("a refused import left %d problems", n)
	}

	r = se.setter.importProblem(pkg(ok), "sum.zip", [][2]string{{"visibility", "public"}}, true)
	if r.status != 201 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	var got ProblemImportJSON
	if err := json.Unmarshal([]byte(r.raw), &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got.Notes, "the checker output_validators/close/main.py compiles (checked on a judge at import)") ||
		got.Problem.Visibility != store.VisibilityPublic || got.Validation.Status != ValidationValid {
		t.Errorf("import %+v", got)
	}
	var build *protocol.Task
	for _, task := range vj.seen() {
		if task.Validation.BuildOnly {
			build = &task
		}
	}
	if build == nil || build.Language != "py3" || build.Validation.Name != "main.py" || build.Validation.Source != ok ||
		build.Validation.Files["util.py"] != "X = 1\n" || !slices.Contains(build.Needs(), protocol.CapabilityBuildCheck) {
		t.Errorf("build task %+v", build)
	}

	// A build check the judges do not get to in time (busy judges): the
	// inputs were checked, so the import is kept, with a note; it was a
	// 503 and nothing kept.
	old := importValidationWait
	importValidationWait = time.Second
	defer func() { importValidationWait = old }()
	r = se.setter.importProblem(pkg("# SILENT\n"+ok), "sum.zip", [][2]string{{"slug", "slow"}, {"visibility", "public"}}, true)
	if r.status != 201 || !strings.Contains(r.raw, "the checker output_validators/close/main.py was not compiled at import: "+
		"no judge finished its build check within 1s (the judges are busy)") || strings.Contains(r.raw, "main.py compiles") {
		t.Fatalf("import with a late build check: %d %s", r.status, r.raw)
	}
	if p, err := se.st.ProblemBySlug(context.Background(), "slow"); err != nil || p.Visibility != store.VisibilityPublic {
		t.Errorf("the import with a late build check: %+v, %v", p, err)
	}

	// Judges older than build checks: imported, the checker not compiled.
	se2 := newStaffEnv(t, nil)
	startValidatingJudge(t, se2.env, byContent)
	r = se2.setter.importProblem(pkg(ok), "sum.zip", nil, true)
	if r.status != 201 || !strings.Contains(r.raw, "the checker output_validators/close/main.py was not compiled at import (no connected judge offering py3 checks builds)") {
		t.Fatalf("import without build checks: %d %s", r.status, r.raw)
	}
}

package polygon

import (
	"archive/zip"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/icpcpkg"
)

// zipFixture zips testdata/<name> (the package as Polygon lays it out),
// under dir when dir is not "", with edits: a path mapped to "" is
// deleted, any other value replaces or adds the file.
func zipFixture(t testing.TB, name, dir string, edits map[string]string) []byte {
	t.Helper()
	files := map[string][]byte{}
	root := filepath.Join("testdata", name)
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
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	}) {
		if dir != "" {
			n2 := dir + "/" + n
			w, _ := zw.Create(n2)
			_, _ = w.Write(files[n])
			continue
		}
		w, _ := zw.Create(n)
		_, _ = w.Write(files[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func subtaskStrings(sts []testpkg.Subtask) []string {
	var out []string
	for _, st := range sts {
		var cs []string
		for _, c := range st.Cases {
			cs = append(cs, string(rune('0'+c)))
		}
		out = append(out, st.Name+"="+strings.Join(cs, ",")+":"+string(rune('0'+st.Points/10))+string(rune('0'+st.Points%10)))
	}
	return out
}

func TestConvertStandard(t *testing.T) {
	for _, dir := range []string{"", "sum-of-two-7$linux"} {
		r, err := Convert(zipFixture(t, "standard", dir, nil), icpcpkg.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		p := r.Problem
		if p.Title != "Sum of Two" || p.ShortName != "sum-of-two" || p.TimeLimitMs != 2000 || p.MemoryLimitKB != 262144 ||
			p.Mode != icpcpkg.ModeIOI || p.Checker != "special" || p.Interactive {
			t.Errorf("problem %+v", p)
		}
		d := r.Testdata
		if len(d.Cases) != 5 || string(d.Cases[3].In) != "1000000000 1000000000\n" || string(d.Cases[3].Ans) != "2000000000\n" {
			t.Errorf("cases %q", d.Cases)
		}
		if !slices.Equal(d.Samples, []int{1}) {
			t.Errorf("samples %v", d.Samples)
		}
		// complete-group: one subtask with the group's points; each-test:
		// one subtask per test with its points.
		if got, want := subtaskStrings(d.Subtasks), []string{"samples=1:00", "small=2,3:30", "large/test 4=4:35", "large/test 5=5:35"}; !slices.Equal(got, want) {
			t.Errorf("subtasks %q, want %q", got, want)
		}
		if !strings.Contains(string(d.Checker), "registerTestlibCmd") || d.CheckerOptions.Name != testpkg.CheckerName ||
			!strings.Contains(string(d.CheckerOptions.Files["testlib.h"]), "tiny testlib-compatible header") {
			t.Errorf("checker %q options %+v", d.Checker, d.CheckerOptions.Name)
		}
		for _, w := range []string{"Given two integers $a$ and $b$, print $a+b$.", "![sum](asset:sum.png)", "`32-bit`",
			"## Input\n\nOne line with two integers $a$ and $b$ ($0 \\le a, b \\le 10^9$).", "## Output\n\nPrint **one** integer: $a+b$.",
			"## Scoring\n\n| Group | Points | Constraints |\n| --- | --- | --- |\n| 1 | 30 | $a, b \\le 10$ |\n| 2 | 70 | — |",
			"## Examples\n\n**Input**\n\n```\n1 2\n```\n\n**Output**\n\n```\n3\n```\n\n## Note\n\nIn the first example $1+2=3$."} {
			if !strings.Contains(p.Statement, w) {
				t.Errorf("statement lacks %q:\n%s", w, p.Statement)
			}
		}
		if len(p.Assets) != 1 || p.Assets[0].Name != "sum.png" || p.Assets[0].Kind != icpcpkg.AssetImage || !bytes.HasPrefix(p.Assets[0].Data, []byte("\x89PNG")) {
			t.Errorf("assets %+v", p.Assets)
		}
		var sols []string
		for _, s := range r.Solutions {
			sols = append(sols, s.Tag+":"+s.Path+":"+s.Type)
		}
		if want := []string{"main:solutions/main.cpp:cpp.g++17", "accepted:solutions/ok.py:python.3",
			"wrong-answer:solutions/int32.cpp:cpp.g++17", "time-limit-exceeded:solutions/slow.cpp:cpp.g++17"}; !slices.Equal(sols, want) {
			t.Errorf("solutions %q", sols)
		}
		var refs []string
		for _, s := range p.Solutions {
			refs = append(refs, s.Name+":"+s.Language+":"+s.Expected)
		}
		if want := []string{"solutions/main.cpp:cpp17:AC", "solutions/ok.py:py3:AC", "solutions/int32.cpp:cpp17:WA",
			"solutions/slow.cpp:cpp17:TLE"}; !slices.Equal(refs, want) {
			t.Errorf("reference solutions %q, want %q", refs, want)
		}
		if len(r.Validators) != 1 || r.Validators[0].Path != "files/val.cpp" || !strings.Contains(string(r.Validators[0].Source), "registerValidation") {
			t.Errorf("validators %+v", r.Validators)
		}
		if iv := p.InputValidators; len(iv) != 1 || iv[0].Path != "files/val.cpp" || iv[0].Convention != protocol.ValidationTestlib || iv[0].C ||
			iv[0].Files["testlib.h"] == nil || len(p.InputNames) != len(d.Cases) || p.InputNames[0] != "tests/01" {
			t.Errorf("input validators %+v, input names %q", iv, p.InputNames)
		}
		notes := strings.Join(p.Notes, "\n")
		var deps []string
		for _, st := range d.Subtasks {
			deps = append(deps, st.Name+"<-"+strings.Join(st.Depends, ","))
		}
		if want := []string{"samples<-", "small<-samples", "large/test 4<-small", "large/test 5<-small"}; !slices.Equal(deps, want) {
			t.Errorf("dependencies %q, want %q", deps, want)
		}
		for _, w := range []string{"validators run on every test at import: 1", "converted from LaTeX (statements/english)"} {
			if !strings.Contains(notes, w) {
				t.Errorf("notes lack %q:\n%s", w, notes)
			}
		}
		// What the judges get is a valid Verdict package.
		b, m, err := d.Build()
		if err != nil {
			t.Fatal(err)
		}
		if m.Checker != testpkg.CheckerName || !slices.Equal(m.CheckerFiles, []string{"testlib.h"}) {
			t.Errorf("manifest %+v", m)
		}
		if _, err := testpkg.Read(b); err != nil {
			t.Fatal(err)
		}
	}
}

func TestConvertInteractive(t *testing.T) {
	r, err := Convert(zipFixture(t, "interactive", "", nil), icpcpkg.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	p, d := r.Problem, r.Testdata
	if !p.Interactive || p.Title != "Guess the Number" || p.TimeLimitMs != 1000 || p.Mode != icpcpkg.ModeIOI || p.Checker != "special" {
		t.Errorf("problem %+v", p)
	}
	it := d.Interactor
	if it == nil || it.Convention != testpkg.ConventionTestlib || it.Name != testpkg.InteractorCPP ||
		!strings.Contains(string(it.Source), "registerInteraction") || it.Files["testlib.h"] == nil {
		t.Fatalf("interactor %+v", it)
	}
	if got, want := subtaskStrings(d.Subtasks), []string{"0=1:00", "1=2:40", "2=3,4:60"}; !slices.Equal(got, want) {
		t.Errorf("subtasks %q, want %q", got, want)
	}
	if !slices.Equal(d.Subtasks[2].Depends, []string{"1"}) || d.Subtasks[1].Depends != nil {
		t.Errorf("dependencies %+v", d.Subtasks)
	}
	// The statement from the section files (no problem-properties.json).
	for _, w := range []string{"Find it by asking at most $20$ questions.", "## Interaction", "- `<` if $x < y$;",
		"## Output\n\nPrint `! x` when you know $x$.", "## Examples\n\n**Input**\n\n```\n1 10\n<\n>\n=\n```"} {
		if !strings.Contains(p.Statement, w) {
			t.Errorf("statement lacks %q:\n%s", w, p.Statement)
		}
	}
	b, m, err := d.Build()
	if err != nil {
		t.Fatal(err)
	}
	if !m.Interactive || m.Interactor != testpkg.InteractorCPP || !slices.Equal(m.InteractorFiles, []string{"testlib.h"}) || m.Checker == "" {
		t.Errorf("manifest %+v", m)
	}
	if _, err := testpkg.Read(b); err != nil {
		t.Fatal(err)
	}
}

// TestConvertStatementFallbacks: problem.tex when there are no section
// files; HTML only is a note.
func TestConvertStatementFallbacks(t *testing.T) {
	r, err := Convert(zipFixture(t, "interactive", "", map[string]string{"statements/english/legend.tex": ""}), icpcpkg.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Problem.Statement != "Find $x$.\n" {
		t.Errorf("statement %q", r.Problem.Statement)
	}
	edits := map[string]string{}
	for _, f := range []string{"legend.tex", "input.tex", "output.tex", "interaction.tex", "name.tex", "example.01", "example.01.a", "problem.tex"} {
		edits["statements/english/"+f] = ""
	}
	edits["statements/.html/english/problem.html"] = "<p>x</p>"
	edits["problem.xml"] = strings.Replace(readFixture(t, "interactive/problem.xml"), `path="statements/english/problem.tex" type="application/x-tex"`,
		`path="statements/.html/english/problem.html" type="text/html"`, 1)
	r, err = Convert(zipFixture(t, "interactive", "", edits), icpcpkg.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Problem.Statement != "" || !strings.Contains(strings.Join(r.Problem.Notes, "\n"), "HTML only") {
		t.Errorf("statement %q notes %q", r.Problem.Statement, r.Problem.Notes)
	}
}

func readFixture(t testing.TB, p string) string {
	b, err := os.ReadFile(filepath.Join("testdata", p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestConvertRefuses(t *testing.T) {
	xmlWith := func(old, new string) map[string]string {
		x := readFixture(t, "standard/problem.xml")
		if !strings.Contains(x, old) {
			t.Fatalf("fixture lacks %q", old)
		}
		return map[string]string{"problem.xml": strings.Replace(x, old, new, 1)}
	}
	for _, tc := range []struct {
		name  string
		edits map[string]string
		err   error
		want  string
	}{
		{"no answers", map[string]string{"tests/03.a": ""}, ErrInvalid, "tests/03.a: test 3's answer is not in the package (Verdict does not run the main solution"},
		{"generated test missing", map[string]string{"tests/04": ""}, ErrInvalid, "tests/04: test 4's input is not in the package (a generated test: export the full package"},
		{"no problem.xml", map[string]string{"problem.xml": ""}, ErrInvalid, "no problem.xml"},
		{"bad xml", map[string]string{"problem.xml": "<problem><judging>"}, ErrInvalid, "problem.xml: XML syntax error"},
		{"test count", xmlWith("<test-count>5</test-count>", "<test-count>6</test-count>"), ErrInvalid, "test-count is 6 but <tests> lists 5"},
		{"pattern", xmlWith("<input-path-pattern>tests/%02d</input-path-pattern>", "<input-path-pattern>tests/%s</input-path-pattern>"), ErrInvalid, "input-path-pattern"},
		{"pascal checker", xmlWith(`<source path="files/check.cpp" type="cpp.g++17"/>`, `<source path="files/check.cpp" type="pascal.fpc"/>`), ErrUnsupported,
			"files/check.cpp: the checker is type pascal.fpc: Verdict's judges build checkers and interactors in C, C++, Python 3 or Java only"},
		{"java type, not a java file", xmlWith(`<source path="files/check.cpp" type="cpp.g++17"/>`, `<source path="files/check.cpp" type="java11"/>`), ErrInvalid,
			"files/check.cpp: the checker is type java11, but a Java source's file ends in .java"},
		{"checker missing", map[string]string{"files/check.cpp": ""}, ErrInvalid, "files/check.cpp: the checker's source is not in the package"},
		{"no tests testset", xmlWith(`<testset name="tests">`, `<testset name="pretests">`), ErrInvalid, `no <testset name="tests">`},
		{"unknown dependency", xmlWith(`<dependency group="samples"/>`, `<dependency group="nope"/>`), ErrInvalid, `depends on group "nope"`},
		{"self dependency", xmlWith(`<dependency group="samples"/>`, `<dependency group="small"/>`), ErrInvalid, `group "small" depends on itself`},
		{"bad memory", xmlWith("<memory-limit>268435456</memory-limit>", "<memory-limit>lots</memory-limit>"), ErrInvalid, "memory-limit"},
		{"policy", xmlWith(`points-policy="each-test"`, `points-policy="best"`), ErrUnsupported, "points-policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Convert(zipFixture(t, "standard", "", tc.edits), icpcpkg.Limits{})
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.err, tc.want)
			}
		})
	}
	if _, err := Convert([]byte("not a zip"), icpcpkg.Limits{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("not a zip: %v", err)
	}
	if _, err := Convert(zipFixture(t, "standard", "", nil), icpcpkg.Limits{MaxBytes: 100}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("too big: %v", err)
	}
}

// TestConvertFileIO: judging input-file / output-file name the files the
// program reads and writes; "" and stdin / stdout are the streams.
func TestConvertFileIO(t *testing.T) {
	x := readFixture(t, "standard/problem.xml")
	for _, tc := range []struct{ in, out, wantIn, wantOut string }{
		{`input-file="input.txt"`, `output-file="output.txt"`, "input.txt", "output.txt"},
		{`input-file="stdin"`, `output-file="stdout"`, "", ""},
		{`input-file=""`, `output-file="sum.out"`, "", "sum.out"},
	} {
		edited := strings.Replace(strings.Replace(x, `input-file=""`, tc.in, 1), `output-file=""`, tc.out, 1)
		r, err := Convert(zipFixture(t, "standard", "", map[string]string{"problem.xml": edited}), icpcpkg.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Problem.InputFile != tc.wantIn || r.Problem.OutputFile != tc.wantOut {
			t.Errorf("%s %s: files %q %q, want %q %q", tc.in, tc.out, r.Problem.InputFile, r.Problem.OutputFile, tc.wantIn, tc.wantOut)
		}
	}
}

func TestIsPolygon(t *testing.T) {
	if !IsPolygon(zipFixture(t, "standard", "", nil)) || !IsPolygon(zipFixture(t, "standard", "top", nil)) {
		t.Fatal("a Polygon package not recognised")
	}
	if IsPolygon(zipFixture(t, "standard", "", map[string]string{"problem.xml": ""})) || IsPolygon([]byte("x")) {
		t.Fatal("recognised a non-Polygon zip")
	}
}

func FuzzConvert(f *testing.F) {
	f.Add(readFixture(f, "standard/problem.xml"))
	f.Add(readFixture(f, "interactive/problem.xml"))
	f.Fuzz(func(t *testing.T, x string) {
		z := zipFixture(t, "standard", "", map[string]string{"problem.xml": x})
		r, err := Convert(z, icpcpkg.Limits{})
		if err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error %v is neither ErrInvalid nor ErrUnsupported", err)
			}
			return
		}
		_, _, _ = r.Testdata.Build()
	})
}

package icpcpkg

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// zipOf builds a zip from name → content (sorted names for stable order).
func zipOf(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[n])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func with(base map[string]string, mods ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(mods); i += 2 {
		if mods[i+1] == "<delete>" {
			delete(out, mods[i])
			continue
		}
		out[mods[i]] = mods[i+1]
	}
	return out
}

var passFail = map[string]string{
	"problem.yaml":                     "name: Hello Sum\nlimits:\n  memory: 256\nvalidator_flags: case_sensitive space_change_sensitive\n",
	".timelimit":                       "2\n",
	"problem_statement/problem.en.md":  "# Sum\n\nAdd $a+b$.\n",
	"problem_statement/problem.sv.md":  "# Summa\n",
	"problem_statement/sample.png":     "PNG",
	"data/sample/1.in":                 "1 2\n",
	"data/sample/1.ans":                "3\n",
	"data/secret/02-big.in":            "100 200\n",
	"data/secret/02-big.ans":           "300\n",
	"data/secret/01-small.in":          "0 0\n",
	"data/secret/01-small.ans":         "0\n",
	"input_validators/validate.py":     "print()",
	"submissions/accepted/sol.cpp":     "int main(){}",
	"submissions/wrong_answer/bad.cpp": "int main(){}",
}

func TestConvertPassFail(t *testing.T) {
	p, pkg, err := Convert(zipOf(t, passFail), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Hello Sum" || p.TimeLimitMs != 2000 || p.MemoryLimitKB != 256*1024 || p.Checker != CheckerICPC || p.Mode != ModeICPC {
		t.Errorf("problem = %+v", p)
	}
	if !strings.HasPrefix(p.Statement, "# Sum") {
		t.Errorf("statement %q: want the English Markdown", p.Statement)
	}
	var ins []string
	for _, c := range pkg.Cases {
		ins = append(ins, strings.TrimSpace(string(c.In)))
	}
	if want := []string{"1 2", "0 0", "100 200"}; !slices.Equal(ins, want) {
		t.Errorf("cases %q, want samples then secret in path order %q", ins, want)
	}
	if len(pkg.Subtasks) != 0 {
		t.Errorf("pass-fail problem got subtasks %+v", pkg.Subtasks)
	}
	notes := strings.Join(p.Notes, "\n")
	if len(p.InputValidators) != 1 || p.InputValidators[0].Lang() != "py3" || p.InputValidators[0].MainName() != "validate.py" {
		t.Errorf("input validators %+v: want validate.py in py3", p.InputValidators)
	}
	for _, w := range []string{"input validators run on every input at import: 1", "reference solutions imported", "the statement does not show"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	// The result is a valid Verdict package.
	b, _, err := pkg.Build()
	if err != nil {
		t.Fatal(err)
	}
	if m, err := testpkg.Read(b); err != nil || len(m.Cases) != 3 {
		t.Fatalf("built package: %+v, %v", m, err)
	}
	// data/sample is the samples (their checker messages may be shown);
	// data/secret is hidden.
	if m, _ := testpkg.Read(b); !slices.Equal(pkg.Samples, []int{1}) || !slices.Equal(m.Samples(), []int{1}) {
		t.Fatalf("samples %v, manifest samples %v, want [1]", pkg.Samples, m.Samples())
	}
}

func TestConvertScoring(t *testing.T) {
	files := map[string]string{
		"problem.yaml":                        "name:\n  sv: Poäng\n  en: Points\ntype: scoring\nlimits:\n  time_limit: 1.5\n",
		"statement/problem.md":                "Statement",
		"data/sample/1.in":                    "s",
		"data/sample/1.ans":                   "s",
		"data/secret/group1/testdata.yaml":    "score: 30\n",
		"data/secret/group1/a.in":             "1",
		"data/secret/group1/a.ans":            "1",
		"data/secret/group2/testdata.yaml":    "range: 0 70\n",
		"data/secret/group2/b.in":             "2",
		"data/secret/group2/b.ans":            "2",
		"data/secret/group2/c.in":             "3",
		"data/secret/group2/c.ans":            "3",
		"data/secret/group2/c.hint":           "ignored",
		"output_validators_not_a_dir.txt":     "",
		"data/secret/group2/nested/d.in":      "4",
		"data/secret/group2/nested/d.ans":     "4",
		"data/secret/group2/nested/readme.md": "x",
	}
	p, pkg, err := Convert(zipOf(t, files), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Points" || p.Mode != ModeIOI || p.TimeLimitMs != 1500 || !strings.HasPrefix(p.Statement, "Statement\n\n## Samples\n\n### Sample 1\n") || p.Checker != CheckerICPC {
		t.Errorf("problem = %+v", p)
	}
	got := fmt.Sprint(pkg.Subtasks)
	if want := "[{sample 0 [1] [] 0 false} {group1 30 [2] [] 0 false} {group2 70 [3 4 5] [] 0 false}]"; got != want {
		t.Errorf("subtasks %s, want %s", got, want)
	}
	if _, _, err := pkg.Build(); err != nil {
		t.Fatal(err)
	}

	// Groups without scores share 100 points.
	files["data/secret/group1/testdata.yaml"] = "on_reject: break\n"
	files["data/secret/group2/testdata.yaml"] = "on_reject: break\n"
	files["data/secret/group3/e.in"] = "5"
	files["data/secret/group3/e.ans"] = "5"
	_, pkg, err = Convert(zipOf(t, files), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, s := range pkg.Subtasks {
		sum += s.Points
	}
	if got := fmt.Sprint(pkg.Subtasks); sum != 100 || !strings.Contains(got, "{group1 34 [2] [] 0 false}") {
		t.Errorf("equal split %s (sum %d)", got, sum)
	}
}

func TestConvertCheckerFlagsAndLayout(t *testing.T) {
	tests := []struct {
		name, yaml string
		flags      []string
		err        string
	}{
		{"default", "name: x\n", nil, ""},
		{"float", "name: x\nvalidator_flags: float_tolerance 1e-6\n", []string{"float_tolerance", "1e-6"}, ""},
		{"abs and rel", "name: x\nvalidator_flags: float_absolute_tolerance 1e-9 float_relative_tolerance 1e-6\n",
			[]string{"float_absolute_tolerance", "1e-9", "float_relative_tolerance", "1e-6"}, ""},
		{"case sensitive", "name: x\nvalidator_flags: case_sensitive\n", []string{"case_sensitive"}, ""},
		{"both sensitive", "name: x\nvalidator_flags: space_change_sensitive case_sensitive\n", []string{"space_change_sensitive", "case_sensitive"}, ""},
		{"large tolerance", "name: x\nvalidator_flags: float_absolute_tolerance 5\n", []string{"float_absolute_tolerance", "5"}, ""},
		{"unknown flag", "name: x\nvalidator_flags: ignore_case\n", nil, `problem.yaml: validator_flags: unknown flag "ignore_case"`},
		{"no value", "name: x\nvalidator_flags: float_tolerance\n", nil, "problem.yaml: validator_flags: float_tolerance needs a value"},
		{"bad value", "name: x\nvalidator_flags: float_tolerance -1\n", nil, `problem.yaml: validator_flags: float_tolerance "-1"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Zipped with its directory, as `zip -r hello.zip hello/` does.
			files := map[string]string{"hello/problem.yaml": tc.yaml, "hello/data/secret/1.in": "1", "hello/data/secret/1.ans": "1"}
			p, pkg, err := Convert(zipOf(t, files), Limits{})
			if tc.err != "" {
				if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Checker != CheckerICPC || !slices.Equal(p.ValidatorFlags, tc.flags) || !slices.Equal(pkg.DefaultValidatorFlags, tc.flags) ||
				p.ShortName != "hello" || p.Title != "x" {
				t.Errorf("got %+v, package flags %q", p, pkg.DefaultValidatorFlags)
			}
		})
	}
}

// TestConvertRoot: a single top-level directory is the package's own
// directory only when the package is inside it.
func TestConvertRoot(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		root  string
		cases int
	}{
		{"with its directory", map[string]string{"hello/problem.yaml": "name: x\n", "hello/data/secret/1.in": "1", "hello/data/secret/1.ans": "1"}, "hello", 1},
		{"directory without problem.yaml", map[string]string{"hello/data/secret/1.in": "1", "hello/data/secret/1.ans": "1"}, "hello", 1},
		{"only data, no directory", map[string]string{"data/secret/1.in": "1", "data/secret/1.ans": "1", "data/sample/1.in": "0", "data/sample/1.ans": "0"}, "", 2},
		{"a directory called data", map[string]string{"data/problem.yaml": "name: x\n", "data/data/secret/1.in": "1", "data/data/secret/1.ans": "1"}, "data", 1},
		{"no directory", map[string]string{"problem.yaml": "name: x\n", "data/secret/1.in": "1", "data/secret/1.ans": "1"}, "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, pkg, err := Convert(zipOf(t, tc.files), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if p.ShortName != tc.root || len(pkg.Cases) != tc.cases {
				t.Fatalf("root %q with %d cases, want %q with %d", p.ShortName, len(pkg.Cases), tc.root, tc.cases)
			}
		})
	}
}

func TestConvertErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  error
		names string // the message must name this
	}{
		{"missing answer", with(passFail, "data/secret/01-small.ans", "<delete>"), ErrInvalid, "data/secret/01-small.in"},
		{"no cases", map[string]string{"problem.yaml": "name: x\n"}, ErrInvalid, "data/"},
		{"scoring validator without a maximum", with(passFail, "problem.yaml", "name: x\nvalidation: custom score\n"), ErrInvalid, "maximum score"},
		{"interactive without validator", with(passFail, "problem.yaml", "name: x\nvalidation: custom interactive\n"), ErrInvalid, "output validator"},
		{"bad yaml", with(passFail, "problem.yaml", "name: [\n"), ErrInvalid, "problem.yaml"},
		{"bad time limit", with(passFail, ".timelimit", "fast"), ErrInvalid, ".timelimit"},
		{"negative time limit", with(passFail, "problem.yaml", "limits:\n  time_limit: -1\n"), ErrInvalid, "time_limit"},
		{"bad tolerance", with(passFail, "problem.yaml", "validator_flags: float_tolerance x\n"), ErrInvalid, "float_tolerance"},
		{"tolerance without value", with(passFail, "problem.yaml", "validator_flags: float_tolerance\n"), ErrInvalid, "float_tolerance"},
		{"statement not utf-8", with(passFail, "problem_statement/problem.en.md", "\xff\xfe"), ErrInvalid, "problem.en.md"},
		{"unsafe name", with(passFail, "../evil.in", "x"), ErrInvalid, "unsafe"},
		{"scoring without secret", map[string]string{"problem.yaml": "type: scoring\n", "data/sample/1.in": "1", "data/sample/1.ans": "1"}, ErrInvalid, "data/secret"},
		{"accept_if_any_accepted, pass-fail", with(passFail, "data/secret/testdata.yaml", "grader_flags: first_error accept_if_any_accepted\n"),
			ErrUnsupported, "data/secret/testdata.yaml: grader_flags accept_if_any_accepted"},
		{"accept_if_any_accepted at the root", with(passFail, "data/testdata.yaml", "grader_flags: accept_if_any_accepted\n"),
			ErrUnsupported, "data/testdata.yaml: grader_flags accept_if_any_accepted"},
		{"accept_if_any_accepted, scoring group", map[string]string{"problem.yaml": "type: scoring\n", "data/secret/g1/1.in": "1", "data/secret/g1/1.ans": "1",
			"data/secret/g1/testdata.yaml": "grader_flags: min accept_if_any_accepted\n"}, ErrUnsupported, "data/secret/g1/testdata.yaml: grader_flags accept_if_any_accepted"},
		{"accept_if_any_accepted, interactive", with(passFail, "problem.yaml", "name: x\nvalidation: custom interactive\n",
			"output_validators/v/v.cpp", "int main(){return 42;}", "data/testdata.yaml", "grader_flags: accept_if_any_accepted\n"),
			ErrUnsupported, "accept_if_any_accepted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Convert(zipOf(t, tc.files), Limits{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.names) {
				t.Fatalf("err = %v, want %v naming %q", err, tc.want, tc.names)
			}
		})
	}
	if _, _, err := Convert([]byte("not a zip"), Limits{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("not a zip: %v", err)
	}
	// Bounds: decompressed bytes are counted, not trusted from headers.
	big := with(passFail, "data/secret/03.in", strings.Repeat("9", 4096), "data/secret/03.ans", "x")
	if _, _, err := Convert(zipOf(t, big), Limits{MaxBytes: 2048}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "decompressed") {
		t.Errorf("byte bound: %v", err)
	}
	if _, _, err := Convert(zipOf(t, passFail), Limits{MaxFiles: 3}); !errors.Is(err, ErrInvalid) {
		t.Errorf("file bound: %v", err)
	}
}

func TestConvertLatexStatementNoted(t *testing.T) {
	files := with(passFail, "problem_statement/problem.en.md", "<delete>", "problem_statement/problem.sv.md", "<delete>",
		"problem_statement/problem.en.tex", `\problemname{Sum}`)
	p, _, err := Convert(zipOf(t, files), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Statement != "" || !strings.Contains(strings.Join(p.Notes, "\n"), "LaTeX") {
		t.Errorf("statement %q, notes %q", p.Statement, p.Notes)
	}
}

func FuzzConvert(f *testing.F) {
	f.Add(zipOf(f, passFail))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, pkg, err := Convert(b, Limits{MaxBytes: 1 << 20, MaxFiles: 200})
		if err != nil {
			return
		}
		if len(pkg.Cases) == 0 || (p.Mode != ModeICPC && p.Mode != ModeIOI) {
			t.Fatalf("accepted a package without cases or mode: %+v", p)
		}
		if _, _, err := pkg.Build(); err != nil {
			t.Fatalf("converted package does not build: %v", err)
		}
	})
}

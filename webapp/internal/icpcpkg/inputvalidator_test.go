package icpcpkg

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// TestConvertInputValidators: which input validators a package's layout
// gives (a directory of one source and its headers, a single file, the
// legacy and 2023-07 directories), which are noted and not run, the flags
// from testdata.yaml, and the inputs' names in case order.
func TestConvertInputValidators(t *testing.T) {
	base := map[string]string{
		"p/problem.yaml":        "name: P\n",
		"p/data/sample/1.in":    "1\n",
		"p/data/sample/1.ans":   "1\n",
		"p/data/secret/b.in":    "2\n",
		"p/data/secret/b.ans":   "2\n",
		"p/data/secret/a.in":    "3\n",
		"p/data/secret/a.ans":   "3\n",
		"p/data/secret/g/1.in":  "4\n",
		"p/data/secret/g/1.ans": "4\n",
	}
	with := func(extra map[string]string) map[string]string {
		m := maps.Clone(base)
		maps.Copy(m, extra)
		return m
	}
	type want struct {
		paths    []string
		c        []bool
		langs    []string // Lang(), "" unchecked
		mains    []string // MainName()
		files    [][]string
		args     []string
		caseArgs map[int][]string
		// argsEach and caseArgsEach, when set, are per validator.
		argsEach     [][]string
		caseArgsEach []map[int][]string
		note         string   // a note that must be there
		notes        []string // more of them
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  want
	}{
		{"none", base, want{}},
		{"directory with header", with(map[string]string{
			"p/input_validators/val/val.cpp":   "int main(){return 42;}",
			"p/input_validators/val/lim.h":     "#define N 10",
			"p/input_validators/val/README.md": "notes",
		}), want{paths: []string{"input_validators/val/val.cpp"}, c: []bool{false}, files: [][]string{{"lim.h"}},
			note: "input validators run on every input at import: 1"}},
		{"legacy single C file and flags", with(map[string]string{
			"p/input_format_validators/check.c": "int main(void){return 42;}",
			"p/data/testdata.yaml":              "input_validator_flags: --max 100\n",
		}), want{paths: []string{"input_format_validators/check.c"}, c: []bool{true}, files: [][]string{nil}, args: []string{"--max", "100"}}},
		{"every language, several sources, and those not run", with(map[string]string{
			"p/input_validators/a.cpp":       "int main(){return 42;}",
			"p/input_validators/b/b.py":      "exit(42)",
			"p/input_validators/c/c.cc":      "int main(){return 42;}",
			"p/input_validators/c/build":     "g++ c.cc",
			"p/input_validators/d/x.cpp":     "int main(){return 42;}",
			"p/input_validators/d/y.cpp":     "bool y(){return true;}",
			"p/input_validators/d/y.h":       "bool y();",
			"p/input_validators/e/sub/e.cpp": "int main(){return 42;}",
			"p/input_validators/f/Main.java": "public class Main {}",
			"p/input_validators/f/Util.java": "class Util {}",
			"p/input_validators/g/main.py":   "import u",
			"p/input_validators/g/u.py":      "",
			"p/input_validators/h/x.py":      "",
			"p/input_validators/h/y.py":      "",
			"p/input_validators/i.ctd":       "INT(1,10)",
			"p/input_validators/j.viva":      "n",
			"p/input_validators/k/k.rs":      "fn main(){}",
			"p/input_validators/l/l.py":      "#!/usr/bin/env python2\nexit(42)",
			"p/input_validators/m/m.go":      "package main\nfunc main(){}",
			"p/input_validators/n/n.cpp":     "int main(){return 42;}",
			"p/input_validators/n/n.py":      "",
		}), want{paths: []string{"input_validators/a.cpp", "input_validators/b/b.py", "input_validators/d/x.cpp",
			"input_validators/f/Main.java", "input_validators/g/main.py", "input_validators/m/m.go"},
			langs: []string{"cpp17", "py3", "cpp17", "java17", "py3", "go"},
			mains: []string{protocol.ValidatorCPP, "b.py", "x.cpp", "Main.java", "main.py", "m.go"},
			files: [][]string{nil, nil, {"y.cpp", "y.h"}, {"Util.java"}, {"u.py"}, nil},
			notes: []string{"input validator input_validators/c not run (a program with its own build or run script",
				"input validator input_validators/e not run (files in a subdirectory",
				"input validator input_validators/h not run (several sources and no main.py, the entry point)",
				"input validator input_validators/j.viva not run (VIVA",
				"input validator input_validators/k not run (no source in a language",
				"input validator input_validators/l not run (Python 2)",
				"input validator input_validators/n not run (sources of several languages",
				"input validators run on every input at import: 7"}}}, // i.ctd is the web node's (TestCheckInputs)
		{"group flags of their own, inherited by subgroups", with(map[string]string{
			"p/input_validators/a.cpp":          "int main(){return 42;}",
			"p/data/secret/g/testdata.yaml":     "input_validator_flags: small\n",
			"p/data/secret/testdata.yaml":       "input_validator_flags: big\n",
			"p/data/secret/other/testdata.yaml": "input_validator_flags: big\n",
		}), want{paths: []string{"input_validators/a.cpp"}, files: [][]string{nil},
			// data/ has none: the sample none; secret's a, b big; g small.
			caseArgs: map[int][]string{2: {"big"}, 3: {"big"}, 4: {"small"}}}},
		{"a group's file without the key inherits it", with(map[string]string{
			"p/input_validators/a.cpp":      "int main(){return 42;}",
			"p/data/testdata.yaml":          "input_validator_flags: --max 9\n",
			"p/data/secret/g/testdata.yaml": "grader_flags: min\n",
		}), want{paths: []string{"input_validators/a.cpp"}, files: [][]string{nil}, args: []string{"--max", "9"}}},
		{"flags by validator name; 2025-09 lists", with(map[string]string{
			"p/input_validators/a.cpp":        "int main(){return 42;}",
			"p/input_validators/b/b.cpp":      "int main(){return 42;}",
			"p/data/testdata.yaml":            "input_validator_flags:\n  a: --x 1\n  b: --y 2\n",
			"p/data/secret/g/test_group.yaml": "input_validator_args:\n  b: [--y, \"3\"]\n",
		}), want{paths: []string{"input_validators/a.cpp", "input_validators/b/b.cpp"}, files: [][]string{nil, nil},
			argsEach:     [][]string{{"--x", "1"}, {"--y", "2"}},
			caseArgsEach: []map[int][]string{{4: nil}, {4: {"--y", "3"}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, pkg, err := Convert(zipOf(t, tc.files), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if names := []string{"data/sample/1.in", "data/secret/a.in", "data/secret/b.in", "data/secret/g/1.in"}; !slices.Equal(p.InputNames, names) ||
				len(pkg.Cases) != len(names) || string(pkg.Cases[1].In) != "3\n" {
				t.Errorf("input names %q, want %q (cases %d)", p.InputNames, names, len(pkg.Cases))
			}
			var paths []string
			for i, v := range p.InputValidators {
				paths = append(paths, v.Path)
				if v.Convention != protocol.ValidationKattis || string(v.Source) != tc.files["p/"+v.Path] {
					t.Errorf("validator %d: %+v", i, v)
				}
				if i < len(tc.want.c) && v.C != tc.want.c[i] {
					t.Errorf("validator %d: C %v, want %v", i, v.C, tc.want.c[i])
				}
				if i < len(tc.want.files) && !slices.Equal(slices.Sorted(maps.Keys(v.Files)), tc.want.files[i]) {
					t.Errorf("validator %d: files %v, want %v", i, slices.Sorted(maps.Keys(v.Files)), tc.want.files[i])
				}
				args, caseArgs := tc.want.args, tc.want.caseArgs
				if tc.want.argsEach != nil {
					args, caseArgs = tc.want.argsEach[i], tc.want.caseArgsEach[i]
				}
				if !slices.Equal(v.Args, args) {
					t.Errorf("validator %d: args %q, want %q", i, v.Args, args)
				}
				if !maps.EqualFunc(v.CaseArgs, caseArgs, slices.Equal) {
					t.Errorf("validator %d: case args %v, want %v", i, v.CaseArgs, caseArgs)
				}
				if i < len(tc.want.langs) && v.Lang() != tc.want.langs[i] {
					t.Errorf("validator %d: language %s, want %s", i, v.Lang(), tc.want.langs[i])
				}
				if i < len(tc.want.mains) && v.MainName() != tc.want.mains[i] {
					t.Errorf("validator %d: main %s, want %s", i, v.MainName(), tc.want.mains[i])
				}
			}
			if !slices.Equal(paths, tc.want.paths) {
				t.Errorf("validators %q, want %q", paths, tc.want.paths)
			}
			for _, want := range append(slices.Clone(tc.want.notes), tc.want.note) {
				if want != "" && !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, want) }) {
					t.Errorf("notes %q lack %q", p.Notes, want)
				}
			}
			for _, n := range p.Notes {
				if strings.Contains(n, "validators ignored") {
					t.Errorf("note %q: input validators are no longer ignored", n)
				}
			}
		})
	}
}

// TestConvertOutputValidatorFlags: a group's output_validator_flags
// follow validator_flags for its cases (inherited by its subgroups, a
// 2025-09 list too), for the package's own validator and for the default
// one (whose flags must be its own: else the group's file is named).
func TestConvertOutputValidatorFlags(t *testing.T) {
	base := map[string]string{
		"p/problem.yaml":                  "name: P\nvalidation: custom\nvalidator_flags: --strict\n",
		"p/output_validators/v/v.cpp":     "int main(){return 42;}",
		"p/data/sample/1.in":              "1\n",
		"p/data/sample/1.ans":             "1\n",
		"p/data/secret/a/1.in":            "2\n",
		"p/data/secret/a/1.ans":           "2\n",
		"p/data/secret/b/1.in":            "3\n",
		"p/data/secret/b/1.ans":           "3\n",
		"p/data/secret/b/c/1.in":          "4\n",
		"p/data/secret/b/c/1.ans":         "4\n",
		"p/data/secret/b/testdata.yaml":   "output_validator_flags: --tol 5\n",
		"p/data/secret/a/test_group.yaml": "output_validator_args: [--tol, \"1\"]\n",
	}
	with := func(k, v string) map[string]string {
		m := maps.Clone(base)
		m[k] = v
		return m
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  map[int][]string
		note  string
	}{
		{"custom validator", base, map[int][]string{2: {"--strict", "--tol", "1"}, 3: {"--strict", "--tol", "5"}, 4: {"--strict", "--tol", "5"}}, ""},
		{"interactive", with("p/problem.yaml", "name: P\nvalidation: custom interactive\nvalidator_flags: --strict\n"),
			map[int][]string{2: {"--strict", "--tol", "1"}, 3: {"--strict", "--tol", "5"}, 4: {"--strict", "--tol", "5"}}, ""},
		{"default validator", func() map[string]string {
			m := with("p/problem.yaml", "name: P\nvalidator_flags: case_sensitive\n")
			m["p/data/secret/b/testdata.yaml"] = "output_validator_flags: float_tolerance 0.5\n"
			m["p/data/secret/a/test_group.yaml"] = "output_validator_args: [space_change_sensitive]\n"
			return m
		}(), map[int][]string{2: {"case_sensitive", "space_change_sensitive"}, 3: {"case_sensitive", "float_tolerance", "0.5"},
			4: {"case_sensitive", "float_tolerance", "0.5"}}, ""},
		{"default validator, no problem flags", func() map[string]string {
			m := with("p/problem.yaml", "name: P\n")
			m["p/data/secret/b/testdata.yaml"] = "output_validator_flags: float_tolerance 0.5\n"
			delete(m, "p/data/secret/a/test_group.yaml")
			return m
		}(), map[int][]string{3: {"float_tolerance", "0.5"}, 4: {"float_tolerance", "0.5"}}, ""},
		{"default validator, bad group flags", with("p/problem.yaml", "name: P\n"), nil,
			`data/secret/a/test_group.yaml: output_validator_flags (for the default output validator): unknown flag "--tol"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, pkg, err := Convert(zipOf(t, tc.files), Limits{})
			if tc.want == nil {
				if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.note) {
					t.Fatalf("err %v, want %q", err, tc.note)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !maps.EqualFunc(pkg.ValidatorArgs, tc.want, slices.Equal) {
				t.Errorf("validator args %v, want %v", pkg.ValidatorArgs, tc.want)
			}
			if tc.note != "" && !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, tc.note) }) {
				t.Errorf("notes %q lack %q", p.Notes, tc.note)
			}
			if tc.want != nil {
				b, _, err := pkg.Build()
				if err != nil {
					t.Fatal(err)
				}
				m, err := testpkg.Read(b)
				c3 := m.ForCase(2)
				if err != nil || !slices.Equal(c3.CheckerArgs, tc.want[3]) && !slices.Equal(c3.InteractorArgs, tc.want[3]) && !slices.Equal(c3.DefaultValidatorFlags, tc.want[3]) {
					t.Errorf("read back: %v, case 3 %+v", err, m.Cases[2])
				}
			}
		})
	}
}

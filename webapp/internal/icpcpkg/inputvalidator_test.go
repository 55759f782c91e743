package icpcpkg

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
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
		paths []string
		c     []bool
		files [][]string
		args  []string
		note  string // a note that must be there
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
		{"two validators, one in Python", with(map[string]string{
			"p/input_validators/a.cpp":       "int main(){return 42;}",
			"p/input_validators/b/b.py":      "exit(42)",
			"p/input_validators/c/c.cc":      "int main(){return 42;}",
			"p/input_validators/c/build":     "g++ c.cc",
			"p/input_validators/d/x.cpp":     "int main(){return 42;}",
			"p/input_validators/d/y.cpp":     "int main(){return 42;}",
			"p/input_validators/e/sub/e.cpp": "int main(){return 42;}",
		}), want{paths: []string{"input_validators/a.cpp"}, c: []bool{false}, files: [][]string{nil},
			note: "input validator input_validators/b not run"}},
		{"group flags of their own", with(map[string]string{
			"p/input_validators/a.cpp":          "int main(){return 42;}",
			"p/data/secret/g/testdata.yaml":     "input_validator_flags: small\n",
			"p/data/secret/testdata.yaml":       "input_validator_flags: big\n",
			"p/data/secret/other/testdata.yaml": "input_validator_flags: big\n",
		}), want{note: "data/secret/g/testdata.yaml gives input_validator_flags of its own"}},
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
				if !slices.Equal(v.Args, tc.want.args) {
					t.Errorf("validator %d: args %q, want %q", i, v.Args, tc.want.args)
				}
			}
			if !slices.Equal(paths, tc.want.paths) {
				t.Errorf("validators %q, want %q", paths, tc.want.paths)
			}
			if tc.want.note != "" && !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, tc.want.note) }) {
				t.Errorf("notes %q lack %q", p.Notes, tc.want.note)
			}
			for _, n := range p.Notes {
				if strings.Contains(n, "validators ignored") {
					t.Errorf("note %q: input validators are no longer ignored", n)
				}
			}
		})
	}
}

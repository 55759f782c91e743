package icpcpkg

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// isInteractive: problem.yaml declares an interactive problem: legacy
// `validation: custom interactive`, or 2023-07 `type: interactive` (a
// string of types or a list).
func isInteractive(meta map[string]any) bool {
	validation, _ := meta["validation"].(string)
	return slices.Contains(strings.Fields(validation), "interactive") || hasType(meta, "interactive")
}

// hasType reports whether problem.yaml's type (a string of words or a
// list) includes typ.
func hasType(meta map[string]any, typ string) bool {
	switch t := meta["type"].(type) {
	case string:
		return slices.Contains(strings.Fields(t), typ)
	case []any:
		for _, v := range t {
			if s, ok := v.(string); ok && strings.TrimSpace(s) == typ {
				return true
			}
		}
	}
	return false
}

// validatorDirs are where a package keeps its output validator: legacy
// and 2023-07.
var validatorDirs = []string{"output_validators/", "output_validator/"}

// readInteractor takes the output validator of an interactive package as
// its interactor (the Kattis convention): one C or C++ source file and the
// headers it includes, in one directory (output_validators/<name>/, or
// output_validator/ itself); the problem's validator_flags become its
// arguments.
func (p *Problem) readInteractor(files map[string][]byte, flags string) (*testpkg.Interactor, error) {
	v, err := p.readValidatorSource(files)
	if err != nil {
		return nil, err
	}
	if v.path == "" {
		return nil, fmt.Errorf("%w: problem.yaml: an interactive problem needs its output validator (the interactor), "+
			"a C or C++ file in output_validators/<name>/ or output_validator/", ErrInvalid)
	}
	it := &testpkg.Interactor{Convention: testpkg.ConventionKattis, Files: v.headers, Args: strings.Fields(flags),
		Source: v.source, Name: testpkg.InteractorCPP}
	if v.c {
		it.Name = testpkg.InteractorC
	}
	p.Notes = append(p.Notes, "interactive: the output validator "+v.path+" is the interactor (Kattis convention: exit 42 accepted, 43 wrong answer)")
	return it, nil
}

// validatorSource is a package's output validator: one C or C++ file and
// the headers beside it.
type validatorSource struct {
	path    string // in the package; "" when it has none
	source  []byte
	c       bool // C, not C++
	headers map[string][]byte
}

// readValidatorSource finds the output validator: one C or C++ source
// file and the headers it includes, in one directory
// (output_validators/<name>/, or output_validator/ itself).
func (p *Problem) readValidatorSource(files map[string][]byte) (validatorSource, error) {
	v := validatorSource{headers: map[string][]byte{}}
	var dir string
	for _, name := range slices.Sorted(maps.Keys(files)) { // the same package always names the same file
		var rel string
		for _, d := range validatorDirs {
			if strings.HasPrefix(name, d) {
				rel = strings.TrimPrefix(name, d)
			}
		}
		if rel == "" {
			continue
		}
		d, base := path.Split(rel)
		if strings.Count(d, "/") > 1 || (dir != "" && d != dir) {
			return v, fmt.Errorf("%w: %s: one output validator directory without subdirectories is supported (found %s and %s)",
				ErrUnsupported, name, strings.TrimSuffix(dir, "/"), strings.TrimSuffix(rel, "/"+base))
		}
		dir = d
		switch ext := path.Ext(base); ext {
		case ".c", ".cc", ".cpp", ".cxx", ".c++", ".C":
			if v.path != "" {
				return v, fmt.Errorf("%w: %s: the output validator has several source files (%s too); "+
					"Verdict compiles one C or C++ file with its headers", ErrUnsupported, name, v.path)
			}
			v.path, v.source, v.c = name, files[name], ext == ".c"
		case ".h", ".hh", ".hpp", ".hxx", ".h++":
			v.headers[base] = files[name]
		case ".py", ".java", ".kt", ".rs", ".go", ".js", ".sh":
			return v, fmt.Errorf("%w: %s: output validators in C or C++ only", ErrUnsupported, name)
		default:
			if base == "build" || base == "run" || base == "Makefile" {
				return v, fmt.Errorf("%w: %s: output validators with their own build or run script are not supported; "+
					"Verdict compiles one C or C++ file with its headers", ErrUnsupported, name)
			}
			p.Notes = append(p.Notes, "output validator file "+name+" ignored")
		}
	}
	return v, nil
}

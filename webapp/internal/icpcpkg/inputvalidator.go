package icpcpkg

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// InputValidator is a program of the package that checks every input of
// its test data; the web node has a judge run it at import (a failing
// input refuses the package).
type InputValidator struct {
	// Path is the validator's source in the package.
	Path string
	// Convention is protocol.ValidationKattis (exit 42 valid, 43
	// invalid) or protocol.ValidationTestlib (exit 0 valid).
	Convention string
	// C: a C source, not C++.
	C      bool
	Source []byte
	// Files are compiled with it, by base name (the headers beside it).
	Files map[string][]byte
	// Args follow the program's name (input_validator_flags).
	Args []string
}

// inputValidatorDirs are where an ICPC package keeps its input
// validators: legacy and 2023-07.
var inputValidatorDirs = []string{"input_format_validators/", "input_validators/"}

// readInputValidators finds the package's input validators: each C or C++
// file directly in input_validators/ (or the legacy
// input_format_validators/), and each directory there holding one C or
// C++ source with its headers. Validators in other languages (Python,
// checktestdata, viva) or with their own build scripts are not run, and
// noted. The flags are data's input_validator_flags (testdata.yaml);
// groups with flags of their own are noted and the validators not run.
func (p *Problem) readInputValidators(files map[string][]byte) {
	type dir struct {
		sources []string
		headers map[string][]byte
		other   []string
	}
	dirs := map[string]*dir{}
	var names []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		top := ""
		for _, d := range inputValidatorDirs {
			if strings.HasPrefix(name, d) {
				top = d
			}
		}
		if top == "" {
			continue
		}
		parts := strings.Split(strings.TrimPrefix(name, top), "/")
		key := name // a single-file validator
		if len(parts) > 1 {
			key = top + parts[0] // a validator's directory
		}
		d := dirs[key]
		if d == nil {
			d = &dir{headers: map[string][]byte{}}
			dirs[key] = d
			names = append(names, key)
		}
		base := path.Base(name)
		switch ext := path.Ext(base); {
		case len(parts) > 2: // deeper than a validator's directory
			d.other = append(d.other, name)
		case isCSource(ext):
			d.sources = append(d.sources, name)
		case isHeader(ext):
			d.headers[base] = files[name]
		default:
			d.other = append(d.other, name)
		}
	}
	if len(names) == 0 {
		return
	}
	args, ok := p.inputValidatorFlags(files)
	if !ok {
		return
	}
	for _, key := range names {
		d := dirs[key]
		if len(d.sources) != 1 || slices.ContainsFunc(d.other, func(n string) bool {
			b := path.Base(n)
			return b == "build" || b == "run" || b == "Makefile" || !strings.HasSuffix(b, ".md") && !strings.HasSuffix(b, ".txt")
		}) {
			p.Notes = append(p.Notes, "input validator "+key+" not run: Verdict runs input validators of one C or C++ source (with its headers)")
			continue
		}
		src := d.sources[0]
		v := InputValidator{Path: src, Convention: protocol.ValidationKattis, C: path.Ext(src) == ".c", Source: files[src], Args: args}
		if len(d.headers) > 0 {
			v.Files = d.headers
		}
		p.InputValidators = append(p.InputValidators, v)
	}
	if len(p.InputValidators) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("input validators run on every input at import: %d", len(p.InputValidators)))
	}
}

func isCSource(ext string) bool {
	switch ext {
	case ".c", ".cc", ".cpp", ".cxx", ".c++", ".C":
		return true
	}
	return false
}

func isHeader(ext string) bool {
	switch ext {
	case ".h", ".hh", ".hpp", ".hxx", ".h++":
		return true
	}
	return false
}

// inputValidatorFlags reads input_validator_flags from data/testdata.yaml
// (or data/secret/testdata.yaml); false, noted, when a group gives flags
// of its own (Verdict passes one set of flags to every input).
func (p *Problem) inputValidatorFlags(files map[string][]byte) ([]string, bool) {
	flagsOf := func(name string) (string, bool) {
		b, ok := files[name]
		if !ok {
			return "", false
		}
		m := map[string]any{}
		if yaml.Unmarshal(b, &m) != nil {
			return "", false
		}
		s, ok := m["input_validator_flags"].(string)
		return s, ok
	}
	var global string
	for _, n := range []string{"data/testdata.yaml", "data/secret/testdata.yaml"} {
		if s, ok := flagsOf(n); ok {
			global = s
			break
		}
	}
	for _, n := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasPrefix(n, "data/") || path.Base(n) != "testdata.yaml" || n == "data/testdata.yaml" || n == "data/secret/testdata.yaml" {
			continue
		}
		if s, ok := flagsOf(n); ok && strings.Join(strings.Fields(s), " ") != strings.Join(strings.Fields(global), " ") {
			p.Notes = append(p.Notes, "input validators not run: "+n+" gives input_validator_flags of its own (Verdict passes one set of flags to every input)")
			return nil, false
		}
	}
	return strings.Fields(global), true
}

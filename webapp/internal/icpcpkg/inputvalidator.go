package icpcpkg

import (
	"bytes"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/checktestdata"
)

// InputValidator is a program of the package that checks every input of
// its test data; the web node has a judge run it at import (a failing
// input refuses the package).
type InputValidator struct {
	// Path is the validator's main source in the package.
	Path string
	// Convention is protocol.ValidationKattis (exit 42 valid, 43
	// invalid) or protocol.ValidationTestlib (exit 0 valid).
	Convention string
	// Language is the judge language it is written in (c17, cpp17, py3,
	// java17, go); "" is C++, or C when C is set (Polygon's validators).
	Language string
	// C: a C source, not C++.
	C      bool
	Source []byte
	// Files are placed and compiled with it, by base name (the other
	// sources of a validator of several, the headers beside it).
	Files map[string][]byte
	// Args follow the program's name (input_validator_flags of data/);
	// CaseArgs, by case number (1-based), replace them for the inputs of
	// a test data group with flags of its own.
	Args     []string
	CaseArgs map[int][]string
}

// Lang is the judge language whose compiler v needs.
func (v InputValidator) Lang() string {
	switch {
	case v.Language != "":
		return v.Language
	case v.C:
		return "c17"
	}
	return "cpp17"
}

// MainName is the file name v's main source has on the judge: its own
// for a language that needs it (Java's class, Python's modules beside
// it), else protocol.ValidatorCPP or ValidatorC.
func (v InputValidator) MainName() string {
	switch v.Lang() {
	case "cpp17", "cpp20":
		if len(v.Files) == 0 || !slices.ContainsFunc(slices.Collect(maps.Keys(v.Files)), isCSourceName) {
			return protocol.ValidatorCPP
		}
	case "c17":
		if len(v.Files) == 0 || !slices.ContainsFunc(slices.Collect(maps.Keys(v.Files)), isCSourceName) {
			return protocol.ValidatorC
		}
	}
	return path.Base(v.Path)
}

func isCSourceName(n string) bool { return isCSource(path.Ext(n)) }

// inputValidatorDirs are where an ICPC package keeps its input
// validators: legacy and 2023-07.
var inputValidatorDirs = []string{"input_format_validators/", "input_validators/"}

// validatorLanguages: a program's language by its sources' file endings
// (the format's languages table), for the languages Verdict's judges
// run, with the entry point used when a program has several sources.
var validatorLanguages = []struct {
	id    string
	exts  []string
	entry string // "" any (C and C++ compile them all)
}{
	{"c17", []string{".c"}, ""},
	{"cpp17", []string{".cc", ".cpp", ".cxx", ".c++", ".C"}, ""},
	{"py3", []string{".py", ".py3"}, "main.py"},
	{"java17", []string{".java"}, "Main.java"},
	{"go", []string{".go"}, ""},
}

// readInputValidators finds the package's input validators in
// input_validators/ (or the legacy input_format_validators/): each
// program is a single file or a directory of files (the format's
// programs), in C, C++, Python 3, Java or Go (its language by its files'
// endings; several sources are compiled together, Python's and Java's
// entry point main.py or Main.java when there are several).
// checktestdata scripts (.ctd files) are parsed into Checktestdata,
// which the web node runs itself (CheckInputs); one that does not parse
// refuses the package, naming it and the line. Programs Verdict does not
// run are noted, saying the inputs were not checked by them: VIVA
// (.viva) files, programs with build/run scripts, Python 2, other
// languages. The flags are each test data group's input_validator_flags
// (groupSetting).
func (p *Problem) readInputValidators(files map[string][]byte) error {
	type dir struct {
		top     string   // the validators' directory it is in
		sources []string // every file of the program
		deep    bool     // files below a subdirectory
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
		key := name // a single-file program
		if len(parts) > 1 {
			key = top + parts[0] // a program's directory
		}
		d := dirs[key]
		if d == nil {
			d = &dir{top: top}
			dirs[key] = d
			names = append(names, key)
		}
		if len(parts) > 2 {
			d.deep = true
			continue
		}
		d.sources = append(d.sources, name)
	}
	if len(names) == 0 {
		return nil
	}
	notRun := func(key, why string) {
		p.Notes = append(p.Notes, "input validator "+key+" not run ("+why+"): the inputs were not checked by it")
	}
	for _, key := range names {
		d := dirs[key]
		// The program's name: its directory's, or a single file's (with or
		// without its ending: inputValidatorArgs tries both).
		progName := path.Base(key)
		var ctds []string
		var viva, scripts bool
		byLang := map[string][]string{}
		headers := map[string][]byte{}
		for _, n := range d.sources {
			b, ext := path.Base(n), path.Ext(n)
			switch {
			case ext == ".ctd":
				ctds = append(ctds, n)
			case ext == ".viva":
				viva = true
			case b == "build" || b == "run" || b == "Makefile":
				scripts = true
			case isHeader(ext):
				headers[b] = files[n]
			default:
				for _, l := range validatorLanguages {
					if slices.Contains(l.exts, ext) {
						byLang[l.id] = append(byLang[l.id], n)
					}
				}
			}
		}
		switch {
		case len(ctds) > 0:
			// checktestdata scripts: the web node runs them itself
			// (checktestdata.go).
			for _, n := range ctds {
				prog, err := checktestdata.Parse(files[n])
				if err != nil {
					return fmt.Errorf("%w: %s: %w", ErrInvalid, n, err)
				}
				p.Checktestdata = append(p.Checktestdata, Checktestdata{Path: n, Program: prog})
			}
			if len(byLang) > 0 || viva || scripts {
				notRun(key, "sources beside its checktestdata script: the script is run, they are not")
			}
			continue
		case viva:
			notRun(key, "VIVA: Verdict's judges do not run VIVA scripts")
			continue
		case scripts:
			notRun(key, "a program with its own build or run script: Verdict's judges build validators by their language")
			continue
		case d.deep:
			notRun(key, "files in a subdirectory of the program")
			continue
		case len(byLang) == 0:
			notRun(key, "no source in a language Verdict's judges run a validator in: C, C++, Python 3, Java, Go")
			continue
		case len(byLang) > 1:
			notRun(key, "sources of several languages: its language cannot be determined")
			continue
		}
		var langID string
		var srcs []string
		for id, s := range byLang {
			langID, srcs = id, s
		}
		main := srcs[0]
		if len(srcs) > 1 {
			for _, l := range validatorLanguages {
				if l.id != langID || l.entry == "" {
					continue
				}
				i := slices.IndexFunc(srcs, func(n string) bool { return path.Base(n) == l.entry })
				if i < 0 {
					notRun(key, fmt.Sprintf("several sources and no %s, the entry point", l.entry))
					main = ""
				} else {
					main = srcs[i]
				}
			}
			if main == "" {
				continue
			}
		}
		if langID == "py3" && bytes.HasPrefix(files[main], []byte("#!")) && strings.Contains(firstLine(files[main]), "python2") {
			notRun(key, "Python 2")
			continue
		}
		v := InputValidator{Path: main, Convention: protocol.ValidationKattis, Language: langID, C: langID == "c17", Source: files[main]}
		others := maps.Clone(headers)
		for _, n := range srcs {
			if n != main {
				others[path.Base(n)] = files[n]
			}
		}
		if len(others) > 0 {
			v.Files = others
		}
		if langID == "c17" || langID == "cpp17" {
			v.Language = "" // Lang: from C, as for Polygon's
		}
		v.Args, v.CaseArgs = p.inputValidatorArgs(files, progName)
		p.InputValidators = append(p.InputValidators, v)
	}
	if n := len(p.InputValidators) + len(p.Checktestdata); n > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("input validators run on every input at import: %d", n))
	}
	return nil
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return string(line)
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

// inputValidatorArgs are the arguments of the validator named name (its
// file or directory name): data/'s input_validator_flags for every
// input, and, by case, those of a test data group whose flags differ
// (groupSetting: a group without the key has its parent's). The flags
// are a string (every validator's), or a map from validator name to its
// flags (a validator not in it gets none); 2025-09's input_validator_args
// is a list or such a map of lists.
func (p *Problem) inputValidatorArgs(files map[string][]byte, name string) ([]string, map[int][]string) {
	argsOf := func(v any) []string {
		if m, ok := v.(map[string]any); ok {
			v = m[name]
			if v == nil {
				v = m[strings.TrimSuffix(name, path.Ext(name))]
			}
		}
		return settingArgs(v)
	}
	keys := []string{"input_validator_flags", "input_validator_args"}
	root, _ := groupSetting(files, "data", keys...)
	args := argsOf(root)
	var byCase map[int][]string
	for i, in := range p.InputNames {
		v, _ := groupSetting(files, path.Dir(in), keys...)
		if a := argsOf(v); !slices.Equal(a, args) {
			if byCase == nil {
				byCase = map[int][]string{}
			}
			byCase[i+1] = a
		}
	}
	return args, byCase
}

// settingArgs reads a flags setting: a string (split on spaces) or a
// list of strings.
func settingArgs(v any) []string {
	switch x := v.(type) {
	case string:
		if f := strings.Fields(x); len(f) > 0 {
			return f
		}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			} else {
				out = append(out, fmt.Sprint(e))
			}
		}
		return out
	}
	return nil
}

// groupSetting is the value of the first of keys that the test data
// group dir (data or a directory below it) has in effect, and the file
// giving it: the group's own test_group.yaml (2025-09) or testdata.yaml
// (legacy, 2023-07), else its parent group's, up to data/. A key missing
// from a group's file is inherited from the parent, as problemtools does
// (the legacy text says the closest ancestor's file is used when a group
// has none: the same). nil when no group up to data/ gives it.
func groupSetting(files map[string][]byte, dir string, keys ...string) (any, string) {
	for d := dir; ; d = path.Dir(d) {
		for _, f := range []string{d + "/test_group.yaml", d + "/testdata.yaml"} {
			b, ok := files[f]
			if !ok {
				continue
			}
			m := map[string]any{}
			if yaml.Unmarshal(b, &m) == nil {
				for _, k := range keys {
					if v, ok := m[k]; ok {
						return v, f
					}
				}
			}
			break // test_group.yaml, when there, is the group's file
		}
		if d == "data" || d == "." || d == "/" || !strings.HasPrefix(d, "data") {
			return nil, ""
		}
	}
}

// readOutputValidatorFlags applies the test data groups'
// output_validator_flags (2025-09: output_validator_args) to the
// package's output validator (its checker, the interactor of an
// interactive problem, or the default output validator): each case gets
// problem.yaml's validator_flags followed by its group's flags
// (groupSetting: inherited from the parent group when a group does not
// give them), as problemtools passes them; a case with group flags
// carries its arguments (testpkg.Package.ValidatorArgs). The default
// validator's flags must be its own (testpkg.ParseDefaultValidatorFlags):
// else the error names the group's file.
func (p *Problem) readOutputValidatorFlags(files map[string][]byte, pkg *testpkg.Package) error {
	keys := []string{"output_validator_flags", "output_validator_args"}
	var base []string
	switch {
	case pkg.Interactor != nil:
		base = pkg.Interactor.Args
	case p.Checker == CheckerSpecial:
		base = pkg.CheckerOptions.Args
	case p.Checker == CheckerICPC:
		base = p.ValidatorFlags
		pkg.DefaultValidatorFlags = slices.Clone(base)
	default:
		return nil
	}
	// A case whose group gives flags carries base + them (never empty,
	// so never lost to the manifest's omitempty); the others judge with
	// base.
	for i, in := range p.InputNames {
		v, file := groupSetting(files, path.Dir(in), keys...)
		flags := settingArgs(v)
		if len(flags) == 0 {
			continue
		}
		args := append(slices.Clone(base), flags...)
		if p.Checker == CheckerICPC && pkg.Interactor == nil {
			if _, err := testpkg.ParseDefaultValidatorFlags(args); err != nil {
				return fmt.Errorf("%w: %s: output_validator_flags (for the default output validator): %w", ErrInvalid, file, err)
			}
		}
		if pkg.ValidatorArgs == nil {
			pkg.ValidatorArgs = map[int][]string{}
		}
		pkg.ValidatorArgs[i+1] = args
	}
	return nil
}

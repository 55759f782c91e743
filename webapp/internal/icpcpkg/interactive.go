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
// its interactor (the Kattis convention): a program in one directory
// (output_validators/<name>/, or output_validator/ itself), as
// readValidatorSource finds it; the problem's validator_flags become its
// arguments.
func (p *Problem) readInteractor(files map[string][]byte, flags string) (*testpkg.Interactor, error) {
	v, err := p.readValidatorSource(files)
	if err != nil {
		return nil, err
	}
	if v.path == "" {
		return nil, fmt.Errorf("%w: problem.yaml: an interactive problem needs its output validator (the interactor), "+
			"a program in output_validators/<name>/ or output_validator/ (%s)", ErrInvalid, outputValidatorLanguages)
	}
	it := &testpkg.Interactor{Convention: testpkg.ConventionKattis, Files: v.files, Args: strings.Fields(flags),
		Source: v.source, Name: testpkg.InteractorCPP}
	switch {
	case v.lang != "":
		it.Name, it.Language = v.name, v.lang
	case v.c:
		it.Name = testpkg.InteractorC
	}
	p.Programs = map[string]string{"interactor": v.path}
	p.Notes = append(p.Notes, "interactive: the output validator "+v.path+v.langNote()+" is the interactor (Kattis convention: exit 42 accepted, 43 wrong answer)")
	return it, nil
}

// outputValidatorLanguages names the languages an output validator (or
// interactor) may be written in, for messages.
const outputValidatorLanguages = "C, C++, Python 3 or Java"

// validatorSource is a package's output validator: one C or C++ file and
// the headers beside it, or a Python 3 or Java program of one or more
// sources (testpkg.ProgramLanguages).
type validatorSource struct {
	path   string // in the package; "" when it has none
	source []byte
	c      bool   // C, not C++
	lang   string // the judge language of a Python or Java program; "" for C and C++
	name   string // the main source's file name (lang set)
	// files are compiled with it, by base name: the headers of a C or
	// C++ one, the other sources of a Python or Java one.
	files map[string][]byte
}

// langNote names v's language in a note, when it is not C or C++.
func (v validatorSource) langNote() string {
	switch v.lang {
	case "py3":
		return " (Python 3)"
	case "java17":
		return " (Java)"
	}
	return ""
}

// readValidatorSource finds the output validator in one directory
// (output_validators/<name>/, or output_validator/ itself): one C or C++
// source file and the headers it includes, or a Python 3 or Java program
// (one file, or several with main.py or Main.java the entry point, as for
// input validators). Other languages (Go, Kotlin, Rust...), several
// languages, and build or run scripts are refused: the judges would not
// run them.
func (p *Problem) readValidatorSource(files map[string][]byte) (validatorSource, error) {
	v := validatorSource{files: map[string][]byte{}}
	var dir string
	byLang := map[string][]string{}
	// The languages in the order their first source is met.
	var langs []string
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
		ext := path.Ext(base)
		switch {
		case isHeader(ext):
			v.files[base] = files[name]
			continue
		case base == "build" || base == "run" || base == "Makefile":
			return v, fmt.Errorf("%w: %s: output validators with their own build or run script are not supported; "+
				"Verdict builds an output validator in %s by its language", ErrUnsupported, name, outputValidatorLanguages)
		}
		id := ""
		for _, l := range validatorLanguages {
			if slices.Contains(l.exts, ext) {
				id = l.id
			}
		}
		switch {
		case id == "" && slices.Contains([]string{".kt", ".rs", ".js", ".sh", ".rb", ".cs", ".hs", ".ml", ".pas", ".scala"}, ext),
			id == "go":
			return v, fmt.Errorf("%w: %s: output validators in %s only", ErrUnsupported, name, outputValidatorLanguages)
		case id == "":
			p.Notes = append(p.Notes, "output validator file "+name+" ignored")
			continue
		}
		if byLang[id] == nil {
			langs = append(langs, id)
		}
		byLang[id] = append(byLang[id], name)
	}
	if len(langs) == 0 {
		return v, nil
	}
	if len(langs) > 1 {
		return v, fmt.Errorf("%w: %s: the output validator has sources of several languages (%s and %s)",
			ErrUnsupported, strings.TrimSuffix(validatorDirOf(byLang[langs[0]][0]), "/"), byLang[langs[0]][0], byLang[langs[1]][0])
	}
	id, srcs := langs[0], byLang[langs[0]]
	if id == "c17" || id == "cpp17" {
		if len(srcs) > 1 {
			return v, fmt.Errorf("%w: %s: the output validator has several source files (%s too); "+
				"Verdict compiles one C or C++ file with its headers", ErrUnsupported, srcs[1], srcs[0])
		}
		v.path, v.source, v.c = srcs[0], files[srcs[0]], id == "c17"
		return v, nil
	}
	main := srcs[0]
	if len(srcs) > 1 {
		for _, l := range validatorLanguages {
			if l.id != id {
				continue
			}
			i := slices.IndexFunc(srcs, func(n string) bool { return path.Base(n) == l.entry })
			if i < 0 {
				return v, fmt.Errorf("%w: %s: the output validator has several sources and no %s, the entry point",
					ErrUnsupported, srcs[0], l.entry)
			}
			main = srcs[i]
		}
	}
	if id == "py3" && strings.Contains(firstLine(files[main]), "python2") {
		return v, fmt.Errorf("%w: %s: a Python 2 output validator: Verdict's judges run Python 3", ErrUnsupported, main)
	}
	v.path, v.source, v.lang, v.name = main, files[main], id, path.Base(main)
	// The headers of a C or C++ program mean nothing to it: its other
	// sources only.
	v.files = map[string][]byte{}
	for _, n := range srcs {
		if n != main {
			v.files[path.Base(n)] = files[n]
		}
	}
	return v, nil
}

// validatorDirOf is the output validator directory a file is in.
func validatorDirOf(name string) string {
	d, _ := path.Split(name)
	return d
}

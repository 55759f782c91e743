package testpkg

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// A package's checker or interactor is C or C++ (CheckerName, CheckerC,
// InteractorCPP, InteractorC) unless it names a language: then it is a
// program in that language of the judge's table, compiled (or prepared)
// and run with that language's own commands. Its main source keeps its
// own name (Java's class, Python's main module beside the others), its
// other sources and files are its CheckerFiles / InteractorFiles. Such a
// task needs judges with protocol.CapabilityProgramLanguages.

// ProgramLanguages are the languages, by judge language id, a checker or
// interactor may be written in besides C and C++, with the endings their
// main source may have.
var ProgramLanguages = map[string][]string{
	"py3":    {".py", ".py3"},
	"java17": {".java"},
}

// ProgramLanguage is the language of a checker or interactor (a
// manifest's CheckerLanguage, InteractorLanguage): "" for C and C++.
func (m Manifest) ProgramLanguage() string {
	if m.CheckerLanguage != "" {
		return m.CheckerLanguage
	}
	return m.InteractorLanguage
}

// checkProgram validates the main source name of a checker or interactor
// (what: "checker", "interactor") written in language.
func checkProgram(what, name, language string) error {
	exts, ok := ProgramLanguages[language]
	if !ok {
		return fmt.Errorf("%w: %s: %s_language %q, want one of %s", ErrInvalid, ManifestName, what, language,
			strings.Join(slices.Sorted(maps.Keys(ProgramLanguages)), ", "))
	}
	if !safeName(name) || len(name) > MaxNameLen || reservedName(name) || !slices.Contains(exts, path.Ext(name)) {
		return fmt.Errorf("%w: %s: %s %q: a %s program's main source is a plain top-level file name ending in %s",
			ErrInvalid, ManifestName, what, name, language, strings.Join(exts, " or "))
	}
	return nil
}

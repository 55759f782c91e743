package testpkg

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Interactive problems: the package carries an interactor, a program the
// judge compiles once per package (like a checker) and runs beside every
// test's solution, the two connected by pipes (the solution's stdout is
// the interactor's stdin and the reverse). See docs/problems.md.
const (
	// InteractorCPP and InteractorC are the interactor's source file names
	// in a package (compiled with g++ -std=c++17, or gcc -std=gnu11).
	InteractorCPP = "interactor.cpp"
	InteractorC   = "interactor.c"

	// ConventionTestlib: `interactor input output answer`, the pipes on
	// stdin and stdout; exit 0 accepted, 1 wrong answer, 2 presentation
	// error, 3 judge failure, 7 partial points (as a checker); the report
	// on stderr. Its output file may be checked by the package's checker.
	ConventionTestlib = "testlib"
	// ConventionKattis: the ICPC / Kattis output validator run
	// interactively: `interactor input answer feedback_dir [args]`, the
	// pipes on stdin and stdout; exit 42 accepted, 43 wrong answer,
	// anything else a judge failure; judgemessage.txt / teammessage.txt
	// in feedback_dir.
	ConventionKattis = "kattis"

	// MaxInteractorFiles bounds the extra files (headers) compiled with an
	// interactor; each is at most MaxCheckerSize bytes, like the source.
	MaxInteractorFiles = 16
	// MaxInteractorArgs bounds the extra arguments of an interactor, each
	// at most MaxInteractorArgLen bytes.
	MaxInteractorArgs   = 32
	MaxInteractorArgLen = 256
)

// Interactor is an interactive problem's interactor in a Package.
type Interactor struct {
	// Name is InteractorCPP (default) or InteractorC; with Language, the
	// main source's own name (interactor.py, Main.java).
	Name string
	// Language is the judge language of an interactor not in C or C++
	// (ProgramLanguages, language.go); "" for C and C++. Files then hold
	// its other sources.
	Language string
	// Convention is ConventionTestlib (default) or ConventionKattis.
	Convention string
	// Source is the program's source.
	Source []byte
	// Files are further files compiled with it, by top-level name
	// (headers it includes: "testlib.h", "validate.h").
	Files map[string][]byte
	// Args follow the convention's own arguments (for Kattis, the
	// problem's validator flags).
	Args []string
}

// checkInteractive validates the interactive fields of m, alone and
// against the rest of the package.
func (m *Manifest) checkInteractive() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: "+format, append([]any{ErrInvalid, ManifestName}, args...)...)
	}
	if !m.Interactive {
		if m.Interactor != "" || m.InteractorConvention != "" || m.InteractorLanguage != "" || len(m.InteractorFiles) > 0 || len(m.InteractorArgs) > 0 {
			return bad("interactor fields without \"interactive\": true")
		}
		return nil
	}
	switch {
	case m.InteractorLanguage != "":
		if err := checkProgram("interactor", m.Interactor, m.InteractorLanguage); err != nil {
			return err
		}
		if slices.Contains(m.InteractorFiles, m.Interactor) {
			return bad("interactor_files: %q is the interactor itself", m.Interactor)
		}
	case m.Interactor == InteractorCPP, m.Interactor == InteractorC:
	case m.Interactor == "":
		return bad("an interactive problem needs its interactor (%q or %q)", InteractorCPP, InteractorC)
	default:
		return bad("interactor %q, want %q or %q", m.Interactor, InteractorCPP, InteractorC)
	}
	switch m.InteractorConvention {
	case ConventionTestlib, ConventionKattis:
	case "":
		m.InteractorConvention = ConventionTestlib
	default:
		return bad("interactor_convention %q, want %q or %q", m.InteractorConvention, ConventionTestlib, ConventionKattis)
	}
	if m.InteractorConvention == ConventionKattis && m.Checker != "" {
		return bad("a Kattis-convention interactor gives the verdict itself: the package cannot also have %s", CheckerName)
	}
	if len(m.InteractorFiles) > MaxInteractorFiles {
		return bad("%d interactor_files, limit %d", len(m.InteractorFiles), MaxInteractorFiles)
	}
	for i, f := range m.InteractorFiles {
		if !safeName(f) || len(f) > MaxNameLen || reservedName(f) || slices.Contains(m.InteractorFiles[:i], f) {
			return bad("interactor_files: %q is not a plain top-level file name of its own", f)
		}
	}
	if len(m.InteractorArgs) > MaxInteractorArgs {
		return bad("%d interactor_args, limit %d", len(m.InteractorArgs), MaxInteractorArgs)
	}
	for _, a := range m.InteractorArgs {
		if len(a) > MaxInteractorArgLen || strings.ContainsRune(a, 0) {
			return bad("interactor_args: an argument longer than %d bytes or with a NUL byte", MaxInteractorArgLen)
		}
	}
	return nil
}

// reservedName reports whether name is one of the package's own kinds of
// files (manifest, checker, interactor, N.in, N.ans).
func reservedName(name string) bool {
	switch name {
	case ManifestName, CheckerName, CheckerC, InteractorCPP, InteractorC:
		return true
	}
	base, ext, ok := strings.Cut(name, ".")
	idx, err := strconv.Atoi(base)
	return ok && err == nil && idx >= 1 && strconv.Itoa(idx) == base && (ext == "in" || ext == "ans")
}

// manifestFields fills m's interactive fields from it, checking sizes.
func (it *Interactor) manifestFields(m *Manifest) error {
	name := it.Name
	if name == "" {
		name = InteractorCPP
	}
	if len(it.Source) > MaxCheckerSize {
		return fmt.Errorf("%w: %s: %d bytes, limit %d", ErrInvalid, name, len(it.Source), MaxCheckerSize)
	}
	m.Interactive, m.Interactor, m.InteractorConvention, m.InteractorLanguage = true, name, it.Convention, it.Language
	if m.InteractorConvention == "" {
		m.InteractorConvention = ConventionTestlib
	}
	for _, f := range sortedKeys(it.Files) {
		if len(it.Files[f]) > MaxCheckerSize {
			return fmt.Errorf("%w: %s: %d bytes, limit %d", ErrInvalid, f, len(it.Files[f]), MaxCheckerSize)
		}
		m.InteractorFiles = append(m.InteractorFiles, f)
	}
	m.InteractorArgs = slices.Clone(it.Args)
	return nil
}

func sortedKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

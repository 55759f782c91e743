package testpkg

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// CheckerC is the file name of a checker written in C (compiled with gcc
// -std=gnu11); CheckerName (C++) is the usual one.
const CheckerC = "checker.c"

// TestlibHeader is the header testlib-style programs include. A package
// may carry its own copy (a top-level file compiled with the program,
// CheckerFiles or InteractorFiles): it wins over the judge's include
// directory (docs/problems.md, "testlib.h").
const TestlibHeader = "testlib.h"

// CheckerOptions describe a package's checker beyond its source.
type CheckerOptions struct {
	// Name is CheckerName (default) or CheckerC; with Language, the main
	// source's own name (validator.py, Main.java).
	Name string
	// Language is the judge language of a checker not in C or C++
	// (ProgramLanguages); "" for C and C++. Files then hold its other
	// sources.
	Language string
	// Convention is ConventionTestlib (default: `checker input output
	// answer`, exit 0/1/2/3/7) or ConventionKattis (a Kattis output
	// validator: `checker input answer feedback_dir [args] <
	// team_output`, exit 42 accepted, 43 wrong answer, the message in
	// feedback_dir/judgemessage.txt).
	Convention string
	// Files are further top-level files compiled with it (headers).
	Files map[string][]byte
	// Args follow the convention's own arguments (a Kattis problem's
	// validator_flags).
	Args []string
}

// manifestFields fills m's checker fields from o, checking sizes.
func (o CheckerOptions) manifestFields(m *Manifest, srcLen int) error {
	name := o.Name
	if name == "" {
		name = CheckerName
	}
	if srcLen > MaxCheckerSize {
		return fmt.Errorf("%w: %s: %d bytes, limit %d", ErrInvalid, name, srcLen, MaxCheckerSize)
	}
	m.Checker, m.CheckerConvention, m.CheckerLanguage = name, o.Convention, o.Language
	if m.CheckerConvention == ConventionTestlib {
		m.CheckerConvention = "" // the default, left out of the manifest
	}
	for _, f := range sortedKeys(o.Files) {
		if len(o.Files[f]) > MaxCheckerSize {
			return fmt.Errorf("%w: %s: %d bytes, limit %d", ErrInvalid, f, len(o.Files[f]), MaxCheckerSize)
		}
		m.CheckerFiles = append(m.CheckerFiles, f)
	}
	m.CheckerArgs = slices.Clone(o.Args)
	return nil
}

// checkChecker validates m's checker fields.
func (m *Manifest) checkChecker() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: "+format, append([]any{ErrInvalid, ManifestName}, args...)...)
	}
	if m.Checker == "" {
		if m.CheckerConvention != "" || m.CheckerLanguage != "" || len(m.CheckerFiles) > 0 || len(m.CheckerArgs) > 0 {
			return bad("checker fields without a checker")
		}
		return nil
	}
	if m.CheckerLanguage != "" {
		if err := checkProgram("checker", m.Checker, m.CheckerLanguage); err != nil {
			return err
		}
		if slices.Contains(m.CheckerFiles, m.Checker) {
			return bad("checker_files: %q is the checker itself", m.Checker)
		}
	}
	switch m.CheckerConvention {
	case "", ConventionKattis:
	case ConventionTestlib:
		m.CheckerConvention = ""
	default:
		return bad("checker_convention %q, want %q or %q", m.CheckerConvention, ConventionTestlib, ConventionKattis)
	}
	if len(m.CheckerFiles) > MaxInteractorFiles {
		return bad("%d checker_files, limit %d", len(m.CheckerFiles), MaxInteractorFiles)
	}
	for i, f := range m.CheckerFiles {
		if !safeName(f) || len(f) > MaxNameLen || reservedName(f) || slices.Contains(m.CheckerFiles[:i], f) {
			return bad("checker_files: %q is not a plain top-level file name of its own", f)
		}
	}
	if len(m.CheckerArgs) > MaxInteractorArgs {
		return bad("%d checker_args, limit %d", len(m.CheckerArgs), MaxInteractorArgs)
	}
	for _, a := range m.CheckerArgs {
		if len(a) > MaxInteractorArgLen || strings.ContainsRune(a, 0) {
			return bad("checker_args: an argument longer than %d bytes or with a NUL byte", MaxInteractorArgLen)
		}
	}
	return nil
}

// checkKattisScore: only a Kattis-convention output validator (the
// checker, or the interactor) writes score.txt.
func (m *Manifest) checkKattisScore() error {
	if m.KattisScore && !(m.Checker != "" && m.CheckerConvention == ConventionKattis) &&
		!(m.Interactive && m.InteractorConvention == ConventionKattis) {
		return fmt.Errorf("%w: %s: kattis_score without a Kattis-convention checker or interactor", ErrInvalid, ManifestName)
	}
	return nil
}

// includesTestlib matches an #include of testlib.h (either form).
var includesTestlib = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*include[ \t]*[<"]testlib\.h[>"]`)

// IncludesTestlib reports whether a C or C++ source includes testlib.h.
func IncludesTestlib(src []byte) bool {
	return bytes.Contains(src, []byte("testlib.h")) && includesTestlib.Match(src)
}

// NeedsJudgeTestlib reports whether the package's checker or interactor
// includes testlib.h without carrying its own copy: it then compiles only
// on judges that have testlib.h in their include directory. It names the
// program that needs it.
func (p Package) NeedsJudgeTestlib() (string, bool) {
	if p.Checker != nil && p.CheckerOptions.Language == "" && IncludesTestlib(p.Checker) && p.CheckerOptions.Files[TestlibHeader] == nil {
		name := p.CheckerOptions.Name
		if name == "" {
			name = CheckerName
		}
		return name, true
	}
	if it := p.Interactor; it != nil && it.Language == "" && IncludesTestlib(it.Source) && it.Files[TestlibHeader] == nil {
		name := it.Name
		if name == "" {
			name = InteractorCPP
		}
		return name, true
	}
	return "", false
}

// ZipNeedsJudgeTestlib is Package.NeedsJudgeTestlib for a package zip
// already read (m is its manifest, from Read or CheckBytes).
func ZipNeedsJudgeTestlib(zipBytes []byte, m Manifest) (string, bool, error) {
	zr, err := zip.NewReader(bytes.NewReader(zipBytes), int64(len(zipBytes)))
	if err != nil {
		return "", false, fmt.Errorf("%w: not a zip file: %w", ErrInvalid, err)
	}
	source := func(name string) ([]byte, error) {
		f, err := zr.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInvalid, name, err)
		}
		defer f.Close()
		return io.ReadAll(io.LimitReader(f, MaxCheckerSize))
	}
	type prog struct {
		name  string
		files []string
	}
	var progs []prog
	if m.Checker != "" && m.CheckerLanguage == "" {
		progs = append(progs, prog{m.Checker, m.CheckerFiles})
	}
	if m.Interactive && m.InteractorLanguage == "" {
		progs = append(progs, prog{m.Interactor, m.InteractorFiles})
	}
	for _, p := range progs {
		if slices.Contains(p.files, TestlibHeader) {
			continue
		}
		b, err := source(p.name)
		if err != nil {
			return "", false, err
		}
		if IncludesTestlib(b) {
			return p.name, true, nil
		}
	}
	return "", false, nil
}

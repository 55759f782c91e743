package polygon

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/icpcpkg"
)

// Polygon names a program's language by its source type (<source
// type="cpp.g++17">): cpp.* and c.* for C++ and C, python.3 /
// python.pypy3* for Python 3, python.2 / python.pypy2 for Python 2,
// java8, java11, java21 for Java, go, and others (kotlin*, pascal.*,
// delphi, csharp.*, rust, d, haskell, …). Without a type the file's ending
// says it.

// sourceTypes map Polygon's source types to the judge language a program
// of that type is built with, by pattern.
var sourceTypes = []struct {
	re   *regexp.Regexp
	lang string
}{
	{regexp.MustCompile(`^cpp\.`), "cpp17"},
	{regexp.MustCompile(`^c\.`), "c17"},
	{regexp.MustCompile(`^python\.(3|pypy3)`), "py3"},
	{regexp.MustCompile(`^java(\d|\.\d|$)`), "java17"},
	{regexp.MustCompile(`^go($|\.)`), "go"},
}

// extLanguages: a source without a type, by its ending.
var extLanguages = map[string]string{
	".cpp": "cpp17", ".cc": "cpp17", ".cxx": "cpp17", ".c": "c17",
	".py": "py3", ".java": "java17", ".go": "go",
}

// languageOfSource is the judge language a program with Polygon source s
// is built with ("cpp17", "c17", "py3", "java17", "go"), or "" when no
// judge language builds it (Python 2, Pascal, Kotlin, …).
func languageOfSource(s xmlSource) string {
	t := strings.TrimSpace(s.Type)
	if t == "" {
		return extLanguages[strings.ToLower(path.Ext(s.Path))]
	}
	for _, st := range sourceTypes {
		if st.re.MatchString(t) {
			return st.lang
		}
	}
	return ""
}

// describe names a source's type for messages: its type, else its ending.
func describe(s xmlSource) string {
	if t := strings.TrimSpace(s.Type); t != "" {
		return "type " + t
	}
	if e := path.Ext(s.Path); e != "" {
		return "a " + e + " file"
	}
	return "a file without a type"
}

// program is how the test data package carries a checker or interactor
// (what: "checker", "interactor") with source s: its name in the package
// and, for a program not in C or C++, its judge language
// (testpkg.ProgramLanguages). Languages the judges do not build
// checkers and interactors in refuse the package, naming the file and
// its type.
func program(what string, s xmlSource, cpp, c string) (name, language string, err error) {
	lang := languageOfSource(s)
	switch {
	case lang == "cpp17":
		return cpp, "", nil
	case lang == "c17":
		return c, "", nil
	case lang == "java17" && path.Ext(s.Path) != ".java":
		return "", "", fmt.Errorf("%w: %s: the %s is %s, but a Java source's file ends in .java (its class's name)", ErrInvalid, s.Path, what, describe(s))
	case testpkg.ProgramLanguages[lang] != nil:
		name := path.Base(s.Path)
		if lang == "py3" && path.Ext(name) != ".py" && path.Ext(name) != ".py3" {
			name = strings.TrimSuffix(name, path.Ext(name)) + ".py"
		}
		return name, lang, nil
	}
	why := "Verdict's judges build checkers and interactors in C, C++, Python 3 or Java only"
	if strings.HasPrefix(strings.TrimSpace(s.Type), "python.2") || strings.HasPrefix(strings.TrimSpace(s.Type), "python.pypy2") {
		why = "Python 2, which Verdict's judges do not run (" + why + ")"
	}
	return "", "", fmt.Errorf("%w: %s: the %s is %s: %s", ErrUnsupported, s.Path, what, describe(s), why)
}

// validatorOf is the input validator of source s (testlib's convention:
// exit 0 valid), or why it is not run: judges run validators in C, C++,
// Python 3, Java and Go.
func validatorOf(s xmlSource, src []byte, headers map[string][]byte) (icpcpkg.InputValidator, string) {
	v := icpcpkg.InputValidator{Path: s.Path, Convention: protocol.ValidationTestlib, Source: src}
	switch lang := languageOfSource(s); lang {
	case "cpp17", "c17":
		v.C, v.Files = lang == "c17", includedHeaders(src, headers)
		return v, ""
	case "py3", "java17", "go":
		v.Language = lang
		return v, ""
	}
	return v, fmt.Sprintf("validator %s (%s) not run: Verdict's judges run validators in C, C++, Python 3, Java or Go; "+
		"the tests were not checked by it", s.Path, describe(s))
}

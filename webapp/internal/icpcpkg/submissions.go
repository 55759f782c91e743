package icpcpkg

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// Expected verdicts of reference solutions, by the submissions/
// directory that holds them (the web node's verdict codes).
const (
	ExpectAC  = "AC"
	ExpectWA  = "WA"
	ExpectTLE = "TLE"
	ExpectRE  = "RE"
)

// Bounds of the reference solutions imported.
const (
	MaxSolutions      = 64
	MaxSolutionSource = 256 << 10
)

// submissionDirs maps an ICPC submissions/ directory to the verdict its
// solutions must get.
var submissionDirs = map[string]string{
	"accepted":            ExpectAC,
	"wrong_answer":        ExpectWA,
	"time_limit_exceeded": ExpectTLE,
	"run_time_error":      ExpectRE,
}

// languageOf maps a source's extension to a judge language id.
var languageOf = map[string]string{
	".c": "c17", ".cc": "cpp17", ".cpp": "cpp17", ".cxx": "cpp17", ".c++": "cpp17",
	".py": "py3", ".java": "java17", ".go": "go",
}

// Solution is a reference solution of a package: staff run it against
// the imported problem and see whether it gets Expected.
type Solution struct {
	// Name is its path in the package (submissions/accepted/x.cpp).
	Name     string
	Language string
	Source   string
	// Expected is ExpectAC, ExpectWA, ExpectTLE or ExpectRE.
	Expected string
}

// readSubmissions reads submissions/<verdict>/<file>: one source file
// per solution in a language the judges have (a solution that is a
// directory of files, or in another language, is noted and left out).
func (p *Problem) readSubmissions(files map[string][]byte) ([]Solution, error) {
	var out []Solution
	noted := map[string]bool{}
	note := func(s string) {
		if !noted[s] {
			noted[s] = true
			p.Notes = append(p.Notes, s)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		rest, ok := strings.CutPrefix(name, "submissions/")
		if !ok {
			continue
		}
		dir, file, ok := strings.Cut(rest, "/")
		expected, known := submissionDirs[dir]
		switch {
		case !ok:
			continue
		case !known:
			note("submissions/" + dir + " ignored (reference solutions are read from accepted, wrong_answer, time_limit_exceeded, run_time_error)")
			continue
		case strings.Contains(file, "/"):
			note("submissions/" + dir + "/" + strings.SplitN(file, "/", 2)[0] + ": a solution of several files is not imported")
			continue
		}
		lang := languageOf[path.Ext(file)]
		if lang == "" {
			note(name + ": not a C, C++, Python, Java or Go source; not imported")
			continue
		}
		b := files[name]
		if len(b) > MaxSolutionSource || !utf8.Valid(b) {
			return nil, fmt.Errorf("%w: %s: a reference solution must be UTF-8 of at most %d bytes", ErrInvalid, name, MaxSolutionSource)
		}
		if len(out) == MaxSolutions {
			note(fmt.Sprintf("only the first %d reference solutions are imported", MaxSolutions))
			break
		}
		out = append(out, Solution{Name: name, Language: lang, Source: string(b), Expected: expected})
	}
	if len(out) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%d reference solutions imported: run them from the problem's admin page", len(out)))
	}
	return out, nil
}

package icpcpkg

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// Errors. Every error wraps one of them and names the file at fault.
var (
	// ErrInvalid: not a readable ICPC package.
	ErrInvalid = errors.New("icpc package: invalid")
	// ErrUnsupported: a feature Verdict cannot import (validators not in
	// C or C++ or with their own build scripts, custom graders, unbounded
	// scores).
	ErrUnsupported = errors.New("icpc package: unsupported")
)

// Limits bound what Convert reads.
type Limits struct {
	// MaxFiles in the zip. Default 20000.
	MaxFiles int
	// MaxBytes decompressed in total. Default 1 GiB.
	MaxBytes int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxFiles <= 0 {
		l.MaxFiles = 20000
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = 1 << 30
	}
	return l
}

// Checkers, as the web node names them.
const (
	CheckerDefault = "default"
	// CheckerICPC: the format's default output validator, with the
	// package's flags (Problem.ValidatorFlags, the test data package's
	// DefaultValidatorFlags and per-case ValidatorArgs).
	CheckerICPC = "icpc"
)

// Modes, as the web node names them.
const (
	ModeICPC = "icpc"
	ModeIOI  = "ioi"
)

// Problem is what the package says about the problem. Zero limits mean the
// package does not give one (the caller keeps its default).
type Problem struct {
	// ShortName is the package's directory name when the zip has one (a
	// slug suggestion), else "".
	ShortName     string
	Title         string
	Statement     string
	TimeLimitMs   int
	MemoryLimitKB int
	Checker       string
	// ValidatorFlags are problem.yaml's validator_flags when the checker
	// is CheckerICPC (checked: testpkg.ParseDefaultValidatorFlags).
	ValidatorFlags []string
	Mode           string
	// Interactive: the package's output validator is the interactor (the
	// test data package carries it; Checker stays the default, unused).
	Interactive bool
	// Solutions are the package's reference solutions (submissions/),
	// each with the verdict its directory expects (submissions.go).
	Solutions []Solution
	// InputFile and OutputFile: the problem reads or writes named files
	// instead of stdin and stdout ("": the standard stream; a Polygon
	// package's input-file / output-file).
	InputFile, OutputFile string
	// Notes lists what was not imported, for the person importing.
	Notes []string
	// Assets are the statement's images and the package's attachments
	// (statement.go); the statement links them with AssetLink(name).
	Assets []Asset
	// InputValidators check every input at import (inputvalidator.go).
	InputValidators []InputValidator
	// Checktestdata are the package's checktestdata scripts, which the
	// web node runs over every input at import (CheckInputs,
	// checktestdata.go).
	Checktestdata []Checktestdata
	// Programs are the package's paths of the test data's checker and
	// interactor ("checker", "interactor": output_validators/v/v.py), for
	// messages about them (their build check at import).
	Programs map[string]string
	// InputNames are the package's names of the cases' inputs, in case
	// order (data/secret/3.in), for messages about one input.
	InputNames []string
}

// Convert reads an ICPC problem package (a zip) and returns the problem and
// its test data package.
func Convert(zipBytes []byte, lim Limits) (Problem, testpkg.Package, error) {
	lim = lim.withDefaults()
	var p Problem
	var pkg testpkg.Package
	zr, err := zip.NewReader(bytes.NewReader(zipBytes), int64(len(zipBytes)))
	if err != nil {
		return p, pkg, fmt.Errorf("%w: not a zip file: %w", ErrInvalid, err)
	}
	if len(zr.File) > lim.MaxFiles {
		return p, pkg, fmt.Errorf("%w: %d files, limit %d", ErrInvalid, len(zr.File), lim.MaxFiles)
	}
	files, root, err := readAll(zr, lim.MaxBytes)
	if err != nil {
		return p, pkg, err
	}
	p.ShortName = root
	meta := map[string]any{}
	if b, ok := files["problem.yaml"]; ok {
		if err := yaml.Unmarshal(b, &meta); err != nil {
			return p, pkg, fmt.Errorf("%w: problem.yaml: %w", ErrInvalid, err)
		}
		if meta == nil {
			meta = map[string]any{}
		}
	} else {
		p.Notes = append(p.Notes, "no problem.yaml: default name, limits and checker")
	}
	if err := p.readMeta(meta, files); err != nil {
		return p, pkg, err
	}
	if err := p.readStatement(files); err != nil {
		return p, pkg, err
	}
	if err := p.readAttachments(files); err != nil {
		return p, pkg, err
	}
	if err := p.checkUnsupported(meta, files); err != nil {
		return p, pkg, err
	}
	pkg, err = p.readData(files)
	if err != nil {
		return p, pkg, err
	}
	if err := p.readGrading(files, &pkg); err != nil { // grading.go
		return p, pkg, err
	}
	p.appendSamples(pkg) // statement.go
	if p.Interactive {
		flags, _ := meta["validator_flags"].(string)
		if pkg.Interactor, err = p.readInteractor(files, flags); err != nil {
			return p, pkg, err
		}
	}
	if isCustom(meta, files) {
		if err := p.readValidator(meta, files, &pkg); err != nil {
			return p, pkg, err
		}
	} else if !p.Interactive {
		p.Notes = append(p.Notes, unusedValidator(files)...)
	}
	if err := p.readOutputValidatorFlags(files, &pkg); err != nil { // inputvalidator.go
		return p, pkg, err
	}
	if p.Solutions, err = p.readSubmissions(files); err != nil {
		return p, pkg, err
	}
	if err := p.readInputValidators(files); err != nil { // inputvalidator.go
		return p, pkg, err
	}
	for _, dir := range []string{"generators/", "problem_statement/", "statement/"} {
		for name := range files {
			if strings.HasPrefix(name, dir) && !strings.HasSuffix(name, ".md") {
				if dir == "problem_statement/" || dir == "statement/" {
					if strings.HasSuffix(name, ".tex") || slices.ContainsFunc(p.Assets, func(a Asset) bool { return a.Name == path.Base(name) }) {
						continue
					}
					p.Notes = append(p.Notes, "statement files the statement does not show are not imported ("+dir+")")
				} else {
					p.Notes = append(p.Notes, strings.TrimSuffix(dir, "/")+" ignored")
				}
				break
			}
		}
	}
	slices.Sort(p.Notes)
	p.Notes = slices.Compact(p.Notes)
	return p, pkg, nil
}

// readAll decompresses every file, counting real bytes against max, with
// names relative to the package root (a single top directory is stripped).
func readAll(zr *zip.Reader, max int64) (map[string][]byte, string, error) {
	var names []string
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		n := strings.ReplaceAll(f.Name, `\`, "/")
		if n != path.Clean(n) || strings.HasPrefix(n, "/") || strings.HasPrefix(n, "../") || n == ".." {
			return nil, "", fmt.Errorf("%w: %s: unsafe file name", ErrInvalid, f.Name)
		}
		names = append(names, n)
	}
	// A package zipped with its directory: problem.yaml or data/ under one
	// top-level directory. A package zipped without one may also have all
	// its files under one directory (data/, when it has no problem.yaml):
	// that directory is not stripped.
	looksLikePackage := func(prefix string) bool {
		for _, n := range names {
			if n == prefix+"problem.yaml" || strings.HasPrefix(n, prefix+"data/") {
				return true
			}
		}
		return false
	}
	root := ""
	if len(names) > 0 {
		first, _, ok := strings.Cut(names[0], "/")
		all := ok
		for _, n := range names {
			if !strings.HasPrefix(n, first+"/") {
				all = false
				break
			}
		}
		if all && (looksLikePackage(first+"/") || !looksLikePackage("")) {
			root = first
		}
	}
	files := map[string][]byte{}
	var total int64
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		n := strings.ReplaceAll(f.Name, `\`, "/")
		if root != "" {
			n = strings.TrimPrefix(n, root+"/")
		}
		rc, err := f.Open()
		if err != nil {
			return nil, "", fmt.Errorf("%w: %s: %w", ErrInvalid, f.Name, err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, max-total+1))
		rc.Close()
		if err != nil {
			return nil, "", fmt.Errorf("%w: %s: %w", ErrInvalid, f.Name, err)
		}
		total += int64(len(b))
		if total > max {
			return nil, "", fmt.Errorf("%w: more than %d bytes decompressed (at %s)", ErrInvalid, max, f.Name)
		}
		files[n] = b
	}
	return files, root, nil
}

func (p *Problem) readMeta(meta map[string]any, files map[string][]byte) error {
	switch name := meta["name"].(type) {
	case string:
		p.Title = strings.TrimSpace(name)
	case map[string]any:
		for _, lang := range preferredLangs(keys(name)) {
			if s, ok := name[lang].(string); ok && strings.TrimSpace(s) != "" {
				p.Title = strings.TrimSpace(s)
				break
			}
		}
	}
	p.Mode = ModeICPC
	typ, _ := meta["type"].(string)
	validation, _ := meta["validation"].(string)
	if typ == "scoring" || hasType(meta, "scoring") || strings.Contains(validation, "score") {
		p.Mode = ModeIOI
	}
	p.Checker = CheckerDefault
	p.Interactive = isInteractive(meta)
	flags, _ := meta["validator_flags"].(string)
	if !p.Interactive && !isCustom(meta, files) { // else the flags are the validator's arguments (readInteractor, readValidator)
		if err := p.readFlags(flags); err != nil {
			return err
		}
	}
	if lm, ok := meta["limits"].(map[string]any); ok {
		if v, ok := number(lm["time_limit"]); ok {
			if v <= 0 || v > 3600 {
				return fmt.Errorf("%w: problem.yaml: limits.time_limit %v is not a number of seconds", ErrInvalid, lm["time_limit"])
			}
			p.TimeLimitMs = int(math.Round(v * 1000))
		}
		if v, ok := number(lm["memory"]); ok {
			if v <= 0 || v > 1<<20 {
				return fmt.Errorf("%w: problem.yaml: limits.memory %v is not a number of MiB", ErrInvalid, lm["memory"])
			}
			p.MemoryLimitKB = int(v) * 1024
		}
	}
	if b, ok := files[".timelimit"]; ok && p.TimeLimitMs == 0 {
		v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if err != nil || v <= 0 || v > 3600 {
			return fmt.Errorf("%w: .timelimit: %q is not a number of seconds", ErrInvalid, strings.TrimSpace(string(b)))
		}
		p.TimeLimitMs = int(math.Round(v * 1000))
	}
	if p.TimeLimitMs == 0 {
		p.Notes = append(p.Notes, "no time limit in the package (problemtools derives it from the submissions): set one")
	}
	return nil
}

// readFlags takes problem.yaml's validator_flags for the default output
// validator: the checker CheckerICPC judges with them, as the format
// defines them; flags it does not define refuse the package.
func (p *Problem) readFlags(flags string) error {
	f := strings.Fields(flags)
	if _, err := testpkg.ParseDefaultValidatorFlags(f); err != nil {
		return fmt.Errorf("%w: problem.yaml: validator_flags: %w", ErrInvalid, err)
	}
	p.Checker, p.ValidatorFlags = CheckerICPC, f
	return nil
}

func (p *Problem) readStatement(files map[string][]byte) error {
	var mds, texs []string
	for name := range files {
		dir, base := path.Split(name)
		if dir != "problem_statement/" && dir != "statement/" {
			continue
		}
		switch {
		case strings.HasPrefix(base, "problem") && strings.HasSuffix(base, ".md"):
			mds = append(mds, name)
		case strings.HasPrefix(base, "problem") && strings.HasSuffix(base, ".tex"):
			texs = append(texs, name)
		}
	}
	pick := func(names []string) string {
		slices.Sort(names)
		for _, lang := range []string{"en", "", "zh"} {
			for _, n := range names {
				base := path.Base(n)
				if (lang == "" && (base == "problem.md" || base == "problem.tex")) ||
					(lang != "" && strings.Contains(base, "."+lang+".")) {
					return n
				}
			}
		}
		return names[0]
	}
	if len(mds) > 0 {
		b := files[pick(mds)]
		if !utf8Valid(b) {
			return fmt.Errorf("%w: %s: not UTF-8", ErrInvalid, pick(mds))
		}
		p.Statement = string(b)
		return p.readMarkdownImages(pick(mds), files)
	}
	if len(texs) > 0 {
		return p.readLaTeXStatement(pick(texs), files)
	}
	p.Notes = append(p.Notes, "no statement in the package")
	return nil
}

// checkUnsupported refuses what a package declares wrongly (custom output
// validators are read by readValidator).
func (p *Problem) checkUnsupported(meta map[string]any, files map[string][]byte) error {
	if err := checkGraderFlags(files); err != nil {
		return err
	}
	if p.Interactive {
		return nil // its output validator is the interactor (readInteractor)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) { // the same package always names the same file
		if strings.HasSuffix(name, ".interaction") {
			return fmt.Errorf("%w: %s: a sample interaction, but problem.yaml does not declare the problem interactive "+
				"(validation: custom interactive)", ErrInvalid, name)
		}
	}
	return nil
}

// checkGraderFlags refuses a test data group whose grader_flags (legacy
// testdata.yaml) hold accept_if_any_accepted: the default grader then
// accepts the group when any of its cases (or subgroups) is accepted,
// and Verdict accepts a group, a subtask or a problem only when every
// case is; judging such a package would misjudge it.
func checkGraderFlags(files map[string][]byte) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasPrefix(name, "data/") || (path.Base(name) != "testdata.yaml" && path.Base(name) != "test_group.yaml") {
			continue
		}
		m := map[string]any{}
		if yaml.Unmarshal(files[name], &m) != nil {
			continue // readSettings names the file where it matters
		}
		if slices.Contains(settingArgs(m["grader_flags"]), "accept_if_any_accepted") {
			return fmt.Errorf("%w: %s: grader_flags accept_if_any_accepted (the group is accepted when any of its cases is) "+
				"is not supported: Verdict accepts a group only when all its cases are accepted", ErrUnsupported, name)
		}
	}
	return nil
}

// readData collects data/sample and data/secret cases in path order and,
// for scoring problems, the groups of data/secret as subtasks.
func (p *Problem) readData(files map[string][]byte) (testpkg.Package, error) {
	var pkg testpkg.Package
	type group struct {
		name  string
		cases []int
	}
	var groups []*group
	byName := map[string]*group{}
	for _, part := range []string{"data/sample/", "data/secret/"} {
		var ins []string
		for name := range files {
			if strings.HasPrefix(name, part) && strings.HasSuffix(name, ".in") {
				ins = append(ins, name)
			}
		}
		sort.Strings(ins)
		for _, in := range ins {
			ansName := strings.TrimSuffix(in, ".in") + ".ans"
			ans, ok := files[ansName]
			if !ok {
				return pkg, fmt.Errorf("%w: %s has no %s", ErrInvalid, in, path.Base(ansName))
			}
			pkg.Cases = append(pkg.Cases, testpkg.Case{In: files[in], Ans: ans})
			p.InputNames = append(p.InputNames, in)
			if part == "data/sample/" {
				pkg.Samples = append(pkg.Samples, len(pkg.Cases))
			}
			gname := "sample"
			if part == "data/secret/" {
				rest := strings.TrimPrefix(in, part)
				gname = "secret"
				if dir, _, ok := strings.Cut(rest, "/"); ok {
					gname = dir
				}
			}
			g := byName[gname]
			if g == nil {
				g = &group{name: gname}
				byName[gname] = g
				groups = append(groups, g)
			}
			g.cases = append(g.cases, len(pkg.Cases))
		}
	}
	if len(pkg.Cases) == 0 {
		return pkg, fmt.Errorf("%w: data/: no test cases (data/sample/*.in and data/secret/*.in with their .ans)", ErrInvalid)
	}
	if p.Mode != ModeIOI {
		return pkg, nil
	}
	var scored []scoreGroup
	for _, g := range groups {
		if g.name != "sample" {
			scored = append(scored, scoreGroup{name: g.name, cases: g.cases})
		}
	}
	if len(scored) == 0 {
		return pkg, fmt.Errorf("%w: data/secret: a scoring problem needs secret test cases", ErrInvalid)
	}
	var samples []int
	if g := byName["sample"]; g != nil {
		samples = g.cases
	}
	return pkg, p.scoringSubtasks(files, &pkg, scored, samples) // scoring.go
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case float64:
		return n, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		return f, err == nil
	}
	return 0, false
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// preferredLangs orders language codes: English, then Chinese, then the rest.
func preferredLangs(langs []string) []string {
	rank := func(l string) int {
		switch {
		case l == "en":
			return 0
		case strings.HasPrefix(l, "zh"):
			return 1
		}
		return 2
	}
	sort.SliceStable(langs, func(i, j int) bool { return rank(langs[i]) < rank(langs[j]) })
	return langs
}

func utf8Valid(b []byte) bool { return utf8.Valid(b) }

package polygon

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/icpcpkg"
)

// Errors. Every error wraps one of them and names the file at fault.
var (
	// ErrInvalid: not a readable Polygon package.
	ErrInvalid = errors.New("polygon package: invalid")
	// ErrUnsupported: a feature Verdict cannot import.
	ErrUnsupported = errors.New("polygon package: unsupported")
)

// Solution is one of the package's solutions.
type Solution struct {
	// Path in the package (solutions/sol.cpp).
	Path string
	// Tag is Polygon's: main, accepted, rejected, wrong-answer,
	// time-limit-exceeded, time-limit-exceeded-or-accepted,
	// memory-limit-exceeded, presentation-error, failed, …
	Tag string
	// Type is Polygon's source type (cpp.g++17, java11, python.3, …).
	Type   string
	Source []byte
}

// Source is a program of the package (a validator).
type Source struct {
	Path   string
	Type   string
	Source []byte
}

// Result is what Convert reads.
type Result struct {
	Problem    icpcpkg.Problem
	Testdata   testpkg.Package
	Solutions  []Solution
	Validators []Source
}

// IsPolygon reports whether a zip holds a Polygon package: problem.xml at
// its top or under its single top directory.
func IsPolygon(zipBytes []byte) bool {
	zr, err := zip.NewReader(bytes.NewReader(zipBytes), int64(len(zipBytes)))
	if err != nil {
		return false
	}
	for _, f := range zr.File {
		n := strings.ReplaceAll(f.Name, `\`, "/")
		if n == "problem.xml" || (strings.Count(n, "/") == 1 && strings.HasSuffix(n, "/problem.xml")) {
			return true
		}
	}
	return false
}

// The parts of problem.xml that Convert reads.
type xmlProblem struct {
	ShortName string `xml:"short-name,attr"`
	Names     []struct {
		Language string `xml:"language,attr"`
		Value    string `xml:"value,attr"`
	} `xml:"names>name"`
	Statements []struct {
		Language string `xml:"language,attr"`
		Path     string `xml:"path,attr"`
		Type     string `xml:"type,attr"`
	} `xml:"statements>statement"`
	Judging struct {
		InputFile  string       `xml:"input-file,attr"`
		OutputFile string       `xml:"output-file,attr"`
		Testsets   []xmlTestset `xml:"testset"`
	} `xml:"judging"`
	Resources []xmlSource `xml:"files>resources>file"`
	Assets    struct {
		Checker *struct {
			Name   string    `xml:"name,attr"`
			Type   string    `xml:"type,attr"`
			Source xmlSource `xml:"source"`
		} `xml:"checker"`
		Interactor *struct {
			Source xmlSource `xml:"source"`
		} `xml:"interactor"`
		Validators []struct {
			Source xmlSource `xml:"source"`
		} `xml:"validators>validator"`
		Solutions []struct {
			Tag    string    `xml:"tag,attr"`
			Source xmlSource `xml:"source"`
		} `xml:"solutions>solution"`
	} `xml:"assets"`
}

type xmlSource struct {
	Path string `xml:"path,attr"`
	Type string `xml:"type,attr"`
}

type xmlTestset struct {
	Name          string `xml:"name,attr"`
	TimeLimit     string `xml:"time-limit"`
	MemoryLimit   string `xml:"memory-limit"`
	TestCount     string `xml:"test-count"`
	InputPattern  string `xml:"input-path-pattern"`
	AnswerPattern string `xml:"answer-path-pattern"`
	Tests         []struct {
		Method string `xml:"method,attr"`
		Sample string `xml:"sample,attr"`
		Group  string `xml:"group,attr"`
		Points string `xml:"points,attr"`
	} `xml:"tests>test"`
	Groups []struct {
		Name         string `xml:"name,attr"`
		Points       string `xml:"points,attr"`
		PointsPolicy string `xml:"points-policy,attr"`
		Dependencies []struct {
			Group string `xml:"group,attr"`
		} `xml:"dependencies>dependency"`
	} `xml:"groups>group"`
}

// MaxTests bounds the tests of a package.
const MaxTests = 5000

// Convert reads a Polygon package (a zip).
func Convert(zipBytes []byte, lim icpcpkg.Limits) (Result, error) {
	var r Result
	if lim.MaxFiles <= 0 {
		lim.MaxFiles = 20000
	}
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = 1 << 30
	}
	zr, err := zip.NewReader(bytes.NewReader(zipBytes), int64(len(zipBytes)))
	if err != nil {
		return r, fmt.Errorf("%w: not a zip file: %w", ErrInvalid, err)
	}
	if len(zr.File) > lim.MaxFiles {
		return r, fmt.Errorf("%w: %d files, limit %d", ErrInvalid, len(zr.File), lim.MaxFiles)
	}
	files, root, err := readAll(zr, lim.MaxBytes)
	if err != nil {
		return r, err
	}
	raw, ok := files["problem.xml"]
	if !ok {
		return r, fmt.Errorf("%w: no problem.xml at the top of the package", ErrInvalid)
	}
	var x xmlProblem
	if err := xml.Unmarshal(raw, &x); err != nil {
		return r, fmt.Errorf("%w: problem.xml: %w", ErrInvalid, err)
	}
	p := &r.Problem
	p.ShortName = x.ShortName
	if p.ShortName == "" {
		p.ShortName = root
	}
	for _, lang := range preferred(len(x.Names), func(i int) string { return x.Names[i].Language }) {
		if v := strings.TrimSpace(x.Names[lang].Value); v != "" {
			p.Title = v
			break
		}
	}
	// File I/O: judging input-file / output-file ("" or stdin / stdout
	// for the standard streams); the web node checks the names.
	stream := func(name, std string) string {
		if name = strings.TrimSpace(name); name == std {
			return ""
		}
		return name
	}
	p.InputFile, p.OutputFile = stream(x.Judging.InputFile, "stdin"), stream(x.Judging.OutputFile, "stdout")
	var ts *xmlTestset
	for i := range x.Judging.Testsets {
		if x.Judging.Testsets[i].Name == "tests" {
			ts = &x.Judging.Testsets[i]
		} else {
			p.Notes = append(p.Notes, "testset "+strconv.Quote(x.Judging.Testsets[i].Name)+" ignored (only \"tests\" is judged)")
		}
	}
	if ts == nil {
		return r, fmt.Errorf("%w: problem.xml: no <testset name=\"tests\"> in <judging>", ErrInvalid)
	}
	if err := limitsOf(p, ts); err != nil {
		return r, err
	}
	if r.Testdata, err = readTests(p, ts, files); err != nil {
		return r, err
	}
	if err := readPrograms(&r, &x, files); err != nil {
		return r, err
	}
	if err := readStatement(p, &x, files); err != nil {
		return r, err
	}
	slices.Sort(p.Notes)
	p.Notes = slices.Compact(p.Notes)
	return r, nil
}

// limitsOf reads the testset's time (ms) and memory (bytes) limits.
func limitsOf(p *icpcpkg.Problem, ts *xmlTestset) error {
	if s := strings.TrimSpace(ts.TimeLimit); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 || v > 3600_000 {
			return fmt.Errorf("%w: problem.xml: time-limit %q is not a number of milliseconds", ErrInvalid, s)
		}
		p.TimeLimitMs = int(math.Round(v))
	}
	if s := strings.TrimSpace(ts.MemoryLimit); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v <= 0 || v > 1<<40 {
			return fmt.Errorf("%w: problem.xml: memory-limit %q is not a number of bytes", ErrInvalid, s)
		}
		p.MemoryLimitKB = int(v / 1024)
	}
	return nil
}

// pathVerb is the one integer verb of a path pattern (tests/%02d).
var pathVerb = regexp.MustCompile(`%0?[0-9]*d`)

func pattern(field, pat string) (func(int) string, error) {
	pat = strings.TrimSpace(pat)
	if len(pathVerb.FindAllString(pat, -1)) != 1 || strings.Count(pat, "%") != 1 {
		return nil, fmt.Errorf("%w: problem.xml: %s %q: want a path with one %%d verb, such as tests/%%02d", ErrInvalid, field, pat)
	}
	return func(i int) string { return fmt.Sprintf(pat, i) }, nil
}

// readTests collects the tests in order and maps groups to subtasks.
func readTests(p *icpcpkg.Problem, ts *xmlTestset, files map[string][]byte) (testpkg.Package, error) {
	var pkg testpkg.Package
	n := len(ts.Tests)
	if c := strings.TrimSpace(ts.TestCount); c != "" {
		v, err := strconv.Atoi(c)
		if err != nil || v < 0 {
			return pkg, fmt.Errorf("%w: problem.xml: test-count %q is not a number", ErrInvalid, c)
		}
		if v != n {
			return pkg, fmt.Errorf("%w: problem.xml: test-count is %d but <tests> lists %d", ErrInvalid, v, n)
		}
	}
	if n == 0 {
		return pkg, fmt.Errorf("%w: problem.xml: the testset has no tests", ErrInvalid)
	}
	if n > MaxTests {
		return pkg, fmt.Errorf("%w: problem.xml: %d tests, limit %d", ErrInvalid, n, MaxTests)
	}
	inPath, err := pattern("input-path-pattern", ts.InputPattern)
	if err != nil {
		return pkg, err
	}
	ansPath, err := pattern("answer-path-pattern", ts.AnswerPattern)
	if err != nil {
		return pkg, err
	}
	points := make([]float64, n)
	anyPoints := false
	for i, t := range ts.Tests {
		in, ok := files[inPath(i+1)]
		if !ok {
			why := ""
			if t.Method == "generated" {
				why = " (a generated test: export the full package from Polygon, which carries the generated tests; Verdict does not run generators)"
			}
			return pkg, fmt.Errorf("%w: %s: test %d's input is not in the package%s", ErrInvalid, inPath(i+1), i+1, why)
		}
		ans, ok := files[ansPath(i+1)]
		if !ok {
			return pkg, fmt.Errorf("%w: %s: test %d's answer is not in the package (Verdict does not run the main solution "+
				"at import to make answers: export the full package from Polygon, which carries them)", ErrInvalid, ansPath(i+1), i+1)
		}
		pkg.Cases = append(pkg.Cases, testpkg.Case{In: in, Ans: ans})
		p.InputNames = append(p.InputNames, inPath(i+1))
		if t.Sample == "true" {
			pkg.Samples = append(pkg.Samples, i+1)
		}
		if s := strings.TrimSpace(t.Points); s != "" {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || v < 0 || math.IsInf(v, 0) || v > 1e6 {
				return pkg, fmt.Errorf("%w: problem.xml: test %d: points %q is not a number of points", ErrInvalid, i+1, s)
			}
			points[i] = v
			anyPoints = anyPoints || v > 0
		}
	}
	p.Mode = icpcpkg.ModeICPC
	if len(ts.Groups) == 0 && !anyPoints {
		return pkg, nil
	}
	p.Mode = icpcpkg.ModeIOI
	type group struct {
		name, policy string
		points       float64
		hasPoints    bool
		cases        []int
		deps         []string
	}
	var order []*group
	byName := map[string]*group{}
	for _, g := range ts.Groups {
		if _, dup := byName[g.Name]; dup {
			return pkg, fmt.Errorf("%w: problem.xml: group %q is declared twice", ErrInvalid, g.Name)
		}
		ng := &group{name: g.Name, policy: g.PointsPolicy}
		if s := strings.TrimSpace(g.Points); s != "" {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || v < 0 || v > 1e6 {
				return pkg, fmt.Errorf("%w: problem.xml: group %q: points %q is not a number of points", ErrInvalid, g.Name, s)
			}
			ng.points, ng.hasPoints = v, true
		}
		for _, d := range g.Dependencies {
			ng.deps = append(ng.deps, d.Group)
		}
		switch ng.policy {
		case "", "complete-group", "each-test":
		default:
			return pkg, fmt.Errorf("%w: problem.xml: group %q: points-policy %q (want complete-group or each-test)", ErrUnsupported, g.Name, g.PointsPolicy)
		}
		byName[g.Name] = ng
		order = append(order, ng)
	}
	var loose []int // tests in no group
	for i, t := range ts.Tests {
		if t.Group == "" {
			loose = append(loose, i+1)
			continue
		}
		g := byName[t.Group]
		if g == nil { // a group the tests name but <groups> does not declare
			g = &group{name: t.Group, policy: "complete-group"}
			byName[t.Group] = g
			order = append(order, g)
		}
		g.cases = append(g.cases, i+1)
	}
	var total float64
	subtaskOf := map[string][]string{} // group → its subtasks' names
	var groupOf []*group               // subtask index → its group
	for _, g := range order {
		if len(g.cases) == 0 {
			p.Notes = append(p.Notes, "group "+strconv.Quote(g.name)+" has no tests: left out")
			continue
		}
		for _, d := range g.deps {
			if byName[d] == nil {
				return pkg, fmt.Errorf("%w: problem.xml: group %q depends on group %q, which is not declared", ErrInvalid, g.name, d)
			}
		}
		if g.policy == "each-test" {
			for _, c := range g.cases {
				pts := points[c-1]
				total += pts
				name := fmt.Sprintf("%s/test %d", g.name, c)
				subtaskOf[g.name] = append(subtaskOf[g.name], name)
				pkg.Subtasks = append(pkg.Subtasks, testpkg.Subtask{Name: name, Points: roundPoints(p, pts), Cases: []int{c}})
				groupOf = append(groupOf, g)
			}
			continue
		}
		pts := g.points
		if !g.hasPoints {
			pts = 0
			for _, c := range g.cases {
				pts += points[c-1]
			}
		}
		total += pts
		subtaskOf[g.name] = append(subtaskOf[g.name], g.name)
		pkg.Subtasks = append(pkg.Subtasks, testpkg.Subtask{Name: g.name, Points: roundPoints(p, pts), Cases: g.cases})
		groupOf = append(groupOf, g)
	}
	// Dependencies: a subtask of a group earns nothing unless every
	// subtask of the groups it depends on is passed in full.
	for k, g := range groupOf {
		for _, d := range g.deps {
			if d == g.name {
				return pkg, fmt.Errorf("%w: problem.xml: group %q depends on itself", ErrInvalid, g.name)
			}
			if len(subtaskOf[d]) == 0 {
				p.Notes = append(p.Notes, fmt.Sprintf("group %q depends on group %q, which has no tests: that dependency is dropped", g.name, d))
			}
			pkg.Subtasks[k].Depends = append(pkg.Subtasks[k].Depends, subtaskOf[d]...)
		}
	}
	for _, c := range loose {
		if points[c-1] > 0 {
			total += points[c-1]
			pkg.Subtasks = append(pkg.Subtasks, testpkg.Subtask{Name: fmt.Sprintf("test %d", c), Points: roundPoints(p, points[c-1]), Cases: []int{c}})
		} else if len(ts.Groups) > 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("test %d is in no group and has no points: it earns nothing", c))
		}
	}
	if math.Abs(total-100) > 1e-6 {
		p.Notes = append(p.Notes, fmt.Sprintf("the groups' points add up to %g, not 100: scores are out of %g", total, total))
	}
	return pkg, nil
}

func roundPoints(p *icpcpkg.Problem, v float64) int {
	if v != math.Round(v) {
		p.Notes = append(p.Notes, fmt.Sprintf("%g points rounded to %d: Verdict's subtask points are whole numbers", v, int(math.Round(v))))
	}
	return int(math.Round(v))
}

// readPrograms reads the checker, interactor, validators and solutions.
func readPrograms(r *Result, x *xmlProblem, files map[string][]byte) error {
	p := &r.Problem
	p.Checker = icpcpkg.CheckerDefault
	get := func(what string, s xmlSource) ([]byte, error) {
		if s.Path == "" {
			return nil, fmt.Errorf("%w: problem.xml: the %s has no <source path=…>", ErrInvalid, what)
		}
		b, ok := files[s.Path]
		if !ok {
			return nil, fmt.Errorf("%w: %s: the %s's source is not in the package", ErrInvalid, s.Path, what)
		}
		return b, nil
	}
	headers := map[string][]byte{}
	for n, b := range files {
		if path.Dir(n) == "files" && (path.Ext(n) == ".h" || path.Ext(n) == ".hpp") {
			headers[path.Base(n)] = b
		}
	}
	if c := x.Assets.Checker; c != nil {
		src, err := get("checker", c.Source)
		if err != nil {
			return err
		}
		name, lang, err := program("checker", c.Source, testpkg.CheckerName, testpkg.CheckerC) // languages.go
		if err != nil {
			return err
		}
		if c.Type != "" && c.Type != "testlib" {
			return fmt.Errorf("%w: problem.xml: checker type %q: only testlib checkers are supported", ErrUnsupported, c.Type)
		}
		r.Testdata.Checker = src
		r.Testdata.CheckerOptions = testpkg.CheckerOptions{Name: name, Language: lang}
		if lang == "" {
			r.Testdata.CheckerOptions.Files = includedHeaders(src, headers)
		}
		p.Checker = "special"
		setProgram(p, "checker", c.Source.Path)
		if c.Name != "" {
			p.Notes = append(p.Notes, "checker "+c.Name+" ("+c.Source.Path+"): a testlib special judge")
		}
	} else {
		p.Notes = append(p.Notes, "no checker in problem.xml: the default checker (tokens) is used")
	}
	if it := x.Assets.Interactor; it != nil {
		src, err := get("interactor", it.Source)
		if err != nil {
			return err
		}
		name, lang, err := program("interactor", it.Source, testpkg.InteractorCPP, testpkg.InteractorC)
		if err != nil {
			return err
		}
		r.Testdata.Interactor = &testpkg.Interactor{Name: name, Language: lang, Convention: testpkg.ConventionTestlib, Source: src}
		if lang == "" {
			r.Testdata.Interactor.Files = includedHeaders(src, headers)
		}
		p.Interactive = true
		setProgram(p, "interactor", it.Source.Path)
		p.Notes = append(p.Notes, "interactive: "+it.Source.Path+" is the interactor (testlib convention); the checker checks its output")
	}
	for _, v := range x.Assets.Validators {
		src, err := get("validator", v.Source)
		if err != nil {
			return err
		}
		r.Validators = append(r.Validators, Source{Path: v.Source.Path, Type: v.Source.Type, Source: src})
		// A validator in a language of the judges' is run on every test
		// at import (testlib's convention: exit 0 valid); others are
		// noted.
		iv, why := validatorOf(v.Source, src, headers) // languages.go
		if why != "" {
			p.Notes = append(p.Notes, why)
			continue
		}
		p.InputValidators = append(p.InputValidators, iv)
	}
	if len(p.InputValidators) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("validators run on every test at import: %d", len(p.InputValidators)))
	}
	for _, s := range x.Assets.Solutions {
		src, err := get("solution", s.Source)
		if err != nil {
			return err
		}
		if s.Tag == "" {
			return fmt.Errorf("%w: problem.xml: solution %s has no tag", ErrInvalid, s.Source.Path)
		}
		r.Solutions = append(r.Solutions, Solution{Path: s.Source.Path, Tag: s.Tag, Type: s.Source.Type, Source: src})
	}
	referenceSolutions(r)
	return nil
}

// expectedOf maps Polygon's solution tags to the verdict a reference
// solution must get; the tags that allow several verdicts are not.
var expectedOf = map[string]string{
	"main": icpcpkg.ExpectAC, "accepted": icpcpkg.ExpectAC, "wrong-answer": icpcpkg.ExpectWA,
	"time-limit-exceeded": icpcpkg.ExpectTLE, "memory-limit-exceeded": "MLE", "rejected": "", "failed": "",
	"presentation-error": "", "time-limit-exceeded-or-accepted": "", "time-limit-exceeded-or-memory-limit-exceeded": "",
	"do-not-run": "",
}

// referenceSolutions puts the solutions whose tag names one verdict, in a
// language the judges have, in Problem.Solutions (the reference solutions
// staff run from the admin page); the others are noted.
func referenceSolutions(r *Result) {
	p := &r.Problem
	for _, s := range r.Solutions {
		exp, known := expectedOf[s.Tag]
		if exp == "" {
			why := "a tag Verdict does not know"
			if known {
				why = "it allows more than one verdict"
			}
			p.Notes = append(p.Notes, fmt.Sprintf("solution %s (%s) is not a reference solution: %s", s.Path, s.Tag, why))
			continue
		}
		lang := languageOfSource(xmlSource{Path: s.Path, Type: s.Type})
		if lang == "" || !utf8.Valid(s.Source) || len(s.Source) > icpcpkg.MaxSolutionSource {
			p.Notes = append(p.Notes, fmt.Sprintf("solution %s (%s): not a C, C++, Python, Java or Go source of at most %d bytes; not imported",
				s.Path, s.Type, icpcpkg.MaxSolutionSource))
			continue
		}
		if len(p.Solutions) == icpcpkg.MaxSolutions {
			p.Notes = append(p.Notes, fmt.Sprintf("only the first %d reference solutions are imported", icpcpkg.MaxSolutions))
			break
		}
		p.Solutions = append(p.Solutions, icpcpkg.Solution{Name: s.Path, Language: lang, Source: string(s.Source), Expected: exp})
	}
	if len(p.Solutions) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%d reference solutions imported (Polygon's tags): run them from the problem's admin page", len(p.Solutions)))
	}
}

// setProgram records the package path of the test data's checker or
// interactor (icpcpkg.Problem.Programs).
func setProgram(p *icpcpkg.Problem, what, path string) {
	if p.Programs == nil {
		p.Programs = map[string]string{}
	}
	p.Programs[what] = path
}

var include = regexp.MustCompile(`(?m)^\s*#\s*include\s*"([^"]+)"`)

// includedHeaders are the package headers (files/*.h) src includes by
// quotes, testlib.h among them: the package's copy wins over the judge's.
func includedHeaders(src []byte, headers map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for _, m := range include.FindAllSubmatch(src, -1) {
		if b, ok := headers[path.Base(string(m[1]))]; ok {
			out[path.Base(string(m[1]))] = b
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// preferred orders indexes by their language: English first, then
// Russian, then the rest in package order.
func preferred(n int, lang func(int) string) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	rank := func(l string) int {
		switch strings.ToLower(l) {
		case "english", "en":
			return 0
		case "russian", "ru":
			return 1
		}
		return 2
	}
	slices.SortStableFunc(idx, func(a, b int) int { return rank(lang(a)) - rank(lang(b)) })
	return idx
}

// properties is statements/<lang>/problem-properties.json.
type properties struct {
	Name        string `json:"name"`
	Legend      string `json:"legend"`
	Input       string `json:"input"`
	Output      string `json:"output"`
	Interaction string `json:"interaction"`
	Scoring     string `json:"scoring"`
	Notes       string `json:"notes"`
	SampleTests []struct {
		Input  string `json:"input"`
		Output string `json:"output"`
	} `json:"sampleTests"`
}

// readStatement converts the preferred language's LaTeX statement.
func readStatement(p *icpcpkg.Problem, x *xmlProblem, files map[string][]byte) error {
	// The statement directories: from problem.xml, else statements/*/.
	var langs, dirs []string
	add := func(lang, dir string) {
		if !slices.Contains(dirs, dir) {
			langs, dirs = append(langs, lang), append(dirs, dir)
		}
	}
	for _, s := range x.Statements {
		if s.Type == "application/x-tex" && !strings.Contains(s.Path, "/.") {
			add(s.Language, path.Dir(s.Path))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(files)) {
		if strings.HasPrefix(n, "statements/") && strings.Count(n, "/") == 2 && !strings.HasPrefix(n, "statements/.") {
			d := path.Dir(n)
			add(path.Base(d), d)
		}
	}
	htmlOnly := false
	for _, s := range x.Statements {
		if s.Type == "text/html" {
			htmlOnly = true
		}
	}
	for _, i := range preferred(len(dirs), func(i int) string { return langs[i] }) {
		dir := dirs[i]
		doc, ok, err := statementTeX(dir, files)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		synthetic := path.Join(dir, ".verdict-statement.tex")
		files[synthetic] = []byte(doc)
		md, title, err := icpcpkg.ConvertLaTeX(synthetic, files, &p.Assets, &p.Notes)
		delete(files, synthetic)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalid, dir, errors.Unwrap(err))
		}
		for j, n := range p.Notes {
			p.Notes[j] = strings.ReplaceAll(n, synthetic, dir)
		}
		p.Statement = md
		if p.Title == "" {
			p.Title = title
		}
		p.Notes = append(p.Notes, "the statement was converted from LaTeX ("+dir+"): check it")
		return nil
	}
	if htmlOnly {
		p.Notes = append(p.Notes, "the statement is HTML only: not imported; add a LaTeX statement in Polygon or write it in Markdown")
	} else {
		p.Notes = append(p.Notes, "no statement in the package")
	}
	return nil
}

// statementTeX assembles one language's statement as one LaTeX fragment:
// from problem-properties.json, else the section files, else problem.tex.
func statementTeX(dir string, files map[string][]byte) (string, bool, error) {
	type sec struct{ text, cmd string }
	// The sections in order, the samples before the notes (the last).
	build := func(name string, secs []sec, samples [][2]string) string {
		var b strings.Builder
		if name != "" {
			b.WriteString(`\problemname{` + name + "}\n")
		}
		for i, s := range secs {
			if i == len(secs)-1 && len(samples) > 0 {
				b.WriteString(sampleTeX(samples))
			}
			if strings.TrimSpace(s.text) == "" {
				continue
			}
			if s.cmd != "" {
				b.WriteString("\n" + s.cmd + "\n")
			}
			b.WriteString(s.text + "\n\n")
		}
		return b.String()
	}
	if raw, ok := files[dir+"/problem-properties.json"]; ok {
		var pr properties
		if err := json.Unmarshal(raw, &pr); err != nil {
			return "", false, fmt.Errorf("%w: %s/problem-properties.json: %w", ErrInvalid, dir, err)
		}
		var samples [][2]string
		for _, s := range pr.SampleTests {
			samples = append(samples, [2]string{s.Input, s.Output})
		}
		return build(pr.Name, []sec{{pr.Legend, ""}, {pr.Input, `\InputFile`}, {pr.Output, `\OutputFile`},
			{pr.Interaction, `\Interaction`}, {pr.Scoring, `\Scoring`}, {pr.Notes, `\Note`}}, samples), true, nil
	}
	text := func(n string) string { return string(files[dir+"/"+n]) }
	if _, ok := files[dir+"/legend.tex"]; ok {
		var samples [][2]string
		for i := 1; ; i++ {
			in, ok1 := files[fmt.Sprintf("%s/example.%02d", dir, i)]
			out, ok2 := files[fmt.Sprintf("%s/example.%02d.a", dir, i)]
			if !ok1 || !ok2 {
				break
			}
			samples = append(samples, [2]string{string(in), string(out)})
		}
		return build(strings.TrimSpace(text("name.tex")), []sec{{text("legend.tex"), ""}, {text("input.tex"), `\InputFile`},
			{text("output.tex"), `\OutputFile`}, {text("interaction.tex"), `\Interaction`}, {text("scoring.tex"), `\Scoring`},
			{text("notes.tex"), `\Note`}}, samples), true, nil
	}
	if b, ok := files[dir+"/problem.tex"]; ok {
		return string(b), true, nil
	}
	return "", false, nil
}

// sampleTeX is the examples section in olymp.sty's terms.
func sampleTeX(samples [][2]string) string {
	var b strings.Builder
	b.WriteString("\n\\Examples\n")
	for _, s := range samples {
		b.WriteString(`\exmp{` + s[0] + "}{" + s[1] + "}\n")
	}
	return b.String() + "\n"
}

// readAll decompresses every file, with names relative to the package
// root (a single top directory holding problem.xml is stripped).
func readAll(zr *zip.Reader, max int64) (map[string][]byte, string, error) {
	root := ""
	for _, f := range zr.File {
		n := strings.ReplaceAll(f.Name, `\`, "/")
		if strings.Count(n, "/") == 1 && strings.HasSuffix(n, "/problem.xml") {
			root = strings.TrimSuffix(n, "/problem.xml")
		}
		if n == "problem.xml" {
			root = ""
			break
		}
	}
	files := map[string][]byte{}
	var total int64
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		n := strings.ReplaceAll(f.Name, `\`, "/")
		if n != path.Clean(n) || strings.HasPrefix(n, "/") || strings.HasPrefix(n, "../") || n == ".." {
			return nil, "", fmt.Errorf("%w: %s: unsafe file name", ErrInvalid, f.Name)
		}
		if root != "" {
			if !strings.HasPrefix(n, root+"/") {
				continue
			}
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
	if b, ok := files["problem.xml"]; ok && !utf8.Valid(b) {
		return nil, "", fmt.Errorf("%w: problem.xml: not UTF-8", ErrInvalid)
	}
	return files, root, nil
}

package testpkg

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ManifestName is the manifest's file name inside a package.
const ManifestName = "manifest.json"

// FormatVersion is the manifest format written by Build.
const FormatVersion = 1

// ErrInvalid reports a malformed package; the message names the bad file.
var ErrInvalid = errors.New("testpkg: invalid package")

// Case is one test: its input and the expected answer.
type Case struct {
	In  []byte
	Ans []byte
}

// Subtask groups cases (1-based indexes) for partial scoring (IOI).
type Subtask struct {
	Name   string `json:"name"`
	Points int    `json:"points"`
	Cases  []int  `json:"cases"`
	// Depends names other subtasks that must be passed in full (every
	// case accepted) for this one to earn anything (Polygon's group
	// dependencies).
	Depends []string `json:"depends,omitempty"`
	// ScoreMax is what a case of this subtask scores at most in a
	// scoring validator's score.txt (Manifest.KattisScore); 0 means
	// Points. A case's fraction is its score over ScoreMax.
	ScoreMax float64 `json:"score_max,omitempty"`
	// Sum: the subtask earns the sum of its cases' shares (each case's
	// fraction times Points over its case count) when every case is
	// accepted, and nothing otherwise; without it, Points times the
	// smallest fraction. It is a legacy ICPC group under the default
	// grader (worst_error, sum or avg) with a scoring output validator.
	// Judges that predate it refuse the manifest (unknown field).
	Sum bool `json:"sum,omitempty"`
}

// CaseFile names one case's files in the manifest.
type CaseFile struct {
	Index int    `json:"index"`
	In    string `json:"in"`
	Ans   string `json:"ans"`
	// Sample: the case is a sample (public); every other case is hidden.
	Sample bool `json:"sample,omitempty"`
	// ValidatorArgs, when set, replace CheckerArgs (or InteractorArgs,
	// or DefaultValidatorFlags when the package has no output validator
	// of its own) for this case: an ICPC test data group's own
	// output_validator_flags. Judges that predate it refuse the manifest
	// (unknown field), never judge it with the wrong arguments.
	ValidatorArgs []string `json:"validator_args,omitempty"`
}

// ForCase is m as case i (0-based) is judged: its CheckerArgs,
// InteractorArgs and DefaultValidatorFlags are the case's ValidatorArgs
// when it has them.
func (m Manifest) ForCase(i int) Manifest {
	if i >= 0 && i < len(m.Cases) && m.Cases[i].ValidatorArgs != nil {
		m.CheckerArgs, m.InteractorArgs = m.Cases[i].ValidatorArgs, m.Cases[i].ValidatorArgs
		if m.Checker == "" && !m.Interactive {
			m.DefaultValidatorFlags = m.Cases[i].ValidatorArgs
		}
	}
	return m
}

// CheckerName is the file name of a special judge's source inside a
// package: C++ using testlib's convention (`checker input output answer`,
// exit 0 AC, 1 WA, 2 PE, 3 judge failure, 7 partial points).
const CheckerName = "checker.cpp"

// MaxCheckerSize bounds the checker source (testlib.h itself is ~200 KiB;
// a checker that includes it is compiled with the judge's copy, if any).
const MaxCheckerSize = 1 << 20

// Manifest is manifest.json.
type Manifest struct {
	Version  int        `json:"version"`
	Cases    []CaseFile `json:"cases"`
	Subtasks []Subtask  `json:"subtasks,omitempty"`
	// Checker names the special judge's source in the package
	// (CheckerName or CheckerC; the main source's own name when
	// CheckerLanguage is set), empty when the package has none.
	Checker string `json:"checker,omitempty"`
	// CheckerLanguage is the judge language of a checker not in C or C++
	// (ProgramLanguages: "py3", "java17"; language.go); "" for C and C++.
	CheckerLanguage string `json:"checker_language,omitempty"`
	// Interactive: the solution talks to the package's interactor through
	// pipes (see interactive.go and docs/problems.md); the interactor
	// reads each case's input and answer and gives the verdict.
	Interactive bool `json:"interactive,omitempty"`
	// Interactor names the interactor's source (InteractorCPP or
	// InteractorC; the main source's own name when InteractorLanguage is
	// set); set exactly when Interactive.
	Interactor string `json:"interactor,omitempty"`
	// InteractorLanguage is the judge language of an interactor not in C
	// or C++ (as CheckerLanguage); "" for C and C++.
	InteractorLanguage string `json:"interactor_language,omitempty"`
	// InteractorConvention is ConventionTestlib (the default when empty)
	// or ConventionKattis.
	InteractorConvention string `json:"interactor_convention,omitempty"`
	// InteractorFiles are further top-level files of the package compiled
	// with the interactor (the headers it includes).
	InteractorFiles []string `json:"interactor_files,omitempty"`
	// InteractorArgs follow the convention's own arguments.
	InteractorArgs []string `json:"interactor_args,omitempty"`
	// CheckerConvention is ConventionTestlib (the default when empty) or
	// ConventionKattis: the checker is a Kattis output validator
	// (checker.go).
	CheckerConvention string `json:"checker_convention,omitempty"`
	// CheckerFiles are further top-level files compiled with the checker
	// (the headers it includes: a package's own testlib.h).
	CheckerFiles []string `json:"checker_files,omitempty"`
	// CheckerArgs follow the convention's own arguments.
	CheckerArgs []string `json:"checker_args,omitempty"`
	// KattisScore: the Kattis-convention checker or interactor may give
	// an accepted case a score in its feedback directory (score.txt, out
	// of the case's subtask's ScoreMax, or score_multiplier.txt, a
	// fraction), as the ICPC package format's scoring validators do.
	KattisScore bool `json:"kattis_score,omitempty"`
	// DefaultValidatorFlags are the flags of the ICPC default output
	// validator (DefaultValidatorFlags, the checker kind
	// protocol.CheckerICPC) for every case: an ICPC package's
	// problem.yaml validator_flags; a case's ValidatorArgs replace them.
	// Only in a package without a checker or interactor. Judges that
	// predate it refuse the manifest (unknown field).
	DefaultValidatorFlags []string `json:"default_validator_flags,omitempty"`
	// Grading, when set, is how the verdict follows from the cases'
	// verdicts, by the ICPC format's default grader over the package's
	// test data groups (grading.go); nil: every case counts and ICPC
	// mode stops at the first rejection. Judges that predate it refuse
	// the manifest (unknown field).
	Grading *Grading `json:"grading,omitempty"`
}

// Package is everything a test data package holds.
type Package struct {
	Cases    []Case
	Subtasks []Subtask
	// Checker is the special judge's source (C++ unless CheckerOptions
	// says otherwise); nil for none.
	Checker []byte
	// ValidatorArgs, by case number (1-based), replace the output
	// validator's arguments (CheckerOptions.Args, or Interactor.Args) for
	// that case (CaseFile.ValidatorArgs).
	ValidatorArgs map[int][]string
	// Samples are the 1-based indexes of the sample cases (shown in the
	// statement): only their checker messages may reach contestants
	// (internal/feedback); every other case is hidden.
	Samples []int
	// Interactor makes the problem interactive; nil for none.
	Interactor *Interactor
	// CheckerOptions: the checker's name, convention, headers and
	// arguments (checker.go); the zero value is a testlib checker.cpp.
	CheckerOptions CheckerOptions
	// KattisScore: see Manifest.KattisScore.
	KattisScore bool
	// DefaultValidatorFlags: see Manifest.DefaultValidatorFlags.
	DefaultValidatorFlags []string
	// Grading: see Manifest.Grading.
	Grading *Grading
}

// epoch is the modification time of every entry, for reproducible bytes.
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Build packages cases and subtasks; it checks the subtasks like Read does.
func Build(cases []Case, subtasks []Subtask) ([]byte, Manifest, error) {
	return Package{Cases: cases, Subtasks: subtasks}.Build()
}

// Build packages p deterministically: the same Package always gives the
// same bytes. It checks the result like Read does.
func (p Package) Build() ([]byte, Manifest, error) {
	cases, subtasks := p.Cases, p.Subtasks
	for _, c := range p.Samples {
		if c < 1 || c > len(cases) {
			return nil, Manifest{}, fmt.Errorf("%w: %s: sample case %d, package has 1..%d", ErrInvalid, ManifestName, c, len(cases))
		}
	}
	for c := range p.ValidatorArgs {
		if c < 1 || c > len(cases) {
			return nil, Manifest{}, fmt.Errorf("%w: %s: validator_args of case %d, package has 1..%d", ErrInvalid, ManifestName, c, len(cases))
		}
	}
	m := Manifest{Version: FormatVersion, Subtasks: subtasks}
	if p.Checker != nil {
		if len(p.Checker) > MaxCheckerSize {
			return nil, Manifest{}, fmt.Errorf("%w: %s: %d bytes, limit %d", ErrInvalid, CheckerName, len(p.Checker), MaxCheckerSize)
		}
		m.Checker = CheckerName
		if err := p.CheckerOptions.manifestFields(&m, len(p.Checker)); err != nil {
			return nil, Manifest{}, err
		}
	}
	if err := m.checkChecker(); err != nil {
		return nil, Manifest{}, err
	}
	if p.Interactor != nil {
		if err := p.Interactor.manifestFields(&m); err != nil {
			return nil, Manifest{}, err
		}
		if err := m.checkInteractive(); err != nil {
			return nil, Manifest{}, err
		}
	}
	m.KattisScore = p.KattisScore
	m.DefaultValidatorFlags = slices.Clone(p.DefaultValidatorFlags)
	if err := m.checkKattisScore(); err != nil {
		return nil, Manifest{}, err
	}
	for i := range cases {
		n := strconv.Itoa(i + 1)
		m.Cases = append(m.Cases, CaseFile{Index: i + 1, In: n + ".in", Ans: n + ".ans", Sample: slices.Contains(p.Samples, i+1),
			ValidatorArgs: slices.Clone(p.ValidatorArgs[i+1])})
	}
	m.Grading = p.Grading
	if err := m.check(); err != nil {
		return nil, Manifest{}, err
	}
	if err := m.checkDefaultValidator(); err != nil {
		return nil, Manifest{}, err
	}
	mj, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, Manifest{}, fmt.Errorf("testpkg build: %w", err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	added := map[string][]byte{}
	add := func(name string, b []byte) error {
		// A header the checker and the interactor both include (a
		// package's testlib.h) is one file of the zip.
		if prev, ok := added[name]; ok {
			if bytes.Equal(prev, b) {
				return nil
			}
			return fmt.Errorf("%w: %s: the checker and the interactor need different files of this name", ErrInvalid, name)
		}
		added[name] = b
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: epoch})
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	if err := add(ManifestName, mj); err != nil {
		return nil, Manifest{}, fmt.Errorf("testpkg build: %w", err)
	}
	if p.Checker != nil {
		if err := add(m.Checker, p.Checker); err != nil {
			return nil, Manifest{}, fmt.Errorf("testpkg build: %w", err)
		}
		for _, f := range m.CheckerFiles {
			if err := add(f, p.CheckerOptions.Files[f]); err != nil {
				return nil, Manifest{}, fmt.Errorf("testpkg build: %w", err)
			}
		}
	}
	if it := p.Interactor; it != nil {
		if err := add(m.Interactor, it.Source); err != nil {
			return nil, Manifest{}, fmt.Errorf("testpkg build: %w", err)
		}
		for _, f := range m.InteractorFiles {
			if err := add(f, it.Files[f]); err != nil {
				return nil, Manifest{}, fmt.Errorf("testpkg build: %w", err)
			}
		}
	}
	for i, c := range cases {
		if err := add(m.Cases[i].In, c.In); err != nil {
			return nil, Manifest{}, fmt.Errorf("testpkg build: %w", err)
		}
		if err := add(m.Cases[i].Ans, c.Ans); err != nil {
			return nil, Manifest{}, fmt.Errorf("testpkg build: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, Manifest{}, fmt.Errorf("testpkg build: %w", err)
	}
	return buf.Bytes(), m, nil
}

func (m *Manifest) check() error {
	if len(m.Cases) == 0 {
		return fmt.Errorf("%w: %s: no test cases", ErrInvalid, ManifestName)
	}
	n := len(m.Cases)
	for _, c := range m.Cases {
		if len(c.ValidatorArgs) > MaxInteractorArgs {
			return fmt.Errorf("%w: %s: case %d: %d validator_args, limit %d", ErrInvalid, ManifestName, c.Index, len(c.ValidatorArgs), MaxInteractorArgs)
		}
		for _, a := range c.ValidatorArgs {
			if len(a) > MaxInteractorArgLen || strings.ContainsRune(a, 0) {
				return fmt.Errorf("%w: %s: case %d: validator_args: an argument longer than %d bytes or with a NUL byte", ErrInvalid, ManifestName, c.Index, MaxInteractorArgLen)
			}
		}
	}
	seen := map[int]string{}
	for _, st := range m.Subtasks {
		if st.Name == "" {
			return fmt.Errorf("%w: %s: a subtask has no name", ErrInvalid, ManifestName)
		}
		if st.Points < 0 {
			return fmt.Errorf("%w: %s: subtask %q has negative points", ErrInvalid, ManifestName, st.Name)
		}
		if !(st.ScoreMax >= 0 && st.ScoreMax <= 1e9) {
			return fmt.Errorf("%w: %s: subtask %q: score_max %v is not in [0, 1e9]", ErrInvalid, ManifestName, st.Name, st.ScoreMax)
		}
		if len(st.Cases) == 0 {
			return fmt.Errorf("%w: %s: subtask %q has no cases", ErrInvalid, ManifestName, st.Name)
		}
		for _, c := range st.Cases {
			if c < 1 || c > n {
				return fmt.Errorf("%w: %s: subtask %q names case %d, package has 1..%d", ErrInvalid, ManifestName, st.Name, c, n)
			}
			if other, dup := seen[c]; dup {
				return fmt.Errorf("%w: %s: case %d is in subtasks %q and %q", ErrInvalid, ManifestName, c, other, st.Name)
			}
			seen[c] = st.Name
		}
	}
	names := map[string]bool{}
	for _, st := range m.Subtasks {
		names[st.Name] = true
	}
	for _, st := range m.Subtasks {
		for _, d := range st.Depends {
			if d == st.Name || !names[d] {
				return fmt.Errorf("%w: %s: subtask %q depends on %q, which is not another subtask", ErrInvalid, ManifestName, st.Name, d)
			}
		}
	}
	if m.Grading != nil {
		return m.Grading.check(n)
	}
	return nil
}

// Samples lists the 1-based indexes of the sample cases.
func (m *Manifest) Samples() []int {
	var out []int
	for _, c := range m.Cases {
		if c.Sample {
			out = append(out, c.Index)
		}
	}
	return out
}

// Read validates a package and returns its manifest. A package without
// manifest.json gets one derived from its N.in/N.ans pairs. Errors wrap
// ErrInvalid and name the offending file.
func Read(zipBytes []byte) (Manifest, error) {
	m, _, err := readZip(bytes.NewReader(zipBytes), int64(len(zipBytes)))
	return m, err
}

// readZip is Read over any io.ReaderAt; it also returns the zip reader.
func readZip(r io.ReaderAt, size int64) (Manifest, *zip.Reader, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return Manifest{}, nil, fmt.Errorf("%w: not a zip file: %w", ErrInvalid, err)
	}
	m, err := readManifest(zr)
	return m, zr, err
}

func readManifest(zr *zip.Reader) (Manifest, error) {
	ins, anss := map[int]bool{}, map[int]bool{}
	var manifest, checker *zip.File
	// other files: an interactor's, if the manifest names them
	var others []*zip.File
	for _, f := range zr.File {
		name := f.Name
		if strings.HasSuffix(name, "/") {
			continue
		}
		if name != path.Clean(name) || strings.Contains(name, "/") || strings.Contains(name, `\`) {
			return Manifest{}, fmt.Errorf("%w: %s: files must be at the top level of the zip", ErrInvalid, name)
		}
		if name == ManifestName {
			manifest = f
			continue
		}
		if name == CheckerName || name == CheckerC {
			if f.UncompressedSize64 > MaxCheckerSize {
				return Manifest{}, fmt.Errorf("%w: %s: %d bytes, limit %d", ErrInvalid, name, f.UncompressedSize64, MaxCheckerSize)
			}
			if checker != nil {
				return Manifest{}, fmt.Errorf("%w: %s: the package has %s too; one checker", ErrInvalid, name, checker.Name)
			}
			checker = f
			continue
		}
		base, ext, ok := strings.Cut(name, ".")
		idx, err := strconv.Atoi(base)
		if !ok || err != nil || idx < 1 || strconv.Itoa(idx) != base || (ext != "in" && ext != "ans") {
			if f.UncompressedSize64 > MaxCheckerSize {
				return Manifest{}, fmt.Errorf("%w: %s: %d bytes, limit %d", ErrInvalid, name, f.UncompressedSize64, MaxCheckerSize)
			}
			others = append(others, f)
			continue
		}
		if ext == "in" {
			ins[idx] = true
		} else {
			anss[idx] = true
		}
	}
	n := len(ins)
	for i := 1; i <= max(n, len(anss)); i++ {
		if !ins[i] {
			return Manifest{}, fmt.Errorf("%w: %d.in: missing (cases must be numbered 1..N without gaps)", ErrInvalid, i)
		}
		if !anss[i] {
			return Manifest{}, fmt.Errorf("%w: %d.ans: missing (every N.in needs its N.ans)", ErrInvalid, i)
		}
	}
	m := Manifest{Version: FormatVersion}
	for i := 1; i <= n; i++ {
		m.Cases = append(m.Cases, CaseFile{Index: i, In: strconv.Itoa(i) + ".in", Ans: strconv.Itoa(i) + ".ans"})
	}
	if manifest != nil {
		rc, err := manifest.Open()
		if err != nil {
			return Manifest{}, fmt.Errorf("%w: %s: %w", ErrInvalid, ManifestName, err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, 1<<20))
		rc.Close()
		if err != nil {
			return Manifest{}, fmt.Errorf("%w: %s: %w", ErrInvalid, ManifestName, err)
		}
		var got Manifest
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			return Manifest{}, fmt.Errorf("%w: %s: %w", ErrInvalid, ManifestName, err)
		}
		if got.Version != 0 && got.Version != FormatVersion {
			return Manifest{}, fmt.Errorf("%w: %s: version %d, want %d", ErrInvalid, ManifestName, got.Version, FormatVersion)
		}
		same := func(a, b CaseFile) bool { return a.Index == b.Index && a.In == b.In && a.Ans == b.Ans }
		if len(got.Cases) > 0 && !slices.EqualFunc(got.Cases, m.Cases, same) {
			return Manifest{}, fmt.Errorf("%w: %s: its case list does not match the N.in/N.ans files", ErrInvalid, ManifestName)
		}
		for i := range got.Cases {
			m.Cases[i].Sample, m.Cases[i].ValidatorArgs = got.Cases[i].Sample, got.Cases[i].ValidatorArgs
		}
		m.Subtasks = got.Subtasks
		m.Interactive, m.Interactor, m.InteractorConvention = got.Interactive, got.Interactor, got.InteractorConvention
		m.InteractorFiles, m.InteractorArgs = got.InteractorFiles, got.InteractorArgs
		m.CheckerConvention, m.CheckerFiles, m.CheckerArgs = got.CheckerConvention, got.CheckerFiles, got.CheckerArgs
		m.CheckerLanguage, m.InteractorLanguage = got.CheckerLanguage, got.InteractorLanguage
		m.KattisScore = got.KattisScore
		m.DefaultValidatorFlags = got.DefaultValidatorFlags
		m.Grading = got.Grading
		switch {
		case got.CheckerLanguage != "" && checker != nil:
			return Manifest{}, fmt.Errorf("%w: %s: names a %s checker, and the package has %s too; one checker",
				ErrInvalid, ManifestName, got.CheckerLanguage, checker.Name)
		case got.CheckerLanguage != "":
			// Its main source is one of the other files (listed below).
			m.Checker = got.Checker
		case got.Checker != "" && got.Checker != CheckerName && got.Checker != CheckerC:
			return Manifest{}, fmt.Errorf("%w: %s: checker %q, want %q or %q", ErrInvalid, ManifestName, got.Checker, CheckerName, CheckerC)
		case got.Checker != "" && (checker == nil || checker.Name != got.Checker):
			return Manifest{}, fmt.Errorf("%w: %s: names %s, which the package lacks", ErrInvalid, ManifestName, got.Checker)
		}
	}
	if checker != nil {
		m.Checker = checker.Name
	}
	if err := m.checkChecker(); err != nil {
		return Manifest{}, err
	}
	if err := m.checkInteractive(); err != nil {
		return Manifest{}, err
	}
	if err := m.checkKattisScore(); err != nil {
		return Manifest{}, err
	}
	if err := m.checkDefaultValidator(); err != nil {
		return Manifest{}, err
	}
	// Every other file must be the interactor or one it names.
	listed := map[string]bool{}
	if m.CheckerLanguage != "" && m.Checker != "" {
		listed[m.Checker] = true
	}
	for _, f := range m.CheckerFiles {
		listed[f] = true
	}
	if m.Interactive {
		listed[m.Interactor] = true
		for _, f := range m.InteractorFiles {
			listed[f] = true
		}
	}
	for _, f := range others {
		if !listed[f.Name] {
			return Manifest{}, fmt.Errorf("%w: %s: unexpected file; want N.in, N.ans, %s, %s, or a checker's or interactor's files that %s names",
				ErrInvalid, f.Name, ManifestName, CheckerName, ManifestName)
		}
		delete(listed, f.Name)
	}
	if len(listed) > 0 {
		return Manifest{}, fmt.Errorf("%w: %s: names %s, which the package lacks", ErrInvalid, ManifestName, slices.Sorted(maps.Keys(listed))[0])
	}
	if err := m.check(); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

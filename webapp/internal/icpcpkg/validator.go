package icpcpkg

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// CheckerSpecial: the problem's checker is the package's own (a custom
// output validator, run by the judges in the Kattis convention).
const CheckerSpecial = "special"

// isCustom: the package's answers are judged by its own output validator
// (not interactive): legacy `validation: custom` (with its flags), or a
// 2023-07 package (no `validation` key) with output_validator/.
func isCustom(meta map[string]any, files map[string][]byte) bool {
	if isInteractive(meta) {
		return false
	}
	validation, ok := meta["validation"].(string)
	if ok {
		return slices.Contains(strings.Fields(validation), "custom")
	}
	for name := range files {
		if strings.HasPrefix(name, "output_validator/") {
			return true
		}
	}
	return false
}

// readValidator takes a custom output validator as the problem's checker
// (testpkg.ConventionKattis: `validator input answer feedback_dir
// [validator_flags] < team_output`, exit 42 accepted, 43 wrong answer,
// judgemessage.txt the message; a scoring problem's validator may also
// write score.txt: scoring.go).
func (p *Problem) readValidator(meta map[string]any, files map[string][]byte, pkg *testpkg.Package) error {
	validation, _ := meta["validation"].(string)
	v, err := p.readValidatorSource(files)
	if err != nil {
		return err
	}
	if v.path == "" {
		return fmt.Errorf("%w: problem.yaml: validation %q needs an output validator, "+
			"a program in output_validators/<name>/ or output_validator/ (%s)", ErrInvalid, validation, outputValidatorLanguages)
	}
	flags, _ := meta["validator_flags"].(string)
	pkg.Checker = v.source
	pkg.CheckerOptions = testpkg.CheckerOptions{Name: testpkg.CheckerName, Convention: testpkg.ConventionKattis,
		Files: v.files, Args: strings.Fields(flags)}
	switch {
	case v.lang != "":
		pkg.CheckerOptions.Name, pkg.CheckerOptions.Language = v.name, v.lang
	case v.c:
		pkg.CheckerOptions.Name = testpkg.CheckerC
	}
	p.Checker = CheckerSpecial
	p.Programs = map[string]string{"checker": v.path}
	p.Notes = append(p.Notes, "custom validation: the output validator "+v.path+v.langNote()+
		" is the checker (Kattis convention: exit 42 accepted, 43 wrong answer, judgemessage.txt the message)")
	return nil
}

// unusedValidator notes a validator directory a default-validation
// package carries but does not use.
func unusedValidator(files map[string][]byte) []string {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if strings.HasPrefix(name, "output_validators/") {
			return []string{"output_validators/ ignored: problem.yaml's validation is default"}
		}
	}
	return nil
}

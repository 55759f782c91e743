package protocol

import (
	"errors"
	"fmt"
	"strings"
)

// Input validation: at import, a package's input validator is run over
// every input of its test data by a judge (the web node has no sandbox),
// and a failing input refuses the package (docs/problems.md).
//
// A validation travels as a Task whose Validation field is set, under a
// custom run id (CustomRunIDBase and above, drawn like one): the queue,
// the hub and the leases treat it as they treat a custom run, so its
// result is never on the results stream but stored in Redis as a
// CustomRunState the importing web node reads. The task carries the
// test data (the judge fetches it as for a submission) and the
// validator's sources; Language is the judge language the validator is
// written in (cpp17, c17, py3, java17, go: any of the judge's table), so
// the hub sends it to a judge that has it, and only to a judge that
// announces CapabilityInputValidation (an older judge would take it for
// a submission). The judge compiles the validator in the sandbox with
// that language's compiler (every source of the main source's language
// among Name and Files together; C and C++ with -I. for the headers
// beside them) and runs it as the language runs a program, on each
// case's input (stdin), with Args (or the case's own CaseArgs), and
// answers with one CustomOutput per case: AC for a valid input, WA for an
// invalid one (RE, TLE, MLE when the validator failed on it), the
// validator's message in Message. The Result's verdict is AC when every
// input is valid, CE when the validator does not compile
// (CompileMessage says why), WA otherwise.
//
// A build check (BuildOnly) uses the same task to compile a package's
// checker or interactor at import without running it: AC when it
// compiles, CE otherwise. It goes only to judges that announce
// CapabilityBuildCheck.

// Input validator conventions.
const (
	// ValidationKattis: the ICPC/Kattis input validator, `validator
	// [flags] < input`, exit 42 valid, 43 invalid.
	ValidationKattis = "kattis"
	// ValidationTestlib: a testlib validator (Polygon), `validator <
	// input`, exit 0 valid, anything else invalid.
	ValidationTestlib = "testlib"
)

// Input validator source names a web node gives a single C or C++ source
// (any plain file name will do: a validator's main source keeps its
// name in the package, which Java needs).
const (
	ValidatorCPP = "validator.cpp"
	ValidatorC   = "validator.c"
)

// Kattis input validator exit codes.
const (
	KattisValid   = 42
	KattisInvalid = 43
)

// MaxValidatorBytes bounds a validator's source and files together, so
// the task stays below MaxJudgeMessage.
const MaxValidatorBytes = 768 << 10

// InputValidation is what makes a Task an input validation.
type InputValidation struct {
	// Convention is ValidationKattis or ValidationTestlib.
	Convention string `json:"convention"`
	// Name is the main source's file name (ValidatorCPP, ValidatorC, or
	// the validator's own, e.g. validate.py, Validator.java).
	Name   string `json:"name"`
	Source string `json:"source"`
	// Files are placed beside it, by name, and those of the language's
	// extension compiled with it: the other sources of a validator of
	// several, the headers it includes (a package's own testlib.h).
	Files map[string]string `json:"files,omitempty"`
	// Args follow the program name (Kattis input_validator_flags).
	Args []string `json:"args,omitempty"`
	// CaseArgs, by case number (1-based), replace Args for that case's
	// input (a test data group's own input_validator_flags).
	CaseArgs map[int][]string `json:"case_args,omitempty"`
	// BuildOnly: the judge only compiles the program (a package's output
	// validator, checked at import) and answers AC when it compiles, CE
	// with the compiler's message when not; it runs nothing. Such a task
	// needs CapabilityBuildCheck (an older judge would run the program
	// as an input validator).
	BuildOnly bool `json:"build_only,omitempty"`
}

// Validate checks the convention, names and bounds.
func (v InputValidation) Validate() error {
	var errs []error
	if v.Convention != ValidationKattis && v.Convention != ValidationTestlib {
		errs = append(errs, fmt.Errorf("validation.convention %q unknown", v.Convention))
	}
	if v.Name == "" || !safeFileName(v.Name) || strings.HasPrefix(v.Name, ".") {
		errs = append(errs, fmt.Errorf("validation.name %q is not a plain file name", v.Name))
	}
	for c := range v.CaseArgs {
		if c < 1 {
			errs = append(errs, fmt.Errorf("validation.case_args: case %d < 1", c))
		}
	}
	if v.Source == "" {
		errs = append(errs, errors.New("validation.source is empty"))
	}
	n := len(v.Source)
	for _, a := range v.CaseArgs {
		for _, x := range a {
			n += len(x)
		}
	}
	for name, b := range v.Files {
		if name == "" || name == v.Name || !safeFileName(name) {
			errs = append(errs, fmt.Errorf("validation.files: %q is not a plain file name", name))
		}
		n += len(b)
	}
	if n > MaxValidatorBytes {
		errs = append(errs, fmt.Errorf("validation: %d bytes of source, limit %d", n, MaxValidatorBytes))
	}
	return errors.Join(errs...)
}

// safeFileName: a name of one path element, no dot-only name.
func safeFileName(name string) bool {
	if name == "." || name == ".." || len(name) > 255 {
		return false
	}
	for _, c := range name {
		if c == '/' || c == '\\' || c == 0 {
			return false
		}
	}
	return true
}

// validateValidation checks what an input validation's task must carry.
func (t Task) validateValidation() error {
	var errs []error
	if !IsCustomRun(t.SubmissionID) {
		errs = append(errs, fmt.Errorf("validation id %d < %d", t.SubmissionID, CustomRunIDBase))
	}
	if t.Custom != nil || t.IO != nil || t.Language == LanguageOutputs {
		errs = append(errs, errors.New("an input validation is no custom run, file I/O or output-only task"))
	}
	if t.TestData.Hash == "" {
		errs = append(errs, errors.New("an input validation needs the test data"))
	}
	errs = append(errs, t.Validation.Validate())
	return errors.Join(errs...)
}

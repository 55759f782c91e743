package protocol

import (
	"errors"
	"fmt"
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
// validator's source; Language is the language whose compiler the
// validator needs (cpp17 or c17), so the hub sends it to a judge that has
// it. The judge compiles the validator in the sandbox and runs it
// on each case's input (stdin), and answers with one CustomOutput per
// case: AC for a valid input, WA for an invalid one (RE, TLE, MLE when
// the validator failed on it), the validator's message in Message. The
// Result's verdict is AC when every input is valid, CE when the validator
// does not compile (CompileMessage says why), WA otherwise.

// Input validator conventions.
const (
	// ValidationKattis: the ICPC/Kattis input validator, `validator
	// [flags] < input`, exit 42 valid, 43 invalid.
	ValidationKattis = "kattis"
	// ValidationTestlib: a testlib validator (Polygon), `validator <
	// input`, exit 0 valid, anything else invalid.
	ValidationTestlib = "testlib"
)

// Input validator source names.
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
	// Name is ValidatorCPP or ValidatorC.
	Name   string `json:"name"`
	Source string `json:"source"`
	// Files are compiled with it, by name (the headers it includes: a
	// package's own testlib.h).
	Files map[string]string `json:"files,omitempty"`
	// Args follow the program name (Kattis input_validator_flags).
	Args []string `json:"args,omitempty"`
}

// Validate checks the convention, names and bounds.
func (v InputValidation) Validate() error {
	var errs []error
	if v.Convention != ValidationKattis && v.Convention != ValidationTestlib {
		errs = append(errs, fmt.Errorf("validation.convention %q unknown", v.Convention))
	}
	if v.Name != ValidatorCPP && v.Name != ValidatorC {
		errs = append(errs, fmt.Errorf("validation.name %q is not %s or %s", v.Name, ValidatorCPP, ValidatorC))
	}
	if v.Source == "" {
		errs = append(errs, errors.New("validation.source is empty"))
	}
	n := len(v.Source)
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

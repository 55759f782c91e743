package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// File I/O and output-only problems (docs/problems.md).
//
// A problem may read its input from a named file and/or write its output
// to a named file instead of stdin and stdout (Task.IO): the judge puts
// the case's input in the run's work directory under InputFile, gives
// the program an empty OutputFile it may write (and nothing else), and
// reads that file back without following symlinks, bounded by the output
// limit. A program that never wrote its output file gets a wrong answer
// ("no output file").
//
// An output-only problem has no program: the contestant uploads one
// output per case. Its tasks have Language LanguageOutputs and, as
// Source, the outputs document (EncodeOutputs); the judge checks each
// output with the problem's checker, no compile, no run. A case without
// an output is a wrong answer.

// FileIO names a problem's input and output files; an empty name keeps
// stdin or stdout.
type FileIO struct {
	InputFile  string `json:"input_file,omitempty"`
	OutputFile string `json:"output_file,omitempty"`
}

// MaxIOFileName bounds FileIO's names.
const MaxIOFileName = 64

// ValidIOFileName reports whether name can be a problem's input or output
// file: 1 to MaxIOFileName of A-Z a-z 0-9 . _ -, not starting with a dot
// (a plain name in the work directory, never a path).
func ValidIOFileName(name string) bool {
	if name == "" || len(name) > MaxIOFileName || name[0] == '.' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Validate checks the names: each empty or valid, and not the same file.
func (f FileIO) Validate() error {
	var errs []error
	if f.InputFile != "" && !ValidIOFileName(f.InputFile) {
		errs = append(errs, fmt.Errorf("io.input_file %q is not a plain file name", f.InputFile))
	}
	if f.OutputFile != "" && !ValidIOFileName(f.OutputFile) {
		errs = append(errs, fmt.Errorf("io.output_file %q is not a plain file name", f.OutputFile))
	}
	if f.InputFile != "" && f.InputFile == f.OutputFile {
		errs = append(errs, fmt.Errorf("io: input_file and output_file are both %q", f.InputFile))
	}
	return errors.Join(errs...)
}

// LanguageOutputs is the language of an output-only submission. A judge
// that checks uploaded outputs offers it in Hello.Languages (as a
// capability: it is never a language a person picks), so the hub sends
// such tasks only to judges that can take them.
const LanguageOutputs = "outputs"

// LanguageTestlib is offered in Hello.Languages by a judge that has
// testlib.h in its configured include directory (Version: "sha256:" and
// the header's hash, so a mix of copies shows): the web nodes refuse
// packages whose checkers need testlib when neither the package nor any
// live judge has it.
const LanguageTestlib = "testlib"

// IsCapability reports whether a Hello language id is a capability
// (LanguageOutputs, LanguageTestlib), not a programming language.
func IsCapability(id string) bool { return id == LanguageOutputs || id == LanguageTestlib }

// Bounds of an output-only submission: the outputs document must fit a
// task (MaxJudgeMessage) with room to spare after base64.
const (
	MaxOutputFiles  = 1000
	MaxOutputsBytes = 512 << 10 // the outputs' raw bytes, together
)

// OutputFile is the contestant's output of one case.
type OutputFile struct {
	Case int    `json:"case"` // 1-based
	Data []byte `json:"data"` // base64 in JSON
}

// Outputs is an output-only submission's document (its Source).
type Outputs struct {
	Files []OutputFile `json:"files"`
}

// ErrOutputs wraps every error of DecodeOutputs and Outputs.Validate.
var ErrOutputs = errors.New("outputs")

// Validate checks cases (≥ 1, ascending, each once) and the bounds.
func (o Outputs) Validate() error {
	if len(o.Files) > MaxOutputFiles {
		return fmt.Errorf("%w: %d files, limit %d", ErrOutputs, len(o.Files), MaxOutputFiles)
	}
	total := 0
	for i, f := range o.Files {
		if f.Case < 1 || (i > 0 && f.Case <= o.Files[i-1].Case) {
			return fmt.Errorf("%w: files[%d]: case %d (cases are ≥ 1, ascending, each once)", ErrOutputs, i, f.Case)
		}
		total += len(f.Data)
	}
	if total > MaxOutputsBytes {
		return fmt.Errorf("%w: %d bytes together, limit %d", ErrOutputs, total, MaxOutputsBytes)
	}
	return nil
}

// Of returns case c's output, and whether there is one.
func (o Outputs) Of(c int) ([]byte, bool) {
	for _, f := range o.Files {
		if f.Case == c {
			return f.Data, true
		}
	}
	return nil, false
}

// EncodeOutputs is the Source of an output-only submission.
func EncodeOutputs(o Outputs) (string, error) {
	if err := o.Validate(); err != nil {
		return "", err
	}
	if o.Files == nil {
		o.Files = []OutputFile{}
	}
	b, err := json.Marshal(o)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrOutputs, err)
	}
	return string(b), nil
}

// DecodeOutputs reads an output-only submission's Source.
func DecodeOutputs(src string) (Outputs, error) {
	var o Outputs
	dec := json.NewDecoder(strings.NewReader(src))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return Outputs{}, fmt.Errorf("%w: %w", ErrOutputs, err)
	}
	if dec.More() {
		return Outputs{}, fmt.Errorf("%w: data after the document", ErrOutputs)
	}
	if err := o.Validate(); err != nil {
		return Outputs{}, err
	}
	return o, nil
}

// equalOutputs is for tests.
func equalOutputs(a, b Outputs) bool {
	if len(a.Files) != len(b.Files) {
		return false
	}
	for i := range a.Files {
		if a.Files[i].Case != b.Files[i].Case || !bytes.Equal(a.Files[i].Data, b.Files[i].Data) {
			return false
		}
	}
	return true
}

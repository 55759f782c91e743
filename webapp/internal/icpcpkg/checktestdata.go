package icpcpkg

import (
	"context"
	"errors"
	"fmt"

	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/checktestdata"
)

// Checktestdata is a checktestdata script of the package (an input
// validator in the checktestdata language), parsed.
type Checktestdata struct {
	// Path is the script's file in the package.
	Path    string
	Program *checktestdata.Program
}

// MaxChecktestdataSteps bounds the work of a package's checktestdata
// scripts over all its inputs together (checktestdata.Limits.MaxSteps).
const MaxChecktestdataSteps = 200_000_000

// InputRefusal is an input that a checktestdata script refuses: the
// input's and the script's names in the package, and the script's error
// (a *checktestdata.InputError: the line and position in the input).
type InputRefusal struct {
	Input, Validator string
	Err              error
}

func (e *InputRefusal) Error() string {
	return fmt.Sprintf("input %s: %v (input validator %s)", e.Input, e.Err, e.Validator)
}

func (e *InputRefusal) Unwrap() error { return e.Err }

// CheckInputs runs the package's checktestdata scripts (p.Checktestdata)
// over every input of pkg (named p.InputNames): nil when every input
// passes each, else an *InputRefusal for the first input refused. A run
// that a limit stops (more than maxSteps over all the inputs together,
// MaxChecktestdataSteps when 0; an input or an integer larger than the
// interpreter takes) refuses the package, ErrUnsupported naming the
// script, the input and the limit: the web node runs the scripts at
// import and bounds that work. It returns ctx's error when ctx ends
// first.
func (p Problem) CheckInputs(ctx context.Context, pkg testpkg.Package, maxSteps int64) error {
	if maxSteps <= 0 {
		maxSteps = MaxChecktestdataSteps
	}
	budget := maxSteps
	for _, s := range p.Checktestdata {
		for i, c := range pkg.Cases {
			name := fmt.Sprintf("test %d", i+1)
			if i < len(p.InputNames) {
				name = p.InputNames[i]
			}
			steps, err := s.Program.Check(ctx, c.In, checktestdata.Limits{MaxSteps: max(budget, 1)})
			budget -= steps
			var ie *checktestdata.InputError
			switch {
			case err == nil:
				continue
			case ctx.Err() != nil:
				return ctx.Err()
			case errors.As(err, &ie) && ie.Limit:
				if budget < 0 {
					return fmt.Errorf("%w: %s: the checktestdata script needs more than %d steps over the inputs (stopped at input %s): more than an import runs",
						ErrUnsupported, s.Path, maxSteps, name)
				}
				return fmt.Errorf("%w: %s: input %s: %s: more than an import runs", ErrUnsupported, s.Path, name, ie.Msg)
			}
			return &InputRefusal{Input: name, Validator: s.Path, Err: err}
		}
	}
	return nil
}

package testpkg

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DefaultValidatorFlags are the ICPC problem package format's default
// output validator's flags (the judges' built-in checker of kind
// protocol.CheckerICPC): how it compares the output with the answer, token
// by token.
type DefaultValidatorFlags struct {
	// CaseSensitive (case_sensitive): tokens compare byte for byte;
	// without it, ASCII letters compare regardless of case.
	CaseSensitive bool
	// SpaceChangeSensitive (space_change_sensitive): the white space
	// before each token and at the end must be the answer's, byte for
	// byte; without it any run of white space equals any other.
	SpaceChangeSensitive bool
	// AbsTol and RelTol (float_absolute_tolerance,
	// float_relative_tolerance; float_tolerance sets both) are the errors
	// allowed where the answer's token is a finite number; negative: not
	// set. With either set, such a token of the answer needs a number in
	// the output within either tolerance, in any notation; with neither,
	// numbers compare as other tokens do.
	AbsTol, RelTol float64
}

// Floats reports whether a tolerance is set.
func (f DefaultValidatorFlags) Floats() bool { return f.AbsTol >= 0 || f.RelTol >= 0 }

// ParseDefaultValidatorFlags reads the default output validator's flags:
// case_sensitive, space_change_sensitive, and float_tolerance ε,
// float_absolute_tolerance ε, float_relative_tolerance ε with ε a
// finite number ≥ 0; a later flag overrides an earlier one (the group's
// flags come after problem.yaml's). Any other word is an error naming it,
// as it is a judge error to the format's own default validator.
func ParseDefaultValidatorFlags(args []string) (DefaultValidatorFlags, error) {
	f := DefaultValidatorFlags{AbsTol: -1, RelTol: -1}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "case_sensitive":
			f.CaseSensitive = true
		case "space_change_sensitive":
			f.SpaceChangeSensitive = true
		case "float_tolerance", "float_absolute_tolerance", "float_relative_tolerance":
			if i+1 == len(args) {
				return f, fmt.Errorf("%s needs a value", a)
			}
			i++
			v, err := strconv.ParseFloat(args[i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return f, fmt.Errorf("%s %q is not a finite number ≥ 0", a, args[i])
			}
			switch a {
			case "float_tolerance":
				f.AbsTol, f.RelTol = v, v
			case "float_absolute_tolerance":
				f.AbsTol = v
			default:
				f.RelTol = v
			}
		default:
			return f, fmt.Errorf("unknown flag %q (the default output validator takes case_sensitive, space_change_sensitive, float_tolerance ε, float_absolute_tolerance ε, float_relative_tolerance ε)", a)
		}
	}
	return f, nil
}

// checkDefaultValidator validates the default output validator's flags
// of m: default_validator_flags, and each case's validator_args when the
// package has no output validator of its own (they are then the default
// validator's).
func (m *Manifest) checkDefaultValidator() error {
	bad := func(what string, err error) error {
		return fmt.Errorf("%w: %s: %s: %w", ErrInvalid, ManifestName, what, err)
	}
	if len(m.DefaultValidatorFlags) > MaxInteractorArgs {
		return bad("default_validator_flags", fmt.Errorf("%d flags, limit %d", len(m.DefaultValidatorFlags), MaxInteractorArgs))
	}
	if len(m.DefaultValidatorFlags) > 0 && (m.Checker != "" || m.Interactive) {
		return bad("default_validator_flags", fmt.Errorf("the package has its own output validator"))
	}
	if _, err := ParseDefaultValidatorFlags(m.DefaultValidatorFlags); err != nil {
		return bad("default_validator_flags "+strings.Join(m.DefaultValidatorFlags, " "), err)
	}
	if m.Checker != "" || m.Interactive {
		return nil
	}
	for _, c := range m.Cases {
		if _, err := ParseDefaultValidatorFlags(c.ValidatorArgs); err != nil {
			return bad(fmt.Sprintf("case %d: validator_args", c.Index), err)
		}
	}
	return nil
}

package testpkg

import (
	"slices"
	"strings"
	"testing"
)

// TestValidatorArgs: a case's own validator arguments survive Build and
// Read, replace the checker's and the interactor's for that case only
// (ForCase), and are bounded.
func TestValidatorArgs(t *testing.T) {
	p := Package{Cases: []Case{{In: []byte("1\n"), Ans: []byte("1\n")}, {In: []byte("2\n"), Ans: []byte("2\n")}},
		ValidatorArgs: map[int][]string{2: {"lenient", "7"}},
		Checker:       []byte("int main(){return 42;}"), CheckerOptions: CheckerOptions{Name: CheckerC, Convention: ConventionKattis, Args: []string{"strict"}}}
	b, m, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, mm := range []Manifest{m, got} {
		if mm.Cases[0].ValidatorArgs != nil || !slices.Equal(mm.Cases[1].ValidatorArgs, []string{"lenient", "7"}) {
			t.Fatalf("cases %+v", mm.Cases)
		}
		if a := mm.ForCase(0).CheckerArgs; !slices.Equal(a, []string{"strict"}) {
			t.Errorf("case 1 checker args %q, want the problem's", a)
		}
		if c := mm.ForCase(1); !slices.Equal(c.CheckerArgs, []string{"lenient", "7"}) || !slices.Equal(c.InteractorArgs, []string{"lenient", "7"}) {
			t.Errorf("case 2 args %q %q, want its own", c.CheckerArgs, c.InteractorArgs)
		}
		if a := mm.ForCase(5).CheckerArgs; !slices.Equal(a, []string{"strict"}) {
			t.Errorf("no such case: args %q", a)
		}
	}
	p.ValidatorArgs[2] = []string{strings.Repeat("x", MaxInteractorArgLen+1)}
	if _, _, err := p.Build(); err == nil || !strings.Contains(err.Error(), "validator_args") {
		t.Errorf("an over-long argument: %v", err)
	}
	p.ValidatorArgs[2] = make([]string, MaxInteractorArgs+1)
	if _, _, err := p.Build(); err == nil || !strings.Contains(err.Error(), "validator_args") {
		t.Errorf("too many arguments: %v", err)
	}
	p.ValidatorArgs = map[int][]string{3: {"x"}}
	if _, _, err := p.Build(); err == nil || !strings.Contains(err.Error(), "validator_args of case 3") {
		t.Errorf("a case the package lacks: %v", err)
	}
}

// TestDefaultValidatorFlags: the ICPC default output validator's flags
// of a package without a checker survive Build, Read and ReadSamples; a
// case's own replace them for that case; bad flags, and flags beside a
// package's own checker, are refused naming the field.
func TestDefaultValidatorFlags(t *testing.T) {
	p := Package{Cases: []Case{{In: []byte("1\n"), Ans: []byte("1\n")}, {In: []byte("2\n"), Ans: []byte("2\n")}},
		Samples:               []int{1, 2},
		DefaultValidatorFlags: []string{"case_sensitive"},
		ValidatorArgs:         map[int][]string{2: {"case_sensitive", "float_tolerance", "0.5"}}}
	b, m, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, mm := range []Manifest{m, got} {
		if f := mm.ForCase(0).DefaultValidatorFlags; !slices.Equal(f, []string{"case_sensitive"}) {
			t.Errorf("case 1 flags %q, want the problem's", f)
		}
		if f := mm.ForCase(1).DefaultValidatorFlags; !slices.Equal(f, []string{"case_sensitive", "float_tolerance", "0.5"}) {
			t.Errorf("case 2 flags %q, want its own", f)
		}
	}
	samples, err := ReadSamples(b, 1<<20)
	if err != nil || len(samples) != 2 || !slices.Equal(samples[1].Flags, []string{"case_sensitive", "float_tolerance", "0.5"}) ||
		!slices.Equal(samples[0].Flags, []string{"case_sensitive"}) {
		t.Fatalf("samples %+v, %v", samples, err)
	}
	for name, bad := range map[string]Package{
		"unknown flag":       {Cases: p.Cases, DefaultValidatorFlags: []string{"ignore_case"}},
		"missing value":      {Cases: p.Cases, DefaultValidatorFlags: []string{"float_tolerance"}},
		"case's bad value":   {Cases: p.Cases, ValidatorArgs: map[int][]string{1: {"float_absolute_tolerance", "-1"}}},
		"beside its checker": {Cases: p.Cases, DefaultValidatorFlags: []string{"case_sensitive"}, Checker: []byte("int main(){}")},
	} {
		if _, _, err := bad.Build(); err == nil || !strings.Contains(err.Error(), "default_validator_flags") && !strings.Contains(err.Error(), "validator_args") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

package icpcpkg

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/webapp/internal/checktestdata"
)

// TestCheckInputs: a package's checktestdata scripts (a file, or the
// .ctd files of a program's directory) are parsed at Convert and run over
// every input by CheckInputs: good inputs pass; a bad one is refused
// naming the input, its line and position, the script's command and the
// script; a script that does not parse refuses the package naming it and
// its line; scripts that would work past the budget refuse the package.
func TestCheckInputs(t *testing.T) {
	base := map[string]string{
		"p/problem.yaml":                   "name: P\n",
		"p/data/sample/1.in":               "2\n1 2\n",
		"p/data/sample/1.ans":              "3\n",
		"p/data/secret/01.in":              "3\n10 20 30\n",
		"p/data/secret/01.ans":             "60\n",
		"p/data/secret/02.in":              "1\n5\n",
		"p/data/secret/02.ans":             "5\n",
		"p/input_validators/format.ctd":    "INT(1, 100, n) NEWLINE\nREPI(i, n, SPACE)\n  INT(1, 1000, a[i])\nEND\nNEWLINE\nASSERT(UNIQUE(a))\n",
		"p/input_validators/more/size.ctd": "INT(1, 3) NEWLINE REGEX(\"[0-9 ]+\") NEWLINE\n",
	}
	p, pkg, err := Convert(zipOf(t, base), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range p.Checktestdata {
		paths = append(paths, c.Path)
	}
	if want := []string{"input_validators/format.ctd", "input_validators/more/size.ctd"}; !slices.Equal(paths, want) || len(p.InputValidators) != 0 {
		t.Fatalf("scripts %q, want %q (programs %d)", paths, want, len(p.InputValidators))
	}
	if !slices.Contains(p.Notes, "input validators run on every input at import: 2") {
		t.Errorf("notes %q", p.Notes)
	}
	if err := p.CheckInputs(context.Background(), pkg, 0); err != nil {
		t.Fatalf("good inputs: %v", err)
	}
	// A program's directory with a script and a source: the script runs,
	// the source is noted as not run.
	p2, _, err := Convert(zipOf(t, with(base, "p/input_validators/more/extra.py", "exit(42)")), Limits{})
	if err != nil || len(p2.Checktestdata) != 2 || len(p2.InputValidators) != 0 || !slices.ContainsFunc(p2.Notes, func(n string) bool {
		return strings.Contains(n, "input validator input_validators/more not run (sources beside its checktestdata script")
	}) {
		t.Errorf("a script beside a source: %v, %d scripts, notes %q", err, len(p2.Checktestdata), p2.Notes)
	}

	for _, tc := range []struct {
		name, file, content, want string
	}{
		{"out of range", "p/data/secret/01.in", "3\n10 2000 30\n",
			"input data/secret/01.in: line 2, position 4: INT (script line 3): 2000 is out of range [1, 1000] (input validator input_validators/format.ctd)"},
		{"not unique", "p/data/secret/02.in", "2\n7 7\n",
			"input data/secret/02.in: line 3, position 1: ASSERT (script line 6): the assertion is false (input validator input_validators/format.ctd)"},
		{"trailing space", "p/data/sample/1.in", "2\n1 2 \n",
			"input data/sample/1.in: line 2, position 4: NEWLINE (script line 5): expected newline, found ' '"},
		{"second script", "p/data/secret/01.in", "4\n1 2 3 4\n",
			"input data/secret/01.in: line 1, position 1: INT (script line 1): 4 is out of range [1, 3] (input validator input_validators/more/size.ctd)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, pkg, err := Convert(zipOf(t, with(base, tc.file, tc.content)), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			err = p.CheckInputs(context.Background(), pkg, 0)
			var r *InputRefusal
			var ie *checktestdata.InputError
			if !errors.As(err, &r) || !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}

	_, _, err = Convert(zipOf(t, with(base, "p/input_validators/format.ctd", "INT(1, 100, n) NEWLINE\nREP(n) INT(1, 9)\n")), Limits{})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "input_validators/format.ctd: line 3, column 1: REP (line 2) has no END") {
		t.Errorf("a script that does not parse: %v", err)
	}
	_, _, err = Convert(zipOf(t, with(base, "p/input_validators/format.ctd", "REGEX(\"(a)\\\\1\")")), Limits{})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "input_validators/format.ctd: line 1, column 7: the regular expression") {
		t.Errorf("a regular expression RE2 does not take: %v", err)
	}

	p, pkg, err = Convert(zipOf(t, with(base, "p/input_validators/format.ctd", "SET(x = 0) WHILE(x >= 0) SET(x = x + 1) END")), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckInputs(context.Background(), pkg, 1_000_000); !errors.Is(err, ErrUnsupported) ||
		!strings.Contains(err.Error(), "input_validators/format.ctd: the checktestdata script needs more than 1000000 steps over the inputs (stopped at input data/sample/1.in)") {
		t.Errorf("endless work: %v", err)
	}
	p, pkg, err = Convert(zipOf(t, with(base, "p/input_validators/format.ctd", "SET(x = 2) REP(20) SET(x = x * x) END")), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckInputs(context.Background(), pkg, 0); !errors.Is(err, ErrUnsupported) ||
		!strings.Contains(err.Error(), "input_validators/format.ctd: input data/sample/1.in: an integer of more than 65536 bits") {
		t.Errorf("a huge integer: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.CheckInputs(ctx, pkg, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled check: %v", err)
	}
}

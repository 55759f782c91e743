package checker

import (
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// TestICPC: the ICPC default output validator, flag by flag, as the
// package format defines it.
func TestICPC(t *testing.T) {
	const AC, WA = protocol.VerdictAC, protocol.VerdictWA
	for _, tc := range []struct {
		name     string
		flags    string
		out, ans string
		want     protocol.Verdict
		msg      string
	}{
		{"same", "", "1 2\n", "1 2\n", AC, ""},
		{"any white space", "", "  1\t\t2\r\n\n", "1 2\n", AC, ""},
		{"no final newline", "", "3", "3\n", AC, ""},
		{"empty both", "", "\n\n", "", AC, ""},
		{"case ignored by default", "", "yes Possible", "YES possible", AC, ""},
		{"only ASCII folds", "", "É", "é", WA, ""},
		{"case_sensitive", "case_sensitive", "yes", "YES", WA, `token 1: expected "YES", found "yes"`},
		{"case_sensitive same", "case_sensitive", "YES", "YES", AC, ""},
		{"wrong token", "", "1\n3\n", "1\n2\n", WA, `line 2: token 2: expected "2", found "3"`},
		{"short", "", "1", "1 2", WA, `expected "2" next`},
		{"trailing", "", "1 2 3", "1 2", WA, `extra output "3"`},
		{"numbers exact without tolerance", "", "1.0", "1", WA, ""},
		{"space sensitive same", "space_change_sensitive", "1  2\n", "1  2\n", AC, ""},
		{"space sensitive fewer", "space_change_sensitive", "1 2\n", "1  2\n", WA, "expected white space ' ', found no white space"},
		{"space sensitive more", "space_change_sensitive", "1   2\n", "1  2\n", WA, "white space ' ' where the answer has none"},
		{"space sensitive other char", "space_change_sensitive", "1\t2\n", "1 2\n", WA, `expected white space ' ', found '\t'`},
		{"space sensitive final newline", "space_change_sensitive", "1 2", "1 2\n", WA, ""},
		{"space sensitive extra final newline", "space_change_sensitive", "1 2\n\n", "1 2\n", WA, ""},
		{"space sensitive ignores case", "space_change_sensitive", "a B\n", "A b\n", AC, ""},
		{"space sensitive leading", "space_change_sensitive", " 1\n", "1\n", WA, ""},
		{"float_tolerance abs", "float_tolerance 1e-6", "0.3333333", "0.333333333", AC, ""},
		{"float_tolerance at the bound", "float_tolerance 0.5", "1.5", "1", AC, ""},
		{"float_tolerance outside", "float_tolerance 1e-6", "0.3334", "0.333333333", WA, "absolute tolerance 1e-06, relative 1e-06"},
		{"float_tolerance relative", "float_tolerance 1e-6", "1000000001", "1000000000", AC, ""},
		{"any notation", "float_tolerance 1e-9", "3.14000000e-2", "0.0314", AC, ""},
		{"number expected", "float_tolerance 1e-6", "abc", "0.5", WA, "expected a number"},
		{"nan is no number", "float_tolerance 1e-6", "nan", "0.5", WA, "expected a number"},
		{"answer word stays a word", "float_tolerance 1e-6", "CASE 1:", "Case 1:", AC, ""},
		{"answer inf is a word", "float_tolerance 1", "inf", "inf", AC, ""},
		{"absolute only", "float_absolute_tolerance 0.01", "100.5", "100", WA, "relative none"},
		{"absolute only within", "float_absolute_tolerance 0.01", "100.005", "100", AC, ""},
		{"relative only", "float_relative_tolerance 0.01", "100.5", "100", AC, ""},
		{"relative only outside", "float_relative_tolerance 0.01", "0.5", "0", WA, ""},
		{"either tolerance", "float_absolute_tolerance 1 float_relative_tolerance 0.001", "0.9", "0", AC, ""},
		{"later flag wins", "float_tolerance 0.1 float_tolerance 1e-9", "1.01", "1", WA, ""},
		{"zero tolerance", "float_tolerance 0", "1.0", "1", AC, ""},
		{"floats with case", "float_tolerance 1e-6 case_sensitive", "Yes 1.0000001", "Yes 1", AC, ""},
		{"floats with case wrong", "float_tolerance 1e-6 case_sensitive", "yes 1", "Yes 1", WA, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Check(protocol.CheckerICPC, 0, strings.Fields(tc.flags), strings.NewReader(tc.out), strings.NewReader(tc.ans))
			if err != nil {
				t.Fatal(err)
			}
			if got.Verdict != tc.want || !strings.Contains(got.Message, tc.msg) {
				t.Fatalf("got %+v, want %s with %q", got, tc.want, tc.msg)
			}
			if (got.Verdict == AC) != (got.Fraction == 1) {
				t.Fatalf("fraction %v for %s", got.Fraction, got.Verdict)
			}
		})
	}
}

func TestICPCBadFlags(t *testing.T) {
	for _, flags := range []string{"float_tolerance", "float_tolerance x", "float_tolerance -1", "float_relative_tolerance nan", "ignore_case"} {
		if _, err := Check(protocol.CheckerICPC, 0, strings.Fields(flags), strings.NewReader("1"), strings.NewReader("1")); err == nil {
			t.Errorf("%q: no error", flags)
		}
	}
}

func TestICPCHugeToken(t *testing.T) {
	out := strings.Repeat("9", MaxToken+10)
	got, err := Check(protocol.CheckerICPC, 0, nil, strings.NewReader(out), strings.NewReader("9"))
	if err != nil || got.Verdict != protocol.VerdictWA || !strings.Contains(got.Message, "longer than") {
		t.Fatalf("got %+v %v", got, err)
	}
}

package checktestdata

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// check parses script and checks input: "" when accepted, else the error.
func check(t *testing.T, script, input string, lim Limits) string {
	t.Helper()
	p, err := Parse([]byte(script))
	if err != nil {
		t.Fatalf("parse %q: %v", script, err)
	}
	if _, err := p.Check(context.Background(), []byte(input), lim); err != nil {
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Fatalf("not an *InputError: %T %v", err, err)
		}
		return err.Error()
	}
	return ""
}

// TestLanguage: each construct on inputs it accepts ("" want) and
// refuses (want is part of the message).
func TestLanguage(t *testing.T) {
	for _, tc := range []struct {
		name, script, input, want string
	}{
		// Tokens.
		{"int", "INT(0, 10) NEWLINE", "7\n", ""},
		{"int negative", "INT(-10, 10)", "-7", ""},
		{"int zero", "INT(0, 0)", "0", ""},
		{"int out of range", "INT(0, 10)", "11", "line 1, position 1: INT (script line 1): 11 is out of range [0, 10]"},
		{"int leading zero", "INT(0, 10)", "07", "leading zero"},
		{"int minus zero", "INT(-1, 1)", "-0", "-0"},
		{"int missing", "INT(0, 10)", "x", `expected an integer, found "x"`},
		{"int at eof", "INT(0, 10)", "", "found the end of the input"},
		{"int big", "INT(0, 10^30)", "999999999999999999999999999999", ""},
		{"int bigger", "INT(0, 10^30)", "1000000000000000000000000000001", "out of range"},
		{"int float bounds", "INT(1, 1e9)", "1000000000", ""},
		{"int into variable", "INT(1, 5, n) SPACE INT(n, n)", "3 3", ""},
		{"int into variable wrong", "INT(1, 5, n) SPACE INT(n, n)", "3 4", "line 1, position 3"},
		{"trailing data", "INT(0, 10)", "7\n", "line 1, position 2: EOF (script line 1): expected the end of the input"},
		{"missing newline", "INT(0, 10) NEWLINE", "7", "expected newline, found the end of the input"},
		{"space not tab", "INT(0,9) SPACE INT(0,9)", "1\t2", `expected space, found '\t'`},
		{"float", "FLOAT(0, 1) NEWLINE", "0.5\n", ""},
		{"float exponent", "FLOAT(0, 1)", "5e-1", ""},
		{"float integer", "FLOAT(0, 1)", "1", ""},
		{"float out of range", "FLOAT(0, 1)", "1.0001", "out of range"},
		{"float no digits after point", "FLOAT(0, 1) STRING(\".\")", "1.", ""},
		{"float fixed", "FLOAT(0, 1, x, FIXED)", "5e-1", "FIXED"},
		{"float scientific", "FLOAT(0, 1, x, SCIENTIFIC)", "0.5", "SCIENTIFIC"},
		{"float scientific ok", "FLOAT(0, 1, x, SCIENTIFIC)", "5.0e-1", ""},
		{"float not", "FLOAT(0, 1)", ".5", "expected a float"},
		{"float precise", "FLOAT(0, 0.1, x) ASSERT(x == 0.1)", "0.1", ""},
		{"floatp", "FLOATP(0, 10, 2, 3)", "1.25", ""},
		{"floatp few decimals", "FLOATP(0, 10, 2, 3)", "1.5", "has 1 decimals, want 2 to 3"},
		{"floatp many decimals", "FLOATP(0, 10, 2, 3)", "1.2500", "has 4 decimals"},
		{"floatp leading zero", "FLOATP(0, 100, 0, 3)", "01.5", "leading zero"},
		{"floatp negative zero", "FLOATP(-1, 1, 0, 3)", "-0.0", "negative zero"},
		{"floatp scientific", "FLOATP(0, 1000, 1, 1, x, SCIENTIFIC)", "1.5e2", ""},
		{"floatp scientific two digits", "FLOATP(0, 1000, 1, 1)", "15.0e1", "one non-zero digit"},
		{"string", `STRING("Case") SPACE INT(1, 9)`, "Case 1", ""},
		{"string wrong", `STRING("Case")`, "Cave", `line 1, position 3: STRING (script line 1): expected "Case"`},
		{"string escapes", `STRING("a\tb\n\101\\")`, "a\tb\nA\\", ""},
		{"regex", `REGEX("[a-z]+", s) ASSERT(s == "abc") NEWLINE`, "abc\n", ""},
		{"regex longest", `REGEX("a|ab", s) ASSERT(STRLEN(s) == 2)`, "ab", ""},
		{"regex no match", `REGEX("[a-z]+")`, "ABC", `no match for "[a-z]+"`},
		{"regex dot and newline", `REGEX("a.*")`, "ab\ncd", "line 1, position 3: EOF"},
		{"regex computed backreference", `SET(r = "(a)\\1") REGEX(r)`, "aa", "Go's RE2 syntax"},
		// Control.
		{"rep", "INT(1, 5, n) NEWLINE REP(n, SPACE) INT(1, 9) END NEWLINE", "3\n1 2 3\n", ""},
		{"rep short", "INT(1, 5, n) NEWLINE REP(n, SPACE) INT(1, 9) END NEWLINE", "3\n1 2\n", "line 2, position 4: SPACE"},
		{"rep zero", "REP(0) INT(0, 1) END", "", ""},
		{"rep negative", "REP(-1) END", "", "not an integer in [0, 2^32)"},
		{"repi", "REPI(i, 3, SPACE) INT(i, i) END", "0 1 2", ""},
		{"repi counter after", "REPI(i, 3) END ASSERT(i == 3)", "", ""},
		{"repi arrays", "REPI(i, 3, SPACE) INT(0, 9, a[i]) END ASSERT(a[0] + a[1] + a[2] == 6)", "1 2 3", ""},
		{"while", `WHILE(!ISEOF) INT(0, 9) NEWLINE END`, "1\n2\n3\n", ""},
		{"whilei", `WHILEI(i, !MATCH("."), SPACE) INT(0, 9) END STRING(".") ASSERT(i == 3)`, "1 2 3.", ""},
		{"while separator", `WHILE(!ISEOF, SPACE) INT(0, 9) END`, "1 2 3", ""},
		{"while condition before separator", `WHILE(MATCH("0123456789"), SPACE) INT(0, 9) END`, "1 2", "line 1, position 2: EOF"},
		{"if", `INT(0, 1, t) IF(t == 1) SPACE INT(5, 5) ELSE SPACE INT(6, 6) END`, "1 5", ""},
		{"else", `INT(0, 1, t) IF(t == 1) SPACE INT(5, 5) ELSE SPACE INT(6, 6) END`, "0 6", ""},
		{"else wrong", `INT(0, 1, t) IF(t == 1) SPACE INT(5, 5) ELSE SPACE INT(6, 6) END`, "0 5", "5 is out of range [6, 6]"},
		{"nested", "REP(2) REP(2, SPACE) INT(0, 9) END NEWLINE END", "1 2\n3 4\n", ""},
		{"no separator, one integer", "REP(2) INT(0, 9) END", "12", "12 is out of range [0, 9]"},
		// Expressions and tests.
		{"arithmetic", "ASSERT(7 / 2 == 3 && 7 % 2 == 1 && -7 / 2 == -3 && -7 % 2 == -1 && 2 + 3 * 4 == 14 && (2 + 3) * 4 == 20)", "", ""},
		{"power", "ASSERT(2^10 == 1024 && -2^2 == -4 && 2^3^2 == 512 && 10^18 + 1 == 1000000000000000001)", "", ""},
		{"floats mix", "ASSERT(1 / 2 == 0 && 1.0 / 2 == 0.5 && 1 < 1.5 && 2.5 * 2 == 5)", "", ""},
		{"strings compare", `ASSERT("abc" < "abd" && "b" > "abc" && "x" == "x" && STRLEN("hello") == 5)`, "", ""},
		{"logic", "ASSERT(!(1 > 2) && (1 > 2 || 2 > 1) && 1 != 2)", "", ""},
		{"short circuit", "ASSERT(1 == 1 || undefinedvar == 1)", "", ""},
		{"assert false", "INT(0, 9, x) ASSERT(x > 5)", "3", "line 1, position 2: ASSERT (script line 1): the assertion is false"},
		{"set", "SET(x = 2, y = x * 3) ASSERT(y == 6)", "", ""},
		{"set array 2d", "SET(g[1, 2] = 5) ASSERT(g[1, 2] == 5)", "", ""},
		{"unique", "REPI(i, 3, SPACE) INT(0, 9, a[i]) END ASSERT(UNIQUE(a))", "1 2 3", ""},
		{"unique fails", "REPI(i, 3, SPACE) INT(0, 9, a[i]) END ASSERT(UNIQUE(a))", "1 2 1", "the assertion is false"},
		{"unique pairs", "REPI(i, 3) INT(0, 9, x[i]) SPACE INT(0, 9, y[i]) NEWLINE END ASSERT(UNIQUE(x, y))", "1 1\n1 2\n2 1\n", ""},
		{"unique pairs fail", "REPI(i, 3) INT(0, 9, x[i]) SPACE INT(0, 9, y[i]) NEWLINE END ASSERT(UNIQUE(x, y))", "1 1\n1 2\n1 1\n", "the assertion is false"},
		{"inarray", "REPI(i, 3, SPACE) INT(0, 9, a[i]) END NEWLINE INT(0, 9, q) ASSERT(INARRAY(q, a))", "1 2 3\n2", ""},
		{"inarray not", "REPI(i, 3, SPACE) INT(0, 9, a[i]) END NEWLINE INT(0, 9, q) ASSERT(INARRAY(q, a))", "1 2 3\n5", "the assertion is false"},
		{"unset", "SET(a[1] = 1) UNSET(a) ASSERT(!INARRAY(1, a))", "", ""},
		{"permutation", "INT(1, 9, n) NEWLINE REPI(i, n, SPACE) INT(1, n, p[i]) END NEWLINE ASSERT(UNIQUE(p))", "3\n3 1 2\n", ""},
		{"comment", "# one number\nINT(0, 9) # inline\nNEWLINE\n", "4\n", ""},
		// Errors of the script at run time.
		{"undefined", "ASSERT(x == 1)", "", "the variable x is not set"},
		{"undefined element", "SET(a[1] = 1) ASSERT(a[2] == 1)", "", "a[2] is not set"},
		{"division by zero", "SET(x = 1 / 0)", "", "division by zero"},
		{"string arithmetic", `SET(x = "a" + 1)`, "", "arithmetic takes numbers"},
		{"compare string with number", `ASSERT("a" < 1)`, "", "compares a string with an integer"},
		{"assert number", "ASSERT(1)", "", "ASSERT needs a test"},
		{"modulo floats", "SET(x = 1.5 % 1)", "", "% takes integers"},
		{"negative exponent", "SET(x = 2 ^ -1)", "", "non-negative integer exponent"},
		{"index not integer", "SET(a[1.5] = 1)", "", "not an integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := check(t, tc.script, tc.input, Limits{})
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("script %q on %q: got %q, want %q", tc.script, tc.input, got, tc.want)
			}
		})
	}
}

// TestLimits: a script that loops or grows numbers without end stops at
// the limits, naming them.
func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		name, script, input string
		lim                 Limits
		want                string
	}{
		// Limits are not the input's fault: InputError.Limit says so
		// (checked below for each of these).
		{"endless loop", "WHILE(1 == 1) END", "", Limits{MaxSteps: 10_000}, "step limit (10000) is exceeded"},
		{"endless loop reading nothing", `WHILE(!ISEOF) REGEX("a*") END`, "b", Limits{MaxSteps: 10_000}, "step limit"},
		{"many rounds", "REP(4000000000) END", "", Limits{MaxSteps: 10_000}, "step limit"},
		{"integer growth", "SET(x = 2) REP(100) SET(x = x * x) END", "", Limits{}, "an integer of more than 65536 bits"},
		{"huge power", "SET(x = 3 ^ 1000000)", "", Limits{}, "more than 65536 bits"},
		{"float overflow", "SET(x = 10.0) REP(40) SET(x = x * x) END", "", Limits{}, "overflowed"},
		{"input size", "REGEX(\"[0-9]*\")", "12345", Limits{MaxInput: 4}, "the input is 5 bytes"},
		{"inarray work", "REPI(i, 2000) SET(a[i] = i) END REP(2000) ASSERT(INARRAY(-1, a) || 1 == 1) END", "", Limits{MaxSteps: 1_000_000}, "step limit"},
		{"huge integer read", "INT(0, 1)", strings.Repeat("9", 30000), Limits{}, "digits, more than this validator reads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := check(t, tc.script, tc.input, tc.lim); !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			p, _ := Parse([]byte(tc.script))
			_, err := p.Check(context.Background(), []byte(tc.input), tc.lim)
			var ie *InputError
			if errors.As(err, &ie); ie == nil || ie.Limit != !strings.Contains(tc.want, "overflowed") {
				t.Errorf("limit %v, want %v", ie, !strings.Contains(tc.want, "overflowed"))
			}
		})
	}
	p, _ := Parse([]byte("WHILE(1 == 1) END"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Check(ctx, nil, Limits{MaxSteps: 1 << 30}); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("a cancelled check: %v", err)
	}
}

// TestSyntax: scripts that do not parse, with where and why.
func TestSyntax(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"INT(0, 10", `line 1, column 10: expected ")", found the end of the script`},
		{"REP(3) INT(0, 1)", "REP (line 1) has no END"},
		{"END", "END without the block it closes"},
		{"INT(0, 10) ELSE", "ELSE without the block it closes"},
		{"FOO", "unknown command FOO"},
		{"INT(0, 1, x, FIXED)", `line 1, column 12: expected ")", found ","`},
		{"FLOAT(0, 1, x, EXACT)", "expected FIXED or SCIENTIFIC"},
		{"\nSET(x == 1)", `line 2, column 7: expected "=", found "=="`},
		{`STRING("abc)`, "a string without its closing quote"},
		{"INT(0, 1) @", "unexpected character '@'"},
		{"REP(2, REP(1) END) END", "a separator must be a single command"},
		{"ASSERT(1 +)", "expected a value"},
		{"x", `expected a command, found "x"`},
		{`STRING("\777")`, "octal escape"},
		{`REGEX("(a)\\1")`, "line 1, column 7: the regular expression \"(a)\\1\" is not one Verdict runs (Go's RE2 syntax"},
		{strings.Repeat("IF(1 == 1) ", 300) + strings.Repeat("END ", 300), "nested more than 200 deep"},
		{"ASSERT(" + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + " == 1)", "nested more than 200 deep"},
	} {
		_, err := Parse([]byte(tc.script))
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.script, err, tc.want)
		}
	}
}

// TestReuse: one program checks several inputs, each from a clean
// state.
func TestReuse(t *testing.T) {
	p, err := Parse([]byte("INT(1, 3, n) NEWLINE REPI(i, n) INT(0, 9, a[i]) NEWLINE END ASSERT(UNIQUE(a))"))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"2\n1\n2\n", "1\n1\n", "3\n4\n5\n6\n"} {
		if _, err := p.Check(context.Background(), []byte(in), Limits{}); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}

package checktestdata

import (
	"context"
	"errors"
	"testing"
)

// FuzzParse: no script makes Parse panic or hang; one that parses runs
// over an input within small limits and ends accepted or with an
// *InputError, never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"INT(1, 5, n) NEWLINE REPI(i, n, SPACE) INT(1, n, p[i]) END NEWLINE ASSERT(UNIQUE(p))",
		`WHILEI(i, !ISEOF) REGEX("[a-z]+", s) ASSERT(STRLEN(s) <= 10) NEWLINE END`,
		`FLOATP(-1, 1e3, 0, 6, x, FIXED) SPACE FLOAT(0, 1, y, SCIENTIFIC) IF(x > y) STRING("\101\n") ELSE SET(z[1,2] = 2^10 % 7) END`,
		"SET(a = -(3 - 4) * 5 / 2) ASSERT(a == 2 || !(a != 2) && INARRAY(a, b) || MATCH(\"xyz\"))",
		"# comment\nUNSET(a, b) EOF",
	} {
		f.Add([]byte(s), []byte("3\n1 2 3\n"))
	}
	f.Fuzz(func(t *testing.T, script, input []byte) {
		p, err := Parse(script)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Col < 1 {
				t.Fatalf("%q: %v", script, err)
			}
			return
		}
		_, err = p.Check(context.Background(), input, Limits{MaxSteps: 20_000, MaxIntBits: 4096, MaxInput: 1 << 16})
		var ie *InputError
		if err != nil && (!errors.As(err, &ie) || ie.Line < 1 || ie.Col < 1) {
			t.Fatalf("%q on %q: %v", script, input, err)
		}
	})
}

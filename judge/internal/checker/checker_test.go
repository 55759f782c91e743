package checker

import (
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
)

func TestBuiltin(t *testing.T) {
	for _, tc := range []struct {
		name        string
		kind        protocol.CheckerKind
		tol         float64
		out, ans    string
		want        protocol.Verdict
		msgContains string
	}{
		{"exact same", protocol.CheckerExact, 0, "1 2\n", "1 2\n", protocol.VerdictAC, ""},
		{"exact missing newline", protocol.CheckerExact, 0, "1 2", "1 2\n", protocol.VerdictWA, "answer is longer"},
		{"exact extra", protocol.CheckerExact, 0, "1 2\n\n", "1 2\n", protocol.VerdictWA, "longer than the answer"},
		{"exact differs line 2", protocol.CheckerExact, 0, "a\nc\n", "a\nb\n", protocol.VerdictWA, "line 2"},
		{"default same", protocol.CheckerDefault, 0, "1 2\n", "1 2\n", protocol.VerdictAC, ""},
		{"default spaces", protocol.CheckerDefault, 0, "  1\t2  \r\n\n", "1 2", protocol.VerdictAC, ""},
		{"default no final newline", protocol.CheckerDefault, 0, "3", "3\n", protocol.VerdictAC, ""},
		{"default empty both", protocol.CheckerDefault, 0, "\n", "", protocol.VerdictAC, ""},
		{"default wrong", protocol.CheckerDefault, 0, "1\n3\n", "1\n2\n", protocol.VerdictWA, `line 2: token 2: expected "2", found "3"`},
		{"default short", protocol.CheckerDefault, 0, "1", "1 2", protocol.VerdictWA, `expected "2" next`},
		{"default long", protocol.CheckerDefault, 0, "1 2 3", "1 2", protocol.VerdictWA, `extra output "3"`},
		{"default case matters", protocol.CheckerDefault, 0, "yes", "YES", protocol.VerdictWA, ""},
		{"float within abs", protocol.CheckerFloat, 1e-6, "0.3333333", "0.333333333", protocol.VerdictAC, ""},
		{"float exactly tol", protocol.CheckerFloat, 1e-6, "1.000001", "1", protocol.VerdictAC, ""},
		{"float outside", protocol.CheckerFloat, 1e-6, "0.3334", "0.333333333", protocol.VerdictWA, "token 1"},
		{"float relative", protocol.CheckerFloat, 1e-6, "1000000001", "1000000000", protocol.VerdictAC, ""},
		{"float relative outside", protocol.CheckerFloat, 1e-6, "1000002000", "1000000000", protocol.VerdictWA, ""},
		{"float words exact", protocol.CheckerFloat, 1e-6, "Case 1: 0.5", "Case 1: 0.5000001", protocol.VerdictAC, ""},
		{"float word differs", protocol.CheckerFloat, 1e-6, "case 1: 0.5", "Case 1: 0.5", protocol.VerdictWA, ""},
		{"float nan output", protocol.CheckerFloat, 1e-6, "nan", "0.5", protocol.VerdictWA, ""},
		{"float default tol", protocol.CheckerFloat, 0, "2.0000001", "2", protocol.VerdictAC, ""},
		{"float exponent", protocol.CheckerFloat, 1e-6, "1e3", "1000.0", protocol.VerdictAC, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Check(tc.kind, tc.tol, nil, strings.NewReader(tc.out), strings.NewReader(tc.ans))
			if err != nil {
				t.Fatal(err)
			}
			if got.Verdict != tc.want || !strings.Contains(got.Message, tc.msgContains) {
				t.Fatalf("got %+v, want %s with %q", got, tc.want, tc.msgContains)
			}
			if (got.Verdict == protocol.VerdictAC) != (got.Fraction == 1) {
				t.Fatalf("fraction %v for %s", got.Fraction, got.Verdict)
			}
		})
	}
}

func TestHugeToken(t *testing.T) {
	out := strings.Repeat("9", MaxToken+10)
	got, err := Default(strings.NewReader(out), strings.NewReader("9"))
	if err != nil || got.Verdict != protocol.VerdictWA || !strings.Contains(got.Message, "longer than") {
		t.Fatalf("got %+v, %v", got, err)
	}
}

// infinite is an endless stream of "1 ".
type infinite struct{}

func (infinite) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "1 "[i%2]
	}
	return len(p), nil
}

func TestEndlessOutputStops(t *testing.T) {
	got, err := Default(infinite{}, strings.NewReader("1 1 1"))
	if err != nil || got.Verdict != protocol.VerdictWA {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestSpecial(t *testing.T) {
	for _, tc := range []struct {
		code     int
		report   string
		want     protocol.Verdict
		fraction float64
		msg      string
	}{
		{0, "ok 3 numbers\n", protocol.VerdictAC, 1, "ok 3 numbers"},
		{1, "wrong answer 2nd number differs", protocol.VerdictWA, 0, "wrong answer 2nd number differs"},
		{2, "wrong output format", protocol.VerdictPE, 0, "wrong output format"},
		{3, "answer file is broken", protocol.VerdictSE, 0, "checker failed: answer file is broken"},
		{7, "points 0.4 almost", protocol.VerdictWA, 0.4, "almost"},
		{7, "0.25", protocol.VerdictWA, 0.25, ""},
		{7, "POINTS 1 full", protocol.VerdictAC, 1, "full"},
		{7, "points 40 of 100", protocol.VerdictWA, 0.4, "of 100"},
		{7, "points lots", protocol.VerdictSE, 0, "not a non-negative number"},
		{7, "", protocol.VerdictSE, 0, "no points"},
		{139, "segfault", protocol.VerdictSE, 0, "code 139"},
	} {
		got := Special(tc.code, tc.report)
		if got.Verdict != tc.want || got.Fraction != tc.fraction || !strings.Contains(got.Message, tc.msg) {
			t.Errorf("Special(%d, %q) = %+v; want %s %v %q", tc.code, tc.report, got, tc.want, tc.fraction, tc.msg)
		}
	}
}

func FuzzDefault(f *testing.F) {
	f.Add("1 2\n", "1 2")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, out, ans string) {
		got, err := Default(strings.NewReader(out), strings.NewReader(ans))
		if err != nil {
			t.Fatal(err)
		}
		same := strings.Join(strings.Fields(out), " ") == strings.Join(strings.Fields(ans), " ")
		// strings.Fields also splits on Unicode spaces; compare only ASCII cases.
		if strings.ContainsFunc(out+ans, func(r rune) bool { return r > 127 }) {
			return
		}
		if same != (got.Verdict == protocol.VerdictAC) {
			t.Fatalf("Default(%q, %q) = %+v", out, ans, got)
		}
	})
}

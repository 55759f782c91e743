package checker

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// MaxToken is the longest token the token checkers compare; a longer one in
// the contestant's output is a wrong answer (the answer's own tokens are
// trusted to be shorter). It bounds the checker's memory whatever the
// program printed.
const MaxToken = 4 << 20

// DefaultTolerance is the float checker's tolerance when the task gives none.
const DefaultTolerance = 1e-6

// Outcome is the checker's judgement of one case.
type Outcome struct {
	// Verdict is AC, WA or PE; SE when the checker itself failed.
	Verdict protocol.Verdict
	// Fraction of the case's points earned, 0..1 (1 for AC).
	Fraction float64
	// Message explains the verdict, for the contestant.
	Message string
}

func ac() Outcome { return Outcome{Verdict: protocol.VerdictAC, Fraction: 1} }

func wa(format string, args ...any) Outcome {
	return Outcome{Verdict: protocol.VerdictWA, Message: fmt.Sprintf(format, args...)}
}

// Exact compares output and answer byte for byte.
func Exact(output, answer io.Reader) (Outcome, error) {
	o, a := bufio.NewReaderSize(output, 64<<10), bufio.NewReaderSize(answer, 64<<10)
	var off int64
	line := 1
	for {
		ob, oerr := o.ReadByte()
		ab, aerr := a.ReadByte()
		switch {
		case oerr == io.EOF && aerr == io.EOF:
			return ac(), nil
		case oerr != nil && oerr != io.EOF:
			return Outcome{}, fmt.Errorf("checker exact: read output: %w", oerr)
		case aerr != nil && aerr != io.EOF:
			return Outcome{}, fmt.Errorf("checker exact: read answer: %w", aerr)
		case oerr == io.EOF:
			return wa("line %d: output ends at byte %d, the answer is longer", line, off), nil
		case aerr == io.EOF:
			return wa("line %d: output is longer than the answer (extra data at byte %d)", line, off), nil
		case ob != ab:
			return wa("line %d: byte %d differs", line, off), nil
		}
		if ab == '\n' {
			line++
		}
		off++
	}
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\v' || b == '\f'
}

// errTooLong: a token longer than MaxToken.
var errTooLong = errors.New("token too long")

// Default compares tokens: differences in white space (including a missing
// final newline) are ignored.
func Default(output, answer io.Reader) (Outcome, error) {
	return compareTokens(output, answer, func(o, a []byte) bool { return bytes.Equal(o, a) })
}

// Float compares tokens; where the answer's token is a finite number, the
// output's must be a number within tol absolutely or relatively (tol <= 0
// means DefaultTolerance); other tokens compare exactly.
func Float(output, answer io.Reader, tol float64) (Outcome, error) {
	if !(tol > 0) {
		tol = DefaultTolerance
	}
	return compareTokens(output, answer, func(o, a []byte) bool { return floatEqual(o, a, tol) })
}

func floatEqual(o, a []byte, tol float64) bool {
	if bytes.Equal(o, a) {
		return true
	}
	av, err := strconv.ParseFloat(string(a), 64)
	if err != nil || math.IsNaN(av) || math.IsInf(av, 0) {
		return false
	}
	ov, err := strconv.ParseFloat(string(o), 64)
	if err != nil || math.IsNaN(ov) || math.IsInf(ov, 0) {
		return false
	}
	d := math.Abs(ov - av)
	// A tiny slack absorbs the rounding of the tolerance itself (1e-6 is
	// not exact in binary).
	lim := tol * (1 + 1e-9)
	return d <= lim || d <= lim*math.Abs(av)
}

func compareTokens(output, answer io.Reader, eq func(o, a []byte) bool) (Outcome, error) {
	ot, at := newStream(output), newStream(answer)
	for n := 1; ; n++ {
		a, aerr := at.next()
		if aerr != nil && aerr != io.EOF {
			return Outcome{}, fmt.Errorf("checker: read answer: %w", aerr)
		}
		o, oerr := ot.next()
		switch {
		case errors.Is(oerr, errTooLong):
			return wa("line %d: token %d is longer than %d bytes", ot.line, n, MaxToken), nil
		case oerr != nil && oerr != io.EOF:
			return Outcome{}, fmt.Errorf("checker: read output: %w", oerr)
		case aerr == io.EOF && oerr == io.EOF:
			return ac(), nil
		case aerr == io.EOF:
			return wa("line %d: extra output %s after the expected %d tokens", ot.line, quote(o), n-1), nil
		case oerr == io.EOF:
			return wa("output ends after %d tokens; expected %s next", n-1, quote(a)), nil
		case !eq(o, a):
			return wa("line %d: token %d: expected %s, found %s", ot.line, n, quote(a), quote(o)), nil
		}
	}
}

// quote shows a token briefly.
func quote(b []byte) string {
	const max = 40
	s := b
	suffix := ""
	if len(s) > max {
		s, suffix = s[:max], "…"
	}
	str := string(s)
	if !utf8.ValidString(str) {
		str = strings.ToValidUTF8(str, "?")
	}
	return strconv.Quote(str) + suffix
}

// Testlib exit codes.
const (
	ExitAC      = 0
	ExitWA      = 1
	ExitPE      = 2
	ExitFail    = 3
	ExitPartial = 7
)

// Special interprets a testlib-style checker's exit code and its report
// (testlib writes it to stderr; stdout is used when stderr is empty):
// 0 AC, 1 WA, 2 PE, 3 judge failure (SE, never held against the
// contestant), 7 partial points: the report starts with the points,
// optionally after the word "points" ("points 0.4 ok" or "0.4 ok"), a
// fraction of the case in [0,1] (values above 1 are read as a percentage).
// Anything else is a checker failure (SE).
func Special(exitCode int, report string) Outcome {
	msg := strings.TrimSpace(report)
	switch exitCode {
	case ExitAC:
		return Outcome{Verdict: protocol.VerdictAC, Fraction: 1, Message: msg}
	case ExitWA:
		return Outcome{Verdict: protocol.VerdictWA, Message: msg}
	case ExitPE:
		return Outcome{Verdict: protocol.VerdictPE, Message: msg}
	case ExitPartial:
		f, rest, err := parsePoints(msg)
		if err != nil {
			return Outcome{Verdict: protocol.VerdictSE, Message: "checker: partial points: " + err.Error()}
		}
		v := protocol.VerdictWA
		if f >= 1 {
			v = protocol.VerdictAC
		}
		return Outcome{Verdict: v, Fraction: f, Message: rest}
	case ExitFail:
		return Outcome{Verdict: protocol.VerdictSE, Message: "checker failed: " + msg}
	}
	return Outcome{Verdict: protocol.VerdictSE, Message: fmt.Sprintf("checker exited with code %d: %s", exitCode, msg)}
}

func parsePoints(msg string) (float64, string, error) {
	s := strings.TrimSpace(msg)
	if len(s) >= 6 && strings.EqualFold(s[:6], "points") {
		s = strings.TrimSpace(s[6:])
	}
	num, rest := s, ""
	if k := strings.IndexFunc(s, unicode.IsSpace); k >= 0 {
		num, rest = s[:k], strings.TrimSpace(s[k:])
	}
	if num == "" {
		return 0, "", errors.New("no points in the report")
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, "", fmt.Errorf("%q is not a non-negative number", num)
	}
	if v > 1 {
		v /= 100
	}
	return min(v, 1), rest, nil
}

// Check runs a built-in checker kind (exact, default, float, icpc):
// tol is the float checker's tolerance, flags the icpc checker's
// (testpkg.ParseDefaultValidatorFlags; bad flags are an error).
func Check(kind protocol.CheckerKind, tol float64, flags []string, output, answer io.Reader) (Outcome, error) {
	switch kind {
	case protocol.CheckerICPC:
		f, err := testpkg.ParseDefaultValidatorFlags(flags)
		if err != nil {
			return Outcome{}, fmt.Errorf("checker icpc: flags: %w", err)
		}
		return ICPC(output, answer, f)
	case protocol.CheckerExact:
		return Exact(output, answer)
	case protocol.CheckerDefault, "":
		return Default(output, answer)
	case protocol.CheckerFloat:
		return Float(output, answer, tol)
	}
	return Outcome{}, fmt.Errorf("checker: kind %q is not built in", kind)
}

package checker

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// ICPC is the ICPC problem package format's default output validator
// with its flags: the output and the answer compared token by token
// (white space separates tokens); letters compare regardless of ASCII
// case unless f.CaseSensitive; any run of white space equals any other
// unless f.SpaceChangeSensitive, when the white space before each token
// and after the last must be the answer's byte for byte; where a
// tolerance is set and the answer's token is a finite number, the
// output's token must be a finite number (any notation) within the
// absolute or the relative tolerance of it.
func ICPC(output, answer io.Reader, f testpkg.DefaultValidatorFlags) (Outcome, error) {
	o, a := newStream(output), newStream(answer)
	for n := 1; ; n++ {
		if f.SpaceChangeSensitive {
			if msg, err := sameSpace(o, a); err != nil || msg != "" {
				return wa("%s", msg), err
			}
		} else {
			if err := o.skipSpace(); err != nil {
				return Outcome{}, fmt.Errorf("checker: read output: %w", err)
			}
			if err := a.skipSpace(); err != nil {
				return Outcome{}, fmt.Errorf("checker: read answer: %w", err)
			}
		}
		at, aerr := a.token()
		if aerr != nil && aerr != io.EOF {
			return Outcome{}, fmt.Errorf("checker: read answer: %w", aerr)
		}
		line := o.line
		ot, oerr := o.token()
		switch {
		case oerr == errTooLong:
			return wa("line %d: token %d is longer than %d bytes", line, n, MaxToken), nil
		case oerr != nil && oerr != io.EOF:
			return Outcome{}, fmt.Errorf("checker: read output: %w", oerr)
		case aerr == io.EOF && oerr == io.EOF:
			return ac(), nil
		case aerr == io.EOF:
			return wa("line %d: extra output %s after the expected %d tokens", line, quote(ot), n-1), nil
		case oerr == io.EOF:
			return wa("output ends after %d tokens; expected %s next", n-1, quote(at)), nil
		}
		if msg := compareICPC(ot, at, f); msg != "" {
			return wa("line %d: token %d: %s", line, n, msg), nil
		}
	}
}

// compareICPC compares one token of the output with the answer's: "" if
// they match, else why not.
func compareICPC(o, a []byte, f testpkg.DefaultValidatorFlags) string {
	if f.Floats() {
		if av, ok := finiteFloat(a); ok {
			ov, ok := finiteFloat(o)
			if !ok {
				return fmt.Sprintf("expected a number near %s, found %s", quote(a), quote(o))
			}
			d := math.Abs(ov - av)
			if d <= f.AbsTol || d <= f.RelTol*math.Abs(av) {
				return ""
			}
			return fmt.Sprintf("expected %s, found %s: error %.3g (absolute tolerance %s, relative %s)",
				quote(a), quote(o), d, tolString(f.AbsTol), tolString(f.RelTol))
		}
	}
	if f.CaseSensitive && string(o) == string(a) || !f.CaseSensitive && equalFoldASCII(o, a) {
		return ""
	}
	return fmt.Sprintf("expected %s, found %s", quote(a), quote(o))
}

func tolString(t float64) string {
	if t < 0 {
		return "none"
	}
	return strconv.FormatFloat(t, 'g', -1, 64)
}

// finiteFloat parses a whole token as a finite number.
func finiteFloat(b []byte) (float64, bool) {
	v, err := strconv.ParseFloat(string(b), 64)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// equalFoldASCII compares with ASCII letters folded (C's strcasecmp):
// other bytes compare exactly.
func equalFoldASCII(x, y []byte) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if lowerASCII(x[i]) != lowerASCII(y[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// sameSpace consumes the white space before the next token of both: it
// must be the same bytes; else it says how they differ.
func sameSpace(o, a *stream) (string, error) {
	for {
		ab, aok, err := a.peekSpace()
		if err != nil {
			return "", fmt.Errorf("checker: read answer: %w", err)
		}
		ob, ook, err := o.peekSpace()
		if err != nil {
			return "", fmt.Errorf("checker: read output: %w", err)
		}
		switch {
		case !aok && !ook:
			return "", nil
		case !aok:
			return fmt.Sprintf("line %d: white space %s where the answer has none", o.line, strconv.QuoteRune(rune(ob))), nil
		case !ook || ab != ob:
			found := "no white space"
			if ook {
				found = strconv.QuoteRune(rune(ob))
			}
			return fmt.Sprintf("line %d: expected white space %s, found %s", o.line, strconv.QuoteRune(rune(ab)), found), nil
		}
		a.advance(ab)
		o.advance(ob)
	}
}

// stream reads white-space separated tokens (and, for the icpc checker's
// space_change_sensitive, the white space), counting lines.
type stream struct {
	r    *bufio.Reader
	line int
	buf  []byte
}

func newStream(r io.Reader) *stream { return &stream{r: bufio.NewReaderSize(r, 64<<10), line: 1} }

// peekSpace returns the next byte if it is white space.
func (s *stream) peekSpace() (byte, bool, error) {
	b, err := s.r.Peek(1)
	if err == io.EOF {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return b[0], isSpace(b[0]), nil
}

// advance consumes the peeked byte b.
func (s *stream) advance(b byte) {
	_, _ = s.r.ReadByte()
	if b == '\n' {
		s.line++
	}
}

func (s *stream) skipSpace() error {
	for {
		b, ok, err := s.peekSpace()
		if err != nil || !ok {
			return err
		}
		s.advance(b)
	}
}

// next skips white space and returns the next token (valid until the
// next call), or io.EOF.
func (s *stream) next() ([]byte, error) {
	if err := s.skipSpace(); err != nil {
		return nil, err
	}
	return s.token()
}

// token reads the token that starts here (after skipSpace), at most
// MaxToken bytes (errTooLong past that); io.EOF at the end.
func (s *stream) token() ([]byte, error) {
	s.buf = s.buf[:0]
	for {
		b, err := s.r.ReadByte()
		if err == io.EOF {
			if len(s.buf) == 0 {
				return nil, io.EOF
			}
			return s.buf, nil
		}
		if err != nil {
			return nil, err
		}
		if isSpace(b) {
			_ = s.r.UnreadByte()
			return s.buf, nil
		}
		if len(s.buf) >= MaxToken {
			return nil, errTooLong
		}
		s.buf = append(s.buf, b)
	}
}

package checktestdata

import (
	"fmt"
	"strings"
)

// MaxScript bounds a script's size.
const MaxScript = 1 << 20

// SyntaxError is a script that does not parse: where and why.
type SyntaxError struct {
	Line, Col int // 1-based
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

type tokKind uint8

const (
	tEOF     tokKind = iota
	tKeyword         // an upper-case word: INT, REP, …
	tName            // a variable: [a-z][a-z0-9]*
	tInt             // an integer literal
	tFloat           // a floating-point literal
	tString          // a string literal, unescaped
	tOp              // punctuation and operators
)

type pos struct{ line, col int }

type token struct {
	kind tokKind
	text string // the keyword, name, operator, the literal's text, or the string's value
	pos  pos
}

// lex splits a script into tokens; '#' starts a comment to the end of
// the line.
func lex(src []byte) ([]token, error) {
	if len(src) > MaxScript {
		return nil, &SyntaxError{1, 1, fmt.Sprintf("the script is %d bytes, limit %d", len(src), MaxScript)}
	}
	var out []token
	line, col := 1, 1
	i := 0
	adv := func(n int) {
		for k := 0; k < n; k++ {
			if src[i] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			i++
		}
	}
	for i < len(src) {
		c := src[i]
		p := pos{line, col}
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			adv(1)
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				adv(1)
			}
		case 'A' <= c && c <= 'Z':
			j := i
			for j < len(src) && ('A' <= src[j] && src[j] <= 'Z' || '0' <= src[j] && src[j] <= '9' || src[j] == '_') {
				j++
			}
			out = append(out, token{tKeyword, string(src[i:j]), p})
			adv(j - i)
		case 'a' <= c && c <= 'z':
			j := i
			for j < len(src) && ('a' <= src[j] && src[j] <= 'z' || '0' <= src[j] && src[j] <= '9') {
				j++
			}
			out = append(out, token{tName, string(src[i:j]), p})
			adv(j - i)
		case '0' <= c && c <= '9':
			j := i
			for j < len(src) && '0' <= src[j] && src[j] <= '9' {
				j++
			}
			kind := tInt
			if j < len(src) && src[j] == '.' {
				kind = tFloat
				j++
				for j < len(src) && '0' <= src[j] && src[j] <= '9' {
					j++
				}
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && '0' <= src[k] && src[k] <= '9' {
					kind = tFloat
					for j = k; j < len(src) && '0' <= src[j] && src[j] <= '9'; j++ {
					}
				}
			}
			out = append(out, token{kind, string(src[i:j]), p})
			adv(j - i)
		case c == '"':
			s, n, err := unquote(src[i:])
			if err != "" {
				return nil, &SyntaxError{p.line, p.col, err}
			}
			out = append(out, token{tString, s, p})
			adv(n)
		default:
			op := ""
			for _, o := range []string{"<=", ">=", "==", "!=", "&&", "||"} {
				if strings.HasPrefix(string(src[i:min(i+2, len(src))]), o) {
					op = o
				}
			}
			if op == "" && strings.IndexByte("()[],=+-*/%^<>!", c) >= 0 {
				op = string(c)
			}
			if op == "" {
				return nil, &SyntaxError{p.line, p.col, fmt.Sprintf("unexpected character %q", rune(c))}
			}
			out = append(out, token{tOp, op, p})
			adv(len(op))
		}
	}
	out = append(out, token{tEOF, "", pos{line, col}})
	return out, nil
}

// unquote reads the string literal at the start of b: its value and
// length in bytes, or why it is not one. Escapes: \n \t \r \b, \" and
// \\, \ooo octal (one to three digits), a backslash before a newline
// continues the line; a backslash before anything else is itself.
func unquote(b []byte) (string, int, string) {
	var sb strings.Builder
	for i := 1; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			return sb.String(), i + 1, ""
		case c != '\\' || i+1 == len(b):
			sb.WriteByte(c)
			continue
		}
		i++
		switch e := b[i]; {
		case e == 'n':
			sb.WriteByte('\n')
		case e == 't':
			sb.WriteByte('\t')
		case e == 'r':
			sb.WriteByte('\r')
		case e == 'b':
			sb.WriteByte('\b')
		case e == '"' || e == '\\':
			sb.WriteByte(e)
		case e == '\n':
		case '0' <= e && e <= '7':
			v := 0
			k := i
			for ; k < len(b) && k < i+3 && '0' <= b[k] && b[k] <= '7'; k++ {
				v = v*8 + int(b[k]-'0')
			}
			if v > 255 {
				return "", 0, fmt.Sprintf("octal escape \\%s is above \\377", b[i:k])
			}
			sb.WriteByte(byte(v))
			i = k - 1
		default:
			sb.WriteByte('\\')
			sb.WriteByte(e)
		}
	}
	return "", 0, "a string without its closing quote"
}

package similarity

import (
	"hash/fnv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Family is a group of languages with one tokenizer; sources are only
// compared within a family.
type Family string

// The families with a tokenizer.
const (
	FamilyC      Family = "c"
	FamilyJava   Family = "java"
	FamilyPython Family = "python"
	FamilyGo     Family = "go"
)

// FamilyOf maps a judge language id (judge/internal/lang: "c17", "cpp20",
// "py3", "java17", "go", or a configured one like "cpp23", "pypy3",
// "java21", "go1.22") to its family by prefix; "" for a language without a
// tokenizer.
func FamilyOf(langID string) Family {
	id := strings.ToLower(langID)
	switch {
	case strings.HasPrefix(id, "cpp"), strings.HasPrefix(id, "c++"), strings.HasPrefix(id, "cxx"),
		strings.HasPrefix(id, "gnu"), strings.HasPrefix(id, "clang"),
		id == "c" || strings.HasPrefix(id, "c1") || strings.HasPrefix(id, "c2") || strings.HasPrefix(id, "c8") || strings.HasPrefix(id, "c9"):
		return FamilyC
	case strings.HasPrefix(id, "java"):
		return FamilyJava
	case strings.HasPrefix(id, "py"):
		return FamilyPython
	case id == "go" || strings.HasPrefix(id, "go1") || strings.HasPrefix(id, "golang"):
		return FamilyGo
	}
	return ""
}

// Token is one normalised token: its symbol and its byte range
// [Start, End) in the source.
type Token struct {
	Sym        uint64
	Start, End int32
}

// Symbols of the classes that collapse.
var (
	symIdent  = symOf("\x00ident")
	symNumber = symOf("\x00number")
	symString = symOf("\x00string")
	symIndent = symOf("\x00indent")
	symDedent = symOf("\x00dedent")
)

func symOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	// Never 0: a zero symbol would vanish from the polynomial hash.
	return h.Sum64() | 1
}

// spec is what differs between the families' tokenizers.
type spec struct {
	keywords map[string]uint64
	// lineComment starts a comment to the end of the line.
	lineComment string
	// blockComment: "/*" ... "*/" when true.
	blockComment bool
	// quotes delimit strings and characters; raw quotes (Go's `) have no
	// escapes and may span lines.
	quotes, rawQuotes string
	// preprocessor: a # first on a line is a directive to the line's end.
	preprocessor bool
	// python: string prefixes, triple quotes, INDENT/DEDENT.
	python bool
	// textBlocks: Java's """ ... """.
	textBlocks bool
}

func keywords(list string) map[string]uint64 {
	m := map[string]uint64{}
	for _, k := range strings.Fields(list) {
		m[k] = symOf(k)
	}
	return m
}

var specs = map[Family]*spec{
	FamilyC: {keywords: keywords(`auto break case char const continue default do double else enum extern
		float for goto if inline int long register restrict return short signed sizeof static struct switch
		typedef union unsigned void volatile while bool true false alignas alignof and asm catch class
		constexpr const_cast decltype delete dynamic_cast explicit export friend mutable namespace new
		noexcept not nullptr operator or private protected public reinterpret_cast static_assert
		static_cast template this throw try typeid typename using virtual xor concept requires co_await
		co_return co_yield consteval constinit`),
		lineComment: "//", blockComment: true, quotes: `"'`, preprocessor: true},
	FamilyJava: {keywords: keywords(`abstract assert boolean break byte case catch char class const continue
		default do double else enum extends final finally float for goto if implements import instanceof int
		interface long native new package private protected public return short static strictfp super switch
		synchronized this throw throws transient try void volatile while var record yield true false null`),
		lineComment: "//", blockComment: true, quotes: `"'`, textBlocks: true},
	FamilyPython: {keywords: keywords(`False None True and as assert async await break class continue def del
		elif else except finally for from global if import in is lambda nonlocal not or pass raise return try
		while with yield match case`),
		lineComment: "#", quotes: `"'`, python: true},
	FamilyGo: {keywords: keywords(`break case chan const continue default defer else fallthrough for func go
		goto if import interface map package range return select struct switch type var`),
		lineComment: "//", blockComment: true, quotes: `"'`, rawQuotes: "`"},
}

// operators, longest first within each length; anything else is a
// one-byte operator.
var ops3 = []string{"<<=", ">>=", "...", "->*", "**=", "//=", "&^=", "<=>", ">>>"}
var ops2 = []string{"->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=",
	"/=", "%=", "&=", "|=", "^=", "::", ":=", "**", "//", "<-", "&^", ".*", "@="}

var opSyms = func() map[string]uint64 {
	m := map[string]uint64{}
	for _, o := range append(append([]string{}, ops3...), ops2...) {
		m[o] = symOf(o)
	}
	for c := 0; c < 128; c++ {
		m[string(rune(c))] = symOf(string(rune(c)))
	}
	return m
}()

// Tokenize normalises src by the family's rules (package doc). A family
// without a tokenizer gets the C rules. It never fails: bytes it does not
// understand become one-byte operators, an unterminated comment or string
// runs to the end.
func Tokenize(f Family, src string) []Token {
	sp := specs[f]
	if sp == nil {
		sp = specs[FamilyC]
	}
	lx := lexer{sp: sp, src: src, lineStart: true}
	lx.run()
	return lx.out
}

type lexer struct {
	sp        *spec
	src       string
	i         int
	out       []Token
	lineStart bool // only whitespace since the last newline
	// python: bracket depth (newlines inside brackets do not count) and
	// the indentation stack.
	depth   int
	indents []int
}

func (lx *lexer) emit(sym uint64, start, end int) {
	lx.out = append(lx.out, Token{Sym: sym, Start: int32(start), End: int32(end)})
}

func isIdentStart(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) }
func isIdentPart(r rune) bool  { return isIdentStart(r) || unicode.IsDigit(r) }

func (lx *lexer) run() {
	src, sp := lx.src, lx.sp
	for lx.i < len(src) {
		if sp.python && lx.lineStart && lx.depth == 0 {
			if lx.indentation() || lx.i >= len(src) {
				continue
			}
		}
		c := src[lx.i]
		switch {
		case c == '\n':
			lx.i++
			lx.lineStart = true
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			lx.i++
			continue
		case c == '\\' && lx.i+1 < len(src) && (src[lx.i+1] == '\n' || src[lx.i+1] == '\r'):
			// A line continuation.
			lx.i += 2
			continue
		case strings.HasPrefix(src[lx.i:], sp.lineComment):
			lx.skipLine()
			continue
		case sp.blockComment && strings.HasPrefix(src[lx.i:], "/*"):
			if e := strings.Index(src[lx.i+2:], "*/"); e >= 0 {
				lx.i += 2 + e + 2
			} else {
				lx.i = len(src)
			}
			continue
		case sp.preprocessor && c == '#' && lx.lineStart:
			lx.directive()
			continue
		}
		lx.lineStart = false
		start := lx.i
		switch {
		case c >= '0' && c <= '9' || c == '.' && lx.i+1 < len(src) && src[lx.i+1] >= '0' && src[lx.i+1] <= '9':
			lx.number()
			lx.emit(symNumber, start, lx.i)
		case strings.IndexByte(sp.quotes, c) >= 0:
			lx.str()
			lx.emit(symString, start, lx.i)
		case sp.rawQuotes != "" && strings.IndexByte(sp.rawQuotes, c) >= 0:
			if e := strings.IndexByte(src[lx.i+1:], c); e >= 0 {
				lx.i += 1 + e + 1
			} else {
				lx.i = len(src)
			}
			lx.emit(symString, start, lx.i)
		default:
			r, n := utf8.DecodeRuneInString(src[lx.i:])
			if isIdentStart(r) {
				lx.i += n
				for lx.i < len(src) {
					r, n := utf8.DecodeRuneInString(src[lx.i:])
					if !isIdentPart(r) {
						break
					}
					lx.i += n
				}
				word := src[start:lx.i]
				// C++ raw strings and Python's prefixed strings.
				if lx.i < len(src) && (src[lx.i] == '"' || src[lx.i] == '\'') && lx.stringPrefix(word) {
					lx.str()
					lx.emit(symString, start, lx.i)
					continue
				}
				if k, ok := sp.keywords[word]; ok {
					lx.emit(k, start, lx.i)
				} else {
					lx.emit(symIdent, start, lx.i)
				}
				continue
			}
			if r >= utf8.RuneSelf {
				// Any other non-ASCII rune: one symbol per rune.
				lx.i += n
				lx.emit(symOf(string(r)), start, lx.i)
				continue
			}
			lx.operator()
			switch c {
			case '(', '[', '{':
				lx.depth++
			case ')', ']', '}':
				if lx.depth > 0 {
					lx.depth--
				}
			}
		}
	}
	if sp.python {
		for len(lx.indents) > 0 {
			lx.indents = lx.indents[:len(lx.indents)-1]
			lx.emit(symDedent, len(src), len(src))
		}
	}
}

// stringPrefix reports whether word before a quote is a string prefix:
// Python's r, b, f, u and their pairs; C++'s L, u, U, u8, R and their
// combinations (a raw string R"(...)" is read as an ordinary string, which
// is right unless it holds an unescaped quote).
func (lx *lexer) stringPrefix(word string) bool {
	w := strings.ToLower(word)
	if lx.sp.python {
		switch w {
		case "r", "b", "f", "u", "rb", "br", "fr", "rf":
			return true
		}
		return false
	}
	if lx.sp.preprocessor {
		switch word {
		case "L", "u", "U", "u8", "R", "LR", "uR", "UR", "u8R":
			return true
		}
	}
	return false
}

func (lx *lexer) skipLine() {
	if e := strings.IndexByte(lx.src[lx.i:], '\n'); e >= 0 {
		lx.i += e
	} else {
		lx.i = len(lx.src)
	}
}

// directive reads a C preprocessor line: the directive's name is the
// symbol, the rest of the line (with continuations) is dropped.
func (lx *lexer) directive() {
	src := lx.src
	start := lx.i
	lx.i++
	for lx.i < len(src) && (src[lx.i] == ' ' || src[lx.i] == '\t') {
		lx.i++
	}
	ns := lx.i
	for lx.i < len(src) && (src[lx.i] >= 'a' && src[lx.i] <= 'z') {
		lx.i++
	}
	name := src[ns:lx.i]
	for lx.i < len(src) && src[lx.i] != '\n' {
		if src[lx.i] == '\\' && lx.i+1 < len(src) && src[lx.i+1] == '\n' {
			lx.i += 2
			continue
		}
		if strings.HasPrefix(src[lx.i:], "/*") {
			if e := strings.Index(src[lx.i+2:], "*/"); e >= 0 {
				lx.i += 2 + e + 2
				continue
			}
			lx.i = len(src)
			break
		}
		lx.i++
	}
	end := lx.i
	for end > start && (src[end-1] == ' ' || src[end-1] == '\t' || src[end-1] == '\r') {
		end--
	}
	lx.emit(symOf("#"+name), start, max(end, start+1))
}

func (lx *lexer) number() {
	src := lx.src
	for lx.i < len(src) {
		c := src[lx.i]
		switch {
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.' || c == '\'':
			// Digit separators (C++ 1'000), suffixes, hex, exponents.
			if c == '\'' && !(lx.i+1 < len(src) && isHexDigit(src[lx.i+1])) {
				return
			}
			lx.i++
		case (c == '+' || c == '-') && (src[lx.i-1] == 'e' || src[lx.i-1] == 'E' || src[lx.i-1] == 'p' || src[lx.i-1] == 'P'):
			lx.i++
		default:
			return
		}
	}
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// str reads a string or character literal at lx.i (its opening quote),
// Python's triple quotes and Java's text blocks included.
func (lx *lexer) str() {
	src := lx.src
	q := src[lx.i]
	if (lx.sp.python || lx.sp.textBlocks && q == '"') && strings.HasPrefix(src[lx.i:], strings.Repeat(string(q), 3)) {
		lx.i += 3
		for lx.i < len(src) {
			if src[lx.i] == '\\' {
				lx.i += 2
				continue
			}
			if strings.HasPrefix(src[lx.i:], strings.Repeat(string(q), 3)) {
				lx.i += 3
				return
			}
			lx.i++
		}
		lx.i = len(src)
		return
	}
	lx.i++
	for lx.i < len(src) {
		switch src[lx.i] {
		case '\\':
			lx.i += 2
			continue
		case q:
			lx.i++
			return
		case '\n':
			// Unterminated: the string ends with its line.
			return
		}
		lx.i++
	}
	lx.i = len(src)
}

func (lx *lexer) operator() {
	src := lx.src
	start := lx.i
	for _, set := range [][]string{ops3, ops2} {
		for _, o := range set {
			if strings.HasPrefix(src[lx.i:], o) {
				lx.i += len(o)
				lx.emit(opSyms[o], start, lx.i)
				return
			}
		}
	}
	lx.i++
	lx.emit(opSyms[src[start:lx.i]], start, lx.i)
}

// indentation handles the start of a Python logical line at lx.i: it
// measures the indentation and emits INDENT or DEDENTs, unless the line
// is blank or only a comment. It reports whether it consumed the line
// (blank or comment only); otherwise lx.i is at the line's first token.
func (lx *lexer) indentation() bool {
	src := lx.src
	j, col := lx.i, 0
	for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\f') {
		if src[j] == '\t' {
			col += 8 - col%8
		} else {
			col++
		}
		j++
	}
	if j >= len(src) || src[j] == '\n' || src[j] == '\r' || src[j] == '#' {
		lx.i = j
		if j < len(src) && src[j] == '#' {
			lx.skipLine()
		}
		if lx.i < len(src) {
			lx.i++ // the newline
		}
		return true
	}
	lx.i = j
	lx.lineStart = false
	cur := 0
	if n := len(lx.indents); n > 0 {
		cur = lx.indents[n-1]
	}
	switch {
	case col > cur:
		lx.indents = append(lx.indents, col)
		lx.emit(symIndent, j, j)
	case col < cur:
		for len(lx.indents) > 0 && lx.indents[len(lx.indents)-1] > col {
			lx.indents = lx.indents[:len(lx.indents)-1]
			lx.emit(symDedent, j, j)
		}
	}
	return false
}

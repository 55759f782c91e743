package checktestdata

import (
	"fmt"
	"math/big"
	"slices"
)

// maxDepth bounds the nesting of blocks and expressions.
const maxDepth = 200

type exprKind uint8

const (
	eLit exprKind = iota
	eVar
	eUnary
	eBinary
	eFunc
)

// expr is an expression of the script.
type expr struct {
	kind  exprKind
	op    string // the operator, or the function's name
	lit   value
	v     *varRef // eVar
	x, y  *expr   // operands; a function's first argument in x
	names []string
	pos   pos
}

// varRef is a variable, with its indices for an array's element.
type varRef struct {
	name string
	idx  []*expr
	pos  pos
}

type assign struct {
	v *varRef
	e *expr
}

// command is one command of the script.
type command struct {
	op     string
	pos    pos
	args   []*expr
	target *varRef // the variable read into, or a loop's counter
	option string  // FLOAT's and FLOATP's FIXED or SCIENTIFIC
	sep    *command
	body   []*command
	els    []*command
	sets   []assign
	names  []string // UNSET's
}

// Program is a parsed script; Check runs it over an input. A Program is
// not changed by Check: several inputs may be checked in turn.
type Program struct {
	cmds []*command
}

// Parse reads a checktestdata script.
func Parse(src []byte) (*Program, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	cmds, end := p.block(0)
	if end.kind != tEOF {
		return nil, p.errAt(end.pos, "%s without the block it closes", end.text)
	}
	if p.err != nil {
		return nil, p.err
	}
	return &Program{cmds: cmds}, nil
}

type parser struct {
	toks []token
	i    int
	err  *SyntaxError
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// errAt records the first error; parsing then unwinds (every method
// stops when p.err is set).
func (p *parser) errAt(at pos, format string, args ...any) *SyntaxError {
	if p.err == nil {
		p.err = &SyntaxError{at.line, at.col, fmt.Sprintf(format, args...)}
	}
	return p.err
}

func (p *parser) expectOp(op string) bool {
	t := p.next()
	if t.kind != tOp || t.text != op {
		p.errAt(t.pos, "expected %q, found %s", op, describe(t))
		return false
	}
	return true
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "the end of the script"
	case tString:
		return fmt.Sprintf("the string %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// block reads commands up to END, ELSE or the end of the script, which
// it returns without consuming.
func (p *parser) block(depth int) ([]*command, token) {
	var out []*command
	for p.err == nil {
		t := p.peek()
		if t.kind == tEOF || t.kind == tKeyword && (t.text == "END" || t.text == "ELSE") {
			return out, t
		}
		c := p.command(depth)
		if c != nil {
			out = append(out, c)
		}
	}
	return out, p.peek()
}

var blockCommands = []string{"REP", "REPI", "WHILE", "WHILEI", "IF"}

func (p *parser) command(depth int) *command {
	t := p.next()
	if t.kind != tKeyword {
		p.errAt(t.pos, "expected a command, found %s", describe(t))
		return nil
	}
	if depth > maxDepth {
		p.errAt(t.pos, "blocks nested more than %d deep", maxDepth)
		return nil
	}
	c := &command{op: t.text, pos: t.pos}
	switch t.text {
	case "SPACE", "NEWLINE", "EOF":
		return c
	case "INT", "FLOAT", "FLOATP":
		n := 2
		if t.text == "FLOATP" {
			n = 4
		}
		if !p.expectOp("(") {
			return nil
		}
		for k := 0; k < n; k++ {
			if k > 0 && !p.expectOp(",") {
				return nil
			}
			c.args = append(c.args, p.expr(0))
		}
		if p.acceptOp(",") {
			c.target = p.variable()
			if t.text != "INT" && p.acceptOp(",") {
				o := p.next()
				if o.kind != tKeyword || (o.text != "FIXED" && o.text != "SCIENTIFIC") {
					p.errAt(o.pos, "expected FIXED or SCIENTIFIC, found %s", describe(o))
					return nil
				}
				c.option = o.text
			}
		}
		p.expectOp(")")
	case "STRING", "ASSERT":
		p.expectOp("(")
		c.args = []*expr{p.expr(0)}
		p.expectOp(")")
	case "REGEX":
		p.expectOp("(")
		c.args = []*expr{p.expr(0)}
		if e := c.args[0]; e != nil && e.kind == eLit && e.lit.k == kString {
			if _, err := compileRegex(e.lit.s); err != nil {
				p.errAt(e.pos, "%v", err)
			}
		}
		if p.acceptOp(",") {
			c.target = p.variable()
		}
		p.expectOp(")")
	case "SET":
		p.expectOp("(")
		for p.err == nil {
			v := p.variable()
			p.expectOp("=")
			c.sets = append(c.sets, assign{v, p.expr(0)})
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	case "UNSET":
		p.expectOp("(")
		c.names = p.names()
		p.expectOp(")")
	case "REP", "REPI", "WHILE", "WHILEI":
		p.expectOp("(")
		if t.text == "REPI" || t.text == "WHILEI" {
			c.target = p.variable()
			p.expectOp(",")
		}
		c.args = []*expr{p.expr(0)}
		if p.acceptOp(",") {
			s := p.peek()
			c.sep = p.command(depth + 1)
			if c.sep != nil && slices.Contains(blockCommands, c.sep.op) {
				p.errAt(s.pos, "a separator must be a single command, not %s", c.sep.op)
			}
		}
		p.expectOp(")")
		c.body = p.end(depth, false, c)
	case "IF":
		p.expectOp("(")
		c.args = []*expr{p.expr(0)}
		p.expectOp(")")
		c.body = p.end(depth, true, c)
	default:
		p.errAt(t.pos, "unknown command %s", t.text)
		return nil
	}
	if p.err != nil {
		return nil
	}
	return c
}

// end reads a block's commands and its END (IF's ELSE part into c.els).
func (p *parser) end(depth int, elseOK bool, c *command) []*command {
	body, t := p.block(depth + 1)
	if p.err != nil {
		return nil
	}
	if t.kind == tKeyword && t.text == "ELSE" && elseOK {
		p.next()
		c.els, t = p.block(depth + 1)
	}
	if t.kind != tKeyword || t.text != "END" {
		p.errAt(t.pos, "%s (line %d) has no END: found %s", c.op, c.pos.line, describe(t))
		return nil
	}
	p.next()
	return body
}

func (p *parser) acceptOp(op string) bool {
	if t := p.peek(); t.kind == tOp && t.text == op {
		p.next()
		return true
	}
	return false
}

func (p *parser) names() []string {
	var out []string
	for p.err == nil {
		t := p.next()
		if t.kind != tName {
			p.errAt(t.pos, "expected a variable name, found %s", describe(t))
			return nil
		}
		out = append(out, t.text)
		if !p.acceptOp(",") {
			break
		}
	}
	return out
}

func (p *parser) variable() *varRef {
	t := p.next()
	if t.kind != tName {
		p.errAt(t.pos, "expected a variable, found %s", describe(t))
		return nil
	}
	v := &varRef{name: t.text, pos: t.pos}
	if p.acceptOp("[") {
		for p.err == nil {
			v.idx = append(v.idx, p.expr(0))
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp("]")
	}
	return v
}

// Operators by precedence, loosest first; each level is left
// associative. Unary - and !, then ^ (right associative) bind tighter.
var levels = [][]string{{"||"}, {"&&"}, {"==", "!="}, {"<", ">", "<=", ">="}, {"+", "-"}, {"*", "/", "%"}}

func (p *parser) expr(depth int) *expr { return p.binary(0, depth) }

func (p *parser) binary(level, depth int) *expr {
	if level == len(levels) {
		return p.unary(depth)
	}
	x := p.binary(level+1, depth)
	for p.err == nil {
		t := p.peek()
		if t.kind != tOp || !slices.Contains(levels[level], t.text) {
			return x
		}
		p.next()
		y := p.binary(level+1, depth)
		x = &expr{kind: eBinary, op: t.text, x: x, y: y, pos: t.pos}
	}
	return x
}

func (p *parser) unary(depth int) *expr {
	t := p.peek()
	if depth > maxDepth {
		p.errAt(t.pos, "an expression nested more than %d deep", maxDepth)
		return nil
	}
	if t.kind == tOp && (t.text == "-" || t.text == "!") {
		p.next()
		return &expr{kind: eUnary, op: t.text, x: p.unary(depth + 1), pos: t.pos}
	}
	x := p.primary(depth)
	if t := p.peek(); t.kind == tOp && t.text == "^" {
		p.next()
		return &expr{kind: eBinary, op: "^", x: x, y: p.unary(depth + 1), pos: t.pos}
	}
	return x
}

func (p *parser) primary(depth int) *expr {
	t := p.next()
	switch t.kind {
	case tInt:
		i, _ := new(big.Int).SetString(t.text, 10)
		return &expr{kind: eLit, lit: intValue(i), pos: t.pos}
	case tFloat:
		f, _, err := big.ParseFloat(t.text, 10, floatPrec(len(t.text)), big.ToNearestEven)
		if err != nil {
			p.errAt(t.pos, "%q is not a number: %v", t.text, err)
			return nil
		}
		return &expr{kind: eLit, lit: floatValue(f), pos: t.pos}
	case tString:
		return &expr{kind: eLit, lit: strValue(t.text), pos: t.pos}
	case tName:
		p.i--
		return &expr{kind: eVar, v: p.variable(), pos: t.pos}
	case tOp:
		if t.text == "(" {
			x := p.expr(depth + 1)
			p.expectOp(")")
			return x
		}
	case tKeyword:
		e := &expr{kind: eFunc, op: t.text, pos: t.pos}
		switch t.text {
		case "ISEOF":
			return e
		case "STRLEN", "MATCH":
			p.expectOp("(")
			e.x = p.expr(depth + 1)
			p.expectOp(")")
			return e
		case "UNIQUE":
			p.expectOp("(")
			e.names = p.names()
			p.expectOp(")")
			return e
		case "INARRAY":
			p.expectOp("(")
			e.x = p.expr(depth + 1)
			p.expectOp(",")
			e.names = p.names()
			if len(e.names) > 1 {
				p.errAt(t.pos, "INARRAY takes one array")
			}
			p.expectOp(")")
			return e
		}
	}
	p.errAt(t.pos, "expected a value, found %s", describe(t))
	return nil
}

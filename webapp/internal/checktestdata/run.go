package checktestdata

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// Limits bound one Check.
type Limits struct {
	// MaxSteps: commands run, loop rounds, expression nodes evaluated and
	// array elements scanned (UNIQUE, INARRAY). Default 100,000,000.
	MaxSteps int64
	// MaxInput is the largest input checked, in bytes. Default 256 MiB.
	MaxInput int
	// MaxIntBits bounds integers, computed or read. Default 65536.
	MaxIntBits int
}

func (l Limits) withDefaults() Limits {
	if l.MaxSteps <= 0 {
		l.MaxSteps = 100_000_000
	}
	if l.MaxInput <= 0 {
		l.MaxInput = 256 << 20
	}
	if l.MaxIntBits <= 0 {
		l.MaxIntBits = 1 << 16
	}
	return l
}

// InputError is an input the script refuses, or a run that could not
// finish (a limit, an error of the script's own such as an undefined
// variable): where in the input, at which command of the script, why.
type InputError struct {
	Line, Col  int    // in the input, 1-based; Col counts bytes
	Command    string // INT, ASSERT, …
	ScriptLine int
	Msg        string
	// Limit: a limit of Limits (or the context) stopped the run; the
	// input may be valid.
	Limit bool
}

func (e *InputError) Error() string {
	return fmt.Sprintf("line %d, position %d: %s (script line %d): %s", e.Line, e.Col, e.Command, e.ScriptLine, e.Msg)
}

// failure unwinds a run; Check turns it into an *InputError.
type failure struct {
	at    int // the input offset
	msg   string
	limit bool
}

type variable struct {
	scalar *value
	arr    map[akey]value
}

// akey is an array element's indices: one index that fits an int64 in n
// (the common case, hashed fast), any other in s, joined by commas.
type akey struct {
	n int64
	s string
}

func (k akey) String() string {
	if k.s != "" {
		return k.s
	}
	return strconv.FormatInt(k.n, 10)
}

type run struct {
	ctx   context.Context
	data  []byte
	p     int
	vars  map[string]*variable
	steps int64
	lim   Limits
	cmd   *command
	re    map[string]*regexp.Regexp
}

// Check runs the script over input: nil when the input is what the
// script describes, to its end (an EOF is implied after the last
// command). It returns the steps taken.
func (p *Program) Check(ctx context.Context, input []byte, lim Limits) (steps int64, err error) {
	lim = lim.withDefaults()
	r := &run{ctx: ctx, data: input, vars: map[string]*variable{}, lim: lim, re: map[string]*regexp.Regexp{}}
	end := &command{op: "EOF", pos: pos{0, 0}}
	if len(p.cmds) > 0 {
		end.pos = p.cmds[len(p.cmds)-1].pos
	}
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		f, ok := v.(failure)
		if !ok {
			panic(v)
		}
		line, col := position(input, f.at)
		c := r.cmd
		if c == nil {
			c = end
		}
		steps, err = r.steps, &InputError{Line: line, Col: col, Command: c.op, ScriptLine: c.pos.line, Msg: f.msg, Limit: f.limit}
	}()
	if len(input) > lim.MaxInput {
		r.limit("the input is %d bytes, more than the %d this validator checks", len(input), lim.MaxInput)
	}
	r.block(p.cmds)
	r.cmd = end
	r.exec(end)
	return r.steps, nil
}

// position is the 1-based line and byte column of offset at.
func position(data []byte, at int) (int, int) {
	at = min(max(at, 0), len(data))
	line := 1 + bytes.Count(data[:at], []byte{'\n'})
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	return line, at - start + 1
}

func (r *run) fail(format string, args ...any) {
	panic(failure{at: r.p, msg: fmt.Sprintf(format, args...)})
}

func (r *run) failAt(at int, format string, args ...any) {
	panic(failure{at: at, msg: fmt.Sprintf(format, args...)})
}

// limit fails the run for a limit, not for the input.
func (r *run) limit(format string, args ...any) {
	panic(failure{r.p, fmt.Sprintf(format, args...), true})
}

func (r *run) step(n int64) {
	r.steps += n
	if r.steps > r.lim.MaxSteps {
		r.limit("the step limit (%d) is exceeded: the script does too much work for this input", r.lim.MaxSteps)
	}
	if r.steps&(1<<20-1) < n && r.ctx.Err() != nil {
		r.limit("stopped: %v", r.ctx.Err())
	}
}

func (r *run) block(cmds []*command) {
	for _, c := range cmds {
		r.exec(c)
	}
}

func (r *run) exec(c *command) {
	r.step(1)
	r.cmd = c
	switch c.op {
	case "SPACE", "NEWLINE":
		want := byte(' ')
		if c.op == "NEWLINE" {
			want = '\n'
		}
		switch {
		case r.p == len(r.data):
			r.fail("expected %s, found the end of the input", strings.ToLower(c.op))
		case r.data[r.p] != want:
			r.fail("expected %s, found %q", strings.ToLower(c.op), rune(r.data[r.p]))
		}
		r.p++
	case "EOF":
		if r.p != len(r.data) {
			r.fail("expected the end of the input, found %q", rune(r.data[r.p]))
		}
	case "INT":
		r.readInt(c)
	case "FLOAT", "FLOATP":
		r.readFloat(c)
	case "STRING":
		s := r.str(c.args[0], "STRING")
		if !strings.HasPrefix(string(r.data[r.p:min(len(r.data), r.p+len(s))]), s) {
			n := 0
			for n < len(s) && r.p+n < len(r.data) && r.data[r.p+n] == s[n] {
				n++
			}
			r.failAt(r.p+n, "expected %s", strValue(s))
		}
		r.p += len(s)
	case "REGEX":
		r.regex(c)
	case "ASSERT":
		if !r.test(c.args[0], "ASSERT") {
			r.fail("the assertion is false")
		}
	case "SET":
		for _, a := range c.sets {
			r.set(a.v, r.eval(a.e))
		}
	case "UNSET":
		for _, n := range c.names {
			delete(r.vars, n)
		}
	case "REP", "REPI":
		n := r.eval(c.args[0])
		if n.k != kInt || n.i.Sign() < 0 || n.i.BitLen() > 32 {
			r.fail("the count %s is not an integer in [0, 2^32)", n)
		}
		count := n.i.Uint64()
		for i := uint64(0); i < count; i++ {
			r.round(c, i)
			r.block(c.body)
		}
		r.counter(c, count)
	case "WHILE", "WHILEI":
		for i := uint64(0); ; i++ {
			r.counter(c, i)
			r.cmd = c
			if !r.test(c.args[0], c.op) {
				break
			}
			r.round(c, i)
			r.block(c.body)
		}
	case "IF":
		if r.test(c.args[0], "IF") {
			r.block(c.body)
		} else {
			r.block(c.els)
		}
	default:
		r.fail("unknown command")
	}
}

// round starts a loop's round i: its counter, the separator before
// every round but the first.
func (r *run) round(c *command, i uint64) {
	r.step(1)
	r.counter(c, i)
	if i > 0 && c.sep != nil {
		r.exec(c.sep)
	}
	r.cmd = c
}

func (r *run) counter(c *command, i uint64) {
	if c.target != nil {
		r.set(c.target, intValue(new(big.Int).SetUint64(i)))
	}
}

// readInt reads an integer: 0 or -?[1-9][0-9]*.
func (r *run) readInt(c *command) {
	start := r.p
	j := start
	if j < len(r.data) && r.data[j] == '-' {
		j++
	}
	for j < len(r.data) && '0' <= r.data[j] && r.data[j] <= '9' {
		j++
	}
	tok := string(r.data[start:j])
	digits := strings.TrimPrefix(tok, "-")
	switch {
	case digits == "":
		r.fail("expected an integer, found %s", r.found())
	case len(digits) > 1 && digits[0] == '0':
		r.fail("an integer with a leading zero: %q", tok)
	case tok == "-0":
		r.fail("-0 is not an integer of the format")
	case float64(len(digits)) > float64(r.lim.MaxIntBits)/math.Log2(10)+1:
		r.limit("an integer of %d digits, more than this validator reads", len(digits))
	}
	var x *big.Int
	if n, err := strconv.ParseInt(tok, 10, 64); err == nil {
		x = big.NewInt(n)
	} else {
		x, _ = new(big.Int).SetString(tok, 10)
	}
	lo, hi := r.num(c.args[0], "INT"), r.num(c.args[1], "INT")
	v := intValue(x)
	if cmpNum(v, lo) < 0 || cmpNum(v, hi) > 0 {
		r.fail("%s is out of range [%s, %s]", tok, lo, hi)
	}
	r.p = j
	if c.target != nil {
		r.set(c.target, v)
	}
}

// readFloat reads a float: -?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)? (FIXED:
// without the exponent, SCIENTIFIC: with it). FLOATP also wants between
// its minimum and maximum of decimals after the point, no leading zero
// (a single digit before the point in scientific notation, not 0 unless
// the number is), and no negative zero.
func (r *run) readFloat(c *command) {
	start := r.p
	d := r.data
	j := start
	neg := j < len(d) && d[j] == '-'
	if neg {
		j++
	}
	digits := func(k int) int {
		for k < len(d) && '0' <= d[k] && d[k] <= '9' {
			k++
		}
		return k
	}
	intEnd := digits(j)
	if intEnd == j {
		r.fail("expected a float, found %s", r.found())
	}
	end, decimals := intEnd, 0
	if end+1 < len(d) && d[end] == '.' && '0' <= d[end+1] && d[end+1] <= '9' {
		e := digits(end + 1)
		decimals, end = e-end-1, e
	}
	mantEnd := end
	if end < len(d) && (d[end] == 'e' || d[end] == 'E') {
		k := end + 1
		if k < len(d) && (d[k] == '+' || d[k] == '-') {
			k++
		}
		if e := digits(k); e > k {
			end = e
		}
	}
	tok := string(d[start:end])
	sci := end > mantEnd
	switch {
	case c.option == "FIXED" && sci:
		r.fail("%q: a float in scientific notation, FIXED wants none", tok)
	case c.option == "SCIENTIFIC" && !sci:
		r.fail("%q: a float without an exponent, SCIENTIFIC wants one", tok)
	case len(tok) > 100_000:
		r.limit("a float of %d characters, more than this validator reads", len(tok))
	}
	x, _, err := big.ParseFloat(tok, 10, floatPrec(len(tok)), big.ToNearestEven)
	if err != nil {
		r.fail("%q is not a float: %v", tok, err)
	}
	v := floatValue(x)
	lo, hi := r.num(c.args[0], c.op), r.num(c.args[1], c.op)
	if c.op == "FLOATP" {
		minDec, maxDec := r.num(c.args[2], c.op), r.num(c.args[3], c.op)
		mantissa := string(d[j:mantEnd])
		zero := strings.Trim(mantissa, "0.") == ""
		switch {
		case cmpNum(intValue(big.NewInt(int64(decimals))), minDec) < 0 || cmpNum(intValue(big.NewInt(int64(decimals))), maxDec) > 0:
			r.fail("%q has %d decimals, want %s to %s", tok, decimals, minDec, maxDec)
		case sci && (intEnd-j != 1 || d[j] == '0' && !zero):
			r.fail("%q: in scientific notation one non-zero digit goes before the point", tok)
		case !sci && intEnd-j > 1 && d[j] == '0':
			r.fail("%q: a leading zero", tok)
		case neg && zero:
			r.fail("%q: a negative zero", tok)
		}
	}
	if cmpNum(v, lo) < 0 || cmpNum(v, hi) > 0 {
		r.fail("%s is out of range [%s, %s]", tok, lo, hi)
	}
	r.p = end
	if c.target != nil {
		r.set(c.target, v)
	}
}

// found describes what is at the input's position, for messages.
func (r *run) found() string {
	if r.p == len(r.data) {
		return "the end of the input"
	}
	end := r.p
	for end < len(r.data) && end-r.p < 20 && r.data[end] != ' ' && r.data[end] != '\n' {
		end++
	}
	if end == r.p {
		return fmt.Sprintf("%q", rune(r.data[r.p]))
	}
	return fmt.Sprintf("%q", r.data[r.p:end])
}

func (r *run) regex(c *command) {
	src := r.str(c.args[0], "REGEX")
	re, ok := r.re[src]
	if !ok {
		var err error
		if re, err = compileRegex(src); err != nil {
			r.fail("%v", err)
		}
		r.re[src] = re
	}
	m := re.FindIndex(r.data[r.p:])
	if m == nil {
		r.fail("no match for %s at %s", strValue(src), r.found())
	}
	r.step(int64(m[1]) / 64)
	s := string(r.data[r.p : r.p+m[1]])
	r.p += m[1]
	if c.target != nil {
		r.set(c.target, strValue(s))
	}
}

// compileRegex compiles a REGEX's expression: anchored at the input's
// position, the longest match (as POSIX extended expressions match), '.'
// not matching a newline.
func compileRegex(src string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(`^(?:` + src + `)`)
	if err != nil {
		return nil, fmt.Errorf("the regular expression %s is not one Verdict runs (Go's RE2 syntax: no backreferences, lookahead or lookbehind): %w", strValue(src), err)
	}
	re.Longest()
	return re, nil
}

// num evaluates a number.
func (r *run) num(e *expr, what string) value {
	v := r.eval(e)
	if !v.numeric() {
		r.fail("%s needs a number, not %s", what, v.k)
	}
	return v
}

// str evaluates a string.
func (r *run) str(e *expr, what string) string {
	v := r.eval(e)
	if v.k != kString {
		r.fail("%s needs a string, not %s", what, v.k)
	}
	return v.s
}

// test evaluates a test.
func (r *run) test(e *expr, what string) bool {
	v := r.eval(e)
	if v.k != kBool {
		r.fail("%s needs a test (a comparison, &&, ||, !, UNIQUE, INARRAY, MATCH, ISEOF), not %s", what, v.k)
	}
	return v.b
}

// index is the key of a variable's indices.
func (r *run) index(v *varRef) akey {
	var b [24]byte
	key := b[:0]
	for n, e := range v.idx {
		x := r.eval(e)
		if x.k != kInt {
			r.fail("the index of %s is %s, not an integer", v.name, x.k)
		}
		if len(v.idx) == 1 && x.i.IsInt64() {
			return akey{n: x.i.Int64()}
		}
		if n > 0 {
			key = append(key, ',')
		}
		key = appendInt(key, x.i)
	}
	return akey{s: string(key)}
}

func (r *run) set(v *varRef, x value) {
	vr := r.vars[v.name]
	if vr == nil {
		vr = &variable{}
		r.vars[v.name] = vr
	}
	if len(v.idx) == 0 {
		if vr.arr != nil {
			r.fail("%s is an array: it takes indices", v.name)
		}
		vr.scalar = &x
		return
	}
	if vr.scalar != nil {
		r.fail("%s is not an array", v.name)
	}
	if vr.arr == nil {
		vr.arr = map[akey]value{}
	}
	vr.arr[r.index(v)] = x
}

func (r *run) get(v *varRef) value {
	vr := r.vars[v.name]
	if len(v.idx) == 0 {
		if vr == nil || vr.scalar == nil {
			r.fail("the variable %s is not set", v.name)
		}
		return *vr.scalar
	}
	k := r.index(v)
	if vr == nil || vr.arr == nil {
		r.fail("the array %s is not set", v.name)
	}
	el, ok := vr.arr[k]
	if !ok {
		r.fail("%s[%s] is not set", v.name, k)
	}
	return el
}

func (r *run) eval(e *expr) value {
	r.step(1)
	switch e.kind {
	case eLit:
		return e.lit
	case eVar:
		return r.get(e.v)
	case eUnary:
		x := r.eval(e.x)
		switch {
		case e.op == "!" && x.k == kBool:
			return boolValue(!x.b)
		case e.op == "-" && x.k == kInt:
			return intValue(new(big.Int).Neg(x.i))
		case e.op == "-" && x.k == kFloat:
			return floatValue(new(big.Float).Neg(x.f))
		}
		r.fail("%s of %s", e.op, x.k)
	case eBinary:
		switch e.op {
		case "&&", "||":
			x := r.eval(e.x)
			if x.k != kBool {
				r.fail("%s of %s", e.op, x.k)
			}
			if x.b == (e.op == "||") {
				return x
			}
			y := r.eval(e.y)
			if y.k != kBool {
				r.fail("%s of %s", e.op, y.k)
			}
			return y
		}
		return r.binary(e.op, r.eval(e.x), r.eval(e.y))
	case eFunc:
		return r.function(e)
	}
	r.fail("unknown expression")
	return value{}
}

func (r *run) binary(op string, x, y value) value {
	switch op {
	case "==", "!=", "<", ">", "<=", ">=":
		var c int
		switch {
		case x.k == kString && y.k == kString:
			c = strings.Compare(x.s, y.s)
		case x.numeric() && y.numeric():
			c = cmpNum(x, y)
		case x.k == kBool && y.k == kBool && (op == "==" || op == "!="):
			c = 1
			if x.b == y.b {
				c = 0
			}
		default:
			r.fail("%s compares %s with %s", op, x.k, y.k)
		}
		return boolValue(map[string]bool{"==": c == 0, "!=": c != 0, "<": c < 0, ">": c > 0, "<=": c <= 0, ">=": c >= 0}[op])
	}
	if !x.numeric() || !y.numeric() {
		r.fail("%s of %s and %s: arithmetic takes numbers", op, x.k, y.k)
	}
	if op == "^" {
		return r.power(x, y)
	}
	if x.k == kInt && y.k == kInt {
		z := new(big.Int)
		switch op {
		case "+":
			z.Add(x.i, y.i)
		case "-":
			z.Sub(x.i, y.i)
		case "*":
			if x.i.BitLen()+y.i.BitLen() > r.lim.MaxIntBits+1 {
				r.limit("an integer of more than %d bits", r.lim.MaxIntBits)
			}
			z.Mul(x.i, y.i)
		case "/", "%":
			if y.i.Sign() == 0 {
				r.fail("%s by zero", map[string]string{"/": "division", "%": "modulo"}[op])
			}
			if op == "/" {
				z.Quo(x.i, y.i) // truncated, as C and GMP divide
			} else {
				z.Rem(x.i, y.i)
			}
		}
		return r.intResult(z)
	}
	a, b := x.asFloat(), y.asFloat()
	z := new(big.Float).SetPrec(max(a.Prec(), b.Prec()))
	switch op {
	case "+":
		z.Add(a, b)
	case "-":
		if a.IsInf() && b.IsInf() && a.Sign() == b.Sign() {
			r.fail("infinity minus infinity")
		}
		z.Sub(a, b)
	case "*":
		z.Mul(a, b)
	case "/":
		if b.Sign() == 0 {
			r.fail("division by zero")
		}
		z.Quo(a, b)
	case "%":
		r.fail("%% takes integers, not %s and %s", x.k, y.k)
	}
	if z.IsInf() {
		r.fail("a float overflowed")
	}
	return floatValue(z)
}

func (r *run) intResult(z *big.Int) value {
	if z.BitLen() > r.lim.MaxIntBits {
		r.limit("an integer of more than %d bits", r.lim.MaxIntBits)
	}
	return intValue(z)
}

// power is x^y, y a non-negative integer.
func (r *run) power(x, y value) value {
	if y.k != kInt || y.i.Sign() < 0 || !y.i.IsUint64() {
		r.fail("^ takes a non-negative integer exponent, not %s", y)
	}
	n := y.i.Uint64()
	if x.k == kInt {
		if x.i.CmpAbs(big.NewInt(1)) > 0 && (n > uint64(r.lim.MaxIntBits) || uint64(x.i.BitLen()-1)*n > uint64(r.lim.MaxIntBits)) {
			r.limit("an integer of more than %d bits", r.lim.MaxIntBits)
		}
		return r.intResult(new(big.Int).Exp(x.i, y.i, nil))
	}
	z := new(big.Float).SetPrec(x.f.Prec()).SetInt64(1)
	b := new(big.Float).Copy(x.f)
	for ; n > 0; n >>= 1 {
		r.step(1)
		if n&1 == 1 {
			z.Mul(z, b)
		}
		b.Mul(b, b)
		if z.IsInf() || b.IsInf() && n > 1 {
			r.fail("a float overflowed")
		}
	}
	return floatValue(z)
}

func (r *run) function(e *expr) value {
	switch e.op {
	case "ISEOF":
		return boolValue(r.p == len(r.data))
	case "MATCH":
		s := r.str(e.x, "MATCH")
		return boolValue(r.p < len(r.data) && strings.IndexByte(s, r.data[r.p]) >= 0)
	case "STRLEN":
		return intValue(big.NewInt(int64(len(r.str(e.x, "STRLEN")))))
	case "INARRAY":
		x := r.eval(e.x)
		vr := r.vars[e.names[0]]
		if vr == nil || vr.arr == nil {
			return boolValue(false)
		}
		r.step(int64(len(vr.arr)))
		for _, el := range vr.arr {
			if x.numeric() && el.numeric() {
				if cmpNum(x, el) == 0 {
					return boolValue(true)
				}
			} else if x.k == el.k && x.key() == el.key() {
				return boolValue(true)
			}
		}
		return boolValue(false)
	case "UNIQUE":
		arrs := make([]map[akey]value, len(e.names))
		for i, n := range e.names {
			if vr := r.vars[n]; vr != nil {
				if vr.scalar != nil {
					r.fail("UNIQUE: %s is not an array", n)
				}
				arrs[i] = vr.arr
			}
			if len(arrs[i]) != len(arrs[0]) {
				r.fail("UNIQUE: %s and %s have different indices", e.names[0], n)
			}
		}
		seen := make(map[string]bool, len(arrs[0]))
		r.step(int64(len(arrs[0]) * len(arrs)))
		for k, el := range arrs[0] {
			// A single value's key; several, each after its length: no
			// two tuples share one.
			tuple := el.key()
			if len(arrs) > 1 {
				var b strings.Builder
				for i, a := range arrs {
					o, ok := a[k]
					if !ok {
						r.fail("UNIQUE: %s and %s have different indices", e.names[0], e.names[i])
					}
					kk := o.key()
					b.WriteString(strconv.Itoa(len(kk)))
					b.WriteByte(':')
					b.WriteString(kk)
				}
				tuple = b.String()
			}
			if seen[tuple] {
				return boolValue(false)
			}
			seen[tuple] = true
		}
		return boolValue(true)
	}
	r.fail("unknown function %s", e.op)
	return value{}
}

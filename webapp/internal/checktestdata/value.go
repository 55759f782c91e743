package checktestdata

import (
	"math/big"
	"strconv"
	"strings"
)

type kind uint8

const (
	kInt kind = iota
	kFloat
	kString
	kBool
)

func (k kind) String() string {
	return [...]string{"an integer", "a float", "a string", "a test"}[k]
}

// value is an integer (arbitrary precision), a float (floatPrec bits of
// mantissa at least), a string or a test's outcome.
type value struct {
	k kind
	i *big.Int
	f *big.Float
	s string
	b bool
}

func intValue(i *big.Int) value     { return value{k: kInt, i: i} }
func floatValue(f *big.Float) value { return value{k: kFloat, f: f} }
func strValue(s string) value       { return value{k: kString, s: s} }
func boolValue(b bool) value        { return value{k: kBool, b: b} }

// minFloatPrec is the mantissa of floats (checktestdata's GMP floats
// have 256 bits).
const minFloatPrec = 256

// floatPrec is the precision that holds a decimal of n digits exactly
// enough, at least minFloatPrec.
func floatPrec(n int) uint { return uint(max(minFloatPrec, 4*n)) }

// asFloat is a number as a float.
func (v value) asFloat() *big.Float {
	if v.k == kFloat {
		return v.f
	}
	return new(big.Float).SetPrec(uint(max(minFloatPrec, v.i.BitLen()+64))).SetInt(v.i)
}

// cmpNum compares two numbers.
func cmpNum(a, b value) int {
	if a.k == kInt && b.k == kInt {
		return a.i.Cmp(b.i)
	}
	return a.asFloat().Cmp(b.asFloat())
}

func (v value) numeric() bool { return v.k == kInt || v.k == kFloat }

// key is v as a map key: equal values of one kind have the same key.
func (v value) key() string {
	switch v.k {
	case kInt:
		return string(appendInt([]byte{'i'}, v.i))
	case kFloat:
		return "f" + v.f.Text('p', 0)
	case kString:
		return "s" + v.s
	}
	if v.b {
		return "b1"
	}
	return "b0"
}

// appendInt appends i in decimal (strconv's speed where it fits).
func appendInt(b []byte, i *big.Int) []byte {
	if i.IsInt64() {
		return strconv.AppendInt(b, i.Int64(), 10)
	}
	return i.Append(b, 10)
}

// String shows v in messages.
func (v value) String() string {
	switch v.k {
	case kInt:
		s := v.i.String()
		if len(s) > 40 {
			s = s[:20] + "…" + s[len(s)-10:]
		}
		return s
	case kFloat:
		return v.f.Text('g', 12)
	case kString:
		s := v.s
		if len(s) > 40 {
			s = s[:40] + "…"
		}
		return `"` + strings.ToValidUTF8(s, "?") + `"`
	}
	if v.b {
		return "true"
	}
	return "false"
}

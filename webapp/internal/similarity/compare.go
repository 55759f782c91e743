package similarity

import (
	"cmp"
	"slices"
	"strings"
)

// Span is a byte range [Start, End) of a source and the lines it covers
// (1-based, inclusive).
type Span struct {
	Start     int `json:"start"`
	End       int `json:"end"`
	LineStart int `json:"line_start"`
	LineEnd   int `json:"line_end"`
}

// Region is a run of equal normalised tokens in both sources.
type Region struct {
	A, B   Span
	Tokens int
}

// Comparison is the side-by-side view of two sources.
type Comparison struct {
	// Regions, in the order of A.
	Regions []Region
	// Tokens of each source, and how many of them the regions cover.
	TokensA, TokensB   int
	MatchedA, MatchedB int
}

// Bounds of Compare on repetitive sources (one line repeated thousands of
// times would otherwise cost n²): a k-gram seeds from its first
// maxSeedPositions places in A only, and seeding stops once the runs
// found so far cost maxCompareSteps symbol comparisons; the longest runs
// come first in a repetitive source, so little is lost.
const (
	maxSeedPositions = 64
	maxCompareSteps  = 8 << 20
)

// Compare finds the matching regions of a and b (package doc, step 4):
// maximal runs of at least K equal symbols, a greedy tiling longest first.
// Sources of different families have none.
func Compare(a, b Source, opt Options) Comparison {
	opt.defaults()
	fa, fb := FamilyOf(a.Language), FamilyOf(b.Language)
	ta, tb := Tokenize(fa, a.Text), Tokenize(fb, b.Text)
	c := Comparison{TokensA: len(ta), TokensB: len(tb)}
	if fa == "" || fa != fb {
		return c
	}
	k := opt.K
	ha, hb := kgramHashes(ta, k), kgramHashes(tb, k)
	pos := map[uint64][]int32{}
	for i, h := range ha {
		if p := pos[h]; len(p) < maxSeedPositions {
			pos[h] = append(p, int32(i))
		}
	}
	type run struct{ a, b, n int }
	var runs []run
	// reach[d] is how far (in A) the runs found on diagonal d = i-j
	// extend: a seed inside one is not extended again.
	reach := map[int]int{}
	steps := 0
	for j, h := range hb {
		if steps > maxCompareSteps {
			break
		}
		for _, p := range pos[h] {
			i := int(p)
			d := i - j
			if r, ok := reach[d]; ok && i < r {
				continue
			}
			if !equalSyms(ta[i:i+k], tb[j:j+k]) {
				continue // a hash collision
			}
			s, t := i, j
			for s > 0 && t > 0 && ta[s-1].Sym == tb[t-1].Sym {
				s--
				t--
			}
			e := i + k
			for e < len(ta) && e-d < len(tb) && ta[e].Sym == tb[e-d].Sym {
				e++
			}
			reach[d] = e
			steps += e - s
			runs = append(runs, run{s, t, e - s})
		}
	}
	slices.SortFunc(runs, func(x, y run) int {
		if c := cmp.Compare(y.n, x.n); c != 0 {
			return c
		}
		if c := cmp.Compare(x.a, y.a); c != 0 {
			return c
		}
		return cmp.Compare(x.b, y.b)
	})
	usedA, usedB := make([]bool, len(ta)), make([]bool, len(tb))
	var kept []run
	for _, r := range runs {
		// The longest stretch of r free on both sides.
		bs, bn, cs := 0, 0, -1
		for x := 0; x <= r.n; x++ {
			free := x < r.n && !usedA[r.a+x] && !usedB[r.b+x]
			if free && cs < 0 {
				cs = x
			}
			if !free && cs >= 0 {
				if x-cs > bn {
					bs, bn = cs, x-cs
				}
				cs = -1
			}
		}
		if bn < k {
			continue
		}
		r = run{r.a + bs, r.b + bs, bn}
		for x := 0; x < r.n; x++ {
			usedA[r.a+x], usedB[r.b+x] = true, true
		}
		kept = append(kept, r)
	}
	slices.SortFunc(kept, func(x, y run) int { return cmp.Compare(x.a, y.a) })
	la, lb := newLines(a.Text), newLines(b.Text)
	for _, r := range kept {
		c.Regions = append(c.Regions, Region{
			A:      la.span(ta[r.a : r.a+r.n]),
			B:      lb.span(tb[r.b : r.b+r.n]),
			Tokens: r.n,
		})
		c.MatchedA += r.n
		c.MatchedB += r.n
	}
	return c
}

func equalSyms(x, y []Token) bool {
	for i := range x {
		if x[i].Sym != y[i].Sym {
			return false
		}
	}
	return true
}

// lines maps byte offsets to 1-based line numbers.
type lines []int // the offset of each line's first byte

func newLines(s string) lines {
	l := lines{0}
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		l = append(l, i)
	}
	return l
}

func (l lines) line(off int) int {
	n, found := slices.BinarySearch(l, off)
	if found {
		return n + 1
	}
	return n
}

// span is the byte and line range of a run of tokens. Zero-width tokens
// (Python's INDENT/DEDENT) at either end do not widen it.
func (l lines) span(ts []Token) Span {
	first, last := 0, len(ts)-1
	for first < last && ts[first].Start == ts[first].End {
		first++
	}
	for last > first && ts[last].Start == ts[last].End {
		last--
	}
	s, e := int(ts[first].Start), int(ts[last].End)
	if e < s {
		e = s
	}
	le := l.line(max(s, e-1))
	return Span{Start: s, End: e, LineStart: l.line(s), LineEnd: le}
}

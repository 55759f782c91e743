package demo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// sample is a demo problem and its test data.
type sample struct {
	problem  store.Problem
	cases    []testpkg.Case
	subtasks []testpkg.Subtask
	// samples are the sample cases (the statement's example): under the
	// full feedback policy their checker messages reach the author.
	samples []int
}

// pkg is the sample's test data package.
func (s sample) pkg() testpkg.Package {
	return testpkg.Package{Cases: s.cases, Subtasks: s.subtasks, Samples: s.samples}
}

// rng is seeded per problem so the generated data (and so its content
// hash) is the same on every run.
func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

func samples() []sample {
	return []sample{aPlusB(), circleArea(), maxSubarray()}
}

func aPlusB() sample {
	r := rng(1)
	var cases []testpkg.Case
	add := func(a, b int64) {
		cases = append(cases, testpkg.Case{
			In:  fmt.Appendf(nil, "%d %d\n", a, b),
			Ans: fmt.Appendf(nil, "%d\n", a+b),
		})
	}
	add(1, 2)
	add(0, 0)
	add(-1_000_000_000, 1_000_000_000)
	for len(cases) < 10 {
		add(r.Int64N(2_000_000_001)-1_000_000_000, r.Int64N(2_000_000_001)-1_000_000_000)
	}
	return sample{
		problem: store.Problem{
			Slug:  "a-plus-b",
			Title: "A + B",
			Statement: `Given two integers $a$ and $b$, print $a+b$.

## Input

One line with two integers $a$ and $b$ ($-10^9 \le a, b \le 10^9$), separated by a space.

## Output

One line with the integer $a+b$.

## Example

Input:

` + "```" + `
1 2
` + "```" + `

Output:

` + "```" + `
3
` + "```" + `

Note: $|a+b|$ can reach $2 \cdot 10^9$, more than a signed 32-bit integer holds ($2^{31}-1$); use 64-bit integers.
`,
			TimeLimitMs:   1000,
			MemoryLimitKB: 262144,
			Checker:       store.CheckerDefault,
			Mode:          store.ModeICPC,
			Visibility:    store.VisibilityPublic,
			Languages:     store.Languages{},
		},
		cases:   cases,
		samples: []int{1}, // the statement's example
	}
}

func circleArea() sample {
	r := rng(2)
	var cases []testpkg.Case
	add := func(radius float64) {
		cases = append(cases, testpkg.Case{
			In:  []byte(strconv.FormatFloat(radius, 'f', -1, 64) + "\n"),
			Ans: fmt.Appendf(nil, "%.10f\n", math.Pi*radius*radius),
		})
	}
	add(1)
	add(0.5)
	add(1000)
	for len(cases) < 8 {
		add(float64(r.IntN(1_000_000)+1) / 1000)
	}
	return sample{
		problem: store.Problem{
			Slug:  "circle-area",
			Title: "Circle Area",
			Statement: `Print the area $\pi r^2$ of a circle of radius $r$.

## Input

One real number $r$ ($0 < r \le 1000$) with at most three digits after the decimal point.

## Output

The area of the circle. Your answer is accepted if its absolute or relative error is at most $10^{-6}$.

## Example

Input: ` + "`1`" + `, output: ` + "`3.1415926536`" + `.
`,
			TimeLimitMs:    1000,
			MemoryLimitKB:  262144,
			Checker:        store.CheckerFloat,
			FloatTolerance: 1e-6,
			Mode:           store.ModeICPC,
			Visibility:     store.VisibilityPublic,
			Languages:      store.Languages{},
		},
		cases:   cases,
		samples: []int{1}, // the statement's example
	}
}

func maxSubarray() sample {
	r := rng(3)
	var cases []testpkg.Case
	add := func(xs []int64) {
		best, cur := xs[0], int64(0)
		for _, x := range xs {
			cur = max(cur+x, x)
			best = max(best, cur)
		}
		var in strings.Builder
		fmt.Fprintf(&in, "%d\n", len(xs))
		for i, x := range xs {
			if i > 0 {
				in.WriteByte(' ')
			}
			in.WriteString(strconv.FormatInt(x, 10))
		}
		in.WriteByte('\n')
		cases = append(cases, testpkg.Case{In: []byte(in.String()), Ans: fmt.Appendf(nil, "%d\n", best)})
	}
	random := func(n int) []int64 {
		xs := make([]int64, n)
		for i := range xs {
			xs[i] = r.Int64N(2_000_001) - 1_000_000
		}
		return xs
	}
	// Subtask 1: n ≤ 100 (cases 1–3).
	add([]int64{-2, 1, -3, 4, -1, 2, 1, -5, 4})
	add([]int64{-7})
	add(random(100))
	// Subtask 2: n ≤ 200000 (cases 4–6); kept small in the demo data.
	add(random(5000))
	add(random(20000))
	neg := random(20000)
	for i := range neg {
		neg[i] = -1 - (neg[i]&0xffff)%1000
	}
	add(neg)
	return sample{
		problem: store.Problem{
			Slug:  "max-subarray",
			Title: "Maximum Subarray (IOI)",
			Statement: `Given $n$ integers $x_1, \dots, x_n$, find the largest sum $\sum_{i=l}^{r} x_i$ of a non-empty contiguous subarray.

## Input

The first line holds $n$; the second line holds $x_1, \dots, x_n$ ($|x_i| \le 10^6$).

## Output

The largest subarray sum.

## Example

Input:

` + "```" + `
9
-2 1 -3 4 -1 2 1 -5 4
` + "```" + `

Output:

` + "```" + `
6
` + "```" + `

## Subtasks

| Subtask | Points | Constraints |
|---|---|---|
| 1 | 40 | $1 \le n \le 100$ |
| 2 | 60 | $1 \le n \le 2 \cdot 10^5$ |

A subtask's points are awarded when every case of the subtask passes.
`,
			TimeLimitMs:   1000,
			MemoryLimitKB: 262144,
			Checker:       store.CheckerDefault,
			Mode:          store.ModeIOI,
			Visibility:    store.VisibilityPublic,
			Languages:     store.Languages{},
		},
		cases:   cases,
		samples: []int{1}, // the statement's example
		subtasks: []testpkg.Subtask{
			{Name: "small", Points: 40, Cases: []int{1, 2, 3}},
			{Name: "large", Points: 60, Cases: []int{4, 5, 6}},
		},
	}
}

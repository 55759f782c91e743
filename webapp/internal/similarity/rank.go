package similarity

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
)

// Defaults of Options.
const (
	// DefaultK is the k-gram length in symbols: runs shorter than this
	// never match (one statement like `for (int i = 0; i < n; i++)` is 14).
	DefaultK = 15
	// DefaultW is the winnowing window: every common run of at least
	// DefaultK+DefaultW-1 symbols shares a fingerprint.
	DefaultW = 8
	// DefaultMaxShare: a fingerprint in more than this share of a group's
	// sources is boilerplate and ignored...
	DefaultMaxShare = 0.1
	// DefaultMinCommon ...unless it is in at most this many sources (so
	// that small groups keep everything).
	DefaultMinCommon = 8
	// DefaultMinShared is the fewest shared fingerprints a listed pair has.
	DefaultMinShared = 3
	// DefaultMaxPairs bounds the pairs Rank returns.
	DefaultMaxPairs = 500
)

// Options tune Rank and Compare; zero values take the defaults.
type Options struct {
	K, W      int
	MaxShare  float64
	MinCommon int
	MinShared int
	MaxPairs  int
	// Workers fingerprint sources in parallel. Default GOMAXPROCS.
	Workers int
}

func (o *Options) defaults() {
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&o.K, DefaultK)
	def(&o.W, DefaultW)
	def(&o.MinCommon, DefaultMinCommon)
	def(&o.MinShared, DefaultMinShared)
	def(&o.MaxPairs, DefaultMaxPairs)
	def(&o.Workers, runtime.GOMAXPROCS(0))
	if o.MaxShare <= 0 {
		o.MaxShare = DefaultMaxShare
	}
}

// Source is one submission to check.
type Source struct {
	// Group: only sources of one group (a problem) are compared.
	Group string
	// Owner: sources of one owner (a user) are never a pair; 0 is nobody's.
	Owner int64
	// Language is the judge language id (FamilyOf).
	Language string
	Text     string
}

// Pair is two sources (indices into Rank's argument, A < B) and how much
// they share.
type Pair struct {
	A, B int
	// Shared is the number of distinct fingerprints both hold (boilerplate
	// excluded).
	Shared int
	// Score is the Dice coefficient 2·Shared/(|A|+|B|) in [0, 1].
	Score float64
	// CoverA and CoverB are Shared over each side's fingerprints.
	CoverA, CoverB float64
}

// Result is what Rank found.
type Result struct {
	// Pairs, best first (Score, then Shared, then indices), at most
	// MaxPairs of them.
	Pairs []Pair
	// Candidates is how many pairs shared at least MinShared fingerprints
	// (Pairs may be cut short of it).
	Candidates int
	// Checked is the number of sources fingerprinted; Skipped lists the
	// indices of those in a language without a tokenizer.
	Checked int
	Skipped []int
	// Boilerplate is the number of distinct fingerprints ignored as too
	// common.
	Boilerplate int
}

// fingerprintSet is the distinct fingerprint hashes of one source, sorted.
func fingerprintSet(f Family, text string, k, w int) []uint64 {
	fps := Winnow(Tokenize(f, text), k, w)
	hs := make([]uint64, len(fps))
	for i, fp := range fps {
		hs[i] = fp.Hash
	}
	slices.Sort(hs)
	return slices.Compact(hs)
}

// Rank fingerprints srcs and ranks the pairs of each group and family by
// shared fingerprints (package doc), through an inverted index: the work
// is the sum of the squares of the posting lists, which the boilerplate
// cut bounds, not n².
func Rank(srcs []Source, opt Options) Result {
	opt.defaults()
	var res Result
	fam := make([]Family, len(srcs))
	for i, s := range srcs {
		fam[i] = FamilyOf(s.Language)
		if fam[i] == "" {
			res.Skipped = append(res.Skipped, i)
		}
	}
	sets := make([][]uint64, len(srcs))
	var wg sync.WaitGroup
	next := make(chan int, len(srcs))
	for i := range srcs {
		if fam[i] != "" {
			next <- i
		}
	}
	close(next)
	for range opt.Workers {
		wg.Go(func() {
			for i := range next {
				sets[i] = fingerprintSet(fam[i], srcs[i].Text, opt.K, opt.W)
			}
		})
	}
	wg.Wait()
	res.Checked = len(srcs) - len(res.Skipped)

	type key struct {
		group string
		fam   Family
	}
	groups := map[key][]int32{}
	var order []key
	for i, s := range srcs {
		if fam[i] == "" {
			continue
		}
		k := key{s.Group, fam[i]}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], int32(i))
	}
	top := &topK{k: opt.MaxPairs}
	for _, k := range order {
		res.Boilerplate += rankGroup(srcs, sets, groups[k], opt, top)
	}
	res.Candidates = top.seen
	res.Pairs = top.sorted()
	return res
}

// better orders pairs best first: Score, then Shared, then indices.
func better(a, b Pair) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Shared, a.Shared); c != 0 {
		return c
	}
	if c := cmp.Compare(a.A, b.A); c != 0 {
		return c
	}
	return cmp.Compare(a.B, b.B)
}

// topK keeps the k best pairs offered (a heap whose root is the worst
// kept), so a run with a million candidate pairs never holds them all.
type topK struct {
	k    int
	seen int
	h    []Pair
}

func (t *topK) offer(p Pair) {
	t.seen++
	if len(t.h) < t.k {
		t.h = append(t.h, p)
		t.up(len(t.h) - 1)
		return
	}
	if better(p, t.h[0]) < 0 {
		t.h[0] = p
		t.down(0)
	}
}

// worse reports whether h[i] ranks below h[j] (the heap's order).
func (t *topK) worse(i, j int) bool { return better(t.h[i], t.h[j]) > 0 }

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.worse(i, p) {
			return
		}
		t.h[i], t.h[p] = t.h[p], t.h[i]
		i = p
	}
}

func (t *topK) down(i int) {
	for {
		l, w := 2*i+1, i
		if l < len(t.h) && t.worse(l, w) {
			w = l
		}
		if r := l + 1; r < len(t.h) && t.worse(r, w) {
			w = r
		}
		if w == i {
			return
		}
		t.h[i], t.h[w] = t.h[w], t.h[i]
		i = w
	}
}

func (t *topK) sorted() []Pair {
	out := slices.Clone(t.h)
	slices.SortFunc(out, better)
	return out
}

// denseLimit: groups of at most this many sources count their pairs in a
// triangular array of uint16 (n²/2 entries: 36 MB at the limit), far
// faster than a map; larger ones use a map.
var denseLimit = 6000 // a variable for the test of the map path

// rankGroup counts the shared fingerprints of the pairs of one group,
// offers those sharing at least MinShared to top, and returns how many
// fingerprints it ignored as boilerplate.
func rankGroup(srcs []Source, sets [][]uint64, members []int32, opt Options, top *topK) int {
	// Local indices 0..m-1 into members.
	index := map[uint64][]int32{}
	for li, m := range members {
		for _, h := range sets[m] {
			index[h] = append(index[h], int32(li))
		}
	}
	n := len(members)
	limit := max(opt.MinCommon, int(opt.MaxShare*float64(n)))
	owner := make([]int64, n)
	for li, m := range members {
		owner[li] = srcs[m].Owner
	}
	// size is each source's fingerprints less the boilerplate.
	size := make([]int, n)
	boiler := 0
	var dense []uint16
	var sparse map[uint64]int32
	if n <= denseLimit {
		dense = make([]uint16, n*(n-1)/2)
	} else {
		sparse = map[uint64]int32{}
	}
	// tri is the index of pair (a, b), a < b, in dense.
	tri := func(a, b int) int { return b*(b-1)/2 + a }
	for _, post := range index {
		if len(post) > limit {
			boiler++
			continue
		}
		for _, m := range post {
			size[m]++
		}
		// Posting lists are in increasing local index (members in order).
		for x := 0; x < len(post); x++ {
			a := int(post[x])
			for y := x + 1; y < len(post); y++ {
				b := int(post[y])
				if o := owner[a]; o != 0 && o == owner[b] {
					continue
				}
				if dense != nil {
					if c := &dense[tri(a, b)]; *c < 0xffff {
						*c++
					}
				} else {
					sparse[uint64(a)<<32|uint64(b)]++
				}
			}
		}
	}
	offer := func(a, b, shared int) {
		if shared < opt.MinShared {
			return
		}
		sa, sb := size[a], size[b]
		top.offer(Pair{A: int(members[a]), B: int(members[b]), Shared: shared,
			Score:  2 * float64(shared) / float64(sa+sb),
			CoverA: float64(shared) / float64(sa), CoverB: float64(shared) / float64(sb)})
	}
	if dense != nil {
		for b := 1; b < n; b++ {
			row := dense[tri(0, b) : tri(0, b)+b]
			for a, c := range row {
				if c != 0 {
					offer(a, b, int(c))
				}
			}
		}
	} else {
		for k, c := range sparse {
			offer(int(k>>32), int(uint32(k)), int(c))
		}
	}
	return boiler
}

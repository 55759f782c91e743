package similarity

// Fingerprint is a winnowed k-gram hash and the index of the k-gram's
// first token.
type Fingerprint struct {
	Hash uint64
	Pos  int32
}

// base is the multiplier of the polynomial rolling hash (mod 2^64), odd.
const base = 0x100000001b3

// kgramHashes returns the hash of every k-gram of toks (len(toks)-k+1 of
// them; none when there are fewer than k tokens), by a rolling hash.
func kgramHashes(toks []Token, k int) []uint64 {
	if k < 1 || len(toks) < k {
		return nil
	}
	var pow uint64 = 1 // base^(k-1)
	for i := 1; i < k; i++ {
		pow *= base
	}
	out := make([]uint64, 0, len(toks)-k+1)
	var h uint64
	for i, t := range toks {
		if i >= k {
			h -= toks[i-k].Sym * pow
		}
		h = h*base + t.Sym
		if i >= k-1 {
			out = append(out, mix(h))
		}
	}
	return out
}

// mix scrambles a rolling hash (splitmix64's finaliser) so the window
// minimum is not biased towards particular symbols.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Winnow selects fingerprints from the k-gram hashes of toks: in every
// window of w consecutive hashes the minimum, the rightmost one on ties,
// recorded once however many windows select it (robust winnowing,
// Schleimer–Wilkerson–Aiken 2003, §4). A source with at least k tokens but
// fewer than w k-grams keeps its single minimum. Order: by position.
func Winnow(toks []Token, k, w int) []Fingerprint {
	hs := kgramHashes(toks, k)
	if len(hs) == 0 {
		return nil
	}
	if w < 1 {
		w = 1
	}
	var out []Fingerprint
	// dq holds the indices of a monotonic queue: hashes strictly
	// increasing from front to back, so the front is the window's
	// rightmost minimum.
	dq := make([]int, 0, w)
	head := 0
	last := -1
	for i, h := range hs {
		for len(dq) > head && hs[dq[len(dq)-1]] >= h {
			dq = dq[:len(dq)-1]
		}
		dq = append(dq, i)
		if dq[head] <= i-w {
			head++
		}
		if head > 1024 {
			dq = append(dq[:0], dq[head:]...)
			head = 0
		}
		if i >= w-1 || i == len(hs)-1 {
			if m := dq[head]; m != last {
				out = append(out, Fingerprint{Hash: hs[m], Pos: int32(m)})
				last = m
			}
		}
	}
	return out
}

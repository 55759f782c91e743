package similarity

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// benchSources makes n sources of one problem in the four families: each
// is one of the fixture solutions with its identifiers renamed and a
// random helper of 10-20 statements added (C++ ones also get one in the
// middle), so that many of them share long runs (the worst case for the
// index: long posting lists) while none is identical.
func benchSources(tb testing.TB, n int) []Source {
	fs := loadFixtures(tb, "maxsub", "primes")
	r := rand.New(rand.NewPCG(7, 11))
	out := make([]Source, n)
	for i := range out {
		f := fs[r.IntN(len(fs))].src
		text := f.Text
		for _, w := range benchRenames {
			text = w.ReplaceAllString(text, "${1}"+string(rune('a'+r.IntN(26))))
		}
		if FamilyOf(f.Language) == FamilyC {
			cut := strings.Index(text, "\nint main")
			if cut < 0 {
				cut = len(text)
			}
			text = text[:cut] + "\n" + genProgram(r) + text[cut:]
		} else {
			text += "\n" + strings.Repeat("// padding\n", r.IntN(5))
		}
		out[i] = Source{Group: "p", Owner: int64(i + 1), Language: f.Language, Text: text}
	}
	return out
}

var benchRenames = []*regexp.Regexp{regexp.MustCompile(`\b(best|cur|sum|n|x|count|composite|values|limit)\b`),
	regexp.MustCompile(`\b(a|i|j|k|p)\b`)}

// BenchmarkRank3000 is make bench's similarity line: rank the pairs of
// 3,000 sources of one problem, from the source text to the sorted pairs
// (about 110 near-copies of each of 27 solutions: the copies of one are
// more than a tenth of their family, so the default cut takes them for
// boilerplate).
func BenchmarkRank3000(b *testing.B) { benchRank(b, Options{}) }

// BenchmarkRank3000NoCut is the same without the boilerplate cut (every
// fingerprint counts, however common): the index's worst case here.
func BenchmarkRank3000NoCut(b *testing.B) { benchRank(b, Options{MaxShare: 1}) }

func benchRank(b *testing.B, opt Options) {
	srcs := benchSources(b, 3000)
	bytes := 0
	for _, s := range srcs {
		bytes += len(s.Text)
	}
	b.SetBytes(int64(bytes))
	b.ResetTimer()
	var res Result
	for b.Loop() {
		res = Rank(srcs, opt)
	}
	b.ReportMetric(float64(len(srcs)), "sources")
	b.ReportMetric(float64(res.Candidates), "candidate_pairs")
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N), "s/run")
}

func BenchmarkCompare(b *testing.B) {
	fs := loadFixtures(b, "maxsub")
	x, y := fs[0].src, fs[1].src
	for b.Loop() {
		Compare(x, y, Options{})
	}
}

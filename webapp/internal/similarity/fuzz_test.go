package similarity

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzTokenize checks, for every family, that the tokenizers take any
// bytes: tokens in order, inside the source, not overlapping; and that
// winnowing and comparing a source with itself stay in bounds.
func FuzzTokenize(f *testing.F) {
	for _, p := range []string{"maxsub", "primes"} {
		ents, _ := os.ReadDir(filepath.Join("testdata", p))
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join("testdata", p, e.Name()))
			if err == nil {
				f.Add(string(b))
			}
		}
	}
	for _, s := range []string{"", "\"", "'", "`", "/*", "#", "\\", "\"\"\"", "'''x", "r\"", "R\"(", "u8'",
		"if x:\n  y\n\tz\n", "(\n", "1e+", "0x1'2'", ".5", "\xff\xfe", "#define X \\\n", "é"} {
		f.Add(s)
	}
	fams := []Family{FamilyC, FamilyJava, FamilyPython, FamilyGo}
	langs := []string{"cpp17", "java17", "py3", "go"}
	f.Fuzz(func(t *testing.T, src string) {
		for fi, fam := range fams {
			toks := Tokenize(fam, src)
			prev := int32(0)
			for i, tk := range toks {
				if tk.Start < prev || tk.End < tk.Start || int(tk.End) > len(src) {
					t.Fatalf("%s: token %d [%d,%d) after %d in %d bytes", fam, i, tk.Start, tk.End, prev, len(src))
				}
				if tk.Sym == 0 {
					t.Fatalf("%s: zero symbol", fam)
				}
				prev = tk.End
			}
			fps := Winnow(toks, 5, 4)
			for _, fp := range fps {
				if int(fp.Pos)+5 > len(toks) {
					t.Fatalf("%s: fingerprint at %d of %d tokens", fam, fp.Pos, len(toks))
				}
			}
			s := Source{Language: langs[fi], Text: src}
			c := Compare(s, s, Options{K: 5})
			for _, r := range c.Regions {
				for _, sp := range []Span{r.A, r.B} {
					if sp.Start < 0 || sp.End > len(src) || sp.Start > sp.End || sp.LineStart < 1 || sp.LineEnd < sp.LineStart {
						t.Fatalf("%s: bad span %+v", fam, sp)
					}
				}
			}
			if c.MatchedA > c.TokensA {
				t.Fatalf("%s: matched %d of %d", fam, c.MatchedA, c.TokensA)
			}
		}
	})
}

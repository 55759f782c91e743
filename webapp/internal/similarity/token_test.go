package similarity

import (
	"strings"
	"testing"
)

// render shows a token sequence as text: identifiers ID, numbers NUM,
// strings STR, Python's INDENT and DEDENT, the rest as written (a
// directive by its first word).
func render(toks []Token, src string) string {
	var b []string
	for _, t := range toks {
		switch t.Sym {
		case symIdent:
			b = append(b, "ID")
		case symNumber:
			b = append(b, "NUM")
		case symString:
			b = append(b, "STR")
		case symIndent:
			b = append(b, "INDENT")
		case symDedent:
			b = append(b, "DEDENT")
		default:
			b = append(b, strings.Fields(src[t.Start:t.End])[0])
		}
	}
	return strings.Join(b, " ")
}

func TestFamilyOf(t *testing.T) {
	for _, c := range []struct {
		id   string
		want Family
	}{
		{"c17", FamilyC}, {"c11", FamilyC}, {"cpp17", FamilyC}, {"cpp20", FamilyC}, {"cpp23", FamilyC},
		{"c++14", FamilyC}, {"gnu++17", FamilyC}, {"py3", FamilyPython}, {"pypy3", FamilyPython},
		{"python3", FamilyPython}, {"java17", FamilyJava}, {"java21", FamilyJava}, {"go", FamilyGo},
		{"go1.22", FamilyGo}, {"csharp", ""}, {"kotlin", ""}, {"rust", ""}, {"", ""}, {"haskell", ""},
	} {
		if got := FamilyOf(c.id); got != c.want {
			t.Errorf("FamilyOf(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}

func TestTokenize(t *testing.T) {
	for _, c := range []struct {
		name string
		fam  Family
		src  string
		want string
	}{
		{"c comments and whitespace", FamilyC, "int  x = 1; // one\n/* two\n */ x  +=\t0x1Fu;",
			"int ID = NUM ; ID += NUM ;"},
		{"c identifiers renamed alike", FamilyC, "for (int i = 0; i < n; i++) s += a[i];",
			"for ( int ID = NUM ; ID < ID ; ID ++ ) ID += ID [ ID ] ;"},
		{"c preprocessor", FamilyC, "#include <bits/stdc++.h>\n  # define MAX(a,b) \\\n ((a)>(b)?(a):(b))\nint main(){}",
			"#include # int ID ( ) { }"},
		{"c strings and chars", FamilyC, `printf("%d \"x\"\n", 'a', '\'', u8"s", R"(r)");`,
			"ID ( STR , STR , STR , STR , STR ) ;"},
		{"cpp operators", FamilyC, "a <<= b >> c; p->q; std::cout << x <=> y; 1'000'000;",
			"ID <<= ID >> ID ; ID -> ID ; ID :: ID << ID <=> ID ; NUM ;"},
		{"cpp unterminated comment", FamilyC, "int a; /* never closed", "int ID ;"},
		{"java", FamilyJava, "public class Main { // x\n static long f(long[] a) { return a.length > 0 ? a[0] : 1L; } }",
			"public class ID { static long ID ( long [ ] ID ) { return ID . ID > NUM ? ID [ NUM ] : NUM ; } }"},
		{"java text block", FamilyJava, "String s = \"\"\"\n  hi \"there\"\n  \"\"\"; char c = '\\n';",
			"ID ID = STR ; char ID = STR ;"},
		{"python indentation", FamilyPython, "def f(x):\n    # c\n\n    if x:\n        return 1\n    return 2\nprint(f(3))\n",
			"def ID ( ID ) : INDENT if ID : INDENT return NUM DEDENT return NUM DEDENT ID ( ID ( NUM ) )"},
		{"python brackets span lines", FamilyPython, "x = [1,\n      2]\ny = x\n",
			"ID = [ NUM , NUM ] ID = ID"},
		{"python strings", FamilyPython, "s = r'\\d' + f\"{x}\" + '''a\n'b'\n''' # t\nn = 1e-3 // 2 ** 3",
			"ID = STR + STR + STR ID = NUM // NUM ** NUM"},
		{"python dedent at end", FamilyPython, "if a:\n\tb()", "if ID : INDENT ID ( ) DEDENT"},
		{"go", FamilyGo, "package main\n\nfunc f(xs []int) (s int) {\n\tfor _, x := range xs { s += x } // sum\n\treturn `raw\nline`\n}",
			"package ID func ID ( ID [ ] ID ) ( ID ID ) { for ID , ID := range ID { ID += ID } return STR }"},
		{"go channels", FamilyGo, "c <- v; x &^= y; f(a...)", "ID <- ID ; ID &^= ID ; ID ( ID ... )"},
		{"non-ascii identifiers", FamilyGo, "ünï := 1 // ü", "ID := NUM"},
		{"unknown family uses c rules", "", "int a; // x", "int ID ;"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := render(Tokenize(c.fam, c.src), c.src)
			if got != c.want {
				t.Errorf("Tokenize(%q)\n got %s\nwant %s", c.src, got, c.want)
			}
		})
	}
}

func TestTokenizeRanges(t *testing.T) {
	src := "int main() {\n  return 42; // done\n}\n"
	toks := Tokenize(FamilyC, src)
	var texts []string
	for _, tk := range toks {
		texts = append(texts, src[tk.Start:tk.End])
	}
	if got, want := strings.Join(texts, "|"), "int|main|(|)|{|return|42|;|}"; got != want {
		t.Errorf("token texts %s, want %s", got, want)
	}
}

func TestWinnow(t *testing.T) {
	mk := func(syms ...uint64) []Token {
		ts := make([]Token, len(syms))
		for i, s := range syms {
			ts[i] = Token{Sym: s, Start: int32(i), End: int32(i + 1)}
		}
		return ts
	}
	seq := make([]uint64, 60)
	for i := range seq {
		seq[i] = uint64(i*7919%23 + 1)
	}
	for _, c := range []struct {
		name    string
		toks    []Token
		k, w    int
		atLeast int
		atMost  int
	}{
		{"fewer than k tokens", mk(1, 2, 3), 4, 4, 0, 0},
		{"exactly k tokens", mk(1, 2, 3, 4), 4, 4, 1, 1},
		{"fewer than w k-grams keeps one", mk(1, 2, 3, 4, 5, 6), 4, 8, 1, 1},
		{"density about 2/(w+1)", mk(seq...), 5, 4, 56 / 4, 56},
	} {
		t.Run(c.name, func(t *testing.T) {
			fps := Winnow(c.toks, c.k, c.w)
			if len(fps) < c.atLeast || len(fps) > c.atMost {
				t.Fatalf("%d fingerprints, want %d to %d", len(fps), c.atLeast, c.atMost)
			}
			hs := kgramHashes(c.toks, c.k)
			// The guarantee: every window of w hashes holds a selected one,
			// and every selected hash is the minimum of some window.
			sel := map[int32]bool{}
			for i, fp := range fps {
				if i > 0 && fp.Pos <= fps[i-1].Pos {
					t.Fatalf("positions not increasing: %v", fps)
				}
				if hs[fp.Pos] != fp.Hash {
					t.Fatalf("fingerprint %d hash mismatch", i)
				}
				sel[fp.Pos] = true
			}
			for s := 0; s+c.w <= len(hs); s++ {
				found := false
				for p := s; p < s+c.w; p++ {
					found = found || sel[int32(p)]
				}
				if !found {
					t.Fatalf("window at %d has no fingerprint", s)
				}
			}
		})
	}
}

func TestWinnowPositionFree(t *testing.T) {
	// The same function at two places yields the same fingerprints.
	fn := "int f(int a, int b) { int s = 0; for (int i = a; i < b; i++) s += i * i; return s; }\n"
	x := Tokenize(FamilyC, fn+"int g() { return 1; }\n")
	y := Tokenize(FamilyC, "int g() { return 2; }\nint h;\n"+fn)
	hx, hy := map[uint64]bool{}, map[uint64]bool{}
	for _, fp := range Winnow(x, 10, 4) {
		hx[fp.Hash] = true
	}
	for _, fp := range Winnow(y, 10, 4) {
		hy[fp.Hash] = true
	}
	shared := 0
	for h := range hx {
		if hy[h] {
			shared++
		}
	}
	if shared < 3 {
		t.Errorf("%d shared fingerprints for a moved function, want at least 3 (%d and %d)", shared, len(hx), len(hy))
	}
}

package similarity

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixture is a source of testdata/<problem>/: a file copy_X.ext is a
// planted copy of the one whose name starts with X_ (renamed identifiers,
// reordered functions, other comments and layout); every other file is an
// independent solution.
type fixture struct {
	name, copyOf string
	src          Source
}

var extLang = map[string]string{".cpp": "cpp17", ".c": "c17", ".py": "py3", ".java": "java17", ".go": "go"}

func loadFixtures(t testing.TB, problems ...string) []fixture {
	t.Helper()
	var out []fixture
	for _, p := range problems {
		ents, err := os.ReadDir(filepath.Join("testdata", p))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join("testdata", p, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			f := fixture{name: p + "/" + e.Name(), src: Source{Group: p, Owner: int64(len(out) + 1),
				Language: extLang[filepath.Ext(e.Name())], Text: string(b)}}
			if rest, ok := strings.CutPrefix(e.Name(), "copy_"); ok {
				f.copyOf = p + "/" + strings.SplitN(rest, ".", 2)[0] + "_"
			}
			out = append(out, f)
		}
	}
	return out
}

func isCopyPair(fs []fixture, p Pair) bool {
	a, b := fs[p.A], fs[p.B]
	return a.copyOf != "" && strings.HasPrefix(b.name, a.copyOf) || b.copyOf != "" && strings.HasPrefix(a.name, b.copyOf)
}

func TestRankFixtures(t *testing.T) {
	fs := loadFixtures(t, "maxsub", "primes")
	srcs := make([]Source, len(fs))
	copies := 0
	for i, f := range fs {
		srcs[i] = f.src
		if f.copyOf != "" {
			copies++
		}
	}
	res := Rank(srcs, Options{MinShared: 1})
	for i, p := range res.Pairs {
		t.Logf("%2d %-22s %-22s shared %3d score %.3f copy=%v", i+1, fs[p.A].name, fs[p.B].name, p.Shared, p.Score, isCopyPair(fs, p))
	}
	if res.Checked != len(fs) || len(res.Skipped) != 0 {
		t.Fatalf("checked %d, skipped %v", res.Checked, res.Skipped)
	}
	if len(res.Pairs) < copies {
		t.Fatalf("%d pairs, want at least the %d copies", len(res.Pairs), copies)
	}
	minCopy := 1.0
	for i, p := range res.Pairs[:copies] {
		if !isCopyPair(fs, p) {
			t.Errorf("pair %d (%s, %s, score %.3f) is not a planted copy", i+1, fs[p.A].name, fs[p.B].name, p.Score)
		}
		minCopy = min(minCopy, p.Score)
	}
	if minCopy < 0.5 {
		t.Errorf("a planted copy scores %.3f, want at least 0.5", minCopy)
	}
	for _, p := range res.Pairs[copies:] {
		if isCopyPair(fs, p) {
			continue
		}
		// Independent solutions of one problem rank low: far below the
		// copies, and below a fifth of the fingerprints.
		if p.Score > 0.2 || p.Score > minCopy/3 {
			t.Errorf("independent %s and %s score %.3f (copies from %.3f)", fs[p.A].name, fs[p.B].name, p.Score, minCopy)
		}
	}
	for _, p := range res.Pairs {
		if srcs[p.A].Group != srcs[p.B].Group || FamilyOf(srcs[p.A].Language) != FamilyOf(srcs[p.B].Language) {
			t.Errorf("pair across groups or families: %s, %s", fs[p.A].name, fs[p.B].name)
		}
	}
}

func TestRankRules(t *testing.T) {
	body := "int main() { long long s = 0; for (int i = 0; i < 100; i++) { if (i % 3 == 0) s += i * i; else s -= i; } printf(\"%lld\", s); return 0; }"
	other := "#include <cstdio>\nint a[10]; int main() { int n; scanf(\"%d\", &n); while (n--) { int x; scanf(\"%d\", &x); a[x % 10]++; } for (int d = 0; d < 10; d++) printf(\"%d \", a[d]); }"
	for _, c := range []struct {
		name  string
		srcs  []Source
		pairs [][2]int
	}{
		{"same owner is never a pair", []Source{{Group: "p", Owner: 1, Language: "cpp17", Text: body}, {Group: "p", Owner: 1, Language: "cpp20", Text: body}}, nil},
		{"owner 0 is nobody's", []Source{{Group: "p", Language: "cpp17", Text: body}, {Group: "p", Language: "cpp17", Text: body}}, [][2]int{{0, 1}}},
		{"c and c++ are one family", []Source{{Group: "p", Owner: 1, Language: "c17", Text: body}, {Group: "p", Owner: 2, Language: "cpp20", Text: body}}, [][2]int{{0, 1}}},
		{"groups apart", []Source{{Group: "p", Owner: 1, Language: "cpp17", Text: body}, {Group: "q", Owner: 2, Language: "cpp17", Text: body}}, nil},
		{"families apart", []Source{{Group: "p", Owner: 1, Language: "cpp17", Text: body}, {Group: "p", Owner: 2, Language: "java17", Text: body}}, nil},
		{"unknown language skipped", []Source{{Group: "p", Owner: 1, Language: "rust", Text: body}, {Group: "p", Owner: 2, Language: "rust", Text: body}}, nil},
		{"different code", []Source{{Group: "p", Owner: 1, Language: "cpp17", Text: body}, {Group: "p", Owner: 2, Language: "cpp17", Text: other}}, nil},
		{"empty sources", []Source{{Group: "p", Owner: 1, Language: "go"}, {Group: "p", Owner: 2, Language: "go"}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := Rank(c.srcs, Options{})
			var got [][2]int
			for _, p := range res.Pairs {
				got = append(got, [2]int{p.A, p.B})
				if p.Score <= 0 || p.Score > 1 || p.CoverA > 1 || p.CoverB > 1 {
					t.Errorf("pair %+v out of range", p)
				}
			}
			if !slices.Equal(got, c.pairs) {
				t.Errorf("pairs %v, want %v", got, c.pairs)
			}
		})
	}
}

func TestRankBoilerplateIgnored(t *testing.T) {
	// 40 sources share a long template; only two share their own code.
	tmpl := "#include <bits/stdc++.h>\nusing namespace std;\ntypedef long long ll;\nstatic char buf[1<<16]; int bufpos, buflen;\nint readChar() { if (bufpos == buflen) { buflen = fread(buf, 1, sizeof buf, stdin); bufpos = 0; } return bufpos < buflen ? buf[bufpos++] : -1; }\nll readInt() { int c = readChar(); while (c != '-' && (c < '0' || c > '9')) c = readChar(); bool neg = c == '-'; if (neg) c = readChar(); ll x = 0; while (c >= '0' && c <= '9') { x = x * 10 + c - '0'; c = readChar(); } return neg ? -x : x; }\n"
	var srcs []Source
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		srcs = append(srcs, Source{Group: "p", Owner: int64(i + 1), Language: "cpp17", Text: tmpl + genProgram(r)})
	}
	srcs[39].Text = tmpl + srcs[7].Text[len(tmpl):]
	res := Rank(srcs, Options{})
	if len(res.Pairs) == 0 || res.Pairs[0].A != 7 || res.Pairs[0].B != 39 {
		t.Fatalf("first pair %+v, want 7 and 39", res.Pairs)
	}
	if n := len(fingerprintSet(FamilyC, tmpl, DefaultK, DefaultW)); res.Boilerplate < n-3 {
		t.Errorf("%d fingerprints ignored as boilerplate, want the template's %d", res.Boilerplate, n)
	}
	if p := res.Pairs[0]; p.Score < 0.95 {
		t.Errorf("the copy scores %.3f with the template ignored, want about 1", p.Score)
	}
}

func TestCompare(t *testing.T) {
	fs := loadFixtures(t, "maxsub")
	by := map[string]Source{}
	for _, f := range fs {
		by[f.name] = f.src
	}
	a, b := by["maxsub/a_kadane.cpp"], by["maxsub/copy_a.cpp"]
	c := Compare(a, b, Options{})
	if len(c.Regions) < 3 {
		t.Fatalf("%d regions, want the reordered functions (at least 3)", len(c.Regions))
	}
	if c.MatchedA*10 < c.TokensA*7 {
		t.Errorf("regions cover %d of %d tokens of A, want 70%%", c.MatchedA, c.TokensA)
	}
	for i, r := range c.Regions {
		if i > 0 && r.A.Start < c.Regions[i-1].A.End {
			t.Errorf("regions overlap in A: %+v", c.Regions)
		}
		for _, s := range []struct {
			sp  Span
			src string
		}{{r.A, a.Text}, {r.B, b.Text}} {
			if s.sp.Start < 0 || s.sp.End > len(s.src) || s.sp.Start >= s.sp.End || s.sp.LineStart > s.sp.LineEnd {
				t.Fatalf("bad span %+v", s.sp)
			}
		}
	}
	// The kadane function of A is matched with solve() in B.
	ka := strings.Index(a.Text, "Best kadane")
	sb := strings.Index(b.Text, "Answer solve")
	found := false
	for _, r := range c.Regions {
		if r.A.Start <= ka+20 && r.A.End > ka+100 && r.B.Start <= sb+20 && r.B.End > sb+100 {
			found = true
		}
	}
	if !found {
		t.Errorf("kadane() not matched to solve(): %+v", c.Regions)
	}
	if got := Compare(a, by["maxsub/b_divide.cpp"], Options{}); got.MatchedA*5 > got.TokensA {
		t.Errorf("independent solutions match %d of %d tokens", got.MatchedA, got.TokensA)
	}
	if got := Compare(a, by["maxsub/e_kadane.py"], Options{}); len(got.Regions) != 0 {
		t.Errorf("C++ and Python compared: %+v", got.Regions)
	}
	rep := strings.Repeat("x = x + 1;\n", 3000)
	if got := Compare(Source{Language: "c17", Text: rep}, Source{Language: "c17", Text: rep}, Options{}); got.MatchedA != got.TokensA {
		t.Errorf("a repetitive source matched %d of %d tokens with itself", got.MatchedA, got.TokensA)
	}
}

func TestLines(t *testing.T) {
	l := newLines("ab\ncd\n\nef")
	for off, want := range map[int]int{0: 1, 1: 1, 2: 1, 3: 2, 5: 2, 6: 3, 7: 4, 8: 4} {
		if got := l.line(off); got != want {
			t.Errorf("line(%d) = %d, want %d", off, got, want)
		}
	}
}

// genProgram writes a random C++ function body of about 40 lines: the
// synthetic independent solutions of the benchmark.
func genProgram(r *rand.Rand) string {
	vars := []string{"a", "b", "c", "n", "m", "k", "s", "t", "res", "cnt"}
	v := func() string { return vars[r.IntN(len(vars))] }
	var b strings.Builder
	fmt.Fprintf(&b, "int solve%d(int n, vector<int>& a) {\n", r.IntN(1000))
	for range 6 + r.IntN(6) {
		switch r.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "  for (int i = 0; i < %s; i++) %s += a[i] * %d;\n", v(), v(), r.IntN(9))
		case 1:
			fmt.Fprintf(&b, "  if (%s > %s) { %s = %s - %d; } else { %s++; }\n", v(), v(), v(), v(), r.IntN(9), v())
		case 2:
			fmt.Fprintf(&b, "  while (%s < %d && %s != %s) %s = (%s * %d) %% 1000000007;\n", v(), r.IntN(100), v(), v(), v(), v(), r.IntN(99))
		case 3:
			fmt.Fprintf(&b, "  sort(a.begin(), a.end()); %s = a[%s / 2];\n", v(), v())
		case 4:
			fmt.Fprintf(&b, "  vector<long long> dp%d(%s + 1); for (int j = 1; j <= %s; j++) dp%d[j] = max(dp%d[j - 1], (long long)a[j - 1]);\n", r.IntN(9), v(), v(), r.IntN(9), r.IntN(9))
		default:
			fmt.Fprintf(&b, "  printf(\"%%d\\n\", %s + %s * %d);\n", v(), v(), r.IntN(50))
		}
	}
	b.WriteString("  return 0;\n}\nint main() { int n = readInt(); vector<int> a(n); for (auto& x : a) x = readInt(); printf(\"%d\\n\", solve(n, a)); }\n")
	return b.String()
}

// TestRankDenseAndSparseAgree: the map path (large groups) counts as the
// array path does.
func TestRankDenseAndSparseAgree(t *testing.T) {
	srcs := benchSources(t, 300)
	for i := range srcs {
		srcs[i].Owner = int64(i%50 + 1)
	}
	dense := Rank(srcs, Options{MaxPairs: 1000})
	old := denseLimit
	denseLimit = 10
	t.Cleanup(func() { denseLimit = old })
	sparse := Rank(srcs, Options{MaxPairs: 1000})
	if dense.Candidates == 0 || dense.Candidates != sparse.Candidates || !slices.Equal(dense.Pairs, sparse.Pairs) {
		t.Fatalf("dense %d candidates, sparse %d; pairs equal: %v", dense.Candidates, sparse.Candidates, slices.Equal(dense.Pairs, sparse.Pairs))
	}
	for i := 1; i < len(dense.Pairs); i++ {
		if better(dense.Pairs[i-1], dense.Pairs[i]) > 0 {
			t.Fatalf("pairs not sorted at %d", i)
		}
	}
	// The top-k keeps the best: the first 10 of a run limited to 10 are
	// the first 10 of the full run.
	if few := Rank(srcs, Options{MaxPairs: 10}); !slices.Equal(few.Pairs, dense.Pairs[:10]) || few.Candidates != dense.Candidates {
		t.Fatalf("top 10 differ")
	}
}

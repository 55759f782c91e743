package bench

import (
	"strings"
	"testing"
)

func TestParseSimilarityBench(t *testing.T) {
	out := `goos: linux
BenchmarkRank3000-2        	       1	  78508705 ns/op	  31.75 MB/s	     24995 candidate_pairs	         0.07851 s/run	      3000 sources
BenchmarkRank3000NoCut-2   	       1	1524094210 ns/op	   1.64 MB/s	    799528 candidate_pairs	         1.524 s/run	      3000 sources
PASS
`
	rs, err := ParseSimilarityBench(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []SimilarityResult{{"Rank3000", 0.078508705, 3000, 24995, 31.75}, {"Rank3000NoCut", 1.52409421, 3000, 799528, 1.64}}
	if len(rs) != 2 || rs[0] != want[0] || rs[1] != want[1] {
		t.Fatalf("got %+v, want %+v", rs, want)
	}
	if _, err := ParseSimilarityBench(strings.NewReader("PASS\n")); err == nil {
		t.Fatal("no lines: no error")
	}
}

package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
)

// SimilarityResult is one run of webapp/internal/similarity's
// BenchmarkRank3000 (or its NoCut variant): the whole ranking of one
// problem's sources, from their text to the sorted pairs.
type SimilarityResult struct {
	Name       string  // "Rank3000", "Rank3000NoCut"
	Seconds    float64 // per ranking
	Sources    int
	Candidates int
	MBPerSec   float64
}

var simLine = regexp.MustCompile(`^Benchmark(Rank3000\w*)-\d+\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) MB/s)?(.*)$`)
var simMetric = regexp.MustCompile(`([\d.]+) (\w+)`)

// ParseSimilarityBench reads the go test -bench output of
// BenchmarkRank3000*.
func ParseSimilarityBench(r io.Reader) ([]SimilarityResult, error) {
	var out []SimilarityResult
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := simLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseFloat(m[2], 64)
		mb, _ := strconv.ParseFloat(m[3], 64)
		res := SimilarityResult{Name: m[1], Seconds: ns / 1e9, MBPerSec: mb}
		for _, x := range simMetric.FindAllStringSubmatch(m[4], -1) {
			v, _ := strconv.ParseFloat(x[1], 64)
			switch x[2] {
			case "sources":
				res.Sources = int(v)
			case "candidate_pairs":
				res.Candidates = int(v)
			}
		}
		out = append(out, res)
	}
	if len(out) == 0 {
		return nil, errors.New("bench: no BenchmarkRank3000 lines in the go test output")
	}
	return out, sc.Err()
}

// Similarity runs the similarity check's benchmark (3,000 sources of one
// problem) with the go tool in root, three times, and returns the median
// run of each variant (the algorithm is internal to the webapp, so it is
// measured in its own package).
func Similarity(ctx context.Context, root, goBin string) ([]SimilarityResult, error) {
	cmd := exec.CommandContext(ctx, goBin, "test", "-run", "^$", "-bench", "^BenchmarkRank3000", "-benchtime", "1x", "-count", "3", "./webapp/internal/similarity/")
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("bench: go test -bench: %w\n%s", err, out.String())
	}
	rs, err := ParseSimilarityBench(&out)
	if err != nil {
		return nil, err
	}
	var order []string
	by := map[string][]SimilarityResult{}
	for _, r := range rs {
		if _, ok := by[r.Name]; !ok {
			order = append(order, r.Name)
		}
		by[r.Name] = append(by[r.Name], r)
	}
	med := make([]SimilarityResult, 0, len(order))
	for _, n := range order {
		v := by[n]
		slices.SortFunc(v, func(a, b SimilarityResult) int {
			switch {
			case a.Seconds < b.Seconds:
				return -1
			case a.Seconds > b.Seconds:
				return 1
			}
			return 0
		})
		med = append(med, v[(len(v)-1)/2])
	}
	return med, nil
}

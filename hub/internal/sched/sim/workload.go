package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
)

// SizeModel says how job sizes are drawn.
type SizeModel int

const (
	// SizesHeavy: a job's size is a compile step plus the sum of its
	// problem's case run times; per-problem case times are lognormal, each
	// submission scales them by a lognormal factor, and a share of
	// submissions runs every case to the time limit (TLE): a heavy tail.
	SizesHeavy SizeModel = iota
	// SizesExp: exponential sizes of mean 1 and no test data cost (the
	// M/M/c check).
	SizesExp
)

// Workload describes the offered work. Zero fields take the defaults of
// DefaultWorkload.
type Workload struct {
	Sizes SizeModel
	// Problems in the practice catalogue, popularity Zipf(ZipfS) over a
	// random permutation.
	Problems int
	ZipfS    float64
	// CasesMin..CasesMax cases per problem (uniform).
	CasesMin, CasesMax int
	// CaseMedian is the median per-case run time (s) of a problem, with
	// lognormal spread CaseSigma across problems; SubSigma is the spread of
	// a submission's factor; TLEShare of submissions run every case to
	// TimeLimit; Compile is added to every job.
	CaseMedian, CaseSigma, SubSigma, TLEShare, TimeLimit, Compile float64
	// DataMedianMB (lognormal, DataSigma) is a problem's test data size;
	// a download costs DownloadFixed + MB / DownloadMBps seconds.
	DataMedianMB, DataSigma, DownloadFixed, DownloadMBps float64
}

// DefaultWorkload is the workload of every scenario.
func DefaultWorkload() Workload {
	return Workload{
		Sizes: SizesHeavy, Problems: 400, ZipfS: 1.1, CasesMin: 5, CasesMax: 40,
		CaseMedian: 0.08, CaseSigma: 0.8, SubSigma: 0.6, TLEShare: 0.05, TimeLimit: 1, Compile: 0.3,
		DataMedianMB: 15, DataSigma: 1, DownloadFixed: 0.3, DownloadMBps: 50,
	}
}

// Job is one submission of the trace.
type Job struct {
	ID      int
	Arrival float64 // s
	Problem int
	Size    float64 // seconds of work on a core of speed 1
	// Meta, if set, is what the policy sees of the job instead of the
	// generated defaults (submission ID+1, problem index, "cpp", priority
	// 0); its Priority also orders the central queue as the hub's does
	// (higher first, then arrival). Replay sets it.
	Meta *TaskMeta
}

// TaskMeta is a recorded task's identity (see Job.Meta).
type TaskMeta struct {
	SubmissionID, ProblemID int64
	Language                string
	Priority                int
}

// priority is the job's queue priority (0 for generated jobs).
func (j *Job) priority() int {
	if j.Meta != nil {
		return j.Meta.Priority
	}
	return 0
}

// queuedBefore reports whether j goes ahead of o in the central queue:
// higher priority first, then earlier arrival (the hub's queue score).
func (j *Job) queuedBefore(o *Job) bool {
	if pj, po := j.priority(), o.priority(); pj != po {
		return pj > po
	}
	return j.Arrival < o.Arrival
}

// Problem is one problem of the trace.
type Problem struct {
	Cases    int
	CaseTime float64 // median per-case seconds
	Download float64 // seconds to fetch its test data
	Hash     string
}

// Traffic shapes arrivals over time.
type Traffic struct {
	// Rho is the offered load of the practice traffic: arrival rate ×
	// mean size / total capacity (Σ cores × speed).
	Rho float64
	// Start..End is when jobs arrive.
	Start, End float64
	// BurstRank > 0: the problem of that popularity rank gets BurstFactor ×
	// its arrival rate during [BurstAt, BurstAt+BurstLen).
	BurstRank         int
	BurstFactor       float64
	BurstAt, BurstLen float64
	// ContestProblems > 0: a contest of that many new problems (no judge
	// has their data) starts at ContestAt; its submissions arrive at
	// ContestPeak × the practice rate at the start, decaying with time
	// constant ContestTau, until ContestAt + 4 × ContestTau.
	ContestProblems                    int
	ContestAt, ContestPeak, ContestTau float64
}

// Trace is a generated workload: problems and jobs in arrival order.
type Trace struct {
	Problems []Problem
	Jobs     []Job
	// MeanSize is the expected job size of the practice traffic (Monte
	// Carlo); Rate is the practice arrival rate per second.
	MeanSize, Rate float64
	// Hot is the burst problem (-1 if none); Contest lists the contest's
	// problems.
	Hot     int
	Contest []int
}

func lognormal(rng *rand.Rand, median, sigma float64) float64 {
	return median * math.Exp(sigma*rng.NormFloat64())
}

// zipf samples ranks 0..n-1 with P(k) ∝ (k+1)^-s.
type zipf struct{ cdf []float64 }

func newZipf(n int, s float64) zipf {
	z := zipf{cdf: make([]float64, n)}
	sum := 0.0
	for k := range n {
		sum += math.Pow(float64(k+1), -s)
		z.cdf[k] = sum
	}
	for k := range z.cdf {
		z.cdf[k] /= sum
	}
	return z
}

func (z zipf) sample(rng *rand.Rand) int {
	i, _ := slices.BinarySearch(z.cdf, rng.Float64())
	return min(i, len(z.cdf)-1)
}

func (z zipf) share(k int) float64 {
	if k == 0 {
		return z.cdf[0]
	}
	return z.cdf[k] - z.cdf[k-1]
}

func (w *Workload) defaults() {
	d := DefaultWorkload()
	if w.Sizes == SizesExp {
		d.Problems = 1
	}
	if w.Problems <= 0 {
		w.Problems = d.Problems
	}
	if w.ZipfS <= 0 {
		w.ZipfS = d.ZipfS
	}
	if w.CasesMin <= 0 {
		w.CasesMin, w.CasesMax = d.CasesMin, d.CasesMax
	}
	if w.CaseMedian <= 0 {
		w.CaseMedian, w.CaseSigma, w.SubSigma = d.CaseMedian, d.CaseSigma, d.SubSigma
	}
	if w.TimeLimit <= 0 {
		w.TimeLimit, w.TLEShare, w.Compile = d.TimeLimit, d.TLEShare, d.Compile
	}
	if w.DataMedianMB <= 0 {
		w.DataMedianMB, w.DataSigma, w.DownloadFixed, w.DownloadMBps = d.DataMedianMB, d.DataSigma, d.DownloadFixed, d.DownloadMBps
	}
}

func (w *Workload) newProblem(rng *rand.Rand, id int) Problem {
	p := Problem{Hash: "data-" + strconv.Itoa(id)}
	if w.Sizes == SizesExp {
		return p
	}
	p.Cases = w.CasesMin + rng.IntN(w.CasesMax-w.CasesMin+1)
	p.CaseTime = lognormal(rng, w.CaseMedian, w.CaseSigma)
	p.Download = w.DownloadFixed + lognormal(rng, w.DataMedianMB, w.DataSigma)/w.DownloadMBps
	return p
}

func (w *Workload) size(rng *rand.Rand, p *Problem) float64 {
	if w.Sizes == SizesExp {
		return rng.ExpFloat64()
	}
	s := w.Compile
	if rng.Float64() < w.TLEShare {
		return s + float64(p.Cases)*w.TimeLimit
	}
	f := lognormal(rng, 1, w.SubSigma)
	for range p.Cases {
		s += min(w.TimeLimit, p.CaseTime*f*(0.75+0.5*rng.Float64()))
	}
	return s
}

// Generate draws a trace for capacity (Σ cores × speed) from seed.
func Generate(w Workload, tr Traffic, capacity float64, seed uint64) *Trace {
	w.defaults()
	rng := rand.New(rand.NewPCG(seed, 0x77ace))
	t := &Trace{Hot: -1}
	for id := range w.Problems {
		t.Problems = append(t.Problems, w.newProblem(rng, id))
	}
	// Popularity: Zipf over a random permutation of the catalogue.
	perm := rng.Perm(w.Problems)
	z := newZipf(w.Problems, w.ZipfS)
	// Expected size by Monte Carlo on an independent stream.
	mc := rand.New(rand.NewPCG(seed, 0x3ea9))
	const samples = 20000
	for range samples {
		t.MeanSize += w.size(mc, &t.Problems[perm[z.sample(mc)]])
	}
	t.MeanSize /= samples
	t.Rate = tr.Rho * capacity / t.MeanSize

	if tr.BurstRank > 0 {
		t.Hot = perm[tr.BurstRank-1]
	}
	for k := range tr.ContestProblems {
		id := len(t.Problems)
		t.Problems = append(t.Problems, w.newProblem(rng, id))
		_ = k
		t.Contest = append(t.Contest, id)
	}
	// Arrivals: practice (Poisson), the burst's extra arrivals on the hot
	// problem (Poisson), the contest (thinned inhomogeneous Poisson).
	arr := rand.New(rand.NewPCG(seed, 0xa771))
	for at := tr.Start + arr.ExpFloat64()/t.Rate; at < tr.End; at += arr.ExpFloat64() / t.Rate {
		p := perm[z.sample(arr)]
		t.Jobs = append(t.Jobs, Job{Arrival: at, Problem: p, Size: w.size(arr, &t.Problems[p])})
	}
	if t.Hot >= 0 && tr.BurstFactor > 1 {
		extra := t.Rate * z.share(tr.BurstRank-1) * (tr.BurstFactor - 1)
		b := rand.New(rand.NewPCG(seed, 0xb0257))
		end := min(tr.BurstAt+tr.BurstLen, tr.End)
		for at := tr.BurstAt + b.ExpFloat64()/extra; at < end; at += b.ExpFloat64() / extra {
			t.Jobs = append(t.Jobs, Job{Arrival: at, Problem: t.Hot, Size: w.size(b, &t.Problems[t.Hot])})
		}
	}
	if len(t.Contest) > 0 {
		c := rand.New(rand.NewPCG(seed, 0xc0e57))
		cz := newZipf(len(t.Contest), 1)
		peak := tr.ContestPeak * t.Rate
		end := min(tr.ContestAt+4*tr.ContestTau, tr.End)
		for at := tr.ContestAt + c.ExpFloat64()/peak; at < end; at += c.ExpFloat64() / peak {
			if c.Float64() > math.Exp(-(at-tr.ContestAt)/tr.ContestTau) {
				continue
			}
			p := t.Contest[cz.sample(c)]
			t.Jobs = append(t.Jobs, Job{Arrival: at, Problem: p, Size: w.size(c, &t.Problems[p])})
		}
	}
	slices.SortStableFunc(t.Jobs, func(a, b Job) int {
		switch {
		case a.Arrival < b.Arrival:
			return -1
		case a.Arrival > b.Arrival:
			return 1
		}
		return 0
	})
	for i := range t.Jobs {
		t.Jobs[i].ID = i
	}
	return t
}

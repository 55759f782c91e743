package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/verdict-oj/verdict/internal/protocol"
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
	// Languages, if set, draw each submission's language by Share: its
	// Compile replaces Compile and its RunFactor scales the case times.
	// Empty: every submission is "cpp" with Compile.
	Languages []Language
	// Verdicts, if set, draw each submission's verdict by Share and
	// replace TLEShare (see Verdict). Empty: TLEShare of submissions run
	// every case to TimeLimit, the rest pass.
	Verdicts []Verdict
	// ICPCStop: a failing verdict stops at its first failing case (drawn
	// uniformly over the problem's cases), as the judge does under ICPC
	// rules; otherwise every case runs.
	ICPCStop bool
}

// LogNormal is a lognormal distribution by its median and σ.
type LogNormal struct{ Median, Sigma float64 }

// Language is one language of the workload.
type Language struct {
	Name string
	// Share of the submissions (relative); Compile seconds; RunFactor
	// multiplies the case times (0: 1).
	Share, Compile, RunFactor float64
}

// Verdict is one verdict of the workload's mix, with its own compile and
// run time distributions.
type Verdict struct {
	Name  string
	Share float64 // relative
	// Compile, if its median is > 0, replaces the language's compile time.
	Compile LogNormal
	// Run is the submission's factor on its problem's case times; a zero
	// median means median 1, σ SubSigma.
	Run LogNormal
	// Fails: the verdict fails a case (wrong answer, runtime error, time
	// limit), drawn uniformly; with ICPCStop nothing runs after it.
	// TimeLimit: the failing case, and every case after it, runs to the
	// time limit (implies Fails). CompileError: nothing runs.
	Fails, TimeLimit, CompileError bool
}

// extended reports whether the workload uses languages or verdicts (and
// so draws sizes by draw's general path, not the original model's).
func (w *Workload) extended() bool { return len(w.Languages) > 0 || len(w.Verdicts) > 0 }

// pick draws an index by relative shares.
func pick(rng *rand.Rand, n int, share func(int) float64) int {
	sum := 0.0
	for i := range n {
		sum += share(i)
	}
	x := rng.Float64() * sum
	for i := range n {
		if x -= share(i); x < 0 {
			return i
		}
	}
	return n - 1
}

// draw returns a job's size and its language (-1: the default), by the
// original model (size) unless the workload is extended.
func (w *Workload) draw(rng *rand.Rand, p *Problem) (float64, int) {
	size, _, lang := w.drawJob(rng, p)
	return size, lang
}

// drawJob is draw with the compile part of the size.
func (w *Workload) drawJob(rng *rand.Rand, p *Problem) (size, compile float64, lang int) {
	if w.Sizes == SizesExp {
		return w.size(rng, p), 0, -1
	}
	if !w.extended() {
		return w.size(rng, p), w.Compile, -1
	}
	lang, compile = -1, w.Compile
	factor := 1.0
	if len(w.Languages) > 0 {
		lang = pick(rng, len(w.Languages), func(i int) float64 { return w.Languages[i].Share })
		l := w.Languages[lang]
		compile = l.Compile
		if l.RunFactor > 0 {
			factor = l.RunFactor
		}
	}
	v := Verdict{Name: "accepted", Run: LogNormal{1, w.SubSigma}}
	switch {
	case len(w.Verdicts) > 0:
		v = w.Verdicts[pick(rng, len(w.Verdicts), func(i int) float64 { return w.Verdicts[i].Share })]
	case rng.Float64() < w.TLEShare: // the original mix, every case to the limit
		return compile + float64(p.Cases)*w.TimeLimit, compile, lang
	}
	if v.Compile.Median > 0 {
		compile = lognormal(rng, v.Compile.Median, v.Compile.Sigma)
	}
	if v.CompileError || p.Cases == 0 {
		return compile, compile, lang
	}
	n, fail := p.Cases, p.Cases+1
	if v.Fails || v.TimeLimit {
		fail = 1 + rng.IntN(p.Cases)
		if w.ICPCStop {
			n = fail
		}
	}
	run := v.Run
	if run.Median <= 0 {
		run = LogNormal{1, w.SubSigma}
	}
	f := lognormal(rng, run.Median, run.Sigma) * factor
	s := compile
	for k := 1; k <= n; k++ {
		if v.TimeLimit && k >= fail {
			s += w.TimeLimit
			continue
		}
		s += min(w.TimeLimit, p.CaseTime*f*(0.75+0.5*rng.Float64()))
	}
	return s, compile, lang
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
	// Compile is the part of Size spent compiling: a result reports only
	// its cases' run times, so the hub learns speeds from Size − Compile.
	Compile float64
	// Hold is the judge's own time beyond the work (s; speed does not
	// scale it): the slot stays taken that much after the work ends. A
	// replayed trace's held_ms over its work (a loaded judge's timers
	// firing late, its result waiting to be sent); 0 for generated jobs.
	Hold float64
	// Push is the push's way to the judge (s), from the start of the
	// dispatch pass that placed the job to the judge having it: a
	// replayed trace's dispatch_ms − placed_ms. A recorded hub counts the
	// slot taken from that pass's start, and the judge starts the work
	// only once the push arrived. The pass itself is part of it: the
	// simulator's own pass (Config.PassLatency) already kept the slot from
	// other tasks until the pass's end, so the slot stays taken, after
	// the work, for the rest of the way only; and where the simulator's
	// pass ran longer than the recorded way, the work counts from where
	// the push arrived (its start backdated to the pass's start + Push):
	// the slot is taken Push + the work in all, whatever the simulator's
	// own pass took. 0 for generated jobs.
	Push float64
	// Result, when > 0, is how long this job's result takes from leaving
	// its judge to freeing its slot at the hub (s), on whichever judge it
	// runs: a replayed trace's slot_ms, what the hub measured for that
	// very result. Jobs without one take Config's result latency (the
	// window they leave in).
	Result float64
	// Notice, when NoticeKnown, is how long this job's arrival takes to
	// wake the dispatchers (s): a replayed trace's noticed_ms − at_ms,
	// when the hub read that very notice (a stalled hub reads every
	// notice of its stall late, and handles the stall's results late:
	// drawn, the notices would land on other moments). NoticeAfter, when
	// the notice is not known, is how long at least it took: the hub had
	// already placed the task that long after its enqueue when its notice
	// came; the window's draw, but no earlier. Generated jobs have
	// neither (their window's draw, or at once).
	Notice, NoticeAfter float64
	NoticeKnown         bool
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

// priority is the rank of the job's queue priority (protocol.Priority.Rank:
// contest, custom run, practice, rejudge; practice for untagged jobs).
func (j *Job) priority() int {
	if j.Meta != nil {
		return protocol.Priority(j.Meta.Priority).Rank()
	}
	return protocol.PriorityPractice.Rank()
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
	// Periodic: the practice arrivals are evenly spaced (1 / rate)
	// instead of Poisson.
	Periodic bool
	// CustomShare of the practice arrivals are custom runs: one case of
	// the median case time, no test data, custom run priority.
	CustomShare float64
	// Rejudges re-run submissions of a problem at rejudge priority.
	Rejudges []Rejudge
	// Classes tags every job with its priority class (contest, custom run,
	// practice, rejudge; Job.Meta), which orders the central queue as the
	// hub's does. Custom runs, rejudges, languages and a replay imply it.
	Classes bool
	// Replay, if set, replaces the practice arrivals with these jobs; with
	// ScaleToLoad their arrival times are scaled so that their offered
	// load is Rho.
	Replay      []TraceJob
	ScaleToLoad bool
}

// Rejudge is a rejudge of Count submissions of the problem of popularity
// rank Rank (1 = the most popular), arriving evenly over [At, At+Over).
type Rejudge struct {
	At, Over    float64
	Rank, Count int
}

// TraceJob is one submission of a replayed arrival trace: its arrival
// (s), problem (an index into the catalogue), work at speed 1 (s; 0:
// drawn from the workload's model), language ("" the default) and class
// (protocol priority: "practice", "contest", "rejudge" or "custom").
type TraceJob struct {
	// Compile is the part of Work spent compiling (0: unknown, none).
	At, Work, Compile float64
	Problem           int
	Language, Class   string
	// Recorded is the time to verdict the installation recorded (s; 0:
	// not recorded), for comparison only: the simulator does not use it.
	Recorded float64
}

// Classes of a job, by protocol priority name.
var classPriority = map[string]protocol.Priority{
	"practice": protocol.PriorityPractice, "contest": protocol.PriorityContest,
	"rejudge": protocol.PriorityRejudge, "custom": protocol.PriorityCustom,
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
	tagged := tr.Classes || len(w.Languages) > 0 || tr.CustomShare > 0 || len(tr.Rejudges) > 0 || len(tr.Replay) > 0
	custom := -1
	if tr.CustomShare > 0 {
		custom = len(t.Problems)
		t.Problems = append(t.Problems, Problem{Cases: 1, CaseTime: w.CaseMedian})
	}
	// job draws a job of problem p arriving at at, of class class.
	job := func(rng *rand.Rand, at float64, p int, class protocol.Priority) Job {
		size, compile, lang := w.drawJob(rng, &t.Problems[p])
		j := Job{Arrival: at, Problem: p, Size: size, Compile: compile}
		if tagged {
			j.Meta = &TaskMeta{Language: "cpp", Priority: int(class)}
			if lang >= 0 {
				j.Meta.Language = w.Languages[lang].Name
			}
		}
		return j
	}
	// Arrivals: practice (Poisson, or a replay), the burst's extra
	// arrivals on the hot problem (Poisson), the contest (thinned
	// inhomogeneous Poisson), rejudges.
	arr := rand.New(rand.NewPCG(seed, 0xa771))
	gap := func() float64 {
		if tr.Periodic {
			return 1 / t.Rate
		}
		return arr.ExpFloat64() / t.Rate
	}
	if len(tr.Replay) > 0 {
		t.replay(w, tr, capacity, arr, job)
	} else {
		for at := tr.Start + gap(); at < tr.End; at += gap() {
			p := perm[z.sample(arr)]
			class := protocol.PriorityPractice
			if custom >= 0 && arr.Float64() < tr.CustomShare {
				p, class = custom, protocol.PriorityCustom
			}
			t.Jobs = append(t.Jobs, job(arr, at, p, class))
		}
	}
	if t.Hot >= 0 && tr.BurstFactor > 1 {
		extra := t.Rate * z.share(tr.BurstRank-1) * (tr.BurstFactor - 1)
		b := rand.New(rand.NewPCG(seed, 0xb0257))
		end := min(tr.BurstAt+tr.BurstLen, tr.End)
		for at := tr.BurstAt + b.ExpFloat64()/extra; at < end; at += b.ExpFloat64() / extra {
			t.Jobs = append(t.Jobs, job(b, at, t.Hot, protocol.PriorityPractice))
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
			t.Jobs = append(t.Jobs, job(c, at, p, protocol.PriorityContest))
		}
	}
	if len(tr.Rejudges) > 0 {
		r := rand.New(rand.NewPCG(seed, 0x4e7d9e))
		for _, rj := range tr.Rejudges {
			p := perm[min(max(rj.Rank, 1), w.Problems)-1]
			for k := range rj.Count {
				t.Jobs = append(t.Jobs, job(r, rj.At+rj.Over*float64(k)/float64(rj.Count), p, protocol.PriorityRejudge))
			}
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
		j := &t.Jobs[i]
		j.ID = i
		if j.Meta != nil {
			j.Meta.SubmissionID, j.Meta.ProblemID = int64(i+1), int64(j.Problem)
		}
	}
	return t
}

// replay adds the practice arrivals of tr.Replay, scaled to tr.Rho with
// tr.ScaleToLoad, and sets t.Rate and t.MeanSize from them.
func (t *Trace) replay(w Workload, tr Traffic, capacity float64, rng *rand.Rand, job func(*rand.Rand, float64, int, protocol.Priority) Job) {
	var jobs []Job
	work, span := 0.0, 0.0
	for _, r := range tr.Replay {
		class, ok := classPriority[r.Class]
		if !ok {
			class = protocol.PriorityPractice
		}
		p := min(max(r.Problem, 0), w.Problems-1)
		j := job(rng, r.At, p, class)
		if r.Work > 0 {
			j.Size, j.Compile = r.Work, min(r.Compile, r.Work)
		}
		if r.Language != "" {
			j.Meta.Language = r.Language
		}
		work += j.Size
		span = max(span, r.At)
		jobs = append(jobs, j)
	}
	scale := 1.0
	if tr.ScaleToLoad && span > 0 && tr.Rho > 0 {
		scale = work / span / capacity / tr.Rho
	}
	for i := range jobs {
		jobs[i].Arrival = tr.Start + jobs[i].Arrival*scale
	}
	t.Jobs = append(t.Jobs, jobs...)
	t.MeanSize = work / float64(len(jobs))
	if span > 0 {
		t.Rate = float64(len(jobs)) / (span * scale)
	}
}

package simjudge

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// ErrMarker is wrapped by ParseMarker for a sim line it cannot read.
var ErrMarker = errors.New("simjudge: bad sim marker")

// Marker is what a source's sim line asks for:
//
//	// sim: verdict=WA case=3 ms=40
//	# sim: verdict=TLE case=2
//
// The first line (ignoring leading white space) that starts with "// sim:"
// or "# sim:" is the marker; the rest of the source is never looked at.
// Keys: verdict (AC WA TLE MLE OLE RE PE CE SE; default AC), case (the
// first failing case, 1-based, default 1; only with a failing case
// verdict), ms (mean run time of a case in ms before the speed factor;
// default Model.CaseTime).
type Marker struct {
	Verdict protocol.Verdict
	Case    int
	Ms      int64
}

// markerVerdicts are the verdicts a marker may ask for.
var markerVerdicts = map[protocol.Verdict]bool{
	protocol.VerdictAC: true, protocol.VerdictWA: true, protocol.VerdictTLE: true, protocol.VerdictMLE: true,
	protocol.VerdictOLE: true, protocol.VerdictRE: true, protocol.VerdictPE: true, protocol.VerdictCE: true,
	protocol.VerdictSE: true,
}

// ParseMarker finds and reads the sim line of source. Without one it
// returns the zero Marker with Verdict AC and Case 1. Errors wrap
// ErrMarker.
func ParseMarker(source string) (Marker, error) {
	m := Marker{Verdict: protocol.VerdictAC, Case: 1}
	var line string
	found := false
	for l := range strings.Lines(source) {
		l = strings.TrimSpace(l)
		for _, p := range []string{"// sim:", "# sim:"} {
			if rest, ok := strings.CutPrefix(l, p); ok {
				line, found = rest, true
				break
			}
		}
		if found {
			break
		}
	}
	if !found {
		return m, nil
	}
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return m, fmt.Errorf("%w: %q is not key=value", ErrMarker, f)
		}
		switch k {
		case "verdict":
			vd := protocol.Verdict(strings.ToUpper(v))
			if !markerVerdicts[vd] {
				return m, fmt.Errorf("%w: verdict %q (want AC, WA, TLE, MLE, OLE, RE, PE, CE or SE)", ErrMarker, v)
			}
			m.Verdict = vd
		case "case":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return m, fmt.Errorf("%w: case %q (want an integer ≥ 1)", ErrMarker, v)
			}
			m.Case = n
		case "ms":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return m, fmt.Errorf("%w: ms %q (want an integer ≥ 0)", ErrMarker, v)
			}
			m.Ms = n
		default:
			return m, fmt.Errorf("%w: unknown key %q (want verdict, case, ms)", ErrMarker, k)
		}
	}
	return m, nil
}

// Model turns a task into simulated work: the verdict and the time of
// every case. It is a pure function of its fields, the task and the test
// data manifest: the same (Seed, submission id, attempt) always gives the
// same plan, whichever judge draws it and in whatever order.
type Model struct {
	// Speed divides every time: 2.0 is a machine twice as fast. Default 1.
	Speed float64
	// CompileTime is the compile duration before the speed factor (every
	// submission, the same). Default 300 ms.
	CompileTime time.Duration
	// CaseTime is the mean run time of a case before the speed factor when
	// the marker gives no ms. Default 20 ms.
	CaseTime time.Duration
	// Sigma is the spread of the lognormal run time (the standard deviation
	// of its logarithm); its mean stays the marker's ms. Default 0.25;
	// negative: none, every case takes exactly the mean.
	Sigma float64
	// Seed of the per-task random source.
	Seed uint64
}

func (m Model) withDefaults() Model {
	// A negative speed or time counts as zero: the default.
	m.Speed = cmp.Or(max(m.Speed, 0), DefaultSpeed)
	m.CompileTime = cmp.Or(max(m.CompileTime, 0), DefaultCompileTime)
	m.CaseTime = cmp.Or(max(m.CaseTime, 0), DefaultCaseTime)
	switch {
	case m.Sigma == 0:
		m.Sigma = DefaultSigma
	case m.Sigma < 0:
		m.Sigma = 0
	}
	return m
}

// Plan is the simulated outcome of one task.
type Plan struct {
	// Compile is the simulated compile duration (slept by the judge).
	Compile time.Duration
	// Verdict and Score of the submission, as the result reports them.
	Verdict protocol.Verdict
	Score   float64
	// CompileMessage is set for CE and SE.
	CompileMessage string
	// Cases in order, skipped ones included (VerdictSkipped, Time 0). No
	// cases for CE and SE.
	Cases []CasePlan
}

// Work is the whole simulated duration: compile plus every case run.
func (p Plan) Work() time.Duration {
	d := p.Compile
	for _, c := range p.Cases {
		d += c.Time
	}
	return d
}

// CasePlan is one case: what is reported and how long the judge sleeps.
type CasePlan struct {
	Result protocol.CaseResult
	Time   time.Duration
}

// MaxScore is the score of a fully accepted submission.
const MaxScore = 100

// Plan decides the outcome of task t whose test data has manifest man.
//
// The marker (ParseMarker) decides the verdict: cases before its case are
// AC, its case gets its verdict; in ICPC mode the judge stops there (the
// rest SK), in IOI mode the rest run and pass. A case's time is drawn
// from a lognormal with mean ms (or CaseTime), divided by Speed; a drawn
// time above the task's CPU limit is a TLE (reported and slept as the
// limit, like a sandbox that kills the run there), and a TLE asked for by
// the marker takes the limit too. A marker CE or SE ends after the compile
// with no cases; a marker that does not parse is an SE naming the fault.
// The memory reported is 1–2 MiB (MLE: the limit).
func (m Model) Plan(t protocol.Task, man testpkg.Manifest) Plan {
	m = m.withDefaults()
	rng := rand.New(rand.NewPCG(m.Seed, uint64(t.SubmissionID)<<16^uint64(t.Attempt)))
	p := Plan{Compile: scale(m.CompileTime, m.Speed), Cases: []CasePlan{}}
	mk, err := ParseMarker(t.Source)
	if err != nil {
		p.Verdict, p.CompileMessage = protocol.VerdictSE, err.Error()
		return p
	}
	switch mk.Verdict {
	case protocol.VerdictCE:
		p.Verdict, p.CompileMessage = protocol.VerdictCE, "main: simulated compile error (sim: verdict=CE)"
		return p
	case protocol.VerdictSE:
		p.Verdict, p.CompileMessage = protocol.VerdictSE, "simulated system error (sim: verdict=SE)"
		return p
	}
	n := len(man.Cases)
	failAt := 0 // 1-based case the marker fails, 0: none
	if mk.Verdict != protocol.VerdictAC {
		failAt = min(mk.Case, n)
	}
	mean := m.CaseTime
	if mk.Ms > 0 {
		mean = time.Duration(mk.Ms) * time.Millisecond
	}
	limit := time.Duration(t.Limits.TimeMs) * time.Millisecond
	failed := false
	for i := 1; i <= n; i++ {
		cr := protocol.CaseResult{Case: i, Verdict: protocol.VerdictAC, MemoryKiB: 1024 + rng.Int64N(1024)}
		if failed && t.Mode == protocol.ModeICPC {
			cr.Verdict, cr.MemoryKiB = protocol.VerdictSkipped, 0
			p.Cases = append(p.Cases, CasePlan{Result: cr})
			continue
		}
		// Always draw, so that a case's time does not depend on the
		// verdicts before it.
		d := scale(lognormal(rng, mean, m.Sigma), m.Speed)
		if i == failAt {
			cr.Verdict = mk.Verdict
		}
		switch {
		case cr.Verdict == protocol.VerdictTLE, limit > 0 && d > limit:
			cr.Verdict, d = protocol.VerdictTLE, limit
			cr.Message = "CPU time limit exceeded"
		case cr.Verdict == protocol.VerdictMLE:
			cr.MemoryKiB = t.Limits.MemoryKiB
		}
		cr.CPUMs = d.Milliseconds()
		cr.WallMs = cr.CPUMs
		if cr.Verdict != protocol.VerdictAC {
			failed = true
		}
		p.Cases = append(p.Cases, CasePlan{Result: cr, Time: d})
	}
	p.Verdict, p.Score = score(t.Mode, man, p.Cases)
	return p
}

// scale divides d by speed.
func scale(d time.Duration, speed float64) time.Duration {
	return time.Duration(float64(d) / speed)
}

// lognormal draws a duration whose logarithm is normal with standard
// deviation sigma and whose mean is mean.
func lognormal(rng *rand.Rand, mean time.Duration, sigma float64) time.Duration {
	if sigma == 0 {
		return mean
	}
	return time.Duration(float64(mean) * math.Exp(sigma*rng.NormFloat64()-sigma*sigma/2))
}

// score is the real judge's scoring (judge/internal/agent.Score) with
// every case earning all (AC) or nothing. Verdict: AC when every case is,
// else the first that is not. ICPC: MaxScore or 0. IOI without subtasks:
// MaxScore/N per passed case; with subtasks: a subtask's points when all
// its cases pass; cases in no subtask earn nothing. Each case's Score is
// set to its share.
func score(mode protocol.Mode, man testpkg.Manifest, cases []CasePlan) (protocol.Verdict, float64) {
	verdict := protocol.VerdictAC
	for _, c := range cases {
		if c.Result.Verdict != protocol.VerdictAC {
			verdict = c.Result.Verdict
			break
		}
	}
	n := len(cases)
	if n == 0 {
		return verdict, 0
	}
	frac := func(i int) float64 {
		if cases[i].Result.Verdict == protocol.VerdictAC {
			return 1
		}
		return 0
	}
	var total float64
	if mode == protocol.ModeIOI && len(man.Subtasks) > 0 {
		for _, st := range man.Subtasks {
			least := 1.0
			for _, ci := range st.Cases {
				i := ci - 1
				if i < 0 || i >= n {
					least = 0
					continue
				}
				least = math.Min(least, frac(i))
				cases[i].Result.Score = round(frac(i) * float64(st.Points) / float64(len(st.Cases)))
			}
			total += least * float64(st.Points)
		}
	} else {
		for i := range cases {
			cases[i].Result.Score = round(frac(i) * MaxScore / float64(n))
			total += frac(i) * MaxScore / float64(n)
		}
	}
	if mode == protocol.ModeICPC {
		if verdict == protocol.VerdictAC {
			return verdict, MaxScore
		}
		return verdict, 0
	}
	return verdict, round(total)
}

// round keeps three decimals.
func round(v float64) float64 { return math.Round(v*1000) / 1000 }

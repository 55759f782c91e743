package rehearsal

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"net/netip"
	"slices"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// Shape is what a contest looks like, in contest (simulated) time. Plan
// turns it into what every contestant and the staff do, and when.
type Shape struct {
	// Contestants and, among them, NATLab who share one source address.
	Contestants, NATLab int
	// Length of the contest; FreezeLast is the frozen end of it.
	Length, FreezeLast time.Duration
	// Arrival is the window before the start in which contestants log in
	// (most of them in its last minutes); Late of them (a fraction) log in
	// during the first ten minutes instead.
	Arrival time.Duration
	Late    float64
	// PerContestant is the mean number of submissions per contestant.
	PerContestant float64
	// Flash and Rush are the fractions of submissions in the first 20
	// minutes (mostly on the easy problem) and the last 30 minutes.
	Flash, Rush float64
	// Reloads is the mean number of page reloads per contestant; a third
	// of them also reopen the WebSocket.
	Reloads float64
	// Questions is the fraction of contestants who ask a clarification.
	Questions float64
	// Faults adds the fault events (a web node and a judge killed in the
	// rush, Redis restarted once).
	Faults bool
	// Seed makes the plan reproducible.
	Seed uint64
}

// DefaultShape is a 5-hour ICPC-style contest of 3,000 contestants, 300
// of them in one lab behind NAT.
func DefaultShape() Shape {
	return Shape{
		Contestants: 3000, NATLab: 300,
		Length: 5 * time.Hour, FreezeLast: time.Hour,
		Arrival: 15 * time.Minute, Late: 0.03,
		PerContestant: 10, Flash: 0.15, Rush: 0.25,
		Reloads: 6, Questions: 0.03, Seed: 1,
	}
}

// Validate names the first field out of range.
func (s Shape) Validate() error {
	switch {
	case s.Contestants < 1:
		return fmt.Errorf("rehearsal: contestants %d < 1", s.Contestants)
	case s.NATLab < 0 || s.NATLab > s.Contestants:
		return fmt.Errorf("rehearsal: nat lab %d outside 0..%d contestants", s.NATLab, s.Contestants)
	case s.Length < time.Hour:
		return fmt.Errorf("rehearsal: length %v < 1h", s.Length)
	case s.FreezeLast < 0 || s.FreezeLast >= s.Length:
		return fmt.Errorf("rehearsal: freeze %v outside 0..length", s.FreezeLast)
	case s.Arrival <= 0:
		return fmt.Errorf("rehearsal: arrival window %v <= 0", s.Arrival)
	case s.PerContestant <= 0:
		return fmt.Errorf("rehearsal: submissions per contestant %v <= 0", s.PerContestant)
	case s.Flash < 0 || s.Rush < 0 || s.Flash+s.Rush > 1:
		return fmt.Errorf("rehearsal: flash %v + rush %v outside 0..1", s.Flash, s.Rush)
	case s.Late < 0 || s.Late > 1 || s.Questions < 0 || s.Questions > 1 || s.Reloads < 0:
		return fmt.Errorf("rehearsal: late %v, questions %v or reloads %v out of range", s.Late, s.Questions, s.Reloads)
	}
	return nil
}

// Problem is one problem of the rehearsal contest. Its simulated run time
// per case is CaseMs; PAC is the chance a submission is accepted.
type Problem struct {
	Label, Slug, Title string
	Cases, CaseMs      int
	PAC                float64
}

// Problems are the contest's problems, easiest first.
var Problems = []Problem{
	{Label: "A", Slug: "r-sum", Title: "Sum of two", Cases: 10, CaseMs: 5, PAC: 0.6},
	{Label: "B", Slug: "r-paths", Title: "Shortest paths", Cases: 20, CaseMs: 20, PAC: 0.4},
	{Label: "C", Slug: "r-segments", Title: "Segment tree", Cases: 30, CaseMs: 30, PAC: 0.3},
	{Label: "D", Slug: "r-flows", Title: "Flows", Cases: 40, CaseMs: 40, PAC: 0.2},
}

// Languages the contestants write in, with their shares.
var Languages = []struct {
	ID    string
	Share float64
}{{"cpp17", 0.6}, {"py3", 0.25}, {"java17", 0.1}, {"c17", 0.05}}

// Sub is one planned submission: when (contest time), which problem, in
// which language, and the verdict the simulated judges will give it
// (FailCase: the first failing case, 0 for AC and CE).
type Sub struct {
	At       time.Duration
	Problem  int
	Language string
	Verdict  protocol.Verdict
	FailCase int
}

// Contestant is what one contestant does. Login is relative to the start
// (negative: before it).
type Contestant struct {
	Index    int
	Username string
	Addr     netip.Addr
	NAT      bool
	Login    time.Duration
	Subs     []Sub
	Reloads  []Reload
	Question time.Duration // when they ask; < 0: never
}

// Reload is a page reload at At; Socket reopens the WebSocket too.
type Reload struct {
	At     time.Duration
	Socket bool
}

// FaultKind names a fault.
type FaultKind string

// Faults.
const (
	FaultKillWeb    FaultKind = "kill -9 a web node"
	FaultKillJudge  FaultKind = "kill -9 a judge"
	FaultRedis      FaultKind = "restart Redis"
	faultWebDownFor           = 20 * time.Second // real time before the killed web node is started again
)

// Fault is one fault event at contest time At.
type Fault struct {
	At   time.Duration
	Kind FaultKind
}

// StaffPlan is what the staff do, in contest time.
type StaffPlan struct {
	Rejudge        time.Duration
	RejudgeProblem int
	Announce       time.Duration
	// AnswerEvery is how often the staff read the clarifications.
	AnswerEvery time.Duration
}

// Plan is the whole rehearsal contest.
type Plan struct {
	Shape       Shape
	Problems    []Problem
	Contestants []Contestant
	Staff       StaffPlan
	Faults      []Fault
}

// NATAddr is the one source address of the lab behind NAT.
var NATAddr = netip.AddrFrom4([4]byte{127, 1, 0, 1})

// AdminAddr is where the staff browse from.
var AdminAddr = netip.AddrFrom4([4]byte{127, 0, 0, 2})

// ContestantAddr is contestant i's own source address when not in the lab:
// 127.2.x.y, 250 per /24.
func ContestantAddr(i int) netip.Addr {
	return netip.AddrFrom4([4]byte{127, 2 + byte(i/62500), byte(i / 250 % 250), byte(1 + i%250)})
}

// Username is contestant i's login.
func Username(i int) string { return fmt.Sprintf("c%05d", i+1) }

// NewPlan draws the plan of shape s. It is pure: the same shape gives the
// same plan.
func NewPlan(s Shape) (Plan, error) {
	if err := s.Validate(); err != nil {
		return Plan{}, err
	}
	r := rand.New(rand.NewPCG(s.Seed, 0x5eed))
	p := Plan{Shape: s, Problems: Problems}
	L := s.Length
	for i := range s.Contestants {
		c := Contestant{Index: i, Username: Username(i), Addr: ContestantAddr(i), Question: -1}
		if i < s.NATLab {
			c.Addr, c.NAT = NATAddr, true
		}
		// Arrivals rise linearly towards the start: F(x) = ((x+A)/A)².
		if r.Float64() < s.Late {
			c.Login = time.Duration(r.Float64() * float64(10*time.Minute))
		} else {
			c.Login = time.Duration(float64(s.Arrival)*math.Sqrt(r.Float64())) - s.Arrival
		}
		c.Subs = planSubs(r, s, c.Login)
		for range poisson(r, s.Reloads) {
			c.Reloads = append(c.Reloads, Reload{At: max(c.Login, 0) + time.Duration(r.Float64()*float64(L-max(c.Login, 0))), Socket: r.IntN(3) == 0})
		}
		slices.SortFunc(c.Reloads, func(a, b Reload) int { return cmp.Compare(a.At, b.At) })
		if r.Float64() < s.Questions {
			c.Question = 30*time.Minute + time.Duration(r.Float64()*float64(L-time.Hour))
		}
		p.Contestants = append(p.Contestants, c)
	}
	p.Staff = StaffPlan{Rejudge: L * 2 / 5, RejudgeProblem: 1, Announce: L / 2, AnswerEvery: 10 * time.Minute}
	if s.Faults {
		p.Faults = []Fault{
			{At: L - 25*time.Minute, Kind: FaultKillWeb},
			{At: L - 20*time.Minute, Kind: FaultKillJudge},
			{At: L - 12*time.Minute, Kind: FaultRedis},
		}
	}
	return p, nil
}

// planSubs draws one contestant's submissions: their times in the contest's
// shape, then, in time order, a problem among the unsolved ones (the easy
// one in the flash) and a verdict. Nothing is submitted on a solved
// problem, so a contestant may submit fewer than drawn.
func planSubs(r *rand.Rand, s Shape, login time.Duration) []Sub {
	L := s.Length
	n := poisson(r, s.PerContestant)
	times := make([]time.Duration, 0, n)
	for range n {
		u := r.Float64()
		var t time.Duration
		switch {
		case u < s.Flash:
			t = time.Duration(r.Float64() * float64(20*time.Minute))
		case u < s.Flash+s.Rush:
			t = L - 30*time.Minute + time.Duration(r.Float64()*float64(30*time.Minute))
		default:
			t = 20*time.Minute + time.Duration(r.Float64()*float64(L-50*time.Minute))
		}
		times = append(times, max(t, login+time.Minute))
	}
	slices.Sort(times)
	solved := make([]bool, len(Problems))
	var subs []Sub
	for _, t := range times {
		var open []int
		for i, ok := range solved {
			if !ok {
				open = append(open, i)
			}
		}
		if len(open) == 0 {
			break
		}
		pi := open[0]
		if t >= 20*time.Minute && len(open) > 1 {
			pi = open[r.IntN(len(open))]
		}
		pr := Problems[pi]
		sub := Sub{At: t, Problem: pi, Language: pickLanguage(r), Verdict: protocol.VerdictAC}
		if r.Float64() >= pr.PAC {
			switch u := r.Float64(); {
			case u < 0.55:
				sub.Verdict = protocol.VerdictWA
			case u < 0.75:
				sub.Verdict = protocol.VerdictTLE
			case u < 0.9:
				sub.Verdict = protocol.VerdictRE
			default:
				sub.Verdict = protocol.VerdictCE
			}
			if sub.Verdict != protocol.VerdictCE {
				sub.FailCase = 1 + r.IntN(pr.Cases)
			}
		} else {
			solved[pi] = true
		}
		subs = append(subs, sub)
	}
	return subs
}

func pickLanguage(r *rand.Rand) string {
	u := r.Float64()
	for _, l := range Languages {
		if u < l.Share {
			return l.ID
		}
		u -= l.Share
	}
	return Languages[0].ID
}

// poisson draws a Poisson count with mean m (Knuth; m is small).
func poisson(r *rand.Rand, m float64) int {
	if m <= 0 {
		return 0
	}
	l, k, p := math.Exp(-m), 0, 1.0
	for {
		p *= r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// Totals counts what the plan holds.
type Totals struct {
	Submissions, NAT, Reloads, Questions int
	Flash, Middle, Rush                  int // submissions by phase
	ByVerdict                            map[protocol.Verdict]int
	ByLanguage                           map[string]int
}

// Totals counts the plan's submissions by phase, verdict and language.
func (p Plan) Totals() Totals {
	t := Totals{ByVerdict: map[protocol.Verdict]int{}, ByLanguage: map[string]int{}}
	L := p.Shape.Length
	for _, c := range p.Contestants {
		if c.NAT {
			t.NAT++
		}
		t.Reloads += len(c.Reloads)
		if c.Question >= 0 {
			t.Questions++
		}
		for _, s := range c.Subs {
			t.Submissions++
			t.ByVerdict[s.Verdict]++
			t.ByLanguage[s.Language]++
			switch {
			case s.At < 20*time.Minute:
				t.Flash++
			case s.At >= L-30*time.Minute:
				t.Rush++
			default:
				t.Middle++
			}
		}
	}
	return t
}

// Work is the simulated judge time of one submission: the compile, then
// every case until the first failure (ICPC), as package simjudge sleeps it
// at speed 1 without jitter. Plan uses it to size the judges.
func (s Sub) Work(compile time.Duration) time.Duration {
	if s.Verdict == protocol.VerdictCE {
		return compile
	}
	pr := Problems[s.Problem]
	n := pr.Cases
	if s.FailCase > 0 {
		n = s.FailCase
	}
	return compile + time.Duration(n*pr.CaseMs)*time.Millisecond
}

// PeakWork is the most simulated judge time (in judge-seconds per contest
// second) that falls due in any window of the given length.
func (p Plan) PeakWork(window, compile time.Duration) float64 {
	type ev struct {
		at time.Duration
		w  time.Duration
	}
	var evs []ev
	for _, c := range p.Contestants {
		for _, s := range c.Subs {
			evs = append(evs, ev{s.At, s.Work(compile)})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmp.Compare(a.at, b.at) })
	var best, sum time.Duration
	j := 0
	for i := range evs {
		sum += evs[i].w
		for evs[i].at-evs[j].at >= window {
			sum -= evs[j].w
			j++
		}
		best = max(best, sum)
	}
	return best.Seconds() / window.Seconds()
}

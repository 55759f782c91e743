package agent

import (
	"math"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// MaxScore is the score of a fully accepted submission.
const MaxScore = 100

// Score computes the submission verdict and score from its cases (in case
// order, SK for cases not run) and the fraction of each case earned.
//
// Verdict: AC when every case is AC, else the verdict of the first case
// that is not; with the test data's grading rules (m.Grading), theirs
// (testpkg.Grading.Judge). Score, ICPC: MaxScore or 0. Score, IOI without subtasks:
// every case is worth MaxScore/N, times its fraction. IOI with subtasks: a
// subtask earns its points times the smallest fraction among its cases (so
// nothing unless all pass; partial points of a special judge scale it),
// or, a Sum subtask, the sum of its cases' shares when all are accepted;
// cases in no subtask earn nothing. Each case's Score is set to its share:
// fraction × (its subtask's points / the subtask's case count), or
// fraction × MaxScore/N.
func Score(mode protocol.Mode, m testpkg.Manifest, cases []protocol.CaseResult, fractions []float64) (protocol.Verdict, float64) {
	verdict := protocol.VerdictAC
	for _, c := range cases {
		if c.Verdict != protocol.VerdictAC {
			verdict = c.Verdict
			break
		}
	}
	if m.Grading != nil && len(cases) == len(m.Cases) {
		// The ICPC default grader's rules over the test data groups.
		vs := make([]protocol.Verdict, len(cases))
		for i, c := range cases {
			vs[i] = c.Verdict
		}
		verdict, _ = m.Grading.Judge(vs, mode == protocol.ModeIOI)
	}
	frac := func(i int) float64 {
		if i < len(fractions) && i < len(cases) && cases[i].Verdict != protocol.VerdictSkipped {
			return fractions[i]
		}
		return 0
	}
	n := len(cases)
	if n == 0 {
		return verdict, 0
	}
	var total float64
	if mode == protocol.ModeIOI && len(m.Subtasks) > 0 {
		leasts := make([]float64, len(m.Subtasks))
		names, depends, own := make([]string, len(m.Subtasks)), make([][]string, len(m.Subtasks)), make([]bool, len(m.Subtasks))
		for k, st := range m.Subtasks {
			least, sum, accepted := 1.0, 0.0, true
			for _, ci := range st.Cases {
				i := ci - 1
				if i < 0 || i >= n {
					least, accepted = 0, false
					continue
				}
				least = math.Min(least, frac(i))
				sum += frac(i)
				accepted = accepted && cases[i].Verdict == protocol.VerdictAC
				cases[i].Score = round(frac(i) * float64(st.Points) / float64(len(st.Cases)))
			}
			names[k], depends[k], own[k] = st.Name, st.Depends, least >= 1
			leasts[k] = least
			if st.Sum { // every case accepted: the sum of their shares; else nothing
				leasts[k] = 0
				if accepted && len(st.Cases) > 0 {
					leasts[k] = sum / float64(len(st.Cases))
				}
			}
		}
		// A subtask whose dependencies are not all passed in full earns
		// nothing (testpkg.Subtask.Depends).
		for k, met := range testpkg.DependsMet(names, depends, own) {
			if met {
				total += leasts[k] * float64(m.Subtasks[k].Points)
			}
		}
	} else {
		for i := range cases {
			cases[i].Score = round(frac(i) * MaxScore / float64(n))
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

// CaseScore is the score Score gives case i (0-based) that earned
// fraction frac, known as soon as the case is judged: progress carries it,
// so a browser shows each case's score as it arrives.
func CaseScore(mode protocol.Mode, m testpkg.Manifest, i int, frac float64) float64 {
	if mode == protocol.ModeIOI && len(m.Subtasks) > 0 {
		share := 0.0
		for _, st := range m.Subtasks {
			for _, ci := range st.Cases {
				if ci == i+1 {
					share = float64(st.Points) / float64(len(st.Cases))
				}
			}
		}
		return round(frac * share)
	}
	if len(m.Cases) == 0 {
		return 0
	}
	return round(frac * MaxScore / float64(len(m.Cases)))
}

// withScore is c with its score set.
func withScore(c protocol.CaseResult, score float64) protocol.CaseResult {
	c.Score = score
	return c
}

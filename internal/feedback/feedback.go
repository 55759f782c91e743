package feedback

import (
	"math"
	"slices"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// GenericSystemError is what a contestant reads instead of a system
// error's detail.
const GenericSystemError = "system error: the judges could not judge this submission; the organisers can see why and rejudge it"

// Viewer is who looks at a submission.
type Viewer int

// Viewers, from the least to the most entitled.
const (
	Anonymous Viewer = iota // not logged in
	Other                   // logged in, not the owner, not staff
	Owner                   // the submission's author (not staff)
	Staff                   // admins and setters: everything
)

// String names the viewer (for tests and logs).
func (v Viewer) String() string {
	switch v {
	case Anonymous:
		return "anonymous"
	case Other:
		return "other"
	case Owner:
		return "owner"
	case Staff:
		return "staff"
	}
	return "viewer?"
}

// Phase is where the submission's contest is in time.
type Phase int

// Phases. Practice submissions are always Ended.
const (
	Running Phase = iota // before the contest's end
	Ended                // after it, or no contest
)

// PhaseAt is the phase of a submission with rule fb at now: Running
// before fb.EndsAtMs, Ended after it or when there is no end.
func PhaseAt(fb protocol.Feedback, now time.Time) Phase {
	if fb.EndsAtMs > 0 && now.UnixMilli() < fb.EndsAtMs {
		return Running
	}
	return Ended
}

// Result is a submission's result, as judged (MySQL) or as far as judged
// (the live state). TimeMs and MemoryKiB are the submission's totals
// (the largest of its cases).
type Result struct {
	Status         protocol.Verdict
	Score          float64
	TimeMs         int64
	MemoryKiB      int64
	CompileMessage string
	Cases          []protocol.CaseResult
}

// Shown is what a viewer may see of a Result: the Result with what is
// held back removed, and how it was decided.
type Shown struct {
	Result
	// Policy is the policy applied: FeedbackClosed only while the results
	// are hidden (then Hidden is true); after the contest the after-policy.
	// Empty for staff (nothing held back).
	Policy protocol.FeedbackPolicy
	// Hidden: the results are hidden until the contest ends; Status is
	// pending (or CE), Score, the totals and the cases are zero.
	Hidden bool
	// FirstFailure is the first failing case's number under the
	// first_failure policy, 0 when none failed (or another policy).
	FirstFailure int
	// Subtasks are the subtasks' scores (fb.Subtasks, from the cases)
	// under the policies that show scores (full, score_only) and to
	// staff; nil under the others, without subtasks, or without cases.
	Subtasks []protocol.SubtaskScore
}

// View returns what viewer v may see of result r of a submission whose
// feedback rule is fb, in contest phase ph. It never changes r. An unknown
// or empty policy is applied as first_failure, which shows no message and
// no case data.
func View(fb protocol.Feedback, v Viewer, ph Phase, r Result) Shown {
	if v == Staff {
		r.Cases = slices.Clone(r.Cases)
		slices.SortFunc(r.Cases, func(a, b protocol.CaseResult) int { return a.Case - b.Case })
		return Shown{Result: r, Subtasks: Subtasks(fb.Subtasks, r.Cases)}
	}
	pol := fb.Policy
	if pol == protocol.FeedbackClosed && ph == Ended {
		pol = fb.After
		if pol == "" {
			pol = protocol.FeedbackFull
		}
	}
	if !pol.Valid() || (pol == protocol.FeedbackClosed && fb.Policy != protocol.FeedbackClosed) {
		pol = protocol.FeedbackFirstFailure
	}
	owner := v == Owner
	out := Shown{Policy: pol}
	if pol == protocol.FeedbackClosed {
		out.Hidden = true
		out.Status = protocol.VerdictPending
		if r.Status == protocol.VerdictCE {
			out.Status = protocol.VerdictCE
			if owner {
				out.CompileMessage = r.CompileMessage
			}
		}
		return out
	}
	out.Status, out.Score, out.TimeMs, out.MemoryKiB = r.Status, r.Score, r.TimeMs, r.MemoryKiB
	if owner {
		out.CompileMessage = r.CompileMessage
		if r.Status == protocol.VerdictSE {
			out.CompileMessage = GenericSystemError
		}
	}
	cases := slices.Clone(r.Cases)
	slices.SortFunc(cases, func(a, b protocol.CaseResult) int { return a.Case - b.Case })
	switch pol {
	case protocol.FeedbackFull:
		for i := range cases {
			if !owner || cases[i].Verdict == protocol.VerdictSE || !slices.Contains(fb.Samples, cases[i].Case) {
				cases[i].Message = ""
			}
		}
		out.Subtasks = Subtasks(fb.Subtasks, cases)
	case protocol.FeedbackScoreOnly:
		for i := range cases {
			cases[i].Message = ""
		}
		out.Subtasks = Subtasks(fb.Subtasks, cases)
	case protocol.FeedbackFirstFailure:
		// The cases passed before the first failure and the failure, their
		// verdicts only: the unbroken run of cases from case 1, up to and
		// including the first one not accepted. A case after a gap (not
		// judged yet, live) or after a skipped case is not shown, so what
		// is shown only grows as cases arrive, in any order and in any
		// batches, and equals at every moment what the whole result shows
		// (see Event): a judge that runs every case (IOI mode) never
		// reveals a case after the first failure, and a failure judged
		// out of order never passes for the first.
		kept := cases[:0]
		for i, c := range cases {
			if c.Case != i+1 || c.Verdict == protocol.VerdictSkipped {
				break
			}
			kept = append(kept, protocol.CaseResult{Case: c.Case, Verdict: c.Verdict})
			if c.Verdict != protocol.VerdictAC {
				out.FirstFailure = c.Case
				break
			}
		}
		cases = kept
	}
	if len(cases) > 0 {
		out.Cases = cases
	}
	return out
}

// State applies View to a whole live submission state: the snapshot a
// hub sends on subscribe, and the body of a status event (which has no
// cases). A cases event holds only the new cases: censor it with Event.
func State(fb protocol.Feedback, v Viewer, ph Phase, st protocol.SubmissionState) protocol.SubmissionState {
	return stateOf(st, View(fb, v, ph, Result{Status: st.Status, Score: st.Score, CompileMessage: st.CompileMessage, Cases: st.Cases}))
}

// Event applies View to a live cases event: st holds the event's new
// cases, prior the cases the live state held before them. The answer's
// cases are those View shows of prior and the new cases together that it
// did not show of prior alone; its FirstFailure and Subtasks are those of
// the whole. What View shows only grows as cases are added (see the
// first_failure rule), so the snapshot's cases with every later event's
// appended are exactly View of the whole state: the same cases, first
// failure and subtask scores as the REST answer for the same result,
// however the judge's progress was split into batches.
func Event(fb protocol.Feedback, v Viewer, ph Phase, prior []protocol.CaseResult, st protocol.SubmissionState) protocol.SubmissionState {
	all := make([]protocol.CaseResult, 0, len(prior)+len(st.Cases))
	all = append(append(all, prior...), st.Cases...)
	r := Result{Status: st.Status, Score: st.Score, CompileMessage: st.CompileMessage, Cases: all}
	whole := View(fb, v, ph, r)
	r.Cases = prior
	before := View(fb, v, ph, r)
	shown := make(map[int]bool, len(before.Cases))
	for _, c := range before.Cases {
		shown[c.Case] = true
	}
	fresh := whole.Cases[:0:0]
	for _, c := range whole.Cases {
		if !shown[c.Case] {
			fresh = append(fresh, c)
		}
	}
	whole.Cases = nil
	if len(fresh) > 0 {
		whole.Cases = fresh
	}
	return stateOf(st, whole)
}

func stateOf(st protocol.SubmissionState, sh Shown) protocol.SubmissionState {
	return protocol.SubmissionState{SubmissionID: st.SubmissionID, Status: sh.Status, Score: sh.Score,
		CompileMessage: sh.CompileMessage, Cases: sh.Cases, Feedback: sh.Policy, Subtasks: sh.Subtasks,
		FirstFailure: sh.FirstFailure}
}

// Subtasks scores each subtask of rules from cases (any order; a case not
// in cases is not judged yet), as the judge scores an IOI-mode problem
// (judge/internal/agent.Score): a subtask earns its points times the
// smallest fraction any of its cases earned, a case's fraction being its
// score over its share of the subtask's points (points / case count),
// or, for a subtask worth nothing, 1 when accepted. A subtask with a case
// not judged yet scores 0 and has no verdict unless one of its judged
// cases failed. Nil without rules or without cases.
func Subtasks(rules []protocol.SubtaskRule, cases []protocol.CaseResult) []protocol.SubtaskScore {
	if len(rules) == 0 || len(cases) == 0 {
		return nil
	}
	byCase := make(map[int]protocol.CaseResult, len(cases))
	for _, c := range cases {
		byCase[c.Case] = c
	}
	out := make([]protocol.SubtaskScore, 0, len(rules))
	names, depends, own := make([]string, len(rules)), make([][]string, len(rules)), make([]bool, len(rules))
	for k, st := range rules {
		idx := slices.Sorted(slices.Values(st.Cases))
		sc := protocol.SubtaskScore{Name: st.Name, Points: st.Points, Cases: idx}
		complete, least, sum := true, 1.0, 0.0
		for _, i := range idx {
			c, ok := byCase[i]
			if !ok {
				complete = false
				continue
			}
			if c.Verdict != protocol.VerdictAC && sc.Verdict == "" {
				sc.Verdict = c.Verdict
			}
			least = min(least, fraction(c, st))
			sum += fraction(c, st)
		}
		if complete {
			if sc.Verdict == "" {
				sc.Verdict = protocol.VerdictAC
			}
			earned := least
			if st.Sum { // the sum of the cases' shares, only when all are accepted
				earned = 0
				if sc.Verdict == protocol.VerdictAC && len(idx) > 0 {
					earned = sum / float64(len(idx))
				}
			}
			if len(idx) > 0 {
				sc.Score = math.Round(earned*float64(st.Points)*1000) / 1000
			}
		}
		names[k], depends[k], own[k] = st.Name, st.Depends, complete && least >= 1
		out = append(out, sc)
	}
	// A subtask whose dependencies are not all passed in full scores
	// nothing (protocol.SubtaskRule.Depends), as the judge scores it.
	for k, met := range testpkg.DependsMet(names, depends, own) {
		if !met {
			out[k].Score = 0
		}
	}
	return out
}

// fraction is the share of its subtask's points case c earned, 0..1.
func fraction(c protocol.CaseResult, st protocol.SubtaskRule) float64 {
	if c.Verdict == protocol.VerdictSkipped || c.Verdict == protocol.VerdictSE {
		return 0
	}
	if st.Points <= 0 || len(st.Cases) == 0 {
		if c.Verdict == protocol.VerdictAC {
			return 1
		}
		return 0
	}
	share := float64(st.Points) / float64(len(st.Cases))
	if c.Score >= share-0.0006 {
		return 1 // the judge rounds scores to three decimals: 10/3 is 3.333
	}
	return max(0, c.Score/share)
}

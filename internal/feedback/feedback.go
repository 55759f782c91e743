package feedback

import (
	"slices"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
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
}

// View returns what viewer v may see of result r of a submission whose
// feedback rule is fb, in contest phase ph. It never changes r. An unknown
// or empty policy is applied as first_failure, which shows no message and
// no case data.
func View(fb protocol.Feedback, v Viewer, ph Phase, r Result) Shown {
	if v == Staff {
		r.Cases = slices.Clone(r.Cases)
		return Shown{Result: r}
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
	case protocol.FeedbackScoreOnly:
		for i := range cases {
			cases[i].Message = ""
		}
	case protocol.FeedbackFirstFailure:
		// The cases passed before the first failure and the failure, their
		// verdicts only. Skipped cases (after a failure, by definition)
		// are dropped, so a live event carrying only them says nothing;
		// a judge that runs every case (an IOI-mode problem) may still
		// show a later batch's verdicts live, never its data or messages.
		kept := cases[:0]
		for _, c := range cases {
			if c.Verdict == protocol.VerdictSkipped {
				continue
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

// State applies View to a live submission state: the snapshot a hub sends
// on subscribe and the body of every event of a submission or a user
// channel (an event's cases are the new ones only).
func State(fb protocol.Feedback, v Viewer, ph Phase, st protocol.SubmissionState) protocol.SubmissionState {
	sh := View(fb, v, ph, Result{Status: st.Status, Score: st.Score, CompileMessage: st.CompileMessage, Cases: st.Cases})
	return protocol.SubmissionState{SubmissionID: st.SubmissionID, Status: sh.Status, Score: sh.Score,
		CompileMessage: sh.CompileMessage, Cases: sh.Cases, Feedback: sh.Policy}
}

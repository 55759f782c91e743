package protocol

import (
	"errors"
	"fmt"
	"slices"
)

// FeedbackPolicy says what a contestant may see of a submission's result
// (a contest's setting, or a problem's default for practice). Staff see
// everything under every policy; internal/feedback applies the policies.
type FeedbackPolicy string

// Feedback policies.
const (
	// FeedbackFull: every case's verdict, time, memory and score; checker
	// messages only of sample cases.
	FeedbackFull FeedbackPolicy = "full"
	// FeedbackFirstFailure (ICPC style): the final verdict, and the first
	// failing case's number and verdict; no messages, no times per case.
	FeedbackFirstFailure FeedbackPolicy = "first_failure"
	// FeedbackScoreOnly (IOI style): the score, per-case verdicts and
	// scores without messages.
	FeedbackScoreOnly FeedbackPolicy = "score_only"
	// FeedbackClosed (OI style): "submitted" only until the contest ends
	// (status pending, nothing else but a compile error); then the
	// contest's after-policy.
	FeedbackClosed FeedbackPolicy = "closed"
)

// FeedbackPolicies lists the policies in the order forms show them.
var FeedbackPolicies = []FeedbackPolicy{FeedbackFull, FeedbackFirstFailure, FeedbackScoreOnly, FeedbackClosed}

// Valid reports whether p is a known policy.
func (p FeedbackPolicy) Valid() bool {
	switch p {
	case FeedbackFull, FeedbackFirstFailure, FeedbackScoreOnly, FeedbackClosed:
		return true
	}
	return false
}

// Feedback is the feedback rule of one submission, as the web node decides
// it when it enqueues the submission (queue.Task.Feedback) and as the hub
// reads it back with the submission's live state, to censor what it pushes
// to browsers that are not staff.
type Feedback struct {
	Policy FeedbackPolicy `json:"policy"`
	// After is the policy once the contest ended (Policy closed only);
	// empty means full.
	After FeedbackPolicy `json:"after,omitempty"`
	// EndsAtMs is the end of the submission's contest, Unix milliseconds
	// (Policy closed only): before it the results stay hidden.
	EndsAtMs int64 `json:"ends_at_ms,omitempty"`
	// Samples are the 1-based indexes of the sample cases of the test
	// data the submission is judged on: only their checker messages may
	// ever reach a contestant.
	Samples []int `json:"samples,omitempty"`
	// StatusPublic: the submission's verdict may be listed to everyone
	// on the status pages, through this policy as seen by another
	// contestant: a contest submission whose contest is visible with
	// status_visibility "all", or a practice submission of a public
	// problem. The hub forwards ChannelStatus events (the site's and a
	// contest's) to browsers that are not staff only when it is set.
	StatusPublic bool `json:"status_public,omitempty"`
	// Subtasks are the subtasks of the test data the submission is judged
	// on (its manifest's, IOI-mode problems only): the policies that show
	// scores show each subtask's (SubtaskScore).
	Subtasks []SubtaskRule `json:"subtasks,omitempty"`
}

// SubtaskRule is one subtask of a test data package: its name, its points
// and its cases (1-based indexes).
type SubtaskRule struct {
	Name   string `json:"name"`
	Points int    `json:"points"`
	Cases  []int  `json:"cases"`
	// Depends: the subtasks that must be passed in full for this one to
	// score (testpkg.Subtask.Depends).
	Depends []string `json:"depends,omitempty"`
	// Sum: the subtask scores the sum of its cases' shares when every
	// case is accepted, else nothing (testpkg.Subtask.Sum).
	Sum bool `json:"sum,omitempty"`
}

// SubtaskScore is one subtask's result as a viewer may see it (computed
// by internal/feedback from the case results).
type SubtaskScore struct {
	Name   string `json:"name"`
	Points int    `json:"points"`
	// Score is the points earned: Points times the smallest fraction any
	// of its cases earned (so nothing unless every case passes; a special
	// judge's partial points scale it). 0 until every case is judged.
	Score float64 `json:"score"`
	// Verdict is AC once every case passed, the first failing case's
	// verdict (by index) once one failed; empty while cases are missing
	// and none failed.
	Verdict Verdict `json:"verdict,omitempty"`
	// Cases are the subtask's cases (1-based indexes).
	Cases []int `json:"cases"`
}

// Validate checks the policies.
func (f Feedback) Validate() error {
	var errs []error
	if !f.Policy.Valid() {
		errs = append(errs, fmt.Errorf("feedback policy %q unknown", f.Policy))
	}
	if f.After != "" && (!f.After.Valid() || f.After == FeedbackClosed) {
		errs = append(errs, fmt.Errorf("feedback after-policy %q: want full, first_failure or score_only", f.After))
	}
	for _, c := range f.Samples {
		if c < 1 {
			errs = append(errs, errors.New("feedback sample case < 1"))
			break
		}
	}
	for _, st := range f.Subtasks {
		if st.Points < 0 || slices.ContainsFunc(st.Cases, func(c int) bool { return c < 1 }) {
			errs = append(errs, fmt.Errorf("feedback subtask %q: points < 0 or a case < 1", st.Name))
			break
		}
	}
	return errors.Join(errs...)
}

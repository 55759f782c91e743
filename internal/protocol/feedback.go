package protocol

import (
	"errors"
	"fmt"
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
	// on its contest's status page (the contest is visible and its
	// status_visibility is "all"), through this policy as seen by another
	// contestant. The hub forwards a contest's ChannelStatus events to
	// browsers that are not staff only when it is set.
	StatusPublic bool `json:"status_public,omitempty"`
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
	return errors.Join(errs...)
}

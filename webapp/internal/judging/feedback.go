package judging

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/verdict-oj/verdict/internal/feedback"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// RuleOf is a submission's feedback rule without its sample cases, from
// the policies joined into its row: its contest's policy (with the
// after-policy and the contest's end, and whether its status page lists
// everyone's verdicts) or, in practice, its problem's (and whether the
// problem is public, so that everyone may list it).
func RuleOf(sub *store.Submission) protocol.Feedback {
	if sub.ContestID.Valid {
		fb := protocol.Feedback{Policy: protocol.FeedbackPolicy(sub.ContestFeedback.String), StatusPublic: statusPublic(sub)}
		if fb.Policy == protocol.FeedbackClosed {
			fb.After = protocol.FeedbackPolicy(sub.ContestFeedbackAfter.String)
			if sub.ContestEndAt.Valid {
				fb.EndsAtMs = sub.ContestEndAt.Time.UnixMilli()
			}
		}
		return fb
	}
	// Practice on a public problem: everyone may list it (CanSee), the
	// hub forwards its status to every status page live.
	return protocol.Feedback{Policy: protocol.FeedbackPolicy(sub.ProblemFeedback), StatusPublic: sub.Visibility == store.VisibilityPublic}
}

// FeedbackOf is a submission's whole feedback rule: RuleOf, the sample
// cases of the test data it is judged on and, for an IOI-mode problem,
// that data's subtasks (read once per version and ContestCacheTTL: a
// version's manifest never changes, the problem's mode may).
func (s *Service) FeedbackOf(ctx context.Context, sub *store.Submission) (protocol.Feedback, error) {
	rule, err := s.testdataRule(ctx, sub)
	if err != nil {
		return RuleOf(sub), fmt.Errorf("judging: feedback of %d: %w", sub.ID, err)
	}
	return feedbackWith(sub, rule), nil
}

// feedbackWith is FeedbackOf with the rule of sub's test data read.
func feedbackWith(sub *store.Submission, rule store.TestdataRule) protocol.Feedback {
	fb := RuleOf(sub)
	fb.Samples = rule.Samples
	if rule.Mode == store.ModeIOI {
		for _, st := range rule.Subtasks {
			fb.Subtasks = append(fb.Subtasks, protocol.SubtaskRule{Name: st.Name, Points: st.Points, Cases: st.Cases, Depends: st.Depends, Sum: st.Sum})
		}
	}
	return fb
}

// testdataRule is the TestdataRule of sub's test data version, from a
// short-lived cache (none without test data).
func (s *Service) testdataRule(ctx context.Context, sub *store.Submission) (store.TestdataRule, error) {
	if !sub.TestdataHash.Valid {
		return store.TestdataRule{}, nil
	}
	return s.testdataRuleOf(ctx, sub.ProblemID, sub.TestdataHash.String)
}

// testdataRuleOf is the TestdataRule of a problem's test data version
// hash (not empty), from the short-lived cache.
func (s *Service) testdataRuleOf(ctx context.Context, problemID int64, hash string) (store.TestdataRule, error) {
	key := strconv.FormatInt(problemID, 10) + "/" + hash
	if v, ok := s.samples.Load(key); ok && time.Since(v.(cachedRule).at) < s.cfg.ContestCacheTTL {
		return v.(cachedRule).rule, nil
	}
	rule, err := s.st.TestdataRuleOf(ctx, problemID, hash)
	if err != nil {
		return rule, err
	}
	s.samples.Store(key, cachedRule{rule: rule, at: time.Now()})
	return rule, nil
}

// cachedRule is a test data version's rule as FeedbackOf read it.
type cachedRule struct {
	rule store.TestdataRule
	at   time.Time
}

// ViewerOf is who u (nil: not logged in) is to sub's results.
func ViewerOf(u *store.User, sub *store.Submission) feedback.Viewer {
	switch {
	case u == nil:
		return feedback.Anonymous
	case u.IsStaff():
		return feedback.Staff
	case u.ID == sub.UserID:
		return feedback.Owner
	}
	return feedback.Other
}

// Visible is what viewer v may see at now of a submission row and its
// cases (nil for a list row): feedback.View over what MySQL holds. Every
// REST answer that shows a result goes through it; the hub applies the
// same feedback.View to the live channels.
func Visible(fb protocol.Feedback, v feedback.Viewer, now time.Time, sub *store.Submission, cases []store.SubmissionCase) feedback.Shown {
	r := feedback.Result{Status: protocol.Verdict(sub.Verdict), Score: sub.Score,
		TimeMs: sub.TimeMs.Int64, MemoryKiB: sub.MemoryKB.Int64, CompileMessage: sub.CompileMessage.String}
	for _, c := range cases {
		r.Cases = append(r.Cases, protocol.CaseResult{Case: c.Index, Verdict: protocol.Verdict(c.Verdict),
			CPUMs: c.TimeMs, MemoryKiB: c.MemoryKB, Score: c.Score, Message: c.Message})
	}
	return feedback.View(fb, v, feedback.PhaseAt(fb, now), r)
}

// RefreshFeedback rewrites the feedback rules the hub keeps with the live
// states of a contest's submissions, after its policy, after-policy, end,
// visibility or status page setting changed: a closed contest whose end moved later must not be shown as
// ended live from its old end on.
func (s *Service) RefreshFeedback(ctx context.Context, contestID int64) error {
	subs, err := s.st.ContestSubmissions(ctx, contestID)
	if err != nil {
		return fmt.Errorf("judging: refresh feedback of contest %d: %w", contestID, err)
	}
	rules := make(map[int64]protocol.Feedback, len(subs))
	for i := range subs {
		fb, err := s.FeedbackOf(ctx, &subs[i])
		if err != nil {
			return err
		}
		rules[subs[i].ID] = fb
	}
	if err := s.q.SetFeedbacks(ctx, rules); err != nil {
		return fmt.Errorf("judging: refresh feedback of contest %d: %w", contestID, err)
	}
	return nil
}

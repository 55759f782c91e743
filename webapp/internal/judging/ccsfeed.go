package judging

import (
	"context"
	"errors"

	"github.com/verdict-oj/verdict/webapp/internal/ccs"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// feedSubmission appends a contest submission's current state to the
// contest's Contest API feed (ccs.Feed): pending, a new submission or
// attempt; final, the attempt's judgement with its cases. Staff testing
// unregistered are left out, as on the board. Called wherever the board
// is (UpdateBoard), so every result the consumer writes reaches the feed
// before it is acknowledged; a duplicate is harmless (the same object
// again).
func (s *Service) feedSubmission(ctx context.Context, st *store.Store, c *store.Contest, sub *store.Submission, cases []store.SubmissionCase) error {
	listed, err := s.participantsFrom(ctx, st, c.ID, func(yield func(int64) bool) { yield(sub.UserID) })
	if err != nil {
		return err
	}
	if !listed[sub.UserID] {
		return nil
	}
	f := ccs.Fact{Kind: ccs.FactSubmission, SubmissionID: sub.ID, Attempt: sub.Attempt, UserID: sub.UserID,
		Username: sub.Username, DisplayName: sub.DisplayName, ProblemID: sub.ProblemID, Language: sub.Language,
		At: sub.CreatedAt.UnixMilli(), Event: s.cfg.Now().UnixMilli()}
	if c.TeamMode {
		if !sub.TeamID.Valid {
			return nil // staff testing in a team contest: off the board and the feed
		}
		f.Team, f.TeamName = sub.TeamExtID.String, sub.TeamName.String
		if f.TeamHidden, err = st.TeamHidden(ctx, sub.TeamID.Int64); err != nil {
			return err
		}
	}
	if sub.Final() {
		f.Kind, f.Verdict = ccs.FactJudgement, sub.Verdict
		if sub.JudgedAt.Valid {
			f.JudgedAt = sub.JudgedAt.Time.UnixMilli()
		}
		if cases == nil {
			if cases, err = st.SubmissionCases(ctx, sub.ID); err != nil {
				return err
			}
		}
		for _, cs := range cases {
			f.Cases = append(f.Cases, ccs.Case{Index: cs.Index, Verdict: cs.Verdict, TimeMs: cs.TimeMs})
		}
	}
	_, err = ccs.NewFeed(s.rdb, s.n).Append(ctx, c.ID, f)
	return err
}

// FeedThaw appends a thaw to a contest's feed (after an unfreeze): public
// feed readers then get the judgements the freeze held back.
func (s *Service) FeedThaw(ctx context.Context, contestID int64) error {
	_, err := ccs.NewFeed(s.rdb, s.n).Append(ctx, contestID, ccs.Fact{Kind: ccs.FactThaw, Event: s.cfg.Now().UnixMilli()})
	return err
}

// feedChanged appends a contest submission whose outcome changed outside
// the results stream (a jury override) to its contest's feed.
func (s *Service) feedChanged(ctx context.Context, sub *store.Submission) error {
	if !sub.ContestID.Valid {
		return nil
	}
	c, err := s.contest(ctx, sub.ContestID.Int64)
	if err != nil {
		return err
	}
	return s.feedSubmission(ctx, s.st, &c, sub, nil)
}

// FeedClarification appends a clarification (asked, answered or
// announced) to its contest's feed.
func (s *Service) FeedClarification(ctx context.Context, cl *store.Clarification) error {
	f := ccs.Fact{Kind: ccs.FactClarification, Clar: cl, Event: s.cfg.Now().UnixMilli()}
	if cl.UserID.Valid { // a team contest's clarifications are the asker's team's
		c, err := s.contest(ctx, cl.ContestID)
		if err != nil {
			return err
		}
		if c.TeamMode {
			t, err := s.st.TeamOfUser(ctx, c.ID, cl.UserID.Int64)
			if err == nil {
				f.Team = t.ExtID
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
	}
	_, err := ccs.NewFeed(s.rdb, s.n).Append(ctx, cl.ContestID, f)
	return err
}

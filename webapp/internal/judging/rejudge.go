package judging

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Bounds of a background rejudge.
const (
	// RejudgeItemTimeout bounds the work of one submission of a rejudge.
	RejudgeItemTimeout = 10 * time.Second
	// rejudgeTries is how often one submission is tried before the job
	// moves on (and logs it).
	rejudgeTries = 3
)

// ErrNoSubmission: Rejudge was given an id no submission has.
var ErrNoSubmission = errors.New("judging: no such submission")

// Rejudge resets a submission to its next attempt — above any attempt the
// queue has seen for it (leases may have expired more often than MySQL
// knows) — with the problem's current test data, status queued and its
// cases cleared, and enqueues it at rejudge priority. Should the enqueue
// fail after the reset, the reconciler enqueues the queued row. An
// unknown id is ErrNoSubmission.
func (s *Service) Rejudge(ctx context.Context, id int64) error {
	sub, err := s.st.SubmissionByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %d", ErrNoSubmission, id)
	}
	if err != nil {
		return err
	}
	next := 0
	if a, held, err := s.q.Attempt(ctx, id); err != nil {
		return fmt.Errorf("judging: %w", err)
	} else if held {
		next = a + 1
	}
	p, err := s.st.ProblemByID(ctx, sub.ProblemID)
	if err != nil {
		return err
	}
	hash := p.TestdataHash.String
	if hash == "" {
		hash = sub.TestdataHash.String
	}
	sub, err = s.st.Rejudge(ctx, id, next, hash)
	if err != nil {
		return err
	}
	if err := s.UpdateBoard(ctx, &sub); err != nil {
		s.log.Warn("scoreboard pending mark failed", obs.SubmissionID(id), obs.Err(err))
	}
	if hash == "" {
		return nil // nothing to judge with; stays queued until test data exists
	}
	return s.Enqueue(ctx, &sub, &p, protocol.PriorityRejudge)
}

// RejudgeAll rejudges ids in the background, one after the other, each
// within RejudgeItemTimeout and tried up to three times, and returns at
// once. A problem's or a contest's submissions are thousands in a contest:
// done inside the request they outlived its deadline and stopped half way.
// The job ends with the node (Wait); what it had not reached by then keeps
// its verdict, and the log says how far it got.
func (s *Service) RejudgeAll(ids []int64, userID int64) {
	ctx, cancel := context.WithCancel(context.Background())
	s.jobsMu.Lock()
	s.jobCancels = append(s.jobCancels, cancel)
	s.jobsMu.Unlock()
	s.jobs.Go(func() {
		defer cancel()
		t0 := time.Now()
		done, failed := 0, 0
		for i, id := range ids {
			if ctx.Err() != nil {
				s.log.Warn("rejudge interrupted by shutdown", "user_id", userID, "done", done, "failed", failed, "left", len(ids)-i)
				return
			}
			var err error
			for try := range rejudgeTries {
				ictx, icancel := context.WithTimeout(ctx, RejudgeItemTimeout)
				err = s.Rejudge(ictx, id)
				icancel()
				if err == nil || ctx.Err() != nil {
					break
				}
				select {
				case <-time.After(time.Duration(try+1) * time.Second):
				case <-ctx.Done():
				}
			}
			if err != nil {
				failed++
				s.log.Warn("rejudge of a submission failed", obs.SubmissionID(id), obs.Err(err))
				continue
			}
			done++
		}
		s.log.Info("rejudge done", "user_id", userID, "submissions", done, "failed", failed, "took", time.Since(t0).Round(time.Millisecond))
	})
}

// Wait stops the background jobs (rejudges) and waits for them to end.
func (s *Service) Wait() {
	s.jobsMu.Lock()
	for _, c := range s.jobCancels {
		c()
	}
	s.jobCancels = nil
	s.jobsMu.Unlock()
	s.jobs.Wait()
}

// WaitJobs waits for the background jobs to finish on their own (tests).
func (s *Service) WaitJobs() { s.jobs.Wait() }

package judging

import (
	"context"
	"fmt"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/redislock"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// ReconcilerLock is the name (rkeys.Lock) of the lock whose holder runs the
// reconciler.
const ReconcilerLock = "reconciler"

// RunReconciler runs Reconcile every ReconcileInterval while this node
// holds the reconciler lock (internal/redislock), until ctx ends; it
// releases the lock on its way out.
func (s *Service) RunReconciler(ctx context.Context) {
	t := time.NewTicker(s.cfg.ReconcileInterval)
	defer t.Stop()
	lock, err := redislock.New(s.rdb, s.n.Lock(ReconcilerLock), s.cfg.NodeID, 3*s.cfg.ReconcileInterval)
	if err != nil {
		s.log.Error("reconciler not started", obs.Err(err))
		return
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_, _ = lock.Release(cctx)
	}()
	for {
		held, err := lock.Hold(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			s.log.Warn("reconciler lock failed", obs.Err(err))
		case held:
			// The lease is renewed as the pass goes (a pass under
			// overload outlasts it, and another node would redo the same
			// rows); a pass that lost it stops.
			renewed := time.Now()
			still := func() bool {
				if time.Since(renewed) < s.cfg.ReconcileInterval {
					return true
				}
				held, err := lock.Hold(ctx)
				renewed = time.Now()
				return err == nil && held
			}
			if n, err := s.reconcile(ctx, still); err != nil && ctx.Err() == nil {
				s.log.Warn("reconcile failed", obs.Err(err))
			} else if n > 0 {
				s.log.Info("reconciler enqueued lost tasks", "count", n)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Reconcile enqueues, once, every queued submission older than
// ReconcileGrace (and younger than ReconcileLookback) whose attempt has no
// task in Redis: an enqueue lost after the insert, or a Redis that lost its
// data. It returns how many it enqueued. Enqueueing is idempotent, so a
// second reconciler or a racing submit cannot make a task twice.
func (s *Service) Reconcile(ctx context.Context) (int, error) {
	return s.reconcile(ctx, func() bool { return true })
}

// reconcile is Reconcile, stopping when still reports that this node no
// longer holds the reconciler's lock. A row that cannot be enqueued is
// logged and passed over (the next pass tries it again): one bad row does
// not hold up every later one.
func (s *Service) reconcile(ctx context.Context, still func() bool) (int, error) {
	now := s.cfg.Now()
	oldest, newest := now.Add(-s.cfg.ReconcileLookback), now.Add(-s.cfg.ReconcileGrace)
	var after int64
	enqueued := 0
	for {
		refs, err := s.st.QueuedSubmissions(ctx, after, 500)
		if err != nil {
			return enqueued, err
		}
		if len(refs) == 0 {
			return enqueued, nil
		}
		after = refs[len(refs)-1].ID
		var due []store.QueuedRef
		younger := false
		for _, r := range refs {
			if r.CreatedAt.After(newest) {
				younger = true // ids grow with time: the rest are younger too
				break
			}
			if r.CreatedAt.After(oldest) {
				due = append(due, r)
			}
		}
		if len(due) > 0 {
			missing, err := s.withoutTask(ctx, due)
			if err != nil {
				return enqueued, err
			}
			for _, r := range missing {
				if !still() {
					return enqueued, nil
				}
				if err := s.reenqueue(ctx, r.ID); err != nil {
					if ctx.Err() != nil {
						return enqueued, err
					}
					s.log.Warn("reconciler could not enqueue a queued submission; the next pass retries", obs.SubmissionID(r.ID), obs.Err(err))
					continue
				}
				enqueued++
				s.requeued.Inc()
			}
		}
		if younger {
			return enqueued, nil
		}
	}
}

// withoutTask returns the refs whose attempt has no task record in Redis
// (none, or an older attempt's).
func (s *Service) withoutTask(ctx context.Context, refs []store.QueuedRef) ([]store.QueuedRef, error) {
	ids := make([]int64, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	attempts, err := s.q.Attempts(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("judging: read tasks: %w", err)
	}
	var out []store.QueuedRef
	for i, a := range attempts {
		if a < refs[i].Attempt {
			out = append(out, refs[i])
		}
	}
	return out, nil
}

func (s *Service) reenqueue(ctx context.Context, id int64) error {
	sub, err := s.st.SubmissionByID(ctx, id)
	if err != nil {
		return err
	}
	if sub.Verdict != store.StatusQueued {
		return nil // judged meanwhile
	}
	p, prio, rule, err := s.taskParts(ctx, &sub)
	if err != nil {
		return err
	}
	s.log.Warn("queued submission had no task; enqueueing", obs.SubmissionID(id), obs.Attempt(sub.Attempt))
	return s.enqueue(ctx, &sub, &p, prio, rule)
}

// taskParts reads from MySQL what the task of a queued submission that
// has none needs: its problem, its priority and the rule of its test data.
func (s *Service) taskParts(ctx context.Context, sub *store.Submission) (store.Problem, protocol.Priority, store.TestdataRule, error) {
	p, err := s.st.ProblemByID(ctx, sub.ProblemID)
	if err != nil {
		return store.Problem{}, 0, store.TestdataRule{}, err
	}
	prio := PriorityOf(sub)
	if sub.Attempt > 1 { // only a rejudge queues a later attempt
		prio = protocol.PriorityRejudge
	}
	rule, err := s.testdataRule(ctx, sub)
	if err != nil {
		return store.Problem{}, 0, store.TestdataRule{}, fmt.Errorf("judging: enqueue %d attempt %d: %w", sub.ID, sub.Attempt, err)
	}
	return p, prio, rule, nil
}

package judging

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/truncate"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// RunConsumer consumes the results stream in the consumer group
// rkeys.ResultsGroup as consumer NodeID until ctx ends: new entries with
// XREADGROUP, and, every ClaimIdle/2, entries pending longer than
// ClaimIdle (a dead node's, or this node's own that failed) with
// XAUTOCLAIM. An entry is acknowledged once its result is in MySQL and on
// the scoreboard; one that cannot be written (MySQL down) stays pending and
// is retried.
func (s *Service) RunConsumer(ctx context.Context) {
	log := s.log.With("consumer", s.cfg.NodeID)
	for ctx.Err() == nil {
		if err := s.q.EnsureResultsGroup(ctx); err != nil {
			log.Warn("cannot create the results group; retrying", obs.Err(err))
			sleep(ctx, time.Second)
			continue
		}
		break
	}
	lastClaim := time.Time{}
	// own: this consumer holds entries it failed to write (a Redis
	// restart, MySQL down): it tries them again after ownRetry, not
	// ClaimIdle later. Left to the claim, a result whose board update
	// failed as Redis restarted kept its cell pending for 30–45 s (the
	// contest rehearsal with faults, 2026-12-07).
	own := false
	for ctx.Err() == nil {
		if own {
			sleep(ctx, ownRetry)
			_, err := s.RetryOwn(ctx)
			own = err != nil
			if own && ctx.Err() == nil {
				log.Warn("writing results failed; trying again", obs.Err(err))
			}
		}
		if time.Since(lastClaim) >= s.cfg.ClaimIdle/2 {
			lastClaim = time.Now()
			if _, err := s.ClaimStale(ctx); err != nil && ctx.Err() == nil {
				log.Warn("claiming stale results failed", obs.Err(err))
				own = true // what it claimed is this consumer's now
			}
		}
		if _, err := s.ReadOnce(ctx, s.cfg.ReadBlock); err != nil && ctx.Err() == nil {
			log.Warn("reading results failed", obs.Err(err))
			own = true
			sleep(ctx, time.Second)
		}
	}
}

// ownRetry is how long the consumer waits before it tries again the
// entries it failed to write.
const ownRetry = time.Second

// RetryOwn handles again the entries this consumer holds and has not
// acknowledged (those it failed to write), oldest first, Batch at a time,
// until it has none or one fails again; it returns how many it
// acknowledged.
func (s *Service) RetryOwn(ctx context.Context) (int, error) {
	acked := 0
	for {
		res, err := s.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: s.n.ResultsGroup(), Consumer: s.cfg.NodeID,
			Streams: []string{s.n.Results(), "0"}, Count: int64(s.cfg.Batch), Block: -1,
		}).Result()
		if errors.Is(err, redis.Nil) {
			return acked, nil
		}
		if err != nil {
			return acked, fmt.Errorf("judging: read own pending results: %w", err)
		}
		n, read, err := s.handleStreams(ctx, res)
		acked += n
		if err != nil || read < s.cfg.Batch {
			return acked, err
		}
	}
}

// handleStreams handles what an XREADGROUP read: it returns how many
// entries it acknowledged and how many it read.
func (s *Service) handleStreams(ctx context.Context, res []redis.XStream) (acked, read int, err error) {
	for _, st := range res {
		read += len(st.Messages)
		n, err := s.handle(ctx, st.Messages)
		acked += n
		if err != nil {
			return acked, read, err
		}
	}
	return acked, read, nil
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// ReadOnce reads up to Batch new entries (waiting up to block; 0 or less:
// do not wait) and handles them. It returns how many it acknowledged.
func (s *Service) ReadOnce(ctx context.Context, block time.Duration) (int, error) {
	if block <= 0 {
		block = -1 // go-redis: no BLOCK argument
	}
	res, err := s.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: s.n.ResultsGroup(), Consumer: s.cfg.NodeID,
		Streams: []string{s.n.Results(), ">"}, Count: int64(s.cfg.Batch), Block: block,
	}).Result()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), "NOGROUP") {
			_ = s.q.EnsureResultsGroup(ctx)
		}
		return 0, fmt.Errorf("judging: read results: %w", err)
	}
	acked, _, err := s.handleStreams(ctx, res)
	return acked, err
}

// ClaimStale takes over entries pending longer than ClaimIdle with any
// consumer and handles them; it returns how many it acknowledged.
func (s *Service) ClaimStale(ctx context.Context) (int, error) {
	start := "0-0"
	acked := 0
	for {
		msgs, next, err := s.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
			Stream: s.n.Results(), Group: s.n.ResultsGroup(), Consumer: s.cfg.NodeID,
			MinIdle: s.cfg.ClaimIdle, Start: start, Count: int64(s.cfg.Batch),
		}).Result()
		if err != nil {
			return acked, fmt.Errorf("judging: claim results: %w", err)
		}
		n, err := s.handle(ctx, msgs)
		acked += n
		if err != nil {
			return acked, err
		}
		if next == "0-0" || next == "" || len(msgs) == 0 {
			return acked, nil
		}
		start = next
	}
}

// handle writes the entries, ResultWorkers at a time, and acknowledges
// those done. Entries of one submission go to the same worker, in stream
// order; a worker stops at its first entry that cannot be written (the
// rest of that submission's entries, and what the worker would have taken
// next, stay pending and are retried), the others go on.
func (s *Service) handle(ctx context.Context, msgs []redis.XMessage) (int, error) {
	ids, err := runGroups(groupResults(msgs), s.cfg.ResultWorkers, func(m redis.XMessage) error {
		return s.HandleResult(ctx, m)
	})
	if len(ids) > 0 {
		if err := s.rdb.XAck(ctx, s.n.Results(), s.n.ResultsGroup(), ids...).Err(); err != nil {
			return 0, fmt.Errorf("judging: ack results: %w", err)
		}
	}
	return len(ids), err
}

// runGroups runs write over the groups' entries with up to n workers, a
// group's entries by one worker in their order; each worker takes the next
// group when it is done with one. A batch ends when its slowest worker
// does: given shares fixed in advance (by submission id), one worker could
// be left with twice the average while the rest waited (results came in
// about half as fast as the workers could write them). A worker stops at
// its first failed entry. It returns the ids of the entries written, in no
// particular order, and the failures.
func runGroups(groups [][]redis.XMessage, n int, write func(redis.XMessage) error) ([]string, error) {
	n = max(1, min(n, len(groups)))
	next := make(chan []redis.XMessage, len(groups))
	for _, g := range groups {
		next <- g
	}
	close(next)
	done := make([][]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			for g := range next {
				for _, m := range g {
					if err := write(m); err != nil {
						errs[i] = err
						return
					}
					done[i] = append(done[i], m.ID)
				}
			}
		})
	}
	wg.Wait()
	return slices.Concat(done...), errors.Join(errs...)
}

// groupResults splits msgs by submission, each submission's entries in
// their order, the groups in the order of their first entries (the
// unreadable entries, which HandleResult drops, form one group).
func groupResults(msgs []redis.XMessage) [][]redis.XMessage {
	var groups [][]redis.XMessage
	at := map[int64]int{}
	for _, m := range msgs {
		var id int64 // 0: unreadable
		v, _ := m.Values[queue.FieldSubmissionID].(string)
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			id = n
		}
		i, ok := at[id]
		if !ok {
			i = len(groups)
			at[id] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], m)
	}
	return groups
}

// HandleResult writes one results stream entry: the verdict, score, time,
// memory, compile message and cases to MySQL (exactly once per attempt,
// see store.ApplyResult) and the contest's scoreboard. A nil error means
// the entry may be acknowledged: it was written, or it is a duplicate, a
// stale attempt, an unknown submission or undecodable (all logged).
func (s *Service) HandleResult(ctx context.Context, m redis.XMessage) error {
	e, err := queue.ParseResult(m)
	if err != nil {
		s.results.WithLabelValues("invalid").Inc()
		s.log.Error("dropping an unreadable result", "stream_id", m.ID, obs.Err(err))
		return nil
	}
	log := s.log.With(obs.SubmissionID(e.SubmissionID), obs.Attempt(e.Attempt), obs.JudgeID(e.JudgeID))
	w := resultWrite(e)
	outcome, sub, err := s.rst.ApplyResult(ctx, w)
	if err != nil {
		return err
	}
	s.results.WithLabelValues(outcome.String()).Inc()
	switch outcome {
	case store.Missing:
		log.Warn("result for an unknown submission dropped")
		return nil
	case store.Stale:
		log.Info("stale result dropped", "current_attempt", sub.Attempt)
		return nil
	case store.Applied:
		log.Debug("result written", "verdict", sub.Verdict, "score", sub.Score, "source", e.Source)
	}
	// Applied, or a duplicate (written before, maybe without its board
	// update): the board merge is idempotent.
	var cases []store.SubmissionCase // the feed's; nil: read them
	if outcome == store.Applied {
		cases = writtenCases(w)
	}
	if err := s.updateBoard(ctx, s.rst, &sub, cases); err != nil {
		return err
	}
	s.balloonSolved(ctx, &sub) // the balloon pages (balloons.go)
	return nil
}

// writtenCases returns the cases ApplyResult wrote for w as
// SubmissionCases reads them back (by index), or nil when w repeats an
// index (the row then mixes two of them: read it).
func writtenCases(w store.ResultWrite) []store.SubmissionCase {
	cases := make([]store.SubmissionCase, len(w.Cases))
	copy(cases, w.Cases)
	slices.SortStableFunc(cases, func(a, b store.SubmissionCase) int { return cmp.Compare(a.Index, b.Index) })
	for i := range cases {
		if i > 0 && cases[i].Index == cases[i-1].Index {
			return nil
		}
		cases[i].SubmissionID = w.SubmissionID
	}
	return cases
}

func resultWrite(e queue.ResultEntry) store.ResultWrite {
	r := e.Result
	w := store.ResultWrite{
		SubmissionID: e.SubmissionID, Attempt: e.Attempt, Verdict: string(r.Verdict), Score: r.Score,
		CompileMessage: truncate.UTF8(r.CompileMessage, protocol.MaxCompileMessage), JudgeID: r.JudgeID,
	}
	if w.JudgeID == "" {
		w.JudgeID = e.JudgeID
	}
	for _, c := range r.Cases {
		w.TimeMs = max(w.TimeMs, c.CPUMs)
		w.MemoryKB = max(w.MemoryKB, c.MemoryKiB)
		w.Cases = append(w.Cases, store.SubmissionCase{
			Index: c.Case, Verdict: string(c.Verdict), TimeMs: c.CPUMs, MemoryKB: c.MemoryKiB,
			Score: c.Score, Message: truncate.UTF8(c.Message, protocol.MaxCaseMessage),
		})
	}
	if e.Source == queue.SourceHub && e.Reason != "" && w.CompileMessage == "" {
		w.CompileMessage = "system error: " + e.Reason
	}
	return w
}

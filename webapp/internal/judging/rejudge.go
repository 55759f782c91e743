package judging

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/redisscript"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Bounds of a background rejudge.
const (
	// RejudgeItemTimeout bounds the work of one submission of a rejudge.
	RejudgeItemTimeout = 10 * time.Second
	// rejudgeTries is how often one submission is tried before the job
	// moves on (and logs it).
	rejudgeTries = 3
	// RejudgeWorkers is how many submissions a background rejudge works
	// on at once. One after the other, a rejudge of 2,071 submissions ran
	// 7 minutes under a contest's load (each waits on a few MySQL and
	// Redis round trips, not on the CPU): past the contest's end.
	RejudgeWorkers = 4
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

// RejudgeJobTTL is how long a rejudge job's progress stays readable
// (RejudgeJob) after it started.
const RejudgeJobTTL = 7 * 24 * time.Hour

// ErrNoRejudgeJob: RejudgeJob was given an id no job has (or one whose
// progress has expired).
var ErrNoRejudgeJob = errors.New("judging: no such rejudge job")

// RejudgeStatus is how far a background rejudge got, as any web node
// reads it from Redis: Done and Failed of Total so far; Finished once the
// job went through every submission; Interrupted when the node it ran on
// stopped first (what it had not reached keeps its verdict).
type RejudgeStatus struct {
	Job         string     `json:"job"`
	Total       int        `json:"total"`
	Done        int        `json:"done"`
	Failed      int        `json:"failed"`
	UserID      int64      `json:"user_id"`
	StartedAt   time.Time  `json:"started_at"`
	FinishedAt  *time.Time `json:"finished_at,omitempty"`
	Finished    bool       `json:"finished"`
	Interrupted bool       `json:"interrupted"`
}

// RejudgeAll rejudges ids in the background, RejudgeWorkers at a time
// in their order, each within RejudgeItemTimeout and tried up to three
// times, and returns the job's id at once; RejudgeJob says how far it got, on any node. A
// problem's or a contest's submissions are thousands in a contest: done
// inside the request they outlived its deadline and stopped half way.
// The job ends with the node (Wait); what it had not reached by then keeps
// its verdict, and the log and the job's progress say how far it got.
// Progress is written as it goes: a write that fails is logged and does
// not stop the job (the job's own work is what matters).
//
// key, when not empty, is the request's Idempotency-Key: the first
// request with it starts the job; a later one (the same request retried
// after no answer) starts nothing and answers that job, Repeated.
func (s *Service) RejudgeAll(ctx context.Context, ids []int64, userID int64, key string) (RejudgeStarted, error) {
	job, err := newJobID()
	if err != nil {
		return RejudgeStarted{}, err
	}
	jobKey := s.n.RejudgeJob(job)
	started := s.cfg.Now()
	fields := []any{"total", len(ids), "done", 0, "failed", 0, "user_id", userID, "started_at", started.UnixMilli()}
	if key != "" {
		prior, err := s.claimRejudge(ctx, userID, key, job, jobKey, fields...)
		if err != nil {
			return RejudgeStarted{}, err
		}
		if prior != "" {
			st, err := s.RejudgeJob(ctx, prior)
			if err != nil {
				return RejudgeStarted{}, fmt.Errorf("judging: the job of a repeated rejudge: %w", err)
			}
			return RejudgeStarted{Job: prior, Total: st.Total, Repeated: true}, nil
		}
	} else if _, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, jobKey, fields...)
		p.Expire(ctx, jobKey, RejudgeJobTTL)
		return nil
	}); err != nil {
		return RejudgeStarted{}, fmt.Errorf("judging: rejudge job: %w", err)
	}
	jctx, cancel := context.WithCancel(context.Background())
	s.jobsMu.Lock()
	s.jobCancels = append(s.jobCancels, cancel)
	s.jobsMu.Unlock()
	s.jobs.Go(func() {
		defer cancel()
		log := s.log.With("user_id", userID, "job", job)
		note := func(fields ...any) {
			// Not jctx: the note that the job was interrupted is written
			// as the node stops.
			wctx, wcancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer wcancel()
			if err := s.rdb.HSet(wctx, jobKey, fields...).Err(); err != nil {
				log.Warn("rejudge progress not written", obs.Err(err))
			}
		}
		count := func(field string) {
			wctx, wcancel := context.WithTimeout(jctx, 2*time.Second)
			defer wcancel()
			if err := s.rdb.HIncrBy(wctx, jobKey, field, 1).Err(); err != nil && jctx.Err() == nil {
				log.Warn("rejudge progress not written", obs.Err(err))
			}
		}
		t0 := time.Now()
		var next, done, failed atomic.Int64
		pace := &rejudgePace{s: s, log: log}
		var workers sync.WaitGroup
		for range min(RejudgeWorkers, len(ids)) {
			workers.Go(func() {
				for jctx.Err() == nil {
					if !pace.room(jctx) {
						return // interrupted
					}
					i := int(next.Add(1)) - 1
					if i >= len(ids) {
						pace.done()
						return
					}
					err := s.rejudgeTrying(jctx, ids[i])
					pace.done()
					if err != nil {
						if jctx.Err() != nil {
							return // interrupted: not a failure of this submission
						}
						failed.Add(1)
						log.Warn("rejudge of a submission failed", obs.SubmissionID(ids[i]), obs.Err(err))
						count("failed")
						continue
					}
					done.Add(1)
					count("done")
				}
			})
		}
		workers.Wait()
		if jctx.Err() != nil {
			log.Warn("rejudge interrupted by shutdown", "done", done.Load(), "failed", failed.Load(),
				"left", int64(len(ids))-done.Load()-failed.Load())
			note("interrupted_at", s.cfg.Now().UnixMilli())
			return
		}
		note("finished_at", s.cfg.Now().UnixMilli())
		log.Info("rejudge done", "submissions", done.Load(), "failed", failed.Load(), "took", time.Since(t0).Round(time.Millisecond))
	})
	return RejudgeStarted{Job: job, Total: len(ids)}, nil
}

// RejudgeStarted is what RejudgeAll answers: the job's id, how many
// submissions it rejudges, and whether an earlier request with the same
// Idempotency-Key started it (this one started nothing).
type RejudgeStarted struct {
	Job      string
	Total    int
	Repeated bool
}

// claimScript claims a rejudge request's key: KEYS[1] the claim
// (rkeys.RejudgeRequest), ARGV[1] its value, ARGV[2] its lifetime (s).
// When the key is claimed already it returns the value claimed first and
// writes nothing; else it claims it and, given KEYS[2] (a job's hash),
// writes the job's fields (ARGV[3...]) with the same lifetime, in the
// same step: a claimed job always exists. Returns "" for a new claim.
var claimScript = redisscript.Named("judging.claim", redis.NewScript(`
local prior = redis.call('GET', KEYS[1])
if prior then return prior end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
if KEYS[2] then
  redis.call('HSET', KEYS[2], unpack(ARGV, 3))
  redis.call('EXPIRE', KEYS[2], ARGV[2])
end
return ''
`))

// claimRejudge runs claimScript: "" when (userID, key) is new and now
// names value (and the job hash jobKey, if any, holds fields), else the
// value an earlier request claimed.
func (s *Service) claimRejudge(ctx context.Context, userID int64, key, value, jobKey string, fields ...any) (string, error) {
	keys := []string{s.n.RejudgeRequest(userID, key)}
	if jobKey != "" {
		keys = append(keys, jobKey)
	}
	args := append([]any{value, int64(RejudgeJobTTL / time.Second)}, fields...)
	prior, err := claimScript.Run(ctx, s.rdb, keys, args...).Text()
	if err != nil {
		return "", fmt.Errorf("judging: rejudge request key: %w", err)
	}
	return prior, nil
}

// RejudgeOnce is Rejudge for a staff request with an Idempotency-Key
// (key; "" is a plain Rejudge): the first request with the key rejudges
// id; a later one (the same request retried) rejudges nothing and
// answers repeated. A rejudge that fails releases the key, so the retry
// does it.
func (s *Service) RejudgeOnce(ctx context.Context, id, userID int64, key string) (repeated bool, err error) {
	if key == "" {
		return false, s.Rejudge(ctx, id)
	}
	prior, err := s.claimRejudge(ctx, userID, key, "submission:"+strconv.FormatInt(id, 10), "")
	if err != nil {
		return false, err
	}
	if prior != "" {
		return true, nil
	}
	if err := s.Rejudge(ctx, id); err != nil {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if derr := s.rdb.Del(dctx, s.n.RejudgeRequest(userID, key)).Err(); derr != nil {
			s.log.Warn("rejudge request key not released", obs.SubmissionID(id), obs.Err(derr))
		}
		return false, err
	}
	return false, nil
}

// rejudgePace keeps a background rejudge's workers at most RejudgeAhead
// rejudge tasks ahead of the judges: the queue's rejudge tasks plus the
// job's own being enqueued (claimed under mu, so that its workers cannot
// all pass the same check).
type rejudgePace struct {
	s        *Service
	log      *slog.Logger
	mu       sync.Mutex
	inflight int64 // guarded by mu
}

// room waits until the job may start one more submission (at once when
// unbounded), polling every RejudgePoll, and counts it in flight (done
// ends it); false, with nothing counted, when ctx ends first. The queue is
// read and the count taken under mu, which no wait holds. A queue that
// cannot be read does not stop the job: it goes on unpaced (logged once a
// minute at most) rather than stall.
func (p *rejudgePace) room(ctx context.Context) bool {
	for {
		ok, err := p.claim(ctx)
		if ok || err != nil {
			return ok
		}
		select {
		case <-time.After(p.s.cfg.RejudgePoll):
		case <-ctx.Done():
			return false
		}
	}
}

// claim counts one more submission in flight if the queue has room; err
// only when ctx ended.
func (p *rejudgePace) claim(ctx context.Context) (bool, error) {
	s := p.s
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if s.cfg.RejudgeAhead >= 0 {
		n, err := s.q.LenAt(ctx, protocol.PriorityRejudge)
		switch {
		case err != nil && ctx.Err() != nil:
			return false, ctx.Err()
		case err != nil:
			if now := time.Now().UnixNano(); now-s.paceWarned.Load() > int64(time.Minute) {
				s.paceWarned.Store(now)
				p.log.Warn("rejudge not paced: the queue's length unread", obs.Err(err))
			}
		case n+p.inflight >= int64(s.cfg.RejudgeAhead):
			return false, nil
		}
	}
	p.inflight++
	return true, nil
}

// done ends one submission room counted (enqueued or given up).
func (p *rejudgePace) done() {
	p.mu.Lock()
	p.inflight--
	p.mu.Unlock()
}

// rejudgeTrying rejudges one submission of a job, each try within
// RejudgeItemTimeout, up to rejudgeTries times with a growing pause.
func (s *Service) rejudgeTrying(ctx context.Context, id int64) error {
	var err error
	for try := range rejudgeTries {
		ictx, cancel := context.WithTimeout(ctx, RejudgeItemTimeout)
		err = s.Rejudge(ictx, id)
		cancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
		select {
		case <-time.After(time.Duration(try+1) * time.Second):
		case <-ctx.Done():
			return err
		}
	}
	return err
}

// RejudgeJob reads a background rejudge's progress (RejudgeAll), or
// ErrNoRejudgeJob.
func (s *Service) RejudgeJob(ctx context.Context, job string) (RejudgeStatus, error) {
	if !validJobID(job) {
		return RejudgeStatus{}, ErrNoRejudgeJob
	}
	h, err := s.rdb.HGetAll(ctx, s.n.RejudgeJob(job)).Result()
	if err != nil {
		return RejudgeStatus{}, fmt.Errorf("judging: rejudge job: %w", err)
	}
	if len(h) == 0 {
		return RejudgeStatus{}, ErrNoRejudgeJob
	}
	return parseRejudgeStatus(job, h)
}

// parseRejudgeStatus reads a job's hash. Pure.
func parseRejudgeStatus(job string, h map[string]string) (RejudgeStatus, error) {
	st := RejudgeStatus{Job: job}
	num := func(field string) (int64, error) {
		v, ok := h[field]
		if !ok {
			return 0, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("judging: rejudge job %s: %s %q: %w", job, field, v, err)
		}
		return n, nil
	}
	var err error
	var n int64
	for _, f := range []struct {
		name string
		set  func(int64)
	}{
		{"total", func(v int64) { st.Total = int(v) }},
		{"done", func(v int64) { st.Done = int(v) }},
		{"failed", func(v int64) { st.Failed = int(v) }},
		{"user_id", func(v int64) { st.UserID = v }},
		{"started_at", func(v int64) { st.StartedAt = time.UnixMilli(v).UTC() }},
		{"finished_at", func(v int64) {
			if v > 0 {
				at := time.UnixMilli(v).UTC()
				st.FinishedAt, st.Finished = &at, true
			}
		}},
		{"interrupted_at", func(v int64) { st.Interrupted = v > 0 }},
	} {
		if n, err = num(f.name); err != nil {
			return RejudgeStatus{}, err
		}
		f.set(n)
	}
	return st, nil
}

// newJobID is a random job id: 16 hex digits.
func newJobID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("judging: job id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// validJobID: what newJobID makes (so a path parameter never names
// another key).
func validJobID(s string) bool {
	if len(s) != 16 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// Wait stops the background jobs (rejudges) and waits for them to end.
func (s *Service) Wait() {
	s.stopJobs()
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

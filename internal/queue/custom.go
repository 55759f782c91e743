package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/redisscript"
)

// Custom runs share the queue with submissions (the same task records,
// leases, priorities and reaper) under ids of their own
// (protocol.CustomRunIDBase and above), but they are never on the results
// stream: a custom run's state, with its output, lives in Redis only
// (rkeys.Names.CustomRun), expiring CustomRunTTL after its last change, and
// every change goes to its owner's user channel as an EventCustomRun.

// ErrNoCustomRun: no such custom run (never made, or expired).
var ErrNoCustomRun = errors.New("queue: no such custom run")

// NewCustomRunID draws a fresh custom run id.
func (q *Queue) NewCustomRunID(ctx context.Context) (int64, error) {
	n, err := q.c.Incr(ctx, q.n.CustomRunIDs()).Result()
	if err != nil {
		return 0, fmt.Errorf("queue: custom run id: %w", err)
	}
	return protocol.CustomRunIDBase + n, nil
}

// CustomRunUpdate is one change of a custom run's state.
type CustomRunUpdate struct {
	Owner   int64
	Attempt int
	// Guard: GuardNone (enqueue) or GuardLeased (a judge's progress,
	// only while it holds the current attempt).
	Guard Guard
	State protocol.CustomRunState
}

// KEYS: run, task, user state, user channel. ARGV: guard, attempt, owner,
// state json, ttl s, user state ttl s (the live TTL: the user channel's
// state also holds the user's submissions). Returns 1 when published.
var publishCustomScript = redisscript.Named("queue.publishCustom", redis.NewScript(lua(`
if tonumber(ARGV[1]) ~= $GuardNone then
  local t = redis.call('HMGET', KEYS[2], $taskAttempt, $taskState)
  if t[1] ~= ARGV[2] or t[2] ~= $stateLeased then return 0 end
end
local cur = redis.call('HGET', KEYS[1], $liveDoc)
if cur == ARGV[4] then return 0 end
redis.call('HSET', KEYS[1], $liveOwner, ARGV[3], $liveDoc, ARGV[4])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
local useq = redis.call('HINCRBY', KEYS[3], $liveSeq, 1)
redis.call('EXPIRE', KEYS[3], tonumber(ARGV[6]))
redis.call('PUBLISH', KEYS[4], '{"channel":{"kind":"user","id":' .. ARGV[3] ..
  '},"seq":' .. useq .. ',"kind":"custom_run","body":' .. ARGV[4] .. '}')
return 1
`)))

// PublishCustomRun stores a custom run's state and sends it to its
// owner's user channel, unless the guard does not hold or nothing changed.
func (q *Queue) PublishCustomRun(ctx context.Context, u CustomRunUpdate) error {
	id := u.State.RunID
	if !protocol.IsCustomRun(id) || u.Owner < 1 {
		return fmt.Errorf("%w: custom run %d of user %d", ErrInvalidTask, id, u.Owner)
	}
	b, err := json.Marshal(u.State)
	if err != nil {
		return fmt.Errorf("queue: publish custom run %d: %w", id, err)
	}
	err = publishCustomScript.Run(ctx, q.c,
		[]string{q.n.CustomRun(id), q.n.Task(id), q.n.LiveState(string(protocol.ChannelUser), u.Owner), q.n.Events(string(protocol.ChannelUser), u.Owner)},
		int(u.Guard), u.Attempt, u.Owner, b, int64(q.cfg.CustomRunTTL/time.Second), int64(q.cfg.LiveTTL/time.Second)).Err()
	if err != nil {
		return fmt.Errorf("queue: publish custom run %d: %w", id, err)
	}
	return nil
}

// KEYS: task, leases, run, user state, user channel, completions. ARGV:
// sub, attempt, judge, state json, ttl s, window ms, user state ttl s.
// Returns 1, or 0 when the judge does not hold the attempt.
var completeCustomScript = redisscript.Named("queue.completeCustom", redisscript.New(lua(`
local t = redis.call('HMGET', KEYS[1], $taskAttempt, $taskState, $taskJudge, $taskUser)
if t[1] ~= ARGV[2] or t[2] ~= $stateLeased or t[3] ~= ARGV[3] then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], $taskState, $stateDone, $taskPayload, '')
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
local owner = t[4] or '0'
redis.call('HSET', KEYS[3], $liveOwner, owner, $liveDoc, ARGV[4])
redis.call('EXPIRE', KEYS[3], tonumber(ARGV[5]))
if owner ~= '0' then
  local us = KEYS[4] .. owner
  local useq = redis.call('HINCRBY', us, $liveSeq, 1)
  redis.call('EXPIRE', us, tonumber(ARGV[7]))
  redis.call('PUBLISH', KEYS[5] .. owner, '{"channel":{"kind":"user","id":' .. owner ..
    '},"seq":' .. useq .. ',"kind":"custom_run","body":' .. ARGV[4] .. '}')
end
local now = now_ms()
redis.call('ZADD', KEYS[6], now, ARGV[1] .. ':' .. ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - tonumber(ARGV[6]))
return 1
`)))

// CustomRunStateOf is a custom run's final state built from a judge's
// result.
func CustomRunStateOf(problemID int64, r protocol.Result) protocol.CustomRunState {
	st := protocol.CustomRunState{RunID: r.SubmissionID, ProblemID: problemID, Status: r.Verdict,
		CompileMessage: r.CompileMessage, Runs: r.Custom}
	return st
}

// completeCustom ends a custom run's lease with the judge's result: its
// state (with the output) is stored and sent to its owner.
func (q *Queue) completeCustom(ctx context.Context, judge string, r protocol.Result) error {
	problem, _ := q.c.HGet(ctx, q.n.Task(r.SubmissionID), taskProblem).Int64()
	b, err := json.Marshal(CustomRunStateOf(problem, r))
	if err != nil {
		return fmt.Errorf("queue: complete custom run %d: %w", r.SubmissionID, err)
	}
	userState := strings.TrimSuffix(q.n.LiveState(string(protocol.ChannelUser), 0), "0")
	userChan := strings.TrimSuffix(q.n.Events(string(protocol.ChannelUser), 0), "0")
	n, err := completeCustomScript.Run(ctx, q.c,
		[]string{q.n.Task(r.SubmissionID), q.n.Leases(), q.n.CustomRun(r.SubmissionID), userState, userChan, q.n.Completions()},
		r.SubmissionID, r.Attempt, judge, b, int64(q.cfg.CustomRunTTL/time.Second), CompletionWindow.Milliseconds(),
		int64(q.cfg.LiveTTL/time.Second)).Int()
	if err != nil {
		return fmt.Errorf("queue: complete custom run %d attempt %d: %w", r.SubmissionID, r.Attempt, err)
	}
	if n == 0 {
		return fmt.Errorf("queue: complete custom run %d attempt %d from %s: %w", r.SubmissionID, r.Attempt, judge, ErrStale)
	}
	return nil
}

// failCustom tells the owner of a custom run whose leases all expired
// that it failed (a system error).
func (q *Queue) failCustom(ctx context.Context, e Expired) error {
	problem, _ := q.c.HGet(ctx, q.n.Task(e.Ref.SubmissionID), taskProblem).Int64()
	owner := e.UserID
	if owner < 1 {
		return nil
	}
	return q.PublishCustomRun(ctx, CustomRunUpdate{Owner: owner, Attempt: e.Ref.Attempt, Guard: GuardNone,
		State: protocol.CustomRunState{RunID: e.Ref.SubmissionID, ProblemID: problem, Status: protocol.VerdictSE,
			CompileMessage: "no judge finished the run in time"}})
}

// CustomRunRecord is a stored custom run.
type CustomRunRecord struct {
	Owner int64
	State protocol.CustomRunState
}

// CustomRun reads a custom run (ErrNoCustomRun when unknown or expired).
func (q *Queue) CustomRun(ctx context.Context, id int64) (CustomRunRecord, error) {
	var rec CustomRunRecord
	m, err := q.c.HGetAll(ctx, q.n.CustomRun(id)).Result()
	if err != nil {
		return rec, fmt.Errorf("queue: custom run %d: %w", id, err)
	}
	if m[liveDoc] == "" {
		return rec, fmt.Errorf("queue: custom run %d: %w", id, ErrNoCustomRun)
	}
	rec.Owner, _ = strconv.ParseInt(m[liveOwner], 10, 64)
	if err := json.Unmarshal([]byte(m[liveDoc]), &rec.State); err != nil {
		return rec, fmt.Errorf("queue: custom run %d: %w", id, err)
	}
	return rec, nil
}

package queue

import (
	"cmp"
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
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// Sentinel errors.
var (
	// ErrConfig reports an unusable Config.
	ErrConfig = errors.New("queue: invalid config")
	// ErrInvalidTask: the task fails protocol.Task validation or lacks its
	// owner.
	ErrInvalidTask = errors.New("queue: invalid task")
	// ErrDuplicate: this attempt (or a later one) of the submission is
	// already queued, leased or done. Enqueue is idempotent: treat it as
	// success.
	ErrDuplicate = errors.New("queue: attempt already enqueued")
	// ErrNotQueued: Lease found the task no longer queued under that
	// attempt (another dispatcher took it, or a rejudge replaced it).
	ErrNotQueued = errors.New("queue: task not queued")
	// ErrStale: the judge does not hold this attempt's lease any more; its
	// result or release is ignored.
	ErrStale = errors.New("queue: stale attempt")
)

// Defaults of Config.
const (
	DefaultMaxAttempts   = 3
	DefaultDoneTTL       = 7 * 24 * time.Hour
	DefaultLiveTTL       = 24 * time.Hour
	DefaultResultsMaxLen = 1_000_000
	// DefaultCustomRunTTL is how long a custom run is kept after its last
	// change (custom.go).
	DefaultCustomRunTTL = time.Hour
	// CompletionWindow is how long completions are remembered for the rate.
	CompletionWindow = 10 * time.Minute
)

// Config configures New.
type Config struct {
	// Client is the Redis connection. Required.
	Client redis.UniversalClient
	// Names builds key names. Zero value: rkeys.DefaultPrefix.
	Names rkeys.Names
	// MaxAttempts is how many attempts of one enqueue may expire before the
	// submission gets a system error. Default DefaultMaxAttempts (3).
	MaxAttempts int
	// DoneTTL is how long a finished task's record is kept, during which
	// enqueueing the same attempt again is a no-op. Keep it longer than any
	// reconciler's look-back. Default DefaultDoneTTL.
	DoneTTL time.Duration
	// LiveTTL is how long a submission's live state outlives its last
	// change. Default DefaultLiveTTL.
	LiveTTL time.Duration
	// ResultsMaxLen caps the results stream (approximate MAXLEN). Default
	// DefaultResultsMaxLen; consumers must keep up within it.
	ResultsMaxLen int64
	// CustomRunTTL is how long a custom run (its task record and its
	// state with the output) outlives its last change. Default
	// DefaultCustomRunTTL.
	CustomRunTTL time.Duration
}

// Queue is the judge queue in Redis. It is safe for concurrent use.
type Queue struct {
	c   redis.UniversalClient
	n   rkeys.Names
	cfg Config
}

// New checks cfg and returns a Queue. It does not touch Redis.
func New(cfg Config) (*Queue, error) {
	if cfg.Client == nil {
		return nil, fmt.Errorf("%w: Client is required", ErrConfig)
	}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.MaxAttempts < 1 {
		return nil, fmt.Errorf("%w: MaxAttempts %d < 1", ErrConfig, cfg.MaxAttempts)
	}
	if cfg.DoneTTL == 0 {
		cfg.DoneTTL = DefaultDoneTTL
	}
	if cfg.LiveTTL == 0 {
		cfg.LiveTTL = DefaultLiveTTL
	}
	if cfg.ResultsMaxLen == 0 {
		cfg.ResultsMaxLen = DefaultResultsMaxLen
	}
	if cfg.CustomRunTTL == 0 {
		cfg.CustomRunTTL = DefaultCustomRunTTL
	}
	if cfg.DoneTTL < time.Second || cfg.LiveTTL < time.Second || cfg.ResultsMaxLen < 1 || cfg.CustomRunTTL < time.Second {
		return nil, fmt.Errorf("%w: DoneTTL and LiveTTL must be >= 1s, ResultsMaxLen >= 1", ErrConfig)
	}
	return &Queue{c: cfg.Client, n: cfg.Names, cfg: cfg}, nil
}

// Names returns the key names in use.
func (q *Queue) Names() rkeys.Names { return q.n }

// Client returns the Redis client.
func (q *Queue) Client() redis.UniversalClient { return q.c }

// MaxAttempts returns the configured attempt limit.
func (q *Queue) MaxAttempts() int { return q.cfg.MaxAttempts }

// Task is what a web node enqueues: one attempt of a submission and whom it
// belongs to.
type Task struct {
	// Task is the judge task. Attempt is the attempt being enqueued: 1 for
	// a new submission; for a rejudge, one more than the highest attempt
	// the submission ever had (see ResultEntry.Attempt).
	protocol.Task
	// UserID owns the submission: their user channel gets its status
	// changes and only they (and admins) may watch it. Required.
	UserID int64
	// ContestID is the contest the submission belongs to; 0 outside one.
	ContestID int64
	// SubmittedAt orders the queue within a priority. Zero means now.
	SubmittedAt time.Time
	// Feedback is what the submission's owner may see of it (see
	// internal/feedback); kept with its live state for the hub. Nil: the
	// hub shows the owner no case data and no message (first_failure).
	Feedback *protocol.Feedback
}

// score orders the queue: lower first. Priority bands (by
// protocol.Priority.Rank: contest, custom run, practice, rejudge) are 1e13
// ms (~317 years) apart, so any submission time fits inside its band, and
// the whole score stays an exact float64.
func score(p protocol.Priority, at time.Time) int64 {
	return int64(protocol.MaxRank-p.Rank())*1e13 + at.UnixMilli()
}

// KEYS: task, queue, leases, changed, the submission's live state. ARGV:
// sub, attempt, score, payload, user, contest, problem, feedback json (or
// empty), live ttl s, 1 to set the live state's owner, contest and
// feedback (a submission; 0: a custom run). Returns 1 when enqueued, 0
// when a same or later attempt exists.
var enqueueScript = redisscript.Named("queue.enqueue", redisscript.New(lua(`
local cur = redis.call('HGET', KEYS[1], $taskAttempt)
local a = tonumber(ARGV[2])
if cur and tonumber(cur) >= a then return 0 end
local now = now_ms()
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], $taskAttempt, ARGV[2], $taskBase, ARGV[2], $taskState, $stateQueued,
  $taskScore, ARGV[3], $taskEnqueued, now, $taskPayload, ARGV[4], $taskUser, ARGV[5],
  $taskContest, ARGV[6], $taskProblem, ARGV[7], $taskJudge, '')
-- A submission's live state gets its owner, contest and feedback rule
-- before any judge can have the task: the hub censors its events by them.
if ARGV[10] == '1' then
  redis.call('HSET', KEYS[5], $liveOwner, ARGV[5])
  if ARGV[6] ~= '0' then redis.call('HSET', KEYS[5], $liveContest, ARGV[6]) end
  if ARGV[8] ~= '' then redis.call('HSET', KEYS[5], $liveFeedback, ARGV[8]) end
  redis.call('EXPIRE', KEYS[5], tonumber(ARGV[9]))
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('PUBLISH', KEYS[4], ARGV[1] .. ' ' .. string.format('%d', now))
return 1
`)))

// EnqueueNotice reads which submission's enqueue a QueueChanged notice
// announces and when that enqueue was made (the queue's clock, Redis's
// TIME, the same as Queued.EnqueuedAt): an enqueue's payload is
// "<submission id> <enqueued ms>". ok is false for the other notices (a
// task released, leases reaped), whose payloads carry no time. The hub
// times the notice's way to it from this and tells, with the task's push,
// when it read the notice (protocol.Task.NoticedMs): the scheduling
// simulator's replay delays that arrival's wake as long.
func EnqueueNotice(payload string) (id int64, at time.Time, ok bool) {
	sid, ms, found := strings.Cut(payload, " ")
	if !found {
		return 0, time.Time{}, false
	}
	id, err := strconv.ParseInt(sid, 10, 64)
	if err != nil || id <= 0 {
		return 0, time.Time{}, false
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil || n <= 0 {
		return 0, time.Time{}, false
	}
	return id, time.UnixMilli(n), true
}

// Enqueue adds one attempt of a submission to the queue, idempotently: an
// attempt that is already queued, leased or done (within DoneTTL) returns
// ErrDuplicate and changes nothing. A higher attempt than the current one
// replaces it (a rejudge). It also resets the submission's live state to
// "queued" and tells its watchers.
func (q *Queue) Enqueue(ctx context.Context, t Task) error {
	if err := t.Task.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidTask, err)
	}
	if t.UserID < 1 {
		return fmt.Errorf("%w: user id %d < 1", ErrInvalidTask, t.UserID)
	}
	// An input validation (protocol/validation.go) lives as a custom run.
	custom := t.Custom != nil || t.Validation != nil
	if custom != protocol.IsCustomRun(t.SubmissionID) {
		return fmt.Errorf("%w: id %d: custom run ids and custom tasks go together", ErrInvalidTask, t.SubmissionID)
	}
	if t.SubmittedAt.IsZero() {
		t.SubmittedAt = time.Now()
	}
	payload, err := json.Marshal(t.Task)
	if err != nil {
		return fmt.Errorf("queue: enqueue %d: %w", t.SubmissionID, err)
	}
	var fb []byte
	if t.Feedback != nil {
		if fb, err = json.Marshal(t.Feedback); err != nil {
			return fmt.Errorf("queue: enqueue %d: %w", t.SubmissionID, err)
		}
	}
	live := 0 // a custom run's live state is its own (custom.go)
	if !custom {
		live = 1
	}
	sub := strconv.FormatInt(t.SubmissionID, 10)
	n, err := enqueueScript.Run(ctx, q.c,
		[]string{q.n.Task(t.SubmissionID), q.n.Queue(), q.n.Leases(), q.n.QueueChanged(),
			q.n.LiveState(string(protocol.ChannelSubmission), t.SubmissionID)},
		sub, t.Attempt, score(t.Priority, t.SubmittedAt), payload, t.UserID, t.ContestID, t.ProblemID,
		fb, int64(q.cfg.LiveTTL.Seconds()), live).Int()
	if err != nil {
		return fmt.Errorf("queue: enqueue %d attempt %d: %w", t.SubmissionID, t.Attempt, err)
	}
	if n == 0 {
		return fmt.Errorf("queue: enqueue %d attempt %d: %w", t.SubmissionID, t.Attempt, ErrDuplicate)
	}
	if custom { // custom.go: a custom run's live state is its own
		return q.PublishCustomRun(ctx, CustomRunUpdate{Owner: t.UserID, Attempt: t.Attempt, Guard: GuardNone,
			State: protocol.CustomRunState{RunID: t.SubmissionID, ProblemID: t.ProblemID, Status: protocol.VerdictQueued}})
	}
	_, err = q.PublishSubmission(ctx, SubmissionUpdate{
		SubmissionID: t.SubmissionID, Attempt: t.Attempt, Owner: t.UserID, Contest: t.ContestID,
		// The feedback rule is in the live state already (the script).
		Status: protocol.VerdictQueued, Guard: GuardQueued,
	})
	return err
}

// Queued is a task waiting in the queue, as Peek sees it.
type Queued struct {
	Task      protocol.Task // Attempt is the current attempt
	UserID    int64
	ContestID int64
	// EnqueuedAt is when the submission entered the queue (Redis's clock),
	// kept across requeues.
	EnqueuedAt time.Time
}

// KEYS: queue. ARGV: limit, task key prefix. Returns flat triples
// {sub, attempt, payload, user, contest, enq_ms}.
var peekScript = redisscript.Named("queue.peek", redis.NewScript(lua(`
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
local out = {}
for _, id in ipairs(ids) do
  local t = redis.call('HMGET', ARGV[2] .. id, $taskAttempt, $taskPayload, $taskUser, $taskContest, $taskEnqueued, $taskState)
  if t[1] and t[2] and t[6] == $stateQueued then
    table.insert(out, id)
    table.insert(out, t[1])
    table.insert(out, t[2])
    table.insert(out, t[3] or '0')
    table.insert(out, t[4] or '0')
    table.insert(out, t[5] or '0')
  end
end
return out
`)))

// taskPrefix is the task key of submission "" minus the id, for scripts
// that derive task keys from queue members.
func (q *Queue) taskPrefix() string {
	k := q.n.Task(0)
	return strings.TrimSuffix(k, "0")
}

// Peek returns up to limit tasks from the head of the queue, in queue
// order, without taking them.
func (q *Queue) Peek(ctx context.Context, limit int) ([]Queued, error) {
	if limit < 1 {
		return nil, nil
	}
	res, err := peekScript.Run(ctx, q.c, []string{q.n.Queue()}, limit, q.taskPrefix()).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("queue: peek: %w", err)
	}
	out := make([]Queued, 0, len(res)/6)
	for i := 0; i+5 < len(res); i += 6 {
		var qt Queued
		if err := json.Unmarshal([]byte(res[i+2]), &qt.Task); err != nil {
			return nil, fmt.Errorf("queue: peek: task %s: %w", res[i], err)
		}
		qt.Task.SubmissionID, _ = strconv.ParseInt(res[i], 10, 64)
		qt.Task.Attempt, _ = strconv.Atoi(res[i+1])
		qt.UserID, _ = strconv.ParseInt(res[i+3], 10, 64)
		qt.ContestID, _ = strconv.ParseInt(res[i+4], 10, 64)
		ms, _ := strconv.ParseInt(res[i+5], 10, 64)
		qt.EnqueuedAt = time.UnixMilli(ms)
		out = append(out, qt)
	}
	return out, nil
}

// KEYS: queue, leases. ARGV: lease ms, task key prefix, then (sub,
// attempt, judge) triples. Returns the Redis time in ms followed by one
// flag per triple: 1 leased, 0 no longer queued under that attempt.
var leaseScript = redisscript.Named("queue.lease", redisscript.New(lua(`
local now = now_ms()
local deadline = now + tonumber(ARGV[1])
local out = {now}
for i = 3, #ARGV, 3 do
  local key = ARGV[2] .. ARGV[i]
  local t = redis.call('HMGET', key, $taskAttempt, $taskState)
  local ok = 0
  if t[1] == ARGV[i+1] and t[2] == $stateQueued and redis.call('ZREM', KEYS[1], ARGV[i]) == 1 then
    redis.call('HSET', key, $taskState, $stateLeased, $taskJudge, ARGV[i+2])
    redis.call('ZADD', KEYS[2], deadline, ARGV[i])
    ok = 1
  end
  table.insert(out, ok)
end
return out
`)))

// LeaseRequest asks for one task's lease for a judge.
type LeaseRequest struct {
	Ref   protocol.TaskRef
	Judge string
}

// Lease moves (submission, attempt) from the queue to a lease held by
// judge, expiring after d unless renewed. It fails with ErrNotQueued if the
// task is no longer queued under that attempt. It returns Redis's time of
// the lease.
func (q *Queue) Lease(ctx context.Context, ref protocol.TaskRef, judge string, d time.Duration) (time.Time, error) {
	at, ok, err := q.LeaseMany(ctx, []LeaseRequest{{Ref: ref, Judge: judge}}, d)
	if err != nil {
		return time.Time{}, err
	}
	if !ok[0] {
		return time.Time{}, fmt.Errorf("queue: lease %d attempt %d: %w", ref.SubmissionID, ref.Attempt, ErrNotQueued)
	}
	return at, nil
}

// LeaseMany is Lease for a whole dispatch pass in one round trip: the
// hub decides every placement of a pass first and then takes all the
// leases at once, so its dispatch rate is not one Redis round trip per
// task. ok[i] reports whether reqs[i] was leased; a false one is no
// longer queued under that attempt (another hub took it, or a rejudge
// replaced it), exactly as ErrNotQueued from Lease. All leases share one
// deadline, d after the returned Redis time.
func (q *Queue) LeaseMany(ctx context.Context, reqs []LeaseRequest, d time.Duration) (time.Time, []bool, error) {
	if len(reqs) == 0 {
		return time.Time{}, nil, nil
	}
	args := make([]any, 0, 2+3*len(reqs))
	args = append(args, d.Milliseconds(), q.taskPrefix())
	for _, r := range reqs {
		args = append(args, r.Ref.SubmissionID, r.Ref.Attempt, r.Judge)
	}
	res, err := leaseScript.Run(ctx, q.c, []string{q.n.Queue(), q.n.Leases()}, args...).Int64Slice()
	if err != nil {
		return time.Time{}, nil, fmt.Errorf("queue: lease %d tasks (first %d attempt %d): %w",
			len(reqs), reqs[0].Ref.SubmissionID, reqs[0].Ref.Attempt, err)
	}
	if len(res) != 1+len(reqs) {
		return time.Time{}, nil, fmt.Errorf("queue: lease %d tasks: script answered %d values", len(reqs), len(res))
	}
	ok := make([]bool, len(reqs))
	for i := range reqs {
		ok[i] = res[1+i] == 1
	}
	return time.UnixMilli(res[0]), ok, nil
}

// KEYS: leases. ARGV: judge, lease ms, task key prefix, then sub, attempt
// pairs. Returns flat {sub, attempt, user, contest} of renewed leases.
var renewScript = redisscript.Named("queue.renew", redisscript.New(lua(`
local now = now_ms()
local deadline = now + tonumber(ARGV[2])
local out = {}
for i = 4, #ARGV, 2 do
  local t = redis.call('HMGET', ARGV[3] .. ARGV[i], $taskAttempt, $taskState, $taskJudge, $taskUser, $taskContest)
  if t[1] == ARGV[i+1] and t[2] == $stateLeased and t[3] == ARGV[1] then
    redis.call('ZADD', KEYS[1], 'XX', deadline, ARGV[i])
    table.insert(out, ARGV[i])
    table.insert(out, t[1])
    table.insert(out, t[4] or '0')
    table.insert(out, t[5] or '0')
  end
end
return out
`)))

// Held is a lease a judge still holds, as Renew reports it.
type Held struct {
	Ref       protocol.TaskRef
	UserID    int64
	ContestID int64
}

// Renew extends to now+d the leases among refs that judge still holds and
// returns those. Refs it does not hold (stale attempts, requeued or
// finished tasks) are left alone and not returned.
func (q *Queue) Renew(ctx context.Context, judge string, refs []protocol.TaskRef, d time.Duration) ([]Held, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	args := make([]any, 0, 3+2*len(refs))
	args = append(args, judge, d.Milliseconds(), q.taskPrefix())
	for _, r := range refs {
		args = append(args, r.SubmissionID, r.Attempt)
	}
	res, err := renewScript.Run(ctx, q.c, []string{q.n.Leases()}, args...).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("queue: renew leases of %s: %w", judge, err)
	}
	out := make([]Held, 0, len(res)/4)
	for i := 0; i+3 < len(res); i += 4 {
		var h Held
		h.Ref.SubmissionID, _ = strconv.ParseInt(res[i], 10, 64)
		h.Ref.Attempt, _ = strconv.Atoi(res[i+1])
		h.UserID, _ = strconv.ParseInt(res[i+2], 10, 64)
		h.ContestID, _ = strconv.ParseInt(res[i+3], 10, 64)
		out = append(out, h)
	}
	return out, nil
}

// KEYS: task, queue, leases, changed. ARGV: sub, attempt, judge.
var releaseScript = redisscript.Named("queue.release", redis.NewScript(lua(`
local t = redis.call('HMGET', KEYS[1], $taskAttempt, $taskState, $taskJudge, $taskScore)
if t[1] ~= ARGV[2] or t[2] ~= $stateLeased or t[3] ~= ARGV[3] then return 0 end
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[1], $taskState, $stateQueued, $taskJudge, '')
redis.call('ZADD', KEYS[2], t[4], ARGV[1])
redis.call('PUBLISH', KEYS[4], ARGV[1])
return 1
`)))

// Release puts a task judge holds back at its place in the queue under the
// same attempt (the judge rejected it, or it could not be pushed). It
// returns ErrStale if judge does not hold that attempt.
func (q *Queue) Release(ctx context.Context, ref protocol.TaskRef, judge string) error {
	n, err := releaseScript.Run(ctx, q.c,
		[]string{q.n.Task(ref.SubmissionID), q.n.Queue(), q.n.Leases(), q.n.QueueChanged()},
		ref.SubmissionID, ref.Attempt, judge).Int()
	if err != nil {
		return fmt.Errorf("queue: release %d attempt %d: %w", ref.SubmissionID, ref.Attempt, err)
	}
	if n == 0 {
		return fmt.Errorf("queue: release %d attempt %d: %w", ref.SubmissionID, ref.Attempt, ErrStale)
	}
	return nil
}

// Result stream entry fields.
const (
	FieldSubmissionID = "submission_id"
	FieldAttempt      = "attempt"
	FieldVerdict      = "verdict"
	FieldSource       = "source"   // SourceJudge or SourceHub
	FieldJudgeID      = "judge_id" // the judge that judged (or last held) it
	FieldResult       = "result"   // JSON of protocol.Result
	FieldReason       = "reason"   // why the hub made a system error
)

// Result sources.
const (
	SourceJudge = "judge" // a judge's result
	SourceHub   = "hub"   // the hub's system error after MaxAttempts
)

// KEYS: task, leases, results, completions. ARGV: sub, attempt, judge,
// verdict, result json, done ttl s, maxlen, window ms. Returns {entry id,
// 0}; {entry id, 1} when judge's result had completed this attempt
// already (nothing is written); nil when judge does not hold it.
var completeScript = redisscript.Named("queue.complete", redisscript.New(lua(`
local t = redis.call('HMGET', KEYS[1], $taskAttempt, $taskState, $taskJudge, $taskDoneID)
if t[1] == ARGV[2] and t[2] == $stateDone and t[3] == ARGV[3] and t[4] then return {t[4], 1} end
if t[1] ~= ARGV[2] or t[2] ~= $stateLeased or t[3] ~= ARGV[3] then return false end
redis.call('ZREM', KEYS[2], ARGV[1])
local id = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[7], '*',
  $FieldSubmissionID, ARGV[1], $FieldAttempt, ARGV[2], $FieldVerdict, ARGV[4],
  $FieldSource, $SourceJudge, $FieldJudgeID, ARGV[3], $FieldResult, ARGV[5])
redis.call('HSET', KEYS[1], $taskState, $stateDone, $taskPayload, '', $taskDoneID, id)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[6]))
local now = now_ms()
redis.call('ZADD', KEYS[4], now, ARGV[1] .. ':' .. ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[8]))
return {id, 0}
`)))

// Complete appends judge's final result to the results stream and ends its
// lease, atomically, and returns the stream entry id. If judge no longer
// holds that attempt the result is not appended and ErrStale is returned.
// If judge's result completed that attempt already, nothing is appended
// and the first completion's entry id is returned (Completion.Again).
func (q *Queue) Complete(ctx context.Context, judge string, r protocol.Result) (Completion, error) {
	if err := r.Validate(); err != nil {
		return Completion{}, fmt.Errorf("queue: complete %d: %w: %w", r.SubmissionID, ErrInvalidTask, err)
	}
	if protocol.IsCustomRun(r.SubmissionID) {
		return Completion{}, q.completeCustom(ctx, judge, r) // custom.go: never on the results stream
	}
	call, err := q.completeArgs(judge, r)
	if err != nil {
		return Completion{}, err
	}
	c := completion(completeScript.Run(ctx, q.c, call.keys, call.args...), judge, r)
	return c, c.Err
}

// Completion is one result's outcome in CompleteMany: its results stream
// entry's id, or why it has none (ErrStale: the judge no longer holds the
// attempt; ErrInvalidTask).
type Completion struct {
	ID string
	// Again: this judge's result had completed the attempt already (ID is
	// that completion's entry; nothing was written). Its sender may not
	// have got the first answer, and then its caller never published the
	// final state: publish it under GuardUnfinished, which leaves a final
	// published since (or a staff override) alone. A custom run's repeat
	// is stale: its completion publishes.
	Again bool
	Err   error
}

// CompleteMany completes a judge's results, in their order, as Complete
// does each, the submissions' in one round trip (a custom run's take one
// each). The error is Redis's, for the whole call: then any number of the
// results may have been completed, each whole, and the judge, sent no
// ack, sends them again (a second completion of one attempt by the same
// judge is answered as the first, Again).
func (q *Queue) CompleteMany(ctx context.Context, judge string, rs []protocol.Result) ([]Completion, error) {
	out := make([]Completion, len(rs))
	var calls []scriptCall
	var at []int // rs index of each call
	for i, r := range rs {
		if err := r.Validate(); err != nil {
			out[i].Err = fmt.Errorf("queue: complete %d: %w: %w", r.SubmissionID, ErrInvalidTask, err)
			continue
		}
		if protocol.IsCustomRun(r.SubmissionID) {
			err := q.completeCustom(ctx, judge, r)
			if err != nil && !errors.Is(err, ErrStale) {
				return nil, err
			}
			out[i].Err = err
			continue
		}
		call, err := q.completeArgs(judge, r)
		if err != nil {
			return nil, err
		}
		calls, at = append(calls, call), append(at, i)
	}
	cmds, err := runMany(ctx, q.c, completeScript, calls)
	if err != nil {
		return nil, fmt.Errorf("queue: complete %d results from %s: %w", len(calls), judge, err)
	}
	for k, c := range cmds {
		i := at[k]
		out[i] = completion(c, judge, rs[i])
		if err := out[i].Err; err != nil && !errors.Is(err, ErrStale) {
			return nil, err
		}
	}
	return out, nil
}

// completeArgs are completeScript's keys and arguments for r.
func (q *Queue) completeArgs(judge string, r protocol.Result) (scriptCall, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return scriptCall{}, fmt.Errorf("queue: complete %d: %w", r.SubmissionID, err)
	}
	return scriptCall{
		keys: []string{q.n.Task(r.SubmissionID), q.n.Leases(), q.n.Results(), q.n.Completions()},
		args: []any{r.SubmissionID, r.Attempt, judge, string(r.Verdict), b,
			int64(q.cfg.DoneTTL / time.Second), q.cfg.ResultsMaxLen, CompletionWindow.Milliseconds()},
	}, nil
}

// completion reads completeScript's answer for r.
func completion(c *redis.Cmd, judge string, r protocol.Result) Completion {
	v, err := c.Slice()
	if errors.Is(err, redis.Nil) {
		return Completion{Err: fmt.Errorf("queue: complete %d attempt %d from %s: %w", r.SubmissionID, r.Attempt, judge, ErrStale)}
	}
	if err != nil {
		return Completion{Err: fmt.Errorf("queue: complete %d attempt %d: %w", r.SubmissionID, r.Attempt, err)}
	}
	if len(v) == 2 {
		id, _ := v[0].(string)
		again, ok := v[1].(int64)
		if id != "" && ok {
			return Completion{ID: id, Again: again == 1}
		}
	}
	return Completion{Err: fmt.Errorf("queue: complete %d attempt %d: unexpected answer %v", r.SubmissionID, r.Attempt, v)}
}

// Reap runs in two steps so that the system error result a last expiry
// appends is built here, from protocol.Result, and not in Lua: dueScript
// lists the expired leases with what their task records hold, Go builds
// each one's result, and reapScript acts on a lease only if it is still
// due and its record is still as listed (a lease renewed, completed or
// replaced in between is left alone; one changed but still due is left to
// the next Reap). Each lease's move stays one atomic step.

// KEYS: leases. ARGV: task key prefix, limit. Returns flat {sub, attempt,
// base, state, judge} per lease past its deadline ("" for a field the
// record lacks).
var dueScript = redisscript.Named("queue.due", redisscript.New(lua(`
local now = now_ms()
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(due) do
  local t = redis.call('HMGET', ARGV[1] .. id, $taskAttempt, $taskBase, $taskState, $taskJudge)
  table.insert(out, id)
  for j = 1, 4 do table.insert(out, t[j] or '') end
end
return out
`)))

// reapArgs is how many ARGV reapScript takes per lease.
const reapArgs = 8

// KEYS: leases, queue, results, changed, completions. ARGV: task key
// prefix, max attempts, done ttl s, maxlen, then per lease as dueScript
// listed it: sub, attempt, base, state, judge (the five as listed), the
// judge id of a system error, its result JSON and its reason (the
// result "": no results stream entry, a custom run).
// Returns flat {sub, attempt, outcome, judge, user} per expired lease;
// attempt is the new attempt for "requeued", the failed one for "failed".
var reapScript = redisscript.Named("queue.reap", redisscript.New(lua(`
local now = now_ms()
local out = {}
local requeued = 0
for i = 5, #ARGV, $reapArgs do
  local id = ARGV[i]
  local deadline = redis.call('ZSCORE', KEYS[1], id)
  local tk = ARGV[1] .. id
  local t = redis.call('HMGET', tk, $taskAttempt, $taskBase, $taskState, $taskScore, $taskJudge, $taskUser)
  if deadline and tonumber(deadline) <= now and (t[1] or '') == ARGV[i+1] and (t[2] or '') == ARGV[i+2]
    and (t[3] or '') == ARGV[i+3] and (t[5] or '') == ARGV[i+4] then
    redis.call('ZREM', KEYS[1], id)
    if t[3] == $stateLeased then
      local a = tonumber(t[1])
      if a - tonumber(t[2]) + 1 >= tonumber(ARGV[2]) then
        if ARGV[i+6] ~= '' then
          redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*',
            $FieldSubmissionID, id, $FieldAttempt, t[1], $FieldVerdict, $VerdictSE, $FieldSource, $SourceHub,
            $FieldJudgeID, ARGV[i+5], $FieldResult, ARGV[i+6], $FieldReason, ARGV[i+7])
        end
        redis.call('HSET', tk, $taskState, $stateDone, $taskPayload, '')
        redis.call('EXPIRE', tk, tonumber(ARGV[3]))
        redis.call('ZADD', KEYS[5], now, id .. ':' .. t[1])
        table.insert(out, id)
        table.insert(out, t[1])
        table.insert(out, 'failed')
      else
        redis.call('HSET', tk, $taskAttempt, a + 1, $taskState, $stateQueued, $taskJudge, '')
        redis.call('ZADD', KEYS[2], t[4], id)
        requeued = requeued + 1
        table.insert(out, id)
        table.insert(out, tostring(a + 1))
        table.insert(out, 'requeued')
      end
      table.insert(out, t[5] or '')
      table.insert(out, t[6] or '0')
    end
  end
end
if requeued > 0 then redis.call('PUBLISH', KEYS[4], 'reap') end
return out
`)))

// Expired is a lease Reap found past its deadline.
type Expired struct {
	// Ref is the submission with, when Requeued, its new attempt;
	// otherwise the attempt that failed last.
	Ref protocol.TaskRef
	// Requeued is true when the task went back to the queue, false when it
	// got a system error result.
	Requeued bool
	// Judge held the expired lease.
	Judge  string
	UserID int64
}

// Reap handles up to limit leases whose deadline passed (Redis's clock):
// each goes back to the queue with attempt+1, or, when it has used
// MaxAttempts attempts since it was enqueued, gets a system error result.
// Any number of hubs may reap concurrently.
func (q *Queue) Reap(ctx context.Context, limit int) ([]Expired, error) {
	if limit < 1 {
		limit = 100
	}
	listed, err := q.expiredLeases(ctx, limit)
	if err != nil || len(listed) == 0 {
		return nil, err
	}
	return q.reap(ctx, listed)
}

// listedLease is an expired lease as dueScript listed it: the member of
// the lease set and the fields of its task record ("" for a missing one).
type listedLease struct{ sub, attempt, base, state, judge string }

// expiredLeases lists up to limit leases past their deadline.
func (q *Queue) expiredLeases(ctx context.Context, limit int) ([]listedLease, error) {
	due, err := dueScript.Run(ctx, q.c, []string{q.n.Leases()}, q.taskPrefix(), limit).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("queue: reap: %w", err)
	}
	out := make([]listedLease, 0, len(due)/5)
	for i := 0; i+4 < len(due); i += 5 {
		out = append(out, listedLease{due[i], due[i+1], due[i+2], due[i+3], due[i+4]})
	}
	return out, nil
}

// reap requeues or fails the listed leases that are still as listed.
func (q *Queue) reap(ctx context.Context, listed []listedLease) ([]Expired, error) {
	args := make([]any, 0, 4+len(listed)*reapArgs)
	args = append(args, q.taskPrefix(), q.cfg.MaxAttempts, int64(q.cfg.DoneTTL/time.Second), q.cfg.ResultsMaxLen)
	for _, l := range listed {
		who, res, reason, err := q.expiryResult(l)
		if err != nil {
			return nil, fmt.Errorf("queue: reap %s: %w", l.sub, err)
		}
		args = append(args, l.sub, l.attempt, l.base, l.state, l.judge, who, res, reason)
	}
	res, err := reapScript.Run(ctx, q.c,
		[]string{q.n.Leases(), q.n.Queue(), q.n.Results(), q.n.QueueChanged(), q.n.Completions()},
		args...).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("queue: reap: %w", err)
	}
	out := make([]Expired, 0, len(res)/5)
	for i := 0; i+4 < len(res); i += 5 {
		var e Expired
		e.Ref.SubmissionID, _ = strconv.ParseInt(res[i], 10, 64)
		e.Ref.Attempt, _ = strconv.Atoi(res[i+1])
		e.Requeued = res[i+2] == "requeued"
		e.Judge = res[i+3]
		e.UserID, _ = strconv.ParseInt(res[i+4], 10, 64)
		out = append(out, e)
		if !e.Requeued && protocol.IsCustomRun(e.Ref.SubmissionID) {
			if err := q.failCustom(ctx, e); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// expiryResult is what the results stream gets if this expired lease, as
// dueScript listed it, is its enqueue's last allowed attempt: the judge id
// of the entry, the system error result and the reason. It is empty when
// the lease gets another attempt, when it is not a leased task's, and for
// a custom run (never on the results stream).
func (q *Queue) expiryResult(l listedLease) (who, result, reason string, err error) {
	id, err1 := strconv.ParseInt(l.sub, 10, 64)
	a, err2 := strconv.Atoi(l.attempt)
	b, err3 := strconv.Atoi(l.base)
	if l.state != stateLeased || err1 != nil || err2 != nil || err3 != nil ||
		a-b+1 < q.cfg.MaxAttempts || protocol.IsCustomRun(id) {
		return "", "", "", nil
	}
	who = cmp.Or(l.judge, "hub") // no judge held it: the hub's own error
	r, err := json.Marshal(protocol.Result{TaskRef: protocol.TaskRef{SubmissionID: id, Attempt: a},
		Verdict: protocol.VerdictSE, Cases: []protocol.CaseResult{}, JudgeID: who})
	if err != nil {
		return "", "", "", err
	}
	return who, string(r), fmt.Sprintf("lease expired on attempts %s..%s (last judge %s)", l.base, l.attempt, who), nil
}

// Len returns the number of queued tasks.
func (q *Queue) Len(ctx context.Context) (int64, error) {
	n, err := q.c.ZCard(ctx, q.n.Queue()).Result()
	if err != nil {
		return 0, fmt.Errorf("queue: length: %w", err)
	}
	return n, nil
}

// LenAt returns the number of queued tasks of priority p (its band of
// the queue's scores): a background rejudge paces itself by it.
func (q *Queue) LenAt(ctx context.Context, p protocol.Priority) (int64, error) {
	lo := int64(protocol.MaxRank-p.Rank()) * 1e13
	n, err := q.c.ZCount(ctx, q.n.Queue(), strconv.FormatInt(lo, 10), "("+strconv.FormatInt(lo+1e13, 10)).Result()
	if err != nil {
		return 0, fmt.Errorf("queue: length at priority %d: %w", p, err)
	}
	return n, nil
}

// Leased returns the number of leased tasks.
func (q *Queue) Leased(ctx context.Context) (int64, error) {
	n, err := q.c.ZCard(ctx, q.n.Leases()).Result()
	if err != nil {
		return 0, fmt.Errorf("queue: leases: %w", err)
	}
	return n, nil
}

// Position returns the 1-based position of a submission in the queue, or 0
// when it is not queued.
func (q *Queue) Position(ctx context.Context, submissionID int64) (int, error) {
	r, err := q.c.ZRank(ctx, q.n.Queue(), strconv.FormatInt(submissionID, 10)).Result()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("queue: position of %d: %w", submissionID, err)
	}
	return int(r) + 1, nil
}

// Positions returns the 1-based positions of submissions (0: not queued),
// in one round trip.
func (q *Queue) Positions(ctx context.Context, ids []int64) ([]int, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	pipe := q.c.Pipeline()
	cmds := make([]*redis.IntCmd, len(ids))
	for i, id := range ids {
		cmds[i] = pipe.ZRank(ctx, q.n.Queue(), strconv.FormatInt(id, 10))
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("queue: positions: %w", err)
	}
	out := make([]int, len(ids))
	for i, c := range cmds {
		if r, err := c.Result(); err == nil {
			out[i] = int(r) + 1
		}
	}
	return out, nil
}

// CompletionRate returns final results per second over the last window
// (at most CompletionWindow), by Redis's clock.
func (q *Queue) CompletionRate(ctx context.Context, window time.Duration) (float64, error) {
	if window <= 0 || window > CompletionWindow {
		window = CompletionWindow
	}
	now, err := q.c.Time(ctx).Result()
	if err != nil {
		return 0, fmt.Errorf("queue: completion rate: %w", err)
	}
	from := now.Add(-window).UnixMilli()
	n, err := q.c.ZCount(ctx, q.n.Completions(), strconv.FormatInt(from, 10), "+inf").Result()
	if err != nil {
		return 0, fmt.Errorf("queue: completion rate: %w", err)
	}
	return float64(n) / window.Seconds(), nil
}

// EnsureResultsGroup creates the results stream and its consumer group
// (rkeys.ResultsGroup) reading from the beginning, if missing. Both the hub
// (at start, so nothing appended before the first web node starts is
// missed) and the web nodes call it.
func (q *Queue) EnsureResultsGroup(ctx context.Context) error {
	err := q.c.XGroupCreateMkStream(ctx, q.n.Results(), q.n.ResultsGroup(), "0").Err()
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return fmt.Errorf("queue: create results group: %w", err)
	}
	return nil
}

// ResultEntry is one entry of the results stream.
type ResultEntry struct {
	// StreamID is the entry id, to XACK.
	StreamID     string
	SubmissionID int64
	// Attempt is the attempt judged. A web node records it with the
	// verdict and drops any entry whose attempt is lower than the one it
	// holds for the submission (stale: a rejudge started since).
	Attempt int
	Verdict protocol.Verdict
	// Source is SourceJudge or SourceHub (system error after MaxAttempts).
	Source  string
	JudgeID string
	Result  protocol.Result
	// Reason explains a hub-made system error.
	Reason string
}

// ParseResult decodes a results stream entry (from XREADGROUP).
func ParseResult(m redis.XMessage) (ResultEntry, error) {
	e := ResultEntry{StreamID: m.ID}
	str := func(k string) string { s, _ := m.Values[k].(string); return s }
	var err error
	if e.SubmissionID, err = strconv.ParseInt(str(FieldSubmissionID), 10, 64); err != nil {
		return e, fmt.Errorf("queue: result %s: submission_id: %w", m.ID, err)
	}
	if e.Attempt, err = strconv.Atoi(str(FieldAttempt)); err != nil {
		return e, fmt.Errorf("queue: result %s: attempt: %w", m.ID, err)
	}
	e.Verdict = protocol.Verdict(str(FieldVerdict))
	e.Source = str(FieldSource)
	e.JudgeID = str(FieldJudgeID)
	e.Reason = str(FieldReason)
	if err := json.Unmarshal([]byte(str(FieldResult)), &e.Result); err != nil {
		return e, fmt.Errorf("queue: result %s: result: %w", m.ID, err)
	}
	if err := e.Result.Validate(); err != nil {
		return e, fmt.Errorf("queue: result %s: %w", m.ID, err)
	}
	if e.Result.SubmissionID != e.SubmissionID || e.Result.Attempt != e.Attempt {
		return e, fmt.Errorf("queue: result %s: fields and result disagree", m.ID)
	}
	return e, nil
}

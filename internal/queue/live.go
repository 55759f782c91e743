package queue

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/redisscript"
)

// ErrNoState: the channel has no live state in Redis (never enqueued here,
// or expired).
var ErrNoState = errors.New("queue: no live state")

// Guard says when PublishSubmission may change a submission's live state.
type Guard int

// Guards.
const (
	// GuardNone: always (enqueue, or a web node correcting the state).
	GuardNone Guard = iota
	// GuardLeased: only while the attempt is the task's current one and
	// leased (a judge's progress; a stale judge cannot overwrite).
	GuardLeased
	// GuardAttempt: only while the attempt is the task's current one
	// (the final result, published after Complete).
	GuardAttempt
	// GuardQueued: only while the attempt is the task's current one and
	// still queued (Enqueue's "queued", a round trip after the task
	// became visible: a loaded web node's came after the hub had
	// dispatched it and published its verdict, and turned the verdict
	// back to "queued" on its owner's page; the 2026-12-04 rehearsals).
	GuardQueued
	// GuardUnfinished: only while the attempt is the task's current one
	// and the live state, of that attempt, shows no outcome yet (a judge's
	// repeat of the result that completed its attempt: the first
	// completion's answer, and so its publish, may have been lost; what
	// was published since, the final or a staff override, stands).
	GuardUnfinished
)

// SubmissionUpdate is one change of a submission's live state.
type SubmissionUpdate struct {
	SubmissionID int64
	Attempt      int
	// Owner's user channel also gets the status changes; 0: read the owner
	// stored with the state, if any.
	Owner int64
	// Contest is the submission's contest (0: practice, or read the one
	// stored with the state): its status channel gets the status changes
	// too, as does the site-wide status channel (protocol.ChannelStatus).
	Contest        int64
	Status         protocol.Verdict
	Score          float64
	CompileMessage string
	// Cases finished (any order; a case already in the state is skipped).
	Cases []protocol.CaseResult
	Guard Guard
	// Feedback, when set, replaces the feedback rule kept with the state
	// (Enqueue sets it from Task.Feedback). Every event published on the
	// submission and user channels carries the kept rule as a top-level
	// "feedback" field, for the hub to censor what it forwards to
	// browsers that are not staff (it strips the field before sending).
	// A cases event also carries, as "prior", the cases the state held
	// before it, in short (index, verdict, score; for the hub only,
	// stripped likewise): the hub censors a batch as part of the whole
	// result.
	Feedback *protocol.Feedback
}

// KEYS: state, channel, task, user state prefix (user id appended),
// user channel prefix, status state prefix (0 or contest id appended),
// status channel prefix. ARGV: guard, attempt, sub, status, head json,
// ttl s, owner, feedback json (or empty), contest, then per case its
// index, its json and its short json (index, verdict, score).
// Returns {published 0|1, seq}.
var publishSubmissionScript = redisscript.Named("queue.publishSubmission", redis.NewScript(lua(`
local guard = tonumber(ARGV[1])
if guard ~= $GuardNone then
  local t = redis.call('HMGET', KEYS[3], $taskAttempt, $taskState)
  if t[1] ~= ARGV[2] then return {0, 0} end
  if guard == $GuardLeased and t[2] ~= $stateLeased then return {0, 0} end
  if guard == $GuardQueued and t[2] ~= $stateQueued then return {0, 0} end
end
local cur = redis.call('HMGET', KEYS[1], $liveAttempt, $liveHead, $liveOwner, $liveContest)
if guard == $GuardUnfinished then
  if cur[1] ~= ARGV[2] or not cur[2] then return {0, 0} end
  local st = cjson.decode(cur[2]).status
  if st ~= $VerdictPending and st ~= $VerdictQueued and st ~= $VerdictCompiling and st ~= $VerdictJudging then
    return {0, 0}
  end
end
local owner = ARGV[7]
if owner == '0' and cur[3] then owner = cur[3] end
local contest = ARGV[9]
if contest == '0' and cur[4] then contest = cur[4] end
if cur[1] ~= ARGV[2] then
  local fields = redis.call('HKEYS', KEYS[1])
  for _, f in ipairs(fields) do
    if string.sub(f, 1, #$liveCase) == $liveCase then redis.call('HDEL', KEYS[1], f) end
  end
  redis.call('HDEL', KEYS[1], $livePrior)
  redis.call('HSET', KEYS[1], $liveAttempt, ARGV[2])
  cur[2] = false
end
if owner ~= '0' then redis.call('HSET', KEYS[1], $liveOwner, owner) end
if contest ~= '0' then redis.call('HSET', KEYS[1], $liveContest, contest) end
if ARGV[8] ~= '' then redis.call('HSET', KEYS[1], $liveFeedback, ARGV[8]) end
local fb = redis.call('HGET', KEYS[1], $liveFeedback)
local fbpart = ''
if fb then fbpart = ',"feedback":' .. fb end
local chan = '{"kind":"submission","id":' .. ARGV[3] .. '}'
-- The cases already held, before this update's, in short (index,
-- verdict, score: no message), kept in field $livePrior: a cases event
-- carries them as "prior" (for the hub, which strips it), so that a batch
-- is censored as part of the whole result (internal/feedback.Event).
local prior = redis.call('HGET', KEYS[1], $livePrior) or ''
local fresh, short = {}, {}
for i = 10, #ARGV, 3 do
  if redis.call('HSETNX', KEYS[1], $liveCase .. ARGV[i], ARGV[i+1]) == 1 then
    table.insert(fresh, ARGV[i+1])
    table.insert(short, ARGV[i+2])
  end
end
if #short > 0 then
  local all = table.concat(short, ',')
  if prior ~= '' then all = prior .. ',' .. all end
  redis.call('HSET', KEYS[1], $livePrior, all)
end
local seq = 0
local published = 0
if #fresh > 0 then
  seq = redis.call('HINCRBY', KEYS[1], $liveSeq, 1)
  local body = '{"submission_id":' .. ARGV[3] .. ',"status":' .. cjson.encode(ARGV[4]) ..
    ',"cases":[' .. table.concat(fresh, ',') .. ']}'
  redis.call('PUBLISH', KEYS[2], '{"channel":' .. chan .. ',"seq":' .. seq ..
    ',"kind":"cases","body":' .. body .. fbpart .. ',"prior":[' .. prior .. ']}')
  published = 1
end
if cur[2] ~= ARGV[5] then
  redis.call('HSET', KEYS[1], $liveHead, ARGV[5])
  seq = redis.call('HINCRBY', KEYS[1], $liveSeq, 1)
  redis.call('PUBLISH', KEYS[2], '{"channel":' .. chan .. ',"seq":' .. seq ..
    ',"kind":"status","body":' .. ARGV[5] .. fbpart .. '}')
  published = 1
  if owner ~= '0' then
    local us = KEYS[4] .. owner
    local useq = redis.call('HINCRBY', us, $liveSeq, 1)
    redis.call('EXPIRE', us, tonumber(ARGV[6]))
    redis.call('PUBLISH', KEYS[5] .. owner, '{"channel":{"kind":"user","id":' .. owner ..
      '},"seq":' .. useq .. ',"kind":"status","body":' .. ARGV[5] .. fbpart .. '}')
    -- The user channel's snapshot: the latest head of each recent
    -- submission, the oldest dropped beyond the bound.
    redis.call('HSET', us, $liveItem .. ARGV[3], ARGV[5])
    if redis.call('HLEN', us) > $UserStateItems + 8 then
      local ids = {}
      for _, f in ipairs(redis.call('HKEYS', us)) do
        if string.sub(f, 1, #$liveItem) == $liveItem then table.insert(ids, tonumber(string.sub(f, #$liveItem + 1))) end
      end
      table.sort(ids)
      for i = 1, #ids - $UserStateItems do redis.call('HDEL', us, $liveItem .. ids[i]) end
    end
  end
  -- The status channels: the site's (0) and the contest's.
  local targets = {'0'}
  if contest ~= '0' then table.insert(targets, contest) end
  for _, sid in ipairs(targets) do
    local ss = KEYS[6] .. sid
    local sseq = redis.call('HINCRBY', ss, $liveSeq, 1)
    redis.call('EXPIRE', ss, tonumber(ARGV[6]))
    redis.call('PUBLISH', KEYS[7] .. sid, '{"channel":{"kind":"status","id":' .. sid ..
      '},"seq":' .. sseq .. ',"kind":"status","body":' .. ARGV[5] .. fbpart .. '}')
  end
end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[6]))
return {published, seq}
`)))

// PublishSubmission applies u to the submission's live state and publishes
// what changed: an EventCases with the cases not seen before, and an
// EventStatus (also on the owner's user channel) when status, score or
// compile message changed. A new attempt drops the cases of the previous
// one. It reports whether anything was published; with a guard that does
// not hold, nothing changes.
func (q *Queue) PublishSubmission(ctx context.Context, u SubmissionUpdate) (bool, error) {
	keys, args, err := q.publishArgs(u)
	if err != nil {
		return false, err
	}
	res, err := publishSubmissionScript.Run(ctx, q.c, keys, args...).Int64Slice()
	if err != nil {
		return false, fmt.Errorf("queue: publish %d attempt %d: %w", u.SubmissionID, u.Attempt, err)
	}
	return len(res) > 0 && res[0] == 1, nil
}

// PublishSubmissions applies the updates in their order, as
// PublishSubmission does each, in one round trip: a judge's progress
// batches waiting for the hub are sent together. An update that cannot be
// encoded fails the whole call before anything is sent; so does a Redis
// error, after which any number of the updates may have been applied (each
// is whole: one script).
func (q *Queue) PublishSubmissions(ctx context.Context, us []SubmissionUpdate) ([]bool, error) {
	calls := make([]scriptCall, len(us))
	for i, u := range us {
		keys, args, err := q.publishArgs(u)
		if err != nil {
			return nil, err
		}
		calls[i] = scriptCall{keys, args}
	}
	cmds, err := runMany(ctx, q.c, publishSubmissionScript, calls)
	if err != nil {
		return nil, fmt.Errorf("queue: publish %d updates: %w", len(us), err)
	}
	out := make([]bool, len(us))
	for i, c := range cmds {
		res, err := c.Int64Slice()
		if err != nil {
			return nil, fmt.Errorf("queue: publish %d attempt %d: %w", us[i].SubmissionID, us[i].Attempt, err)
		}
		out[i] = len(res) > 0 && res[0] == 1
	}
	return out, nil
}

// publishArgs are publishSubmissionScript's keys and arguments for u.
func (q *Queue) publishArgs(u SubmissionUpdate) ([]string, []any, error) {
	head, err := json.Marshal(protocol.SubmissionState{
		SubmissionID: u.SubmissionID, Status: u.Status, Score: u.Score, CompileMessage: u.CompileMessage,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("queue: publish %d: %w", u.SubmissionID, err)
	}
	var fb []byte
	if u.Feedback != nil {
		if fb, err = json.Marshal(u.Feedback); err != nil {
			return nil, nil, fmt.Errorf("queue: publish %d: %w", u.SubmissionID, err)
		}
	}
	args := make([]any, 0, 9+3*len(u.Cases))
	args = append(args, int(u.Guard), u.Attempt, u.SubmissionID, string(u.Status), head,
		int64(q.cfg.LiveTTL.Seconds()), u.Owner, fb, u.Contest)
	for _, c := range u.Cases {
		b, err := json.Marshal(c)
		if err != nil {
			return nil, nil, fmt.Errorf("queue: publish %d: %w", u.SubmissionID, err)
		}
		short, err := json.Marshal(protocol.CaseResult{Case: c.Case, Verdict: c.Verdict, Score: c.Score})
		if err != nil {
			return nil, nil, fmt.Errorf("queue: publish %d: %w", u.SubmissionID, err)
		}
		args = append(args, c.Case, b, short)
	}
	userState := strings.TrimSuffix(q.n.LiveState("user", 0), "0")
	userChan := strings.TrimSuffix(q.n.Events("user", 0), "0")
	statusState := strings.TrimSuffix(q.n.LiveState(string(protocol.ChannelStatus), 0), "0")
	statusChan := strings.TrimSuffix(q.n.Events(string(protocol.ChannelStatus), 0), "0")
	return []string{
		q.n.LiveState(string(protocol.ChannelSubmission), u.SubmissionID),
		q.n.Events(string(protocol.ChannelSubmission), u.SubmissionID),
		q.n.Task(u.SubmissionID), userState, userChan, statusState, statusChan,
	}, args, nil
}

// SubmissionSnapshot is a submission's live state, its owner and its
// feedback rule (nil when none was kept: an older enqueue).
type SubmissionSnapshot struct {
	Seq      uint64
	Owner    int64
	State    protocol.SubmissionState
	Feedback *protocol.Feedback
}

// Submission reads a submission's live state (ErrNoState if none).
func (q *Queue) Submission(ctx context.Context, id int64) (SubmissionSnapshot, error) {
	var s SubmissionSnapshot
	m, err := q.c.HGetAll(ctx, q.n.LiveState(string(protocol.ChannelSubmission), id)).Result()
	if err != nil {
		return s, fmt.Errorf("queue: live state of %d: %w", id, err)
	}
	if len(m) == 0 || m[liveHead] == "" {
		return s, fmt.Errorf("queue: live state of %d: %w", id, ErrNoState)
	}
	s.Seq, _ = strconv.ParseUint(m[liveSeq], 10, 64)
	s.Owner, _ = strconv.ParseInt(m[liveOwner], 10, 64)
	if err := json.Unmarshal([]byte(m[liveHead]), &s.State); err != nil {
		return s, fmt.Errorf("queue: live state of %d: %w", id, err)
	}
	if v := m[liveFeedback]; v != "" {
		var fb protocol.Feedback
		if err := json.Unmarshal([]byte(v), &fb); err != nil {
			return s, fmt.Errorf("queue: live state of %d: feedback: %w", id, err)
		}
		s.Feedback = &fb
	}
	for k, v := range m {
		if !strings.HasPrefix(k, liveCase) {
			continue
		}
		var c protocol.CaseResult
		if err := json.Unmarshal([]byte(v), &c); err != nil {
			return s, fmt.Errorf("queue: live state of %d: case %s: %w", id, k, err)
		}
		s.State.Cases = append(s.State.Cases, c)
	}
	slices.SortFunc(s.State.Cases, func(a, b protocol.CaseResult) int { return a.Case - b.Case })
	return s, nil
}

// UserState reads a user channel's sequence number and its snapshot
// state: the latest status of the user's recent submissions, newest first.
func (q *Queue) UserState(ctx context.Context, userID int64) (uint64, protocol.UserState, error) {
	st := protocol.UserState{Items: []protocol.SubmissionState{}}
	m, err := q.c.HGetAll(ctx, q.n.LiveState(string(protocol.ChannelUser), userID)).Result()
	if err != nil {
		return 0, st, fmt.Errorf("queue: live state of user %d: %w", userID, err)
	}
	seq, _ := strconv.ParseUint(m[liveSeq], 10, 64)
	for k, v := range m {
		if !strings.HasPrefix(k, liveItem) {
			continue
		}
		var s protocol.SubmissionState
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			return 0, st, fmt.Errorf("queue: live state of user %d: %s: %w", userID, k, err)
		}
		st.Items = append(st.Items, s)
	}
	slices.SortFunc(st.Items, func(a, b protocol.SubmissionState) int { return cmp.Compare(b.SubmissionID, a.SubmissionID) })
	if len(st.Items) > protocol.UserStateItems {
		st.Items = st.Items[:protocol.UserStateItems]
	}
	return seq, st, nil
}

// Seqs reads the channels' current sequence numbers, in one round trip
// (0 for a channel with no live state): a reader that knows what it was
// sent of a channel learns whether anything was published since without
// reading the channel's state. Not for the hub-numbered channels (the site's
// status channel as a student sees it, a contest's pushed board).
func (q *Queue) Seqs(ctx context.Context, chans []protocol.Channel) ([]uint64, error) {
	out := make([]uint64, len(chans))
	if len(chans) == 0 {
		return out, nil
	}
	pipe := q.c.Pipeline()
	cmds := make([]*redis.StringCmd, len(chans))
	for i, ch := range chans {
		cmds[i] = pipe.HGet(ctx, q.n.LiveState(string(ch.Kind), ch.ID), liveSeq)
	}
	_, _ = pipe.Exec(ctx) // each command's error is read below
	for i, c := range cmds {
		v, err := c.Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("queue: sequence numbers: %w", err)
		}
		if out[i], err = strconv.ParseUint(v, 10, 64); err != nil {
			return nil, fmt.Errorf("queue: sequence number of %s: %w", chans[i], err)
		}
	}
	return out, nil
}

// KEYS: state, channel. ARGV: channel json, event kind, body, state, ttl s,
// tag.
var publishDocScript = redisscript.Named("queue.publishDoc", redis.NewScript(lua(`
if ARGV[7] ~= '' then
  local o = redis.call('HMGET', KEYS[1], $liveOrderGen, $liveOrderSeq, $liveOrderAt)
  if o[1] == ARGV[7] then
    local os, oa, ns, na = tonumber(o[2]), tonumber(o[3]), tonumber(ARGV[8]), tonumber(ARGV[9])
    if os > ns or (os == ns and oa > na) then return 0 end
  end
  redis.call('HSET', KEYS[1], $liveOrderGen, ARGV[7], $liveOrderSeq, ARGV[8], $liveOrderAt, ARGV[9])
end
local seq = redis.call('HINCRBY', KEYS[1], $liveSeq, 1)
redis.call('HSET', KEYS[1], $liveDocTag, ARGV[6])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], $liveDoc, ARGV[4]) end
if tonumber(ARGV[5]) > 0 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5])) end
redis.call('PUBLISH', KEYS[2], '{"channel":' .. ARGV[1] .. ',"seq":' .. seq ..
  ',"kind":' .. cjson.encode(ARGV[2]) .. ',"body":' .. ARGV[3] .. '}')
return seq
`)))

// PublishDoc publishes one event on a channel whose document a web node
// owns (a contest scoreboard, a user's submission list): it stores state
// (when not nil) as the channel's snapshot state and publishes an event
// with the channel's next sequence number. body and state must be JSON.
// The hub pushes contest channels from the stored state (coalesced, at
// most four a second, the rows that changed since its last push) and never
// reads their events' bodies: for them state must be the whole document
// and the body may be as small as {}. A state of DocGzipMin bytes or more
// is stored compressed; Doc and VersionedDoc give back the JSON.
func (q *Queue) PublishDoc(ctx context.Context, ch protocol.Channel, kind protocol.EventKind, body, state json.RawMessage) (uint64, error) {
	return q.PublishOrderedDoc(ctx, ch, kind, body, state, DocOrder{})
}

// DocOrder orders the documents publishers assemble from one source (a
// contest's board, read by several web nodes): Seq is the source's change
// counter the document holds every change up to, At when its read began,
// Gen the source's generation. A document is stored and published only if
// the channel holds none of a later order (Seq, then At) of the same Gen:
// a node slow to assemble its board does not put back an older one after
// another node's newer one (the 40× rehearsals of 2026-12-07 19:14 and
// 19:52: rows left the board and came back, and each time the hubs pushed
// the whole board to every browser). The zero DocOrder: always.
type DocOrder struct {
	Gen string
	Seq int64
	At  time.Time
}

// PublishOrderedDoc is PublishDoc under order: it answers 0 (and
// publishes nothing) when the channel holds a document of a later order.
func (q *Queue) PublishOrderedDoc(ctx context.Context, ch protocol.Channel, kind protocol.EventKind, body, state json.RawMessage, order DocOrder) (uint64, error) {
	if err := ch.Validate(); err != nil || ch.Kind == protocol.ChannelQueue || ch.Kind == protocol.ChannelSubmission {
		return 0, fmt.Errorf("%w: PublishDoc is for user and contest channels, got %s", ErrInvalidTask, ch)
	}
	if !json.Valid(body) || (state != nil && !json.Valid(state)) {
		return 0, fmt.Errorf("%w: body or state is not JSON", ErrInvalidTask)
	}
	chJSON, _ := json.Marshal(ch)
	var ttl int64
	if ch.Kind == protocol.ChannelUser {
		ttl = int64(q.cfg.LiveTTL.Seconds())
	}
	seq, err := publishDocScript.Run(ctx, q.c,
		[]string{q.n.LiveState(string(ch.Kind), ch.ID), q.n.Events(string(ch.Kind), ch.ID)},
		chJSON, string(kind), []byte(body), packDoc(state), ttl, newDocTag(),
		order.Gen, order.Seq, order.At.UnixMilli()).Uint64()
	if err != nil {
		return 0, fmt.Errorf("queue: publish %s: %w", ch, err)
	}
	return seq, nil
}

// DocVersion names one publish of a web-node-owned channel (PublishDoc):
// its sequence number and a random tag made with it. The number alone does
// not name it: when Redis loses its data (or comes back from an older
// append-only file) the sequence starts over and meets numbers a reader
// still holds a document of; the tag does not come again. The zero
// DocVersion: nothing published.
type DocVersion struct {
	Seq uint64
	Tag string
}

// newDocTag makes a publish's tag: 64 random bits.
func newDocTag() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// DocVersion reads only a web-node-owned channel's version (the zero
// DocVersion: none stored): what tells a reader whether the state it holds
// is the latest without moving the state (hundreds of kilobytes for a big
// contest's board).
func (q *Queue) DocVersion(ctx context.Context, ch protocol.Channel) (DocVersion, error) {
	v, err := q.c.HMGet(ctx, q.n.LiveState(string(ch.Kind), ch.ID), liveSeq, liveDocTag).Result()
	if err != nil {
		return DocVersion{}, fmt.Errorf("queue: version of %s: %w", ch, err)
	}
	return docVersion(v[0], v[1]), nil
}

func docVersion(seq, tag any) DocVersion {
	var dv DocVersion
	if s, ok := seq.(string); ok {
		dv.Seq, _ = strconv.ParseUint(s, 10, 64)
	}
	dv.Tag, _ = tag.(string)
	return dv
}

// Doc reads a web-node-owned channel's sequence number and state; state is
// nil when none was stored.
func (q *Queue) Doc(ctx context.Context, ch protocol.Channel) (uint64, json.RawMessage, error) {
	dv, state, err := q.VersionedDoc(ctx, ch)
	return dv.Seq, state, err
}

// VersionedDoc reads a web-node-owned channel's version and state, at one
// time; state is nil when none was stored.
func (q *Queue) VersionedDoc(ctx context.Context, ch protocol.Channel) (DocVersion, json.RawMessage, error) {
	dv, d, err := q.VersionedDocStored(ctx, ch)
	if err != nil || d.Empty() {
		return dv, nil, err
	}
	state, err := d.JSON()
	if err != nil {
		return DocVersion{}, nil, fmt.Errorf("queue: state of %s: %w", ch, err)
	}
	return dv, state, nil
}

// VersionedDocStored is VersionedDoc with the document as it is stored,
// not decompressed (StoredDoc; empty when none was stored): a web node
// answers a request that accepts gzip with the stored stream, and reads
// only the document's head to check it, decompressing it whole for the
// rest only when one asks.
func (q *Queue) VersionedDocStored(ctx context.Context, ch protocol.Channel) (DocVersion, *StoredDoc, error) {
	v, err := q.c.HMGet(ctx, q.n.LiveState(string(ch.Kind), ch.ID), liveSeq, liveDocTag, liveDoc).Result()
	if err != nil {
		return DocVersion{}, nil, fmt.Errorf("queue: state of %s: %w", ch, err)
	}
	s, _ := v[2].(string)
	return docVersion(v[0], v[1]), storedDoc(s), nil
}

package queue

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/redisscript"
)

// Feedbacks reads the feedback rules kept with the live states of
// submissions ids (see Task.Feedback), in one round trip. A submission
// without a live state, or whose state has no rule, is not in the map.
func (q *Queue) Feedbacks(ctx context.Context, ids []int64) (map[int64]protocol.Feedback, error) {
	out := make(map[int64]protocol.Feedback, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	pipe := q.c.Pipeline()
	cmds := make([]*redis.StringCmd, len(ids))
	for i, id := range ids {
		cmds[i] = pipe.HGet(ctx, q.n.LiveState(string(protocol.ChannelSubmission), id), liveFeedback)
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, fmt.Errorf("queue: feedback rules: %w", err)
	}
	for i, c := range cmds {
		v, err := c.Result()
		if err != nil || v == "" {
			continue
		}
		var fb protocol.Feedback
		if err := json.Unmarshal([]byte(v), &fb); err != nil {
			return nil, fmt.Errorf("queue: feedback rule of %d: %w", ids[i], err)
		}
		out[ids[i]] = fb
	}
	return out, nil
}

// KEYS: a submission's live state. ARGV: feedback json. Sets the rule of
// a state that exists (a gone state stays gone).
var setFeedbackScript = redisscript.Named("queue.setFeedback", redis.NewScript(lua(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], $liveFeedback, ARGV[1])
  return 1
end
return 0
`)))

// SetFeedbacks replaces the feedback rules kept with the live states of
// the given submissions (a contest's policy or end changed): the hub
// censors their next snapshots and events by the new rule. Submissions
// without a live state are skipped.
func (q *Queue) SetFeedbacks(ctx context.Context, rules map[int64]protocol.Feedback) error {
	if len(rules) == 0 {
		return nil
	}
	if err := setFeedbackScript.Load(ctx, q.c).Err(); err != nil {
		return fmt.Errorf("queue: set feedback rules: %w", err)
	}
	pipe := q.c.Pipeline()
	for id, fb := range rules {
		b, err := json.Marshal(fb)
		if err != nil {
			return fmt.Errorf("queue: feedback rule of %d: %w", id, err)
		}
		setFeedbackScript.EvalSha(ctx, pipe, []string{q.n.LiveState(string(protocol.ChannelSubmission), id)}, b)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("queue: set feedback rules: %w", err)
	}
	return nil
}

package queue

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// Attempt returns the highest attempt of a submission the queue holds or
// held (queued, leased, or done within DoneTTL) and true, or 0 and false
// when the queue has no task for it. Reap raises a task's attempt on
// every expired lease without MySQL knowing, so a rejudge enqueues one
// more than this to be sure to replace it (Enqueue ignores any attempt
// not above it).
func (q *Queue) Attempt(ctx context.Context, submissionID int64) (int, bool, error) {
	v, err := q.c.HGet(ctx, q.n.Task(submissionID), taskAttempt).Result()
	if errors.Is(err, redis.Nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("queue: attempt of %d: %w", submissionID, err)
	}
	a, err := strconv.Atoi(v)
	if err != nil {
		return 0, false, fmt.Errorf("queue: attempt of %d: malformed %q: %w", submissionID, v, err)
	}
	return a, true, nil
}

// Attempts is Attempt for many submissions in one round trip: the
// attempt the queue holds for each id, 0 where it holds none (or the
// field is malformed, which a caller treats like none).
func (q *Queue) Attempts(ctx context.Context, submissionIDs []int64) ([]int, error) {
	pipe := q.c.Pipeline()
	cmds := make([]*redis.StringCmd, len(submissionIDs))
	for i, id := range submissionIDs {
		cmds[i] = pipe.HGet(ctx, q.n.Task(id), taskAttempt)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("queue: attempts: %w", err)
	}
	out := make([]int, len(submissionIDs))
	for i, c := range cmds {
		out[i], _ = strconv.Atoi(c.Val())
	}
	return out, nil
}

// LeaseHolder returns the judge holding a submission's task under a
// lease, or "" when it is not leased (queued, done, or unknown).
func (q *Queue) LeaseHolder(ctx context.Context, submissionID int64) (string, error) {
	vs, err := q.c.HMGet(ctx, q.n.Task(submissionID), taskState, taskJudge).Result()
	if err != nil {
		return "", fmt.Errorf("queue: lease holder of %d: %w", submissionID, err)
	}
	state, _ := vs[0].(string)
	judge, _ := vs[1].(string)
	if state != stateLeased {
		return "", nil
	}
	return judge, nil
}

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

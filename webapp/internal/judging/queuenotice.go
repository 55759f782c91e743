package judging

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
)

// QueueNotice returns the hubs' overload notice (rkeys.QueueNotice, set
// by the hub while the queue is long) with the submission's position in
// the queue, or nil when there is none, or Redis cannot say: the notice
// is a courtesy, never a reason to fail a submit.
func (s *Service) QueueNotice(ctx context.Context, submissionID int64) *protocol.QueueNotice {
	b, err := s.rdb.Get(ctx, s.n.QueueNotice()).Bytes()
	if err != nil {
		if !errors.Is(err, redis.Nil) {
			s.log.Debug("queue notice unreadable", obs.Err(err))
		}
		return nil
	}
	var n protocol.QueueNotice
	if json.Unmarshal(b, &n) != nil {
		return nil
	}
	if pos, err := s.q.Position(ctx, submissionID); err == nil {
		n.Position = pos
	}
	return &n
}

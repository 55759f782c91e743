package judging

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/judgestate"
)

// JudgeStates reads the hub's state of each named judge
// (rkeys.Judge(name), internal/judgestate) in one round trip. errs[i] is
// judgestate.Decode's error for names[i]: judgestate.ErrNoState when the
// hub holds none (never connected, or silent for a few heartbeats), an
// ErrMalformed beside a usable state, or nil. err is Redis failing.
func (s *Service) JudgeStates(ctx context.Context, names []string) (states []judgestate.State, errs []error, err error) {
	if len(names) == 0 {
		return nil, nil, nil
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(names))
	for i, n := range names {
		cmds[i] = pipe.HGetAll(ctx, s.n.Judge(n))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, nil, fmt.Errorf("judging: judge states: %w", err)
	}
	states, errs = make([]judgestate.State, len(names)), make([]error, len(names))
	for i, c := range cmds {
		states[i], errs[i] = judgestate.Decode(c.Val())
	}
	return states, errs, nil
}

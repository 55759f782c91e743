package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// scriptCall is one run of a script: its keys and arguments.
type scriptCall struct {
	keys []string
	args []any
}

// runMany runs the script once per call, in order, in one pipeline, and
// returns each run's command. A script Redis does not hold (a restart
// emptied its cache) is loaded and the pipeline sent once more: Redis
// refuses every EVALSHA of an unknown script, so none of the first
// pipeline's runs happened. Other errors are the caller's, per command.
func runMany(ctx context.Context, c redis.UniversalClient, s *redis.Script, calls []scriptCall) ([]*redis.Cmd, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	send := func() ([]*redis.Cmd, error) {
		pipe := c.Pipeline()
		cmds := make([]*redis.Cmd, len(calls))
		for i, call := range calls {
			cmds[i] = s.EvalSha(ctx, pipe, call.keys, call.args...)
		}
		_, err := pipe.Exec(ctx)
		return cmds, err
	}
	cmds, err := send()
	if err != nil && noScript(cmds) {
		if err := s.Load(ctx, c).Err(); err != nil {
			return nil, fmt.Errorf("load script: %w", err)
		}
		cmds, err = send()
	}
	if err != nil && !perCommand(cmds) {
		return nil, err
	}
	return cmds, nil
}

// noScript reports whether the first command failed for want of the script.
func noScript(cmds []*redis.Cmd) bool {
	return len(cmds) > 0 && redis.HasErrorPrefix(cmds[0].Err(), "NOSCRIPT")
}

// perCommand reports whether every failure in cmds is the command's own
// (a script's nil answer, a Redis error reply) rather than the
// connection's, which leaves the caller to read each command.
func perCommand(cmds []*redis.Cmd) bool {
	for _, c := range cmds {
		err := c.Err()
		var re redis.Error
		if err != nil && !errors.Is(err, redis.Nil) && !errors.As(err, &re) {
			return false
		}
	}
	return true
}

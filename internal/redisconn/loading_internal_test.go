package redisconn

import (
	"context"
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestRefusedWhileLoading(t *testing.T) {
	ctx := context.Background()
	loading := errors.New("LOADING Redis is loading the dataset in memory")
	abort := errors.New("EXECABORT Transaction discarded because of previous errors.")
	wrongArgs := errors.New("ERR wrong number of arguments for 'set' command")
	cmd := func(name string, err error) redis.Cmder {
		c := redis.NewCmd(ctx, name, "k")
		c.SetErr(err)
		return c
	}
	tx := func(exec error, inner ...redis.Cmder) []redis.Cmder {
		return append(append([]redis.Cmder{cmd("multi", nil)}, inner...), cmd("exec", exec))
	}
	tests := []struct {
		name string
		cmds []redis.Cmder
		err  error
		want bool
	}{
		{"a transaction aborted by a loading command", tx(abort, cmd("hgetall", loading), cmd("pexpire", loading)), abort, true},
		{"one loading command aborts it all", tx(abort, cmd("get", nil), cmd("set", loading)), abort, true},
		{"a transaction aborted for another reason", tx(abort, cmd("get", nil), cmd("set", wrongArgs)), abort, false},
		{"MULTI itself refused", tx(loading, cmd("get", loading)), loading, true},
		{"a transaction that failed otherwise", tx(wrongArgs, cmd("get", nil)), wrongArgs, false},
		{"a pipeline refused whole", []redis.Cmder{cmd("get", loading), cmd("incr", loading)}, loading, true},
		{"a pipeline run in part", []redis.Cmder{cmd("get", loading), cmd("incr", nil)}, loading, false},
		{"a pipeline with another error", []redis.Cmder{cmd("get", wrongArgs), cmd("incr", loading)}, wrongArgs, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedWhileLoading(tc.cmds, tc.err); got != tc.want {
				t.Errorf("refusedWhileLoading = %v, want %v", got, tc.want)
			}
		})
	}
}

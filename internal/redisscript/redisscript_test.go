package redisscript_test

import (
	"context"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/redisscript"
	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestNowIsRedisTimeInMilliseconds(t *testing.T) {
	env := testenv.Redis(t)
	ctx := context.Background()
	before, err := env.Client.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	ms, err := redisscript.New(`return now_ms()`).Run(ctx, env.Client, nil).Int64()
	if err != nil {
		t.Fatal(err)
	}
	after, err := env.Client.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	got := time.UnixMilli(ms)
	if got.Before(before.Truncate(time.Millisecond)) || got.After(after) {
		t.Fatalf("now_ms() = %v, want between Redis's TIME %v and %v", got, before, after)
	}
}

func TestScriptsSeeThePreludeAndTheirArguments(t *testing.T) {
	env := testenv.Redis(t)
	ctx := context.Background()
	key := env.Names.Lock("prelude")
	s := redisscript.New(`
local now = now_ms()
redis.call('SET', KEYS[1], ARGV[1], 'PX', 60000)
return {now > 0 and 1 or 0, redis.call('GET', KEYS[1])}`)
	v, err := s.Run(ctx, env.Client, []string{key}, "x").Slice()
	if err != nil {
		t.Fatal(err)
	}
	if v[0] != int64(1) || v[1] != "x" {
		t.Fatalf("script returned %v, want [1 x]", v)
	}
}

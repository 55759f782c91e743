package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/redisscript"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// Rule is a limit of Limit events per Window for one kind of subject.
type Rule struct {
	Kind   string // key component, e.g. "login-user"
	Limit  int
	Window time.Duration
}

// Limiter applies rules.
type Limiter struct {
	rdb   redis.UniversalClient
	names rkeys.Names
	now   func() time.Time // nil: Redis's clock (Take only)
}

// New returns a Limiter.
func New(rdb redis.UniversalClient, names rkeys.Names) *Limiter {
	return &Limiter{rdb: rdb, names: names}
}

// WithClock returns a copy of l whose Take reads now instead of Redis's
// clock (tests).
func (l *Limiter) WithClock(now func() time.Time) *Limiter {
	c := *l
	c.now = now
	return &c
}

// hitScript increments the counter and starts the window on the first hit.
// Returns the count and the window's remaining milliseconds.
var hitScript = redisscript.Named("ratelimit.hit", redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}
`))

// Blocked reports whether subject has used up rule's window, and if so how
// long until it may try again.
func (l *Limiter) Blocked(ctx context.Context, r Rule, subject string) (bool, time.Duration, error) {
	k := l.names.RateLimit(r.Kind, subject)
	var get *redis.StringCmd
	var ttl *redis.DurationCmd
	if _, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		get = p.Get(ctx, k)
		ttl = p.PTTL(ctx, k)
		return nil
	}); err != nil && err != redis.Nil {
		return false, 0, fmt.Errorf("ratelimit %s: %w", r.Kind, err)
	}
	n, _ := get.Int()
	if n < r.Limit {
		return false, 0, nil
	}
	wait := ttl.Val()
	if wait <= 0 {
		wait = time.Second
	}
	return true, wait, nil
}

// Hit counts one event and returns the count in the current window.
func (l *Limiter) Hit(ctx context.Context, r Rule, subject string) (int, error) {
	res, err := hitScript.Run(ctx, l.rdb, []string{l.names.RateLimit(r.Kind, subject)}, r.Window.Milliseconds()).Int64Slice()
	if err != nil {
		return 0, fmt.Errorf("ratelimit %s: %w", r.Kind, err)
	}
	return int(res[0]), nil
}

// Reset forgets subject's events (e.g. after a successful login).
func (l *Limiter) Reset(ctx context.Context, r Rule, subject string) error {
	if err := l.rdb.Del(ctx, l.names.RateLimit(r.Kind, subject)).Err(); err != nil {
		return fmt.Errorf("ratelimit %s: %w", r.Kind, err)
	}
	return nil
}

package redislock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/redisscript"
)

// ErrConfig is wrapped by New for a missing client, key or holder or a
// TTL under a millisecond.
var ErrConfig = errors.New("redislock: bad config")

// Lock is one holder's handle on one lease. Its methods are safe for
// concurrent use.
type Lock struct {
	rdb    redis.UniversalClient
	key    string
	holder string
	ttl    time.Duration
}

// New returns holder's handle on the lease at key, held ttl at a time.
// Holders must be distinct (a hub id, a node id).
func New(rdb redis.UniversalClient, key, holder string, ttl time.Duration) (*Lock, error) {
	switch {
	case rdb == nil:
		return nil, fmt.Errorf("%w: no Redis client", ErrConfig)
	case key == "":
		return nil, fmt.Errorf("%w: no key", ErrConfig)
	case holder == "":
		return nil, fmt.Errorf("%w: no holder", ErrConfig)
	case ttl < time.Millisecond:
		return nil, fmt.Errorf("%w: ttl %v under 1ms", ErrConfig, ttl)
	}
	return &Lock{rdb: rdb, key: key, holder: holder, ttl: ttl}, nil
}

// Key is the lease's Redis key.
func (l *Lock) Key() string { return l.key }

// holdScript takes the lease when free or renews it (a full TTL again)
// when the holder has it. KEYS: lease. ARGV: holder, ttl ms. 1: held now.
var holdScript = redisscript.Named("redislock.hold", redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur == false or cur == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`))

// releaseScript deletes the lease if the holder has it. KEYS: lease.
// ARGV: holder. 1: released.
var releaseScript = redisscript.Named("redislock.release", redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`))

// Hold takes the lease if it is free, renews it for a full TTL if this
// holder has it, and reports whether this holder holds it now. Call it at
// intervals well under the TTL.
func (l *Lock) Hold(ctx context.Context) (bool, error) {
	n, err := holdScript.Run(ctx, l.rdb, []string{l.key}, l.holder, l.ttl.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("redislock: hold %s: %w", l.key, err)
	}
	return n == 1, nil
}

// Release gives the lease up if this holder has it, so another may take it
// at once instead of after the TTL; it reports whether it did.
func (l *Lock) Release(ctx context.Context) (bool, error) {
	n, err := releaseScript.Run(ctx, l.rdb, []string{l.key}, l.holder).Int()
	if err != nil {
		return false, fmt.Errorf("redislock: release %s: %w", l.key, err)
	}
	return n == 1, nil
}

// Holder returns who holds the lease now ("" when nobody does).
func (l *Lock) Holder(ctx context.Context) (string, error) {
	v, err := l.rdb.Get(ctx, l.key).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("redislock: read %s: %w", l.key, err)
	}
	return v, nil
}

package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/verdict-oj/verdict/internal/redisscript"
)

// Bucket is a burst-friendly rate: Rate events per Per sustained, and up
// to Burst at once after a quiet spell (the generic cell rate algorithm:
// one timestamp per subject in Redis).
type Bucket struct {
	Kind  string // key component, e.g. "submit"
	Rate  int
	Per   time.Duration
	Burst int
}

// Interval is the sustained time between two events.
func (b Bucket) Interval() time.Duration { return b.Per / time.Duration(max(b.Rate, 1)) }

// GCRA is the pure rule of takeScript: tat is the subject's theoretical
// arrival time (zero when unknown). It reports whether an event at now
// conforms, the new tat if it does, and otherwise how long until it would.
func GCRA(tat, now time.Time, interval time.Duration, burst int) (ok bool, next time.Time, wait time.Duration) {
	if tat.Before(now) {
		tat = now
	}
	next = tat.Add(interval)
	limit := time.Duration(burst) * interval
	if over := next.Sub(now) - limit; over > 0 {
		return false, tat, over
	}
	return true, next, 0
}

// takeScript: KEYS the subject's key; ARGV now (ms, 0: TIME), interval
// ms, burst. Returns {conforms, wait ms}.
var takeScript = redisscript.Named("ratelimit.take", redisscript.New(luaNow+`
local interval, burst = tonumber(ARGV[2]), tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if tat < now then tat = now end
local nxt = tat + interval
local over = nxt - now - burst * interval
if over > 0 then return {0, over} end
redis.call('SET', KEYS[1], nxt, 'PX', math.max(1, nxt - now))
return {1, 0}
`))

// Take counts one event of subject against b if it conforms; otherwise it
// reports how long until one would.
func (l *Limiter) Take(ctx context.Context, b Bucket, subject string) (bool, time.Duration, error) {
	var now int64
	if l.now != nil {
		now = l.now().UnixMilli()
	}
	res, err := takeScript.Run(ctx, l.rdb, []string{l.names.RateLimit(b.Kind, subject)}, now,
		b.Interval().Milliseconds(), b.Burst).Int64Slice()
	if err != nil {
		return false, 0, fmt.Errorf("ratelimit %s: %w", b.Kind, err)
	}
	if len(res) != 2 {
		return false, 0, fmt.Errorf("ratelimit %s: unexpected reply %v", b.Kind, res)
	}
	return res[0] == 1, time.Duration(res[1]) * time.Millisecond, nil
}

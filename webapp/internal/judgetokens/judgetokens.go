package judgetokens

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/internal/tokens"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Source lists the judges whose tokens are valid.
type Source interface {
	ActiveJudges(ctx context.Context) ([]store.Judge, error)
}

// Sync rewrites rkeys.JudgeTokens from src atomically, marks the table
// loaded (rkeys.JudgeTokensSynced, even when no judge has a token) and
// returns how many tokens it holds now.
func Sync(ctx context.Context, src Source, rdb redis.Cmdable, names rkeys.Names) (int, error) {
	js, err := src.ActiveJudges(ctx)
	if err != nil {
		return 0, fmt.Errorf("judgetokens: %w", err)
	}
	entries := make([]tokens.Entry, len(js))
	for i, j := range js {
		entries[i] = tokens.Entry{Name: j.Name, Hash: j.TokenHash}
	}
	if err := tokens.Replace(ctx, rdb, names, entries, time.Now()); err != nil {
		return 0, fmt.Errorf("judgetokens: %w", err)
	}
	return len(js), nil
}

// DefaultProbe is how often Keep checks that the table is still in Redis.
const DefaultProbe = 2 * time.Second

// Keep syncs now and then every interval until ctx ends, logging failures
// (a Redis or MySQL outage only delays the next sync). Between syncs it
// checks every probe (DefaultProbe when 0) that the table is still loaded,
// and syncs at once when it is not: a Redis that restarted without its
// data must not leave judges unable to log in, or web nodes believing no
// judge is live, for a whole interval. It returns nil once ctx ends, with
// nothing left running: a lifecycle step's Run.
func Keep(ctx context.Context, src Source, rdb redis.Cmdable, names rkeys.Names, interval, probe time.Duration, log *slog.Logger) error {
	if probe <= 0 {
		probe = DefaultProbe
	}
	probe = min(probe, interval)
	t := time.NewTicker(probe)
	defer t.Stop()
	var last time.Time
	for {
		due := time.Since(last) >= interval
		if !due {
			loaded, err := tokens.Loaded(ctx, rdb, names)
			if err == nil && !loaded {
				log.Warn("the judge token table is gone from Redis (Redis restarted empty?); restoring it from MySQL")
				due = true
			}
		}
		if due {
			if n, err := Sync(ctx, src, rdb, names); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				log.Warn("judge tokens not synced to Redis", "err", err)
			} else {
				last = time.Now()
				log.Debug("judge tokens synced to Redis", "judges", n)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Finder finds a judge by the SHA-256 of its token (store.ErrNotFound
// when none has it).
type Finder interface {
	JudgeByTokenHash(ctx context.Context, hash []byte) (store.Judge, error)
}

// ErrUnknown: neither Redis nor MySQL knows the token.
var ErrUnknown = errors.New("judgetokens: unknown judge token")

// Lookup returns the name of the judge whose token this is, from
// rkeys.JudgeTokens (internal/tokens) or, when Redis does not have it
// (not synced yet, restarted empty, or failing), from src. ErrUnknown
// when neither knows it; any other error is src failing. A Redis failure
// is logged (at warn) and answered from src.
func Lookup(ctx context.Context, src Finder, rdb redis.Cmdable, names rkeys.Names, token string, log *slog.Logger) (string, error) {
	name, err := tokens.Lookup(ctx, rdb, names, token)
	if err == nil {
		return name, nil
	}
	if !errors.Is(err, tokens.ErrUnknown) && !errors.Is(err, tokens.ErrNotLoaded) && log != nil {
		log.Warn("judge token lookup in Redis failed; asking MySQL", "err", err)
	}
	j, err := src.JudgeByTokenHash(ctx, tokens.Hash(token))
	if errors.Is(err, store.ErrNotFound) {
		return "", ErrUnknown
	}
	if err != nil {
		return "", fmt.Errorf("judgetokens: %w", err)
	}
	return j.Name, nil
}

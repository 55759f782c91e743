package judgetokens

import (
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Source lists the judges whose tokens are valid.
type Source interface {
	ActiveJudges(ctx context.Context) ([]store.Judge, error)
}

// Sync rewrites rkeys.JudgeTokens from src atomically and returns how many
// tokens it holds now.
func Sync(ctx context.Context, src Source, rdb redis.Cmdable, names rkeys.Names) (int, error) {
	js, err := src.ActiveJudges(ctx)
	if err != nil {
		return 0, fmt.Errorf("judgetokens: %w", err)
	}
	fields := make([]any, 0, 2*len(js))
	for _, j := range js {
		fields = append(fields, hex.EncodeToString(j.TokenHash), j.Name)
	}
	key := names.JudgeTokens()
	_, err = rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, key)
		if len(fields) > 0 {
			p.HSet(ctx, key, fields...)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("judgetokens: write %s: %w", key, err)
	}
	return len(js), nil
}

// Keep syncs now and then every interval until ctx ends, logging failures
// (a Redis or MySQL outage only delays the next sync).
func Keep(ctx context.Context, src Source, rdb redis.Cmdable, names rkeys.Names, interval time.Duration, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := Sync(ctx, src, rdb, names); err != nil {
			if ctx.Err() != nil {
				return
			}
			log.Warn("judge tokens not synced to Redis", "err", err)
		} else {
			log.Debug("judge tokens synced to Redis", "judges", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

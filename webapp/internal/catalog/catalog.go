package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// DefaultTTL bounds how long a cached list lives even without writes.
const DefaultTTL = 5 * time.Minute

// Config configures New.
type Config struct {
	Store *store.Store          // required
	Redis redis.UniversalClient // required
	Names rkeys.Names
	// TTL of a cached list. Default DefaultTTL.
	TTL    time.Duration
	Logger *slog.Logger // default: discard
}

// Catalog is the cached problem list.
type Catalog struct {
	cfg Config
}

// New checks cfg.
func New(cfg Config) (*Catalog, error) {
	if cfg.Store == nil || cfg.Redis == nil {
		return nil, errors.New("catalog: Store and Redis are required")
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Catalog{cfg: cfg}, nil
}

// Key names.
func (c *Catalog) genKey() string { return c.cfg.Names.Cache("problems", "gen") }
func (c *Catalog) listKey(gen int64) string {
	return c.cfg.Names.Cache("problems", "public", strconv.FormatInt(gen, 10))
}

// PublicProblems returns the public problems, from the cache when it holds
// them. When Redis fails, it answers from MySQL and logs the failure.
func (c *Catalog) PublicProblems(ctx context.Context) (list []store.ProblemSummary, cached bool, err error) {
	gen, rerr := c.cfg.Redis.Get(ctx, c.genKey()).Int64()
	if errors.Is(rerr, redis.Nil) {
		gen, rerr = 0, nil
	}
	if rerr == nil {
		b, gerr := c.cfg.Redis.Get(ctx, c.listKey(gen)).Bytes()
		switch {
		case gerr == nil:
			if jerr := json.Unmarshal(b, &list); jerr == nil {
				return list, true, nil
			}
			c.cfg.Logger.Warn("catalog: corrupt cached problem list; reloading", "key", c.listKey(gen))
		case !errors.Is(gerr, redis.Nil):
			rerr = gerr
		}
	}
	list, err = c.cfg.Store.ListProblems(ctx, store.VisibilityPublic)
	if err != nil {
		return nil, false, fmt.Errorf("catalog public problems: %w", err)
	}
	if rerr != nil {
		c.cfg.Logger.Warn("catalog: redis unavailable; serving from MySQL", "err", rerr)
		return list, false, nil
	}
	b, err := json.Marshal(list)
	if err != nil {
		return nil, false, fmt.Errorf("catalog public problems: %w", err)
	}
	if err := c.cfg.Redis.Set(ctx, c.listKey(gen), b, c.cfg.TTL).Err(); err != nil {
		c.cfg.Logger.Warn("catalog: cannot fill the cache", "err", err)
	}
	return list, false, nil
}

// InvalidateProblems makes the next read load the list from MySQL. Call it
// after every committed write to problems.
func (c *Catalog) InvalidateProblems(ctx context.Context) error {
	if err := c.cfg.Redis.Incr(ctx, c.genKey()).Err(); err != nil {
		return fmt.Errorf("catalog invalidate problems: %w", err)
	}
	return nil
}

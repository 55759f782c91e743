package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/lifecycle"
	"github.com/verdict-oj/verdict/internal/redisscript"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// Errors returned by this package.
var (
	// ErrConfig reports an unusable Config.
	ErrConfig = errors.New("registry: invalid config")
)

// Default timings.
const (
	// DefaultInterval is how often a Registrar renews its entry.
	DefaultInterval = 2 * time.Second
	// ExpiryFactor: an entry expires ExpiryFactor × Interval after its last
	// renewal, so two renewals may be lost before the edge drops a node.
	ExpiryFactor = 3
)

// Event is the JSON message published on rkeys.RegistryChanged. Watchers
// need not parse it: any message means "read the registry again".
type Event struct {
	Role rkeys.Role `json:"role"`
	Addr string     `json:"addr"`
	// Kind is "join" or "leave".
	Kind string `json:"kind"`
}

// Event kinds.
const (
	Join  = "join"
	Leave = "leave"
)

// registerScript adds or renews ARGV[1] with expiry Redis-now + ARGV[2] ms
// and publishes ARGV[3] on KEYS[2] when the member was absent or already
// expired (a join, as the edge sees it). Returns 1 on a join.
var registerScript = redisscript.Named("registry.register", redisscript.New(`
local now = now_ms()
local old = redis.call('ZSCORE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
if (not old) or tonumber(old) <= now then
  redis.call('PUBLISH', KEYS[2], ARGV[3])
  return 1
end
return 0
`))

// deregisterScript removes ARGV[1] and publishes ARGV[2] when it was there.
var deregisterScript = redisscript.Named("registry.deregister", redis.NewScript(`
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('PUBLISH', KEYS[2], ARGV[2])
  return 1
end
return 0
`))

// liveScript returns the members whose expiry is after Redis-now, after
// deleting those expired more than ARGV[1] ms ago. Second value: how many
// were pruned.
var liveScript = redisscript.Named("registry.live", redisscript.New(`
local now = now_ms()
local pruned = redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - tonumber(ARGV[1])))
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
return {live, pruned}
`))

// Config configures a Registrar.
type Config struct {
	// Client is the Redis connection (any go-redis client). Required.
	Client redis.Scripter
	// Names builds the key names. Zero value: rkeys.DefaultPrefix.
	Names rkeys.Names
	// Role is what this process is (rkeys.RoleWeb or rkeys.RoleHub). Required.
	Role rkeys.Role
	// Addr is the host:port at which the edge reaches this process — not
	// a wildcard listen address like ":8080". Required.
	Addr string
	// Interval between renewals. Default DefaultInterval; the entry expires
	// ExpiryFactor × Interval after its last renewal.
	Interval time.Duration
	// Logger. Default: discard.
	Logger *slog.Logger
}

// Registrar keeps one process's entry in the live registry.
type Registrar struct {
	cfg   Config
	key   string
	chg   string
	join  string
	leave string
}

// New checks cfg and returns a Registrar. It does not touch Redis.
func New(cfg Config) (*Registrar, error) {
	if cfg.Client == nil {
		return nil, fmt.Errorf("%w: Client is required", ErrConfig)
	}
	if cfg.Role != rkeys.RoleWeb && cfg.Role != rkeys.RoleHub {
		return nil, fmt.Errorf("%w: unknown role %q", ErrConfig, cfg.Role)
	}
	if err := checkAddr(cfg.Addr); err != nil {
		return nil, err
	}
	if cfg.Interval == 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Interval < 10*time.Millisecond {
		return nil, fmt.Errorf("%w: Interval %v is too short", ErrConfig, cfg.Interval)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Logger = cfg.Logger.With("registry_role", string(cfg.Role), "registry_addr", cfg.Addr)
	msg := func(kind string) string {
		b, _ := json.Marshal(Event{Role: cfg.Role, Addr: cfg.Addr, Kind: kind})
		return string(b)
	}
	return &Registrar{
		cfg:   cfg,
		key:   cfg.Names.Registry(cfg.Role),
		chg:   cfg.Names.RegistryChanged(),
		join:  msg(Join),
		leave: msg(Leave),
	}, nil
}

func checkAddr(a string) error {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("%w: Addr %q: %w", ErrConfig, a, err)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		return fmt.Errorf("%w: Addr %q: need the address others reach, not a wildcard", ErrConfig, a)
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return fmt.Errorf("%w: Addr %q: bad port", ErrConfig, a)
	}
	return nil
}

// Expiry is how long an entry lives without renewal.
func (r *Registrar) Expiry() time.Duration { return ExpiryFactor * r.cfg.Interval }

// Register adds or renews the entry once. It reports whether this was a
// join (the entry was absent or expired), in which case a change was
// published.
func (r *Registrar) Register(ctx context.Context) (joined bool, err error) {
	n, err := registerScript.Run(ctx, r.cfg.Client, []string{r.key, r.chg},
		r.cfg.Addr, r.Expiry().Milliseconds(), r.join).Int()
	if err != nil {
		return false, fmt.Errorf("registry register %s %s: %w", r.cfg.Role, r.cfg.Addr, err)
	}
	return n == 1, nil
}

// Deregister removes the entry, publishing a change if it was there.
func (r *Registrar) Deregister(ctx context.Context) error {
	if err := deregisterScript.Run(ctx, r.cfg.Client, []string{r.key, r.chg},
		r.cfg.Addr, r.leave).Err(); err != nil {
		return fmt.Errorf("registry deregister %s %s: %w", r.cfg.Role, r.cfg.Addr, err)
	}
	return nil
}

// Run registers at once, renews every Interval until ctx is done, then
// deregisters (with a fresh 2 s timeout) and returns. A failed first
// registration is returned as an error; later renewal failures are logged
// and retried on the next tick (the entry survives ExpiryFactor-1 misses).
//
// For a graceful drain, cancel Run's context first (the edge stops routing
// to the process within its poll interval plus a reload), then shut the
// server down.
func (r *Registrar) Run(ctx context.Context) error {
	if _, err := r.Register(ctx); err != nil {
		return err
	}
	r.cfg.Logger.Info("registered", "expiry", r.Expiry())
	t := time.NewTicker(r.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			if err := r.Deregister(dctx); err != nil {
				r.cfg.Logger.Warn("deregister failed; the entry will expire", "err", err)
				return err
			}
			r.cfg.Logger.Info("deregistered")
			return nil
		case <-t.C:
			// Wait for a renewal as long as it can still land before the
			// entry expires. The last renewal landed at most one interval
			// before this tick (at or after the previous one), so the entry
			// lives at least ExpiryFactor-1 intervals past it. Giving up
			// after one interval would let the entry expire under a Redis
			// (or a process) slow enough to take longer than that, though
			// still in time. Renewals never overlap: this loop waits for
			// each, and the ticker drops the ticks it missed meanwhile.
			rctx, cancel := context.WithTimeout(ctx, (ExpiryFactor-1)*r.cfg.Interval)
			joined, err := r.Register(rctx)
			cancel()
			switch {
			case err != nil && ctx.Err() == nil:
				r.cfg.Logger.Warn("renew failed", "err", err)
			case joined:
				r.cfg.Logger.Warn("re-registered after the entry had expired")
			}
		}
	}
}

// readyPoll is how often Keep asks whether the process is ready.
const readyPoll = 50 * time.Millisecond

// Keep is how a process stays in the registry, the same for every role: it
// waits until ready answers nil (nil: at once), so the edge never routes
// to a process that cannot serve yet, then runs Run; when Run fails (the
// first registration: Redis down or unreachable at start), it logs and
// runs it again after a backoff from 100 ms doubling up to Interval,
// forever. It returns nil once ctx ends, after Run deregistered. Use it as
// the first step of a lifecycle.Run drain.
func (r *Registrar) Keep(ctx context.Context, ready func(context.Context) error) error {
	if ready != nil {
		if lifecycle.Retry(ctx, lifecycle.Backoff{Min: readyPoll, Max: readyPoll}, nil, "", ready) != nil {
			return nil // stopped before ready: never registered
		}
	}
	b := lifecycle.Backoff{Min: min(100*time.Millisecond, r.cfg.Interval), Max: r.cfg.Interval}
	_ = lifecycle.Retry(ctx, b, r.cfg.Logger, "registering in the live registry", r.Run)
	return nil
}

// Live returns the live members of role's registry (expiry after Redis's
// now), in Redis order, and deletes members that expired more than
// pruneAfter ago. pruned is how many were deleted.
func Live(ctx context.Context, c redis.Scripter, names rkeys.Names, role rkeys.Role, pruneAfter time.Duration) (members []string, pruned int, err error) {
	if pruneAfter < 0 {
		pruneAfter = 0
	}
	res, err := liveScript.Run(ctx, c, []string{names.Registry(role)}, pruneAfter.Milliseconds()).Slice()
	if err != nil {
		return nil, 0, fmt.Errorf("registry read %s: %w", role, err)
	}
	if len(res) != 2 {
		return nil, 0, fmt.Errorf("registry read %s: unexpected reply %v", role, res)
	}
	list, _ := res[0].([]any)
	for _, m := range list {
		s, ok := m.(string)
		if !ok {
			return nil, 0, fmt.Errorf("registry read %s: unexpected member %T", role, m)
		}
		members = append(members, s)
	}
	n, _ := res[1].(int64)
	return members, int(n), nil
}

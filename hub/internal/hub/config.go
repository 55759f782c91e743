package hub

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/redisconn"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/internal/warmplan"
)

// ErrConfig reports an unusable Config.
var ErrConfig = errors.New("hub: invalid config")

// Defaults of Config. The dispatcher's (DispatchInterval, PeekWindow)
// are sched's: sched.DefaultDispatchTick, sched.DefaultPeekWindow.
const (
	DefaultMissedHeartbeats = 3
	DefaultNoticeInterval   = time.Second
	DefaultCoalesce         = 250 * time.Millisecond
	DefaultSendQueue        = 64
	DefaultWriteTimeout     = 10 * time.Second
	DefaultHelloTimeout     = 10 * time.Second
	DefaultMaxSubscriptions = 64
	DefaultPingInterval     = 25 * time.Second
	DefaultSessionCheck     = time.Minute
	DefaultETAWindow        = 2 * time.Minute
	DefaultWarmInterval     = 5 * time.Second
	DefaultBrowserReads     = 32
)

// Config configures New. Zero fields take the documented defaults.
type Config struct {
	// Redis is the connection to the shared Redis. Required.
	Redis redis.UniversalClient
	// Names builds Redis names. Zero value: rkeys.DefaultPrefix.
	Names rkeys.Names
	// HubID names this hub in welcome messages, logs and the capacity
	// hash. Default: hostname-pid-random.
	HubID string
	// Policy schedules tasks onto judges. Default: sched "default".
	Policy sched.Policy

	// HeartbeatInterval is announced to judges in welcome.
	// Default protocol.DefaultHeartbeatInterval (3 s).
	HeartbeatInterval time.Duration
	// MissedHeartbeats: a judge silent for this many intervals is dead: its
	// connection is closed (CloseHeartbeatTimeout). Default 3.
	MissedHeartbeats int
	// LeaseTimeout is how long a lease lives without renewal. Default
	// (MissedHeartbeats + 1) × HeartbeatInterval, so a lease outlives a
	// dead judge's connection by one interval and a judge that reconnects
	// (to this or another hub) in that time keeps its tasks.
	LeaseTimeout time.Duration
	// ReapInterval is how often expired leases are requeued. Default
	// HeartbeatInterval / 2.
	ReapInterval time.Duration
	// DispatchInterval is the dispatch tick when nothing wakes the
	// dispatcher earlier (enqueues, results and heartbeats do). Default
	// sched.DefaultDispatchTick (250ms).
	DispatchInterval time.Duration
	// PeekWindow is how many queue head tasks one dispatch pass considers,
	// so a task no judge can run does not block the ones behind it.
	// Default sched.DefaultPeekWindow (64).
	PeekWindow int
	// Reserve is the share of the judges' slots that rejudges leave free
	// for contest, practice and custom-run work (sched.Reserve): a staff
	// rejudge of thousands then cannot make a contestant wait for a slot.
	// Default sched.DefaultReserveShare (1/8); negative: no reserve.
	Reserve float64
	// MaxAttempts before a system error. Default queue.DefaultMaxAttempts.
	MaxAttempts int
	// HelloTimeout bounds the wait for a judge's hello. Default 10s.
	HelloTimeout time.Duration

	// NoticeInterval is how often the overload notice is recomputed and,
	// while overloaded, republished. Default 1s.
	NoticeInterval time.Duration
	// ETAWindow is the window of the completion rate behind the ETA.
	// Default 2 minutes.
	ETAWindow time.Duration

	// WarmBefore: from this long before a contest starts until it ends,
	// every judge prefetches its problems' test data (the warm plan the
	// web nodes write, rkeys.WarmPlan). Default warmplan.DefaultBefore
	// (10 minutes); negative turns warming off.
	WarmBefore time.Duration
	// WarmInterval is how often the warm plan is read and the judges'
	// prefetches topped up (a change announced on rkeys.WarmPlanChanged,
	// a judge connecting or reporting a prefetch act at once). Default 5s.
	WarmInterval time.Duration

	// Coalesce is the minimum time between two scoreboard pushes of one
	// contest. Default 250ms (at most 4 per second). The web nodes publish
	// a contest at most once per their publish interval (500 ms) across
	// them all, so the pushes follow the publishes; the hub's own interval
	// is a guard below it: at 500 ms too, a publish whose board assembled
	// faster than the one before came a little under 500 ms after it and
	// waited here for the rest.
	Coalesce time.Duration
	// SendQueue is how many messages may wait for one browser; a browser
	// that lets it fill is closed with CloseSlowConsumer. Default 64.
	SendQueue int
	// WriteTimeout bounds one write to a browser or judge. Default 10s.
	WriteTimeout time.Duration
	// MaxSubscriptions per browser connection. Default 64.
	MaxSubscriptions int
	// PingInterval between WebSocket pings to browsers (keeps proxies from
	// closing idle connections). Default 25s.
	PingInterval time.Duration
	// SessionCheck is how often a browser's session is re-read; a session
	// that ended closes the connection (CloseSessionExpired). Default 1m.
	SessionCheck time.Duration
	// BrowserReads is the most browsers' Redis reads in flight at once
	// (their session reads on connecting and re-checking, their
	// subscriptions' snapshots): each holds a pooled connection for its
	// round trip, and the rest of Redis's pool stays for the judges'
	// messages, the dispatcher and the board pushes, so that a storm of
	// browsers cannot hold up a lease's renewal until it expires. A read
	// beyond them waits for a free one. Default: half the Redis client's
	// pool (at least 1), DefaultBrowserReads when the client does not say.
	BrowserReads int
	// OriginPatterns are extra allowed browser origins (host patterns, see
	// websocket.AcceptOptions); the request's own host is always allowed.
	OriginPatterns []string

	// PassLog is how many of its last dispatch passes the hub keeps (when
	// each began, how long it took, how many tasks it placed) for
	// PassLogHandler: the contest rehearsal reads them into its trace, and
	// the scheduling simulator's replay takes its passes' latencies from
	// them. 0 (the default): none kept.
	PassLog int

	// Logger. Default: discard.
	Logger *slog.Logger
	// Metrics is where the hub registers its metrics. Default: a new
	// registry (not exported).
	Metrics prometheus.Registerer
}

func (c *Config) defaults() error {
	if c.Redis == nil {
		return fmt.Errorf("%w: Redis is required", ErrConfig)
	}
	if c.HubID == "" {
		host, _ := os.Hostname()
		var b [3]byte
		_, _ = rand.Read(b[:])
		c.HubID = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
	}
	if c.Policy == nil {
		p, err := sched.New(sched.NameDefault)
		if err != nil {
			return err
		}
		c.Policy = p
	}
	// Every default below is for zero; a negative value (never a
	// default) counts as zero, as it always has.
	c.HeartbeatInterval = cmp.Or(max(c.HeartbeatInterval, 0), protocol.DefaultHeartbeatInterval)
	c.MissedHeartbeats = cmp.Or(max(c.MissedHeartbeats, 0), DefaultMissedHeartbeats)
	c.LeaseTimeout = cmp.Or(max(c.LeaseTimeout, 0), time.Duration(c.MissedHeartbeats+1)*c.HeartbeatInterval)
	c.ReapInterval = cmp.Or(max(c.ReapInterval, 0), c.HeartbeatInterval/2)
	c.DispatchInterval = cmp.Or(max(c.DispatchInterval, 0), sched.DefaultDispatchTick)
	c.PeekWindow = cmp.Or(max(c.PeekWindow, 0), sched.DefaultPeekWindow)
	c.Reserve = cmp.Or(c.Reserve, sched.DefaultReserveShare) // negative: none
	c.HelloTimeout = cmp.Or(max(c.HelloTimeout, 0), DefaultHelloTimeout)
	c.NoticeInterval = cmp.Or(max(c.NoticeInterval, 0), DefaultNoticeInterval)
	c.ETAWindow = cmp.Or(max(c.ETAWindow, 0), DefaultETAWindow)
	c.Coalesce = cmp.Or(max(c.Coalesce, 0), DefaultCoalesce)
	c.WarmBefore = cmp.Or(c.WarmBefore, warmplan.DefaultBefore) // negative: off
	c.WarmInterval = cmp.Or(max(c.WarmInterval, 0), DefaultWarmInterval)
	c.SendQueue = cmp.Or(max(c.SendQueue, 0), DefaultSendQueue)
	c.WriteTimeout = cmp.Or(max(c.WriteTimeout, 0), DefaultWriteTimeout)
	c.MaxSubscriptions = cmp.Or(max(c.MaxSubscriptions, 0), DefaultMaxSubscriptions)
	c.PingInterval = cmp.Or(max(c.PingInterval, 0), DefaultPingInterval)
	c.SessionCheck = cmp.Or(max(c.SessionCheck, 0), DefaultSessionCheck)
	if c.BrowserReads <= 0 {
		c.BrowserReads = DefaultBrowserReads
		if p := redisconn.PoolSize(c.Redis); p > 0 {
			c.BrowserReads = max(p/2, 1)
		}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Metrics == nil {
		c.Metrics = prometheus.NewRegistry()
	}
	if c.LeaseTimeout <= c.HeartbeatInterval {
		return fmt.Errorf("%w: LeaseTimeout %v must exceed HeartbeatInterval %v", ErrConfig, c.LeaseTimeout, c.HeartbeatInterval)
	}
	if err := (sched.Reserve{Share: max(c.Reserve, 0)}).Validate(); err != nil { // NaN too
		return fmt.Errorf("%w: Reserve: %w", ErrConfig, err)
	}
	if c.HeartbeatInterval < 10*time.Millisecond {
		return fmt.Errorf("%w: HeartbeatInterval %v is too short", ErrConfig, c.HeartbeatInterval)
	}
	return nil
}

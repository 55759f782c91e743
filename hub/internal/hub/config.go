package hub

import (
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
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/internal/warmplan"
)

// ErrConfig reports an unusable Config.
var ErrConfig = errors.New("hub: invalid config")

// Defaults of Config.
const (
	DefaultMissedHeartbeats = 3
	DefaultDispatchInterval = 250 * time.Millisecond
	DefaultPeekWindow       = 64
	DefaultNoticeInterval   = time.Second
	DefaultCoalesce         = 500 * time.Millisecond
	DefaultSendQueue        = 64
	DefaultWriteTimeout     = 10 * time.Second
	DefaultHelloTimeout     = 10 * time.Second
	DefaultMaxSubscriptions = 64
	DefaultPingInterval     = 25 * time.Second
	DefaultSessionCheck     = time.Minute
	DefaultETAWindow        = 2 * time.Minute
	DefaultWarmInterval     = 5 * time.Second
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
	// dispatcher earlier (enqueues, results and heartbeats do). Default 250ms.
	DispatchInterval time.Duration
	// PeekWindow is how many queue head tasks one dispatch pass considers,
	// so a task no judge can run does not block the ones behind it.
	// Default 64.
	PeekWindow int
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
	// contest. Default 500ms (at most 2 per second).
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
	// OriginPatterns are extra allowed browser origins (host patterns, see
	// websocket.AcceptOptions); the request's own host is always allowed.
	OriginPatterns []string

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
	setDur := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	setDur(&c.HeartbeatInterval, protocol.DefaultHeartbeatInterval)
	if c.MissedHeartbeats <= 0 {
		c.MissedHeartbeats = DefaultMissedHeartbeats
	}
	setDur(&c.LeaseTimeout, time.Duration(c.MissedHeartbeats+1)*c.HeartbeatInterval)
	setDur(&c.ReapInterval, c.HeartbeatInterval/2)
	setDur(&c.DispatchInterval, DefaultDispatchInterval)
	if c.PeekWindow <= 0 {
		c.PeekWindow = DefaultPeekWindow
	}
	setDur(&c.HelloTimeout, DefaultHelloTimeout)
	setDur(&c.NoticeInterval, DefaultNoticeInterval)
	setDur(&c.ETAWindow, DefaultETAWindow)
	setDur(&c.Coalesce, DefaultCoalesce)
	if c.WarmBefore == 0 {
		c.WarmBefore = warmplan.DefaultBefore
	}
	setDur(&c.WarmInterval, DefaultWarmInterval)
	if c.SendQueue <= 0 {
		c.SendQueue = DefaultSendQueue
	}
	setDur(&c.WriteTimeout, DefaultWriteTimeout)
	if c.MaxSubscriptions <= 0 {
		c.MaxSubscriptions = DefaultMaxSubscriptions
	}
	setDur(&c.PingInterval, DefaultPingInterval)
	setDur(&c.SessionCheck, DefaultSessionCheck)
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Metrics == nil {
		c.Metrics = prometheus.NewRegistry()
	}
	if c.LeaseTimeout <= c.HeartbeatInterval {
		return fmt.Errorf("%w: LeaseTimeout %v must exceed HeartbeatInterval %v", ErrConfig, c.LeaseTimeout, c.HeartbeatInterval)
	}
	if c.HeartbeatInterval < 10*time.Millisecond {
		return fmt.Errorf("%w: HeartbeatInterval %v is too short", ErrConfig, c.HeartbeatInterval)
	}
	return nil
}

package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/hub/internal/sched"
	"github.com/verdict-oj/verdict/internal/envflag"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/redisconn"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/internal/warmplan"
)

// ErrUsage reports bad flags or environment values.
var ErrUsage = errors.New("hub: usage")

// envPrefix is the prefix of the environment variable of every flag.
const envPrefix = "VERDICT_HUB"

// RedisPool is the hub's default --redis-pool: its judges' messages,
// dispatch passes, browsers' subscriptions and session checks, and the
// board pushes each hold a connection for a round trip; go-redis's own
// default, 10 per CPU (20 on 2 cores), had them wait for one under a
// contest's load (docs/rehearsal.md, issue 13).
const RedisPool = 64

// MaxPassLog bounds --pass-log: a million passes is 24 MB of ring, an
// hour of a busy dispatcher's passes.
const MaxPassLog = 1 << 20

// EnvName is the environment variable of a flag, e.g. VERDICT_HUB_REDIS_DB.
func EnvName(flagName string) string { return envflag.Name(envPrefix, flagName) }

// Options is everything the hub process is configured with.
type Options struct {
	Listen string
	// ListenFD, when not 0, is an inherited listening socket bound to
	// Listen to serve on instead of binding Listen (internal/listenfd).
	ListenFD  int
	Advertise string
	// Redis says how to reach Redis (one server, Sentinel or Cluster) and
	// holds the key prefix.
	Redis     redisconn.Options
	LogLevel  string
	LogFormat string
	// Pprof serves Go's profiler at /debug/pprof/ on the listener.
	Pprof bool
	// PassLog keeps the dispatcher's last passes and serves them at
	// /debug/passes on the listener (hub.Config.PassLog); 0: off.
	PassLog int

	Policy           string
	LoadFactor       float64
	Overload         float64
	LocalQueue       int
	Heartbeat        time.Duration
	MissedHeartbeats int
	Lease            time.Duration
	Reap             time.Duration
	Dispatch         time.Duration
	// Reserve: the share of the judges' slots rejudges leave free; 0:
	// none.
	Reserve     float64
	MaxAttempts int
	SendQueue   int
	// BrowserReads is --browser-reads (0: half of --redis-pool).
	BrowserReads int
	Coalesce     time.Duration
	Origins      []string
	// WarmBefore: judges prefetch a contest's test data from this long
	// before its start; 0 turns warming off.
	WarmBefore   time.Duration
	WarmInterval time.Duration
}

// HubWarmBefore is WarmBefore as hub.Config wants it (negative: off).
func (o Options) HubWarmBefore() time.Duration {
	if o.WarmBefore == 0 {
		return -1
	}
	return o.WarmBefore
}

// HubReserve is Reserve as hub.Config wants it (negative: none).
func (o Options) HubReserve() float64 {
	if o.Reserve == 0 {
		return -1
	}
	return o.Reserve
}

// Names returns the rkeys names for the configured prefix.
func (o Options) Names() rkeys.Names { return o.Redis.Names() }

// SchedPolicy builds the configured scheduling policy: one of
// sched.Names.
func (o Options) SchedPolicy() (sched.Policy, error) {
	if o.Policy == sched.NameDefault {
		return sched.NewBounded(sched.BoundedConfig{LoadFactor: o.LoadFactor, LocalQueue: o.LocalQueue, Overload: o.Overload}), nil
	}
	return sched.New(o.Policy)
}

// Parse reads args (without the program name) and the environment through
// getenv: a flag not given on the command line takes its environment
// variable (EnvName), and --log-format also VERDICT_LOG_FORMAT. -h prints
// the usage to out and returns flag.ErrHelp.
func Parse(args []string, getenv func(string) string, out io.Writer) (Options, error) {
	var o Options
	fs := flag.NewFlagSet("hub", flag.ContinueOnError)
	fs.SetOutput(out)
	set := envflag.Set{FS: fs, Prefix: envPrefix}
	env := func(name string) string { return envflag.Usage(envPrefix, name) }
	str, num, dur := set.String, set.Int, set.Duration
	str(&o.Listen, "listen", "127.0.0.1:8090", "address serving /judge, /ws, /healthz, /readyz and /metrics")
	num(&o.ListenFD, "listen-fd", 0, "serve on this inherited file descriptor, a socket already bound to --listen and listening, instead of binding --listen (verdict-stack hands its hub its port so); 0: bind --listen")
	str(&o.Advertise, "advertise", "", "host:port the edge reaches this hub at, for the live registry (default --listen unless it is a wildcard)")
	o.Redis.PoolSize = RedisPool
	o.Redis.Flags(fs, "127.0.0.1:6379", env)
	str(&o.Redis.Prefix, "redis-prefix", rkeys.DefaultPrefix, "prefix of every Redis key and channel name")
	set.Log(&o.LogLevel, &o.LogFormat)
	set.Bool(&o.Pprof, "pprof", false, "serve Go's profiler at /debug/pprof/ on the listener (for profiling under load; keep it off the public network)")
	num(&o.PassLog, "pass-log", 0, fmt.Sprintf("keep the dispatcher's last N passes (start, duration, tasks placed) and serve them as JSON at /debug/passes on the listener (the contest rehearsal's trace; keep it off the public network); 0: off, at most %d", MaxPassLog))
	str(&o.Policy, "policy", sched.NameDefault, "scheduling policy: "+strings.Join(sched.Names(), " or "))
	set.Float64(&o.LoadFactor, "load-factor", sched.DefaultLoadFactor, "default policy: bounded-load factor of cache affinity")
	set.Float64(&o.Overload, "overload", sched.DefaultOverload, "default policy: skip a judge whose load1 exceeds this × its cores (foreign load)")
	num(&o.LocalQueue, "local-queue", 0, "default policy: tasks a judge may hold beyond its free slots")
	dur(&o.Heartbeat, "heartbeat", protocol.DefaultHeartbeatInterval, "heartbeat interval announced to judges")
	num(&o.MissedHeartbeats, "missed-heartbeats", hub.DefaultMissedHeartbeats, "heartbeats a judge may miss before it is dead")
	dur(&o.Lease, "lease", 0, "lease timeout without renewal (default (missed-heartbeats+1) × heartbeat)")
	dur(&o.Reap, "reap-interval", 0, "how often expired leases are requeued (default heartbeat/2)")
	dur(&o.Dispatch, "dispatch-interval", sched.DefaultDispatchTick, "dispatch tick when nothing wakes the dispatcher earlier")
	set.Float64(&o.Reserve, "dispatch-reserve", sched.DefaultReserveShare, "share of the judges' slots that rejudges leave free for contest, practice and custom-run work; 0: none")
	num(&o.MaxAttempts, "max-attempts", queue.DefaultMaxAttempts, "attempts whose lease may expire before a system error")
	num(&o.SendQueue, "send-queue", hub.DefaultSendQueue, "messages that may wait for one browser before it is dropped as a slow consumer")
	num(&o.BrowserReads, "browser-reads", 0, "most browsers' Redis reads (session reads, subscription snapshots) in flight at once; the rest of --redis-pool stays for the judges' messages and the dispatcher (verdict_hub_browser_read_waits_total); 0: half of --redis-pool")
	dur(&o.Coalesce, "coalesce", hub.DefaultCoalesce, "minimum time between two scoreboard pushes of one contest")
	dur(&o.WarmBefore, "warm-before", warmplan.DefaultBefore, "judges prefetch a contest's test data from this long before it starts until it ends; 0: off")
	dur(&o.WarmInterval, "warm-interval", hub.DefaultWarmInterval, "how often the warm plan is read and judges' prefetches topped up")
	origins := fs.String("allowed-origins", "", "comma-separated extra browser origin host patterns for /ws"+env("allowed-origins"))

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	if err := envflag.Apply(fs, envPrefix, getenv, envflag.LogAliases()); err != nil {
		return o, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	for _, s := range strings.Split(*origins, ",") {
		if s = strings.TrimSpace(s); s != "" {
			o.Origins = append(o.Origins, s)
		}
	}
	return o, o.check()
}

func (o *Options) check() error {
	if err := envflag.CheckLog(o.LogLevel, o.LogFormat); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if _, err := o.SchedPolicy(); err != nil {
		// The lab's baselines (package sched/lab) run only in the simulator.
		return fmt.Errorf("%w: --policy: %w; the scheduling lab's baselines run only in the simulator", ErrUsage, err)
	}
	if err := (sched.Reserve{Share: o.Reserve}).Validate(); err != nil {
		return fmt.Errorf("%w: --dispatch-reserve: %w", ErrUsage, err)
	}
	if err := o.Redis.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if o.PassLog < 0 || o.PassLog > MaxPassLog {
		return fmt.Errorf("%w: --pass-log %d: want 0 (off) to %d", ErrUsage, o.PassLog, MaxPassLog)
	}
	if o.ListenFD != 0 && o.ListenFD < 3 {
		return fmt.Errorf("%w: --listen-fd %d: want 3 or above (0: none)", ErrUsage, o.ListenFD)
	}
	host, port, err := net.SplitHostPort(o.Listen)
	if err != nil || port == "" {
		return fmt.Errorf("%w: --listen %q: want host:port", ErrUsage, o.Listen)
	}
	if o.Advertise == "" {
		if host == "" || host == "0.0.0.0" || host == "::" {
			return fmt.Errorf("%w: --listen %q is a wildcard: set --advertise", ErrUsage, o.Listen)
		}
		o.Advertise = o.Listen
	}
	if o.Heartbeat < 10*time.Millisecond || o.MissedHeartbeats < 1 || o.MaxAttempts < 1 || o.SendQueue < 1 || o.LocalQueue < 0 {
		return fmt.Errorf("%w: --heartbeat >= 10ms, --missed-heartbeats, --max-attempts and --send-queue >= 1, --local-queue >= 0", ErrUsage)
	}
	if o.BrowserReads < 0 || (o.Redis.PoolSize > 0 && o.BrowserReads >= o.Redis.PoolSize) {
		return fmt.Errorf("%w: --browser-reads %d: want 0 (half the pool) up to --redis-pool - 1 (%d): the judges' work needs connections of its own",
			ErrUsage, o.BrowserReads, o.Redis.PoolSize-1)
	}
	if o.Lease != 0 && o.Lease <= o.Heartbeat {
		return fmt.Errorf("%w: --lease %v must exceed --heartbeat %v", ErrUsage, o.Lease, o.Heartbeat)
	}
	if o.WarmBefore < 0 || o.WarmInterval < 10*time.Millisecond {
		return fmt.Errorf("%w: --warm-before must be >= 0 and --warm-interval >= 10ms", ErrUsage)
	}
	if o.LoadFactor <= 1 {
		return fmt.Errorf("%w: --load-factor %v must be > 1", ErrUsage, o.LoadFactor)
	}
	return nil
}

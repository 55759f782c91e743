package redisconn

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/rkeys"
)

// ErrInvalid is wrapped by Validate's errors.
var ErrInvalid = errors.New("invalid redis settings")

// Mode is how the client reaches Redis.
type Mode string

// Modes.
const (
	ModeSingle   Mode = "single"
	ModeSentinel Mode = "sentinel"
	ModeCluster  Mode = "cluster"
)

// Options say how to reach Redis and how to name keys there.
type Options struct {
	// Addrs are host:port addresses: the server (one), the Sentinels (with
	// MasterName), or cluster seed nodes (several, or Cluster set).
	// Default 127.0.0.1:6379.
	Addrs []string
	// MasterName, when set, selects Sentinel mode: the client asks the
	// Sentinels in Addrs for this master and follows failovers.
	MasterName string
	// Cluster selects cluster mode with a single seed address.
	Cluster bool
	// DB is the database number (single and Sentinel modes; must be 0 in
	// cluster mode). Default 0.
	DB int
	// Password authenticates to the servers (and to the Sentinels).
	Password string
	// Prefix of every key and channel. Default rkeys.DefaultPrefix.
	Prefix string
	// PoolSize is the most connections the client opens per server (a
	// command beyond them waits for one: PoolCollector counts the waits).
	// 0: go-redis's default, 10 per CPU.
	PoolSize int
	// LoadingWait is how long a command that a restarted Redis refused
	// while loading its data (LOADING) is tried again, never past the
	// caller's deadline: a request then waits out the load instead of
	// failing. 0: DefaultLoadingWait; negative: not tried again.
	LoadingWait time.Duration
}

// Mode returns the deployment the options select.
func (o Options) Mode() Mode {
	switch {
	case o.MasterName != "":
		return ModeSentinel
	case o.Cluster || len(o.Addrs) > 1:
		return ModeCluster
	default:
		return ModeSingle
	}
}

func (o Options) addrs() []string {
	if len(o.Addrs) == 0 {
		return []string{"127.0.0.1:6379"}
	}
	return o.Addrs
}

// Validate checks the addresses and that the settings fit the mode.
func (o Options) Validate() error {
	var errs []error
	for _, a := range o.addrs() {
		if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
			errs = append(errs, fmt.Errorf("%w: address %q is not host:port", ErrInvalid, a))
		}
	}
	if o.PoolSize < 0 {
		errs = append(errs, fmt.Errorf("%w: pool size %d < 0", ErrInvalid, o.PoolSize))
	}
	if o.DB < 0 {
		errs = append(errs, fmt.Errorf("%w: database %d < 0", ErrInvalid, o.DB))
	}
	if o.Mode() == ModeCluster && o.DB != 0 {
		errs = append(errs, fmt.Errorf("%w: Redis Cluster has only database 0 (got %d)", ErrInvalid, o.DB))
	}
	if o.MasterName != "" && o.Cluster {
		errs = append(errs, fmt.Errorf("%w: choose Sentinel (master name) or cluster, not both", ErrInvalid))
	}
	if strings.ContainsAny(o.Prefix, " \t\r\n") {
		errs = append(errs, fmt.Errorf("%w: prefix %q contains white space", ErrInvalid, o.Prefix))
	}
	return errors.Join(errs...)
}

// Names returns the key names: the prefix as configured, wrapped in a hash
// tag in cluster mode (see the package documentation).
func (o Options) Names() rkeys.Names {
	p := o.Prefix
	if p == "" {
		p = rkeys.DefaultPrefix
	}
	if o.Mode() == ModeCluster && !hasHashTag(p) {
		p = "{" + p + "}"
	}
	return rkeys.New(p)
}

// hasHashTag reports whether Redis Cluster would hash only part of keys
// starting with p: a "{" followed later by a non-empty "...}".
func hasHashTag(p string) bool {
	i := strings.IndexByte(p, '{')
	if i < 0 {
		return false
	}
	j := strings.IndexByte(p[i+1:], '}')
	return j > 0
}

// Client builds the client for the mode. It does not connect: the first
// command does (check with Ping). What Redis refuses while it loads its
// data is tried again (LoadingWait).
func (o Options) Client() (redis.UniversalClient, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	var c redis.UniversalClient
	switch o.Mode() {
	case ModeSentinel:
		c = redis.NewFailoverClient(&redis.FailoverOptions{
			MasterName: o.MasterName, SentinelAddrs: o.addrs(), SentinelPassword: o.Password,
			Password: o.Password, DB: o.DB, PoolSize: o.PoolSize,
		})
	case ModeCluster:
		c = redis.NewClusterClient(&redis.ClusterOptions{Addrs: o.addrs(), Password: o.Password, PoolSize: o.PoolSize})
	default:
		c = redis.NewClient(&redis.Options{Addr: o.addrs()[0], Password: o.Password, DB: o.DB, PoolSize: o.PoolSize})
	}
	wait := o.LoadingWait
	if wait == 0 {
		wait = DefaultLoadingWait
	}
	if wait > 0 {
		c.AddHook(loadingRetry{wait: wait})
	}
	return c, nil
}

// String describes the target without the password, for logs.
func (o Options) String() string {
	s := fmt.Sprintf("%s %s", o.Mode(), strings.Join(o.addrs(), ","))
	if o.MasterName != "" {
		s += " master " + o.MasterName
	}
	if o.DB != 0 {
		s += fmt.Sprintf(" db %d", o.DB)
	}
	return s + " prefix " + o.Names().Prefix()
}

// addrList is a comma-separated flag value.
type addrList struct{ v *[]string }

func (a addrList) String() string {
	if a.v == nil {
		return ""
	}
	return strings.Join(*a.v, ",")
}

func (a addrList) Set(s string) error {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return errors.New("no address")
	}
	*a.v = out
	return nil
}

// Flags registers the connection flags on fs: --redis (comma-separated
// addresses, default def), --redis-db, --redis-password, --redis-master, --redis-pool and
// --redis-cluster. suffix(name) is appended to each usage (the component's
// environment variable). The prefix flag stays the component's own.
func (o *Options) Flags(fs *flag.FlagSet, def string, suffix func(name string) string) {
	if o.Addrs == nil {
		_ = addrList{&o.Addrs}.Set(def)
	}
	fs.Var(addrList{&o.Addrs}, "redis", "Redis address host:port; with --redis-master the Sentinels, "+
		"several (comma-separated) for Redis Cluster seed nodes (default "+def+")"+suffix("redis"))
	fs.IntVar(&o.DB, "redis-db", 0, "Redis database number (0 in cluster mode)"+suffix("redis-db"))
	fs.StringVar(&o.Password, "redis-password", "", "Redis password (prefer the environment variable)"+suffix("redis-password"))
	fs.StringVar(&o.MasterName, "redis-master", "", "Sentinel master name: --redis then lists the Sentinels"+suffix("redis-master"))
	fs.IntVar(&o.PoolSize, "redis-pool", o.PoolSize, "most connections to Redis per server; a command beyond them waits for one "+
		"(verdict_redis_pool_waits_total); 0: 10 per CPU"+suffix("redis-pool"))
	fs.DurationVar(&o.LoadingWait, "redis-loading-wait", o.LoadingWait, "how long a command a restarted Redis refused while "+
		"loading its data is tried again before it fails; 0: 5s, negative: not tried again"+suffix("redis-loading-wait"))
	fs.BoolVar(&o.Cluster, "redis-cluster", false, "Redis Cluster even with one seed address (keys get a {prefix} hash tag)"+suffix("redis-cluster"))
}

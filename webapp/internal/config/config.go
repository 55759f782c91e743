package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/envflag"
	"github.com/verdict-oj/verdict/internal/redisconn"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/partition"
)

// ErrUsage reports bad flags or environment values.
var ErrUsage = errors.New("webapp: usage")

// envPrefix is the prefix of every flag's environment variable.
const envPrefix = "VERDICT_WEBAPP"

// RedisPool is a web node's default --redis-pool: a connection for each
// of the --admission-slots (64) API requests and --result-workers (16)
// result writers at work at once, for the logins, staff requests and
// submissions let in past the gate, and for the node's background work,
// with room to spare. go-redis's own default, 10 per CPU (20 on 2 cores),
// made requests wait seconds for a connection while Redis had CPU to
// spare (docs/rehearsal.md, issue 13).
const RedisPool = 128

// Subcommands.
const (
	CmdServe   = "serve"
	CmdDemo    = "demo"
	CmdMigrate = "migrate"
)

// Options is everything the webapp is configured with. Fields that a
// subcommand does not use keep their defaults.
type Options struct {
	Command string

	MySQL string
	// MySQLFile names a file holding the DSN instead (its password then
	// appears on no command line); read by Parse.
	MySQLFile string
	// Redis says how to reach Redis (one server, Sentinel or Cluster) and
	// holds the key prefix.
	Redis   redisconn.Options
	BlobDir string
	// BlobS3 is an s3:// URL (blob.ParseS3URL); when set, test data lives
	// in that bucket instead of BlobDir.
	BlobS3    string
	LogLevel  string
	LogFormat string
	// Pprof serves Go's profiler at /debug/pprof/ on the node's listener.
	Pprof bool

	// serve
	Listen string
	// ListenFD, when not 0, is an inherited listening socket bound to
	// Listen to serve on instead of binding Listen (internal/listenfd).
	ListenFD        int
	Advertise       string
	DrainDelay      time.Duration
	ShutdownTimeout time.Duration
	SessionTTL      time.Duration
	SettingsTTL     time.Duration
	ReadCacheTTL    time.Duration
	MySQLConns      int
	AdmissionSlots  int
	AdmissionWait   time.Duration
	ResultWorkers   int
	// RejudgeAhead: rejudge tasks that may wait in the queue before a
	// background rejudge waits for judges (0: no bound).
	RejudgeAhead    int
	MaxBodyBytes    int64
	TrustedProxies  string
	MaxSourceBytes  int
	SubmitPerMinute int
	SubmitBurst     int
	MaxTestdata     int64
	MaxImportRows   int
	TestdataURL     string
	NodeID          string
	// Limits (docs/limits.md): login backoff, trusted networks,
	// registration rate, password hashing.
	LoginFreeFailures        int
	LoginAccountFreeFailures int
	LoginAddressFreeFailures int
	LoginBackoffBase         time.Duration
	LoginBackoffMax          time.Duration
	LoginWindow              time.Duration
	// TrustedNetworks is the flag's text; TrustedNets the parsed CIDRs.
	TrustedNetworks string
	TrustedNets     []netip.Prefix
	RegisterPerHour int
	PasswordCost    int
	HashSlots       int
	PasswordTimeout time.Duration
	// The partition job (webapp/internal/partition).
	PartitionInterval time.Duration
	PartitionSize     int64
	PartitionHeadroom int64

	// Custom runs per user (docs/limits.md).
	CustomRunPerMinute, CustomRunBurst int

	// demo
	LoginsFile    string
	JudgeTokenDir string
	Judges        int
}

// Names returns the rkeys names under the configured prefix.
func (o Options) Names() rkeys.Names { return o.Redis.Names() }

// EnvName is the environment variable of a flag.
func EnvName(flagName string) string { return envflag.Name(envPrefix, flagName) }

const usageHead = `Usage:
  webapp [flags]           serve the API (applies migrations first)
  webapp migrate [flags]   apply database migrations and exit
  webapp demo [flags]      create or refresh the demo data and exit (idempotent)

Every flag can also be set by the environment variable in brackets; a flag
on the command line wins.

Flags of %q:
`

// Parse reads args (without the program name) and the environment through
// getenv. -h prints the usage to out and returns flag.ErrHelp.
func Parse(args []string, getenv func(string) string, out io.Writer) (Options, error) {
	o := Options{Command: CmdServe}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case CmdServe, CmdDemo, CmdMigrate:
			o.Command = args[0]
			args = args[1:]
		default:
			return o, fmt.Errorf("%w: unknown subcommand %q (want serve, migrate or demo)", ErrUsage, args[0])
		}
	}
	fs := flag.NewFlagSet("webapp "+o.Command, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(out, usageHead, o.Command)
		fs.PrintDefaults()
	}
	set := envflag.Set{FS: fs, Prefix: envPrefix}
	str, num, dur := set.String, set.Int, set.Duration

	str(&o.MySQL, "mysql", "", "MySQL DSN (go-sql-driver format), e.g. verdict:pw@tcp(127.0.0.1:3306)/verdict; required unless --mysql-file (a DSN on the command line shows its password to every local user: prefer the environment variable or --mysql-file)")
	str(&o.MySQLFile, "mysql-file", "", "file holding the MySQL DSN (one line), instead of --mysql")
	set.Log(&o.LogLevel, &o.LogFormat)
	set.Bool(&o.Pprof, "pprof", false, "serve Go's profiler at /debug/pprof/ on the listener (for profiling under load; keep it off the public network)")
	if o.Command != CmdMigrate {
		o.Redis.PoolSize = RedisPool
		o.Redis.Flags(fs, "127.0.0.1:6379", func(name string) string { return " [" + EnvName(name) + "]" })
		str(&o.Redis.Prefix, "redis-prefix", rkeys.DefaultPrefix, "prefix of every Redis key and channel name")
		str(&o.BlobDir, "blob-dir", "blobs", "directory of the content-addressed test data blob store")
		str(&o.BlobS3, "blob-s3", "", "keep test data in S3-compatible storage instead of --blob-dir: s3://BUCKET[/PREFIX][?endpoint=HOST:PORT&region=R&insecure=true&path-style=true]; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN) or ~/.aws/credentials")
	}
	switch o.Command {
	case CmdServe:
		str(&o.Listen, "listen", "127.0.0.1:8081", "HTTP listen address host:port")
		num(&o.ListenFD, "listen-fd", 0, "serve on this inherited file descriptor, a socket already bound to --listen and listening, instead of binding --listen (verdict-stack hands its web nodes their ports so); 0: bind --listen")
		str(&o.Advertise, "advertise", "", "host:port the edge reaches this node at (default: the listen address; required when listening on a wildcard)")
		dur(&o.DrainDelay, "drain-delay", 2*time.Second, "on SIGTERM: time between leaving the registry (and failing /readyz) and closing the listener")
		dur(&o.ShutdownTimeout, "shutdown-timeout", 15*time.Second, "on SIGTERM: how long in-flight requests may finish")
		dur(&o.SessionTTL, "session-ttl", 7*24*time.Hour, "session lifetime since the last use")
		dur(&o.SettingsTTL, "settings-ttl", 5*time.Second, "how long a node caches the site settings (the registration mode) before reading them again")
		dur(&o.ReadCacheTTL, "read-cache-ttl", time.Second, "how long a node keeps its hot reads (users, contests, problems; every node forgets them at once on a write through the API, so this bounds only a write made outside it); 0 turns the cache off")
		num(&o.MySQLConns, "mysql-conns", 32, "MySQL connections the node's requests share (a request waits for one when all are busy)")
		num(&o.ResultWorkers, "result-workers", 16, "judge results the node writes to MySQL at once, through a pool of as many connections of their own (requests never hold them up)")
		num(&o.RejudgeAhead, "rejudge-ahead", 256, "rejudge tasks that may wait in the judge queue before a background rejudge waits for judges to take some (its MySQL writes and live events go at the judges' pace, not all at once); 0: no bound")
		num(&o.AdmissionSlots, "admission-slots", 64, "API requests the node works on at once; more wait in line (at most 4× as many) and what cannot start within --admission-wait is answered 503 busy with Retry-After (staff, logins and judges are let in without waiting); 0 lets every request in")
		dur(&o.AdmissionWait, "admission-wait", time.Second, "longest an API request waits in line for one of the --admission-slots before it is answered 503 busy")
		fs.Int64Var(&o.MaxBodyBytes, "max-body", 1<<20, "largest JSON request body in bytes ["+EnvName("max-body")+"]")
		str(&o.TrustedProxies, "trusted-proxies", "127.0.0.1/32,::1/128", "comma-separated CIDRs whose X-Forwarded-For and X-Forwarded-Proto are believed")
		num(&o.MaxSourceBytes, "max-source", 64<<10, "largest submission source in bytes")
		num(&o.SubmitPerMinute, "submit-per-minute", 6, "sustained submissions per user per minute (never per address)")
		num(&o.SubmitBurst, "submit-burst", 10, "submissions a user may make at once after a quiet spell (at least --submit-per-minute)")
		num(&o.CustomRunPerMinute, "custom-run-per-minute", 10, "sustained custom runs (run on my input) per user per minute")
		num(&o.CustomRunBurst, "custom-run-burst", 10, "custom runs a user may make at once after a quiet spell (at least --custom-run-per-minute)")
		num(&o.LoginFreeFailures, "login-free-failures", 5, "failed logins of one username from one address (or one known device) before the backoff starts")
		num(&o.LoginAccountFreeFailures, "login-account-free-failures", 20, "failed logins of one username from addresses other than its usual ones (known devices and usual addresses exempt) before the backoff starts")
		num(&o.LoginAddressFreeFailures, "login-address-free-failures", 2000, "failed logins from one client address across usernames before the backoff starts (flood guard; --trusted-networks exempt)")
		dur(&o.LoginBackoffBase, "login-backoff-base", time.Second, "wait after the first failed login beyond the free ones; doubles after each further failure")
		dur(&o.LoginBackoffMax, "login-backoff-max", 5*time.Minute, "longest wait between failed logins")
		dur(&o.LoginWindow, "login-window", 15*time.Minute, "a login throttle is forgotten this long after its last failure")
		str(&o.TrustedNetworks, "trusted-networks", "", "comma-separated CIDRs (a school's or a lab's NAT) exempt from the per-address login flood guard and registration limit (also VERDICT_TRUSTED_NETWORKS)")
		num(&o.RegisterPerHour, "register-per-hour", 30, "self-registrations (POST /api/users) per client address per hour")
		num(&o.PasswordCost, "password-cost", account.BcryptCost, "bcrypt cost of new password hashes (each +1 doubles the CPU time of a login)")
		num(&o.HashSlots, "hash-slots", 0, "bcrypt hashes run at once (0: GOMAXPROCS)")
		dur(&o.PasswordTimeout, "password-timeout", 10*time.Second, "deadline of requests that hash a password (login, registration, password change): how long they may queue for a hashing slot")
		fs.Int64Var(&o.MaxTestdata, "max-testdata", 64<<20, "largest test data zip upload in bytes (keep nginx's client_max_body_size at least this) ["+EnvName("max-testdata")+"]")
		num(&o.MaxImportRows, "max-import-rows", 500, "most users in one CSV import (each new user costs a bcrypt hash)")
		str(&o.TestdataURL, "testdata-url", "", "base URL judges download test data from, the hash appended (e.g. https://oj.example/api/judge/testdata/); empty: each judge's default (its hub's host)")
		str(&o.NodeID, "node-id", "", "this node's name as a results consumer and lock holder (default: hostname-pid-random)")
		dur(&o.PartitionInterval, "partition-interval", partition.DefaultInterval, "how often the node checks that the submission partitions are ahead of the ids (one node at a time, under a MySQL lock)")
		fs.Int64Var(&o.PartitionSize, "partition-size", partition.DefaultSize, "ids per new submission partition ["+EnvName("partition-size")+"]")
		fs.Int64Var(&o.PartitionHeadroom, "partition-headroom", partition.DefaultHeadroom, "add the next partitions when the highest submission id comes this close to the last partition's bound ["+EnvName("partition-headroom")+"]")
	case CmdDemo:
		str(&o.LoginsFile, "logins", "demo-logins.txt", "file recording the demo logins and passwords (mode 0600)")
		str(&o.JudgeTokenDir, "judge-token-dir", "", "write judge tokens to <dir>/judge-N/token (required with --judges > 0)")
		num(&o.Judges, "judges", 0, "number of judge tokens to issue: judge-1 … judge-N")
	}

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	if err := envflag.Apply(fs, envPrefix, getenv, map[string]string{"log-format": "VERDICT_LOG_FORMAT", "trusted-networks": "VERDICT_TRUSTED_NETWORKS"}); err != nil {
		return o, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return o, o.check()
}

func (o *Options) check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrUsage}, a...)...)
	}
	if o.MySQLFile != "" {
		if o.MySQL != "" {
			return bad("--mysql and --mysql-file: give one")
		}
		b, err := os.ReadFile(o.MySQLFile)
		if err != nil {
			return bad("--mysql-file: %w", err)
		}
		o.MySQL = strings.TrimSpace(string(b))
		if o.MySQL == "" || strings.ContainsAny(o.MySQL, "\n\r") {
			return bad("--mysql-file %s: want one line holding the DSN", o.MySQLFile)
		}
	}
	if o.MySQL == "" {
		return bad("--mysql is required (or --mysql-file)")
	}
	if err := envflag.CheckLog(o.LogLevel, o.LogFormat); err != nil {
		return bad("%v", err)
	}
	if err := o.Redis.Validate(); err != nil {
		return bad("%v", err)
	}
	if o.BlobS3 != "" {
		if _, err := blob.ParseS3URL(o.BlobS3); err != nil {
			return bad("--blob-s3: %v", err)
		}
	}
	for _, d := range []*string{&o.BlobDir, &o.LoginsFile, &o.JudgeTokenDir} {
		if *d == "" {
			continue
		}
		abs, err := filepath.Abs(*d)
		if err != nil {
			return bad("%s: %v", *d, err)
		}
		*d = abs
	}
	switch o.Command {
	case CmdServe:
		if o.ListenFD != 0 && o.ListenFD < 3 {
			return bad("--listen-fd %d: want 3 or above (0: none)", o.ListenFD)
		}
		if o.SessionTTL < time.Minute {
			return bad("--session-ttl %v: too short", o.SessionTTL)
		}
		if o.ReadCacheTTL < 0 || o.ReadCacheTTL > time.Minute {
			return bad("--read-cache-ttl %v: want 0 (off) to 1m", o.ReadCacheTTL)
		}
		if o.MySQLConns < 1 || o.MySQLConns > 1000 {
			return bad("--mysql-conns %d: want 1 to 1000", o.MySQLConns)
		}
		if o.AdmissionSlots < 0 || o.AdmissionSlots > 100000 {
			return bad("--admission-slots %d: want 0 (no gate) to 100000", o.AdmissionSlots)
		}
		if o.AdmissionWait <= 0 || o.AdmissionWait > time.Minute {
			return bad("--admission-wait %v: want more than 0 and at most 1m", o.AdmissionWait)
		}
		if o.ResultWorkers < 1 || o.ResultWorkers > 64 {
			return bad("--result-workers %d: want 1 to 64", o.ResultWorkers)
		}
		if o.RejudgeAhead < 0 || o.RejudgeAhead > 1000000 {
			return bad("--rejudge-ahead %d: want 0 (no bound) to 1000000", o.RejudgeAhead)
		}
		if o.SettingsTTL <= 0 || o.SettingsTTL > 10*time.Minute {
			return bad("--settings-ttl %v: want more than 0 and at most 10m", o.SettingsTTL)
		}
		if o.MaxBodyBytes < 1024 {
			return bad("--max-body %d: too small", o.MaxBodyBytes)
		}
		if o.MaxSourceBytes < 1 || o.MaxSourceBytes > 16<<20 {
			return bad("--max-source %d: want 1..16777216", o.MaxSourceBytes)
		}
		if o.SubmitPerMinute < 1 {
			return bad("--submit-per-minute %d: must be ≥ 1", o.SubmitPerMinute)
		}
		if o.SubmitBurst < 1 {
			return bad("--submit-burst %d: must be ≥ 1", o.SubmitBurst)
		}
		o.SubmitBurst = max(o.SubmitBurst, o.SubmitPerMinute)
		if o.CustomRunPerMinute < 1 || o.CustomRunBurst < 1 {
			return bad("--custom-run-per-minute %d, --custom-run-burst %d: must be ≥ 1", o.CustomRunPerMinute, o.CustomRunBurst)
		}
		o.CustomRunBurst = max(o.CustomRunBurst, o.CustomRunPerMinute)
		if err := o.checkLimits(); err != nil {
			return err
		}
		if o.MaxTestdata < 1024 || o.MaxTestdata > 4<<30 {
			return bad("--max-testdata %d: want 1024..4294967296", o.MaxTestdata)
		}
		if o.MaxImportRows < 1 || o.MaxImportRows > 100000 {
			return bad("--max-import-rows %d: want 1..100000", o.MaxImportRows)
		}
		if o.TestdataURL != "" && !strings.HasPrefix(o.TestdataURL, "http://") && !strings.HasPrefix(o.TestdataURL, "https://") {
			return bad("--testdata-url %q: want an http(s) URL", o.TestdataURL)
		}
		if o.TestdataURL != "" && !strings.HasSuffix(o.TestdataURL, "/") {
			o.TestdataURL += "/"
		}
		if o.DrainDelay < 0 || o.ShutdownTimeout <= 0 {
			return bad("--drain-delay and --shutdown-timeout must be positive")
		}
		if o.PartitionInterval < 10*time.Second {
			return bad("--partition-interval %v: want at least 10s", o.PartitionInterval)
		}
		if o.PartitionSize < 1000 {
			return bad("--partition-size %d: want at least 1000", o.PartitionSize)
		}
		if o.PartitionHeadroom < 1 {
			return bad("--partition-headroom %d: must be ≥ 1", o.PartitionHeadroom)
		}
	case CmdDemo:
		if o.Judges < 0 || o.Judges > 1000 {
			return bad("--judges %d: want 0..1000", o.Judges)
		}
		if o.Judges > 0 && o.JudgeTokenDir == "" {
			return bad("--judge-token-dir is required with --judges %d", o.Judges)
		}
	}
	return nil
}

// checkLimits validates the limit flags and parses --trusted-networks.
func (o *Options) checkLimits() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrUsage}, a...)...)
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"login-free-failures", o.LoginFreeFailures}, {"login-account-free-failures", o.LoginAccountFreeFailures},
		{"login-address-free-failures", o.LoginAddressFreeFailures}, {"register-per-hour", o.RegisterPerHour}} {
		if c.v < 1 || c.v > 1_000_000 {
			return bad("--%s %d: want 1..1000000", c.name, c.v)
		}
	}
	if o.LoginBackoffBase < 10*time.Millisecond || o.LoginBackoffBase > time.Hour {
		return bad("--login-backoff-base %v: want 10ms..1h", o.LoginBackoffBase)
	}
	if o.LoginBackoffMax < o.LoginBackoffBase || o.LoginBackoffMax > 24*time.Hour {
		return bad("--login-backoff-max %v: want --login-backoff-base (%v)..24h", o.LoginBackoffMax, o.LoginBackoffBase)
	}
	if o.LoginWindow < time.Minute || o.LoginWindow > 7*24*time.Hour {
		return bad("--login-window %v: want 1m..168h", o.LoginWindow)
	}
	if o.PasswordCost < 4 || o.PasswordCost > 16 {
		return bad("--password-cost %d: want 4..16 (bcrypt; 10 takes about 70 ms of one core, each +1 doubles it)", o.PasswordCost)
	}
	if o.HashSlots < 0 || o.HashSlots > 1024 {
		return bad("--hash-slots %d: want 0 (GOMAXPROCS)..1024", o.HashSlots)
	}
	if o.PasswordTimeout < time.Second || o.PasswordTimeout > 2*time.Minute {
		return bad("--password-timeout %v: want 1s..2m", o.PasswordTimeout)
	}
	o.TrustedNets = nil
	for _, p := range strings.Split(o.TrustedNetworks, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		pfx, err := netip.ParsePrefix(p)
		if err != nil {
			return bad("--trusted-networks %q: want CIDRs like 10.1.0.0/16 or 2001:db8::/48, separated by commas: %v", p, err)
		}
		if pfx != pfx.Masked() {
			return bad("--trusted-networks %q: host bits set; did you mean %s?", p, pfx.Masked())
		}
		o.TrustedNets = append(o.TrustedNets, pfx)
	}
	return nil
}

package cli

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

	"github.com/verdict-oj/verdict/edge/internal/nginxctl"
	"github.com/verdict-oj/verdict/edge/internal/render"
	"github.com/verdict-oj/verdict/internal/envflag"
	"github.com/verdict-oj/verdict/internal/redisconn"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// ErrUsage reports bad flags or environment values.
var ErrUsage = errors.New("edge: usage")

// envPrefix is the prefix of the environment variable of every flag.
const envPrefix = "VERDICT_EDGE"

// Options is everything the edge process is configured with.
type Options struct {
	// Redis says how to reach Redis (one server, Sentinel or Cluster) and
	// holds the key prefix.
	Redis redisconn.Options
	Admin string
	// AdminFD, when not 0, is an inherited listening socket bound to Admin
	// to serve on instead of binding Admin (internal/listenfd).
	AdminFD   int
	LogFormat string // "text" or "json"
	LogLevel  string

	NginxBin     string
	ManageNginx  bool
	ConfPath     string
	PidFile      string
	PollInterval time.Duration
	PruneAfter   time.Duration
	HoldLast     time.Duration
	Nginx        render.Params
}

// Names returns the rkeys names for the configured prefix.
func (o Options) Names() rkeys.Names { return o.Redis.Names() }

// EnvName is the environment variable of a flag.
func EnvName(flagName string) string { return envflag.Name(envPrefix, flagName) }

// Parse reads args (without the program name) and the environment through
// getenv. Relative directories are made absolute against the working
// directory. -h prints the usage to out and returns flag.ErrHelp.
func Parse(args []string, getenv func(string) string, out io.Writer) (Options, error) {
	var o Options
	p := &o.Nginx
	fs := flag.NewFlagSet("edge", flag.ContinueOnError)
	fs.SetOutput(out)
	set := envflag.Set{FS: fs, Prefix: envPrefix}
	str, dur, num := set.String, set.Duration, set.Int

	o.Redis.Flags(fs, "127.0.0.1:6379", func(name string) string { return " [" + EnvName(name) + "]" })
	str(&o.Redis.Prefix, "prefix", rkeys.DefaultPrefix, "prefix of every Redis key and channel name")
	str(&o.Admin, "admin", "127.0.0.1:8070", "admin address serving /healthz, /readyz and /metrics")
	num(&o.AdminFD, "admin-fd", 0, "serve the admin endpoint on this inherited file descriptor, a socket already bound to --admin and listening, instead of binding --admin (verdict-stack hands its edge its admin port so); 0: bind --admin")
	set.Log(&o.LogLevel, &o.LogFormat)

	str(&o.NginxBin, "nginx", nginxctl.DefaultBinary, "nginx binary (also VERDICT_NGINX)")
	fs.BoolVar(&o.ManageNginx, "manage-nginx", true, "run nginx as a child process; false: reload an external nginx through --pid-file ["+EnvName("manage-nginx")+"]")
	str(&o.ConfPath, "conf", "", "where to write the rendered nginx.conf (default <runtime-dir>/nginx.conf)")
	str(&o.PidFile, "pid-file", "", "pid file of an external nginx, with --manage-nginx=false (default <runtime-dir>/nginx.pid)")
	dur(&o.PollInterval, "poll", time.Second, "registry poll interval (changes announced on pub/sub apply at once)")
	dur(&o.PruneAfter, "prune-after", 5*time.Second, "stale grace: delete registry members expired longer than this")
	dur(&o.HoldLast, "hold-last", 60*time.Second, "keep a web node or hub that left the registry in nginx's upstream this long: one that comes back meanwhile (restarted in place, renewals late under load) costs no reload, which would cut every WebSocket (0: drop at once)")

	str(&p.Listen, "listen", "127.0.0.1:8080", "address nginx listens on (ip:port, [ip6]:port or *:port)")
	fs.BoolVar(&p.ListenReusePort, "listen-reuseport", false, "add reuseport to nginx's listen ["+EnvName("listen-reuseport")+"]")
	num(&p.ListenBacklog, "listen-backlog", render.DefaultListenBacklog, "nginx's accept queue (listen backlog=): new connections the kernel holds while every worker is busy; capped at net.core.somaxconn")
	str(&p.RuntimeDir, "runtime-dir", filepath.Join(os.TempDir(), "verdict-edge"), "directory for nginx.conf, pid, logs and temp files")
	str(&p.StaticDir, "static-dir", "frontend/dist", "built frontend served at /")
	str(&p.User, "nginx-user", "", "nginx user directive (\"user [group]\") when run as root; empty: nginx's default (nobody)")
	str(&p.WorkerProcesses, "worker-processes", "auto", "nginx worker_processes")
	num(&p.WorkerConnections, "worker-connections", 4096, "nginx worker_connections")
	num(&p.WorkerOpenFiles, "worker-open-files", 0, "nginx worker_rlimit_nofile (0: twice --worker-connections plus 256, at most the hard open-file limit nginx inherits)")
	dur(&p.WorkerShutdownTimeout, "worker-shutdown-timeout", 10*time.Second, "how long old workers keep WebSockets open after a reload")
	str(&p.ErrorLog, "error-log", "", "nginx error log path or stderr (default <runtime-dir>/error.log)")
	str(&p.ErrorLogLevel, "error-log-level", "warn", "nginx error log level")
	str(&p.AccessLog, "access-log", "", "nginx access log path or off (default <runtime-dir>/access.log)")
	str(&p.ClientMaxBodySize, "client-max-body-size", "65m", "largest request body: the web nodes' --max-testdata (64 MiB) plus multipart framing")
	str(&p.LoginRate, "login-rate", render.DefaultLoginRate, "per-address rate of POST /api/login and /api/session (a flood guard sized for a room behind one NAT address; docs/limits.md)")
	num(&p.LoginBurst, "login-burst", render.DefaultLoginBurst, "requests above --login-rate let through at once")
	str(&p.SubmitRate, "submit-rate", render.DefaultSubmitRate, "per-address rate of POST /api/submissions")
	num(&p.SubmitBurst, "submit-burst", render.DefaultSubmitBurst, "requests above --submit-rate let through at once")
	str(&p.RegisterRate, "register-rate", render.DefaultRegisterRate, "per-address rate of POST /api/users (self-registration)")
	num(&p.RegisterBurst, "register-burst", render.DefaultRegisterBurst, "requests above --register-rate let through at once")
	num(&p.MaxFails, "max-fails", 2, "failures before nginx skips a server for --fail-timeout")
	dur(&p.FailTimeout, "fail-timeout", 10*time.Second, "how long a failing server is skipped")
	num(&p.Keepalive, "keepalive", 32, "idle keepalive connections to web nodes per worker (0: none, a new connection per request)")
	dur(&p.ConnectTimeout, "connect-timeout", render.DefaultConnectTimeout, "upstream connect timeout: nginx's own lag under load, not the network's, is what it catches on a LAN")
	dur(&p.APIReadTimeout, "api-read-timeout", 60*time.Second, "read timeout of /api")
	dur(&p.UploadReadTimeout, "upload-read-timeout", render.DefaultUploadReadTimeout, "read timeout of the uploads (test data, ICPC packages, user imports); above the web nodes' upload timeout")
	dur(&p.WSReadTimeout, "ws-read-timeout", 75*time.Second, "read timeout of /ws and /judge; keep above the hub's ping interval")
	realIP := fs.String("real-ip-from", "", "comma-separated trusted proxies (CIDR or IP) in front of the edge ["+EnvName("real-ip-from")+"]")
	trusted := fs.String("trusted-networks", "", "comma-separated networks (CIDR, e.g. a campus NAT 192.0.2.0/24) exempt from nginx's per-address limits ["+EnvName("trusted-networks")+"]")

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	aliases := envflag.LogAliases()
	aliases["nginx"] = "VERDICT_NGINX"
	if err := envflag.Apply(fs, envPrefix, getenv, aliases); err != nil {
		return o, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if p.Keepalive == 0 {
		p.Keepalive = -1 // render: negative is none, 0 the default
	}
	if o.HoldLast == 0 {
		o.HoldLast = -1 // edge: negative is off, 0 the default
	}
	if *realIP != "" {
		for _, s := range strings.Split(*realIP, ",") {
			if s = strings.TrimSpace(s); s != "" {
				p.RealIPFrom = append(p.RealIPFrom, s)
			}
		}
	}
	for _, s := range strings.Split(*trusted, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if _, err := netip.ParsePrefix(s); err != nil {
			return o, fmt.Errorf("%w: --trusted-networks %q: want a CIDR like 192.0.2.0/24 (one address: /32): %w", ErrUsage, s, err)
		}
		p.TrustedNetworks = append(p.TrustedNetworks, s)
	}
	for _, d := range []*string{&p.RuntimeDir, &p.StaticDir, &o.ConfPath, &o.PidFile} {
		if *d == "" {
			continue
		}
		abs, err := filepath.Abs(*d)
		if err != nil {
			return o, fmt.Errorf("%w: %s: %w", ErrUsage, *d, err)
		}
		*d = abs
	}
	if err := envflag.CheckLog(o.LogLevel, o.LogFormat); err != nil {
		return o, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if o.AdminFD != 0 && o.AdminFD < 3 {
		return o, fmt.Errorf("%w: --admin-fd %d: want 3 or above (0: none)", ErrUsage, o.AdminFD)
	}
	if _, err := render.Render(o.Nginx, render.Upstreams{}); err != nil {
		return o, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if err := o.Redis.Validate(); err != nil {
		return o, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return o, nil
}

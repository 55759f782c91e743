package edge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/edge/internal/nginxctl"
	"github.com/verdict-oj/verdict/edge/internal/render"
	"github.com/verdict-oj/verdict/internal/registry"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// Errors returned by this package.
var (
	// ErrConfig reports an unusable Config.
	ErrConfig = errors.New("edge: invalid config")
	// ErrNotReady is returned by Ready while nginx is not serving the
	// registry's current state.
	ErrNotReady = errors.New("edge: not ready")
)

// Redis is what the edge needs of a go-redis client.
type Redis interface {
	redis.Scripter
	Subscribe(ctx context.Context, channels ...string) *redis.PubSub
}

// Resolver resolves host names of registry members.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Config configures an Edge. Zero fields take the documented defaults.
type Config struct {
	// Redis holds the registry. Required.
	Redis Redis
	// Names builds the registry's key names. Zero value: rkeys.DefaultPrefix.
	Names rkeys.Names
	// Nginx are the rendered config's settings; RuntimeDir and StaticDir
	// are required.
	Nginx render.Params
	// NginxBin is the nginx binary. Default nginxctl.DefaultBinary.
	NginxBin string
	// ExternalNginx: do not run nginx; reload the nginx whose master pid is
	// in PidFile after each change. Default false (nginx is our child).
	ExternalNginx bool
	// ConfPath is where the rendered nginx.conf is written. Default
	// Nginx.RuntimeDir/nginx.conf.
	ConfPath string
	// PidFile of an external nginx. Default render.PidFile(RuntimeDir), the
	// pid path the rendered config sets.
	PidFile string
	// PollInterval between registry reads when no change is announced.
	// Default 1s.
	PollInterval time.Duration
	// PruneAfter: registry members expired longer than this are deleted
	// from Redis. Default 5s.
	PruneAfter time.Duration
	// HoldLast: a web node or hub that leaves the registry (its entry
	// expired, or it deregistered) stays in nginx's upstream this long,
	// and one that comes back meanwhile costs no reload. A reload closes
	// every WebSocket through nginx — browsers and judges — after
	// WorkerShutdownTimeout, and nothing else about a member leaving
	// needs one: nginx skips a member that refuses its connects (at once)
	// or times out (max_fails). So a node restarted in place (a crash and
	// its supervisor, a rolling deploy) or one whose renewals came late
	// under load cuts no socket; one gone for good leaves the upstream,
	// with one reload, HoldLast after it left. Default 60s; negative:
	// off (a member leaves the upstream at once).
	HoldLast time.Duration
	// StopGrace is how long a child nginx may take to quit gracefully.
	// Default Nginx.WorkerShutdownTimeout (10s) + 5s.
	StopGrace time.Duration
	// Resolver for member host names. Default net.DefaultResolver.
	Resolver Resolver
	// Logger. Default: discard.
	Logger *slog.Logger
	// Metrics registers the edge's metrics. Default: not registered.
	Metrics prometheus.Registerer
}

// Edge keeps one nginx in line with the registry.
type Edge struct {
	cfg Config
	log *slog.Logger
	m   metrics

	// Owned by Run's goroutine.
	applied  []byte // bytes of the config nginx runs
	rejected []byte // last config nginx -t rejected (not retried)
	current  render.Upstreams
	pending  bool   // applied is installed but nginx has not reloaded it yet
	dropped  string // last logged set of unusable members
	child    *nginxctl.Child
	// gone: when each member of the applied upstreams left the registry
	// (HoldLast).
	gone map[heldMember]time.Time

	mu       sync.Mutex
	running  bool
	lastRead time.Time
	readErr  error
}

// New checks cfg, applies defaults and returns an Edge. It starts nothing.
func New(cfg Config) (*Edge, error) {
	if cfg.Redis == nil {
		return nil, fmt.Errorf("%w: Redis is required", ErrConfig)
	}
	cfg.Nginx = cfg.Nginx.WithDefaults()
	// Render once with no upstreams to check every nginx setting now.
	if _, err := render.Render(cfg.Nginx, render.Upstreams{}); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if cfg.NginxBin == "" {
		cfg.NginxBin = nginxctl.DefaultBinary
	}
	if cfg.ConfPath == "" {
		cfg.ConfPath = filepath.Join(cfg.Nginx.RuntimeDir, "nginx.conf")
	}
	if cfg.PidFile == "" {
		cfg.PidFile = render.PidFile(cfg.Nginx.RuntimeDir)
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.PollInterval < 10*time.Millisecond {
		return nil, fmt.Errorf("%w: PollInterval %v too short", ErrConfig, cfg.PollInterval)
	}
	if cfg.HoldLast == 0 {
		cfg.HoldLast = 60 * time.Second
	}
	if cfg.PruneAfter == 0 {
		cfg.PruneAfter = 5 * time.Second
	}
	if cfg.StopGrace == 0 {
		cfg.StopGrace = cfg.Nginx.WorkerShutdownTimeout + 5*time.Second
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Edge{cfg: cfg, log: cfg.Logger, m: newMetrics(), gone: map[heldMember]time.Time{}}
	if cfg.Metrics != nil {
		if err := e.m.register(cfg.Metrics); err != nil {
			return nil, fmt.Errorf("edge metrics: %w", err)
		}
	}
	return e, nil
}

// Ready reports whether the edge is doing its job: nginx runs (when it is
// our child) and the registry was read successfully recently.
func (e *Edge) Ready() error {
	if e.cfg.ExternalNginx {
		if _, err := nginxctl.ReadPid(e.cfg.PidFile); err != nil {
			return fmt.Errorf("%w: %w", ErrNotReady, err)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.cfg.ExternalNginx && !e.running {
		return fmt.Errorf("%w: nginx not running", ErrNotReady)
	}
	if e.readErr != nil {
		return fmt.Errorf("%w: registry: %w", ErrNotReady, e.readErr)
	}
	if stale := max(3*e.cfg.PollInterval, 5*time.Second); time.Since(e.lastRead) > stale {
		return fmt.Errorf("%w: registry not read for %v", ErrNotReady, time.Since(e.lastRead).Round(time.Millisecond))
	}
	// Started is not serving: nginx binds its port a moment after it runs
	// (and fails to when the port is taken). Ready means it accepts.
	if err := accepts(e.cfg.Nginx.Listen); err != nil {
		return fmt.Errorf("%w: nginx does not accept on %s: %w", ErrNotReady, e.cfg.Nginx.Listen, err)
	}
	return nil
}

// accepts dials nginx's listen address ("ip:port", "[ip6]:port" or
// "*:port", which is dialled on loopback).
func accepts(listen string) error {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return err
	}
	if host == "*" || host == "" || host == "0.0.0.0" {
		host = "127.0.0.1"
	} else if host == "::" {
		host = "::1"
	}
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, port), 500*time.Millisecond)
	if err != nil {
		return err
	}
	return c.Close()
}

// Run renders and applies the first config, starts nginx (or reloads the
// external one), then follows the registry until ctx is done, when it stops
// a child nginx gracefully. It returns an error if the first config cannot
// be applied or the child nginx dies.
func (e *Edge) Run(ctx context.Context) error {
	if err := os.MkdirAll(e.cfg.Nginx.RuntimeDir, 0o755); err != nil {
		return fmt.Errorf("edge runtime dir: %w", err)
	}
	trigger := make(chan struct{}, 1)
	ps := e.cfg.Redis.Subscribe(ctx, e.cfg.Names.RegistryChanged())
	defer ps.Close()
	go func() {
		for range ps.Channel() {
			select {
			case trigger <- struct{}{}:
			default:
			}
		}
	}()

	if err := e.start(ctx); err != nil {
		return err
	}
	var childDone <-chan struct{}
	if e.child != nil {
		childDone = e.child.Done()
	}
	t := time.NewTicker(e.cfg.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return e.stop()
		case <-childDone:
			e.setRunning(false)
			err := e.child.Err()
			e.log.Error("nginx exited", "err", err)
			return err
		case <-trigger:
			e.sync(ctx)
		case <-t.C:
			e.sync(ctx)
		}
	}
}

func (e *Edge) setRunning(v bool) {
	e.mu.Lock()
	e.running = v
	e.mu.Unlock()
}

// start applies the first config and brings nginx up. Without Redis the
// edge still starts, with empty upstreams: static files are served and
// /api answers 503 until the registry can be read.
func (e *Edge) start(ctx context.Context) error {
	ups, err := e.read(ctx)
	if err != nil {
		e.log.Warn("starting without the registry", "err", err)
	}
	e.current = ups
	conf, err := render.Render(e.cfg.Nginx, ups)
	if err != nil {
		return fmt.Errorf("edge first render: %w", err)
	}
	if !e.cfg.ExternalNginx {
		if err := e.install(ctx, conf); err != nil {
			return fmt.Errorf("edge first config: %w", err)
		}
		child, err := nginxctl.Start(e.cfg.NginxBin, e.cfg.ConfPath, e.log.With("nginx_pid", "child"))
		if err != nil {
			return err
		}
		e.child = child
		e.setRunning(true)
		e.log.Info("nginx started", "pid", child.Pid(), "conf", e.cfg.ConfPath, "listen", e.cfg.Nginx.Listen,
			"web", len(ups.Web), "hub", len(ups.Hub))
		return nil
	}
	if old, err := os.ReadFile(e.cfg.ConfPath); err == nil && bytes.Equal(old, conf) {
		// nginx may already run this very file: no reload needed.
		e.applied = conf
		_, err := nginxctl.ReadPid(e.cfg.PidFile)
		e.setRunning(err == nil)
		if err != nil {
			e.log.Warn("external nginx not running yet", "err", err)
		}
		return nil
	}
	if err := e.install(ctx, conf); err != nil {
		return fmt.Errorf("edge first config: %w", err)
	}
	if err := e.reload(); err != nil {
		// The external nginx may start later and will read the file; until
		// then every sync retries the reload.
		e.pending = true
		e.log.Warn("external nginx not reloaded", "err", err)
	}
	return nil
}

func (e *Edge) stop() error {
	e.setRunning(false)
	if e.child == nil {
		return nil
	}
	e.log.Info("stopping nginx", "grace", e.cfg.StopGrace)
	return e.child.Stop(e.cfg.StopGrace)
}

// sync reads the registry and applies a changed config.
func (e *Edge) sync(ctx context.Context) {
	ups, err := e.read(ctx)
	if err != nil {
		e.log.Warn("registry read failed; keeping the current upstreams", "err", err)
		return
	}
	conf, err := render.Render(e.cfg.Nginx, ups)
	if err != nil { // cannot happen: members were canonicalised by read
		e.log.Error("render failed", "err", err)
		return
	}
	if bytes.Equal(conf, e.rejected) || bytes.Equal(conf, e.applied) && !e.pending {
		return
	}
	if !bytes.Equal(conf, e.applied) {
		if err := e.install(ctx, conf); err != nil {
			if ctx.Err() == nil {
				e.log.Error("new nginx config not applied; the last good one stays", "err", err)
			}
			return
		}
		e.pending = true
	}
	if err := e.reload(); err != nil {
		e.m.reloads.WithLabelValues("error").Inc()
		e.log.Error("nginx reload failed", "err", err)
		return
	}
	e.pending = false
	e.m.reloads.WithLabelValues("ok").Inc()
	e.m.lastReload.SetToCurrentTime()
	e.log.Info("nginx reloaded", "web", ups.Web, "hub", ups.Hub)
	e.current = ups
}

// install validates conf with nginx -t and atomically puts it at ConfPath.
func (e *Edge) install(ctx context.Context, conf []byte) error {
	dir := filepath.Dir(e.cfg.ConfPath)
	f, err := os.CreateTemp(dir, ".nginx.conf.*")
	if err != nil {
		return fmt.Errorf("edge write config: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after the rename
	_, werr := f.Write(conf)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp, 0o644)); err != nil {
		return fmt.Errorf("edge write config: %w", err)
	}
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := nginxctl.Test(tctx, e.cfg.NginxBin, tmp); err != nil {
		if errors.Is(err, nginxctl.ErrInvalidConfig) {
			e.rejected = conf
			e.m.reloads.WithLabelValues("invalid").Inc()
		}
		return err
	}
	if err := os.Rename(tmp, e.cfg.ConfPath); err != nil {
		return fmt.Errorf("edge install config: %w", err)
	}
	e.applied = conf
	e.rejected = nil
	return nil
}

func (e *Edge) reload() error {
	if e.child != nil {
		return e.child.Reload()
	}
	if err := nginxctl.ReloadPidFile(e.cfg.PidFile); err != nil {
		e.setRunning(false)
		return err
	}
	e.setRunning(true)
	return nil
}

// read returns the live upstreams: registry members, pruned, parsed,
// resolved and canonical. Unusable members are left out (and logged when
// that set changes). On error it returns the current upstreams.
func (e *Edge) read(ctx context.Context) (render.Upstreams, error) {
	rctx, cancel := context.WithTimeout(ctx, max(e.cfg.PollInterval, 2*time.Second))
	defer cancel()
	var out render.Upstreams
	var dropped []string
	for _, role := range []rkeys.Role{rkeys.RoleWeb, rkeys.RoleHub} {
		members, pruned, err := registry.Live(rctx, e.cfg.Redis, e.cfg.Names, role, e.cfg.PruneAfter)
		if err != nil {
			e.m.reads.WithLabelValues("error").Inc()
			e.mu.Lock()
			e.readErr = err
			e.mu.Unlock()
			return e.current, err
		}
		if pruned > 0 {
			e.m.pruned.WithLabelValues(string(role)).Add(float64(pruned))
			e.log.Info("pruned dead registry members", "role", string(role), "count", pruned)
		}
		addrs, bad := e.resolve(rctx, members)
		dropped = append(dropped, bad...)
		addrs = e.hold(role, addrs)
		if role == rkeys.RoleWeb {
			out.Web = addrs
		} else {
			out.Hub = addrs
		}
	}
	e.m.reads.WithLabelValues("ok").Inc()
	e.m.servers.WithLabelValues("webapp").Set(float64(len(out.Web)))
	e.m.servers.WithLabelValues("hub").Set(float64(len(out.Hub)))
	e.mu.Lock()
	e.readErr = nil
	e.lastRead = time.Now()
	e.mu.Unlock()
	if d := strings.Join(dropped, "; "); d != e.dropped {
		e.dropped = d
		if d != "" {
			e.log.Warn("registry members left out", "members", dropped)
		}
	}
	return out, nil
}

// heldMember is a member of a role's upstream that left the registry.
type heldMember struct {
	role rkeys.Role
	addr string
}

// hold applies HoldLast to a role's live members, addrs (sorted): the
// applied upstream's members that are not among them stay until they
// have been gone HoldLast. The result is sorted.
func (e *Edge) hold(role rkeys.Role, addrs []string) []string {
	last := e.current.Web
	if role == rkeys.RoleHub {
		last = e.current.Hub
	}
	if e.cfg.HoldLast < 0 {
		return addrs
	}
	now := time.Now()
	out := addrs
	held := 0
	for _, a := range last {
		if _, live := slices.BinarySearch(addrs, a); live {
			continue
		}
		k := heldMember{role, a}
		since, ok := e.gone[k]
		if !ok {
			since = now
			e.gone[k] = since
			e.log.Warn("a member left the registry; nginx keeps it in the upstream for a while, and a reload only if it stays away",
				"role", string(role), "member", a, "hold", e.cfg.HoldLast)
		}
		if now.Sub(since) < e.cfg.HoldLast {
			if held == 0 {
				out = slices.Clone(addrs)
			}
			out = append(out, a)
			held++
		}
	}
	for k := range e.gone {
		if k.role != role {
			continue
		}
		if _, live := slices.BinarySearch(addrs, k.addr); live || !slices.Contains(last, k.addr) {
			delete(e.gone, k) // back, or out of the upstream: a later leave starts afresh
		}
	}
	e.m.held.WithLabelValues(string(role)).Set(float64(held))
	if held > 0 {
		slices.Sort(out)
	}
	return out
}

// resolve turns members into ip:port strings; bad lists what was left out
// and why.
func (e *Edge) resolve(ctx context.Context, members []string) (addrs, bad []string) {
	for _, s := range members {
		m, err := render.ParseMember(s)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		if m.Addr.IsValid() {
			addrs = append(addrs, m.Addr.String())
			continue
		}
		ips, err := e.cfg.Resolver.LookupNetIP(ctx, "ip", m.Host)
		if err != nil || len(ips) == 0 {
			bad = append(bad, fmt.Sprintf("%s: resolve: %v", s, err))
			continue
		}
		for _, ip := range ips {
			if ip.Zone() != "" {
				continue
			}
			addrs = append(addrs, netip.AddrPortFrom(ip.Unmap(), m.Port).String())
		}
	}
	slices.Sort(addrs)
	return slices.Compact(addrs), bad
}

package server

import (
	"context"
	"errors"
	"fmt"
	"github.com/verdict-oj/verdict/webapp/internal/admission"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/verdict-oj/verdict/internal/lifecycle"
	"github.com/verdict-oj/verdict/internal/registry"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/catalog"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/partition"
	"github.com/verdict-oj/verdict/webapp/internal/ratelimit"
	"github.com/verdict-oj/verdict/webapp/internal/session"
	"github.com/verdict-oj/verdict/webapp/internal/settings"
	"github.com/verdict-oj/verdict/webapp/internal/simcheck"
)

// Server is one web node.
type Server struct {
	cfg      Config
	log      *slog.Logger
	sessions *session.Store
	limiter  *ratelimit.Limiter
	logins   *ratelimit.Logins
	// hasher runs every bcrypt hash (and the dummy one for unknown users)
	// through bounded slots with deadline-aware admission.
	hasher   *account.Hasher
	catalog  *catalog.Catalog
	settings *settings.Service
	judging  *judging.Service
	parts    *partition.Job
	// sim runs the staff's similarity checks (one at a time per node).
	sim      *simcheck.Service
	router   *chi.Mux
	handler  http.Handler
	draining atomic.Bool
	// imports holds a slot per running problem import (one per node: an
	// import holds the whole decompressed package in memory).
	imports chan struct{}

	submitRule, registerRule ratelimit.Bucket

	// gate admits requests (admission.go); nil: all are let in.
	gate      *admission.Gate
	shed      *prometheus.CounterVec
	admitWait prometheus.Histogram
	shedRetry prometheus.Histogram
	upWait    prometheus.Histogram // admission.go: upstreamWait

	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// New checks cfg, registers metrics and readiness checks, and builds the
// router. It does not listen.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil || cfg.Redis == nil || cfg.Obs == nil || cfg.Blobs == nil {
		return nil, fmt.Errorf("%w: Store, Redis, Obs and Blobs are required", ErrConfig)
	}
	if cfg.MaxSourceBytes <= 0 {
		cfg.MaxSourceBytes = DefaultMaxSourceBytes
	}
	cfg.Limits.defaults()
	if cfg.MaxTestdataBytes <= 0 {
		cfg.MaxTestdataBytes = DefaultMaxTestdataBytes
	}
	if cfg.MaxImportRows <= 0 {
		cfg.MaxImportRows = DefaultMaxImportRows
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	def(&cfg.SessionTTL, DefaultSessionTTL)
	def(&cfg.DrainDelay, DefaultDrainDelay)
	def(&cfg.RequestTimeout, DefaultRequestTimeout)
	def(&cfg.UploadTimeout, DefaultUploadTimeout)
	def(&cfg.ConnTimeout, DefaultConnTimeout)
	def(&cfg.ShutdownTimeout, DefaultShutdownTimeout)
	def(&cfg.RegistryInterval, registry.DefaultInterval)
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.TrustedProxies == nil {
		cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Obs.Logger
	cat, err := catalog.New(catalog.Config{Store: cfg.Store, Redis: cfg.Redis, Names: cfg.Names, Logger: log})
	if err != nil {
		return nil, err
	}
	jc := cfg.Judging
	jc.Store, jc.Redis, jc.Names, jc.Logger, jc.Metrics, jc.Now = cfg.Store, cfg.Redis, cfg.Names, log, cfg.Obs.Registry, cfg.Now
	js, err := judging.New(jc)
	if err != nil {
		return nil, err
	}
	pc := cfg.Partitions
	pc.DB, pc.Logger, pc.Metrics = cfg.Store.DB.DB, log, cfg.Obs.Registry
	parts, err := partition.New(pc)
	if err != nil {
		return nil, err
	}
	set, err := settings.New(settings.Config{Store: cfg.Store, TTL: cfg.SettingsTTL, Now: cfg.Now, Logger: log})
	if err != nil {
		return nil, err
	}
	hasher, err := account.NewHasher(account.HasherConfig{Cost: cfg.PasswordCost, Slots: cfg.HashSlots})
	if err != nil {
		return nil, err
	}
	s := &Server{
		judging:    js,
		parts:      parts,
		submitRule: cfg.Limits.submitBucket(),
		cfg:        cfg,
		log:        log,
		sessions:   session.NewStore(cfg.Redis, cfg.Names, cfg.SessionTTL),
		limiter:    ratelimit.New(cfg.Redis, cfg.Names),
		catalog:    cat,
		settings:   set,
		imports:    make(chan struct{}, 1),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_webapp_http_requests_total",
			Help: "HTTP requests served, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "verdict_webapp_http_request_duration_seconds",
			Help:    "HTTP request latency by route pattern and method.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 10),
		}, []string{"route", "method"}),
	}
	s.hasher, s.registerRule = hasher, cfg.Limits.registerBucket()
	if s.sim, err = simcheck.New(simcheck.Config{Store: cfg.Store, Logger: log}); err != nil {
		return nil, err
	}
	s.logins = ratelimit.NewLogins(cfg.Redis, cfg.Names, cfg.Limits.loginPolicy(), nil)
	// The MySQL pool's waits (go_sql_wait_count_total,
	// go_sql_wait_duration_seconds_total): a request queued for a
	// connection shows there, not in any CPU profile.
	if !cfg.AdmissionOff {
		ac := cfg.Admission
		if ac.MaxQueued == 0 {
			// A request whose deadline went by before the gate: the
			// node would work on it for a client likely gone.
			ac.MaxQueued = cfg.RequestTimeout
		}
		if s.gate, err = admission.New(ac); err != nil {
			return nil, err
		}
	}
	pool := collectors.NewDBStatsCollector(cfg.Store.DB.DB, "verdict")
	collect := []prometheus.Collector{s.requests, s.latency, pool}
	if rs := cfg.Judging.ResultStore; rs != nil && rs != cfg.Store {
		collect = append(collect, collectors.NewDBStatsCollector(rs.DB.DB, "verdict_results"))
	}
	if cfg.ReadCache != nil {
		collect = append(collect, readCacheMetrics(cfg.ReadCache)...)
	}
	collect = append(collect, s.admissionMetrics()...)
	collect = append(collect, hasherMetrics(hasher)...)
	for _, c := range collect {
		if err := cfg.Obs.Registry.Register(c); err != nil {
			return nil, fmt.Errorf("server: register metrics: %w", err)
		}
	}
	cfg.Obs.AddReadyCheck("mysql", func(ctx context.Context) error { return cfg.Store.DB.PingContext(ctx) })
	cfg.Obs.AddReadyCheck("redis", func(ctx context.Context) error { return cfg.Redis.Ping(ctx).Err() })
	cfg.Obs.AddReadyCheck("draining", func(context.Context) error {
		if s.draining.Load() {
			return errors.New("draining for shutdown")
		}
		return nil
	})
	s.router = s.routes()
	// Go's profiler (404 unless --pprof) sits beside the API's router, not
	// in it: it is no part of the documented API.
	mux := http.NewServeMux()
	mux.Handle("/debug/pprof/", cfg.Obs.Handler())
	mux.Handle("/", s.router)
	s.handler = s.securityHeaders(mux)
	return s, nil
}

// Catalog is the cached problem list, for writers that must invalidate it.
func (s *Server) Catalog() *catalog.Catalog { return s.catalog }

// Partitions is the node's partition job.
func (s *Server) Partitions() *partition.Job { return s.parts }

// Judging is the node's judging machinery (consumer, reconciler,
// scoreboards).
func (s *Server) Judging() *judging.Service { return s.judging }

// Handler is the whole HTTP surface of the node.
func (s *Server) Handler() http.Handler { return s.handler }

// Routes is the node's router, for walking its routes (chi.Walk): the
// OpenAPI test checks docs/openapi.json against it.
func (s *Server) Routes() chi.Routes { return s.router }

// Run listens on Config.Listen, registers the node in the live registry,
// and serves until ctx ends. Then it drains: /readyz turns 503 and the node
// leaves the registry, it waits DrainDelay for the edge to stop routing
// here, and shuts the server down, letting in-flight requests finish within
// ShutdownTimeout.
func (s *Server) Run(ctx context.Context) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("server: listen %s: %w", s.cfg.Listen, err)
	}
	return s.Serve(ctx, ln)
}

// Serve is Run on an existing listener.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	adv := s.cfg.Advertise
	if adv == "" {
		adv = ln.Addr().String()
	}
	reg, err := registry.New(registry.Config{Client: s.cfg.Redis, Names: s.cfg.Names, Role: rkeys.RoleWeb,
		Addr: adv, Interval: s.cfg.RegistryInterval, Logger: s.log})
	if err != nil {
		ln.Close()
		return fmt.Errorf("server: %w (set --advertise)", err)
	}
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       s.cfg.ConnTimeout,
		WriteTimeout:      s.cfg.ConnTimeout,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	defer s.judging.Wait() // background rejudges, with or without NoBackground
	// The drain, in order (docs/edge.md): /readyz 503 and out of the
	// registry, DrainDelay for the edge to stop routing here, the HTTP
	// shutdown, then the background jobs.
	steps := []lifecycle.Step{
		{Name: "registry", Run: func(ctx context.Context) error { return reg.Keep(ctx, nil) },
			OnStop: func() { s.draining.Store(true) }, Delay: s.cfg.DrainDelay},
		{Name: "http", Run: lifecycle.Serve(srv, ln, s.cfg.ShutdownTimeout)},
	}
	if s.cfg.ReadCache != nil {
		steps = append(steps, lifecycle.Step{Name: "read cache", Run: s.keepReadCacheTrue})
	}
	if !s.cfg.NoBackground {
		steps = append(steps, lifecycle.Step{Name: "partitions", Run: s.parts.Run}, lifecycle.Step{Name: "judging", Run: s.judging.Run})
	}
	s.log.Info("serving", "addr", ln.Addr().String(), "advertise", adv)
	err = lifecycle.Run(ctx, s.log, steps...)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	s.log.Info("stopped")
	return nil
}

package server

import (
	"context"
	"errors"
	"fmt"
	"github.com/verdict-oj/verdict/webapp/internal/account"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/lifecycle"
	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/registry"
	"github.com/verdict-oj/verdict/internal/rkeys"
	sharedsession "github.com/verdict-oj/verdict/internal/session"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/catalog"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/partition"
	"github.com/verdict-oj/verdict/webapp/internal/ratelimit"
	"github.com/verdict-oj/verdict/webapp/internal/session"
	"github.com/verdict-oj/verdict/webapp/internal/settings"
	"github.com/verdict-oj/verdict/webapp/internal/simcheck"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// ErrConfig reports an unusable Config.
var ErrConfig = errors.New("server: invalid config")

// Defaults of Config.
const (
	DefaultListen       = "127.0.0.1:8081"
	DefaultSessionTTL   = 7 * 24 * time.Hour
	DefaultMaxBodyBytes = 1 << 20
	DefaultDrainDelay   = 2 * time.Second
	// DefaultRequestTimeout bounds the work of one API request (they take
	// milliseconds), so a database that stops answering costs a user a
	// prompt 503, not a hang.
	DefaultRequestTimeout = 5 * time.Second
	// DefaultConnTimeout is Config.ConnTimeout's default.
	DefaultConnTimeout = 60 * time.Second
	// DefaultUploadTimeout bounds a test data or user import upload, body
	// transfer included.
	DefaultUploadTimeout   = 5 * time.Minute
	DefaultShutdownTimeout = 15 * time.Second
	DefaultMaxSourceBytes  = 64 << 10
	// DefaultMaxTestdataBytes matches nginx's client_max_body_size.
	DefaultMaxTestdataBytes = 64 << 20
	// DefaultMaxImportRows bounds a user import: every new user costs a
	// bcrypt hash (~0.1 s of one core at the default cost).
	DefaultMaxImportRows = 500
)

// SessionCookie is the name of the session cookie (internal/session owns
// it: the hub reads the same cookie).
const SessionCookie = sharedsession.CookieName

// Config configures New. Zero values take the documented defaults.
type Config struct {
	Store *store.Store          // required
	Redis redis.UniversalClient // required
	Names rkeys.Names
	Obs   *obs.Obs // required: logger, metrics registry, readiness checks

	// Listen is the TCP address Run listens on. Default DefaultListen.
	Listen string
	// Advertise is the host:port the edge reaches this node at, put in the
	// registry. Default: the listener's address.
	Advertise string
	// RegistryInterval is the registry heartbeat. Default
	// registry.DefaultInterval.
	RegistryInterval time.Duration
	// DrainDelay: on shutdown, time between leaving the registry (and
	// failing /readyz) and closing the listener, so the edge stops routing
	// here first. Default DefaultDrainDelay.
	DrainDelay time.Duration
	// ShutdownTimeout bounds in-flight requests after the listener closes.
	ShutdownTimeout time.Duration

	// RequestTimeout is the deadline of every API request's context.
	// Default DefaultRequestTimeout.
	RequestTimeout time.Duration
	// ConnTimeout is the read and write timeout of a connection (the
	// request body in, the answer out); uploads get UploadTimeout
	// instead. Default DefaultConnTimeout.
	ConnTimeout time.Duration
	// UploadTimeout replaces it for file uploads. Default
	// DefaultUploadTimeout.
	UploadTimeout time.Duration

	SessionTTL   time.Duration // default DefaultSessionTTL
	MaxBodyBytes int64         // default DefaultMaxBodyBytes
	// TrustedProxies are the peers whose X-Forwarded-For/-Proto headers are
	// believed. Default: loopback.
	TrustedProxies []netip.Prefix
	// Limits holds the login throttles, the registration and submission
	// rates and the password hashing admission (limits.go,
	// docs/limits.md).
	Limits
	// PasswordCost is the bcrypt cost of new passwords (0: the default).
	PasswordCost int
	// Now is the clock. Default time.Now.
	Now func() time.Time

	// Blobs is the test data blob store judges download from (a blob.Dir
	// or a blob.S3). Required.
	Blobs blob.Store
	// MaxSourceBytes caps a submission's source. Default
	// DefaultMaxSourceBytes.
	MaxSourceBytes int
	// MaxTestdataBytes caps an uploaded test data zip. Default
	// DefaultMaxTestdataBytes.
	MaxTestdataBytes int64
	// MaxImportRows caps the rows of one user import. Default
	// DefaultMaxImportRows.
	MaxImportRows int
	// Judging configures the judging machinery (results consumer,
	// reconciler, scoreboards); Store, Redis, Names, Logger, Metrics and
	// Now are filled in from this Config.
	Judging judging.Config
	// Partitions configures the job that adds submission partitions before
	// ids reach the catch-all; DB, Logger and Metrics are filled in from
	// this Config.
	Partitions partition.Config
	// SettingsTTL is how long the node caches the site settings (the
	// registration mode): a change reaches every node within it. Default
	// settings.DefaultTTL.
	SettingsTTL time.Duration
	// CCSKeepAlive is the longest the Contest API event feed stays
	// silent before a keep-alive newline. Default DefaultCCSKeepAlive.
	CCSKeepAlive time.Duration
	// NoBackground: Serve does not run the consumer, reconciler,
	// publisher and partition job (tests drive them).
	NoBackground bool
}

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
	for _, c := range []prometheus.Collector{s.requests, s.latency} {
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

func (s *Server) routes() *chi.Mux {
	r := chi.NewRouter()
	r.Use(s.requestID, s.accessLog, s.recoverer, s.limitBody, s.deadline)
	r.NotFound(func(w http.ResponseWriter, _ *http.Request) { writeAPIError(w, errNotFound) })
	r.MethodNotAllowed(func(w http.ResponseWriter, _ *http.Request) {
		writeAPIError(w, apiErr(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method not allowed on this resource"))
	})
	oh := s.cfg.Obs.Handler()
	r.Method(http.MethodGet, "/healthz", oh)
	r.Method(http.MethodGet, "/readyz", oh)
	r.Method(http.MethodGet, "/metrics", oh)

	r.Route("/api", func(r chi.Router) {
		r.Use(s.authenticate)
		// Login and registration happen before a session exists: no CSRF
		// token to check. Both require a JSON body, which a cross-site form
		// cannot send without a CORS preflight.
		r.Post("/session", s.handleLogin)
		r.Post("/users", s.handleRegister)
		r.Get("/settings/registration", s.handleRegistrationSettings)
		// Judges authenticate with their token, never a session.
		r.Get("/judge/testdata/{hash}", s.handleJudgeTestdata)
		// The ICPC Contest API and its tokens (ccs*.go, docs/icpc.md).
		s.ccsRoutes(r)
		r.Group(func(r chi.Router) {
			r.Use(s.csrf)
			r.Delete("/session", s.handleLogout)
			r.Get("/me", s.handleMe)
			r.Post("/me/password", s.handleChangePassword)
			r.Get("/problems", s.handleProblems)
			r.Get("/problems/{slug}", s.handleProblem)
			r.Get("/problems/{slug}/assets/{name}", s.handleProblemAsset) // statement images, attachments
			r.Get("/contests", s.handleContests)
			r.Get("/contests/{slug}", s.handleContest)
			r.Get("/contests/{slug}/scoreboard", s.handleScoreboard)
			r.Get("/contests/{slug}/scoreboard.csv", s.handleScoreboardCSV)
			r.Post("/contests/{slug}/unfreeze", s.handleUnfreeze)
			r.Get("/languages", s.handleLanguages)
			r.Post("/submissions", s.handleSubmit)
			r.Get("/submissions", s.handleSubmissions)
			r.Get("/submissions/{id}", s.handleSubmission)
			r.Post("/submissions/{id}/override", s.handleOverride)
			r.Post("/rejudge", s.handleRejudge)
			r.Get("/export", s.handleExport)
			r.Get("/admin/problems", s.handleAdminProblems)
			r.Get("/admin/contests", s.handleAdminContests)
			// The similarity check (staff; similarity.go).
			r.Get("/similarity", s.handleSimilarity)
			r.Get("/similarity/compare", s.handleSimilarityCompare)
			// Custom runs, "run on my input" (customruns.go).
			s.customRunRoutes(r)
			// The ICPC contest day: awards, results upload, balloons (icpc.go).
			s.icpcRoutes(r)
			// Teams, organisations and groups (teams.go).
			s.teamRoutes(r)
			// Output-only submissions and reference solutions (outputs.go, solutions.go).
			s.problemTypeRoutes(r)

			r.Get("/judges", s.handleJudges)
			r.Post("/judges", s.handleIssueJudge)
			r.Delete("/judges/{name}", s.handleRevokeJudge)
			r.Put("/settings/registration", s.handleSetRegistrationSettings)
			r.Post("/users/import", s.handleImportUsers)
			r.Get("/users", s.handleListUsers)
			r.Put("/users/{username}", s.handleUpdateUser)
			r.Post("/users/{username}/password", s.handleResetPassword)
			r.Post("/problems", s.handleCreateProblem)
			r.Put("/problems/{slug}", s.handleUpdateProblem)
			r.Post("/problems/{slug}/testdata", s.handleUploadTestdata)
			r.Post("/problems/import", s.handleImportProblem)
			r.Post("/contests", s.handleCreateContest)
			r.Put("/contests/{slug}", s.handleUpdateContest)
			r.Post("/contests/{slug}/register", s.handleRegisterContest)
			r.Get("/contests/{slug}/participants", s.handleParticipants)
			r.Post("/contests/{slug}/participants", s.handleAddParticipants)
			r.Delete("/contests/{slug}/participants/{username}", s.handleRemoveParticipant)
			r.Get("/contests/{slug}/clarifications", s.handleClarifications)
			r.Post("/contests/{slug}/clarifications", s.handleAsk)
			r.Post("/contests/{slug}/clarifications/{id}/answer", s.handleAnswer)
		})
	})
	return r
}

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

package obs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/verdict-oj/verdict/internal/lifecycle"
)

// Defaults of Config.
const (
	DefaultReadyTimeout    = 2 * time.Second
	DefaultShutdownTimeout = 5 * time.Second
)

// Config configures New.
type Config struct {
	// Component names the process: "webapp", "hub", "judge", "edge".
	// Required. It labels every log record and verdict_build_info.
	Component string
	// Log configures the logger; Log.Component is ignored (Component is
	// used).
	Log LogConfig
	// LogOutput is where logs go. Default os.Stderr.
	LogOutput io.Writer
	// LogBuffer, when positive, is how many log records wait for
	// LogOutput in a buffer written by a goroutine of the Obs's own
	// (logbuffer.go), so that a slow log sink never holds the code that
	// logs; a record that finds it full is dropped, counted in
	// verdict_log_records_dropped_total and noticed in the log. Close
	// flushes it. 0: every record is written as it is logged.
	LogBuffer int
	// Pprof adds Go's profiler (net/http/pprof) under /debug/pprof/ to
	// Handler: for profiling under load; never reachable from outside.
	Pprof bool
	// Registry is the metrics registry. Default: a new registry. Either way
	// the Go and process collectors and verdict_build_info are registered
	// on it. The global default registry is never used.
	Registry *prometheus.Registry
	// ReadyTimeout bounds each readiness check. Default DefaultReadyTimeout.
	ReadyTimeout time.Duration
	// ShutdownTimeout bounds the graceful shutdown of Serve.
	// Default DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
}

// Obs holds a process's logger, metrics registry and readiness checks, and
// serves /healthz, /readyz and /metrics.
type Obs struct {
	// Logger is the process logger, with KeyComponent set.
	Logger *slog.Logger
	// Registry is where the process registers its metrics.
	Registry *prometheus.Registry

	component       string
	logBuf          *logBuffer // nil: Config.LogBuffer 0
	pprof           bool
	build           BuildInfo
	readyTimeout    time.Duration
	shutdownTimeout time.Duration

	mu     sync.Mutex
	checks []readyCheck
}

type readyCheck struct {
	name string
	fn   func(context.Context) error
}

// New builds an Obs from cfg.
func New(cfg Config) (*Obs, error) {
	if cfg.Component == "" {
		return nil, fmt.Errorf("%w: component is empty", ErrBadConfig)
	}
	if cfg.LogOutput == nil {
		cfg.LogOutput = os.Stderr
	}
	if cfg.ReadyTimeout <= 0 {
		cfg.ReadyTimeout = DefaultReadyTimeout
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.LogBuffer < 0 {
		return nil, fmt.Errorf("%w: log buffer %d", ErrBadConfig, cfg.LogBuffer)
	}
	logCfg := cfg.Log
	logCfg.Component = cfg.Component
	out := cfg.LogOutput
	var buf *logBuffer
	if cfg.LogBuffer > 0 {
		// The notice of dropped records is a record of the same format.
		if _, err := newHandler(io.Discard, logCfg); err != nil {
			return nil, err
		}
		notice := func(n uint64) []byte {
			var b bytes.Buffer
			l, _ := NewLogger(&b, logCfg)
			l.Warn("log records dropped: the log output was too slow", "dropped", n)
			return b.Bytes()
		}
		buf = newLogBuffer(out, cfg.LogBuffer, notice)
		out = buf
	}
	logger, err := NewLogger(out, logCfg)
	if err != nil {
		return nil, err
	}
	reg := cfg.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	o := &Obs{
		Logger:          logger,
		logBuf:          buf,
		Registry:        reg,
		component:       cfg.Component,
		pprof:           cfg.Pprof,
		build:           Build(),
		readyTimeout:    cfg.ReadyTimeout,
		shutdownTimeout: cfg.ShutdownTimeout,
	}
	for _, c := range []prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfoGauge(cfg.Component, o.build),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "verdict_log_records_dropped_total",
			Help: "Log records dropped because the log output was too slow for the log buffer (Config.LogBuffer).",
		}, func() float64 {
			if buf == nil {
				return 0
			}
			return float64(buf.dropped.Load())
		}),
	} {
		if err := reg.Register(c); err != nil {
			if _, dup := errors.AsType[prometheus.AlreadyRegisteredError](err); dup {
				continue // a caller-supplied registry may already have it
			}
			return nil, fmt.Errorf("obs: register collector: %w", err)
		}
	}
	return o, nil
}

// Close writes out the log buffer (Config.LogBuffer), waiting at most 2 s
// for a stuck output; records logged after it are dropped. Call it last,
// after the process's final record. Safe to call twice; nothing to do
// without a buffer.
func (o *Obs) Close() {
	if o.logBuf != nil {
		o.logBuf.Close()
	}
}

// Build returns the build information reported by verdict_build_info.
func (o *Obs) Build() BuildInfo { return o.build }

// AddReadyCheck registers a named readiness check, run on every /readyz
// request with a context bounded by Config.ReadyTimeout. A check returns nil
// when the process can serve (its database answers, it holds its
// connections, it is not draining). Adding a name twice replaces the check.
func (o *Obs) AddReadyCheck(name string, check func(ctx context.Context) error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.checks {
		if o.checks[i].name == name {
			o.checks[i].fn = check
			return
		}
	}
	o.checks = append(o.checks, readyCheck{name, check})
}

// Handler serves:
//
//	/healthz  200 "ok" while the process runs
//	/readyz   200 and the check results as JSON when every check passes,
//	          503 naming the failing checks and their errors otherwise
//	/metrics  the registry in the Prometheus exposition format
//
// Mount it on a dedicated listener (see Serve) or on the process's own mux.
func (o *Obs) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", o.serveReady)
	mux.Handle("GET /metrics", promhttp.HandlerFor(o.Registry, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(o.Logger.Handler(), slog.LevelError),
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      o.Registry,
	}))
	if o.pprof {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// CheckResult is the outcome of one readiness check in the /readyz body.
type CheckResult struct {
	OK         bool   `json:"ok"`
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"duration_ms"`
}

// ReadyReport is the /readyz body.
type ReadyReport struct {
	Status string                 `json:"status"` // "ok" or "fail"
	Failed []string               `json:"failed,omitempty"`
	Checks map[string]CheckResult `json:"checks"`
}

// Ready runs every readiness check concurrently and reports the results.
func (o *Obs) Ready(ctx context.Context) ReadyReport {
	o.mu.Lock()
	checks := slices.Clone(o.checks)
	o.mu.Unlock()

	results := make([]CheckResult, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Go(func() { results[i] = o.runCheck(ctx, c) })
	}
	wg.Wait()

	rep := ReadyReport{Status: "ok", Checks: make(map[string]CheckResult, len(checks))}
	for i, c := range checks {
		rep.Checks[c.name] = results[i]
		if !results[i].OK {
			rep.Failed = append(rep.Failed, c.name)
		}
	}
	if len(rep.Failed) > 0 {
		rep.Status = "fail"
		slices.Sort(rep.Failed)
	}
	return rep
}

// runCheck runs one check under the timeout. A check that ignores its
// context is abandoned when the timeout passes (its goroutine finishes on its
// own); a check that panics fails.
func (o *Obs) runCheck(ctx context.Context, c readyCheck) CheckResult {
	ctx, cancel := context.WithTimeout(ctx, o.readyTimeout)
	defer cancel()
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("check panicked: %v", p)
			}
		}()
		done <- c.fn(ctx)
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		err = fmt.Errorf("check did not return: %w", ctx.Err())
	}
	res := CheckResult{OK: err == nil, DurationMs: time.Since(start).Milliseconds()}
	if err != nil {
		res.Error = err.Error()
	}
	return res
}

func (o *Obs) serveReady(w http.ResponseWriter, r *http.Request) {
	rep := o.Ready(r.Context())
	code := http.StatusOK
	if rep.Status != "ok" {
		code = http.StatusServiceUnavailable
		for _, name := range rep.Failed {
			o.Logger.Warn("readiness check failed", "check", name, KeyError, rep.Checks[name].Error)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(rep)
}

// Serve serves Handler on ln until ctx is done, then shuts the server down
// gracefully (bounded by Config.ShutdownTimeout). It returns nil after a
// shutdown caused by ctx.
func (o *Obs) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           o.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if err := lifecycle.Serve(srv, ln, o.shutdownTimeout)(ctx); err != nil {
		return fmt.Errorf("obs: %w", err)
	}
	return nil
}

// ListenAndServe listens on addr (e.g. ":9100") and calls Serve.
func (o *Obs) ListenAndServe(ctx context.Context, addr string) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("obs: listen %s: %w", addr, err)
	}
	o.Logger.Info("observability listening", "addr", ln.Addr().String())
	return o.Serve(ctx, ln)
}

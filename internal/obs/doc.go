// Package obs is the observability every Verdict process shares: the slog
// logger and its standard attribute keys, build information, and the
// /healthz, /readyz and /metrics endpoints.
//
// A main builds one Obs and injects its Logger and Registry everywhere:
//
//	o, err := obs.New(obs.Config{Component: "hub", Log: obs.LogConfig{Level: *logLevel}})
//	...
//	o.AddReadyCheck("redis", func(ctx context.Context) error { return rdb.Ping(ctx).Err() })
//	go o.ListenAndServe(ctx, *metricsAddr) // or mount o.Handler() on the main mux
//
// # Logging
//
// NewLogger returns a JSON (default) or text slog logger at a level named
// by a string. Records use the keys KeyComponent, KeySubmissionID, KeyJudgeID
// and KeyAttempt (helpers: Component, SubmissionID, JudgeID, Attempt) so the
// same submission can be followed through webapp, hub and judge logs. The
// global slog logger is never used.
//
// # Build information
//
// Version, commit and build date are set at link time:
//
//	go build -ldflags "\
//	  -X github.com/verdict-oj/verdict/internal/obs.version=v0.3.1 \
//	  -X github.com/verdict-oj/verdict/internal/obs.commit=$(git rev-parse HEAD) \
//	  -X github.com/verdict-oj/verdict/internal/obs.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)" ./hub
//
// Unset values fall back to runtime/debug.ReadBuildInfo (the module version,
// vcs.revision and vcs.time, which are only recorded when building with VCS
// stamping), then to "unknown". New exports them as the gauge
//
//	verdict_build_info{component="hub",version="v0.3.1",commit="…",goversion="go1.26.8"} 1
//
// # Endpoints
//
// Handler serves /healthz (200 "ok" while the process runs), /readyz (runs
// every check registered with AddReadyCheck concurrently, each bounded by
// Config.ReadyTimeout; 200 with the results as JSON when all pass, 503 with
// the failing checks named otherwise) and /metrics (the process's own
// prometheus.Registry, with the Go and process collectors; never the global
// default registry, so tests and several Obs in one process do not collide).
//
// # Metric names read by other processes
//
// A metric another process reads is named here once (metricnames.go):
// the hub's dispatch pass latencies, those that placed tasks
// (HubDispatchPassSeconds) and those that placed nothing
// (HubDispatchIdlePassSeconds), its dispatcher's wait for a core
// (HubDispatchWakeSeconds), its results' ways to their slots
// (HubResultSlotSeconds) and its queue waits (HubQueueWaitSeconds), which
// the contest rehearsal feeds to the scheduling simulator's replay or
// reports beside it, and HubJudgeMessageWaitSeconds (how long judges'
// messages waited for the hub), read with ReadHistogram or HistogramMean.
//
// A process that drains registers a check that fails once draining starts,
// so /readyz turns 503 and the balancer stops sending it work before it
// stops listening.
package obs

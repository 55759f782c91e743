// Package lifecycle is how every Verdict process starts and stops, in one
// shape:
//
//	ctx, stop := lifecycle.Signals()   // SIGINT, SIGTERM
//	defer stop()
//	return lifecycle.Run(ctx, log,
//		lifecycle.Step{Name: "registry", OnStop: notReady, Run: reg.Keep..., Delay: drainDelay},
//		lifecycle.Step{Name: "http", Run: lifecycle.Serve(srv, ln, timeout)},
//		lifecycle.Step{Name: "jobs", Run: jobs.Run},
//	)
//
// Run starts every step's Run(ctx) error side by side (an errgroup) and
// waits for the signal or for one of them to return (a failure). Then it
// drains in the order the steps are listed, one at a time: a step's
// OnStop is called, its context cancelled and its Run waited for, then
// its Delay (the drain delay: time for the edge to stop routing here)
// passes before the next step is stopped. The usual order is the one
// docs/edge.md describes: leave the live registry (and fail /readyz), the
// drain delay, http.Server.Shutdown (Serve), then the background jobs.
// Nothing a step starts outlives Run.
//
// Retry and Backoff are the one way a process retries a start-up step
// instead of exiting (registration in the live registry:
// registry.Registrar.Keep).
package lifecycle

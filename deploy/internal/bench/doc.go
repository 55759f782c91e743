// Package bench is `verdict-stack bench` (make bench): the measurements of
// issue 9 that need more than one component — the queue and scheduler and
// the web tier through nginx — each bounded in time and sending traffic
// only to 127.0.0.1. It owns the pure parts they share: latency
// percentiles and the open-loop constant-rate pacer (latency counted from
// the intended send time, so a slow server cannot hide its queueing by
// slowing the load down: no coordinated omission).
package bench

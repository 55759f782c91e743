// Package warm decides which judges prefetch which test data before a
// contest: pure logic, no I/O, the caller passes the time.
//
// Given the warm plan (internal/warmplan, written by the web nodes), now,
// and what the hub knows of each connected judge (the data it holds, the
// prefetches sent and not yet reported, the ones that failed), Plan returns
// the prefetches to send and, per contest, how many judges are warm. From
// Config.Before ahead of a contest's start until its end, every judge is
// to hold every problem's current test data; a changed hash is a new
// datum, so it is warmed again. Prefetches go out at most MaxInFlight per
// judge at a time (the agent downloads two at once and skips the rest),
// earliest contest first; one not reported within Retry is sent again, one
// that failed waits Backoff.
package warm

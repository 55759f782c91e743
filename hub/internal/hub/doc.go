// Package hub is the hub's core: the judge link (/judge, verdict.judge.v1),
// the dispatcher that takes tasks from the Redis queue and places them on
// judges through a sched.Policy, the lease reaper, the browser link (/ws,
// verdict.live.v1) with its per-channel fan-out, the overload notice, and
// warming: judges prefetch the test data of contests about to start (the
// warm plan, decided by hub/internal/warm).
//
// State that must survive the hub lives in Redis (internal/queue): the
// queue, the leases, the results stream and the live state of submissions.
// What the hub keeps in memory (which judge holds what, who subscribed to
// what) is rebuilt from judges' heartbeats and browsers' resubscriptions
// after a restart, so a hub can be killed at any moment and several hubs can
// run side by side.
//
// The browsers' Redis reads (sessions, subscription snapshots) share the
// hub's one Redis pool with its judges' work only up to a bound
// (Config.BrowserReads, readGate), so that a storm of browsers cannot
// hold up a lease's renewal until it expires. See docs/hub.md.
package hub

// Package simjudge runs simulated judges: processes that speak the real
// judge protocol (internal/protocol, verdict.judge.v1) to a real hub, over
// a real WebSocket, with a real judge token, exactly as the judge agent
// (judge/internal/agent) does — hello with languages, cached data and
// max_parallel; a heartbeat every interval the welcome announces, listing
// the attempts held; accept or reject (busy when every slot is taken,
// draining, language, invalid, data) each pushed task; progress
// (compiling, judging, then cases batched ≤ 250 ms); the result, resent
// until result_ack; cancel, evict, prefetch and drain obeyed; reconnects
// with the agent's backoff and its reading of protocol's close table.
//
// Test data is real too: downloaded from the task's URL (or
// /api/judge/testdata/{hash} on the hub's host) with "Authorization:
// Bearer <token>", its SHA-256 checked against the task's hash (a mismatch
// is a system error, as on the agent; a failed download gives the task
// back with reject data) and read with internal/testpkg for its cases.
// Only the manifest is kept, in memory, by hash; hello lists those hashes
// on every reconnect.
//
// Nothing is compiled or run. A Model plans each task from its source:
// a line "// sim: verdict=WA case=3 ms=40" (or "# sim: …") picks the
// verdict, the first failing case and the mean case time; without one the
// submission is accepted. Case times are lognormal around the mean,
// divided by the judge's speed factor; ICPC stops at the first failing
// case, IOI runs them all and scores like the real judge. The judge sleeps
// those durations on timers, Slots tasks at a time. The plan of an attempt
// depends only on the seed, the attempt and the test data, so runs are
// reproducible.
//
// For a rehearsal driver: Config.OnEvent reports every step of every
// task (Event), and Judge.Stats returns the counters and a TaskRecord per
// attempt (received, accepted, started, finished, work slept, verdict
// sent, acknowledged).
//
// `verdict-stack simjudge` runs any number of them against an
// installation; docs/benchmarks.md, "Simulated judges", says how.
package simjudge

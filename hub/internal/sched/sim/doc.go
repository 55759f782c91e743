// Package sim is the scheduling lab: a discrete-event simulator of the hub,
// its judges and their workload that drives the real policy types of
// package sched (not copies) through the same view the hub builds, and
// compares them on time to verdict (submission → final verdict; wait is
// secondary) against references and a lower bound.
//
// What it owns:
//
//   - the event engine (Engine: a deterministic time-ordered heap);
//   - the workload (Trace: heavy-tailed job sizes as sums of per-case run
//     times, Zipf problem popularity, a contest-start flash crowd, a 10×
//     burst on one problem), generated per seed and shared by every policy
//     of a cell (common random numbers);
//   - the cluster (judges of 2–16 cores, per-core speeds 0.5–1.5, a local
//     FIFO queue beyond their slots, an LRU test data cache with download
//     cost, heartbeats every 0.5/3/10 s carrying stale snapshots, load1
//     averaged like Linux, capacity drops, crashes, gray failure, silent
//     reporters);
//   - the hub model (central queue, dispatch passes of PeekWindow tasks
//     woken by events and a 250 ms tick, exact in-flight accounting, leases
//     renewed by heartbeats, the reaper, heartbeat timeouts, prefetch,
//     Observe feedback with the run time results report), as in
//     hub/internal/hub;
//   - the references: Ideal (one central FIFO queue, perfect knowledge,
//     binds only when a slot frees, to the free slot that finishes the
//     head task first, paying downloads), IdealWarm (the same with free
//     downloads), IdealDrop and IdealWarmDrop (bound by the hub's rule
//     that a silent judge gets no work) — none of them a bound — and
//     Bound, a true lower bound on time to verdict computed from the trace
//     (LowerBound: each job's own run on the fastest judge, and SRPT on one
//     machine as fast as the cluster), checked against every run;
//   - scenario files (ParseScenario, strict JSON documented in
//     docs/scheduling.md): the cluster (slots, speed, cache, join and
//     leave), the workload (problems, test data, languages, per-verdict
//     compile and run times, ICPC early stop), the arrivals (Poisson or
//     periodic practice, a burst, a contest, rejudges, custom runs, or a
//     replayed trace; priority classes) and the faults; the built-in
//     scenarios are such files (scenarios/*.json, embedded);
//   - metrics (Result, with the realised offered load beside the nominal),
//     statistics over seeds (Mean95), the experiment
//     grid (Experiment) with policy variants for ablations (Ablations),
//     the Markdown report and a small SVG line plotter;
//   - Replay: a recorded run (internal/schedtrace, exported by the contest
//     rehearsal) replayed with the same policy on exactly its arrivals,
//     judges (slots, speed, join and leave) and service times, its
//     enqueue → dispatch waits per judge, per class and overall beside the
//     hub's recorded ones (ReplayResult, WriteReplayTable).
//
// cmd/sim runs the grid and writes docs/scheduling.md; `cmd/sim -scenario
// mine.json` runs it on scenario files; `cmd/sim -replay trace.json`
// replays a trace.
package sim

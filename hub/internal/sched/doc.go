// Package sched holds the hub's scheduling policies: plain Go, no I/O, no
// clocks of their own (the caller passes "now"), so the hub and the
// scheduling simulator drive the very same types.
//
// A Policy is asked, for one task at a time, which judge should take it
// (Pick). The caller describes each judge with a Judge value: what the
// judge last reported in its heartbeat (stale by up to one interval) and
// what the caller knows for sure (the tasks it has handed the judge and not
// yet seen finish). Pick may hold the task (Decision.Judge < 0): the caller
// keeps it queued and asks again later.
//
// Policies:
//
//   - "guide" (Guide): the formula of the load-balancing guide, section 3:
//     score = running/cores×5 + load1/cores×3 + mem_used_ratio×2, lowest
//     wins; a judge whose load1 > 1.5×cores or whose local queue > 3 is
//     skipped; when every judge is skipped the task is held. It reads only
//     heartbeat data, so a burst between two heartbeats herds onto the
//     judge that looked idlest. Kept as the baseline.
//   - "default" (Bounded): the guide's flaws fixed. It counts what it
//     dispatched since the judge's last heartbeat (exact in-flight
//     accounting); binds late (only to a judge with a free slot, plus an
//     optional short local queue); gives each problem homes (the judges of
//     highest weight on a capacity-weighted rendezvous ring: at least two,
//     more for a problem with a large share of recent dispatches) and a
//     bounded load (consistent hashing with bounded loads, factor 1.25, on
//     capacity shares); ranks the free judges by expected time to verdict
//     — the task's expected work (learnt per problem, costModel) at the
//     judge's learnt speed (SpeedMeter, via Observe, which also exposes a
//     gray judge), plus, if the judge lacks the data, the learnt download
//     time weighted by how busy the cluster is and by the cache it would
//     evict off a non-home judge — near-ties going to the judge holding
//     the data, then a home; holds the task for a busy judge holding the
//     data only while waiting is expected to finish it sooner, at most
//     MaxDefer (2 s) from the first time it declined a free slot for it
//     (delay scheduling; a free judge holding the data is taken at once);
//     detects hot problems (heavy hitters over a sliding window) and
//     spreads them by load while asking the caller to prefetch their data
//     to every judge; matches languages; and avoids judges whose load1
//     says something else eats their CPU.
//
// These two are what the hub offers (New, Names, its --policy flag). The
// scheduling lab's baselines (random, wrr, swrr, least_conn, p2c,
// least_request, peak_ewma, adaptive, chbl, pull, window_swrr) live in
// package lab, which only the simulator imports.
//
// Pass is the dispatch pass itself (ask the policy for each task at the
// head of the queue, count each placement in its judge's view, hold
// background work, a rejudge, beyond the Reserve of slots kept for the
// rest): the hub and the simulator both call it, so they cannot diverge.
//
// Policies that learn from outcomes implement Observer (default here; the
// lab's peak_ewma, adaptive and window_swrr); the caller reports each placed task's end: the
// latency from dispatch and the run time its result reports, or Failed on
// expiry. A caller that reports nothing leaves the default policy without
// speed estimates (every judge counts as speed 1), nothing worse. The
// default policy also implements Estimator: what it has learnt so far
// (CostEstimates: the overheads, the download cost, the judges' speed
// range), which the hub exports and the simulator's replay sets beside
// its own.
//
// New returns one of the hub's policies by name, for configuration.
package sched

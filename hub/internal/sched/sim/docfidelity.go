package sim

// docFidelity is the report's section on what the simulator models of the
// hub since issue 18's fidelity round and issue 14's one dispatch pass.
const docFidelity = `
## The simulator against the hub (issue 18, item 5; issue 14, §5)

**One dispatch pass.** The hub (hub/internal/hub, ` + "`dispatchOnce`" + `) and the simulator call the same function,
` + "`sched.Pass(now, policy, tasks, judges, reserve)`" + `: it asks the policy about each task of the window in queue order,
counts every placement in its judge's ` + "`Assigned`" + ` and ` + "`SinceHeartbeat`" + ` so later tasks of the pass see it,
and after a busy (or no-judge) hold skips the rest of that *language* without asking — such a hold depends
only on the judges and the language, and nothing in a pass frees a slot — while an affinity hold concerns one
task and the pass goes on. ` + "`PassResult.Again`" + ` (something placed from a full window) decides the next pass
at once for both. Before, the hub asked every task after a busy hold and the simulator stopped at the first;
the hub ran again after any placement from a full window, the simulator only after placing all of it. The
dispatcher's defaults (` + "`sched.DefaultPeekWindow`" + `, ` + "`sched.DefaultDispatchTick`" + `, ` + "`sched.DefaultReserveShare`" + `) live in sched.
The reserve (` + "`sched.Reserve`" + `, the hub's ` + "`--dispatch-reserve`" + `, ` + "`hub.reserve`" + ` in a scenario file, a trace's ` + "`reserve`" + `
in a replay) is in the pass too: a rejudge task is placed only while the judges' assigned tasks stay below
their slots less ` + "`ceil(share × slots)`" + `, so a contest submission finds a slot while a rejudge waits; the
references do not keep one.

**Decision latency.** A pass decides on the state at its start and takes its leases and pushes the tasks
` + "`pass_latency_s`" + ` (default 5 ms: the queue's publish reaching the hub, the Peek and LeaseMany round trips, the
push) plus ` + "`decision_cost_s`" + ` per decision (default 20 µs) later; the dispatcher runs one pass at a time, and
what wakes it meanwhile (an arrival, a result, a heartbeat) is served by a pass right after. The references
still decide instantly (they relax latency; see References).

**Several hubs.** With ` + "`hub.hubs`" + ` > 1 judge i connects to hub i mod hubs; each hub has its own policy
instance (its own speed estimates, deferral clocks and hot-problem counts), its own passes over the head
of the shared queue seeing only its own judges, and its own tick phase. Two hubs that pick the same task in
overlapping passes race for the lease: the first commit takes it, the other's placement fails
(` + "`LeaseConflicts`" + ` in the result). The built-in scenarios run one hub.

**A silent judge's results.** The hub closes a judge after 3 silent heartbeat intervals, but its leases live
4: a result the judge finishes in between used to be accepted by the simulator. Now a closed link receives
nothing: the judge keeps the result unacknowledged and resends it when it connects again, and the hub
records it only if the lease still holds (` + "`queue.Complete`" + `), else drops it as stale (` + "`Wasted`" + `); on that
reconnect the hub withdraws the attempts the judge lists whose leases expired meanwhile (` + "`cancelUnheld`" + `;
` + "`Cancelled`" + `), freeing its slots. ` + "`TestSilentJudgesResultsAreRejected`" + ` fails if the simulator accepts such a
result.

**What a result reports.** The hub learns speeds from the sum of a result's case wall times: no compile step,
and under ICPC rules nothing after the first failing case. The simulator now reports the same (the job's run
on the judge less its compile share; a job's size already stops at the failing case with
` + "`icpc_early_stop`" + `), not the whole time on the slot (` + "`TestReportedRunIsTheCases`" + `).

**Languages.** A judge may run only some languages (` + "`cluster.judges[].languages`" + `); the policies see it in
` + "`sched.Judge.Languages`" + ` as they do the hello's list in the hub, and the ideals place a task only on a judge
that runs its language (passing over a head task whose judges are all busy). Priorities (contest, custom run,
practice, rejudge), rejudges and custom runs were already modelled (Scenario files below).

**The seed article's dynamic weights as a baseline.** ` + "`window_swrr`" + ` (` + "`lab.WindowSWRR`" + `): statistics per 10 s
window (results and their reported run times, expired leases per judge) → weights (slots × results per
run-second, averaged over windows with step 0.5, × the success ratio) → nginx's smooth weighted round robin
over them, with the guide's overload protection (skip a judge whose load1 > 1.5 × cores or whose local queue
> 3; hold when every judge is skipped). It is a push balancer otherwise: no free-slot check, no affinity.

**Trace export.** ` + "`verdict-stack export-trace`" + ` turns a recorded run — a rehearsal's trace, or a real
installation's submissions and per-case times read from its MySQL (` + "`--dsn`" + `) — into a scenario file this
simulator runs under every policy (see Scenario files, "From a real run", for what MySQL does not keep).
`

// docMisses follows the headline table: why its ✗ cells miss, by
// mechanism (the figures are in the table).
const docMisses = `The first part is the test data ideal-warm never fetches (see the hit ratio column; each miss costs
about 0.8 s), the second what the hub cannot see and the references can: the 5 ms decision latency of every
pass, speeds learnt from results instead of known (` + "`default-oracle`" + ` in the ablation), caches and free slots as of
the hub's last event, and the deferral's bet on a warm judge, which does not always pay. Most mean misses at
ρ ≤ 0.85 are by a few per cent, while the default stays within a few per cent of the ideal (or beats it) and well ahead of
every baseline (the "best other" column). The larger misses are the faults and the burst. A crash (or a silent
judge, closed by the hub) takes j2's 8 of the 62.2 units of capacity for 120 s, so at ρ 0.95 the rest run at
about 1.09: every policy and reference builds a queue, and it drains through the 5 % headroom, of which the
default's downloads (ideal-warm pays none) and deferrals take a share; the detection delay (a lease of 4
heartbeats, a judge closed after 3 silent ones) touches only the tasks on the judge when it fails, a few
dozen of the ~17,000 in the window, so it is a small part of the miss, and ideal-warm's knowing the crash at
once matters little. A gray judge (5× slower, reporting
healthy) is learnt slow only from its results (about 4 of them drift far enough to restart its estimate; in
` + "`TestSpeedMeterSeesAGrayJudge`" + ` it is at about half its old speed after 10 and 0.4× after 20), and work sent to it
meanwhile finishes late;
the burst's hot problem is spread and prefetched only once detected. At ρ 0.95 any lost capacity turns into
a queue, so these misses grow there. The silent scenario is measured against ideal-warm, which keeps using a
judge nobody hears from; against ideal-warm-drop (bound by the hub's rule that a silent judge gets no work)
it misses by about as much as the other fault scenarios.
`

// Package schedtrace is the scheduling trace: one recorded run of the hub's
// dispatcher — the judges (slots, speed, when they connected and left) and
// every task (when it was enqueued, what it needs, how much work it is) —
// with what the real hub did with each task (when it first pushed it, and
// to which judge) where that was recorded.
//
// It crosses processes: the contest rehearsal (deploy/internal/rehearsal)
// writes it while it drives a real hub with simulated judges,
// `verdict-stack export-trace --dsn` reads it from a real installation's
// MySQL (submissions and their per-case results), and the
// scheduling simulator (hub/internal/sched/sim, Replay and `sim -replay`)
// reads it, runs the same policy on exactly those arrivals and judges, and
// puts its enqueue → dispatch waits beside the hub's.
//
// The format is one JSON object (Trace); times are integer milliseconds
// since Trace.Start (the hub's passes' in microseconds). Write and Read both validate (Validate), so neither
// side ever sees a trace the other could not replay. The rules beyond the
// field comments:
//
//   - at least one judge; a judge's id is not empty, slots ≥ 1, speed > 0,
//     join_ms ≥ 0 and leave_ms either 0 (never left) or after join_ms;
//   - a judge that reconnects (killed and restarted with the same id)
//     appears once per connection: entries with the same id must not
//     overlap in time, and a fresh connection starts with the cache its
//     warm lists (hashes, none empty or repeated), empty when it has none;
//   - submission ids are > 0 and unique (one task per submission: its first
//     attempt), at_ms, problem_id, work_ms, dispatch_ms, placed_ms and
//     held_ms are ≥ 0, slot_ms is in [0, 60000] (MaxLatencyMs), language
//     is not empty and priority is a protocol.Priority;
//   - a recorded dispatch is a task with judge_id set, which must name one
//     of the judges; dispatch_ms, placed_ms, held_ms or slot_ms without
//     judge_id is an error (held_ms is the time that judge held the task's
//     slot; placed_ms when the hub's pass that placed it began; slot_ms
//     the hub's time from that judge's result to its slot free). dispatch_ms
//     may precede at_ms by a little: at_ms is the best time a recorder has
//     of the enqueue (the rehearsal: the queue's own enqueue time, which
//     the hub sends with the push, protocol.Task.EnqueuedMs; from an older
//     hub the submission row's created_at, just before the web node
//     enqueues; before 2026-12-04, when the POST's answer reached the
//     client, often after the push);
//   - a recorded result (compile_ms, cases_ms, verdict, verdict_ms, ran_on:
//     what an installation's MySQL keeps, see `verdict-stack export-trace
//     --dsn`) has compile_ms in [0, work_ms], cases_ms ≥ 0, a final
//     protocol.Verdict, verdict_ms ≥ 0, and ran_on naming one of the judges;
//   - pass_ms and result_ms, and each latency window's (and its wake_ms
//     and idle_ms), are in [0, 60000] (MaxLatencyMs); the windows' at_ms
//     are ≥ 0 and strictly increasing; a window's pass_hist, result_hist,
//     wake_hist and idle_hist, where
//     present, have bounds_ms strictly
//     increasing in (0, 60000] and counts ≥ 0, one more than the bounds;
//   - the learnt estimates' at_ms are ≥ 0 and strictly increasing, their
//     warm_ms, cold_ms and fetch_ms in [0, 60000], and 0 ≤ speed_lo ≤
//     speed_hi ≤ 1e6;
//   - the hub's passes (passes) are in the order they ran: at_us ≥ 0 and
//     never before the one before, took_us in [0, 60000000] (µs), placed
//     ≥ 0; passes_lost ≥ 0.
//
// Tasks need not be sorted by at_ms (readers sort them).
//
// Errors name the field and its index, as in "tasks[3].work_ms: negative",
// and wrap ErrInvalid.
package schedtrace

// Package queue is the Redis side of judging, shared by the web nodes and the
// hub: the judge queue, leases, the results stream, and the live state and
// events of submissions that browsers watch.
//
// # Life of a task
//
//	web node                 hub                          judge
//	Enqueue ──► queue ──Peek/Lease──► lease ──task──► runs
//	                 ▲                 │   ▲ Renew (heartbeats)
//	                 │  Release        │   │
//	                 ├─────────────────┤   │
//	                 │  Reap: deadline passed, attempt+1
//	                 │                 │
//	                 │                 └─Complete──► results stream ──► web nodes
//	                                   Reap after MaxAttempts ──► SE result
//
// Every move between queue, lease and result is one Lua script, so it is
// atomic however many hubs run and whenever one of them dies:
//
//   - Enqueue is idempotent per (submission id, attempt): enqueueing an
//     attempt that is already queued, leased or done is a no-op
//     (ErrDuplicate). Enqueueing a higher attempt (a rejudge) replaces
//     whatever the older attempt was doing; its result will be stale.
//   - The queue is a sorted set ordered by priority (contest > practice >
//     rejudge), then submission time.
//   - Lease moves one task from the queue to the lease set with a deadline;
//     it fails (ErrNotQueued) if the task is no longer queued under that
//     attempt, so two dispatchers never lease one task twice.
//   - Renew pushes the deadlines of the tasks a judge reports in a
//     heartbeat, if that judge still holds them.
//   - Release puts a leased task back in the queue under the same attempt
//     (a judge rejected it, or it could not be pushed).
//   - Reap takes every lease whose deadline passed (Redis's clock) and
//     requeues it with attempt+1 — or, once MaxAttempts attempts of this
//     enqueue have expired, appends a system error result instead. It
//     lists the expired leases first and builds their results in Go
//     (protocol.Result); the move of each lease is then one script that
//     acts only if the lease is still due and its record still as listed.
//   - Complete appends a judge's result to the results stream and ends the
//     lease in one step, only if that judge still holds that attempt. A
//     result of any other attempt is refused (ErrStale) and never reaches
//     the stream. The same judge completing the same attempt again (the
//     answer to its first completion was lost, as when Redis stops
//     between the two) is answered as the first time, with the entry's
//     id and Again set, so that its caller still publishes the final
//     state; an attempt that ended in a system error stays stale.
//
// The scripts store and move JSON built in Go; the names of the hash and
// stream fields they touch (fields.go, the Field constants) are written
// into them from the Go constants the readers use (redisscript.Expand).
//
// The results stream (rkeys.Results) therefore holds at most one result per
// (submission, attempt) and, per enqueue, exactly one final result. Each
// entry carries the attempt; a web node drops an entry whose attempt is
// lower than the submission's current attempt in MySQL (a rejudge started
// since), see ParseResult.
//
// # Live state
//
// PublishSubmission keeps the live state of a submission (status, score,
// cases; hash rkeys.LiveState("submission", id)) and publishes its changes
// as protocol.Event payloads on rkeys.Events("submission", id) and, for
// status changes, rkeys.Events("user", owner) and the status page's
// channels: rkeys.Events("status", 0) (every submission) and, for a
// contest submission, rkeys.Events("status", contest), each numbered by
// its own rkeys.LiveState("status", id). Every event carries the
// channel's next sequence number, taken in the same script that changes the
// state, so a reader that subscribes first and then reads the snapshot can
// drop exactly the events already in it. PublishDoc does the same for
// channels whose document the web nodes own (contest scoreboards, user
// lists).
//
// A submission's state also keeps its feedback rule (Task.Feedback: what
// its owner may see, see internal/feedback), and every event of its
// submission and user channels carries the rule as a top-level "feedback"
// field. The state and the events hold the whole result, hidden checker
// messages included: the hub censors each snapshot and event per browser
// and strips the rule before sending.
package queue

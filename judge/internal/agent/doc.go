// Package agent is the judge agent: it dials the hub (one outbound
// WebSocket, subprotocol verdict.judge.v1), says hello, heartbeats, takes
// tasks into a small local queue, judges each in the sandbox and reports
// progress and the result. It owns the link (reconnect with backoff and
// jitter, close codes that say stop), the pipeline (test data from
// judge/internal/cache → compile → run every case → check → score), the
// outbox (results persisted on disk until written to the hub, so neither a
// dropped link nor a restart loses one), idempotency per (submission id,
// attempt), and the drain.
//
// Concurrency: Config.MaxParallel workers, one per sandbox slot, each pinned
// to its own CPU when the machine has enough. A task is judged on one slot
// from compile to last case. The reader goroutine only decides (accept,
// reject, evict, prefetch); judging never blocks it.
//
// Delivery: a hub whose welcome says result_acks answers each result with
// result_ack once it is recorded (or known stale); until then the result
// stays in the outbox, is listed in heartbeats as a held task (so the hub
// keeps its lease), and is resent on the next connection, or on the same
// one after 10 s. Nothing judged is lost to a dropped link, a hub restart
// or an agent restart. Against a hub that does not acknowledge, a result
// leaves the outbox once written to the WebSocket.
package agent

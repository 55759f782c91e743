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
// Delivery: the hub does not acknowledge results, so a result leaves the
// outbox once it was written to the WebSocket. A result written into a
// connection that then drops may be lost by the hub; its lease then expires
// and the hub requeues the task with attempt+1. Until it is written, a
// result is listed in heartbeats as a held task, so the hub keeps its lease.
package agent

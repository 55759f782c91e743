// Package harness is what the fault drills (deploy/internal/chaos) and the
// benchmarks (deploy/internal/bench) share: a whole local stack started on
// free loopback ports from a checkout's components (Start), a browser-like
// client of the REST API through nginx (Client: the session cookie, the
// CSRF token, idempotency keys and the retries the frontend makes) and a
// browser's live WebSocket to the hub through nginx (Live: /ws,
// verdict.live.v1, the session cookie). A client may send from any
// 127.0.0.0/8 address, so that nginx's per-address limits see many
// browsers, as they would in a real contest.
package harness

// Package ratelimit holds the web nodes' limits in Redis, shared by every
// node (key names from rkeys):
//
//   - Logins: password checks throttled with growing delays (backoff)
//     rather than lock-outs, by (username, address), by (username, known
//     device), by username across unusual addresses and, as a coarse flood
//     guard, by address. Decide is the pure rule; each state move (Attempt,
//     Refund, Succeed) is one Lua script.
//   - Limiter.Take: a burst-friendly rate per subject (GCRA), for
//     submissions per user and registrations per address.
//   - Limiter.Hit/Blocked/Reset: a counter in a fixed window.
package ratelimit

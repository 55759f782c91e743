// Package admission owns how much work a web node takes on at once: a gate
// of Slots requests worked on together, a bounded line of requests waiting
// for a slot, and the refusal of what cannot start in time (the server
// answers it 503 with Retry-After, and browsers come back then).
//
// Without it an overloaded node takes every request, each waits for a
// MySQL connection or the CPU behind all the others, most outlive their
// clients (who retry, adding to the pile), and nobody is served in time:
// congestion collapse. With it the requests let in are served at full
// speed and the rest are told, at once, when to come back.
//
// When is estimated, not fixed (retry.go): a refused client is told about
// when its turn comes — the line and the clients refused in the last
// seconds go first, and slots come free at Slots ÷ the mean time one is
// held — in whole seconds between Config.RetryAfter and
// Config.MaxRetryAfter, spread at random so that the clients refused
// together do not come back together. A fixed answer under a sustained
// overload brought every refused client back into a gate still full.
package admission

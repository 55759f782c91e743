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
package admission

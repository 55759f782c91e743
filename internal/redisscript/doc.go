// Package redisscript builds Verdict's Redis Lua scripts on one prelude:
// the functions more than one script needs, written once. Today that is
// now_ms(), Redis's own clock in milliseconds: every script that stamps or
// compares a time takes it from the server, so hubs and web nodes whose
// clocks disagree still agree on leases, deadlines and windows.
package redisscript

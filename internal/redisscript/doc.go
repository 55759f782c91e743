// Package redisscript builds Verdict's Redis Lua scripts on one prelude:
// the functions more than one script needs, written once. Today that is
// now_ms(), Redis's own clock in milliseconds: every script that stamps or
// compares a time takes it from the server, so hubs and web nodes whose
// clocks disagree still agree on leases, deadlines and windows.
//
// Expand writes Go constants into a script's source ($name → a Lua
// literal), so the hash and stream field names a script uses are the ones
// its Go readers use, and a script naming a variable nobody gave fails at
// package init.
package redisscript

// Package rkeys builds every Redis key, stream and channel name Verdict uses.
//
// No other package writes a Redis name as a string literal: it asks this
// package. A Names value carries a prefix (default "verdict") so that several
// deployments, or several tests, can share one Redis server without seeing
// each other's keys or pub/sub channels (pub/sub is server-wide in Redis, not
// per database, so the prefix is the only isolation it has).
package rkeys

// Package readcache keeps a web node's hot reads — a contest, a problem, a
// user, whether a contestant is registered — for a short while (Config.TTL,
// a second by default), so that a contest's page loads, which ask the same
// few rows thousands of times a minute, do not queue for MySQL
// connections (the contest rehearsal saw every request of 3,000
// contestants wait for one of the pool's 32).
//
// It owns no rule about what may be kept: its callers (the store) say which
// results to keep (Get's keep), and the web node says when everything must
// go (Purge): after any write that may change a kept fact, on this node and,
// through Redis, on every other. A read that overlaps a Purge never stores
// what it read (the cache's generation moved on), so a purge is never undone
// by a read that began before it; the TTL bounds what a lost purge message
// can leave behind. Bypass marks a request context whose reads go straight
// to MySQL (a request that writes reads its own writes).
//
// Values are shared by every reader: callers must not modify what Get
// returns (slices are cloned by the store before they are handed out).
package readcache

// Package redislock is a lease lock in Redis: one holder at a time, named
// by a key (rkeys.Names.Lock), held for a TTL that the holder renews by
// calling Hold again before it runs out. A holder that dies stops
// renewing, and the lease passes to another after the TTL. Taking,
// renewing and releasing are each one Lua script, so a holder never
// renews or deletes a lease another holder took meanwhile.
//
// It elects the one hub that computes the queue notice and the one web
// node that runs the reconciler. It is not a mutex for correctness under
// clock jumps or Redis failover (no fencing tokens): the work done under
// it must stay safe, if wasteful, when two holders overlap briefly.
package redislock

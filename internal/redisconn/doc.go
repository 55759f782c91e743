// Package redisconn turns the Redis settings every Verdict component shares
// (addresses, Sentinel master name, cluster mode, database, password, key
// prefix) into a go-redis UniversalClient and the matching rkeys.Names.
//
// Three deployments, chosen by configuration only:
//
//   - one server: --redis host:port (the default, and the local stack);
//   - Sentinel: --redis-master NAME with --redis listing the Sentinels;
//     the client follows failovers;
//   - Redis Cluster: --redis-cluster, or --redis listing several seed nodes.
//     Verdict's Lua scripts touch several keys at once (task, queue, lease,
//     live state), which Redis Cluster allows only within one hash slot, so
//     in cluster mode the key prefix is wrapped in a hash tag ("verdict"
//     becomes "{verdict}") and every key and channel lands in the same slot.
//     The cluster then gives failover and one address book, not sharding of
//     Verdict's data; a prefix that already holds a tag is kept as it is.
//     Every component of one installation must use the same settings.
//
// Instrument exports what a client made its callers wait: its pool's
// waits for a free connection (PoolCollector) and each command's time
// from the call to the reply, by command and by script name.
//
// Every client Options.Client builds waits out a restarted Redis's load
// (loadingRetry), unless Options.LoadingWait is negative. Again and Unreached let a caller repeat work that is
// safe to repeat when it met no Redis (a connection cut as Redis stopped,
// none to be had while it restarts): the web node's session read does.
// OnOneConn keeps work that means something to one server's instance
// alone (a scan's pages) on one connection, so a restart fails it rather
// than letting it go on against a server that came back.
package redisconn

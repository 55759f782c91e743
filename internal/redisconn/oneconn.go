package redisconn

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// OnOneConn runs fn with one connection of rdb's to the server that holds
// key, and gives the connection back. Every command fn sends on it goes
// to that server, or fails: once the connection is cut, the commands
// after fail too, where the client's own commands would dial again and
// reach whatever server answers there now.
//
// For work whose commands mean something only to one server's instance:
// a SCAN's cursor names a place in that server's table, and a Redis that
// restarted hashes its fields anew (a new seed), so pages read from it
// with the old cursor pass over fields they never return. The contest
// rehearsal with faults (2026-12-07 22:16) read a board whole across
// Redis's restart that way: the node's board lacked 22 contestants' rows
// until its next whole read, 30 s later, and each of its publishes took
// them off every browser's board and the other node's put them back.
func OnOneConn(ctx context.Context, rdb redis.UniversalClient, key string, fn func(c *redis.Conn) error) error {
	var c *redis.Conn
	switch r := rdb.(type) {
	case *redis.Client: // one server, or Sentinel's master
		c = r.Conn()
	case *redis.ClusterClient:
		node, err := r.MasterForKey(ctx, key)
		if err != nil {
			return fmt.Errorf("redisconn: the node of %s: %w", key, err)
		}
		c = node.Conn()
		// A node's own client has none of the cluster client's hooks:
		// give the connection the loading wait (Instrument's command
		// timer does not see it).
		c.AddHook(loadingRetry{wait: DefaultLoadingWait})
	default:
		return fmt.Errorf("redisconn: %T gives no single connection", rdb)
	}
	defer c.Close()
	return fn(c)
}

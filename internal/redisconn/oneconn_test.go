package redisconn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/redisconn"
)

// A client that cannot say which one server holds a key (a ring shards
// by its own rule) is refused, and fn is not run.
func TestOnOneConnRefusesARing(t *testing.T) {
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}})
	defer ring.Close()
	ran := false
	err := redisconn.OnOneConn(context.Background(), ring, "k", func(*redis.Conn) error { ran = true; return nil })
	if err == nil || !strings.Contains(err.Error(), "*redis.Ring") || ran {
		t.Fatalf("OnOneConn on a ring: %v (fn ran: %v); want an error naming *redis.Ring", err, ran)
	}
}

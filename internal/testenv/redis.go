package testenv

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/rkeys"
)

// allocKey is the counter, in database 0, from which tests take their
// database numbers. Database 0 holds nothing else.
const allocKey = "testenv:nextdb"

// RedisEnv is one test's own Redis database and name prefix.
type RedisEnv struct {
	// Client talks to the test's own database.
	Client *redis.Client
	// Names builds key and channel names under the test's own prefix.
	Names rkeys.Names
	// Addr is the server's host:port.
	Addr string
	// DB is the test's logical database number (never 0).
	DB int
}

// Options returns client options for code under test that builds its own
// client on the test's database.
func (r *RedisEnv) Options() *redis.Options {
	return &redis.Options{Addr: r.Addr, DB: r.DB}
}

// Redis gives this test its own logical database (flushed before use and at
// cleanup) and its own rkeys prefix.
func Redis(t testing.TB) *RedisEnv {
	t.Helper()
	env, err := newRedis(t)
	if err != nil {
		t.Fatalf("testenv: this test needs Redis and cannot have it: %v", err)
	}
	return env
}

func newRedis(t testing.TB) (*RedisEnv, error) {
	addr, err := sharedRedis()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin := redis.NewClient(&redis.Options{Addr: addr, DB: 0})
	defer admin.Close()
	n, err := databases(ctx, admin)
	if err != nil {
		return nil, err
	}
	seq, err := admin.Incr(ctx, allocKey).Result()
	if err != nil {
		return nil, fmt.Errorf("redis at %s: allocate a database: %w", addr, err)
	}
	db := 1 + int((seq-1)%int64(n-1))
	c := redis.NewClient(&redis.Options{Addr: addr, DB: db})
	if err := c.FlushDB(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("redis at %s: flush db %d: %w", addr, db, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.FlushDB(ctx).Err(); err != nil {
			t.Errorf("testenv: flush redis db %d: %v", db, err)
		}
		c.Close()
	})
	return &RedisEnv{Client: c, Names: rkeys.New(RandomName("t")), Addr: addr, DB: db}, nil
}

func databases(ctx context.Context, c *redis.Client) (int, error) {
	v, err := c.ConfigGet(ctx, "databases").Result()
	if err != nil {
		return 0, fmt.Errorf("redis: config get databases: %w", err)
	}
	n, err := strconv.Atoi(v["databases"])
	if err != nil || n < 2 {
		return 0, fmt.Errorf("redis: needs several databases (redis-server --databases 1024), has %q", v["databases"])
	}
	return n, nil
}

package redisconn_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/redisconn"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// A command that finds every connection of the pool busy waits, and the
// collector counts the wait and its time.
func TestPoolCollectorCountsWaits(t *testing.T) {
	env := testenv.Redis(t)
	o := redisconn.Options{Addrs: []string{env.Addr}, DB: env.DB, PoolSize: 1}
	c, err := o.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(redisconn.PoolCollector(c))
	ctx := context.Background()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	// The one connection is held by a blocking pop for 300 ms.
	held := make(chan error, 1)
	go func() { held <- c.BLPop(ctx, 300*time.Millisecond, "no-such-list").Err() }()
	time.Sleep(100 * time.Millisecond)
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	<-held
	got := map[string]float64{}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			name := mf.GetName()
			for _, l := range m.GetLabel() {
				name += "/" + l.GetValue()
			}
			got[name] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	if got["verdict_redis_pool_size"] != 1 || got["verdict_redis_pool_waits_total"] != 1 {
		t.Fatalf("pool size %v, waits %v; want 1 and 1", got["verdict_redis_pool_size"], got["verdict_redis_pool_waits_total"])
	}
	if v := got["verdict_redis_pool_wait_seconds_total"]; v < 0.1 || v > 5 {
		t.Fatalf("waited %v s for the connection, want about 0.2", v)
	}
	if got["verdict_redis_pool_connections/idle"]+got["verdict_redis_pool_connections/in_use"] != 1 {
		t.Fatalf("connections: %v", got)
	}
}

func TestMain(m *testing.M) { testenv.Main(m) }

// PoolSize reads the pool size of a client of each mode, 0 for a client
// type that does not say.
func TestPoolSize(t *testing.T) {
	for _, c := range []struct {
		name string
		c    redis.UniversalClient
		want int
	}{
		{"single", redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", PoolSize: 7}), 7},
		{"cluster", redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}, PoolSize: 9}), 9},
		{"ring", redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}, PoolSize: 5}), 0},
	} {
		t.Cleanup(func() { c.c.Close() })
		if got := redisconn.PoolSize(c.c); got != c.want {
			t.Errorf("%s: PoolSize = %d, want %d", c.name, got, c.want)
		}
	}
}

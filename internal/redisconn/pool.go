package redisconn

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/obs"
)

// PoolCollector exports a client's connection pool as metrics, read at
// each scrape. A command that waits for a free connection shows here and
// in no CPU profile: its deadline runs out in the pool ("context deadline
// exceeded") while Redis and the process both have CPU to spare.
func PoolCollector(c redis.UniversalClient) prometheus.Collector {
	return &poolCollector{c: c}
}

type poolCollector struct{ c redis.UniversalClient }

var (
	poolWaits = prometheus.NewDesc(obs.RedisPoolWaits,
		"Commands that waited for a free connection of the Redis pool.", nil, nil)
	poolWaitSeconds = prometheus.NewDesc(obs.RedisPoolWaitSeconds,
		"Time commands spent waiting for a free connection of the Redis pool.", nil, nil)
	poolTimeouts = prometheus.NewDesc("verdict_redis_pool_timeouts_total",
		"Waits for a connection of the Redis pool that timed out.", nil, nil)
	poolConns = prometheus.NewDesc("verdict_redis_pool_connections",
		"Connections of the Redis pool, by state (idle or in use; pub/sub connections apart).", []string{"state"}, nil)
	poolSize = prometheus.NewDesc(obs.RedisPoolSize,
		"The most connections the Redis pool opens (--redis-pool).", nil, nil)
)

func (p *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolWaits, poolWaitSeconds, poolTimeouts, poolConns, poolSize} {
		ch <- d
	}
}

func (p *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := p.c.PoolStats()
	ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(s.WaitCount))
	ch <- prometheus.MustNewConstMetric(poolWaitSeconds, prometheus.CounterValue, float64(s.WaitDurationNs)/1e9)
	ch <- prometheus.MustNewConstMetric(poolTimeouts, prometheus.CounterValue, float64(s.Timeouts))
	idle := float64(s.IdleConns)
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, idle, "idle")
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, max(0, float64(s.TotalConns)-idle), "in_use")
	if n := PoolSize(p.c); n > 0 {
		ch <- prometheus.MustNewConstMetric(poolSize, prometheus.GaugeValue, float64(n))
	}
}

// PoolSize is the most connections c's pool opens (per server, for a
// cluster), 0 when c's type does not say.
func PoolSize(c redis.UniversalClient) int {
	switch c := c.(type) {
	case *redis.Client:
		return c.Options().PoolSize
	case *redis.ClusterClient:
		return c.Options().PoolSize
	}
	return 0
}

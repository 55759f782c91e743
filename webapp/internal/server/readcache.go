package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/webapp/internal/readcache"
)

// The read cache (webapp/internal/readcache, kept by the store's hot
// reads): every request that may change what it keeps reads without it
// and, once answered, makes every node forget everything it keeps — this
// one at once, the others through Redis (ReadCachePurge). The few unsafe
// requests of a contest's hot path change nothing it keeps, or change a
// registration from false to true, which it never keeps (store/cached.go):
// they keep it.

// keepsReadCache reports whether an unsafe request (by method and path)
// leaves the read cache true: logging in and out, submitting, a custom
// run, asking a clarification, registering for a contest.
func keepsReadCache(method, path string) bool {
	switch {
	case path == "/api/session":
		return method == http.MethodPost || method == http.MethodDelete
	case method != http.MethodPost:
		return false
	case path == "/api/submissions", path == "/api/custom-runs":
		return true
	}
	rest, ok := strings.CutPrefix(path, "/api/contests/")
	if !ok {
		return false
	}
	slug, action, ok := strings.Cut(rest, "/")
	return ok && slug != "" && (action == "register" || action == "clarifications")
}

// readCachePolicy routes a request's reads around the cache, and purges it
// afterwards, when the request may change what the cache keeps.
func (s *Server) readCachePolicy(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.ReadCache == nil || safeMethod(r.Method) || keepsReadCache(r.Method, r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		// Purged once answered: whatever any node kept goes, and a read
		// that began before and ends after keeps nothing (readcache's
		// generation).
		defer s.purgeReadCache(r.Context())
		next.ServeHTTP(w, r.WithContext(readcache.Bypass(r.Context())))
	})
}

// purgeReadCache forgets what this node keeps and tells the others to.
func (s *Server) purgeReadCache(ctx context.Context) {
	s.cfg.ReadCache.Purge()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := s.cfg.Redis.Publish(ctx, s.cfg.Names.ReadCachePurge(), "purge").Err(); err != nil {
		// The other nodes see the write within their TTL.
		s.log.Warn("telling the other web nodes to forget their read caches failed", obs.Err(err))
	}
}

// keepReadCacheTrue purges this node's read cache whenever another node
// says so, and whenever the subscription (re)starts (what was said while
// it was down is lost). Runs until ctx is done.
func (s *Server) keepReadCacheTrue(ctx context.Context) error {
	ps := s.cfg.Redis.Subscribe(ctx, s.cfg.Names.ReadCachePurge())
	stop := context.AfterFunc(ctx, func() { _ = ps.Close() })
	defer stop()
	for {
		msg, err := ps.Receive(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, redis.ErrClosed) {
				return nil
			}
			s.cfg.ReadCache.Purge()
			s.log.Warn("read cache purge channel", obs.Err(err))
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		switch msg.(type) {
		case *redis.Subscription, *redis.Message:
			s.cfg.ReadCache.Purge()
		}
	}
}

// readCacheMetrics exports the cache's counters.
func readCacheMetrics(c *readcache.Cache) []prometheus.Collector {
	stat := func(f func(readcache.Stats) float64) func() float64 {
		return func() float64 { return f(c.Stats()) }
	}
	return []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "verdict_webapp_read_cache_hits_total",
			Help: "Hot reads answered from the node's read cache."}, stat(func(st readcache.Stats) float64 { return float64(st.Hits) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "verdict_webapp_read_cache_loads_total",
			Help: "Hot reads that went to MySQL (concurrent misses of one key share one load)."}, stat(func(st readcache.Stats) float64 { return float64(st.Loads) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "verdict_webapp_read_cache_entries",
			Help: "Reads the node's read cache keeps."}, stat(func(st readcache.Stats) float64 { return float64(st.Entries) })),
	}
}

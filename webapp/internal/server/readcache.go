package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/webapp/internal/readcache"
)

// The read cache (webapp/internal/readcache, kept by the store's hot
// reads; what it keeps is store/cached.go's list): a request that may
// change what it keeps reads without it and, once its handler answers 2xx
// and before the answer leaves, makes every node forget everything it
// keeps — this one at once, the others through Redis (ReadCachePurge). A
// request "may change" it when three things hold: its route writes what
// the cache keeps (readCacheRoutes), it is authenticated (no route that
// writes a kept row lets a visitor through), and it succeeds (a refusal
// changed nothing). Anything else keeps the cache: otherwise any visitor's
// unsafe request — a 401, a 404 — would empty every node's cache.

// cacheEffect is what an unsafe route does to what the read cache keeps.
type cacheEffect uint8

const (
	// keepsCache: the route changes nothing the cache keeps (or only
	// turns a registration true, which it never keeps false).
	keepsCache cacheEffect = iota + 1
	// purgesCache: the route may change a kept user, contest, problem,
	// a contest's problem list, a problem's contests, or turn a
	// registration false.
	purgesCache
)

// readCacheRoutes classifies every unsafe API route, by method and chi
// pattern. A route missing here purges (and TestReadCacheRouteTable fails
// until it is classified).
var readCacheRoutes = map[string]cacheEffect{
	// Sessions and accounts.
	"POST /api/session":                   keepsCache,  // login: reads the user
	"DELETE /api/session":                 keepsCache,  // logout: the session is in Redis
	"POST /api/users":                     keepsCache,  // registration: a new user, whom nothing kept
	"POST /api/me/password":               purgesCache, // the user's hash and session epoch
	"POST /api/me/tokens":                 keepsCache,  // API tokens are not kept
	"DELETE /api/me/tokens/{id}":          keepsCache,
	"PUT /api/users/{username}":           purgesCache,
	"POST /api/users/{username}/password": purgesCache,
	"POST /api/users/import":              purgesCache, // updates existing users
	"PUT /api/settings/registration":      keepsCache,
	"POST /api/judges":                    keepsCache,
	"DELETE /api/judges/{name}":           keepsCache,
	// Problems.
	"POST /api/problems":                      keepsCache, // a new problem, in no contest
	"PUT /api/problems/{slug}":                purgesCache,
	"POST /api/problems/import":               purgesCache, // may replace an existing problem
	"POST /api/problems/{slug}/testdata":      purgesCache, // the problem's test data hash
	"POST /api/problems/{slug}/solutions/run": keepsCache,  // submissions only
	// Contests.
	"POST /api/contests":                                   purgesCache, // its problems' contests
	"PUT /api/contests/{slug}":                             purgesCache,
	"PUT /api/contests/{slug}/penalty":                     purgesCache,
	"PUT /api/contests/{slug}/team-mode":                   purgesCache,
	"PUT /api/contests/{slug}/custom-runs":                 purgesCache, // the contest's row
	"POST /api/contests/{slug}/unfreeze":                   purgesCache,
	"POST /api/contests/{slug}/finalize":                   purgesCache,
	"POST /api/contests/{slug}/register":                   keepsCache,  // a registration turns true
	"POST /api/contests/{slug}/participants":               keepsCache,  // registrations turn true
	"DELETE /api/contests/{slug}/participants/{username}":  purgesCache, // one turns false
	"POST /api/contests/{slug}/teams/import":               purgesCache, // the account formats write users
	"DELETE /api/contests/{slug}/teams/{id}":               keepsCache,  // teams are not kept
	"DELETE /api/contests/{slug}/groups/{id}":              keepsCache,
	"DELETE /api/contests/{slug}/organizations/{id}":       keepsCache,
	"POST /api/contests/{slug}/clarifications":             keepsCache,
	"POST /api/contests/{slug}/clarifications/{id}/answer": keepsCache,
	"PUT /api/contests/{slug}/award-settings":              keepsCache, // their own table
	"PUT /api/contests/{slug}/awards/{award}":              keepsCache,
	"DELETE /api/contests/{slug}/awards/{award}":           keepsCache,
	"PUT /api/contests/{slug}/balloons/{team}/{label}":     keepsCache,
	"PUT /api/contests/{slug}/problem-colors":              keepsCache, // their own table
	// Judging.
	"POST /api/submissions":               keepsCache, // a first submission registers (true)
	"POST /api/submissions/outputs":       keepsCache,
	"POST /api/submissions/{id}/override": keepsCache,
	"POST /api/rejudge":                   keepsCache,
	"POST /api/custom-runs":               keepsCache,
}

// cacheEffectOf is what an unsafe request's route does to the read cache:
// its entry in readCacheRoutes; purgesCache for a route missing there;
// keepsCache for a request no route takes (404, 405: no handler runs).
func cacheEffectOf(r *http.Request) cacheEffect {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil || rctx.Routes == nil {
		return purgesCache
	}
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	pattern := rctx.Routes.Find(chi.NewRouteContext(), r.Method, path)
	if pattern == "" {
		return keepsCache
	}
	if e, ok := readCacheRoutes[r.Method+" "+pattern]; ok {
		return e
	}
	return purgesCache
}

// readCachePolicy routes the reads of a request that may change what the
// cache keeps around the cache, and purges it once the handler answers
// 2xx, before the answer is sent: the client's next request, on any node,
// reads what it wrote (the other nodes as soon as Redis delivers the
// purge).
func (s *Server) readCachePolicy(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.ReadCache == nil || safeMethod(r.Method) || userOf(r) == nil || cacheEffectOf(r) != purgesCache {
			next.ServeHTTP(w, r)
			return
		}
		// A read that began before the purge and ends after it keeps
		// nothing (readcache's generation).
		pw := &purgingWriter{ResponseWriter: w, purge: func() { s.purgeReadCache(r.Context()) }}
		next.ServeHTTP(pw, r.WithContext(readcache.Bypass(r.Context())))
		pw.answer(http.StatusOK) // nothing written: net/http answers 200 once we return
	})
}

// purgingWriter calls purge before a 2xx answer's header goes out, once.
type purgingWriter struct {
	http.ResponseWriter
	purge   func()
	decided bool
}

// answer decides, on the answer's first final status, whether to purge.
func (w *purgingWriter) answer(code int) {
	if w.decided || code < 200 {
		return // answered already, or an informational (1xx) header
	}
	w.decided = true
	if code <= 299 {
		w.purge()
	}
}

func (w *purgingWriter) WriteHeader(code int) {
	w.answer(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *purgingWriter) Write(b []byte) (int, error) {
	w.answer(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

// FlushError sends the header (200 if none was written): purge first.
func (w *purgingWriter) FlushError() error {
	w.answer(http.StatusOK)
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush is FlushError for http.Flusher.
func (w *purgingWriter) Flush() { _ = w.FlushError() }

func (w *purgingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

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
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "verdict_webapp_read_cache_purges_total",
			Help: "Purges of the node's read cache: a write through this node, or another node's through Redis."}, stat(func(st readcache.Stats) float64 { return float64(st.Purges) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "verdict_webapp_read_cache_entries",
			Help: "Reads the node's read cache keeps."}, stat(func(st readcache.Stats) float64 { return float64(st.Entries) })),
	}
}

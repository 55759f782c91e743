package readcache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Config.
const (
	DefaultTTL        = time.Second
	DefaultMaxEntries = 100_000
)

// Config of a Cache. Zero values take the defaults.
type Config struct {
	// TTL is how long a read is kept: the longest another node's write
	// stays unseen here when its purge message is lost.
	TTL time.Duration
	// MaxEntries bounds the cache; past it, expired entries go, and if
	// that is not enough, all of them.
	MaxEntries int
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
}

// Cache is a TTL cache of reads with one load per key at a time.
type Cache struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu    sync.Mutex
	gen   uint64
	m     map[any]entry
	calls map[callKey]*call

	hits, misses, loads, purges atomic.Uint64
}

type entry struct {
	v   any
	exp time.Time
}

var errLoadPanicked = errors.New("readcache: the shared load panicked")

type callKey struct {
	gen uint64
	key any
}

type call struct {
	done chan struct{}
	v    any
	err  error
}

// New makes a cache.
func New(cfg Config) *Cache {
	c := &Cache{ttl: cfg.TTL, max: cfg.MaxEntries, now: cfg.Now, m: map[any]entry{}, calls: map[callKey]*call{}}
	if c.ttl <= 0 {
		c.ttl = DefaultTTL
	}
	if c.max <= 0 {
		c.max = DefaultMaxEntries
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// Purge forgets everything, and makes every read in flight forget what it
// reads.
func (c *Cache) Purge() {
	c.mu.Lock()
	c.gen++
	clear(c.m)
	c.mu.Unlock()
	c.purges.Add(1)
}

// Stats are the cache's counters since New.
type Stats struct {
	Hits, Misses, Loads, Purges uint64
	Entries                     int
}

// Stats reads the counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	n := len(c.m)
	c.mu.Unlock()
	return Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Loads: c.loads.Load(), Purges: c.purges.Load(), Entries: n}
}

type bypassKey struct{}

// Bypass returns ctx marked so that Get loads without the cache (and
// stores nothing): a request that writes reads what it wrote.
func Bypass(ctx context.Context) context.Context { return context.WithValue(ctx, bypassKey{}, true) }

// Bypassed reports whether ctx was marked by Bypass.
func Bypassed(ctx context.Context) bool { v, _ := ctx.Value(bypassKey{}).(bool); return v }

// Get returns the kept value of key, or loads it. A result is kept only
// when the load succeeds and keep (nil: always) says so, and only if no
// Purge happened meanwhile. Concurrent Gets of one key share one load; a
// caller whose own context is alive when the shared load failed on the
// loader's context loads again itself. A nil cache, or a ctx marked by
// Bypass, always loads.
func Get[V any](ctx context.Context, c *Cache, key any, keep func(V) bool, load func(context.Context) (V, error)) (V, error) {
	if c == nil || Bypassed(ctx) {
		return load(ctx)
	}
	now := c.now()
	c.mu.Lock()
	if e, ok := c.m[key]; ok && now.Before(e.exp) {
		c.mu.Unlock()
		c.hits.Add(1)
		return e.v.(V), nil
	}
	c.misses.Add(1)
	ck := callKey{c.gen, key}
	if cl, ok := c.calls[ck]; ok {
		c.mu.Unlock()
		select {
		case <-cl.done:
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
		if cl.err == nil {
			return cl.v.(V), nil
		}
		if ctx.Err() == nil && (errors.Is(cl.err, context.Canceled) || errors.Is(cl.err, context.DeadlineExceeded)) {
			return load(ctx) // the loader's request ended, not ours
		}
		var zero V
		return zero, cl.err
	}
	cl := &call{done: make(chan struct{})}
	c.calls[ck] = cl
	c.mu.Unlock()

	c.loads.Add(1)
	returned := false
	defer func() {
		if !returned { // load panicked: no waiter may block on it
			cl.err = errLoadPanicked
			c.mu.Lock()
			delete(c.calls, ck)
			c.mu.Unlock()
			close(cl.done)
		}
	}()
	v, err := load(ctx)
	returned = true
	cl.v, cl.err = v, err

	c.mu.Lock()
	delete(c.calls, ck)
	if err == nil && ck.gen == c.gen && (keep == nil || keep(v)) {
		if len(c.m) >= c.max {
			c.sweep(now)
		}
		c.m[key] = entry{v: v, exp: now.Add(c.ttl)}
	}
	c.mu.Unlock()
	close(cl.done)
	return v, err
}

// sweep drops expired entries, and everything if that is not enough.
// Called with c.mu held.
func (c *Cache) sweep(now time.Time) {
	for k, e := range c.m {
		if !now.Before(e.exp) {
			delete(c.m, k)
		}
	}
	if len(c.m) >= c.max {
		clear(c.m)
	}
}

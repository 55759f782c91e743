package readcache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func newTestCache(c *clock, max int) *Cache {
	return New(Config{TTL: time.Second, MaxEntries: max, Now: c.now})
}

func TestGet(t *testing.T) {
	errBoom := errors.New("boom")
	cases := []struct {
		name  string
		steps func(t *testing.T, c *Cache, clk *clock, load func(v int, err error) func(context.Context) (int, error), loads *int)
		loads int
	}{
		{"a second read within the TTL is kept", func(t *testing.T, c *Cache, clk *clock, load func(int, error) func(context.Context) (int, error), _ *int) {
			mustGet(t, c, "k", nil, load(1, nil), 1)
			clk.add(999 * time.Millisecond)
			mustGet(t, c, "k", nil, load(2, nil), 1)
		}, 1},
		{"a read after the TTL loads again", func(t *testing.T, c *Cache, clk *clock, load func(int, error) func(context.Context) (int, error), _ *int) {
			mustGet(t, c, "k", nil, load(1, nil), 1)
			clk.add(time.Second)
			mustGet(t, c, "k", nil, load(2, nil), 2)
		}, 2},
		{"keys are apart", func(t *testing.T, c *Cache, _ *clock, load func(int, error) func(context.Context) (int, error), _ *int) {
			mustGet(t, c, "a", nil, load(1, nil), 1)
			mustGet(t, c, "b", nil, load(2, nil), 2)
			mustGet(t, c, "a", nil, load(3, nil), 1)
		}, 2},
		{"what keep refuses is not kept", func(t *testing.T, c *Cache, _ *clock, load func(int, error) func(context.Context) (int, error), _ *int) {
			pos := func(v int) bool { return v > 0 }
			mustGet(t, c, "k", pos, load(0, nil), 0)
			mustGet(t, c, "k", pos, load(5, nil), 5)
			mustGet(t, c, "k", pos, load(0, nil), 5)
		}, 2},
		{"an error is not kept", func(t *testing.T, c *Cache, _ *clock, load func(int, error) func(context.Context) (int, error), _ *int) {
			if _, err := Get(context.Background(), c, "k", nil, load(0, errBoom)); !errors.Is(err, errBoom) {
				t.Fatalf("err %v, want boom", err)
			}
			mustGet(t, c, "k", nil, load(3, nil), 3)
		}, 2},
		{"purge forgets", func(t *testing.T, c *Cache, _ *clock, load func(int, error) func(context.Context) (int, error), _ *int) {
			mustGet(t, c, "k", nil, load(1, nil), 1)
			c.Purge()
			mustGet(t, c, "k", nil, load(2, nil), 2)
			if n := c.Stats().Purges; n != 1 {
				t.Fatalf("Stats().Purges = %d, want 1", n)
			}
		}, 2},
		{"a read that overlaps a purge keeps nothing", func(t *testing.T, c *Cache, _ *clock, load func(int, error) func(context.Context) (int, error), _ *int) {
			inner := load(1, nil)
			mustGet(t, c, "k", nil, func(ctx context.Context) (int, error) {
				v, err := inner(ctx)
				c.Purge() // a write lands while the read is on its way
				return v, err
			}, 1)
			mustGet(t, c, "k", nil, load(2, nil), 2)
		}, 2},
		{"a bypassed context always loads and keeps nothing", func(t *testing.T, c *Cache, _ *clock, load func(int, error) func(context.Context) (int, error), _ *int) {
			ctx := Bypass(context.Background())
			for i := range 3 {
				if v, err := Get(ctx, c, "k", nil, load(i, nil)); err != nil || v != i {
					t.Fatalf("bypassed read %d: %v %v", i, v, err)
				}
			}
			mustGet(t, c, "k", nil, load(7, nil), 7)
		}, 4},
		{"past MaxEntries the expired go first", func(t *testing.T, c *Cache, clk *clock, load func(int, error) func(context.Context) (int, error), _ *int) {
			mustGet(t, c, "a", nil, load(1, nil), 1)
			clk.add(time.Second) // a expires
			mustGet(t, c, "b", nil, load(2, nil), 2)
			mustGet(t, c, "c", nil, load(3, nil), 3) // full: a swept, b stays
			mustGet(t, c, "b", nil, load(9, nil), 2)
			if n := c.Stats().Entries; n != 2 {
				t.Fatalf("entries %d, want 2", n)
			}
		}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := &clock{t: time.Unix(1_700_000_000, 0)}
			c := newTestCache(clk, 2)
			loads := 0
			load := func(v int, err error) func(context.Context) (int, error) {
				return func(context.Context) (int, error) { loads++; return v, err }
			}
			tc.steps(t, c, clk, load, &loads)
			if loads != tc.loads {
				t.Fatalf("%d loads, want %d", loads, tc.loads)
			}
		})
	}
}

func mustGet(t *testing.T, c *Cache, key string, keep func(int) bool, load func(context.Context) (int, error), want int) {
	t.Helper()
	v, err := Get(context.Background(), c, key, keep, load)
	if err != nil || v != want {
		t.Fatalf("Get(%q) = %v, %v; want %v", key, v, err, want)
	}
}

func TestNilCacheLoads(t *testing.T) {
	var c *Cache
	n := 0
	for range 2 {
		if _, err := Get(context.Background(), c, 1, nil, func(context.Context) (int, error) { n++; return n, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if n != 2 {
		t.Fatalf("%d loads, want 2", n)
	}
}

// Many readers of one key at once share one load (a contest's start: every
// contestant opens the same contest at the same second).
func TestConcurrentReadersShareOneLoad(t *testing.T) {
	c := New(Config{})
	release := make(chan struct{})
	var loads atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			v, err := Get(context.Background(), c, "contest", nil, func(context.Context) (string, error) {
				loads.Add(1)
				<-release
				return "rehearsal", nil
			})
			if err != nil || v != "rehearsal" {
				t.Errorf("got %q, %v", v, err)
			}
		})
	}
	time.Sleep(50 * time.Millisecond) // let them all arrive
	close(release)
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Fatalf("%d loads, want 1", n)
	}
}

// A reader sharing a load that failed only because the loader's request
// was cancelled loads again itself rather than failing.
func TestWaiterReloadsWhenLoaderCancelled(t *testing.T) {
	c := New(Config{})
	started := make(chan struct{})
	lctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = Get(lctx, c, "k", nil, func(ctx context.Context) (int, error) {
			close(started)
			<-ctx.Done()
			return 0, ctx.Err()
		})
	}()
	<-started
	res := make(chan error, 1)
	go func() {
		v, err := Get(context.Background(), c, "k", nil, func(context.Context) (int, error) { return 42, nil })
		if err == nil && v != 42 {
			err = errors.New("wrong value")
		}
		res <- err
	}()
	time.Sleep(20 * time.Millisecond) // the second reader joins the first load
	cancel()
	<-done
	if err := <-res; err != nil {
		t.Fatalf("waiter: %v", err)
	}
}

// A load that fails for its own reason (not the loader's request ending)
// is that answer for everyone sharing it: no stampede of reloads on a
// failing database.
func TestWaitersShareAFailure(t *testing.T) {
	c := New(Config{})
	errDown := errors.New("mysql down")
	release := make(chan struct{})
	var loads atomic.Int32
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			_, err := Get(context.Background(), c, "k", nil, func(context.Context) (int, error) {
				loads.Add(1)
				<-release
				return 0, errDown
			})
			if !errors.Is(err, errDown) {
				t.Errorf("err %v, want mysql down", err)
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Fatalf("%d loads, want 1", n)
	}
}

// A load that panics leaves no waiter blocked and no call behind: the next
// read loads again.
func TestLoadPanicFreesTheKey(t *testing.T) {
	c := New(Config{})
	func() {
		defer func() { _ = recover() }()
		_, _ = Get(context.Background(), c, "k", nil, func(context.Context) (int, error) { panic("boom") })
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if v, err := Get(context.Background(), c, "k", nil, func(context.Context) (int, error) { return 7, nil }); err != nil || v != 7 {
			t.Errorf("after the panic: %v, %v", v, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a read after a panicked load blocked")
	}
}

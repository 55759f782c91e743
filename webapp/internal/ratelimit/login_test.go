package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func newLogins(t *testing.T, pol LoginPolicy) (*Logins, *clock) {
	t.Helper()
	rd := testenv.Redis(t)
	c := &clock{t: time.UnixMilli(1_770_000_000_000)}
	return NewLogins(rd.Client, rd.Names, pol, c.now), c
}

func policy(pair, account, addr int) LoginPolicy {
	p := func(free int) Policy {
		return Policy{Free: free, Base: time.Second, Max: time.Minute, Window: 15 * time.Minute}
	}
	return LoginPolicy{AccountAddress: p(pair), Account: p(account), Address: p(addr),
		DeviceTTL: 24 * time.Hour, MaxDevices: 3, AddrTTL: time.Hour, MaxAddrs: 2}
}

func blocked(t *testing.T, err error) *BlockedError {
	t.Helper()
	b, ok := errors.AsType[*BlockedError](err)
	if !ok || !errors.Is(err, ErrBlocked) {
		t.Fatalf("err = %v, want a *BlockedError", err)
	}
	return b
}

// TestAttemptScriptAgreesWithDecide walks one (username, address) through
// failures at chosen times: the script's answer must be Decide's.
func TestAttemptScriptAgreesWithDecide(t *testing.T) {
	l, c := newLogins(t, policy(3, 1000, 1000))
	ctx := context.Background()
	k := LoginKey{Username: "alice", Addr: "192.0.2.1"}
	pol := l.Policy().AccountAddress
	count, last := 0, time.Time{}
	steps := []time.Duration{0, 10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond, // free
		300 * time.Millisecond, 800 * time.Millisecond, 500 * time.Millisecond, 2 * time.Second, time.Second,
		4 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute, 59 * time.Second, 2 * time.Second,
		16 * time.Minute, 0, 0, 0, 0}
	for i, d := range steps {
		c.add(d)
		wantBlocked, wantWait := Decide(count, last, c.now(), pol)
		_, err := l.Attempt(ctx, k)
		if wantBlocked {
			if b := blocked(t, err); b.Wait != wantWait || b.Limit != LimitAccountAddress {
				t.Fatalf("step %d: blocked %v by %s, want %v by %s", i, b.Wait, b.Limit, wantWait, LimitAccountAddress)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d: %v, want admitted (Decide: count %d)", i, err, count)
		}
		if c.now().Sub(last) >= pol.Window {
			count = 0 // forgotten
		}
		count, last = count+1, c.now()
	}
}

// TestBackoffGrows: after the free failures each failure doubles the wait,
// and an attempt is admitted once the wait is over.
func TestBackoffGrows(t *testing.T) {
	l, c := newLogins(t, policy(2, 1000, 1000))
	ctx := context.Background()
	k := LoginKey{Username: "bob", Addr: "192.0.2.2"}
	for range 3 {
		if _, err := l.Attempt(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
		if b := blocked(t, mustFail(l.Attempt(ctx, k))); b.Wait != want {
			t.Fatalf("wait %v, want %v", b.Wait, want)
		}
		c.add(want - time.Millisecond)
		if b := blocked(t, mustFail(l.Attempt(ctx, k))); b.Wait != time.Millisecond {
			t.Fatalf("1 ms before the end: wait %v", b.Wait)
		}
		c.add(time.Millisecond)
		if _, err := l.Attempt(ctx, k); err != nil {
			t.Fatalf("after waiting %v: %v", want, err)
		}
	}
}

func mustFail(_ *Ticket, err error) error { return err }

// TestKnownDeviceAndUsualAddress: a known device is subject to its own
// backoff only; a usual address skips the account and address rules.
func TestKnownDeviceAndUsualAddress(t *testing.T) {
	l, _ := newLogins(t, policy(2, 3, 4))
	ctx := context.Background()
	victim := LoginKey{Username: "vic", Addr: "198.51.100.1", Device: "dev-1"}
	tk, err := l.Attempt(ctx, victim)
	if err != nil || tk.KnownDevice {
		t.Fatalf("first attempt: %+v, %v", tk, err)
	}
	if err := l.Succeed(ctx, tk, true, "dev-1"); err != nil {
		t.Fatal(err)
	}
	// A prankster elsewhere: the account rule (3 free) and the address
	// rule (4 free) block them.
	for i := range 10 {
		_, err := l.Attempt(ctx, LoginKey{Username: "vic", Addr: fmt.Sprint("203.0.113.", i%2)})
		if i >= 4 && err == nil {
			t.Fatalf("attempt %d from unusual addresses admitted", i)
		}
	}
	// The victim's usual address and known device are not.
	tk, err = l.Attempt(ctx, LoginKey{Username: "vic", Addr: "198.51.100.1"})
	if err != nil || !tk.UsualAddress || tk.KnownDevice {
		t.Fatalf("usual address: %+v, %v", tk, err)
	}
	tk, err = l.Attempt(ctx, LoginKey{Username: "vic", Addr: "203.0.113.0", Device: "dev-1"})
	if err != nil || !tk.KnownDevice {
		t.Fatalf("known device at the prankster's address: %+v, %v", tk, err)
	}
	// A device cookie of nobody's is no exemption.
	if _, err := l.Attempt(ctx, LoginKey{Username: "vic", Addr: "203.0.113.0", Device: "forged"}); err == nil {
		t.Fatal("an unknown device skipped the rules")
	}
	// The device's own backoff: 2 free, the one above was the first.
	for i := range 2 {
		if _, err := l.Attempt(ctx, LoginKey{Username: "vic", Addr: "203.0.113.7", Device: "dev-1"}); err != nil {
			t.Fatalf("device attempt %d: %v", i, err)
		}
	}
	if b := blocked(t, mustFail(l.Attempt(ctx, LoginKey{Username: "vic", Addr: "198.51.100.1", Device: "dev-1"}))); b.Limit != LimitDevice {
		t.Fatalf("blocked by %s, want %s", b.Limit, LimitDevice)
	}
}

func TestTrustedNetworkSkipsAddressGuard(t *testing.T) {
	l, _ := newLogins(t, policy(1000, 1000, 2))
	ctx := context.Background()
	for i := range 10 {
		if _, err := l.Attempt(ctx, LoginKey{Username: fmt.Sprint("user", i), Addr: "10.0.0.1", Trusted: true}); err != nil {
			t.Fatalf("trusted attempt %d: %v", i, err)
		}
	}
	for i := range 4 {
		_, err := l.Attempt(ctx, LoginKey{Username: fmt.Sprint("user", i), Addr: "10.0.0.2"})
		if i < 3 && err != nil || i == 3 && blocked(t, err).Limit != LimitAddress {
			t.Fatalf("untrusted attempt %d: %v", i, err)
		}
	}
}

// TestRefundAndSucceed: an unchecked attempt is taken back; a success
// clears its pair and takes the attempt back from the shared counters.
func TestRefundAndSucceed(t *testing.T) {
	l, _ := newLogins(t, policy(1, 1000, 1))
	ctx := context.Background()
	k := LoginKey{Username: "carl", Addr: "192.0.2.9"}
	for range 5 {
		tk, err := l.Attempt(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Refund(ctx, tk); err != nil {
			t.Fatal(err)
		}
	}
	tk, err := l.Attempt(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Attempt(ctx, k); err != nil { // the second failure: free is 1
		t.Fatal(err)
	}
	if err := l.Succeed(ctx, tk, false, ""); err != nil {
		t.Fatal(err)
	}
	// The pair is forgotten; the address counter holds the one failure.
	if _, err := l.Attempt(ctx, k); err != nil {
		t.Fatalf("after a success: %v", err)
	}
	if b := blocked(t, mustFail(l.Attempt(ctx, LoginKey{Username: "dora", Addr: "192.0.2.9"}))); b.Limit != LimitAddress {
		t.Fatalf("blocked by %s", b.Limit)
	}
}

func TestDevicesAndAddressesAreBounded(t *testing.T) {
	l, c := newLogins(t, policy(100, 100, 100))
	ctx := context.Background()
	for i := range 5 {
		c.add(time.Second)
		k := LoginKey{Username: "eve", Addr: fmt.Sprint("192.0.2.", i)}
		tk, err := l.Attempt(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Succeed(ctx, tk, true, fmt.Sprint("dev-", i)); err != nil {
			t.Fatal(err)
		}
	}
	devs, _ := l.rdb.ZRange(ctx, l.names.LoginDevices("eve"), 0, -1).Result()
	addrs, _ := l.rdb.ZRange(ctx, l.names.LoginAddrs("eve"), 0, -1).Result()
	if fmt.Sprint(devs) != "[dev-2 dev-3 dev-4]" || fmt.Sprint(addrs) != "[192.0.2.3 192.0.2.4]" {
		t.Fatalf("devices %v, addresses %v: want the newest 3 and 2", devs, addrs)
	}
	for _, k := range []string{l.names.LoginDevices("eve"), l.names.LoginAddrs("eve"), l.names.LoginUser("eve")} {
		if ttl, err := l.rdb.PTTL(ctx, k).Result(); err != nil || ttl <= 0 {
			t.Errorf("%s: TTL %v (%v), want one", k, ttl, err)
		}
	}
	// An address older than its TTL is no longer usual.
	c.add(2 * time.Hour)
	tk, err := l.Attempt(ctx, LoginKey{Username: "eve", Addr: "192.0.2.4"})
	if err != nil || tk.UsualAddress {
		t.Fatalf("stale usual address: %+v, %v", tk, err)
	}
}

func TestConcurrentAttemptsCannotOvertakeTheBackoff(t *testing.T) {
	l, _ := newLogins(t, policy(3, 1000, 1000))
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for range 50 {
		wg.Go(func() {
			if _, err := l.Attempt(ctx, LoginKey{Username: "fay", Addr: "192.0.2.5"}); err == nil {
				mu.Lock()
				admitted++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if admitted != 4 {
		t.Fatalf("%d of 50 concurrent guesses admitted, want the 3 free + 1", admitted)
	}
}

func TestTakeScriptAgreesWithGCRA(t *testing.T) {
	rd := testenv.Redis(t)
	c := &clock{t: time.UnixMilli(1_770_000_000_000)}
	l := New(rd.Client, rd.Names).WithClock(c.now)
	b := Bucket{Kind: "submit", Rate: 6, Per: time.Minute, Burst: 10}
	var tat time.Time
	steps := []time.Duration{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3 * time.Second, 7 * time.Second, 0, time.Minute, 0, 0, 0, 0, 0, 0, 0}
	for i, d := range steps {
		c.add(d)
		wantOK, next, wantWait := GCRA(tat, c.now(), b.Interval(), b.Burst)
		ok, wait, err := l.Take(context.Background(), b, "7")
		if err != nil || ok != wantOK || wait != wantWait {
			t.Fatalf("step %d: Take = %v, %v, %v; want %v, %v", i, ok, wait, err, wantOK, wantWait)
		}
		tat = next
	}
}

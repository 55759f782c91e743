package admission

import (
	"context"
	"errors"
	"testing"
	"time"
)

func shed(t *testing.T, err error, want Reason) {
	t.Helper()
	se, ok := errors.AsType[*ShedError](err)
	if !ok || se.Reason != want || se.RetryAfter != 3*time.Second {
		t.Fatalf("err %v, want shed %s with retry after 3s", err, want)
	}
}

func TestGate(t *testing.T) {
	ctx := context.Background()
	g, err := New(Config{Slots: 2, MaxLine: 1, MaxWait: time.Hour, RetryAfter: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r1, err1 := g.Enter(ctx)
	r2, err2 := g.Enter(ctx)
	if err1 != nil || err2 != nil || g.InFlight() != 2 {
		t.Fatalf("free slots: %v %v, in flight %d", err1, err2, g.InFlight())
	}
	// The third waits in line until a slot is released.
	got := make(chan error, 1)
	go func() {
		r, err := g.Enter(ctx)
		if err == nil {
			r() // released before it reports: the count below must see it
		}
		got <- err
	}()
	for g.Waiting() != 1 {
		time.Sleep(time.Millisecond)
	}
	// The line is full: the fourth is shed at once.
	_, err = g.Enter(ctx)
	shed(t, err, LineFull)
	r1()
	if err := <-got; err != nil {
		t.Fatalf("waiter: %v", err)
	}
	r2()
	if g.InFlight() != 0 || g.Waiting() != 0 {
		t.Fatalf("in flight %d, waiting %d after all released", g.InFlight(), g.Waiting())
	}
}

func TestGateWaitAndLeave(t *testing.T) {
	g, _ := New(Config{Slots: 1, MaxWait: 20 * time.Millisecond, RetryAfter: 3 * time.Second})
	rel, err := g.Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rel()
	start := time.Now()
	_, err = g.Enter(context.Background())
	shed(t, err, Waited)
	if time.Since(start) < 20*time.Millisecond {
		t.Fatal("shed before MaxWait")
	}
	// A client that leaves while in line gets its context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Enter(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("left client: %v", err)
	}
	if g.Waiting() != 0 {
		t.Fatalf("waiting %d", g.Waiting())
	}
	// Staff go in even when every slot is taken, and their release
	// frees nothing that is not theirs.
	b := g.Bypass()
	b()
	if g.InFlight() != 1 {
		t.Fatalf("in flight %d, want the one slot still taken", g.InFlight())
	}
}

// A request's wait before the gate counts against MaxWait: with a slot
// free it goes in whatever it waited; with none, one that waited MaxWait
// is shed at once (MaxWait is an hour here: waiting it would time the
// test out), one that waited less waits in line only for the rest, and a
// negative wait (a proxy's clock ahead of this one) counts as none.
func TestGateEnterQueued(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g, _ := New(Config{Slots: 1, MaxWait: time.Hour, RetryAfter: 3 * time.Second})
	rel, err := g.EnterQueued(ctx, 2*time.Hour)
	if err != nil {
		t.Fatalf("a free slot refused to a request that waited before the gate: %v", err)
	}
	defer rel()
	for _, queued := range []time.Duration{time.Hour, 2 * time.Hour} {
		_, err := g.EnterQueued(ctx, queued)
		shed(t, err, Queued)
	}
	if g.Waiting() != 0 {
		t.Fatalf("waiting %d after the shed", g.Waiting())
	}
	start := time.Now()
	_, err = g.EnterQueued(ctx, time.Hour-20*time.Millisecond)
	shed(t, err, Waited)
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Fatalf("shed after %v, before the rest of MaxWait", d)
	}
	short, cancelShort := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancelShort()
	if _, err := g.EnterQueued(short, -time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a negative wait: %v, want to wait in line until the client left", err)
	}
}

// Past MaxQueued a request is shed even with every slot free; short of
// it, it goes in.
func TestGateMaxQueued(t *testing.T) {
	g, _ := New(Config{Slots: 2, MaxWait: time.Hour, RetryAfter: 3 * time.Second, MaxQueued: 5 * time.Second})
	for _, queued := range []time.Duration{5 * time.Second, time.Minute} {
		_, err := g.EnterQueued(context.Background(), queued)
		shed(t, err, Stale)
	}
	rel, err := g.EnterQueued(context.Background(), 5*time.Second-time.Millisecond)
	if err != nil {
		t.Fatalf("short of MaxQueued with a slot free: %v", err)
	}
	rel()
	if g.InFlight() != 0 || g.Waiting() != 0 {
		t.Fatalf("in flight %d, waiting %d", g.InFlight(), g.Waiting())
	}
	if _, err := New(Config{MaxQueued: -time.Second}); !errors.Is(err, ErrConfig) {
		t.Fatalf("negative MaxQueued: %v", err)
	}
}

func TestGateBypassTakesAFreeSlot(t *testing.T) {
	g, _ := New(Config{Slots: 1, MaxWait: time.Millisecond})
	b := g.Bypass()
	if g.InFlight() != 1 {
		t.Fatalf("in flight %d", g.InFlight())
	}
	if _, err := g.Enter(context.Background()); err == nil {
		t.Fatal("a contestant got the slot staff hold")
	}
	b()
	if g.InFlight() != 0 {
		t.Fatalf("in flight %d", g.InFlight())
	}
}

func TestNew(t *testing.T) {
	g, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if c := g.Config(); c.Slots != DefaultSlots || c.MaxLine != 4*DefaultSlots || c.MaxWait != DefaultMaxWait ||
		c.RetryAfter != DefaultRetryAfter || c.MaxRetryAfter != DefaultMaxRetryAfter {
		t.Fatalf("defaults %+v", c)
	}
	// A floor above the default ceiling raises the ceiling to it.
	if g, err := New(Config{RetryAfter: 15 * time.Second}); err != nil || g.Config().MaxRetryAfter != 15*time.Second {
		t.Fatalf("floor 15 s: %v %+v", err, g.Config())
	}
	for _, c := range []Config{{Slots: -1}, {MaxLine: -1}, {MaxWait: -1}, {RetryAfter: -1}, {MaxRetryAfter: -1},
		{RetryAfter: 5 * time.Second, MaxRetryAfter: 4 * time.Second}} {
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v): %v, want ErrConfig", c, err)
		}
	}
}

// TestGateRetryAfter: what a shed request is told follows the gate: the
// floor before anything is known, then longer with each client shed (the
// slot freeing twice a second), never past the ceiling, and the floor
// again once the sheds are a minute old.
func TestGateRetryAfter(t *testing.T) {
	g, err := New(Config{Slots: 1, MaxWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	g.now = func() time.Time { return now }
	g.rand = func() float64 { return 0.999 } // the top of each window
	tell := func() time.Duration {
		t.Helper()
		_, err := g.Enter(context.Background())
		se, ok := errors.AsType[*ShedError](err)
		if !ok || se.Reason != Waited {
			t.Fatalf("err %v, want shed (waited)", err)
		}
		return se.RetryAfter
	}
	rel, _ := g.Enter(context.Background())
	if got := tell(); got != time.Second {
		t.Fatalf("nothing known yet: told %v, want the floor 1s", got)
	}
	now = now.Add(500 * time.Millisecond)
	rel()
	rel, _ = g.Enter(context.Background())
	defer rel()
	var told []time.Duration
	for range 30 {
		told = append(told, tell())
	}
	for i, d := range told {
		if d%time.Second != 0 || d < time.Second || d > 10*time.Second || i > 0 && d < told[i-1] {
			t.Fatalf("told %v: want whole seconds growing from 1s, at most 10s", told)
		}
	}
	if told[0] != 2*time.Second || told[29] != 10*time.Second {
		t.Fatalf("told %v: want 2s (1 shed before, 0.5 s a slot) first, 10s last", told)
	}
	if got := g.RetryAdvice(); got != 10*time.Second {
		t.Fatalf("advice %v after the storm, want 10s", got)
	}
	now = now.Add(time.Minute)
	if got := g.RetryAdvice(); got != time.Second {
		t.Fatalf("advice %v a minute after the storm, want 1s", got)
	}
}

// TestGateAdvise: a request that failed (not shed) is told what a shed
// one would be, and counts like one: the advice grows with them as with
// the shed, and the shed that follow are told longer.
func TestGateAdvise(t *testing.T) {
	g, err := New(Config{Slots: 1, MaxWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	g.now = func() time.Time { return now }
	g.rand = func() float64 { return 0.999 }
	if got := g.Advise(); got != time.Second {
		t.Fatalf("nothing known yet: advised %v, want the floor 1s", got)
	}
	rel, _ := g.Enter(context.Background())
	now = now.Add(500 * time.Millisecond) // a slot is held 0.5 s
	rel()
	var told []time.Duration
	for range 30 {
		told = append(told, g.Advise())
	}
	if told[0] != 2*time.Second || told[29] != 10*time.Second {
		t.Fatalf("advised %v: want 2s first (the one before counted), 10s last", told)
	}
	rel, _ = g.Enter(context.Background())
	defer rel()
	if _, err := g.Enter(context.Background()); err == nil {
		t.Fatal("a second request got the one slot")
	} else if se, ok := errors.AsType[*ShedError](err); !ok || se.RetryAfter != 10*time.Second {
		t.Fatalf("shed after 30 failed: %v, want told 10s", err)
	}
}

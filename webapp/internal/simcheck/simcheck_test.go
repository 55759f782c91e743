package simcheck

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// The slot: a check waits for the running one, then gives up with
// ErrBusy, before touching the store (the loading and ranking are tested
// through the API on MariaDB, server.TestSimilarity).
func TestSlot(t *testing.T) {
	s, err := New(Config{Store: &store.Store{}, Wait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	release, err := s.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := s.Rank(context.Background(), Scope{ProblemID: 1}, 10); !errors.Is(err, ErrBusy) {
		t.Fatalf("second check: %v, want ErrBusy", err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("gave up after %v, before Wait", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Rank(ctx, Scope{ProblemID: 1}, 10); !errors.Is(err, ErrBusy) || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled check: %v", err)
	}
	release()
	if r2, err := s.acquire(context.Background()); err != nil {
		t.Fatalf("slot not released: %v", err)
	} else {
		r2()
	}
	for _, sc := range []Scope{{}, {ContestID: 1, ProblemID: 2}} {
		if _, err := s.Rank(context.Background(), sc, 10); err == nil || errors.Is(err, ErrBusy) {
			t.Errorf("scope %+v: %v", sc, err)
		}
	}
	if _, err := New(Config{}); err == nil {
		t.Error("New without a store")
	}
}

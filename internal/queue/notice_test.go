package queue_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
)

// An enqueue's notice carries the enqueue's own time (the one Peek
// reports, Redis's clock); a release's notice carries none.
func TestEnqueueNoticeCarriesTheEnqueueTime(t *testing.T) {
	q, env := newQueue(t)
	ctx := context.Background()
	sub := env.Client.Subscribe(ctx, env.Names.QueueChanged())
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil { // the subscription's confirmation
		t.Fatal(err)
	}
	if err := q.Enqueue(ctx, task(42, 1, protocol.PriorityContest, base)); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	msg, err := sub.ReceiveMessage(rctx)
	if err != nil {
		t.Fatal(err)
	}
	id, at, ok := queue.EnqueueNotice(msg.Payload)
	if !ok || id != 42 {
		t.Fatalf("notice %q: read as submission %d, ok %v", msg.Payload, id, ok)
	}
	qs, err := q.Peek(ctx, 1)
	if err != nil || len(qs) != 1 {
		t.Fatalf("peek: %v, %v", qs, err)
	}
	if !at.Equal(qs[0].EnqueuedAt) {
		t.Fatalf("notice says enqueued at %v, the queue %v", at, qs[0].EnqueuedAt)
	}
	if _, err := q.Lease(ctx, ref(42, 1), "j1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := q.Release(ctx, ref(42, 1), "j1"); err != nil {
		t.Fatal(err)
	}
	if msg, err = sub.ReceiveMessage(rctx); err != nil {
		t.Fatal(err)
	}
	if _, at, ok := queue.EnqueueNotice(msg.Payload); ok {
		t.Fatalf("release notice %q read as an enqueue at %v", msg.Payload, at)
	}
}

func TestEnqueueNotice(t *testing.T) {
	for _, tc := range []struct {
		payload string
		id      int64
		want    int64 // ms; 0: not an enqueue's
	}{
		{"42 1796223600123", 42, 1796223600123},
		{"42", 0, 0},
		{"reap", 0, 0},
		{"", 0, 0},
		{"42 ", 0, 0},
		{"42 x", 0, 0},
		{"42 -5", 0, 0},
		{"42 0", 0, 0},
		{"42 1.5e12", 0, 0},
		{"x 1796223600123", 0, 0},
		{"0 1796223600123", 0, 0},
		{"-3 1796223600123", 0, 0},
		{" 1796223600123", 0, 0},
	} {
		id, at, ok := queue.EnqueueNotice(tc.payload)
		if ok != (tc.want != 0) || (ok && (at.UnixMilli() != tc.want || id != tc.id)) {
			t.Errorf("EnqueueNotice(%q) = %d, %v, %v; want %d, %d ms", tc.payload, id, at, ok, tc.id, tc.want)
		}
	}
}

func FuzzEnqueueNotice(f *testing.F) {
	f.Add("42 1796223600123")
	f.Add("reap")
	f.Fuzz(func(t *testing.T, payload string) {
		id, at, ok := queue.EnqueueNotice(payload)
		if !ok {
			return
		}
		if at.UnixMilli() <= 0 || id <= 0 {
			t.Fatalf("%q: submission %d, time %v", payload, id, at)
		}
		again := strconv.FormatInt(id, 10) + " " + strconv.FormatInt(at.UnixMilli(), 10)
		if id2, at2, ok := queue.EnqueueNotice(again); !ok || id2 != id || !at2.Equal(at) {
			t.Fatalf("%q: %d, %v does not round-trip", payload, id, at)
		}
	})
}

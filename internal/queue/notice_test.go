package queue_test

import (
	"context"
	"strconv"
	"strings"
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
	at, ok := queue.EnqueueNoticeAt(msg.Payload)
	if !ok {
		t.Fatalf("notice %q: no enqueue time", msg.Payload)
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
	if at, ok := queue.EnqueueNoticeAt(msg.Payload); ok {
		t.Fatalf("release notice %q read as an enqueue at %v", msg.Payload, at)
	}
}

func TestEnqueueNoticeAt(t *testing.T) {
	for _, tc := range []struct {
		payload string
		want    int64 // ms; 0: not an enqueue's
	}{
		{"42 1796223600123", 1796223600123},
		{"42", 0},
		{"reap", 0},
		{"", 0},
		{"42 ", 0},
		{"42 x", 0},
		{"42 -5", 0},
		{"42 0", 0},
		{"42 1.5e12", 0},
	} {
		at, ok := queue.EnqueueNoticeAt(tc.payload)
		if ok != (tc.want != 0) || (ok && at.UnixMilli() != tc.want) {
			t.Errorf("EnqueueNoticeAt(%q) = %v, %v; want %d ms", tc.payload, at, ok, tc.want)
		}
	}
}

func FuzzEnqueueNoticeAt(f *testing.F) {
	f.Add("42 1796223600123")
	f.Add("reap")
	f.Fuzz(func(t *testing.T, payload string) {
		at, ok := queue.EnqueueNoticeAt(payload)
		if !ok {
			return
		}
		if at.UnixMilli() <= 0 {
			t.Fatalf("%q: time %v", payload, at)
		}
		id, _, _ := strings.Cut(payload, " ")
		if again, ok := queue.EnqueueNoticeAt(id + " " + strconv.FormatInt(at.UnixMilli(), 10)); !ok || !again.Equal(at) {
			t.Fatalf("%q: %v does not round-trip", payload, at)
		}
	})
}

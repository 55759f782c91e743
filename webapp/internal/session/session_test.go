package session

import (
	"context"
	"errors"
	"testing"
	"time"

	shared "github.com/verdict-oj/verdict/internal/session"
	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func epochOf(e uint32) func(context.Context) (uint32, error) {
	return func(context.Context) (uint32, error) { return e, nil }
}

// What the web node writes, the hub reads (shared.Read, without MySQL);
// once the web node publishes a new epoch the hub refuses the session,
// even one still in Redis.
func TestWrittenHereReadByTheHub(t *testing.T) {
	env := testenv.Redis(t)
	ctx := context.Background()
	st := NewStore(env.Client, env.Names, time.Hour)

	s, err := st.Create(ctx, 7, shared.RoleSetter, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PublishEpoch(ctx, 7, epochOf(4)); err != nil { // as the login does
		t.Fatal(err)
	}
	got, err := st.Get(ctx, s.ID)
	if err != nil || got != s {
		t.Fatalf("Get = %+v, %v; want %+v", got, err, s)
	}
	hub, err := shared.Read(ctx, env.Client, env.Names, s.ID)
	if err != nil || hub != s.Record {
		t.Fatalf("hub reads %+v, %v; want %+v", hub, err, s.Record)
	}
	if ttl := env.Client.PTTL(ctx, shared.Key(env.Names, s.ID)).Val(); ttl <= 0 || ttl > time.Hour {
		t.Fatalf("session TTL %v", ttl)
	}

	// A password change elsewhere: the epoch moves on; this session is
	// kept out of the deletion (as if it had dropped out of the index).
	if err := st.PublishEpoch(ctx, 7, epochOf(5)); err != nil {
		t.Fatal(err)
	}
	if _, err := shared.Read(ctx, env.Client, env.Names, s.ID); !errors.Is(err, shared.ErrEnded) {
		t.Fatalf("hub reads an ended session: %v", err)
	}
	next, err := st.Create(ctx, 7, shared.RoleSetter, 5)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := st.EndUser(ctx, 7, next.ID); err != nil || n != 1 {
		t.Fatalf("EndUser = %d, %v; want the old session ended", n, err)
	}
	if _, err := st.Get(ctx, s.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("old session after EndUser: %v", err)
	}
	if r, err := shared.Read(ctx, env.Client, env.Names, next.ID); err != nil || r.Epoch != 5 {
		t.Fatalf("hub reads the new session: %+v, %v", r, err)
	}
	if err := st.Delete(ctx, next.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := shared.Read(ctx, env.Client, env.Names, next.ID); !errors.Is(err, shared.ErrNotFound) {
		t.Fatalf("hub reads a logged-out session: %v", err)
	}
	if _, err := st.Get(ctx, "not-a-session-id"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("malformed id: %v", err)
	}
}

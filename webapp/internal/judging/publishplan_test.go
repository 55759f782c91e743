package judging

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func TestPublishPlan(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 17, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	type step struct {
		op       string // mark, wait, published, due
		id       int64
		ms       int     // wait/published: until; due: now
		wantDue  []int64 // due
		wantNext int     // due: the next wake after it, ms (-1: none)
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"a change in a quiet contest is due at once", []step{
			{op: "mark", id: 7},
			{op: "due", ms: 0, wantDue: []int64{7}, wantNext: -1},
		}},
		{"a change within the interval of a publish waits for its end", []step{
			{op: "mark", id: 7},
			{op: "due", ms: 0, wantDue: []int64{7}, wantNext: -1},
			{op: "published", id: 7, ms: 500},
			{op: "mark", id: 7},
			{op: "due", ms: 100, wantDue: nil, wantNext: 500},
			{op: "due", ms: 499, wantDue: nil, wantNext: 500},
			{op: "due", ms: 500, wantDue: []int64{7}, wantNext: -1},
		}},
		{"another node's lock: due when it expires", []step{
			{op: "mark", id: 3},
			{op: "due", ms: 0, wantDue: []int64{3}, wantNext: -1},
			{op: "wait", id: 3, ms: 320},
			{op: "due", ms: 10, wantDue: nil, wantNext: 320},
			{op: "due", ms: 320, wantDue: []int64{3}, wantNext: -1},
		}},
		{"the earliest of several contests wakes the publisher; each due on its own", []step{
			{op: "published", id: 1, ms: 400},
			{op: "published", id: 2, ms: 200},
			{op: "mark", id: 1}, {op: "mark", id: 2}, {op: "mark", id: 9},
			{op: "due", ms: 50, wantDue: []int64{9}, wantNext: 200},
			{op: "due", ms: 250, wantDue: []int64{2}, wantNext: 400},
			{op: "due", ms: 400, wantDue: []int64{1}, wantNext: -1},
		}},
		{"a publish long over does not hold a change back", []step{
			{op: "published", id: 4, ms: 500},
			{op: "due", ms: 900, wantDue: nil, wantNext: -1},
			{op: "mark", id: 4},
			{op: "due", ms: 900, wantDue: []int64{4}, wantNext: -1},
		}},
		{"a change during a publish is published after the interval", []step{
			{op: "mark", id: 5},
			{op: "due", ms: 0, wantDue: []int64{5}, wantNext: -1},
			{op: "mark", id: 5}, // while it is assembled
			{op: "published", id: 5, ms: 500},
			{op: "due", ms: 30, wantDue: nil, wantNext: 500},
			{op: "due", ms: 510, wantDue: []int64{5}, wantNext: -1},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPublishPlan()
			for i, s := range tc.steps {
				switch s.op {
				case "mark":
					p.mark(s.id)
				case "wait":
					p.wait(s.id, at(s.ms))
				case "published":
					p.published(s.id, at(s.ms))
				case "due":
					got := p.due(at(s.ms))
					if !reflect.DeepEqual(got, s.wantDue) {
						t.Fatalf("step %d: due at %d ms = %v, want %v", i, s.ms, got, s.wantDue)
					}
					next, ok := p.next(at(s.ms))
					switch {
					case s.wantNext < 0 && ok:
						t.Fatalf("step %d: next wake %v, want none", i, next.Sub(t0))
					case s.wantNext >= 0 && (!ok || !next.Equal(at(s.wantNext))):
						t.Fatalf("step %d: next wake %v (%v), want %d ms", i, next.Sub(t0), ok, s.wantNext)
					}
				}
			}
		})
	}
}

// The publisher against a real Redis, with an interval of an hour: a
// change in a quiet contest is published at once (a ticker would wait
// the hour), a change within the interval of this node's publish is not,
// and a contest whose lock another node holds is published when that
// lock expires (the lock then is this node's), not an interval later.
func TestPublisherLeadingEdgeAndLock(t *testing.T) {
	st, rd := storeAndRedis(t)
	ctx, cancel := context.WithCancel(context.Background())
	now := time.Now()
	contest := func(slug string) int64 {
		id, err := st.CreateContest(ctx, store.Contest{Slug: slug, Title: slug, Rule: "icpc", StartAt: now.Add(-time.Hour),
			EndAt: now.Add(time.Hour), Registration: store.RegistrationOpen, Visible: true})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	first, quiet, held := contest("first"), contest("quiet"), contest("held")
	s, err := New(Config{Store: st, Redis: rd.Client, Names: rd.Names, PublishInterval: time.Hour, NodeID: "node-a"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { s.RunPublisher(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	seq := func(id int64) uint64 {
		t.Helper()
		n, _, err := s.q.Doc(ctx, protocol.Channel{Kind: protocol.ChannelContest, ID: id})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitSeq := func(id int64, want uint64, what string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); seq(id) < want; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not published within 10 s (publish interval 1 h)", what)
			}
		}
	}

	s.MarkDirty(first) // once published, the publisher waits for work
	waitSeq(first, 1, "a change in a quiet contest")
	s.MarkDirty(quiet)
	waitSeq(quiet, 1, "a change in a quiet contest, the publisher idle")
	s.MarkDirty(quiet)
	time.Sleep(300 * time.Millisecond)
	if n := seq(quiet); n != 1 {
		t.Fatalf("a change within the interval was published (sequence %d)", n)
	}

	lock := rd.Names.ScoreboardPublish(held)
	if err := rd.Client.Set(ctx, lock, "node-b", 400*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	s.MarkDirty(held)
	waitSeq(held, 1, "a contest whose lock another node held for 400 ms")
	if owner, err := rd.Client.Get(ctx, lock).Result(); err != nil || owner != "node-a" {
		t.Fatalf("published under the lock of %q (%v), want node-a's", owner, err)
	}
}

// A publish stores the whole board as the contest channel's state and
// sends the hubs an event that only says it changed: the hubs read the
// state, and the board as the event's body too doubled what each publish
// moved through Redis.
func TestPublishSendsTheBoardOnce(t *testing.T) {
	st, rd := storeAndRedis(t)
	ctx := context.Background()
	now := time.Now()
	id, err := st.CreateContest(ctx, store.Contest{Slug: "once", Title: "once", Rule: "icpc", StartAt: now.Add(-time.Hour),
		EndAt: now.Add(time.Hour), Registration: store.RegistrationOpen, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Store: st, Redis: rd.Client, Names: rd.Names, NodeID: "node-a"})
	if err != nil {
		t.Fatal(err)
	}
	sub := rd.Client.Subscribe(ctx, rd.Names.Events(string(protocol.ChannelContest), id))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil { // the subscription's confirmation
		t.Fatal(err)
	}
	if err := s.PublishScoreboard(ctx, id); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	m, err := sub.ReceiveMessage(rctx)
	if err != nil {
		t.Fatal(err)
	}
	var ev protocol.Event
	if err := json.Unmarshal([]byte(m.Payload), &ev); err != nil {
		t.Fatalf("event %q: %v", m.Payload, err)
	}
	if ev.Kind != protocol.EventScoreboard || ev.Seq != 1 || string(ev.Body) != "{}" {
		t.Errorf("event %s, want a scoreboard event of seq 1 with body {}", m.Payload)
	}
	seq, state, err := s.q.Doc(ctx, protocol.Channel{Kind: protocol.ChannelContest, ID: id})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rule string          `json:"rule"`
		Full bool            `json:"full"`
		Rows json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(state, &doc); err != nil || seq != 1 || doc.Rule != "icpc" || !doc.Full || string(doc.Rows) != "[]" {
		t.Errorf("state seq %d %s (%v), want seq 1, the whole (empty) icpc board", seq, state, err)
	}
}

// storeAndRedis starts a real MySQL holding the schema and a real Redis.
func storeAndRedis(t *testing.T) (*store.Store, *testenv.RedisEnv) {
	t.Helper()
	my := testenv.MySQL(t)
	if _, err := store.Migrate(context.Background(), my.DSN, store.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	return store.New(my.DB), testenv.Redis(t)
}

package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/internal/boarddoc"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// boardReads intercepts the hub's reads of one contest's board (HMGET of
// its live state): each read, in turn, may be answered late (after the
// value was read: a Redis slow to answer) or fail.
type boardReads struct {
	key string
	mu  sync.Mutex
	// plan: what the next reads do, in order; empty: nothing.
	plan []func(ctx context.Context, cmd redis.Cmder) error
	n    int
}

func (h *boardReads) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *boardReads) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() != "hmget" || len(cmd.Args()) < 2 || cmd.Args()[1] != h.key {
			return next(ctx, cmd)
		}
		h.mu.Lock()
		h.n++
		var step func(context.Context, redis.Cmder) error
		if len(h.plan) > 0 {
			step, h.plan = h.plan[0], h.plan[1:]
		}
		h.mu.Unlock()
		err := next(ctx, cmd)
		if step != nil && err == nil {
			return step(ctx, cmd)
		}
		return err
	}
}

func (h *boardReads) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *boardReads) then(steps ...func(context.Context, redis.Cmder) error) {
	h.mu.Lock()
	h.plan = append(h.plan, steps...)
	h.mu.Unlock()
}

func (h *boardReads) reads() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// lastBoard reads a browser's pushes until none comes for quiet and
// returns ann's penalty in the last one (the boards of boardJSON).
func lastBoard(t *testing.T, b *browser, quiet time.Duration) int {
	t.Helper()
	last := -1
	for {
		env, err := b.next(quiet)
		if err != nil {
			return last
		}
		var rows []boarddoc.Row
		switch env.Type {
		case protocol.TypeEvent:
			ev := decode[protocol.Event](t, env)
			var d boarddoc.DeltaBody
			if err := json.Unmarshal(ev.Body, &d); err != nil {
				t.Fatalf("delta %s: %v", ev.Body, err)
			}
			rows = d.Rows
		case protocol.TypeSnapshot:
			var d boarddoc.Doc
			if err := json.Unmarshal(decode[protocol.Snapshot](t, env).State, &d); err != nil {
				t.Fatal(err)
			}
			rows = d.Rows
		}
		for _, r := range rows {
			if r.User == "ann" {
				last = r.Penalty
			}
		}
	}
}

// boardPushEnv starts a hub whose reads of contest 3's board go through
// reads, publishes board 0 (publish(v) publishes board v) and returns a
// browser subscribed to the contest, its snapshot read.
func boardPushEnv(t *testing.T) (*testenv.RedisEnv, *testHub, *boardReads, func(v int), *browser) {
	t.Helper()
	env := testenv.Redis(t)
	reads := &boardReads{key: env.Names.LiveState(string(protocol.ChannelContest), 3)}
	env.Client.AddHook(reads)
	th := startHub(t, env, func(c *hub.Config) { c.Coalesce = 50 * time.Millisecond })
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: 3}
	publish := func(v int) {
		t.Helper()
		if _, err := th.h.Queue().PublishDoc(context.Background(), ch, protocol.EventScoreboard, boardJSON(v, "ann", "bob"), boardJSON(v, "ann", "bob")); err != nil {
			t.Fatal(err)
		}
	}
	publish(0)
	addSession(t, env, "u", 8, "")
	b, err := dialBrowser(t, th.url("/ws"), "u")
	if err != nil {
		t.Fatal(err)
	}
	b.subscribe("c", ch)
	b.expect(protocol.TypeSnapshot)
	return env, th, reads, publish, b
}

// Under a slow Redis a push's read of the board can take longer than the
// coalesce interval. Two pushes reading at once could end in the wrong
// order: the older board pushed last, kept as the topic's board and given
// to every browser that subscribes later. (The rehearsal's browsers ended
// with boards a few cells behind MySQL's.)
func TestBoardPushesOfAContestInOrder(t *testing.T) {
	env, th, reads, publish, b := boardPushEnv(t)
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: 3}

	// The read for board 1 is answered a second late; board 2 is
	// published meanwhile and its read answered at once.
	reads.then(func(ctx context.Context, _ redis.Cmder) error {
		time.Sleep(time.Second)
		return nil
	})
	publish(1)
	time.Sleep(300 * time.Millisecond)
	publish(2)
	if got := lastBoard(t, b, 2*time.Second); got != 2 {
		t.Fatalf("the browser's last push shows board %d, want 2", got)
	}
	// The topic's board is the latest too: a browser subscribing now
	// gets it.
	addSession(t, env, "v", 9, "")
	b2, err := dialBrowser(t, th.url("/ws"), "v")
	if err != nil {
		t.Fatal(err)
	}
	b2.subscribe("c2", ch)
	var snap boarddoc.Doc
	if err := json.Unmarshal(decode[protocol.Snapshot](t, b2.expect(protocol.TypeSnapshot)).State, &snap); err != nil {
		t.Fatal(err)
	}
	if snap.Rows[0].User != "ann" || snap.Rows[0].Penalty != 2 {
		t.Fatalf("a new subscriber's board: %+v, want board 2", snap.Rows[0])
	}
}

// A board the hub could not read is read again, not dropped: the last
// change of a contest may have no other after it.
func TestBoardReadAgainAfterAFailure(t *testing.T) {
	_, th, reads, publish, b := boardPushEnv(t)

	fail := func(context.Context, redis.Cmder) error { return errors.New("injected: Redis did not answer") }
	reads.then(fail, fail, fail)
	before := reads.reads()
	publish(1)
	if got := lastBoard(t, b, 2*time.Second); got != 1 {
		t.Fatalf("after three failed reads the browser's last push shows board %d, want 1", got)
	}
	if n := reads.reads() - before; n != 4 {
		t.Fatalf("%d reads of the board, want 4 (three failed, then the one pushed)", n)
	}
	if v := metric(t, th.reg, "verdict_hub_scoreboard_read_failures_total", nil); v != 3 {
		t.Fatalf("read failures counted: %v, want 3", v)
	}
}

package hub_test

import (
	"context"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/hub"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// TestRunStopsScoreboardPushes: a coalesced scoreboard push still waiting
// for its timer when the hub stops never runs after Run has returned (it
// used to: a time.AfterFunc nobody stopped read Redis and pushed to the
// browsers of a stopped hub).
func TestRunStopsScoreboardPushes(t *testing.T) {
	env := testenv.Redis(t)
	const coalesce = 400 * time.Millisecond
	th := startHub(t, env, func(c *hub.Config) { c.Coalesce = coalesce })
	q := th.h.Queue()
	addSession(t, env, "u", 8, "")
	b, err := dialBrowser(t, th.url("/ws"), "u")
	if err != nil {
		t.Fatal(err)
	}
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: 7}
	ctx := context.Background()
	publish := func(v int) {
		t.Helper()
		doc := boardJSON(v, "ann", "bob")
		if _, err := q.PublishDoc(ctx, ch, protocol.EventScoreboard, doc, doc); err != nil {
			t.Fatal(err)
		}
	}
	publish(0)
	b.subscribe("c", ch)
	b.expect(protocol.TypeSnapshot)
	publish(1) // pushed at once: no push yet in this coalesce window
	b.expect(protocol.TypeEvent)
	pushes := func() float64 { return metric(t, th.reg, "verdict_hub_scoreboard_pushes_total", nil) }
	before := pushes()
	publish(2) // waits for the window's end
	time.Sleep(coalesce / 4)
	th.stop(t) // Run returns
	time.Sleep(coalesce + 200*time.Millisecond)
	if got := pushes(); got != before {
		t.Fatalf("scoreboard pushes went from %v to %v after Run returned", before, got)
	}
}

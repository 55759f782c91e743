package hub_test

import (
	"context"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// A judge whose heartbeats keep coming is not closed while the hub is slow
// to handle its messages: here Redis stalls every write for many heartbeat
// limits, so each message waits behind the one before it; the heartbeats
// count when they arrive.
func TestHeartbeatsCountWhenTheyArrive(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	addToken(t, env, "steady", "tok-steady")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, th.url("/judge"), &websocket.DialOptions{Subprotocols: []string{protocol.SubprotocolJudge}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	send := func(typ protocol.Type, v any) error {
		b, err := protocol.Marshal(typ, "", v)
		if err != nil {
			t.Fatal(err)
		}
		return c.Write(ctx, websocket.MessageText, b)
	}
	if err := send(protocol.TypeHello, protocol.Hello{JudgeID: "steady", Token: "tok-steady", AgentVersion: "test", Cores: 1,
		MemoryBytes: 1 << 30, Languages: []protocol.Language{{ID: "cpp17", Version: "g++"}}, MaxParallel: 1}); err != nil {
		t.Fatal(err)
	}
	if _, b, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	} else if e, err := protocol.Decode(protocol.LinkJudge, b); err != nil || e.Type != protocol.TypeWelcome {
		t.Fatalf("want welcome, got %s (%v)", b, err)
	}
	closed := make(chan error, 1)
	go func() {
		for {
			if _, _, err := c.Read(ctx); err != nil {
				closed <- err
				return
			}
		}
	}()
	beat := func() {
		if err := send(protocol.TypeHeartbeat, protocol.Heartbeat{Cores: 1}); err != nil {
			t.Errorf("heartbeat: %v", err)
		}
	}
	beat()
	limit := time.Duration(missedHeartbeats) * hbInterval
	stall := 4 * limit
	if err := env.Client.Do(ctx, "CLIENT", "PAUSE", stall.Milliseconds(), "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(stall + limit); time.Now().Before(end); time.Sleep(hbInterval) {
		beat()
		select {
		case err := <-closed:
			t.Fatalf("the hub closed a judge that kept sending heartbeats while Redis stalled: %v (close %v)", err, websocket.CloseStatus(err))
		default:
		}
	}
}

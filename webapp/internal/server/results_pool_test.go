package server

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestResultsAreWrittenWhileRequestsHoldEveryConnection: the results
// consumer writes through a pool of its own (judging.Config.ResultStore),
// so a storm of requests holding every connection of the requests' pool
// does not hold verdicts back — the 3,000-contestant rehearsal had
// thousands of results in the stream and none in MySQL for minutes. The
// contest path (board, Contest API feed with the written cases) runs too.
func TestResultsAreWrittenWhileRequestsHoldEveryConnection(t *testing.T) {
	now := time.Now()
	ce := newCCSEnv(t, now.Add(-time.Hour), now.Add(time.Hour), 0, nil)
	ctx := context.Background()
	sid := ce.submit(ce.alice, "k1")
	ce.judge(sid, 1, protocol.VerdictWA, 3)

	// The requests' pool: one connection, held by a "request".
	ce.st.DB.SetMaxOpenConns(1)
	held, err := ce.st.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	own, err := store.Open(ctx, ce.dsn, store.OpenOptions{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	js, err := judging.New(judging.Config{Store: ce.st, ResultStore: store.New(own), Redis: ce.rdb, Names: ce.names,
		NodeID: "results-node", ResultWorkers: 2})
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	n, err := js.ReadOnce(rctx, 0)
	if err != nil || n != 1 {
		t.Fatalf("consumer behind a held request pool: acknowledged %d, %v; want 1 written", n, err)
	}
	var verdict string
	if err := own.GetContext(ctx, &verdict, "SELECT verdict FROM submissions WHERE id = ?", sid); err != nil || verdict != "WA" {
		t.Fatalf("verdict %q (%v), want WA", verdict, err)
	}
	held.Close()
	ce.st.DB.SetMaxOpenConns(32)

	// The feed's judgement carries the cases as written.
	code, body, _ := ccsGet(t, ce.ts.URL, "/api/ccs/contests/c1/runs", bearer(ce.staffTok))
	var runs []map[string]any
	if code != http.StatusOK || json.Unmarshal(body, &runs) != nil || len(runs) != 3 {
		t.Fatalf("runs: %d %s, want 3", code, body)
	}
}

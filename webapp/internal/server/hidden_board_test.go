package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestHiddenContestBoardNotPublished: the hub lets anyone, visitors
// included, subscribe to a contest's live channel by its numeric id, so the
// board published there for a hidden contest carries no rows (REST answers
// 404 to all but staff); hiding a contest that was visible replaces its
// published board, and staff still read the board over REST.
func TestHiddenContestBoardNotPublished(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	_ = je.q.EnsureResultsGroup(ctx)
	now := time.Now()
	cid, _ := je.st.CreateContest(ctx, store.Contest{Slug: "c1", Title: "C", Rule: "icpc", StartAt: now.Add(-time.Hour),
		EndAt: now.Add(time.Hour), Registration: "open", Visible: true})
	_ = je.st.AddContestProblem(ctx, cid, je.problem.ID, "A", 100)
	alice := je.student("alice")
	r := alice.submit("k1", map[string]any{"problem": "a-plus-b", "contest": "c1", "language": "py3", "source": "x"})
	if r.status != 201 {
		t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	je.judge(id(r), 1, protocol.VerdictWA, 2)
	je.consume()
	published := func() string {
		t.Helper()
		if err := je.srv.Judging().PublishScoreboard(ctx, cid); err != nil {
			t.Fatal(err)
		}
		_, state, err := je.q.Doc(ctx, protocol.Channel{Kind: protocol.ChannelContest, ID: cid})
		if err != nil {
			t.Fatal(err)
		}
		return string(state)
	}
	if got := published(); !strings.Contains(got, `"alice"`) {
		t.Fatalf("visible contest's published board %s, want alice's row", got)
	}

	je.user("root", store.RoleAdmin, "root-password")
	admin := je.client()
	admin.login("root", "root-password")
	if r := admin.call("PUT", "/api/contests/c1", map[string]any{"visible": false}); r.status != 200 {
		t.Fatalf("hide: %d %s", r.status, r.raw)
	}
	got := published()
	if strings.Contains(got, `"alice"`) || !strings.Contains(got, `"rows":[]`) {
		t.Fatalf("hidden contest's published board %s, want no rows", got)
	}
	if r := alice.do("GET", "/api/contests/c1/scoreboard", nil); r.status != 404 {
		t.Fatalf("student's scoreboard of a hidden contest: %d %s", r.status, r.raw)
	}
	for _, view := range []string{"", "?view=public"} {
		r := admin.do("GET", "/api/contests/c1/scoreboard"+view, nil)
		if r.status != 200 || !strings.Contains(r.raw, `"alice"`) {
			t.Fatalf("staff's scoreboard%s of a hidden contest: %d %s", view, r.status, r.raw)
		}
	}

	if r := admin.call("PUT", "/api/contests/c1", map[string]any{"visible": true}); r.status != 200 {
		t.Fatalf("show: %d %s", r.status, r.raw)
	}
	if got := published(); !strings.Contains(got, `"alice"`) {
		t.Fatalf("contest made visible again: published board %s, want alice's row", got)
	}
}

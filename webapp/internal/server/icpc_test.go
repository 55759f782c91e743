package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/ccs"
)

// tsvLines GETs a TSV download and splits it into fields per line.
func tsvLines(t *testing.T, c *client, path string) [][]string {
	t.Helper()
	r := c.do("GET", path, nil)
	if r.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.status, r.raw)
	}
	var out [][]string
	for _, l := range strings.Split(strings.TrimSuffix(string(r.raw), "\n"), "\n") {
		out = append(out, strings.Split(l, "\t"))
	}
	return out
}

// TestICPCAwardsResultsAndBalloons: problem colours reach the CLICS
// problem; the balloon list has the first solves in order with their
// flags, delivered marks persist and every change is published on the
// contest's balloon channel; medal counts decide the awards and
// results.tsv / scoreboard.tsv follow the documented columns.
func TestICPCAwardsResultsAndBalloons(t *testing.T) {
	now := time.Now()
	ce := newCCSEnv(t, now.Add(-time.Hour), now.Add(time.Hour), 0, nil)
	ctx := context.Background()
	events := ce.rdb.Subscribe(ctx, ce.names.Events(string(protocol.ChannelBalloons), ce.cid))
	defer events.Close()
	if _, err := events.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	nextChange := func() protocol.BalloonChange {
		t.Helper()
		select {
		case m := <-events.Channel():
			var ev protocol.Event
			if err := json.Unmarshal([]byte(m.Payload), &ev); err != nil {
				t.Fatalf("balloon event %s: %v", m.Payload, err)
			}
			var bc protocol.BalloonChange
			if err := json.Unmarshal(ev.Body, &bc); err != nil || ev.Kind != protocol.EventBalloon || bc.Validate() != nil {
				t.Fatalf("balloon event %s", m.Payload)
			}
			return bc
		case <-time.After(5 * time.Second):
			t.Fatal("no balloon event")
		}
		return protocol.BalloonChange{}
	}

	// Colours: staff only, validated by field.
	colors := map[string]any{"problems": []map[string]string{{"label": "A", "color": "Red", "rgb": "#FF0000"}}}
	if r := ce.alice.call("PUT", "/api/contests/c1/problem-colors", colors); r.status != http.StatusForbidden {
		t.Errorf("a student sets colours: %d", r.status)
	}
	wantErr(t, ce.admin.call("PUT", "/api/contests/c1/problem-colors",
		map[string]any{"problems": []map[string]string{{"label": "A", "color": "Red", "rgb": "red"}}}), 400, CodeValidation, "problems")
	wantErr(t, ce.admin.call("PUT", "/api/contests/c1/problem-colors",
		map[string]any{"problems": []map[string]string{{"label": "Z", "color": "Red", "rgb": "#f00"}}}), 400, CodeValidation, "problems")
	if r := ce.admin.call("PUT", "/api/contests/c1/problem-colors", colors); r.status != 200 || !strings.Contains(string(r.raw), `"rgb":"#ff0000"`) {
		t.Fatalf("set colours: %d %s", r.status, r.raw)
	}
	_, b, _ := ccsGet(t, ce.ts.URL+"/api/ccs", "/contests/c1/problems", bearer(ce.publicTok))
	var probs []map[string]any
	if err := json.Unmarshal(b, &probs); err != nil || len(probs) != 1 || probs[0]["color"] != "Red" || probs[0]["rgb"] != "#ff0000" {
		t.Fatalf("CLICS problems %s", b)
	}
	checkShape(t, "problems", probs[0], "problem")

	// Alice: WA then AC; bob AC later. The first AC is the contest's and
	// the problem's first; bob's balloon is neither.
	w := ce.submit(ce.alice, "w")
	ce.judge(w, 1, protocol.VerdictWA, 1)
	a := ce.submit(ce.alice, "a")
	ce.judge(a, 1, protocol.VerdictAC, 1)
	bsub := ce.submit(ce.bob, "b")
	ce.judge(bsub, 1, protocol.VerdictAC, 1)
	ce.consume()
	// One change per AC; a node writes results several at a time, so
	// the two may come in either order.
	changes := map[int64]string{}
	for range 2 {
		bc := nextChange()
		changes[bc.SubmissionID] = bc.What
	}
	if len(changes) != 2 || changes[a] != "solved" || changes[bsub] != "solved" {
		t.Fatalf("changes %v, want solved for alice's %d and bob's %d", changes, a, bsub)
	}
	list := func() []ccs.Balloon {
		t.Helper()
		r := ce.admin.do("GET", "/api/contests/c1/balloons", nil)
		var out BalloonsJSON
		if r.status != 200 || json.Unmarshal([]byte(r.raw), &out) != nil {
			t.Fatalf("balloons: %d %s", r.status, r.raw)
		}
		if out.Channel != (protocol.Channel{Kind: protocol.ChannelBalloons, ID: ce.cid}) {
			t.Errorf("channel %+v", out.Channel)
		}
		return out.Items
	}
	bs := list()
	alice, bob := itoa(ce.userID("alice")), itoa(ce.userID("bob"))
	if len(bs) != 2 || bs[0].Team != alice || bs[0].SubmissionID != a || !bs[0].FirstInContest || !bs[0].FirstForProblem ||
		bs[1].Team != bob || bs[1].FirstInContest || bs[1].FirstForProblem || bs[0].Color != "Red" || bs[0].RGB != "#ff0000" ||
		bs[0].Label != "A" || bs[0].Delivered || bs[0].Submitter != "alice" {
		t.Fatalf("balloons %+v", bs)
	}
	if r := ce.alice.do("GET", "/api/contests/c1/balloons", nil); r.status != http.StatusForbidden {
		t.Errorf("a student reads the balloons: %d", r.status)
	}
	wantErr(t, ce.admin.call("PUT", "/api/contests/c1/balloons/"+bob+"/A", map[string]any{}), 400, CodeValidation, "delivered")
	if r := ce.admin.call("PUT", "/api/contests/c1/balloons/999999/A", map[string]any{"delivered": true}); r.status != 404 {
		t.Errorf("a balloon nobody earned: %d", r.status)
	}
	if r := ce.admin.call("PUT", "/api/contests/c1/balloons/"+bob+"/A", map[string]any{"delivered": true}); r.status != 200 ||
		r.body["delivered"] != true || r.body["delivered_at"] == nil {
		t.Fatalf("deliver: %d %s", r.status, r.raw)
	}
	if bc := nextChange(); bc.What != "delivered" || bc.Team != bob {
		t.Fatalf("delivery change %+v", bc)
	}
	if bs := list(); !bs[1].Delivered || bs[0].Delivered {
		t.Errorf("after delivering bob's: %+v", bs)
	}
	ce.admin.call("PUT", "/api/contests/c1/balloons/"+bob+"/A", map[string]any{"delivered": false})
	if bc := nextChange(); bc.What != "undelivered" {
		t.Fatalf("undelivery change %+v", bc)
	}
	if bs := list(); bs[1].Delivered {
		t.Errorf("undelivered is kept: %+v", bs)
	}

	// Awards: bob (no penalty) gold, alice (20 min penalty) silver.
	if r := ce.alice.call("PUT", "/api/contests/c1/award-settings", map[string]any{"gold": 1}); r.status != 403 {
		t.Errorf("a student sets medals: %d", r.status)
	}
	wantErr(t, ce.admin.call("PUT", "/api/contests/c1/award-settings", map[string]any{"bronze": -1}), 400, CodeValidation, "bronze")
	if r := ce.admin.call("PUT", "/api/contests/c1/award-settings", map[string]any{"gold": 1, "silver": 1, "bronze": 0}); r.status != 200 ||
		r.body["gold"] != float64(1) || r.body["honorable_below_median"] != true {
		t.Fatalf("set medals: %d %s", r.status, r.raw)
	}
	_, b, _ = ccsGet(t, ce.ts.URL+"/api/ccs", "/contests/c1/awards", bearer(ce.staffTok))
	var as []map[string]any
	if err := json.Unmarshal(b, &as); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, x := range as {
		checkShape(t, "awards", x, "award")
		ids, _ := json.Marshal(x["team_ids"])
		got[x["id"].(string)] = string(ids)
	}
	if got["gold-medal"] != `["`+bob+`"]` || got["silver-medal"] != `["`+alice+`"]` || got["bronze-medal"] != `[]` ||
		got["winner"] != `["`+bob+`"]` || got["first-to-solve-"+itoa(ce.problem.ID)] != `["`+alice+`"]` {
		t.Errorf("awards %v", got)
	}
	res := tsvLines(t, ce.admin, "/api/contests/c1/results.tsv")
	if strings.Join(res[0], "\t") != "results\t1" || len(res) != 3 {
		t.Fatalf("results.tsv %v", res)
	}
	if res[1][0] != bob || res[1][1] != "1" || res[1][2] != "Gold Medal" || res[1][3] != "1" ||
		res[2][0] != alice || res[2][1] != "2" || res[2][2] != "Silver Medal" || len(res[2]) != 7 {
		t.Errorf("results.tsv %v", res)
	}
	sb := tsvLines(t, ce.admin, "/api/contests/c1/scoreboard.tsv")
	if strings.Join(sb[0], "\t") != "scoreboard\t1" || len(sb) != 3 || len(sb[1]) != 8 || sb[1][2] != "1" || sb[2][6] != "2" {
		t.Errorf("scoreboard.tsv %v (alice: 2 submissions on A)", sb)
	}
	if r := ce.alice.do("GET", "/api/contests/c1/results.tsv", nil); r.status != 403 {
		t.Errorf("a student downloads results.tsv: %d", r.status)
	}
}

// TestCCSAwardsHiddenDuringFreeze: during the freeze the public gets no
// awards (REST and feed), staff the live ones; the feed's award events
// follow the board.
func TestCCSAwardsHiddenDuringFreeze(t *testing.T) {
	now := time.Now()
	ce := newCCSEnv(t, now.Add(-time.Hour), now.Add(time.Hour), 90, nil) // frozen since 30 min in
	ac := ce.submit(ce.alice, "ac")
	ce.judge(ac, 1, protocol.VerdictAC, 1)
	ce.consume()
	_, b, _ := ccsGet(t, ce.ts.URL+"/api/ccs", "/contests/c1/awards", bearer(ce.publicTok))
	if strings.TrimSpace(string(b)) != "[]" {
		t.Errorf("public awards during the freeze: %s", b)
	}
	_, b, _ = ccsGet(t, ce.ts.URL+"/api/ccs", "/contests/c1/awards/winner", bearer(ce.staffTok))
	if !strings.Contains(string(b), `"team_ids":["`+itoa(ce.userID("alice"))+`"]`) {
		t.Errorf("staff winner: %s", b)
	}
	pub := openFeed(t, ce.ts.URL, "", bearer(ce.publicTok))
	evs := pub.until(hasToken)
	pub.close()
	if findEvent(evs, "awards", "winner") != nil {
		t.Errorf("the public feed has awards during the freeze")
	}
	staff := openFeed(t, ce.ts.URL, "", bearer(ce.staffTok))
	defer staff.close()
	evs = staff.until(isEvent("awards", "winner"))
	w := findEvent(evs, "awards", "winner")
	checkEvent(t, w, "winner event")
	// Bob solves: gold (4 by default) now has both, sent on the open feed.
	bs := ce.submit(ce.bob, "b")
	ce.judge(bs, 1, protocol.VerdictAC, 1)
	ce.consume()
	both, _ := json.Marshal([]string{itoa(ce.userID("alice")), itoa(ce.userID("bob"))})
	staff.until(func(ev map[string]any) bool {
		d, _ := ev["data"].(map[string]any)
		ids, _ := json.Marshal(d["team_ids"])
		return ev["type"] == "awards" && ev["id"] == "gold-medal" && string(ids) == string(both)
	})
}

// TestICPCTeamContestBalloonsAndResults: in a team contest the balloon is
// the team's (one, whichever member solved), group winners and the team's
// ICPC id reach results.tsv.
func TestICPCTeamContestBalloonsAndResults(t *testing.T) {
	now := time.Now()
	ce := newCCSEnv(t, now.Add(-time.Hour), now.Add(time.Hour), 0, nil)
	if r := ce.admin.call("PUT", "/api/contests/c1/team-mode", map[string]any{"enabled": true}); r.status != 200 {
		t.Fatalf("team mode: %d %s", r.status, r.raw)
	}
	if r := ce.admin.call("POST", "/api/contests/c1/teams/import?format=groups.json", []map[string]any{{"id": "north", "name": "North"}}); r.status != 200 {
		t.Fatalf("import groups: %d %s", r.status, r.raw)
	}
	teams := []map[string]any{{"id": "rocket", "icpc_id": "4711", "name": "Team Rocket", "group_ids": []string{"north"},
		"members": []string{"alice", "bob"}}}
	if r := ce.admin.call("POST", "/api/contests/c1/teams/import?format=teams.json", teams); r.status != 200 {
		t.Fatalf("import teams: %d %s", r.status, r.raw)
	}
	w := ce.submit(ce.alice, "w")
	ce.judge(w, 1, protocol.VerdictWA, 1)
	a := ce.submit(ce.bob, "a")
	ce.judge(a, 1, protocol.VerdictAC, 1)
	a2 := ce.submit(ce.alice, "a2")
	ce.judge(a2, 1, protocol.VerdictAC, 1)
	ce.consume()
	r := ce.admin.do("GET", "/api/contests/c1/balloons", nil)
	var out BalloonsJSON
	if r.status != 200 || json.Unmarshal([]byte(r.raw), &out) != nil {
		t.Fatalf("balloons: %d %s", r.status, r.raw)
	}
	if len(out.Items) != 1 || out.Items[0].Team != "rocket" || out.Items[0].TeamName != "Team Rocket" || out.Items[0].SubmissionID != a ||
		out.Items[0].Submitter != "bob" || !out.Items[0].FirstInContest {
		t.Fatalf("one balloon, the team's, for bob's AC: %+v", out.Items)
	}
	if r := ce.admin.call("PUT", "/api/contests/c1/balloons/rocket/A", map[string]any{"delivered": true}); r.status != 200 {
		t.Fatalf("deliver the team's balloon: %d %s", r.status, r.raw)
	}
	res := tsvLines(t, ce.admin, "/api/contests/c1/results.tsv")
	if len(res) != 2 || strings.Join(res[1], "|") != "4711|1|Gold Medal|1|"+res[1][4]+"|"+res[1][5]+"|North" {
		t.Errorf("results.tsv %v (the ICPC id, gold, the group won)", res)
	}
	_, b, _ := ccsGet(t, ce.ts.URL+"/api/ccs", "/contests/c1/awards/group-winner-north", bearer(ce.staffTok))
	if !strings.Contains(string(b), `"team_ids":["rocket"]`) {
		t.Errorf("group winner award: %s", b)
	}
}

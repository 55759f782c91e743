package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/ccs"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// ccsAward reads one award from the Contest API.
func (ce *ccsEnv) ccsAward(authz, id string) ccs.Award {
	ce.t.Helper()
	st, b, _ := ccsGet(ce.t, ce.ts.URL+"/api/ccs", "/contests/c1/awards/"+id, authz)
	var a ccs.Award
	if st != 200 || json.Unmarshal(b, &a) != nil {
		ce.t.Fatalf("award %s: %d %s", id, st, b)
	}
	return a
}

// TestFirstToSolveWaitsForEarlierPending: no first-to-solve award for a
// problem while a submission made before the first accepted one is
// pending judgement; once it is judged (rejected) the award is given.
func TestFirstToSolveWaitsForEarlierPending(t *testing.T) {
	now := time.Now()
	ce := newCCSEnv(t, now.Add(-time.Hour), now.Add(time.Hour), 0, nil)
	early := ce.submit(ce.bob, "b1") // pending
	ac := ce.submit(ce.alice, "a1")
	ce.judge(ac, 1, protocol.VerdictAC, 2)
	ce.consume()
	fts := "first-to-solve-" + ccs.ID(ce.problem.ID)
	if a := ce.ccsAward(bearer(ce.staffTok), fts); len(a.TeamIDs) != 0 {
		t.Errorf("first to solve awarded while an earlier submission is pending: %+v", a)
	}
	if a := ce.ccsAward(bearer(ce.staffTok), "winner"); len(a.TeamIDs) != 1 {
		t.Errorf("the other awards do not wait: %+v", a)
	}
	ce.judge(early, 1, protocol.VerdictWA, 2)
	ce.consume()
	if a := ce.ccsAward(bearer(ce.staffTok), fts); len(a.TeamIDs) != 1 || a.TeamIDs[0] != ccs.ID(ce.userID("alice")) {
		t.Errorf("first to solve once the earlier submission is judged: %+v", a)
	}
}

// TestResultsTSVFollowsAwardEdits: results.tsv's medals are the edited
// awards, as the Contest API's: a team staff move from the honourable
// mentions to silver is a silver medallist ranked by its position there;
// dropping the edits gives the computed ones back.
func TestResultsTSVFollowsAwardEdits(t *testing.T) {
	now := time.Now()
	ce := newCCSEnv(t, now.Add(-time.Hour), now.Add(time.Hour), 0, nil)
	alice, bob := ccs.ID(ce.userID("alice")), ccs.ID(ce.userID("bob"))
	a1 := ce.submit(ce.alice, "a1")
	ce.judge(a1, 1, protocol.VerdictAC, 2)
	b1 := ce.submit(ce.bob, "b1")
	ce.judge(b1, 1, protocol.VerdictWA, 2)
	ce.consume()
	results := func() map[string][]string {
		t.Helper()
		out := map[string][]string{}
		for _, l := range tsvLines(t, ce.admin, "/api/contests/c1/results.tsv")[1:] {
			out[l[0]] = l[1:3] // rank, award
		}
		return out
	}
	want := func(what string, a, b [2]string) {
		t.Helper()
		got := results()
		if g := [2]string(got[alice]); g != a {
			t.Errorf("%s: alice %v, want %v", what, g, a)
		}
		if g := [2]string(got[bob]); g != b {
			t.Errorf("%s: bob %v, want %v", what, g, b)
		}
	}
	// Computed: alice gold, bob (nothing solved) honourable, unranked.
	want("computed", [2]string{"1", ccs.AwardGold}, [2]string{"", ccs.AwardHonorable})
	for _, e := range []struct {
		award string
		body  map[string]any
	}{{"silver-medal", map[string]any{"add": []string{bob}}}, {"honorable-mention", map[string]any{"remove": []string{bob}}}} {
		if r := ce.admin.call("PUT", "/api/contests/c1/awards/"+e.award, e.body); r.status != 200 {
			t.Fatalf("edit %s: %d %s", e.award, r.status, r.raw)
		}
	}
	if a := ce.ccsAward(bearer(ce.staffTok), "silver-medal"); strings.Join(a.TeamIDs, ",") != bob {
		t.Fatalf("the Contest API's silver %+v", a)
	}
	want("edited", [2]string{"1", ccs.AwardGold}, [2]string{"2", ccs.AwardSilver})
	for _, award := range []string{"silver-medal", "honorable-mention"} {
		if r := ce.admin.call("DELETE", "/api/contests/c1/awards/"+award, nil); r.status != 204 {
			t.Fatalf("drop %s: %d %s", award, r.status, r.raw)
		}
	}
	want("edits dropped", [2]string{"1", ccs.AwardGold}, [2]string{"", ccs.AwardHonorable})
}

// TestAwardEditsAndFinalize: staff edit single awards on top of the
// computed ones (add and remove teams, a citation, an award of their
// own), the Contest API and the site API show the edited awards; an
// admin finalises the contest only once it is over with nothing pending
// and no question unanswered; then the state is finalized (in the feed
// at once) and the awards can no longer be edited.
func TestAwardEditsAndFinalize(t *testing.T) {
	start := time.Now().Add(-time.Hour)
	end := start.Add(2 * time.Hour)
	var clock atomic.Int64
	clock.Store(time.Now().UnixMilli())
	ce := newCCSEnv(t, start, end, 0, func(c *Config) {
		c.Now = func() time.Time { return time.UnixMilli(clock.Load()) }
	})
	aliceID, bobID := ccs.ID(ce.userID("alice")), ccs.ID(ce.userID("bob"))
	a1 := ce.submit(ce.alice, "a1")
	ce.judge(a1, 1, protocol.VerdictAC, 2)
	b1 := ce.submit(ce.bob, "b1")
	ce.judge(b1, 1, protocol.VerdictWA, 2)
	ce.consume()
	staff := bearer(ce.staffTok)

	// Computed: alice gold (and winner); bob solved nothing: honourable.
	if a := ce.ccsAward(staff, "gold-medal"); strings.Join(a.TeamIDs, ",") != aliceID {
		t.Fatalf("gold %+v", a)
	}
	// Edits: who may, what is checked.
	if r := ce.alice.call("PUT", "/api/contests/c1/awards/silver-medal", map[string]any{"add": []string{bobID}}); r.status != 403 {
		t.Errorf("a student edits an award: %d", r.status)
	}
	wantErr(t, ce.admin.call("PUT", "/api/contests/c1/awards/silver-medal", map[string]any{"add": []string{"nobody"}}), 400, CodeValidation, "add")
	wantErr(t, ce.admin.call("PUT", "/api/contests/c1/awards/silver-medal", map[string]any{"add": []string{bobID, bobID}}), 400, CodeValidation, "add")
	wantErr(t, ce.admin.call("PUT", "/api/contests/c1/awards/silver-medal",
		map[string]any{"add": []string{bobID}, "remove": []string{bobID}}), 400, CodeValidation, "remove")
	wantErr(t, ce.admin.call("PUT", "/api/contests/c1/awards/-bad", map[string]any{}), 400, CodeValidation, "award")
	wantErr(t, ce.admin.call("PUT", "/api/contests/c1/awards/silver-medal", map[string]any{"citation": strings.Repeat("x", 256)}), 400, CodeValidation, "citation")
	// Bob moves up to silver, leaves the honourable mentions; a citation;
	// an award of staff's own.
	r := ce.admin.call("PUT", "/api/contests/c1/awards/silver-medal", map[string]any{"add": []string{bobID}, "citation": "Silver, by the jury"})
	if r.status != 200 || r.body["award_id"] != "silver-medal" {
		t.Fatalf("edit silver: %d %s", r.status, r.raw)
	}
	if r := ce.admin.call("PUT", "/api/contests/c1/awards/honorable-mention", map[string]any{"remove": []string{bobID}}); r.status != 200 {
		t.Fatalf("edit honorable: %d %s", r.status, r.raw)
	}
	if r := ce.admin.call("PUT", "/api/contests/c1/awards/team-spirit", map[string]any{"add": []string{bobID}, "citation": "Team spirit"}); r.status != 200 {
		t.Fatalf("own award: %d %s", r.status, r.raw)
	}
	if a := ce.ccsAward(staff, "silver-medal"); strings.Join(a.TeamIDs, ",") != bobID || a.Citation != "Silver, by the jury" {
		t.Errorf("edited silver %+v", a)
	}
	if a := ce.ccsAward(staff, "honorable-mention"); len(a.TeamIDs) != 0 {
		t.Errorf("edited honorable %+v", a)
	}
	if a := ce.ccsAward(staff, "team-spirit"); strings.Join(a.TeamIDs, ",") != bobID || a.Citation != "Team spirit" {
		t.Errorf("own award %+v", a)
	}
	// Dropping an edit gives the computed award back.
	if r := ce.admin.call("DELETE", "/api/contests/c1/awards/honorable-mention", nil); r.status != 204 {
		t.Fatalf("drop edit: %d %s", r.status, r.raw)
	}
	if a := ce.ccsAward(staff, "honorable-mention"); strings.Join(a.TeamIDs, ",") != bobID {
		t.Errorf("honorable after dropping the edit %+v", a)
	}
	// The site API: staff see the awards, the computed ones and the
	// edits; the public nothing before the end.
	r = ce.admin.do("GET", "/api/contests/c1/awards", nil)
	if r.status != 200 || len(r.body["edits"].([]any)) != 2 || r.body["editable"] != true || len(r.body["computed"].([]any)) == 0 {
		t.Fatalf("staff awards: %d %s", r.status, r.raw)
	}
	if r := ce.alice.do("GET", "/api/contests/c1/awards", nil); r.status != 200 || len(r.body["awards"].([]any)) != 0 || r.body["edits"] != nil {
		t.Errorf("public awards during the contest: %d %s", r.status, r.raw)
	}

	// Finalising: not while the contest runs, nor with a question
	// unanswered or a submission pending.
	blocked := func(want ...string) {
		t.Helper()
		r := ce.admin.call("POST", "/api/contests/c1/finalize", map[string]string{})
		if r.status != 409 || !strings.Contains(r.raw, "cannot be finalized") {
			t.Fatalf("finalize: %d %s", r.status, r.raw)
		}
		for _, w := range want {
			if !strings.Contains(r.raw, w) {
				t.Errorf("finalize blockers %s lack %q", r.raw, w)
			}
		}
	}
	blocked("not over")
	q := ce.bob.call("POST", "/api/contests/c1/clarifications", map[string]string{"question": "Is n > 0?"})
	if q.status != 201 {
		t.Fatalf("ask: %d %s", q.status, q.raw)
	}
	pending := ce.submit(ce.bob, "b2")
	clock.Store(end.Add(time.Minute).UnixMilli()) // the contest is over
	blocked("1 submission(s) pending judgement", "1 clarification request(s) unanswered")
	ce.judge(pending, 1, protocol.VerdictSE, 0)
	ce.consume()
	blocked("system error")
	if _, err := ce.st.DB.Exec("UPDATE submissions SET verdict = 'WA' WHERE id = ?", pending); err != nil {
		t.Fatal(err)
	}
	qid := int64(q.body["clarification"].(map[string]any)["id"].(float64))
	if r := ce.admin.call("POST", fmt.Sprintf("/api/contests/c1/clarifications/%d/answer", qid), map[string]any{"answer": "Yes.", "public": false}); r.status != 200 {
		t.Fatalf("answer: %d %s", r.status, r.raw)
	}
	if r := ce.admin.do("GET", "/api/contests/c1/finalize", nil); r.status != 200 || r.body["can_finalize"] != true {
		t.Fatalf("finalize status: %d %s", r.status, r.raw)
	}
	// Only admins finalise.
	ce.e().user("setter", store.RoleSetter, "setter-password")
	sc := ce.e().client()
	sc.login("setter", "setter-password")
	if r := sc.call("POST", "/api/contests/c1/finalize", map[string]string{}); r.status != 403 {
		t.Errorf("a setter finalizes: %d %s", r.status, r.raw)
	}
	fc := openFeed(t, ce.ts.URL, "", staff)
	fc.until(hasToken)
	r = ce.admin.call("POST", "/api/contests/c1/finalize", map[string]string{"comment": "Finalized by the jury"})
	if r.status != 200 || r.body["finalized"] != true || r.body["comment"] != "Finalized by the jury" || r.body["finalized_by"] != "root" {
		t.Fatalf("finalize: %d %s", r.status, r.raw)
	}
	evs := fc.until(func(ev map[string]any) bool {
		d, _ := ev["data"].(map[string]any)
		return ev["type"] == "state" && d["finalized"] != nil
	})
	if st := findEvent(evs, "state", ""); st != nil && st["data"].(map[string]any)["end_of_updates"] == nil {
		t.Errorf("no freeze: the end of updates is the finalization: %v", st)
	}
	var state ccs.State
	_, b, _ := ccsGet(t, ce.ts.URL+"/api/ccs", "/contests/c1/state", bearer(ce.publicTok))
	if err := json.Unmarshal(b, &state); err != nil || state.Finalized == nil || state.EndOfUpdates == nil {
		t.Errorf("state after finalizing: %s", b)
	}
	// Published: no more edits, no second finalisation.
	wantErr(t, ce.admin.call("PUT", "/api/contests/c1/awards/silver-medal", map[string]any{"add": []string{}}), 409, CodeConflict, "award")
	wantErr(t, ce.admin.call("DELETE", "/api/contests/c1/awards/team-spirit", nil), 409, CodeConflict, "award")
	wantErr(t, ce.admin.call("POST", "/api/contests/c1/finalize", map[string]string{}), 409, CodeConflict, "contest")
	// The public see the final awards, edits included, with the names.
	r = ce.alice.do("GET", "/api/contests/c1/awards", nil)
	if r.status != 200 || r.body["final"] != true || !strings.Contains(r.raw, `"id":"team-spirit"`) || !strings.Contains(r.raw, `"Silver, by the jury"`) ||
		!strings.Contains(r.raw, `"name":"bob"`) || r.body["edits"] != nil {
		t.Errorf("public awards after finalizing: %d %s", r.status, r.raw)
	}
}

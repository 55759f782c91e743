package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// jury is a judgeEnv with an admin, a setter, students alice and bob,
// an anonymous visitor, and two running contests with a-plus-b as A:
// own-cup (contestants list their own submissions) and all-cup (everyone's
// verdicts).
type jury struct {
	*judgeEnv
	admin, setter, alice, bob, anon *client
	ownID, allID                    int64
	keys                            int
}

func newJury(t *testing.T) *jury {
	se := &jury{judgeEnv: newJudgeEnv(t, func(c *Config) { c.SubmitPerMinute, c.SubmitBurst = 100000, 100000 })}
	if err := se.q.EnsureResultsGroup(context.Background()); err != nil {
		t.Fatal(err)
	}
	se.user("root", store.RoleAdmin, "root-password")
	se.admin = se.client()
	se.admin.login("root", "root-password")
	se.user("setter", store.RoleSetter, "setter-password")
	se.setter = se.client()
	se.setter.login("setter", "setter-password")
	se.alice, se.bob, se.anon = se.student("alice"), se.student("bob"), se.client()
	se.ownID = se.contest("own-cup", "")
	se.allID = se.contest("all-cup", store.StatusAll)
	return se
}

func (se *jury) contest(slug, status string) int64 {
	se.t.Helper()
	body := map[string]any{"slug": slug, "title": slug, "start_at": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339),
		"end_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "problems": []map[string]any{{"label": "A", "slug": "a-plus-b"}}}
	if status != "" {
		body["status_visibility"] = status
	}
	r := se.admin.call("POST", "/api/contests", body)
	if r.status != 201 {
		se.t.Fatalf("create contest: %d %s", r.status, r.raw)
	}
	c := r.body["contest"].(map[string]any)
	want := status
	if want == "" {
		want = store.StatusOwn
	}
	if c["status_visibility"] != want {
		se.t.Fatalf("contest status_visibility %v, want %s", c["status_visibility"], want)
	}
	return int64(c["id"].(float64))
}

// submit submits source as c (in contest, when not empty) and judges it
// with verdict (none: it stays queued).
func (se *jury) submit(c *client, contest, source string, verdict protocol.Verdict) int64 {
	se.t.Helper()
	se.keys++
	body := map[string]any{"problem": "a-plus-b", "language": "py3", "source": source}
	if contest != "" {
		body["contest"] = contest
	}
	r := c.submit(fmt.Sprintf("st-%d", se.keys), body)
	if r.status != 201 {
		se.t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	sid := id(r)
	if verdict != "" {
		se.judge(sid, 1, verdict, 3)
		if se.consume() != 1 {
			se.t.Fatal("result not consumed")
		}
	}
	return sid
}

func listIDs(t *testing.T, r resp) []int64 {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("list: %d %s", r.status, r.raw)
	}
	var out []int64
	for _, row := range r.body["submissions"].([]any) {
		out = append(out, int64(row.(map[string]any)["id"].(float64)))
	}
	return out
}

func liveOf(r resp) string {
	l, ok := r.body["live"].(map[string]any)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%v:%v", l["kind"], l["id"])
}

// TestStatusPageVisibility: staff list every submission with every filter
// and open every source; a student lists their own, practice rows of
// public problems, and a contest's others' rows only when the contest
// lists everyone's verdicts (never the source, never a checker message);
// a hidden contest lists nothing to students. Each answer names the live
// channel that keeps it current.
func TestStatusPageVisibility(t *testing.T) {
	se := newJury(t)
	practice := se.submit(se.alice, "", "PRACTICE-SOURCE", protocol.VerdictAC)
	own := se.submit(se.alice, "own-cup", "OWN-SOURCE", protocol.VerdictWA)
	all := se.submit(se.alice, "all-cup", "ALL-SOURCE", protocol.VerdictWA)
	mine := se.submit(se.bob, "own-cup", "BOB-SOURCE", protocol.VerdictTLE)

	// Staff: everything, newest first, and the sources.
	for _, c := range []*client{se.admin, se.setter} {
		if got := listIDs(t, c.do("GET", "/api/submissions", nil)); !slices.Equal(got, []int64{mine, all, own, practice}) {
			t.Fatalf("staff list %v", got)
		}
		for _, sid := range []int64{practice, own, all} {
			d := c.do("GET", fmt.Sprintf("/api/submissions/%d", sid), nil)
			if d.status != 200 || !strings.Contains(d.raw, `"source":`) {
				t.Fatalf("staff detail %d: %d %s", sid, d.status, d.raw)
			}
		}
	}
	for q, want := range map[string][]int64{
		"user=alice&verdict=WA":                        {all, own},
		"contest=own-cup":                              {mine, own},
		"problem=a-plus-b&language=py3":                {mine, all, own, practice},
		"verdict=AC":                                   {practice},
		"user=bob&contest=all-cup":                     nil,
		"user=nobody":                                  nil,
		"contest=own-cup&limit=1&cursor=" + itoa(mine): {own},
	} {
		if got := listIDs(t, se.admin.do("GET", "/api/submissions?"+q, nil)); !slices.Equal(got, want) {
			t.Errorf("staff ?%s: %v, want %v", q, got, want)
		}
	}
	// Paging: limit 1, the cursor of each page.
	r := se.admin.do("GET", "/api/submissions?limit=3", nil)
	if next, _ := r.body["next_cursor"].(string); next != itoa(own) {
		t.Fatalf("next_cursor %v, want %d", r.body["next_cursor"], own)
	}

	// Bob: his own, alice's practice row and her all-cup row.
	if got := listIDs(t, se.bob.do("GET", "/api/submissions", nil)); !slices.Equal(got, []int64{mine, all, practice}) {
		t.Fatalf("bob's list %v", got)
	}
	if got := listIDs(t, se.bob.do("GET", "/api/submissions?contest=own-cup", nil)); !slices.Equal(got, []int64{mine}) {
		t.Fatalf("bob's own-cup list %v", got)
	}
	wantErr(t, se.bob.do("GET", fmt.Sprintf("/api/submissions/%d", own), nil), 404, CodeNotFound, "")
	for _, sid := range []int64{all, practice} {
		d := se.bob.do("GET", fmt.Sprintf("/api/submissions/%d", sid), nil)
		if d.status != 200 || strings.Contains(d.raw, "SOURCE") || strings.Contains(d.raw, `"source"`) {
			t.Fatalf("bob's view of %d: %d %s", sid, d.status, d.raw)
		}
		if sub := d.body["submission"].(map[string]any); sub["verdict"] == "" || sub["overrides"] != nil {
			t.Fatalf("bob's view of %d: %s", sid, d.raw)
		}
	}
	// Anonymous: the public rows (practice of a public problem, a contest
	// that lists everyone's verdicts), no live channel.
	ar := se.anon.do("GET", "/api/submissions", nil)
	if got := listIDs(t, ar); !slices.Equal(got, []int64{all, practice}) || liveOf(ar) != "" {
		t.Fatalf("anonymous list %v live %q: %s", got, liveOf(ar), ar.raw)
	}

	// The live channel of each list.
	for _, tc := range []struct {
		c    *client
		q    string
		want string
	}{
		{se.admin, "", "status:0"},
		{se.setter, "contest=own-cup", fmt.Sprintf("status:%d", se.ownID)},
		{se.bob, "contest=all-cup", fmt.Sprintf("status:%d", se.allID)},
		{se.bob, "contest=own-cup", "user:" + fmt.Sprint(myID(t, se.bob))},
		// The site's: the hub forwards a student the submissions everyone
		// may list (their own others come on their user channel).
		{se.bob, "", "status:0"},
		{se.bob, "mine=1", "user:" + fmt.Sprint(myID(t, se.bob))},
	} {
		if got := liveOf(tc.c.do("GET", "/api/submissions?"+tc.q, nil)); got != tc.want {
			t.Errorf("live of ?%s: %q, want %q", tc.q, got, tc.want)
		}
	}

	// Bad filters name the field.
	for q, field := range map[string]string{"verdict=XX": "verdict", "language=B%20A": "language", "cursor=0": "cursor",
		"limit=0": "limit", "limit=101": "limit", "mine=2": "mine", "status=1": "status"} {
		wantErr(t, se.admin.do("GET", "/api/submissions?"+q, nil), 400, CodeValidation, field)
	}
	wantErr(t, se.anon.do("GET", "/api/submissions?mine=1", nil), 401, CodeUnauthorized, "")

	// all-cup hidden: students list none of its rows, and cannot open them.
	if r := se.admin.call("PUT", "/api/contests/all-cup", map[string]any{"visible": false}); r.status != 200 {
		t.Fatalf("hide: %d %s", r.status, r.raw)
	}
	if got := listIDs(t, se.bob.do("GET", "/api/submissions", nil)); !slices.Equal(got, []int64{mine, practice}) {
		t.Fatalf("bob's list with all-cup hidden %v", got)
	}
	wantErr(t, se.bob.do("GET", fmt.Sprintf("/api/submissions/%d", all), nil), 404, CodeNotFound, "")
	if got := listIDs(t, se.alice.do("GET", "/api/submissions?mine=1", nil)); !slices.Contains(got, all) {
		t.Fatalf("alice lost her own hidden-contest row: %v", got)
	}
}

func myID(t *testing.T, c *client) int64 {
	t.Helper()
	r := c.do("GET", "/api/me", nil)
	u, _ := r.body["user"].(map[string]any)
	f, _ := u["id"].(float64)
	if f == 0 {
		t.Fatalf("me: %s", r.raw)
	}
	return int64(f)
}

// TestStatusLiveEvents: a new submission and each status change reach the
// site's status channel and the contest's, with the rule the hub filters
// by (status_public only for a contest that lists everyone's verdicts).
func TestStatusLiveEvents(t *testing.T) {
	se := newJury(t)
	ctx := context.Background()
	ps := se.rdb.Subscribe(ctx, se.names.Events("status", 0), se.names.Events("status", se.allID), se.names.Events("status", se.ownID))
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	a := se.submit(se.alice, "all-cup", "x", "")
	se.judge(a, 1, protocol.VerdictWA, 3)
	se.consume()
	o := se.submit(se.alice, "own-cup", "y", "")
	type ev struct {
		Channel  protocol.Channel         `json:"channel"`
		Seq      uint64                   `json:"seq"`
		Kind     string                   `json:"kind"`
		Body     protocol.SubmissionState `json:"body"`
		Feedback protocol.Feedback        `json:"feedback"`
	}
	got := map[string][]ev{}
	deadline := time.After(5 * time.Second)
	for len(got["status:0"]) < 2 || len(got[fmt.Sprintf("status:%d", se.allID)]) < 1 || len(got[fmt.Sprintf("status:%d", se.ownID)]) < 1 {
		select {
		case m := <-ps.Channel():
			var e ev
			if err := json.Unmarshal([]byte(m.Payload), &e); err != nil {
				t.Fatalf("%s: %v", m.Payload, err)
			}
			got[e.Channel.String()] = append(got[e.Channel.String()], e)
		case <-deadline:
			t.Fatalf("status events so far: %+v", got)
		}
	}
	for _, e := range got[fmt.Sprintf("status:%d", se.allID)] {
		if e.Body.SubmissionID != a || !e.Feedback.StatusPublic || e.Kind != "status" {
			t.Fatalf("all-cup event %+v", e)
		}
	}
	if e := got[fmt.Sprintf("status:%d", se.allID)]; e[0].Body.Status != protocol.VerdictQueued {
		t.Fatalf("all-cup events %+v", e)
	}
	// A verdict (the hub publishes a judge's; here the jury's override)
	// follows on the same channels.
	if r := se.admin.call("POST", fmt.Sprintf("/api/submissions/%d/override", a), map[string]any{"verdict": "AC", "reason": "checker bug"}); r.status != 200 {
		t.Fatalf("override: %d %s", r.status, r.raw)
	}
	select {
	case m := <-ps.Channel():
		var e ev
		if err := json.Unmarshal([]byte(m.Payload), &e); err != nil || e.Body.SubmissionID != a || e.Body.Status != protocol.VerdictAC || e.Body.Score != 100 {
			t.Fatalf("after the override: %s (%v)", m.Payload, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no status event after the override")
	}
	if e := got[fmt.Sprintf("status:%d", se.ownID)][0]; e.Body.SubmissionID != o || e.Feedback.StatusPublic {
		t.Fatalf("own-cup event %+v", e)
	}
}

// TestStatusRejudgeSelection: staff rejudge what a status page filter
// selects, in the background (202); everything else keeps its attempt.
func TestStatusRejudgeSelection(t *testing.T) {
	se := newJury(t)
	ctx := context.Background()
	wa1 := se.submit(se.alice, "all-cup", "a", protocol.VerdictWA)
	wa2 := se.submit(se.bob, "all-cup", "b", protocol.VerdictWA)
	ac := se.submit(se.bob, "all-cup", "c", protocol.VerdictAC)
	other := se.submit(se.alice, "", "d", protocol.VerdictWA)
	r := se.setter.call("POST", "/api/rejudge", map[string]any{"contest": "all-cup", "problem": "a-plus-b", "verdict": "WA"})
	if r.status != http.StatusAccepted || r.body["queued"] != float64(2) {
		t.Fatalf("rejudge selection: %d %s", r.status, r.raw)
	}
	se.srv.Judging().WaitJobs()
	for sid, want := range map[int64]int{wa1: 2, wa2: 2, ac: 1, other: 1} {
		s, err := se.st.SubmissionByID(ctx, sid)
		if err != nil || s.Attempt != want {
			t.Fatalf("submission %d: attempt %d, want %d (%v)", sid, s.Attempt, want, err)
		}
	}
	// Failures name the field.
	wantErr(t, se.admin.call("POST", "/api/rejudge", map[string]any{}), 400, CodeValidation, "submission_id")
	wantErr(t, se.admin.call("POST", "/api/rejudge", map[string]any{"submission_id": wa1, "verdict": "WA"}), 400, CodeValidation, "submission_id")
	wantErr(t, se.admin.call("POST", "/api/rejudge", map[string]any{"verdict": "XX"}), 400, CodeValidation, "verdict")
	wantErr(t, se.admin.call("POST", "/api/rejudge", map[string]any{"language": "B A D"}), 400, CodeValidation, "language")
	wantErr(t, se.admin.call("POST", "/api/rejudge", map[string]any{"user": "nobody"}), 404, CodeNotFound, "user")
	wantErr(t, se.admin.call("POST", "/api/rejudge", map[string]any{"contest": "nope"}), 404, CodeNotFound, "contest")
	wantErr(t, se.admin.call("POST", "/api/rejudge", map[string]any{"verdict": 5}), 400, CodeValidation, "verdict")
	wantErr(t, se.bob.call("POST", "/api/rejudge", map[string]any{"verdict": "WA"}), 403, CodeForbidden, "")
	wantErr(t, se.anon.do("POST", "/api/rejudge", map[string]any{"verdict": "WA"}), 401, CodeUnauthorized, "")
}

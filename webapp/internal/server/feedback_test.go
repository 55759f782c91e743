package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/feedback"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

const (
	fbSample   = "SAMPLE-CHECKER-MESSAGE"
	fbHidden   = "line 1: token 1: expected -907715662, found 0"
	fbCompile  = "warning: COMPILER-OUTPUT"
	fbSEDetail = "sandbox: cgroup mkdir failed: EACCES"
)

// fbEnv is a judgeEnv with a problem whose case 1 is a sample and cases 2
// and 3 are hidden, an admin, and students alice (the author) and bob.
type fbEnv struct {
	*judgeEnv
	clock             time.Time
	admin, alice, bob *client
	anon              *client
	keys              int
}

func newFBEnv(t *testing.T) *fbEnv {
	fe := &fbEnv{clock: time.Now()}
	fe.judgeEnv = newJudgeEnv(t, func(c *Config) { c.Now = func() time.Time { return fe.clock } })
	ctx := context.Background()
	if err := fe.q.EnsureResultsGroup(ctx); err != nil {
		t.Fatal(err)
	}
	id, err := fe.st.CreateProblem(ctx, store.Problem{Slug: "secret-sum", Title: "Secret sum", Statement: "…",
		TimeLimitMs: 1000, MemoryLimitKB: 262144, Checker: store.CheckerDefault, Mode: store.ModeICPC,
		Visibility: store.VisibilityPublic, Languages: store.Languages{}})
	if err != nil {
		t.Fatal(err)
	}
	cs := []testpkg.Case{{In: []byte("1 2\n"), Ans: []byte("3\n")}, {In: []byte("7 7\n"), Ans: []byte("-907715662\n")}, {In: []byte("0 0\n"), Ans: []byte("0\n")}}
	zip, m, err := testpkg.Package{Cases: cs, Samples: []int{1}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	hash, err := fe.blobs.PutBytes(ctx, zip)
	if err != nil {
		t.Fatal(err)
	}
	mj, _ := json.Marshal(m)
	if err := fe.st.AddTestdataVersion(ctx, store.TestdataVersion{ProblemID: id, Hash: hash, SizeBytes: int64(len(zip)),
		CaseCount: 3, Manifest: mj}); err != nil {
		t.Fatal(err)
	}
	fe.user("root", store.RoleAdmin, "root-password")
	fe.admin = fe.client()
	if r := fe.admin.login("root", "root-password"); r.status != 200 {
		t.Fatalf("admin login: %d %s", r.status, r.raw)
	}
	fe.alice, fe.bob, fe.anon = fe.student("alice"), fe.student("bob"), fe.client()
	return fe
}

// submit submits to the problem (in contest, when not empty) as alice.
func (fe *fbEnv) submit(contest string) int64 {
	fe.t.Helper()
	fe.keys++
	body := map[string]any{"problem": "secret-sum", "language": "py3", "source": "print(0)"}
	if contest != "" {
		body["contest"] = contest
	}
	r := fe.alice.submit(fmt.Sprintf("fb-%d", fe.keys), body)
	if r.status != 201 {
		fe.t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	return id(r)
}

// judgeWA completes a submission as a judge would: the sample passes with
// a message, hidden case 2 fails with the checker's message (the hidden
// answer), case 3 skipped; or a system error with the judge's detail.
func (fe *fbEnv) judgeWA(id int64, se bool) {
	fe.t.Helper()
	ctx := context.Background()
	ref := protocol.TaskRef{SubmissionID: id, Attempt: 1}
	if _, err := fe.q.Lease(ctx, ref, "judge-1", time.Minute); err != nil {
		fe.t.Fatalf("lease %v: %v", ref, err)
	}
	res := protocol.Result{TaskRef: ref, Verdict: protocol.VerdictWA, JudgeID: "judge-1", Score: 0, CompileMessage: fbCompile,
		Cases: []protocol.CaseResult{
			{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 10, WallMs: 12, MemoryKiB: 1000, Message: fbSample},
			{Case: 2, Verdict: protocol.VerdictWA, CPUMs: 20, WallMs: 24, MemoryKiB: 1001, Message: fbHidden},
			{Case: 3, Verdict: protocol.VerdictSkipped},
		}}
	if se {
		res.Verdict, res.CompileMessage, res.Cases = protocol.VerdictSE, fbSEDetail, nil
	}
	if _, err := fe.q.Complete(ctx, "judge-1", res); err != nil {
		fe.t.Fatalf("complete %v: %v", ref, err)
	}
	if fe.consume() != 1 {
		fe.t.Fatal("result not consumed")
	}
}

// contest creates a running contest through the admin API with the given
// policies, the problem as A.
func (fe *fbEnv) contest(slug, policy, after string) {
	fe.t.Helper()
	body := map[string]any{"slug": slug, "title": slug, "start_at": fe.clock.Add(-time.Hour).UTC().Format(time.RFC3339),
		"end_at": fe.clock.Add(time.Hour).UTC().Format(time.RFC3339), "feedback": policy,
		"problems": []map[string]any{{"label": "A", "slug": "secret-sum"}}}
	if after != "" {
		body["feedback_after"] = after
	}
	r := fe.admin.call("POST", "/api/contests", body)
	if r.status != 201 {
		fe.t.Fatalf("create contest: %d %s", r.status, r.raw)
	}
	c := r.body["contest"].(map[string]any)
	if c["feedback"] != policy {
		fe.t.Fatalf("contest feedback %v, want %s", c["feedback"], policy)
	}
}

// seen is everything one viewer got on one path.
type seen struct {
	viewer feedback.Viewer
	path   string
	status int
	raw    string
}

// views fetches what each viewer gets of submission sid on the REST paths
// (the submission, the lists) and, for a contest, the scoreboard (JSON)
// and its CSV export.
func (fe *fbEnv) views(sid int64, contest string) []seen {
	fe.t.Helper()
	clients := map[feedback.Viewer]*client{feedback.Staff: fe.admin, feedback.Owner: fe.alice, feedback.Other: fe.bob, feedback.Anonymous: fe.anon}
	paths := []string{fmt.Sprintf("/api/submissions/%d", sid), "/api/submissions", "/api/submissions?problem=secret-sum"}
	if contest != "" {
		paths = append(paths, "/api/submissions?contest="+contest, "/api/contests/"+contest+"/scoreboard",
			"/api/contests/"+contest+"/scoreboard.csv")
	}
	var out []seen
	for v, c := range clients {
		for _, p := range paths {
			r := c.do("GET", p, nil)
			out = append(out, seen{viewer: v, path: p, status: r.status, raw: r.raw})
		}
	}
	return out
}

// noLeak fails when a non-staff viewer got a hidden message, or a viewer
// other than the owner a message or the compiler output, on any path.
func noLeak(t *testing.T, policy string, all []seen) {
	t.Helper()
	for _, s := range all {
		if s.viewer == feedback.Staff {
			continue
		}
		for _, bad := range []string{fbHidden, fbSEDetail, "-907715662"} {
			if strings.Contains(s.raw, bad) {
				t.Errorf("%s: %s on %s got %q: %s", policy, s.viewer, s.path, bad, s.raw)
			}
		}
		if s.viewer != feedback.Owner && (strings.Contains(s.raw, fbSample) || strings.Contains(s.raw, fbCompile)) {
			t.Errorf("%s: %s on %s got the owner's messages: %s", policy, s.viewer, s.path, s.raw)
		}
	}
}

func find(all []seen, v feedback.Viewer, path string) seen {
	for _, s := range all {
		if s.viewer == v && s.path == path {
			return s
		}
	}
	return seen{}
}

func detail(t *testing.T, s seen) map[string]any {
	t.Helper()
	var b struct {
		Submission map[string]any `json:"submission"`
	}
	if s.status != 200 || json.Unmarshal([]byte(s.raw), &b) != nil {
		t.Fatalf("%s %s: %d %s", s.viewer, s.path, s.status, s.raw)
	}
	return b.Submission
}

// TestFeedbackPolicies: each feedback policy × viewer (staff, the owner,
// another student, anonymous) × REST path (the submission, the lists, the
// scoreboard JSON, the CSV): hidden checker messages reach staff only, and
// each policy shows the owner what it says. The live paths (WebSocket
// events and snapshots) are censored by the hub with the same function
// and the rule checked here to be kept with the live state; see the hub's
// TestFeedbackLive.
func TestFeedbackPolicies(t *testing.T) {
	fe := newFBEnv(t)
	ctx := context.Background()
	cases := func(sub map[string]any) []map[string]any {
		var out []map[string]any
		for _, c := range sub["cases"].([]any) {
			out = append(out, c.(map[string]any))
		}
		return out
	}
	for _, policy := range []string{"full", "first_failure", "score_only", "closed"} {
		t.Run(policy, func(t *testing.T) {
			slug := "c-" + strings.ReplaceAll(policy, "_", "-")
			fe.contest(slug, policy, "score_only")
			sid := fe.submit(slug)
			// The rule goes to the hub with the live state.
			snap, err := fe.q.Submission(ctx, sid)
			if err != nil || snap.Feedback == nil || string(snap.Feedback.Policy) != policy || len(snap.Feedback.Samples) != 1 ||
				snap.Feedback.Samples[0] != 1 || (policy == "closed" && snap.Feedback.EndsAtMs != fe.clock.Add(time.Hour).Truncate(time.Second).UnixMilli()) {
				t.Fatalf("live state rule %+v, %v", snap.Feedback, err)
			}
			fe.judgeWA(sid, false)
			all := fe.views(sid, slug)
			noLeak(t, policy, all)
			path := fmt.Sprintf("/api/submissions/%d", sid)
			staff := detail(t, find(all, feedback.Staff, path))
			if !strings.Contains(find(all, feedback.Staff, path).raw, fbHidden) || staff["compile_message"] != fbCompile || staff["feedback"] != nil {
				t.Errorf("staff does not see everything: %s", find(all, feedback.Staff, path).raw)
			}
			for _, v := range []feedback.Viewer{feedback.Other, feedback.Anonymous} {
				if s := find(all, v, path); s.status != 404 {
					t.Errorf("%s reads a contest submission: %d %s", v, s.status, s.raw)
				}
			}
			if s := find(all, feedback.Staff, "/api/contests/"+slug+"/scoreboard.csv"); s.status != 200 {
				t.Errorf("staff CSV: %d", s.status)
			}
			for _, v := range []feedback.Viewer{feedback.Owner, feedback.Other, feedback.Anonymous} {
				if s := find(all, v, "/api/contests/"+slug+"/scoreboard.csv"); s.status != 401 && s.status != 403 {
					t.Errorf("%s downloads the CSV: %d", v, s.status)
				}
			}
			own := detail(t, find(all, feedback.Owner, path))
			board := find(all, feedback.Owner, "/api/contests/"+slug+"/scoreboard").raw
			switch policy {
			case "full":
				cs := cases(own)
				if len(cs) != 3 || cs[0]["message"] != fbSample || cs[1]["message"] != nil || cs[1]["time_ms"] != float64(20) ||
					own["verdict"] != "WA" || own["compile_message"] != fbCompile {
					t.Errorf("full: %s", find(all, feedback.Owner, path).raw)
				}
			case "first_failure":
				cs := cases(own)
				if own["verdict"] != "WA" || own["first_failure"] != float64(2) || len(cs) != 2 || cs[1]["verdict"] != "WA" ||
					cs[1]["time_ms"] != float64(0) || strings.Contains(find(all, feedback.Owner, path).raw, fbSample) {
					t.Errorf("first_failure: %s", find(all, feedback.Owner, path).raw)
				}
			case "score_only":
				cs := cases(own)
				if own["verdict"] != "WA" || len(cs) != 3 || cs[0]["message"] != nil {
					t.Errorf("score_only: %s", find(all, feedback.Owner, path).raw)
				}
			case "closed":
				if own["verdict"] != "pending" || own["status"] != "pending" || own["feedback"] != "closed" || len(cases(own)) != 0 ||
					own["time_ms"] != nil || own["compile_message"] != nil {
					t.Errorf("closed: %s", find(all, feedback.Owner, path).raw)
				}
				for _, v := range []feedback.Viewer{feedback.Owner, feedback.Other} {
					if s := find(all, v, "/api/submissions?contest="+slug); strings.Contains(s.raw, `"WA"`) {
						t.Errorf("closed: %s's list shows the verdict: %s", v, s.raw)
					}
					if s := find(all, v, "/api/contests/"+slug+"/scoreboard"); strings.Contains(s.raw, `"rejected"`) &&
						!strings.Contains(s.raw, `"frozen":true`) {
						t.Errorf("closed: %s's scoreboard is not hidden: %s", v, s.raw)
					}
				}
				if !strings.Contains(board, `"frozen":true`) || !strings.Contains(board, `"pending":1`) {
					t.Errorf("closed: the public board shows results: %s", board)
				}
				if s := find(all, feedback.Staff, "/api/contests/"+slug+"/scoreboard"); strings.Contains(s.raw, `"pending":1`) {
					t.Errorf("closed: staff's board hides results: %s", s.raw)
				}
				// After the end: the after-policy (score_only), and the board.
				fe.clock = fe.clock.Add(2 * time.Hour)
				after := fe.views(sid, slug)
				noLeak(t, policy+" ended", after)
				own := detail(t, find(after, feedback.Owner, path))
				if own["verdict"] != "WA" || own["feedback"] != "score_only" || len(cases(own)) != 3 {
					t.Errorf("closed after the end: %s", find(after, feedback.Owner, path).raw)
				}
				if b := find(after, feedback.Other, "/api/contests/"+slug+"/scoreboard").raw; strings.Contains(b, `"frozen":true`) {
					t.Errorf("closed after the end: the board still hides: %s", b)
				}
				fe.clock = fe.clock.Add(-2 * time.Hour)
			}
		})
	}

	// Practice: the problem's default policy; anyone may read a practice
	// submission of a public problem, nobody but staff its hidden messages.
	for _, policy := range []string{"full", "first_failure", "score_only"} {
		t.Run("practice_"+policy, func(t *testing.T) {
			if r := fe.admin.call("PUT", "/api/problems/secret-sum", map[string]any{"feedback": policy}); r.status != 200 ||
				!strings.Contains(r.raw, `"feedback":"`+policy+`"`) {
				t.Fatalf("set the problem's policy: %d %s", r.status, r.raw)
			}
			sid := fe.submit("")
			fe.judgeWA(sid, false)
			all := fe.views(sid, "")
			noLeak(t, "practice "+policy, all)
			path := fmt.Sprintf("/api/submissions/%d", sid)
			for _, v := range []feedback.Viewer{feedback.Other, feedback.Anonymous} {
				s := detail(t, find(all, v, path))
				if s["verdict"] != "WA" || s["feedback"] != policy || s["compile_message"] != nil {
					t.Errorf("%s: %s", v, find(all, v, path).raw)
				}
			}
			if !strings.Contains(find(all, feedback.Staff, path).raw, fbHidden) {
				t.Errorf("staff: %s", find(all, feedback.Staff, path).raw)
			}
			if own := find(all, feedback.Owner, path).raw; (policy == "full") != strings.Contains(own, fbSample) {
				t.Errorf("owner, sample message under %s: %s", policy, own)
			}
		})
	}

	// A system error: the owner reads a generic message, staff the detail.
	t.Run("system_error", func(t *testing.T) {
		sid := fe.submit("")
		fe.judgeWA(sid, true)
		all := fe.views(sid, "")
		noLeak(t, "system error", all)
		path := fmt.Sprintf("/api/submissions/%d", sid)
		if own := detail(t, find(all, feedback.Owner, path)); own["verdict"] != "SE" || own["compile_message"] != feedback.GenericSystemError {
			t.Errorf("owner: %s", find(all, feedback.Owner, path).raw)
		}
		if !strings.Contains(find(all, feedback.Staff, path).raw, fbSEDetail) {
			t.Errorf("staff: %s", find(all, feedback.Staff, path).raw)
		}
	})

	// A compile error is shown to its owner, even in a closed contest.
	t.Run("compile_error_closed", func(t *testing.T) {
		fe.contest("c-closed-ce", "closed", "")
		sid := fe.submit("c-closed-ce")
		ref := protocol.TaskRef{SubmissionID: sid, Attempt: 1}
		if _, err := fe.q.Lease(ctx, ref, "judge-1", time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, err := fe.q.Complete(ctx, "judge-1", protocol.Result{TaskRef: ref, Verdict: protocol.VerdictCE, JudgeID: "judge-1",
			CompileMessage: "main.py:1: SyntaxError"}); err != nil {
			t.Fatal(err)
		}
		fe.consume()
		d := fe.alice.do("GET", fmt.Sprintf("/api/submissions/%d", sid), nil)
		if s := d.body["submission"].(map[string]any); s["verdict"] != "CE" || s["compile_message"] != "main.py:1: SyntaxError" {
			t.Errorf("owner's compile error: %s", d.raw)
		}
	})
}

// TestFeedbackFieldsValidated: the admin API refuses a bad policy and
// names the field.
func TestFeedbackFieldsValidated(t *testing.T) {
	fe := newFBEnv(t)
	base := func() map[string]any {
		return map[string]any{"slug": "v1", "title": "V", "start_at": "2030-01-01T10:00:00Z", "end_at": "2030-01-01T12:00:00Z"}
	}
	b := base()
	b["feedback"] = "everything"
	wantErr(t, fe.admin.call("POST", "/api/contests", b), 400, CodeValidation, "feedback")
	b = base()
	b["feedback"], b["feedback_after"] = "closed", "closed"
	wantErr(t, fe.admin.call("POST", "/api/contests", b), 400, CodeValidation, "feedback_after")
	b = base()
	r := fe.admin.call("POST", "/api/contests", b)
	if r.status != 201 || !strings.Contains(r.raw, `"feedback":"full"`) || !strings.Contains(r.raw, `"feedback_after":"full"`) {
		t.Fatalf("defaults: %d %s", r.status, r.raw)
	}
	if r := fe.admin.call("PUT", "/api/contests/v1", map[string]any{"feedback": "first_failure"}); r.status != 200 ||
		!strings.Contains(r.raw, `"feedback":"first_failure"`) {
		t.Fatalf("update: %d %s", r.status, r.raw)
	}
	wantErr(t, fe.admin.call("PUT", "/api/problems/secret-sum", map[string]any{"feedback": "closed"}), 400, CodeValidation, "feedback")
	wantErr(t, fe.admin.call("PUT", "/api/problems/secret-sum", map[string]any{"feedback": 3}), 400, CodeValidation, "feedback")
}

// TestFeedbackRuleFollowsContestChanges: a change of a contest's policy or
// end rewrites the rule the hub keeps with each live state, so the live
// channels follow it (an extended closed contest stays hidden live).
func TestFeedbackRuleFollowsContestChanges(t *testing.T) {
	fe := newFBEnv(t)
	ctx := context.Background()
	fe.contest("c-change", "closed", "full")
	sid := fe.submit("c-change")
	later := fe.clock.Add(3 * time.Hour).UTC().Truncate(time.Second)
	if r := fe.admin.call("PUT", "/api/contests/c-change", map[string]any{"end_at": later.Format(time.RFC3339), "feedback_after": "score_only"}); r.status != 200 {
		t.Fatalf("update: %d %s", r.status, r.raw)
	}
	snap, err := fe.q.Submission(ctx, sid)
	if err != nil || snap.Feedback == nil || snap.Feedback.EndsAtMs != later.UnixMilli() || snap.Feedback.After != protocol.FeedbackScoreOnly ||
		len(snap.Feedback.Samples) != 1 {
		t.Fatalf("live rule after the change %+v, %v", snap.Feedback, err)
	}
	if r := fe.admin.call("PUT", "/api/contests/c-change", map[string]any{"feedback": "first_failure"}); r.status != 200 {
		t.Fatalf("update: %d %s", r.status, r.raw)
	}
	if snap, _ := fe.q.Submission(ctx, sid); snap.Feedback == nil || snap.Feedback.Policy != protocol.FeedbackFirstFailure || snap.Feedback.EndsAtMs != 0 {
		t.Fatalf("live rule after the policy change %+v", snap.Feedback)
	}
}

package hub_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/feedback"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testenv"
)

const (
	liveSample   = "SAMPLE-CHECKER-MESSAGE"
	liveHidden   = "line 1: token 1: expected -907715662, found 0"
	liveSEDetail = "sandbox: cgroup mkdir failed: EACCES"
)

// liveCase is one policy of TestFeedbackLive.
type liveCase struct {
	name string
	fb   protocol.Feedback
	// check looks at everything the owner received, decoded.
	check func(t *testing.T, states []protocol.SubmissionState)
}

// TestFeedbackLive: for each feedback policy, what the owner, staff,
// another student and an anonymous visitor receive on the live channels
// (the snapshot on subscribe, every event, on the submission and the
// user channel). Hidden checker messages and system error details reach
// staff only.
func TestFeedbackLive(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	addSession(t, env, "owner", 7, "student")
	addSession(t, env, "other", 8, "student")
	addSession(t, env, "admin", 9, "admin")
	future := time.Now().Add(time.Hour).UnixMilli()
	past := time.Now().Add(-time.Minute).UnixMilli()
	anyCase := func(states []protocol.SubmissionState, f func(protocol.CaseResult) bool) bool {
		for _, s := range states {
			for _, c := range s.Cases {
				if f(c) {
					return true
				}
			}
		}
		return false
	}
	final := func(states []protocol.SubmissionState) protocol.SubmissionState {
		return states[len(states)-1]
	}
	cases := []liveCase{
		{"full", protocol.Feedback{Policy: protocol.FeedbackFull, Samples: []int{1}}, func(t *testing.T, s []protocol.SubmissionState) {
			if !anyCase(s, func(c protocol.CaseResult) bool { return c.Message == liveSample }) {
				t.Error("the sample case's message is missing")
			}
			if !anyCase(s, func(c protocol.CaseResult) bool { return c.Case == 2 && c.CPUMs == 20 }) {
				t.Error("the hidden case's verdict and time are missing")
			}
			if f := final(s); f.Status != protocol.VerdictWA || f.Feedback != protocol.FeedbackFull {
				t.Errorf("final %+v", f)
			}
		}},
		{"first_failure", protocol.Feedback{Policy: protocol.FeedbackFirstFailure, Samples: []int{1}}, func(t *testing.T, s []protocol.SubmissionState) {
			if anyCase(s, func(c protocol.CaseResult) bool { return c.Message != "" || c.CPUMs != 0 || c.Case > 2 }) {
				t.Error("first_failure shows messages, times or cases after the first failure")
			}
			if !anyCase(s, func(c protocol.CaseResult) bool { return c.Case == 2 && c.Verdict == protocol.VerdictWA }) {
				t.Error("the first failing case is missing")
			}
		}},
		{"score_only", protocol.Feedback{Policy: protocol.FeedbackScoreOnly, Samples: []int{1}}, func(t *testing.T, s []protocol.SubmissionState) {
			if anyCase(s, func(c protocol.CaseResult) bool { return c.Message != "" }) {
				t.Error("score_only shows a message")
			}
			if f := final(s); f.Score != 40 {
				t.Errorf("final %+v", f)
			}
		}},
		{"closed_running", protocol.Feedback{Policy: protocol.FeedbackClosed, After: protocol.FeedbackFull, EndsAtMs: future, Samples: []int{1}},
			func(t *testing.T, s []protocol.SubmissionState) {
				for _, st := range s {
					if len(st.Cases) > 0 || st.Score != 0 || (st.Status != protocol.VerdictPending) || st.Feedback != protocol.FeedbackClosed {
						t.Errorf("closed before the end shows %+v", st)
					}
				}
			}},
		{"closed_ended", protocol.Feedback{Policy: protocol.FeedbackClosed, After: protocol.FeedbackScoreOnly, EndsAtMs: past, Samples: []int{1}},
			func(t *testing.T, s []protocol.SubmissionState) {
				if f := final(s); f.Status != protocol.VerdictWA || f.Feedback != protocol.FeedbackScoreOnly {
					t.Errorf("closed after the end: final %+v", f)
				}
				if anyCase(s, func(c protocol.CaseResult) bool { return c.Message != "" }) {
					t.Error("after-policy score_only shows a message")
				}
			}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := int64(100 + i)
			task := newTask(id, 1, 7)
			task.Feedback = &tc.fb
			enqueue(t, q, task)
			sub := protocol.Channel{Kind: protocol.ChannelSubmission, ID: id}
			user := protocol.Channel{Kind: protocol.ChannelUser, ID: 7}
			dial := func(cookie string) *browser {
				b, err := dialBrowser(t, th.url("/ws"), cookie)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			owner, admin := dial("owner"), dial("admin")
			for _, b := range []*browser{owner, admin} {
				b.subscribe("s", sub)
				b.expect(protocol.TypeSnapshot)
				b.subscribe("u", user)
				b.expect(protocol.TypeSnapshot)
			}
			// Another student and an anonymous visitor get nothing.
			other := dial("other")
			for _, ch := range []protocol.Channel{sub, user} {
				other.subscribe("x", ch)
				if e := other.expect(protocol.TypeError); decode[protocol.Error](t, e).Code != protocol.ErrorForbidden {
					t.Fatalf("other student on %s: %s", ch, e.Data)
				}
			}
			// A visitor's socket opens (public scoreboards) but gets
			// no submission's channel.
			anon := dial("")
			for _, ch := range []protocol.Channel{sub, user} {
				anon.subscribe("x", ch)
				if e := anon.expect(protocol.TypeError); decode[protocol.Error](t, e).Code != protocol.ErrorForbidden {
					t.Fatalf("visitor on %s: %s", ch, e.Data)
				}
			}

			// The judge's progress and result, as the hub publishes them.
			ctx := context.Background()
			for _, u := range []queue.SubmissionUpdate{
				{Status: protocol.VerdictJudging, Cases: []protocol.CaseResult{{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 10, Score: 40, Message: liveSample}}},
				{Status: protocol.VerdictJudging, Cases: []protocol.CaseResult{{Case: 2, Verdict: protocol.VerdictWA, CPUMs: 20, Message: liveHidden}}},
				{Status: protocol.VerdictWA, Score: 40, CompileMessage: "warning: unused x", Cases: []protocol.CaseResult{
					{Case: 3, Verdict: protocol.VerdictSkipped}}},
			} {
				u.SubmissionID, u.Attempt, u.Guard = id, 1, queue.GuardNone
				if _, err := q.PublishSubmission(ctx, u); err != nil {
					t.Fatal(err)
				}
			}
			ownerStates, ownerRaw := collect(t, owner, id, protocol.VerdictWA, tc.fb)
			if _, raw := collect(t, admin, id, protocol.VerdictWA, protocol.Feedback{}); !strings.Contains(raw, liveHidden) ||
				!strings.Contains(raw, "warning: unused x") {
				t.Errorf("staff did not get everything: %s", raw)
			}
			// Resubscribing: the snapshots.
			for _, ch := range []protocol.Channel{sub, user} {
				owner.subscribe("again", ch)
				e := owner.expect(protocol.TypeSnapshot)
				ownerRaw += string(e.Data)
				snap := decode[protocol.Snapshot](t, e)
				if ch == sub {
					var st protocol.SubmissionState
					if err := json.Unmarshal(snap.State, &st); err != nil {
						t.Fatal(err)
					}
					ownerStates = append(ownerStates, st)
				} else {
					// The user channel's snapshot, each item by its own rule.
					var us protocol.UserState
					if err := json.Unmarshal(snap.State, &us); err != nil {
						t.Fatal(err)
					}
					want := protocol.VerdictWA
					if tc.name == "closed_running" {
						want = protocol.VerdictPending
					}
					if len(us.Items) == 0 || us.Items[0].SubmissionID != id || us.Items[0].Status != want || us.Items[0].CompileMessage != "" && want == protocol.VerdictPending {
						t.Errorf("owner's user snapshot %s, want %d %s first", snap.State, id, want)
					}
				}
				admin.subscribe("again", ch)
				if e := admin.expect(protocol.TypeSnapshot); ch == sub && !strings.Contains(string(e.Data), liveHidden) {
					t.Errorf("staff snapshot lacks the hidden message: %s", e.Data)
				}
			}
			if strings.Contains(ownerRaw, liveHidden) {
				t.Fatalf("the owner received a hidden case's checker message: %s", ownerRaw)
			}
			if tc.fb.Policy != protocol.FeedbackFull && strings.Contains(ownerRaw, liveSample) {
				t.Errorf("the owner received the sample message under %s", tc.name)
			}
			tc.check(t, ownerStates)
		})
	}

	// A system error: the owner reads the generic message, staff the detail.
	t.Run("system_error", func(t *testing.T) {
		task := newTask(200, 1, 7)
		enqueue(t, q, task)
		owner, _ := dialBrowser(t, th.url("/ws"), "owner")
		admin, _ := dialBrowser(t, th.url("/ws"), "admin")
		ch := protocol.Channel{Kind: protocol.ChannelSubmission, ID: 200}
		for _, b := range []*browser{owner, admin} {
			b.subscribe("s", ch)
			b.expect(protocol.TypeSnapshot)
		}
		if _, err := q.PublishSubmission(context.Background(), queue.SubmissionUpdate{SubmissionID: 200, Attempt: 1,
			Status: protocol.VerdictSE, CompileMessage: liveSEDetail, Guard: queue.GuardNone}); err != nil {
			t.Fatal(err)
		}
		states, raw := collect(t, owner, 200, protocol.VerdictSE, *task.Feedback)
		if strings.Contains(raw, liveSEDetail) || states[len(states)-1].CompileMessage != feedback.GenericSystemError {
			t.Fatalf("owner's system error: %s", raw)
		}
		if _, raw := collect(t, admin, 200, protocol.VerdictSE, protocol.Feedback{}); !strings.Contains(raw, liveSEDetail) {
			t.Fatalf("staff's system error: %s", raw)
		}
	})
}

// collect reads a browser's events until a status event of submission id
// whose status is want, or, for a rule that hides results, until every
// event of the three updates arrived; it returns the submission states
// received and everything received, raw.
func collect(t *testing.T, b *browser, id int64, want protocol.Verdict, fb protocol.Feedback) ([]protocol.SubmissionState, string) {
	t.Helper()
	var states []protocol.SubmissionState
	var raw strings.Builder
	hidden := feedback.PhaseAt(fb, time.Now()) == feedback.Running && fb.Policy == protocol.FeedbackClosed
	statuses := 0
	for {
		e, err := b.next(5 * time.Second)
		if err != nil {
			t.Fatalf("waiting for %s: %v (got %s)", want, err, raw.String())
		}
		raw.Write(e.Data)
		if e.Type != protocol.TypeEvent {
			continue
		}
		ev := decode[protocol.Event](t, e)
		if strings.Contains(string(e.Data), `"feedback":{`) {
			t.Fatalf("the feedback rule leaked to a browser: %s", e.Data)
		}
		var st protocol.SubmissionState
		if err := json.Unmarshal(ev.Body, &st); err != nil || st.SubmissionID != id {
			continue
		}
		if ev.Channel.Kind == protocol.ChannelSubmission {
			states = append(states, st)
		}
		if ev.Kind == protocol.EventStatus && ev.Channel.Kind == protocol.ChannelUser {
			statuses++
		}
		if ev.Channel.Kind == protocol.ChannelUser && ev.Kind == protocol.EventStatus && (st.Status == want || (hidden && statuses == 2)) {
			// The user channel's status comes after the submission
			// channel's; judging then WA: two status changes.
			return states, raw.String()
		}
		if want == protocol.VerdictSE && ev.Kind == protocol.EventStatus && st.Status == want {
			return states, raw.String()
		}
	}
}

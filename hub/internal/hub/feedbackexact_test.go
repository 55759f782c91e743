package hub_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/feedback"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// TestFeedbackLiveEqualsREST: a judge that runs every case (IOI mode)
// sends its progress in several batches, the first failure (case 3) in a
// later batch than a case after it, and cases after the failure before
// and after it. What the owner and staff assemble live (the snapshot's
// cases with every event's appended, the last first failure and subtask
// scores) is exactly feedback.View of the whole result, which is what the
// REST answer shows (judging.Visible is View over the stored result), for
// first_failure and for score_only with subtasks; the snapshot read after
// the end says the same.
func TestFeedbackLiveEqualsREST(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	addSession(t, env, "owner", 7, "student")
	addSession(t, env, "admin", 9, "admin")
	AC, WA, TLE := protocol.VerdictAC, protocol.VerdictWA, protocol.VerdictTLE
	c := func(i int, v protocol.Verdict, score float64) protocol.CaseResult {
		return protocol.CaseResult{Case: i, Verdict: v, CPUMs: int64(10 * i), Score: score, Message: liveHidden}
	}
	batches := [][]protocol.CaseResult{
		{c(1, AC, 10), c(2, AC, 10)},
		{c(4, WA, 0), c(5, AC, 35)}, // before case 3: the failure here is not the first
		{c(6, AC, 35)},
		{c(3, WA, 0), c(7, TLE, 0)}, // the first failure, in a later batch
	}
	var whole []protocol.CaseResult
	for _, b := range batches {
		whole = append(whole, b...)
	}
	subtasks := []protocol.SubtaskRule{
		{Name: "small", Points: 30, Cases: []int{1, 2, 3}},
		{Name: "medium", Points: 70, Cases: []int{5, 6}},
		{Name: "large", Points: 0, Cases: []int{4, 7}},
	}
	for i, fb := range []protocol.Feedback{
		{Policy: protocol.FeedbackFirstFailure, Samples: []int{1}, Subtasks: subtasks},
		{Policy: protocol.FeedbackScoreOnly, Samples: []int{1}, Subtasks: subtasks},
	} {
		t.Run(string(fb.Policy), func(t *testing.T) {
			id := int64(300 + i)
			task := newTask(id, 1, 7)
			task.Mode, task.Feedback = protocol.ModeIOI, &fb
			enqueue(t, q, task)
			sub := protocol.Channel{Kind: protocol.ChannelSubmission, ID: id}
			user := protocol.Channel{Kind: protocol.ChannelUser, ID: 7}
			views := map[string]feedback.Viewer{"owner": feedback.Owner, "admin": feedback.Staff}
			browsers := map[string]*browser{}
			for cookie := range views {
				b, err := dialBrowser(t, th.url("/ws"), cookie)
				if err != nil {
					t.Fatal(err)
				}
				b.subscribe("s", sub)
				b.expect(protocol.TypeSnapshot)
				b.subscribe("u", user)
				b.expect(protocol.TypeSnapshot)
				browsers[cookie] = b
			}
			ctx := context.Background()
			for _, b := range batches {
				if _, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: id, Attempt: 1, Guard: queue.GuardNone,
					Status: protocol.VerdictJudging, Cases: b}); err != nil {
					t.Fatal(err)
				}
			}
			// The result: every case again (the queue keeps the first of
			// each), the verdict and the score.
			if _, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: id, Attempt: 1, Guard: queue.GuardNone,
				Status: WA, Score: 30, Cases: whole}); err != nil {
				t.Fatal(err)
			}
			rest := func(v feedback.Viewer) feedback.Shown {
				return feedback.View(fb, v, feedback.Ended, feedback.Result{Status: WA, Score: 30, Cases: whole})
			}
			for cookie, v := range views {
				states, raw := collect(t, browsers[cookie], id, WA, fb)
				want := rest(v)
				var got []protocol.CaseResult
				var first int
				var scores []protocol.SubtaskScore
				for _, st := range states {
					got = append(got, st.Cases...)
					if len(st.Cases) > 0 {
						first, scores = st.FirstFailure, st.Subtasks
					}
				}
				slices.SortFunc(got, func(a, b protocol.CaseResult) int { return a.Case - b.Case })
				if !slices.Equal(got, want.Cases) {
					t.Errorf("%s live cases %+v\nREST %+v", cookie, got, want.Cases)
				}
				if first != want.FirstFailure || !reflect.DeepEqual(scores, want.Subtasks) {
					t.Errorf("%s live first failure %d subtasks %+v, REST %d %+v", cookie, first, scores, want.FirstFailure, want.Subtasks)
				}
				if v != feedback.Staff && strings.Contains(raw, liveHidden) {
					t.Errorf("%s received a hidden message: %s", cookie, raw)
				}
				// The snapshot after the result says the same.
				browsers[cookie].subscribe("again", sub)
				snap := decode[protocol.Snapshot](t, browsers[cookie].expect(protocol.TypeSnapshot))
				var st protocol.SubmissionState
				if err := json.Unmarshal(snap.State, &st); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(st.Cases, want.Cases) || st.FirstFailure != want.FirstFailure || !reflect.DeepEqual(st.Subtasks, want.Subtasks) {
					t.Errorf("%s snapshot %+v, REST %+v", cookie, st, want)
				}
			}
			// What REST shows, spelled out: first_failure names case 3 and
			// shows cases 1-3; score_only shows every case and the
			// subtasks' scores.
			want := rest(feedback.Owner)
			switch fb.Policy {
			case protocol.FeedbackFirstFailure:
				if want.FirstFailure != 3 || len(want.Cases) != 3 || want.Subtasks != nil {
					t.Errorf("first_failure REST %+v", want)
				}
			case protocol.FeedbackScoreOnly:
				if len(want.Cases) != 7 || len(want.Subtasks) != 3 || want.Subtasks[0].Score != 0 || want.Subtasks[1].Score != 70 {
					t.Errorf("score_only REST %+v", want)
				}
			}
		})
	}
}

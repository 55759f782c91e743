package hub_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// TestStatusChannel: the status page's live channels. The site's (id 0)
// and a contest's are open to every session, but a student receives only
// the events of submissions everyone may list (Feedback.StatusPublic:
// practice on public problems, a contest that lists everyone's verdicts),
// censored as another contestant sees them, and on the site's channel
// numbered without gaps; staff receive every event whole.
func TestStatusChannel(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	q := th.h.Queue()
	addSession(t, env, "student", 8, "student")
	addSession(t, env, "setter", 9, "setter")
	dial := func(cookie string) *browser {
		b, err := dialBrowser(t, th.url("/ws"), cookie)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	site := protocol.Channel{Kind: protocol.ChannelStatus, ID: 0}
	open := protocol.Channel{Kind: protocol.ChannelStatus, ID: 41}   // status_visibility all
	closed := protocol.Channel{Kind: protocol.ChannelStatus, ID: 42} // own
	student, staff := dial("student"), dial("setter")
	for _, ch := range []protocol.Channel{site, open, closed} {
		student.subscribe("s", ch)
		if snap := decode[protocol.Snapshot](t, student.expect(protocol.TypeSnapshot)); string(snap.State) != "{}" {
			t.Fatalf("status snapshot %s, want {}", snap.State)
		}
	}
	for _, ch := range []protocol.Channel{site, open, closed} {
		staff.subscribe("s", ch)
		staff.expect(protocol.TypeSnapshot)
	}

	ctx := context.Background()
	enq := func(id, contest int64, public bool) {
		task := newTask(id, 1, 7)
		task.ContestID = contest
		task.Feedback = &protocol.Feedback{Policy: protocol.FeedbackFull, StatusPublic: public}
		enqueue(t, q, task)
		if _, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: id, Attempt: 1, Status: protocol.VerdictWA,
			CompileMessage: "warning: PRIVATE", Guard: queue.GuardNone}); err != nil {
			t.Fatal(err)
		}
	}
	enq(500, 42, false) // the closed contest: staff only
	enq(501, 41, true)  // the open one: everyone, censored
	enq(502, 0, false)  // practice on a problem that is not public: staff only
	enq(503, 0, true)   // practice on a public problem: everyone, censored

	// Staff: queued and WA of both on the site's channel, and each on its
	// contest's, the compiler output included.
	seen := map[protocol.Channel][]string{}
	for len(seen[site]) < 8 || len(seen[open]) < 2 || len(seen[closed]) < 2 {
		e := staff.expect(protocol.TypeEvent)
		ev := decode[protocol.Event](t, e)
		seen[ev.Channel] = append(seen[ev.Channel], string(ev.Body))
	}
	if !strings.Contains(strings.Join(seen[closed], ""), "PRIVATE") || !strings.Contains(strings.Join(seen[site], ""), `"submission_id":501`) {
		t.Fatalf("staff events: %v", seen)
	}
	// The student: exactly the open contest's two events on its channel,
	// and those of 501 and 503 on the site's (seq 1 to 4, no gap for the
	// private ones), without the compiler output, in sequence.
	got := map[protocol.Channel][]protocol.Event{}
	for range 6 {
		ev := decode[protocol.Event](t, student.expect(protocol.TypeEvent))
		got[ev.Channel] = append(got[ev.Channel], ev)
	}
	if len(got[open]) != 2 || len(got[site]) != 4 {
		t.Fatalf("student events: %+v", got)
	}
	for ch, evs := range got {
		for i, ev := range evs {
			body := string(ev.Body)
			if strings.Contains(body, "PRIVATE") || ev.Seq != uint64(i+1) ||
				!(strings.Contains(body, `"submission_id":501`) || ch == site && strings.Contains(body, `"submission_id":503`)) {
				t.Fatalf("student event %d on %s: %+v %s", i, ch, ev, ev.Body)
			}
		}
	}
	if e, err := student.next(500 * time.Millisecond); err == nil {
		t.Fatalf("the student got more: %s %s", e.Type, e.Data)
	}
}

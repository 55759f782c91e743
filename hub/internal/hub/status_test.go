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
// is for staff only; a contest's is open to every session, but a student
// receives only the events of a contest that lists everyone's verdicts
// (Feedback.StatusPublic), censored as another contestant sees them,
// while staff receive every event whole.
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
	student.subscribe("x", site)
	if e := student.expect(protocol.TypeError); decode[protocol.Error](t, e).Code != protocol.ErrorForbidden {
		t.Fatalf("a student on the site's status channel: %s", e.Data)
	}
	for _, ch := range []protocol.Channel{open, closed} {
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

	// Staff: queued and WA of both on the site's channel, and each on its
	// contest's, the compiler output included.
	seen := map[protocol.Channel][]string{}
	for len(seen[site]) < 4 || len(seen[open]) < 2 || len(seen[closed]) < 2 {
		e := staff.expect(protocol.TypeEvent)
		ev := decode[protocol.Event](t, e)
		seen[ev.Channel] = append(seen[ev.Channel], string(ev.Body))
	}
	if !strings.Contains(strings.Join(seen[closed], ""), "PRIVATE") || !strings.Contains(strings.Join(seen[site], ""), `"submission_id":501`) {
		t.Fatalf("staff events: %v", seen)
	}
	// The student: exactly the open contest's two events, without the
	// compiler output, in sequence.
	var got []protocol.Event
	for range 2 {
		got = append(got, decode[protocol.Event](t, student.expect(protocol.TypeEvent)))
	}
	for i, ev := range got {
		if ev.Channel != open || strings.Contains(string(ev.Body), "PRIVATE") || ev.Seq != uint64(i+1) {
			t.Fatalf("student event %d: %+v %s", i, ev, ev.Body)
		}
	}
	if e, err := student.next(500 * time.Millisecond); err == nil {
		t.Fatalf("the student got more: %s %s", e.Type, e.Data)
	}
}

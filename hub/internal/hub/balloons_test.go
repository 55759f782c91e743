package hub_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// TestBalloonsChannelIsStaffOnly: a contest's balloon channel tells that
// a team solved a problem (hidden from the public during the freeze), so
// a student is refused and staff get its events.
func TestBalloonsChannelIsStaffOnly(t *testing.T) {
	env := testenv.Redis(t)
	th := startHub(t, env, nil)
	addSession(t, env, "student", 8, "student")
	addSession(t, env, "setter", 9, "setter")
	ch := protocol.Channel{Kind: protocol.ChannelBalloons, ID: 41}
	student, err := dialBrowser(t, th.url("/ws"), "student")
	if err != nil {
		t.Fatal(err)
	}
	student.subscribe("b", ch)
	if e := student.expect(protocol.TypeError); decode[protocol.Error](t, e).Code != protocol.ErrorForbidden {
		t.Fatalf("a student on the balloon channel: %s", e.Data)
	}
	staff, err := dialBrowser(t, th.url("/ws"), "setter")
	if err != nil {
		t.Fatal(err)
	}
	staff.subscribe("b", ch)
	staff.expect(protocol.TypeSnapshot)
	body, _ := json.Marshal(protocol.BalloonChange{ContestID: 41, What: "solved", SubmissionID: 500})
	if _, err := th.h.Queue().PublishDoc(context.Background(), ch, protocol.EventBalloon, body, []byte(`{"changed_ms":1}`)); err != nil {
		t.Fatal(err)
	}
	ev := decode[protocol.Event](t, staff.expect(protocol.TypeEvent))
	var got protocol.BalloonChange
	err = json.Unmarshal(ev.Body, &got)
	if ev.Kind != protocol.EventBalloon || err != nil || got.SubmissionID != 500 {
		t.Fatalf("staff event %+v %s (%v)", ev, ev.Body, err)
	}
}

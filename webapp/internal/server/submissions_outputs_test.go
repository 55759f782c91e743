package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// An output-only submission in a team contest is the team's, as a
// program is (one submit path, judging.Submit): it carries the team and
// its accepted verdict makes the team's row.
func TestOutputOnlySubmitInTeamContest(t *testing.T) {
	te := newTeamEnv(t)
	if r := te.admin.call("PUT", "/api/problems/a-plus-b", map[string]any{"output_only": true}); r.status != 200 {
		t.Fatalf("output-only: %d %s", r.status, r.raw)
	}
	fields := [][2]string{{"problem", "a-plus-b"}, {"contest", "c1"}}
	r := te.alice.outputsPost("team-o1", fields, [][2]string{{"case_1", "3\n"}})
	if r.status != http.StatusCreated {
		t.Fatalf("outputs: %d %s", r.status, r.raw)
	}
	sid := id(r)
	sub, err := te.st.SubmissionByID(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if !sub.TeamID.Valid || sub.TeamExtID.String != "t1" {
		t.Fatalf("alice's outputs are team %v (%q), want t1's", sub.TeamID, sub.TeamExtID.String)
	}
	te.judge(sid, 1, protocol.VerdictAC, 3)
	te.consume()
	rows := boardRows(te.board(te.client(), ""))
	var t1 map[string]any
	for _, row := range rows {
		if row["team_id"] == "t1" {
			t1 = row
		}
	}
	if t1 == nil || t1["solved"] != float64(1) {
		t.Fatalf("board rows %v: want t1 with the outputs solved", rows)
	}
	// Still a team contest's rule: on no team, no submission.
	dan := te.student("dan")
	wantErr(t, dan.outputsPost("dan-o1", fields, [][2]string{{"case_1", "3\n"}}), http.StatusForbidden, CodeForbidden, "contest")
	if r := te.alice.outputsPost("team-o2", fields, [][2]string{{"case_9", "3\n"}}); r.status != 400 || !strings.Contains(r.raw, "case_9") {
		t.Fatalf("a case the problem lacks: %d %s", r.status, r.raw)
	}
}

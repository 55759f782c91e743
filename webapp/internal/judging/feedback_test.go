package judging

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/feedback"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestRuleOfAndVisible: a contest submission follows its contest's policy
// (closed with its end and after-policy), a practice one its problem's;
// Visible applies it to the stored row and cases.
func TestRuleOfAndVisible(t *testing.T) {
	end := time.Date(2026, 3, 1, 15, 0, 0, 0, time.UTC)
	sub := store.Submission{ID: 1, UserID: 7, Verdict: "WA", Score: 0, ProblemFeedback: "full",
		ContestID:            sql.NullInt64{Int64: 3, Valid: true},
		ContestFeedback:      sql.NullString{String: "closed", Valid: true},
		ContestFeedbackAfter: sql.NullString{String: "first_failure", Valid: true},
		ContestEndAt:         sql.NullTime{Time: end, Valid: true},
		TimeMs:               sql.NullInt64{Int64: 20, Valid: true},
		CompileMessage:       sql.NullString{String: "warning", Valid: true}}
	fb := RuleOf(&sub)
	if fb.Policy != protocol.FeedbackClosed || fb.After != protocol.FeedbackFirstFailure || fb.EndsAtMs != end.UnixMilli() {
		t.Fatalf("contest rule %+v", fb)
	}
	cases := []store.SubmissionCase{{Index: 1, Verdict: "AC", Message: "sample"}, {Index: 2, Verdict: "WA", TimeMs: 20, Message: "hidden answer 42"}}
	fb.Samples = []int{1}
	if sh := Visible(fb, feedback.Owner, end.Add(-time.Minute), &sub, cases); !sh.Hidden || sh.Status != protocol.VerdictPending || sh.Cases != nil {
		t.Fatalf("closed, running: %+v", sh)
	}
	sh := Visible(fb, feedback.Owner, end, &sub, cases)
	if sh.Hidden || sh.FirstFailure != 2 || len(sh.Cases) != 2 || sh.Cases[0].Message != "" || sh.TimeMs != 20 {
		t.Fatalf("closed, ended (first_failure): %+v", sh)
	}
	if sh := Visible(fb, feedback.Staff, end.Add(-time.Minute), &sub, cases); sh.Cases[1].Message != "hidden answer 42" || sh.CompileMessage != "warning" {
		t.Fatalf("staff: %+v", sh)
	}
	practice := sub
	practice.ContestID = sql.NullInt64{}
	if fb := RuleOf(&practice); fb.Policy != protocol.FeedbackFull || fb.EndsAtMs != 0 {
		t.Fatalf("practice rule %+v", fb)
	}
	for _, v := range []feedback.Viewer{feedback.Anonymous, feedback.Other} {
		sh := Visible(protocol.Feedback{Policy: protocol.FeedbackFull, Samples: []int{1}}, v, end, &practice, cases)
		for _, c := range sh.Cases {
			if c.Message != "" || strings.Contains(sh.CompileMessage, "warning") {
				t.Fatalf("%s sees messages: %+v", v, sh)
			}
		}
	}
	owner := &store.User{ID: 7, Role: store.RoleStudent}
	if ViewerOf(nil, &sub) != feedback.Anonymous || ViewerOf(owner, &sub) != feedback.Owner ||
		ViewerOf(&store.User{ID: 8, Role: store.RoleStudent}, &sub) != feedback.Other ||
		ViewerOf(&store.User{ID: 9, Role: store.RoleSetter}, &sub) != feedback.Staff {
		t.Fatal("ViewerOf")
	}
}

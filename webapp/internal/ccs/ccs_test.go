package ccs

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func TestTimeFormats(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0:00:00.000"},
		{90*time.Minute + 1500*time.Millisecond, "1:30:01.500"},
		{-(2*time.Second + 999999*time.Nanosecond), "-0:00:02.000"},
		{125 * time.Hour, "125:00:00.000"},
	} {
		got := RelTime(tc.d)
		if got != tc.want || !RelTimePattern.MatchString(got) {
			t.Errorf("RelTime(%v) = %q, want %q (and the CLICS pattern)", tc.d, got, tc.want)
		}
	}
	at := time.Date(2026, 6, 25, 10, 0, 0, 123456789, time.FixedZone("x", 3600))
	if got := AbsTime(at); got != "2026-06-25T09:00:00.123+00:00" || !AbsTimePattern.MatchString(got) {
		t.Errorf("AbsTime = %q", got)
	}
	if AbsTimePtr(time.Time{}) != nil {
		t.Error("the zero time is not null")
	}
}

func TestIDsAndJudgementTypes(t *testing.T) {
	c := &store.Contest{ID: 7, Slug: "nwerc-2026"}
	if ContestID(c) != "nwerc-2026" {
		t.Errorf("ContestID = %q", ContestID(c))
	}
	c.Slug = "a-very-long-contest-slug-that-is-no-clics-identifier"
	if ContestID(c) != "7" {
		t.Errorf("long slug: ContestID = %q, want the numeric id", ContestID(c))
	}
	for v, want := range map[string]string{"AC": "AC", "RE": "RTE", "SE": "JE", "WA": "WA", "SK": "", "queued": ""} {
		if got := JudgementTypeOf(v); got != want {
			t.Errorf("JudgementTypeOf(%s) = %q, want %q", v, got, want)
		}
	}
	c.PenaltyMinutes, c.PenaltyVerdicts = 20, "WA,CE"
	pen := map[string]bool{}
	for _, jt := range JudgementTypes(c) {
		pen[jt.ID] = jt.Penalty
	}
	if !pen["WA"] || !pen["CE"] || pen["TLE"] || pen["AC"] {
		t.Errorf("penalty flags follow the contest's rule: %v", pen)
	}
	if got := ContestObject(c); *got.PenaltyTime != 20 || got.ScoreboardType != "pass-fail" {
		t.Errorf("contest %+v", got)
	}
}

func TestFreezeHidesOutcomesFromThePublic(t *testing.T) {
	now := time.Now()
	c := &store.Contest{ID: 1, Slug: "c", StartAt: now.Add(-2 * time.Hour), EndAt: now.Add(time.Hour), FreezeMinutes: 90,
		PenaltyMinutes: 20}
	before, after := now.Add(-time.Hour-time.Minute), now.Add(-time.Minute)
	if Hidden(c, before, now) || !Hidden(c, after, now) {
		t.Fatal("a submission after the freeze is hidden, one before is not")
	}
	judged := Fact{Kind: FactJudgement, SubmissionID: 5, Attempt: 1, UserID: 2, ProblemID: 3, At: after.UnixMilli(),
		Verdict: "AC", JudgedAt: now.UnixMilli(), Cases: []Case{{1, "AC", 10}, {2, "SK", 0}}}
	if evs := NewReader(true).Events(c, judged, now); len(evs) != 2 || evs[1].Type != TypeSubmissions {
		t.Fatalf("the public reader gets the team and submission, no outcome: %v", evs)
	}
	evs := NewReader(false).Events(c, judged, now)
	if len(evs) != 4 || evs[0].Type != TypeTeams || evs[1].Type != TypeSubmissions || evs[2].Type != TypeRuns || evs[3].Type != TypeJudgements {
		t.Fatalf("staff: %v (team and submission not sent yet on this connection; one run: the skipped case is none)", evs)
	}
	// Thawed: the public reader's replay gives what the freeze held.
	c.UnfrozenAt = sql.NullTime{Time: now, Valid: true}
	if evs := NewReader(true).Replay(c, judged, now); len(evs) != 2 {
		t.Fatalf("replay after the thaw: %v", evs)
	}
	sub := Fact{Kind: FactSubmission, SubmissionID: 5, Attempt: 1, UserID: 2, Username: "al", ProblemID: 3, Language: "py3",
		At: after.UnixMilli()}
	r := NewReader(true)
	if evs := r.Events(c, sub, now); len(evs) != 3 || evs[0].Type != TypeTeams || evs[1].Type != TypeSubmissions {
		t.Fatalf("a new submission: team (first time), submission, judgement: %v", evs)
	}
	if evs := r.Events(c, sub, now); len(evs) != 0 {
		t.Fatalf("the same fact again (appended twice) sends nothing: %v", evs)
	}
	b, _ := json.Marshal(NewEvent(TypeState, "", StateObject(c, now)))
	if !strings.HasPrefix(string(b), `{"type":"state","id":null,"data":{`) {
		t.Errorf("state event %s", b)
	}
}
